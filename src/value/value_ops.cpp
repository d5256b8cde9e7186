// Python semantics of the operators: truthiness, ==, <, arithmetic, `in`, len.
#include <cmath>
#include <functional>

#include "toolchat/value.hpp"
#include "value/bigint.hpp"
#include "value/pyobjects.hpp"
#include "value/pystr.hpp"
#include "value/text_watch.hpp"

namespace toolchat {

namespace {

[[noreturn]] void type_error(std::string msg) { throw Error(ErrorKind::TypeError, std::move(msg)); }

bool is_tuple_like(const Value& v) { return v.is_list() && v.list_obj().lkind == ListKind::Tuple; }

// Undefined operands raise their own error, left operand first (Python tries a.__op__ first).
void check_undefined(const Value& a, const Value& b) {
  if (a.is_undefined()) raise_undefined(a);
  if (b.is_undefined()) raise_undefined(b);
}

[[noreturn]] void unsupported(const char* op, const Value& a, const Value& b) {
  type_error(std::string("unsupported operand type(s) for ") + op + ": '" + type_name(a) +
             "' and '" + type_name(b) + "'");
}

Value repeat_seq(const Value& seq, int64_t n) {
  if (seq.is_str()) {
    if (n <= 0 || seq.str().empty()) return Value::string(std::string());
    std::string_view s = seq.str();
    if (s.size() > (size_t(1) << 40) / static_cast<size_t>(n)) throw Error(ErrorKind::MemoryError, "");
    Value out = Value::string(s.size() * static_cast<size_t>(n), [&](char* d) {
      for (int64_t i = 0; i < n; ++i, d += s.size()) std::memcpy(d, s.data(), s.size());
    });
    out.str_obj()->markup = seq.is_markup();
    return out;
  }
  std::vector<Value> out;
  const auto& items = seq.items();
  if (n > 0 && !items.empty()) {
    if (items.size() > (size_t(1) << 36) / static_cast<size_t>(n)) throw Error(ErrorKind::MemoryError, "");
    out.reserve(items.size() * static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), items.begin(), items.end());
  }
  ListKind k = seq.list_obj().lkind == ListKind::Tuple ? ListKind::Tuple : ListKind::List;
  return Value::list(std::move(out), k);
}

double float_mod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0.0) {
    if ((b < 0) != (m < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return m;
}

double float_floordiv(double a, double b) {
  double m = std::fmod(a, b);
  double div = (a - m) / b;
  if (m != 0.0 && ((b < 0) != (m < 0))) div -= 1.0;
  double fl;
  if (div != 0.0) {
    fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = std::copysign(0.0, a / b);
  }
  return fl;
}

int64_t int_floordiv(int64_t a, int64_t b) {  // not INT64_MIN // -1 (see py_floordiv)
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t int_mod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// Both operands are ints (no float) and at least one is a big int: the BigInt path.
bool big_pair(const Value& a, const Value& b) { return a.is_bigint() || b.is_bigint(); }

bool int_is_zero(const Value& v) { return !v.is_bigint() && v.int_like() == 0; }

// Exact comparison of an int (Int, Bool or big) with a double: -1/0/1, 2 when d is NaN.
int int_float_cmp(const Value& i, double d) {
  if (std::isnan(d)) return 2;
  if (!i.is_bigint()) {
    int64_t x = i.int_like();
    constexpr int64_t k53 = int64_t(1) << 53;
    if (x >= -k53 && x <= k53) {  // exact as a double
      double xd = static_cast<double>(x);
      return xd < d ? -1 : xd > d ? 1 : 0;
    }
  }
  return BigInt::compare(to_bigint(i), d);
}

// Exact comparison of two numbers like Python: -1/0/1, 2 when unordered (NaN).
int num_cmp(const Value& a, const Value& b) {
  if (a.is_float() && b.is_float()) {
    double x = a.as_float(), y = b.as_float();
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  if (a.is_float()) {
    int c = int_float_cmp(b, a.as_float());
    return c == 2 ? 2 : -c;
  }
  if (b.is_float()) return int_float_cmp(a, b.as_float());
  if (big_pair(a, b)) return BigInt::compare(to_bigint(a), to_bigint(b));
  int64_t x = a.int_like(), y = b.int_like();
  return x < y ? -1 : x > y ? 1 : 0;
}

}  // namespace

void html_escape_append(std::string& out, std::string_view s) {
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

// ---- names ----

const char* type_name(const Value& v) {
  switch (v.type()) {
    case Type::Undefined: return "Undefined";
    case Type::None: return "NoneType";
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Float: return "float";
    case Type::Str: return v.is_markup() ? "Markup" : "str";
    case Type::List:
      switch (v.list_obj().lkind) {
        case ListKind::List: return "list";
        case ListKind::Tuple: return "tuple";
        case ListKind::DictKeys: return "dict_keys";
        case ListKind::DictValues: return "dict_values";
        case ListKind::DictItems: return "dict_items";
        case ListKind::Range: return "range";
      }
      return "list";
    case Type::Dict: return "dict";
    case Type::Object:
      switch (v.obj()->kind) {
        case ObjKind::Namespace: return "Namespace";
        case ObjKind::Macro: return "Macro";
        case ObjKind::Loop: return "LoopContext";
        case ObjKind::Cycler: return "Cycler";
        case ObjKind::Joiner: return "Joiner";
        case ObjKind::BoundMethod: return "builtin_function_or_method";
        case ObjKind::BigInt: return "int";
        case ObjKind::Complex: return "complex";
        case ObjKind::Bytes: return "bytes";
        case ObjKind::Generator: return v.as<GeneratorObj>()->type_name;
        case ObjKind::TemplateRef: return "TemplateReference";
        case ObjKind::BlockRef: return "BlockReference";
        default: return "function";
      }
  }
  return "object";
}

const char* object_type_repr(const Value& v) {
  switch (v.type()) {
    case Type::None: return "None";
    case Type::Undefined: return "jinja2.runtime.Undefined object";
    case Type::Bool: return "bool object";
    case Type::Int: return "int object";
    case Type::Float: return "float object";
    case Type::Str: return v.is_markup() ? "markupsafe.Markup object" : "str object";
    case Type::Dict: return "dict object";
    case Type::List:
      switch (v.list_obj().lkind) {
        case ListKind::List: return "list object";
        case ListKind::Tuple: return "tuple object";
        case ListKind::DictKeys: return "dict_keys object";
        case ListKind::DictValues: return "dict_values object";
        case ListKind::DictItems: return "dict_items object";
        case ListKind::Range: return "range object";
      }
      return "list object";
    case Type::Object:
      switch (v.obj()->kind) {
        case ObjKind::Namespace: return "jinja2.utils.Namespace object";
        case ObjKind::Macro: return "jinja2.runtime.Macro object";
        case ObjKind::Loop: return "jinja2.runtime.LoopContext object";
        case ObjKind::Cycler: return "jinja2.utils.Cycler object";
        case ObjKind::Joiner: return "jinja2.utils.Joiner object";
        case ObjKind::BoundMethod: return "builtin_function_or_method object";
        case ObjKind::BigInt: return "int object";
        case ObjKind::Complex: return "complex object";
        case ObjKind::Bytes: return "bytes object";
        case ObjKind::Generator: return v.as<GeneratorObj>()->type_repr;
        case ObjKind::TemplateRef: return "jinja2.runtime.TemplateReference object";
        case ObjKind::BlockRef: return "jinja2.runtime.BlockReference object";
        default: return "function object";
      }
  }
  return "object";
}

// ---- truth, hash, equality, order ----

bool truthy_object(const Value& v) {
  if (v.obj()->kind == ObjKind::Complex) return v.as<ComplexObj>()->re != 0.0 || v.as<ComplexObj>()->im != 0.0;
  if (v.obj()->kind == ObjKind::Bytes) return !v.as<BytesObj>()->b.empty();
  return true;
}

size_t py_hash(const Value& v) {
  switch (v.type()) {
    case Type::None: return 0x9e3779b9u;
    case Type::Bool: case Type::Int: return std::hash<int64_t>()(v.int_like());
    case Type::Float: {
      double d = v.as_float();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9223372036854775808.0)
        return std::hash<int64_t>()(static_cast<int64_t>(d));
      return std::hash<double>()(d);  // big ints equal to d hash the same (BigInt::hash)
    }
    case Type::Str: return std::hash<std::string_view>()(v.str());
    case Type::List: {
      size_t h = 0x345678;
      for (const auto& x : v.items()) h = h * 1000003u ^ py_hash(x);
      return h;
    }
    default:
      if (v.is_bigint()) return bigint_of(v).hash();
      if (v.is_obj(ObjKind::Bytes)) return std::hash<std::string_view>()(v.as<BytesObj>()->b);
      return reinterpret_cast<size_t>(v.obj());
  }
}

// Containers compare items with `is` before `==` (PyObject_RichCompare's identity shortcut).
// Floats are values here, not objects: two NaNs stand for the same object, which is what a
// template sees when one NaN variable is put in two lists.
static bool same_or_equal(const Value& a, const Value& b) {
  if (a.is_float() && b.is_float() && std::isnan(a.as_float()) && std::isnan(b.as_float())) return true;
  return py_equal(a, b);
}

bool py_equal(const Value& a, const Value& b) {
  if (text_watch::watching()) text_watch::note_equal(a, b);
  if (a.is_number() && b.is_number()) {
    if (a.is_float() && b.is_float()) return a.as_float() == b.as_float();
    if (!a.is_float() && !b.is_float() && !big_pair(a, b)) return a.int_like() == b.int_like();
    return num_cmp(a, b) == 0;
  }
  if (a.is_obj(ObjKind::Complex) || b.is_obj(ObjKind::Complex)) return complex_equal(a, b);
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case Type::Undefined: case Type::None: return true;
    case Type::Str: return a.str() == b.str();
    case Type::List: {
      const auto& x = a.items();
      const auto& y = b.items();
      ListKind ka = a.list_obj().lkind, kb = b.list_obj().lkind;
      auto seqkind = [](ListKind k) { return k == ListKind::Range ? ListKind::Range : k; };
      if (seqkind(ka) != seqkind(kb)) return false;
      if (ka == ListKind::DictValues) return a.obj() == b.obj();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!same_or_equal(x[i], y[i])) return false;
      return true;
    }
    case Type::Dict: {
      const auto& x = a.dict_obj();
      const auto& y = b.dict_obj();
      if (x.size() != y.size()) return false;
      for (const auto& [k, val] : x.entries) {
        const Value* o = y.find(k);
        if (!o || !same_or_equal(val, *o)) return false;
      }
      return true;
    }
    case Type::Object:
      if (a.is_obj(ObjKind::Bytes) && b.is_obj(ObjKind::Bytes)) return a.as<BytesObj>()->b == b.as<BytesObj>()->b;
      return a.obj() == b.obj();
    default: return false;
  }
}

bool py_order(Order op, const Value& a, const Value& b) {
  if (text_watch::watching()) text_watch::note_order(a, b);
  check_undefined(a, b);
  auto apply = [op](const auto& x, const auto& y) {
    switch (op) {
      case Order::Lt: return x < y;
      case Order::Le: return x <= y;
      case Order::Gt: return x > y;
      case Order::Ge: return x >= y;
    }
    return false;
  };
  if (a.is_number() && b.is_number()) {
    if (a.is_float() && b.is_float()) return apply(a.as_float(), b.as_float());
    if (!a.is_float() && !b.is_float() && !big_pair(a, b)) return apply(a.int_like(), b.int_like());
    int c = num_cmp(a, b);  // exact; 2 when a NaN leaves the pair unordered
    return c != 2 && apply(c, 0);
  }
  // UTF-8 byte order is code point order
  if (a.is_str() && b.is_str()) return apply(std::string_view(a.str()), std::string_view(b.str()));
  if (a.is_list() && b.is_list() && a.list_obj().lkind == b.list_obj().lkind &&
      (a.list_obj().lkind == ListKind::List || a.list_obj().lkind == ListKind::Tuple)) {
    const auto& x = a.items();
    const auto& y = b.items();
    for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!py_equal(x[i], y[i])) return py_order(op, x[i], y[i]);
    }
    return apply(x.size(), y.size());
  }
  static const char* const names[] = {"<", "<=", ">", ">="};
  type_error(std::string("'") + names[static_cast<int>(op)] + "' not supported between instances of '" +
             type_name(a) + "' and '" + type_name(b) + "'");
}

