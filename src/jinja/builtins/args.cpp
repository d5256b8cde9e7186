// Python-style argument binding for builtins, Python iteration, and the attribute
// paths ("a.b.0") that filters such as map/sort/groupby accept.
#include <string>
#include <vector>

#include "jinja/builtins.hpp"
#include "value/pyobjects.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja {

namespace {

[[noreturn]] void type_error(std::string msg) { throw Error(ErrorKind::TypeError, std::move(msg)); }

std::string quoted_list(const std::vector<std::string>& names) {
  // Python: 'a'  /  'a' and 'b'  /  'a', 'b', and 'c'
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) {
      if (names.size() == 2) out += " and ";
      else if (i + 1 == names.size()) out += ", and ";
      else out += ", ";
    }
    out += "'" + names[i] + "'";
  }
  return out;
}

}  // namespace

ArgBinder::ArgBinder(const char* func, CallArgs& args, std::initializer_list<const char*> params,
                     size_t required, size_t extra_pos) {
  const size_t nparams = params.size();
  const size_t npos = args.pos.size();
  if (npos == 0 && args.kw.empty() && required == 0) return;
  const char* const* names = params.begin();
  const size_t filled = npos < nparams ? npos : nparams;
  for (size_t i = 0; i < filled; ++i) {
    vals_[i] = args.pos[i];
    given_[i] = true;
  }
  // Keywords first: CPython reports them before counting positionals.
  for (auto& [name, val] : args.kw) {
    size_t idx = nparams;
    for (size_t i = 0; i < nparams; ++i)
      if (name == names[i]) { idx = i; break; }
    if (idx == nparams)
      type_error(std::string(func) + "() got an unexpected keyword argument '" + name + "'");
    if (given_[idx])
      type_error(std::string(func) + "() got multiple values for argument '" + name + "'");
    vals_[idx] = val;
    given_[idx] = true;
  }
  if (npos > nparams) {
    size_t max = nparams + extra_pos;
    size_t min = required + extra_pos;
    size_t got = npos + extra_pos;
    std::string msg = std::string(func) + "() takes ";
    if (min != max) msg += "from " + std::to_string(min) + " to " + std::to_string(max);
    else msg += std::to_string(max);
    msg += max == 1 && min == max ? " positional argument" : " positional arguments";
    msg += " but " + std::to_string(got) + (got == 1 ? " was given" : " were given");
    type_error(std::move(msg));
  }
  std::vector<std::string> missing;
  for (size_t i = 0; i < required && i < nparams; ++i)
    if (!given_[i]) missing.emplace_back(names[i]);
  if (!missing.empty()) {
    type_error(std::string(func) + "() missing " + std::to_string(missing.size()) + " required positional argument" +
               (missing.size() == 1 ? "" : "s") + ": " + quoted_list(missing));
  }
}

std::vector<Value> iterate(const Value& v) {
  switch (v.type()) {
    case Type::Undefined: return {};
    case Type::List: return v.items();
    case Type::Dict: {
      std::vector<Value> out;
      out.reserve(v.dict_obj().size());
      for (const auto& e : v.dict_obj().entries) out.push_back(e.first);
      return out;
    }
    case Type::Str: {
      std::string_view s = v.str();
      if (text_watch::watching() && text_watch::holds_marker(s)) text_watch::note_inspected();
      std::vector<Value> out;
      out.reserve(s.size());
      size_t i = 0;
      while (i < s.size()) {
        size_t start = i;
        uni::decode_next(s, i);
        out.push_back(Value::string(s.substr(start, i - start)));  // str.__iter__: plain str even for Markup
      }
      return out;
    }
    default:
      if (v.is_obj(ObjKind::Generator)) return v.as<GeneratorObj>()->drain();
      if (v.is_obj(ObjKind::Bytes)) {
        std::vector<Value> out;
        for (unsigned char c : v.as<BytesObj>()->b) out.push_back(Value::integer(c));
        return out;
      }
      type_error(std::string("'") + type_name(v) + "' object is not iterable");
  }
}

namespace {

// _prepare_attribute_parts: dotted strings split, digit parts become ints.
std::vector<Value> attribute_parts(const Value& attribute) {
  std::vector<Value> parts;
  if (attribute.is_none() ) return parts;
  if (!attribute.is_str()) {
    parts.push_back(attribute);
    return parts;
  }
  std::string_view s = attribute.str();
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view part = s.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    bool digits = !part.empty() && part.size() <= 18;
    for (char c : part)
      if (c < '0' || c > '9') { digits = false; break; }
    if (digits) parts.push_back(Value::integer(std::stoll(std::string(part))));
    else parts.push_back(Value::string(std::move(part)));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

Value get_attribute_path(Renderer& r, const Value& v, const Value& attribute) {
  Value item = v;
  for (const Value& part : attribute_parts(attribute)) {
    // a string part on a sequence is an attribute lookup (obj['x'] fails, then getattr)
    item = part.is_str() && item.is_list() ? r.getattr(item, part.str()) : r.getitem(item, part);
  }
  return item;
}

}  // namespace toolchat::jinja
