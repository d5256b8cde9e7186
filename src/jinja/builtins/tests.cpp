// The builtin test table (Jinja2 3.1 TESTS): `x is odd`, `x is defined`, `x is eq 3` ...
#include <string>
#include <unordered_map>

#include "jinja/builtins/filters_impl.hpp"
#include "value/pyformat.hpp"
#include "value/pystr.hpp"

namespace toolchat::jinja {

using namespace fimpl;

namespace {

// A test with only the tested value: test_x(value).
void unary(const char* func, CallArgs& a, const char* value_name = "value") {
  if (a.pos.empty() && a.kw.empty()) return;
  reject_implicit(func, a, {value_name});
  ArgBinder b(func, a, {}, 0, 1);
}

// value % n with Python semantics, including str % n (printf formatting).
Value py_modulo(Renderer& r, const Value& v, const Value& n) {
  if (v.is_str()) {
    Value out = Value::string(pyformat::percent(std::string(v.str()), n, r.limits().max_value_bytes));
    r.charge_built(out);
    return out;
  }
  return py_mod(v, n);
}

bool t_odd(Renderer& r, const Value& v, CallArgs& a) {
  unary("test_odd", a);
  return py_equal(py_modulo(r, v, Value::integer(2)), Value::integer(1));
}

bool t_even(Renderer& r, const Value& v, CallArgs& a) {
  unary("test_even", a);
  return py_equal(py_modulo(r, v, Value::integer(2)), Value::integer(0));
}

bool t_divisibleby(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("test_divisibleby", a, {"value"});
  ArgBinder b("test_divisibleby", a, {"num"}, 1, 1);
  return py_equal(py_modulo(r, v, b.get(0)), Value::integer(0));
}

bool t_defined(Renderer&, const Value& v, CallArgs& a) {
  unary("test_defined", a);
  return !v.is_undefined();
}

bool t_undefined(Renderer&, const Value& v, CallArgs& a) {
  unary("test_undefined", a);
  return v.is_undefined();
}

bool t_filter(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("test_filter", a, {"env", "value"});
  ArgBinder b("test_filter", a, {}, 0, 2);
  check_hashable(v);
  return v.is_str() && find_filter(v.str()) != nullptr;
}

bool t_test(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("test_test", a, {"env", "value"});
  ArgBinder b("test_test", a, {}, 0, 2);
  check_hashable(v);
  return v.is_str() && find_test(v.str()) != nullptr;
}

bool t_none(Renderer&, const Value& v, CallArgs& a) {
  unary("test_none", a);
  return v.is_none();
}

bool t_boolean(Renderer&, const Value& v, CallArgs& a) {
  unary("test_boolean", a);
  return v.is_bool();
}

bool t_false(Renderer&, const Value& v, CallArgs& a) {
  unary("test_false", a);
  return v.is_bool() && !v.as_bool();
}

bool t_true(Renderer&, const Value& v, CallArgs& a) {
  unary("test_true", a);
  return v.is_bool() && v.as_bool();
}

bool t_integer(Renderer&, const Value& v, CallArgs& a) {
  unary("test_integer", a);
  return v.is_integer();  // int64 or big int
}

bool t_float(Renderer&, const Value& v, CallArgs& a) {
  unary("test_float", a);
  return v.is_float();
}

bool t_lower(Renderer&, const Value& v, CallArgs& a) {
  unary("test_lower", a);
  return pystr::islower(soft_str(v));
}

bool t_upper(Renderer&, const Value& v, CallArgs& a) {
  unary("test_upper", a);
  return pystr::isupper(soft_str(v));
}

bool t_string(Renderer&, const Value& v, CallArgs& a) {
  unary("test_string", a);
  return v.is_str();
}

bool t_mapping(Renderer&, const Value& v, CallArgs& a) {
  unary("test_mapping", a);
  return v.is_dict();
}

bool t_number(Renderer&, const Value& v, CallArgs& a) {
  unary("test_number", a);
  return v.is_number();
}

bool t_sequence(Renderer&, const Value& v, CallArgs& a) {
  unary("test_sequence", a);
  if (v.is_str() || v.is_dict() || v.is_undefined()) return true;
  if (v.is_list()) {
    ListKind k = v.list_obj().lkind;
    return k == ListKind::List || k == ListKind::Tuple || k == ListKind::Range;
  }
  return false;
}

bool t_iterable(Renderer&, const Value& v, CallArgs& a) {
  unary("test_iterable", a);
  return v.is_str() || v.is_list() || v.is_dict() || v.is_undefined() || v.is_obj(ObjKind::Loop);
}

bool t_callable(Renderer&, const Value& v, CallArgs& a) {
  c_unary("callable", a);
  if (v.is_undefined()) return true;  // Undefined defines __call__ (it raises when called)
  if (!v.is_object()) return false;
  switch (v.obj()->kind) {
    case ObjKind::Function: case ObjKind::Macro: case ObjKind::BoundMethod:
    case ObjKind::Joiner: case ObjKind::Loop:
    case ObjKind::Other:  // the renderer's bound methods (loop.cycle, 'x'.upper ...)
      return true;
    default:
      return false;
  }
}

bool identifier_like(std::string_view s) {
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

bool t_sameas(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("test_sameas", a, {"value"});
  ArgBinder b("test_sameas", a, {"other"}, 1, 1);
  const Value& o = b.get(0);
  if (v.type() != o.type()) return false;
  switch (v.type()) {
    case Type::None: return true;
    case Type::Undefined: return v.obj() == o.obj();
    case Type::Bool: return v.as_bool() == o.as_bool();
    // CPython caches -5..256; other ints and floats are distinct objects in practice.
    case Type::Int: return v.as_int() == o.as_int() && v.as_int() >= -5 && v.as_int() <= 256;
    case Type::Float: return false;
    case Type::Str:
      if (v.obj() == o.obj()) return true;
      // interned constants (identifier-like strings) are shared objects in CPython
      return v.is_markup() == o.is_markup() && !v.is_markup() && v.str() == o.str() && identifier_like(v.str());
    default: return v.obj() == o.obj();
  }
}

bool t_escaped(Renderer&, const Value& v, CallArgs& a) {
  unary("test_escaped", a);
  return v.is_markup();
}

bool t_in(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("test_in", a, {"value"});
  ArgBinder b("test_in", a, {"seq"}, 1, 1);
  return py_contains(b.get(0), v);
}

// operator.eq & co. are C functions: "eq expected 2 arguments, got 1".
const Value& binary_op_arg(const char* name, CallArgs& a) {
  if (!a.kw.empty()) type_error(std::string("_operator.") + name + "() takes no keyword arguments");
  if (a.pos.size() != 1)
    type_error(std::string(name) + " expected 2 arguments, got " + std::to_string(a.pos.size() + 1));
  return a.pos[0];
}

bool t_eq(Renderer&, const Value& v, CallArgs& a) { return py_equal(v, binary_op_arg("eq", a)); }
bool t_ne(Renderer&, const Value& v, CallArgs& a) { return !py_equal(v, binary_op_arg("ne", a)); }
bool t_gt(Renderer&, const Value& v, CallArgs& a) { return py_order(Order::Gt, v, binary_op_arg("gt", a)); }
bool t_lt(Renderer&, const Value& v, CallArgs& a) { return py_order(Order::Lt, v, binary_op_arg("lt", a)); }
bool t_ge(Renderer&, const Value& v, CallArgs& a) { return py_order(Order::Ge, v, binary_op_arg("ge", a)); }
bool t_le(Renderer&, const Value& v, CallArgs& a) { return py_order(Order::Le, v, binary_op_arg("le", a)); }

struct TestRow {
  std::string_view name;
  TestFn fn;
};

const TestRow kTests[] = {
    {"odd", t_odd},
    {"even", t_even},
    {"divisibleby", t_divisibleby},
    {"defined", t_defined},
    {"undefined", t_undefined},
    {"filter", t_filter},
    {"test", t_test},
    {"none", t_none},
    {"boolean", t_boolean},
    {"false", t_false},
    {"true", t_true},
    {"integer", t_integer},
    {"float", t_float},
    {"lower", t_lower},
    {"upper", t_upper},
    {"string", t_string},
    {"mapping", t_mapping},
    {"number", t_number},
    {"sequence", t_sequence},
    {"iterable", t_iterable},
    {"callable", t_callable},
    {"sameas", t_sameas},
    {"escaped", t_escaped},
    {"in", t_in},
    {"==", t_eq},
    {"eq", t_eq},
    {"equalto", t_eq},
    {"!=", t_ne},
    {"ne", t_ne},
    {">", t_gt},
    {"gt", t_gt},
    {"greaterthan", t_gt},
    {"ge", t_ge},
    {">=", t_ge},
    {"<", t_lt},
    {"lt", t_lt},
    {"lessthan", t_lt},
    {"<=", t_le},
    {"le", t_le},
};

}  // namespace

TestFn find_test(std::string_view name) { return fimpl::hashed_lookup(kTests, name); }

}  // namespace toolchat::jinja
