// Attributes of dict / list / tuple / dict views / range / int / bool / float and of
// the cycler / joiner objects (CPython 3.11 names, results and messages).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "jinja/builtins.hpp"
#include "jinja/builtins/methods_extra.hpp"
#include "jinja/builtins/methods_impl.hpp"
#include "jinja/objects.hpp"
#include "value/pyobjects.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja {

using namespace mimpl;

namespace {

using Args = CallArgs;

// ---- dict
Value d_get(Renderer&, const Value& d, Args& a) {
  clinic_pos("get", "dict.get", a, 1, 2);
  check_hashable(a.pos[0]);
  const Value* v = d.dict_obj().find(a.pos[0]);
  if (v) return *v;
  return a.pos.size() > 1 ? a.pos[1] : Value::none();
}
Value view_of(const Value& d, ListKind k) {
  std::vector<Value> out;
  out.reserve(d.dict_obj().size());
  for (auto& [key, val] : d.dict_obj().entries) {
    if (k == ListKind::DictKeys) out.push_back(key);
    else if (k == ListKind::DictValues) out.push_back(val);
    else out.push_back(Value::tuple({key, val}));
  }
  return Value::list(std::move(out), k);
}
Value d_keys(Renderer&, const Value& d, Args& a) { no_args("dict.keys", a); return view_of(d, ListKind::DictKeys); }
Value d_values(Renderer&, const Value& d, Args& a) { no_args("dict.values", a); return view_of(d, ListKind::DictValues); }
Value d_items(Renderer&, const Value& d, Args& a) { no_args("dict.items", a); return view_of(d, ListKind::DictItems); }
Value d_copy(Renderer& r, const Value& d, Args& a) {
  no_args("dict.copy", a);
  Value rebuilt = Value::dict();
  for (auto& [k, v] : d.dict_obj().entries) rebuilt.dict_obj().set(k, v);
  r.charge(d.dict_obj().size());
  return rebuilt;
}
Value d_fromkeys(Renderer& r, const Value&, Args& a) {
  clinic_pos("fromkeys", "dict.fromkeys", a, 1, 2);
  std::vector<Value> keys = iterate(a.pos[0]);
  Value val = a.pos.size() > 1 ? a.pos[1] : Value::none();
  Value out = Value::dict();
  for (const Value& k : keys) {
    check_hashable(k);
    out.dict_obj().set(k, val);
  }
  r.charge(keys.size());
  return out;
}

// ---- list / tuple
Value seq_count(const Value& s, Args& a, const char* qual) {
  one_arg(qual, a);
  int64_t n = 0;
  for (const Value& it : s.items())
    if (py_equal(it, a.pos[0])) ++n;
  return Value::integer(n);
}
Value l_count(Renderer&, const Value& s, Args& a) { return seq_count(s, a, "list.count"); }
Value t_count(Renderer&, const Value& s, Args& a) { return seq_count(s, a, "tuple.count"); }
int64_t seq_bound(const Value& v, int64_t n) {
  if (!(v.is_int() || v.is_bool())) type_error("slice indices must be integers or have an __index__ method");
  int64_t i = v.int_like();
  if (i < 0) { i += n; if (i < 0) i = 0; }
  return i > n ? n : i;
}
Value seq_index(const Value& s, Args& a, bool tuple) {
  clinic_pos("index", tuple ? "tuple.index" : "list.index", a, 1, 3);
  const auto& items = s.items();
  int64_t n = static_cast<int64_t>(items.size());
  int64_t start = a.pos.size() > 1 ? seq_bound(a.pos[1], n) : 0;
  int64_t stop = a.pos.size() > 2 ? seq_bound(a.pos[2], n) : n;
  for (int64_t i = start; i < stop; ++i)
    if (py_equal(items[static_cast<size_t>(i)], a.pos[0])) return Value::integer(i);
  if (tuple) value_error("tuple.index(x): x not in tuple");
  value_error(py_repr(a.pos[0]) + " is not in list");
}
Value l_index(Renderer&, const Value& s, Args& a) { return seq_index(s, a, false); }
Value t_index(Renderer&, const Value& s, Args& a) { return seq_index(s, a, true); }
Value l_copy(Renderer& r, const Value& s, Args& a) {
  no_args("list.copy", a);
  r.charge(s.items().size());
  return Value::list(s.items());
}

// ---- dict views
Value v_isdisjoint(Renderer&, const Value& s, Args& a) {
  one_arg(s.list_obj().lkind == ListKind::DictKeys ? "dict_keys.isdisjoint" : "dict_items.isdisjoint", a);
  std::vector<Value> other = iterate(a.pos[0]);
  for (const Value& o : other)
    for (const Value& it : s.items())
      if (py_equal(o, it)) return Value::boolean(false);
  return Value::boolean(true);
}

// ---- range
Value r_start(Renderer&, const Value& s, Args&) { return Value::integer(s.list_obj().range_start); }
Value r_stop(Renderer&, const Value& s, Args&) { return Value::integer(s.list_obj().range_stop); }
Value r_step(Renderer&, const Value& s, Args&) { return Value::integer(s.list_obj().range_step); }
Value r_count(Renderer&, const Value& s, Args& a) { return seq_count(s, a, "range.count"); }
Value r_index(Renderer&, const Value& s, Args& a) {
  one_arg("range.index", a);
  const auto& items = s.items();
  for (size_t i = 0; i < items.size(); ++i)
    if (py_equal(items[i], a.pos[0])) return Value::integer(static_cast<int64_t>(i));
  value_error(py_repr(a.pos[0]) + " is not in range");
}

// ---- int / bool
std::string iq(const Value& s, const char* m) { return std::string(s.is_bool() ? "bool." : "int.") + m; }
Value i_self(Renderer&, const Value& s, Args&) { return Value::integer(s.int_like()); }
Value i_zero(Renderer&, const Value&, Args&) { return Value::integer(0); }
Value i_one(Renderer&, const Value&, Args&) { return Value::integer(1); }
Value i_conjugate(Renderer&, const Value& s, Args& a) { no_args(iq(s, "conjugate").c_str(), a); return Value::integer(s.int_like()); }
Value i_bit_length(Renderer&, const Value& s, Args& a) {
  no_args(iq(s, "bit_length").c_str(), a);
  uint64_t u = s.int_like() < 0 ? 0 - static_cast<uint64_t>(s.int_like()) : static_cast<uint64_t>(s.int_like());
  int64_t n = 0;
  while (u) { ++n; u >>= 1; }
  return Value::integer(n);
}
Value i_bit_count(Renderer&, const Value& s, Args& a) {
  no_args(iq(s, "bit_count").c_str(), a);
  uint64_t u = s.int_like() < 0 ? 0 - static_cast<uint64_t>(s.int_like()) : static_cast<uint64_t>(s.int_like());
  return Value::integer(__builtin_popcountll(u));
}
Value i_ratio(Renderer&, const Value& s, Args& a) {
  no_args(iq(s, "as_integer_ratio").c_str(), a);
  return Value::tuple({Value::integer(s.int_like()), Value::integer(1)});
}
Value i_to_bytes(Renderer&, const Value& s, Args& a) {
  // to_bytes(length=1, byteorder='big', *, signed=False)
  std::optional<Value> v[3];
  clinic_kw("to_bytes", a, {"length", "byteorder", "signed"}, v);
  int64_t len = v[0] ? as_index(*v[0]) : 1;
  std::string order = "big";
  if (v[1]) {
    if (!v[1]->is_str()) type_error(std::string("to_bytes() argument 'byteorder' must be str, not ") + type_name(*v[1]));
    order = v[1]->str();
  }
  bool sign = v[2] ? truthy(*v[2]) : false;
  if (len < 0) value_error("length argument must be non-negative");
  if (order != "big" && order != "little") value_error("byteorder must be either 'little' or 'big'");
  int64_t x = s.int_like();
  if (x < 0 && !sign) throw Error(ErrorKind::OverflowError, "can't convert negative int to unsigned");
  std::string out(static_cast<size_t>(std::min<int64_t>(len, 1 << 20)), '\0');
  if (len > (1 << 20)) throw Error(ErrorKind::MemoryError, "");
  uint64_t u = static_cast<uint64_t>(x);
  for (int64_t i = 0; i < len; ++i) {
    out[static_cast<size_t>(order == "big" ? len - 1 - i : i)] = static_cast<char>(i < 8 ? (u >> (8 * i)) & 0xff : (x < 0 ? 0xff : 0));
  }
  // range check
  bool fits;
  if (len >= 8) fits = true;
  else if (sign) {
    int64_t lim = int64_t(1) << (8 * len - 1);
    fits = len > 0 ? (x >= -lim && x < lim) : x == 0;
  } else {
    fits = len == 0 ? x == 0 : static_cast<uint64_t>(x) < (uint64_t(1) << (8 * len));
  }
  if (!fits) throw Error(ErrorKind::OverflowError, "int too big to convert");
  return make_bytes(std::move(out));
}

// ---- float
Value f_self(Renderer&, const Value& s, Args&) { return Value::floating(s.as_float()); }
Value f_zero(Renderer&, const Value&, Args&) { return Value::floating(0.0); }
Value f_conjugate(Renderer&, const Value& s, Args& a) { no_args("float.conjugate", a); return Value::floating(s.as_float()); }
Value f_is_integer(Renderer&, const Value& s, Args& a) {
  no_args("float.is_integer", a);
  double d = s.as_float();
  return Value::boolean(std::isfinite(d) && std::floor(d) == d);
}
Value f_ratio(Renderer&, const Value& s, Args& a) {
  no_args("float.as_integer_ratio", a);
  double d = s.as_float();
  if (std::isinf(d)) throw Error(ErrorKind::OverflowError, "cannot convert Infinity to integer ratio");
  if (std::isnan(d)) value_error("cannot convert NaN to integer ratio");
  int e;
  double m = std::frexp(d, &e);
  for (int i = 0; i < 300 && m != std::floor(m); ++i) { m *= 2.0; --e; }
  // d == m * 2**e with m integral
  if (std::fabs(m) >= 9.2233720368547758e18 || e > 62 || e < -62)
    throw Error(ErrorKind::OverflowError, "integer ratio out of the 64-bit integer range");
  int64_t num = static_cast<int64_t>(m), den = 1;
  if (e > 0) num <<= e; else den <<= -e;
  return Value::tuple({Value::integer(num), Value::integer(den)});
}
Value f_hex(Renderer&, const Value& s, Args& a) {
  no_args("float.hex", a);
  double d = s.as_float();
  if (std::isnan(d)) return Value::string("nan");
  if (std::isinf(d)) return Value::string(d < 0 ? "-inf" : "inf");
  std::string sign = std::signbit(d) ? "-" : "";
  d = std::fabs(d);
  if (d == 0) return Value::string(sign + "0x0.0p+0");
  int e;
  double m = std::frexp(d, &e);  // m in [0.5, 1)
  int lead = 1;
  e -= 1;
  m *= 2;  // [1, 2)
  if (e < -1022) {  // subnormal
    m = std::ldexp(m, e + 1022);
    e = -1022;
    lead = 0;
  }
  uint64_t frac = static_cast<uint64_t>(std::ldexp(m - lead, 52));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s0x%d.%013llxp%+d", sign.c_str(), lead, static_cast<unsigned long long>(frac), e);
  return Value::string(buf);
}
Value f_fromhex(Renderer&, const Value&, Args& a) {
  one_arg("float.fromhex", a);
  if (!a.pos[0].is_str()) type_error("bad argument type for built-in operation");
  std::string t(a.pos[0].str());
  size_t b = t.find_first_not_of(" \t\n\r\f\v"), e = t.find_last_not_of(" \t\n\r\f\v");
  if (b == std::string::npos) value_error("invalid hexadecimal floating-point string");
  t = t.substr(b, e - b + 1);
  std::string body = t;
  std::string sign;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) { sign = body.substr(0, 1); body = body.substr(1); }
  std::string low;
  for (char c : body) low += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (low == "inf" || low == "infinity" || low == "nan")
    return Value::floating(std::strtod((sign + low).c_str(), nullptr));
  if (low.rfind("0x", 0) != 0) body = "0x" + body;
  for (char c : body.substr(2))
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'p' || c == 'P' || c == '+' || c == '-'))
      value_error("invalid hexadecimal floating-point string");
  std::string full = sign + body;
  char* end = nullptr;
  double d = std::strtod(full.c_str(), &end);
  if (end != full.c_str() + full.size() || full.size() <= 2 + sign.size())
    value_error("invalid hexadecimal floating-point string");
  if (std::isinf(d)) throw Error(ErrorKind::OverflowError, "hexadecimal value too large to represent as a float");
  return Value::floating(d);
}

