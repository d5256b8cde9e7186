#include "convert/value_key.hpp"

#include <algorithm>

#include "convert/row_reader.hpp"

namespace toolchat::convert {

ValueKey::ValueKey(std::string& buffer, Strings strings) : buf_(buffer), strings_(strings) {
  if (buf_.size() < 4096) buf_.resize(4096);
}

void ValueKey::grow(size_t n) { buf_.resize(std::max(buf_.size() * 2, at_ + n)); }

bool ValueKey::add(const Value& v) {
  switch (v.type()) {
    case Type::None:
      tag('n');
      return true;
    case Type::Bool:
      tag(v.as_bool() ? 't' : 'f');
      return true;
    case Type::Int: {
      int64_t i = v.as_int();
      tag('i');
      put(&i, sizeof i);
      return true;
    }
    case Type::Float: {
      double d = v.as_float();
      tag('d');
      put(&d, sizeof d);
      return true;
    }
    case Type::Str:
      tag(v.is_markup() ? 'M' : 's');
      if (strings_ == Strings::text) text(v.str());
      return true;
    case Type::List: {
      const auto& items = v.items();
      tag(static_cast<char>('0' + static_cast<int>(v.list_obj().lkind)));
      size(items.size());
      for (const auto& x : items)
        if (!add(x)) return false;
      return true;
    }
    case Type::Dict: {
      const auto& entries = v.dict_obj().entries;
      tag('m');
      size(entries.size());
      for (const auto& [k, x] : entries)
        if (!add_key(k) || !add(x)) return false;
      return true;
    }
    default:
      return false;
  }
}

bool ValueKey::add_with_known(const Value& d) {
  if (!d.is_dict()) return add(d);
  const KnownValues& known = KnownValues::this_thread();
  const auto& entries = d.dict_obj().entries;
  open_dict(entries.size());
  for (const auto& [k, x] : entries) {
    if (!add_key(k)) return false;
    if (const uint64_t id = known.id_of(x)) {
      tag('H');
      put(&id, sizeof id);
    } else if (!add(x)) {
      return false;
    }
  }
  return true;
}

}  // namespace toolchat::convert