bool py_less(const Value& a, const Value& b) { return py_order(Order::Lt, a, b); }

bool py_hashable(const Value& v) {
  if (v.is_dict()) return false;
  if (v.is_list()) {
    ListKind k = v.list_obj().lkind;
    if (k == ListKind::Range) return true;
    if (k != ListKind::Tuple) return false;
    for (const Value& it : v.items())
      if (!py_hashable(it)) return false;
  }
  return true;
}

void check_hashable(const Value& v) {
  if (py_hashable(v)) return;
  const Value* bad = &v;
  while (bad->is_list() && bad->list_obj().lkind == ListKind::Tuple) {
    for (const Value& it : bad->items()) {
      if (!py_hashable(it)) {
        bad = &it;
        break;
      }
    }
  }
  type_error(std::string("unhashable type: '") + type_name(*bad) + "'");
}

int py_num_compare(const Value& a, const Value& b) { return num_cmp(a, b); }

int py_compare(const Value& a, const Value& b) {
  if (py_less(a, b)) return -1;
  if (py_less(b, a)) return 1;
  return 0;
}

// ---- arithmetic ----

Value py_add(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (Value c; complex_binop('+', a, b, c)) return c;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return Value::floating(a.to_double() + b.to_double());
    int64_t r;
    if (!big_pair(a, b) && !__builtin_add_overflow(a.int_like(), b.int_like(), &r)) return Value::integer(r);
    return make_int(to_bigint(a) + to_bigint(b));
  }
  if (a.is_str()) {
    if (!b.is_str()) {
      if (a.is_markup()) unsupported("+", a, b);
      type_error(std::string("can only concatenate str (not \"") + type_name(b) + "\") to str");
    }
    if (!a.is_markup() && !b.is_markup()) {  // written straight into the new string
      std::string_view x = a.str(), y = b.str();
      return Value::string(x.size() + y.size(), [&](char* d) {
        std::memcpy(d, x.data(), x.size());
        std::memcpy(d + x.size(), y.data(), y.size());
      });
    }
    // Markup + str escapes the plain side (markupsafe's __add__ / __radd__).
    std::string out;
    out.reserve(a.str().size() + b.str().size());
    bool markup = a.is_markup() || b.is_markup();
    if (markup && !a.is_markup()) html_escape_append(out, a.str());
    else out += a.str();
    if (markup && !b.is_markup()) html_escape_append(out, b.str());
    else out += b.str();
    return markup ? Value::markup(std::move(out)) : Value::string(std::move(out));
  }
  if (a.is_list() && (a.list_obj().lkind == ListKind::List || a.list_obj().lkind == ListKind::Tuple)) {
    bool tup = is_tuple_like(a);
    if (!b.is_list() || b.list_obj().lkind != a.list_obj().lkind) {
      type_error(std::string("can only concatenate ") + (tup ? "tuple" : "list") + " (not \"" +
                 type_name(b) + "\") to " + (tup ? "tuple" : "list"));
    }
    std::vector<Value> out(a.items());
    out.insert(out.end(), b.items().begin(), b.items().end());
    return Value::list(std::move(out), a.list_obj().lkind);
  }
  unsupported("+", a, b);
}

