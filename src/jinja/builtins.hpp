// What a builtin (filter, test, method, global function) sees of the engine, and the
// lookups that the compiler and renderer use. Adding a filter = one row in kFilters
// (builtins/filters.cpp), its function in filters_text / filters_seq / filters_encode.cpp,
// declared in filters_impl.hpp; a test = one row in kTests (builtins/tests.cpp); a method =
// one row in its type's table: kStrMethods (builtins/methods_str.cpp) or the dict / list /
// tuple / range / int / float / cycler / joiner tables (builtins/methods_misc.cpp).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jinja/ast.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"
#include "value/text_watch.hpp"

namespace toolchat::jinja {

// Arguments of a call, after evaluation (positional, then keywords in source order).
struct CallArgs {
  std::vector<Value> pos;
  std::vector<std::pair<std::string, Value>> kw;
};

// Binds CallArgs to a Python-style signature `func(p0, p1=..., ...)` (the filter's own
// value is not part of it). Raises TypeError with Python's wording on bad calls:
//   "<func>() got an unexpected keyword argument 'x'",
//   "<func>() got multiple values for argument 'x'",
//   "<func>() takes from 1 to 3 positional arguments but 5 were given",
//   "<func>() missing 1 required positional argument: 'x'".
// `extra_pos` counts leading implicit parameters Python includes in the counts
// (e.g. 2 for filters taking (environment, value)), so messages match Jinja2's.
class ArgBinder {
 public:
  ArgBinder(const char* func, CallArgs& args, std::initializer_list<const char*> params,
            size_t required = 0, size_t extra_pos = 1);
  bool has(size_t i) const { return given_[i]; }
  const Value& get(size_t i) const { return vals_[i]; }
  Value get_or(size_t i, Value def) const { return given_[i] ? vals_[i] : std::move(def); }

 private:
  Value vals_[10];
  bool given_[10] = {};
};

// The work budget (max_steps) measures work in steps of roughly one AST node evaluated
// (a few nanoseconds), so that the budget bounds time whatever a template spends it on:
// a loop iteration costs 1 + the nodes of its body, a macro or loop() call kCallSteps + the
// nodes of its body, and data built, written or scanned one step per kBytesPerStep bytes
// or per item. The same rate bounds memory: all the data a render builds is at most
// max_steps * kBytesPerStep bytes.
inline constexpr uint64_t kBytesPerStep = 8;
inline constexpr uint64_t kCallSteps = 16;

// Steps for a value just built: its string bytes / kBytesPerStep, or its items (list, dict).
inline uint64_t built_steps(const Value& v) {
  switch (v.type()) {
    case Type::Str: return v.str().size() / kBytesPerStep;
    case Type::List: return v.items().size();
    case Type::Dict: return v.dict_obj().size();
    default: return 0;
  }
}

class Renderer;

// While the render cache watches a proof render (value/text_watch.hpp): notes a filter, test or
// method that looks into a marked text (builtins/text_watch_calls.cpp).
void note_filter(FilterFn fn, const Value& v, const CallArgs& args);
void note_test(TestFn fn, const Value& v, const CallArgs& args);
void note_method(std::string_view name, const Value& self, const CallArgs& args);

// The engine services a builtin may use (implemented by the renderer).
class Renderer {
 public:
  virtual ~Renderer() = default;
  // Sandboxed attribute / item access exactly as Jinja2's getattr/getitem.
  virtual Value getattr(const Value& obj, std::string_view name) = 0;
  virtual Value getitem(const Value& obj, const Value& key) = 0;
  // Calls any callable value (macro, bound method, global function).
  virtual Value call(const Value& callee, CallArgs& args) = 0;
  // Calls a filter / test by name, raising Jinja2's errors for unknown names.
  virtual Value call_filter(std::string_view name, const Value& v, CallArgs& args) = 0;
  virtual bool call_test(std::string_view name, const Value& v, CallArgs& args) = 0;
  // Runs a test already found (a test node's, or one looked up once for many items): one step.
  bool run_test(TestFn fn, const Value& v, CallArgs& args) {
    charge(1);
    if (text_watch::watching()) note_test(fn, v, args);
    return fn(*this, v, args);
  }
  // Accounts for `n` units of work; raises LimitError past the budget.
  virtual void charge(uint64_t n) = 0;
  void charge_bytes(size_t n) { charge(n / kBytesPerStep); }
  // A call that built `v`: one step plus built_steps(v).
  void charge_built(const Value& v) { charge(1 + built_steps(v)); }
  // Registers a mutable object (namespace) made during the render, so the renderer can
  // break reference cycles through it when the render ends.
  virtual void track_mutable(const Value& v) { (void)v; }
  virtual const EngineLimits& limits() const = 0;
};

// Python iteration over a value: list items, dict keys, string code points, bytes as ints,
// a generator's remaining items (consuming it); Undefined is empty; other values raise
// TypeError "'int' object is not iterable".
std::vector<Value> iterate(const Value& v);

// jinja2.filters.make_attrgetter: "a.b.0" walks getitem per part (digits -> int).
Value get_attribute_path(Renderer& r, const Value& v, const Value& attribute);

// ---- tables ----
FilterFn find_filter(std::string_view name);
TestFn find_test(std::string_view name);

// A method (or property) of a builtin type: str, dict, dict views, list, tuple, range, int,
// float, and the cycler / joiner objects.
using MethodFn = Value (*)(Renderer&, const Value& self, CallArgs& args);
enum class MethodLookup : uint8_t { NotFound, Found, Unsafe };
// Finds `self.name` as a Python attribute: a safe method, an unsafe one (mutators,
// dunders: the sandbox refuses them), or nothing (then Jinja2 falls back to items).
MethodLookup find_method(const Value& self, std::string_view name, MethodFn* out);

// Globals that exist in every render (range, dict, namespace, cycler, joiner, lipsum,
// raise_exception, strftime_now, whose clock `opts` sets). Returns the global named `name`,
// or Undefined.
Value make_global(std::string_view name, const RenderOptions& opts);

}  // namespace toolchat::jinja
