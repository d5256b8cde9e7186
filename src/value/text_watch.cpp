// What the render cache's proof renders do with the markers (text_watch.hpp).
#include "value/text_watch.hpp"

#include <algorithm>

namespace toolchat::text_watch {

bool holds_marker(std::string_view s) { return s.find("\xEE\x80") != std::string_view::npos; }

bool holds_marker(const Value& v) {
  switch (v.type()) {
    case Type::Str: return holds_marker(v.str());
    case Type::List:
      return std::any_of(v.items().begin(), v.items().end(), [](const Value& x) { return holds_marker(x); });
    case Type::Dict:
      for (const auto& [k, x] : v.dict_obj().entries)
        if (holds_marker(k) || holds_marker(x)) return true;
      return false;
    default: return false;
  }
}

namespace {

bool listed(const std::vector<std::string>* strings, std::string_view s) {
  return strings && std::find(strings->begin(), strings->end(), s) != strings->end();
}

}  // namespace

bool screened_contained(const Value& s) {
  return s.is_str() && !s.str().empty() && !holds_marker(s.str()) && listed(state.screened.contained, s.str());
}

bool screened_compared(const Value& s) {
  return s.is_str() && !holds_marker(s.str()) &&
         (listed(state.screened.compared, s.str()) || screened_contained(s));
}

bool screened_stripped(const Value& chars) {
  if (chars.is_none()) return true;  // whitespace: always screened
  if (!chars.is_str() || !state.screened.stripped) return false;
  for (char c : chars.str())
    if (state.screened.stripped->find(c) == std::string::npos) return false;
  return true;
}

void note_equal(const Value& a, const Value& b) {
  if (a.is_str() && b.is_str()) {
    if ((holds_marker(a.str()) && !screened_compared(b)) || (holds_marker(b.str()) && !screened_compared(a)))
      note_inspected();
    return;
  }
  // Containers of the same type compare item by item, and dicts look keys up by hash: a marker
  // anywhere in them is inspected. Values of other types never equal a str.
  if (a.type() == b.type() && (a.is_list() || a.is_dict()) && (holds_marker(a) || holds_marker(b)))
    note_inspected();
}

void note_order(const Value& a, const Value& b) {
  if (holds_marker(a) || holds_marker(b)) note_inspected();
}

void note_contains(const Value& container, const Value& item) {
  if (container.is_str()) {
    if (holds_marker(item) || (holds_marker(container.str()) && !screened_contained(item))) note_inspected();
  } else if (container.is_dict()) {
    if (holds_marker(item)) note_inspected();  // a lookup by hash
  }
  // a list or a generator: item by item through py_equal, which notes its own
}

}  // namespace toolchat::text_watch