Value py_sub(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (Value c; complex_binop('-', a, b, c)) return c;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return Value::floating(a.to_double() - b.to_double());
    int64_t r;
    if (!big_pair(a, b) && !__builtin_sub_overflow(a.int_like(), b.int_like(), &r)) return Value::integer(r);
    return make_int(to_bigint(a) - to_bigint(b));
  }
  unsupported("-", a, b);
}

Value py_mul(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (Value c; complex_binop('*', a, b, c)) return c;
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return Value::floating(a.to_double() * b.to_double());
    int64_t r;
    if (!big_pair(a, b) && !__builtin_mul_overflow(a.int_like(), b.int_like(), &r)) return Value::integer(r);
    return make_int(to_bigint(a) * to_bigint(b));
  }
  auto seq_ok = [](const Value& s) {
    return s.is_str() || (s.is_list() && (s.list_obj().lkind == ListKind::List ||
                                          s.list_obj().lkind == ListKind::Tuple));
  };
  if (seq_ok(a)) {
    if (b.is_bigint()) throw_index_overflow();
    if (b.is_int() || b.is_bool()) return repeat_seq(a, b.int_like());
    type_error(std::string("can't multiply sequence by non-int of type '") + type_name(b) + "'");
  }
  if (seq_ok(b)) {
    if (a.is_bigint()) throw_index_overflow();
    if (a.is_int() || a.is_bool()) return repeat_seq(b, a.int_like());
    type_error(std::string("can't multiply sequence by non-int of type '") + type_name(a) + "'");
  }
  unsupported("*", a, b);
}