// ---- cycler / joiner
Value c_next(Renderer&, const Value& s, Args& a) {
  if (!a.pos.empty() || !a.kw.empty()) {
    size_t n = a.pos.size() + a.kw.size() + 1;
    if (!a.kw.empty()) type_error("Cycler.next() got an unexpected keyword argument '" + a.kw[0].first + "'");
    type_error("Cycler.next() takes 1 positional argument but " + std::to_string(n) + " were given");
  }
  return cycler_next(*s.as<CyclerObj>());
}
Value c_reset(Renderer&, const Value& s, Args& a) {
  if (!a.kw.empty()) type_error("Cycler.reset() got an unexpected keyword argument '" + a.kw[0].first + "'");
  if (!a.pos.empty())
    type_error("Cycler.reset() takes 1 positional argument but " + std::to_string(a.pos.size() + 1) + " were given");
  s.as<CyclerObj>()->pos = 0;
  return Value::none();
}
Value c_current(Renderer&, const Value& s, Args&) {
  CyclerObj& c = *s.as<CyclerObj>();
  return c.items[c.pos];
}
Value c_items(Renderer&, const Value& s, Args&) { return Value::tuple(s.as<CyclerObj>()->items); }
Value c_pos(Renderer&, const Value& s, Args&) { return Value::integer(static_cast<int64_t>(s.as<CyclerObj>()->pos)); }
Value j_sep(Renderer&, const Value& s, Args&) { return Value::string(s.as<JoinerObj>()->sep); }
Value j_used(Renderer&, const Value& s, Args&) { return Value::boolean(s.as<JoinerObj>()->used); }

