// Shared helpers of the builtin filter files (filters.cpp, filters_text.cpp, filters_seq.cpp,
// filters_encode.cpp), also used by tests.cpp and methods_str.cpp, and the declarations of the
// filter functions that filters.cpp's table names. Private to src/jinja/builtins/; the helpers
// are defined in filters.cpp except pformat (filters_encode.cpp).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "jinja/builtins.hpp"
#include "toolchat/value.hpp"

namespace toolchat::jinja::fimpl {

// jinja2.exceptions.FilterArgumentError and Python's AssertionError (truncate's asserts).
inline constexpr ErrorKind kFilterArgumentError = ErrorKind::FilterArgumentError;
inline constexpr ErrorKind kAssertionError = ErrorKind::AssertionError;

[[noreturn]] inline void type_error(std::string msg) { throw Error(ErrorKind::TypeError, std::move(msg)); }
[[noreturn]] inline void filter_arg_error(std::string msg) { throw Error(kFilterArgumentError, std::move(msg)); }

// markupsafe.soft_str: str(v), Undefined -> "" (markup kept by the caller).
std::string soft_str(const Value& v);
// A string result that keeps the markup flag of the input when `markup`.
inline Value str_value(std::string_view s, bool markup) {
  return markup ? Value::markup(s) : Value::string(s);
}
// operator.index(v): int / bool / big int (OverflowError when it does not fit in 64 bits);
// TypeError "'X' object cannot be interpreted as an integer" otherwise.
int64_t as_index(const Value& v);
// markupsafe.escape of text (&, <, >, ", ').
std::string html_escape(std::string_view s);  // html_escape_append into a new string
// markupsafe.escape(v): markup stays, everything else str()-ed and escaped.
Value escape_value(const Value& v);
// Raises LimitError when a built value exceeds limits().max_value_bytes.
void check_size(Renderer& r, size_t bytes, const char* what);
// A keyword naming one of the implicit leading parameters (environment, value, ...):
// "<func>() got multiple values for argument '<name>'".
void reject_implicit(const char* func, const CallArgs& args, std::initializer_list<const char*> names);
// Builtins written in C (abs, len): "f() takes exactly one argument (N given)" and
// "f() takes no keyword arguments".
void c_unary(const char* func, const CallArgs& args);
// Python's AttributeError "'T' object has no attribute 'name'" (a filter calling a method the
// value's type lacks).
[[noreturn]] inline void attr_error(const Value& v, const char* name) {
  throw Error(ErrorKind::AttributeError, std::string("'") + type_name(v) + "' object has no attribute '" + name + "'");
}
// A filter taking nothing but its value (`value_name` as Jinja2 calls it): TypeError for any argument.
inline void no_args(const char* func, CallArgs& a, const char* value_name) {
  reject_implicit(func, a, {value_name});
  ArgBinder b(func, a, {}, 0, 1);
}

// list.sort(key) order of `keys` (stable, reverse like CPython); returns the permutation.
std::vector<size_t> sorted_order(Renderer& r, const std::vector<Value>& keys, bool reverse);
// ignore_case postprocessor: strings lowercased, other values as they are.
Value ignore_case(const Value& v);
// Python float(str); false where float() raises ValueError.
bool parse_py_float(std::string_view s, double& out);
// pprint.pformat(v) (width 80, sorted dicts).
std::string pformat(const Value& v);

// The `fn` of the row named `name` in a builtin table, or nullptr; hashed, because
// map()/select() look a name up once per item.
template <class Row, size_t N>
auto hashed_lookup(const Row (&rows)[N], std::string_view name) -> decltype(rows[0].fn) {
  static const std::unordered_map<std::string_view, decltype(rows[0].fn)> index = [&rows] {
    std::unordered_map<std::string_view, decltype(rows[0].fn)> m;
    for (const Row& row : rows) m.emplace(row.name, row.fn);
    return m;
  }();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

// ---- filters implemented in filters_text.cpp ----
Value f_capitalize(Renderer&, const Value&, CallArgs&);
Value f_center(Renderer&, const Value&, CallArgs&);
Value f_escape(Renderer&, const Value&, CallArgs&);
Value f_filesizeformat(Renderer&, const Value&, CallArgs&);
Value f_forceescape(Renderer&, const Value&, CallArgs&);
Value f_format(Renderer&, const Value&, CallArgs&);
Value f_indent(Renderer&, const Value&, CallArgs&);
Value f_lower(Renderer&, const Value&, CallArgs&);
Value f_replace(Renderer&, const Value&, CallArgs&);
Value f_safe(Renderer&, const Value&, CallArgs&);
Value f_string(Renderer&, const Value&, CallArgs&);
Value f_striptags(Renderer&, const Value&, CallArgs&);
Value f_title(Renderer&, const Value&, CallArgs&);
Value f_trim(Renderer&, const Value&, CallArgs&);
Value f_truncate(Renderer&, const Value&, CallArgs&);
Value f_upper(Renderer&, const Value&, CallArgs&);
Value f_wordcount(Renderer&, const Value&, CallArgs&);
Value f_wordwrap(Renderer&, const Value&, CallArgs&);

// ---- filters implemented in filters_encode.cpp ----
Value f_pprint(Renderer&, const Value&, CallArgs&);
Value f_tojson(Renderer&, const Value&, CallArgs&);
Value f_urlencode(Renderer&, const Value&, CallArgs&);
Value f_urlize(Renderer&, const Value&, CallArgs&);
Value f_xmlattr(Renderer&, const Value&, CallArgs&);

// ---- filters implemented in filters_seq.cpp ----
Value f_batch(Renderer&, const Value&, CallArgs&);
Value f_dictsort(Renderer&, const Value&, CallArgs&);
Value f_first(Renderer&, const Value&, CallArgs&);
Value f_groupby(Renderer&, const Value&, CallArgs&);
Value f_items(Renderer&, const Value&, CallArgs&);
Value f_join(Renderer&, const Value&, CallArgs&);
Value f_last(Renderer&, const Value&, CallArgs&);
Value f_list(Renderer&, const Value&, CallArgs&);
Value f_map(Renderer&, const Value&, CallArgs&);
Value f_max(Renderer&, const Value&, CallArgs&);
Value f_min(Renderer&, const Value&, CallArgs&);
Value f_random(Renderer&, const Value&, CallArgs&);
Value f_reject(Renderer&, const Value&, CallArgs&);
Value f_rejectattr(Renderer&, const Value&, CallArgs&);
Value f_reverse(Renderer&, const Value&, CallArgs&);
Value f_select(Renderer&, const Value&, CallArgs&);
Value f_selectattr(Renderer&, const Value&, CallArgs&);
Value f_slice(Renderer&, const Value&, CallArgs&);
Value f_sort(Renderer&, const Value&, CallArgs&);
Value f_sum(Renderer&, const Value&, CallArgs&);
Value f_unique(Renderer&, const Value&, CallArgs&);

}  // namespace toolchat::jinja::fimpl