Value py_truediv(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (Value c; complex_binop('/', a, b, c)) return c;
  if (!(a.is_number() && b.is_number())) unsupported("/", a, b);
  if (!a.is_float() && !b.is_float()) {
    if (int_is_zero(b)) throw Error(ErrorKind::ZeroDivisionError, "division by zero");
    if (!big_pair(a, b)) {
      int64_t x = a.int_like(), y = b.int_like();
      constexpr int64_t k53 = int64_t(1) << 53;
      if (x >= -k53 && x <= k53 && y >= -k53 && y <= k53)  // exact doubles: one rounding
        return Value::floating(static_cast<double>(x) / static_cast<double>(y));
    }
    return Value::floating(BigInt::truediv(to_bigint(a), to_bigint(b)));
  }
  double x = a.to_double(), d = b.to_double();  // both converted first, as Python does
  if (d == 0.0) throw Error(ErrorKind::ZeroDivisionError, "float division by zero");
  return Value::floating(x / d);
}

Value py_floordiv(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (!(a.is_number() && b.is_number())) unsupported("//", a, b);
  if (!a.is_float() && !b.is_float()) {
    if (int_is_zero(b))
      throw Error(ErrorKind::ZeroDivisionError, "integer division or modulo by zero");
    if (!big_pair(a, b) && !(a.int_like() == INT64_MIN && b.int_like() == -1))
      return Value::integer(int_floordiv(a.int_like(), b.int_like()));
    BigInt q, r;
    BigInt::divmod(to_bigint(a), to_bigint(b), q, r);
    return make_int(q);
  }
  double x = a.to_double(), d = b.to_double();
  if (d == 0.0) throw Error(ErrorKind::ZeroDivisionError, "float floor division by zero");
  return Value::floating(float_floordiv(x, d));
}