// ---- bytes (str.encode(), int.to_bytes())
// Length of the well-formed UTF-8 sequence at b[i] (strict: no surrogates, no overlongs), or 0.
size_t utf8_seq_len(const std::string& b, size_t i) {
  auto at = [&](size_t k) { return k < b.size() ? static_cast<unsigned char>(b[k]) : 0u; };
  unsigned c = at(i);
  auto cont = [&](size_t k) { unsigned x = at(k); return x >= 0x80 && x <= 0xbf; };
  if (c >= 0xc2 && c <= 0xdf) return cont(i + 1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    unsigned c1 = at(i + 1);
    unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    return c1 >= lo && c1 <= hi && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    unsigned c1 = at(i + 1);
    unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    return c1 >= lo && c1 <= hi && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}

Value b_decode(Renderer&, const Value& s, Args& a) {
  std::string errors;
  std::string codec = codec_args("decode", a, errors);
  const std::string& b = s.as<BytesObj>()->b;
  std::string out;
  for (size_t i = 0; i < b.size();) {
    unsigned char c = static_cast<unsigned char>(b[i]);
    if (c < 0x80) { out += static_cast<char>(c); ++i; continue; }
    if (codec == "latin-1") { uni::append_utf8(out, c); ++i; continue; }
    size_t n = codec == "utf-8" ? utf8_seq_len(b, i) : 0;
    if (n) { out.append(b, i, n); i += n; continue; }
    if (errors == "ignore") { ++i; continue; }
    if (errors == "replace") { out += "\xEF\xBF\xBD"; ++i; continue; }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", c);
    value_error("'" + codec + "' codec can't decode byte " + hex + " in position " + std::to_string(i) +
                (codec == "ascii" ? ": ordinal not in range(128)" : ": invalid start byte"));
  }
  return Value::string(std::move(out));
}
Value b_hex(Renderer&, const Value& s, Args& a) {
  no_args("bytes.hex", a);
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s.as<BytesObj>()->b) { out += digits[c >> 4]; out += digits[c & 15]; }
  return Value::string(std::move(out));
}

