// Which filters, tests and methods look into a marked text (value/text_watch.hpp): called only
// while the render cache watches a proof render. What is not listed here as passing a text
// through, or testing it only as the cache screens texts for, counts as an inspection.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "jinja/builtins.hpp"
#include "value/text_watch.hpp"

namespace toolchat::jinja {

namespace tw = text_watch;

namespace {

bool args_hold_marker(const CallArgs& a) {
  for (const Value& v : a.pos)
    if (tw::holds_marker(v)) return true;
  for (const auto& [k, v] : a.kw)
    if (tw::holds_marker(v)) return true;
  return false;
}

bool one_of(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

const Value* first_arg(const CallArgs& a, std::string_view keyword) {
  if (!a.pos.empty()) return &a.pos[0];
  for (const auto& [k, v] : a.kw)
    if (k == keyword) return &v;
  return nullptr;
}

// startswith('x') / startswith(('x', 'y')): a screened prefix or suffix, no positions.
bool screened_affixes(const CallArgs& a) {
  if (a.pos.size() != 1 || !a.kw.empty()) return false;
  const Value& p = a.pos[0];
  if (!p.is_list()) return tw::screened_compared(p);
  return std::all_of(p.items().begin(), p.items().end(), [](const Value& x) { return tw::screened_compared(x); });
}

// A method of a str that holds a marker (or is given one): true when the cache accounts for it.
bool str_method_accounted(std::string_view name, const Value& self, const CallArgs& a) {
  if (name == "join") return a.pos.empty() || !a.pos[0].is_str();  // concatenation (of a str: its characters)
  if (name == "format") return tw::plain_brace_format(self.str());  // its arguments put in
  if (args_hold_marker(a)) return name == "replace" && a.pos.size() >= 2 && !tw::holds_marker(a.pos[0]) &&
                                  (!tw::holds_marker(self) || tw::screened_contained(a.pos[0]));
  if (one_of(name, {"strip", "lstrip", "rstrip"})) {
    const Value* chars = first_arg(a, "chars");
    return !chars || tw::screened_stripped(*chars);
  }
  if (one_of(name, {"split", "rsplit"})) {
    const Value* sep = first_arg(a, "sep");
    return sep && tw::screened_contained(*sep);  // no separator: split at any whitespace
  }
  if (one_of(name, {"startswith", "endswith", "removeprefix", "removesuffix"})) return screened_affixes(a);
  if (name == "replace") return !a.pos.empty() && tw::screened_contained(a.pos[0]);
  return false;
}

}  // namespace

void note_method(std::string_view name, const Value& self, const CallArgs& a) {
  if (self.is_str()) {
    if ((tw::holds_marker(self.str()) || args_hold_marker(a)) && !str_method_accounted(name, self, a))
      tw::note_inspected();
  } else if (self.is_dict() && one_of(name, {"get", "pop", "setdefault"})) {
    if (!a.pos.empty() && tw::holds_marker(a.pos[0])) tw::note_inspected();  // a lookup by hash
  }
  // lists and the rest compare items through py_equal, which notes its own
}

namespace {

// What note_filter knows of a filter, looked up by its function (aliases share one).
enum class FilterWatch : uint8_t { inspects, passes, passes_items, trim, replace, format };

struct FilterKinds {
  std::vector<std::pair<FilterFn, FilterWatch>> kinds;  // sorted by function address
  FilterKinds() {
    auto add = [&](std::initializer_list<std::string_view> names, FilterWatch w) {
      for (std::string_view n : names) kinds.emplace_back(find_filter(n), w);
    };
    add({"tojson", "string", "safe", "default"}, FilterWatch::passes);  // printed or passed on
    // A list or dict of texts: these take its items as they are, or order and compare them
    // through py_order / py_equal (which note their own), or run filters and tests on them by
    // name (noted there).
    add({"length", "list", "first", "last", "reverse", "join", "batch", "slice", "map", "select", "reject",
         "selectattr", "rejectattr", "items", "dictsort", "sort", "groupby", "min", "max", "sum", "attr"},
        FilterWatch::passes_items);
    add({"trim"}, FilterWatch::trim);
    add({"replace"}, FilterWatch::replace);
    add({"format"}, FilterWatch::format);
    std::sort(kinds.begin(), kinds.end(), [](const auto& x, const auto& y) { return std::less<>()(x.first, y.first); });
  }
  FilterWatch of(FilterFn fn) const {
    auto it = std::lower_bound(kinds.begin(), kinds.end(), fn,
                               [](const auto& x, FilterFn f) { return std::less<>()(x.first, f); });
    return it != kinds.end() && it->first == fn ? it->second : FilterWatch::inspects;
  }
};

}  // namespace

void note_filter(FilterFn fn, const Value& v, const CallArgs& a) {
  static const FilterKinds kKinds;
  const FilterWatch kind = kKinds.of(fn);
  const bool str = v.is_str();
  if (kind == FilterWatch::passes || (!str && kind == FilterWatch::passes_items)) return;
  const bool marked = tw::holds_marker(v), marked_args = args_hold_marker(a);
  if (!marked && !marked_args) return;
  // trim and replace read any other value as its str (a list of content parts: its repr)
  if (kind == FilterWatch::trim && !marked_args) {
    const Value* chars = first_arg(a, "chars");
    if (!chars || tw::screened_stripped(*chars)) return;
  }
  if (kind == FilterWatch::replace && a.pos.size() >= 2 && !tw::holds_marker(a.pos[0]) &&
      (!marked || tw::screened_contained(a.pos[0])))
    return;
  if (kind == FilterWatch::format && str && tw::plain_percent_format(v.str())) return;  // its arguments put in
  // the rest read a str's content, or a value as its str; unique looks items up by hash (also
  // noted per item)
  tw::note_inspected();
}

void note_test(TestFn fn, const Value& v, const CallArgs& a) {
  // Tests of a value's type, and comparisons (py_equal, py_order, py_contains note their own).
  static const std::array<TestFn, 31> kAccounted = [] {
    std::array<TestFn, 31> fns{};
    size_t i = 0;
    for (std::string_view n : {"defined", "undefined", "none", "string", "mapping", "number", "sequence", "iterable",
                               "callable", "boolean", "false", "true", "integer", "float", "escaped", "in", "==",
                               "eq", "equalto", "!=", "ne", ">", "gt", "greaterthan", "ge", ">=", "<", "lt",
                               "lessthan", "<=", "le"})
      fns[i++] = find_test(n);
    return fns;
  }();
  if (std::find(kAccounted.begin(), kAccounted.end(), fn) != kAccounted.end()) return;
  if (tw::holds_marker(v) || args_hold_marker(a)) tw::note_inspected();
}

}  // namespace toolchat::jinja