Value py_mod(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (!(a.is_number() && b.is_number())) unsupported("%", a, b);
  if (!a.is_float() && !b.is_float()) {
    if (int_is_zero(b)) throw Error(ErrorKind::ZeroDivisionError, "integer modulo by zero");
    if (!big_pair(a, b)) return Value::integer(int_mod(a.int_like(), b.int_like()));
    BigInt q, r;
    BigInt::divmod(to_bigint(a), to_bigint(b), q, r);
    return make_int(r);
  }
  double x = a.to_double(), d = b.to_double();
  if (d == 0.0) throw Error(ErrorKind::ZeroDivisionError, "float modulo");
  return Value::floating(float_mod(x, d));
}

Value py_pow(const Value& a, const Value& b) {
  check_undefined(a, b);
  if (Value c; complex_binop('^', a, b, c)) return c;
  if (!(a.is_number() && b.is_number())) unsupported("** or pow()", a, b);
  bool ints = !a.is_float() && !b.is_float();
  bool neg_exp = ints && (b.is_bigint() ? bigint_of(b).is_negative() : b.int_like() < 0);
  if (ints && !neg_exp) {
    if (!big_pair(a, b)) {
      int64_t base = a.int_like(), e = b.int_like();
      int64_t r = 1;
      bool ok = true;
      while (e > 0 && ok) {
        if ((e & 1) && __builtin_mul_overflow(r, base, &r)) ok = false;
        e >>= 1;
        if (e > 0 && __builtin_mul_overflow(base, base, &base)) ok = false;
      }
      if (ok) return Value::integer(r);
    }
    BigInt base = to_bigint(a);
    if (b.is_bigint()) {  // only 0, 1 and -1 survive an exponent beyond int64
      BigInt q, r;
      BigInt::divmod(bigint_of(b), BigInt(2), q, r);
      if (base.is_zero() || base == BigInt(1)) return make_int(base);
      if (base == BigInt(-1)) return Value::integer(r.is_zero() ? 1 : -1);
      throw Error(ErrorKind::LimitError, "integer result exceeds the size limit");
    }
    return make_int(BigInt::pow(base, static_cast<uint64_t>(b.int_like())));
  }
  // Floats, or an int to a negative int power (float(a) ** float(b) in Python).
  double x = a.to_double(), y = b.to_double();
  if (x == 0.0 && y < 0)
    throw Error(ErrorKind::ZeroDivisionError, "0.0 cannot be raised to a negative power");
  if (x < 0 && std::isfinite(x) && y != std::floor(y) && std::isfinite(y)) {  // float_pow: complex_pow
    Value c;
    complex_binop('^', make_complex(x, 0.0), Value::floating(y), c);
    return c;
  }
  double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
    throw Error(ErrorKind::OverflowError, "(34, 'Numerical result out of range')");
  return Value::floating(r);
}