struct Entry { std::string_view name; MethodFn fn; bool prop; };

#define M(N, F) {N, F, false}
#define P(N, F) {N, F, true}
const Entry kDict[] = {M("get", d_get), M("keys", d_keys), M("values", d_values), M("items", d_items),
                       M("copy", d_copy), M("fromkeys", d_fromkeys)};
const Entry kList[] = {M("count", l_count), M("index", l_index), M("copy", l_copy)};
const Entry kTuple[] = {M("count", t_count), M("index", t_index)};
const Entry kKeys[] = {M("isdisjoint", v_isdisjoint)};
const Entry kRange[] = {P("start", r_start), P("stop", r_stop), P("step", r_step), M("count", r_count),
                        M("index", r_index)};
const Entry kInt[] = {P("real", i_self), P("imag", i_zero), P("numerator", i_self), P("denominator", i_one),
                      M("conjugate", i_conjugate), M("bit_length", i_bit_length), M("bit_count", i_bit_count),
                      M("as_integer_ratio", i_ratio), M("to_bytes", i_to_bytes)};
const Entry kFloat[] = {P("real", f_self), P("imag", f_zero), M("conjugate", f_conjugate),
                        M("is_integer", f_is_integer), M("as_integer_ratio", f_ratio), M("hex", f_hex),
                        M("fromhex", f_fromhex)};
