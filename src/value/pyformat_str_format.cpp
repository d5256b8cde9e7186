// Python str.format / str.format_map as string.Formatter (Jinja2's SandboxedFormatter) runs them.
#include <limits>

#include "value/pyformat.hpp"
#include "value/pyformat_internal.hpp"
#include "value/pystr.hpp"

namespace toolchat::pyformat {

namespace detail {

Value mapping_get(const Value& m, const Value& key) {
  if (m.is_dict()) {
    const Value* v = m.dict_obj().find(key);
    if (!v) throw Error(ErrorKind::KeyError, py_repr(key));
    return *v;
  }
  if (m.is_list()) {
    if (key.is_str())
      type_error(std::string(type_name(m)) + " indices must be integers or slices, not str");
    if (key.is_int() || key.is_bool()) {
      int64_t i = key.int_like();
      int64_t n = static_cast<int64_t>(m.items().size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) throw Error(ErrorKind::IndexError, std::string(type_name(m)) + " index out of range");
      return m.items()[static_cast<size_t>(i)];
    }
  }
  if (m.is_str()) {
    if (key.is_int() || key.is_bool()) {
      int64_t i = key.int_like();
      try { return Value::string(pystr::char_at(m.str(), i)); }
      catch (const pystr::PyError& e) { throw Error(ErrorKind::IndexError, e.message); }
    }
    type_error(std::string("string indices must be integers, not '") + type_name(key) + "'");
  }
  type_error(std::string("'") + type_name(m) + "' object is not subscriptable");
}

}  // namespace detail

using namespace detail;

namespace {

struct FormatState {
  const std::vector<Value>& args;
  const std::vector<std::pair<std::string, Value>>* kwargs;  // format()
  const Value* mapping;                                       // format_map()
  const FieldResolver& res;
  size_t max_bytes;
};

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) if (c < '0' || c > '9') return false;
  return true;
}

int64_t to_index(std::string_view s) {
  int64_t v = 0;
  for (char c : s) {
    if (v > (std::numeric_limits<int64_t>::max() - (c - '0')) / 10)
      value_error("Too many decimal digits in format string");
    v = v * 10 + (c - '0');
  }
  return v;
}

Value get_field(FormatState& st, std::string_view field) {
  size_t i = 0;
  while (i < field.size() && field[i] != '.' && field[i] != '[') ++i;
  std::string_view first = field.substr(0, i);
  Value obj;
  if (all_digits(first)) {
    int64_t idx = to_index(first);
    if (idx >= static_cast<int64_t>(st.args.size())) {
      if (!st.res.getattr && !st.res.getitem && st.kwargs)
        throw Error(ErrorKind::IndexError, "Replacement index " + std::to_string(idx) +
                                               " out of range for positional args tuple");
      throw Error(ErrorKind::IndexError, "tuple index out of range");
    }
    obj = st.args[static_cast<size_t>(idx)];
  } else if (st.mapping) {
    obj = mapping_get(*st.mapping, Value::string(first));
  } else {
    const Value* found = nullptr;
    for (auto& kv : *st.kwargs)
      if (kv.first == first) found = &kv.second;
    if (!found) throw Error(ErrorKind::KeyError, pystr::repr(first));
    obj = *found;
  }
  while (i < field.size()) {
    char c = field[i++];
    if (c == '.') {
      size_t s = i;
      while (i < field.size() && field[i] != '.' && field[i] != '[') ++i;
      if (i == s) value_error("Empty attribute in format string");
      std::string_view name = field.substr(s, i - s);
      if (st.res.getattr) obj = st.res.getattr(obj, name);
      else
        throw Error(ErrorKind::AttributeError,
                    std::string("'") + type_name(obj) + "' object has no attribute '" + std::string(name) + "'");
    } else if (c == '[') {
      size_t s = i;
      while (i < field.size() && field[i] != ']') ++i;
      if (i >= field.size()) value_error("Missing ']' in format string");
      std::string_view key = field.substr(s, i - s);
      if (key.empty()) value_error("Empty attribute in format string");
      ++i;
      if (i < field.size() && field[i] != '.' && field[i] != '[')
        value_error("Only '.' or '[' may follow ']' in format field specifier");
      Value k = all_digits(key) ? Value::integer(to_index(key)) : Value::string(key);
      obj = st.res.getitem ? st.res.getitem(obj, k) : mapping_get(obj, k);
    } else {
      value_error("Only '.' or '[' may follow ']' in format field specifier");
    }
  }
  return obj;
}