Value py_neg(const Value& a) {
  if (a.is_undefined()) raise_undefined(a);
  if (a.is_obj(ObjKind::Complex)) return make_complex(-a.as<ComplexObj>()->re, -a.as<ComplexObj>()->im);
  if (a.is_float()) return Value::floating(-a.as_float());
  if (a.is_bigint()) return make_int(-bigint_of(a));
  if (a.is_int() || a.is_bool()) {
    if (a.int_like() == INT64_MIN) return make_int(-BigInt(INT64_MIN));
    return Value::integer(-a.int_like());
  }
  type_error(std::string("bad operand type for unary -: '") + type_name(a) + "'");
}

Value py_pos(const Value& a) {
  if (a.is_undefined()) raise_undefined(a);
  if (a.is_obj(ObjKind::Complex)) return a;
  if (a.is_float() || a.is_bigint()) return a;
  if (a.is_int() || a.is_bool()) return Value::integer(a.int_like());
  type_error(std::string("bad operand type for unary +: '") + type_name(a) + "'");
}

bool py_contains(const Value& c, const Value& item) {
  if (text_watch::watching()) text_watch::note_contains(c, item);
  switch (c.type()) {
    case Type::Undefined: return false;
    case Type::Str:  // str.__contains__ never consults the operand: Undefined is just not a str
      if (!item.is_str())
        type_error(std::string("'in <string>' requires string as left operand, not ") + type_name(item));
      return c.str().find(item.str()) != std::string::npos;
    case Type::List:
      for (const auto& x : c.items())
        if (same_or_equal(x, item)) return true;
      return false;
    case Type::Dict:
      if (item.is_list() && !is_tuple_like(item)) type_error("unhashable type: 'list'");
      if (item.is_dict()) type_error("unhashable type: 'dict'");
      return c.dict_obj().find(item) != nullptr;
    default:
      if (c.is_obj(ObjKind::Generator)) {  // consumes up to and including the match
        auto* g = c.as<GeneratorObj>();
        Value x;
        while (g->next(x))
          if (same_or_equal(x, item)) return true;
        return false;
      }
      if (c.is_obj(ObjKind::Bytes)) {
        const std::string& b = c.as<BytesObj>()->b;
        if (item.is_obj(ObjKind::Bytes)) return b.find(item.as<BytesObj>()->b) != std::string::npos;
        if (item.is_int() || item.is_bool()) {
          int64_t n = item.int_like();
          if (n < 0 || n > 255) throw Error(ErrorKind::ValueError, "byte must be in range(0, 256)");
          return b.find(static_cast<char>(n)) != std::string::npos;
        }
        type_error(std::string("a bytes-like object is required, not '") + type_name(item) + "'");
      }
      type_error(std::string("argument of type '") + type_name(c) + "' is not iterable");
  }
}

int64_t py_len(const Value& v) {
  switch (v.type()) {
    case Type::Undefined: return 0;
    case Type::Str: return static_cast<int64_t>(pystr::length(v.str()));
    case Type::List: return static_cast<int64_t>(v.items().size());
    case Type::Dict: return static_cast<int64_t>(v.dict_obj().size());
    default:
      if (v.is_obj(ObjKind::Bytes)) return static_cast<int64_t>(v.as<BytesObj>()->b.size());
      type_error(std::string("object of type '") + type_name(v) + "' has no len()");
  }
}

}  // namespace toolchat