const Entry kCycler[] = {M("next", c_next), M("reset", c_reset), P("current", c_current), P("items", c_items),
                         P("pos", c_pos)};
const Entry kJoiner[] = {P("sep", j_sep), P("used", j_used)};
const Entry kBytes[] = {M("decode", b_decode), M("hex", b_hex)};
#undef M
#undef P

template <size_t N>
const Entry* lookup(const Entry (&table)[N], std::string_view name) {
  for (const Entry& e : table)
    if (name == e.name) return &e;
  return nullptr;
}

const Entry* find_entry(const Value& self, std::string_view name) {
  switch (self.type()) {
    case Type::Dict: return lookup(kDict, name);
    case Type::Bool:
    case Type::Int: return lookup(kInt, name);
    case Type::Float: return lookup(kFloat, name);
    case Type::List:
      switch (self.list_obj().lkind) {
        case ListKind::List: return lookup(kList, name);
        case ListKind::Tuple: return lookup(kTuple, name);
        case ListKind::DictKeys:
        case ListKind::DictItems: return lookup(kKeys, name);
        case ListKind::DictValues: return nullptr;
        case ListKind::Range: return lookup(kRange, name);
      }
      return nullptr;
    case Type::Object:
      if (self.is_obj(ObjKind::Cycler)) return lookup(kCycler, name);
      if (self.is_obj(ObjKind::Joiner)) return lookup(kJoiner, name);
      if (self.is_obj(ObjKind::Bytes)) return lookup(kBytes, name);
      return nullptr;
    default: return nullptr;
  }
}

constexpr std::string_view kListMutators = "append clear pop reverse insert sort extend remove";
constexpr std::string_view kDictMutators = "clear pop popitem setdefault update";

}  // namespace

namespace mimpl {
MethodLookup find_misc_method(const Value& self, std::string_view name, MethodFn* out) {
  if (self.is_list() && self.list_obj().lkind == ListKind::List && in_words(kListMutators, name))
    return MethodLookup::Unsafe;
  if (self.is_dict() && in_words(kDictMutators, name)) return MethodLookup::Unsafe;
  const Entry* e = find_entry(self, name);
  if (!e) return MethodLookup::NotFound;
  if (out) *out = e->fn;
  return MethodLookup::Found;
}
}  // namespace mimpl

bool is_property(const Value& self, std::string_view name) {
  if (self.is_str()) return false;
  const Entry* e = find_entry(self, name);
  return e && e->prop;
}

Value call_joiner(JoinerObj& j) {
  if (!j.used) {
    j.used = true;
    return Value::string("");
  }
  return Value::string(j.sep);
}

Value cycler_next(CyclerObj& c) {
  if (c.items.empty()) return Value::undefined();
  Value rv = c.items[c.pos];
  c.pos = (c.pos + 1) % c.items.size();
  return rv;
}

}  // namespace toolchat::jinja