// auto_index: >= 0 next automatic index; -1 manual numbering seen ("False" in Python).
std::string vformat(FormatState& st, std::string_view s, int depth, int64_t& auto_index) {
  if (depth < 0) value_error("Max string recursion exceeded");
  std::string out;
  size_t i = 0, n = s.size();
  while (i < n) {
    char c = s[i];
    if (c == '}') {
      if (i + 1 < n && s[i + 1] == '}') { out += '}'; i += 2; continue; }
      value_error("Single '}' encountered in format string");
    }
    if (c != '{') {
      size_t j = s.find_first_of("{}", i);
      if (j == std::string_view::npos) j = n;
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    if (i + 1 >= n) value_error("Single '{' encountered in format string");
    if (s[i + 1] == '{') { out += '{'; i += 2; continue; }
    // a replacement field
    size_t p = i + 1;
    size_t name_start = p;
    for (;;) {
      if (p >= n) value_error("expected '}' before end of string");
      char d = s[p];
      if (d == '}' || d == '!' || d == ':') break;
      if (d == '{') value_error("unexpected '{' in field name");
      ++p;
      if (d == '[') {
        while (p < n && s[p] != ']') ++p;
        if (p < n) ++p;
      }
    }
    std::string_view field = s.substr(name_start, p - name_start);
    char delim = s[p++];
    char conversion = 0;
    if (delim == '!') {
      if (p >= n) value_error("end of string while looking for conversion specifier");
      conversion = s[p++];
      if (p >= n) value_error("unmatched '{' in format spec");
      delim = s[p++];
      if (delim != ':' && delim != '}') value_error("expected ':' after conversion specifier");
    }
    std::string_view spec;
    if (delim == ':') {
      size_t spec_start = p;
      int nest = 1;
      for (;;) {
        if (p >= n) value_error("unmatched '{' in format spec");
        char d = s[p++];
        if (d == '{') ++nest;
        else if (d == '}' && --nest == 0) break;
      }
      spec = s.substr(spec_start, p - 1 - spec_start);
    }
    i = p;
    std::string fname(field);
    if (fname.empty()) {
      if (auto_index < 0)
        value_error("cannot switch from manual field specification to automatic field numbering");
      fname = std::to_string(auto_index++);
    } else if (all_digits(fname)) {
      if (auto_index > 0)
        value_error("cannot switch from manual field specification to automatic field numbering");
      auto_index = -1;
    }
    Value obj = get_field(st, fname);
    if (conversion == 's') obj = Value::string(py_str(obj));
    else if (conversion == 'r') obj = Value::string(py_repr(obj));
    else if (conversion == 'a') obj = Value::string(ascii_repr(obj));
    else if (conversion != 0) value_error(std::string("Unknown conversion specifier ") + conversion);
    std::string expanded = vformat(st, spec, depth - 1, auto_index);
    out += format_value(obj, expanded, st.max_bytes);
    check_built(out, st.max_bytes);
  }
  return out;
}

}  // namespace

std::string format(const std::string& fmt, const std::vector<Value>& args,
                   const std::vector<std::pair<std::string, Value>>& kwargs, const FieldResolver& resolver,
                   size_t max_bytes) {
  FormatState st{args, &kwargs, nullptr, resolver, max_bytes};
  int64_t auto_index = 0;
  return vformat(st, fmt, 2, auto_index);
}

std::string format_map(const std::string& fmt, const Value& mapping, const FieldResolver& resolver,
                       size_t max_bytes) {
  static const std::vector<Value> kNoArgs;
  FormatState st{kNoArgs, nullptr, &mapping, resolver, max_bytes};
  int64_t auto_index = 0;
  return vformat(st, fmt, 2, auto_index);
}

}  // namespace toolchat::pyformat
