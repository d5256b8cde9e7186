// The builtin filter table (Jinja2 3.1 FILTERS plus transformers' tojson) and the
// numeric filters; text filters live in filters_text.cpp, sequence filters in
// filters_seq.cpp. Function names in error messages are the Python ones
// (do_center, sync_do_join ...) because Jinja2 reports them.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "jinja/builtins/filters_impl.hpp"
#include "value/bigint.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja {

namespace fimpl {

std::string soft_str(const Value& v) {
  if (v.is_str()) return std::string(v.str());
  if (v.is_undefined()) return std::string();
  return py_str(v);
}

int64_t as_index(const Value& v) {
  if (v.is_int() || v.is_bool() || v.is_bigint()) return v.int_like();  // big: OverflowError
  type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
}

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  html_escape_append(out, s);
  return out;
}

Value escape_value(const Value& v) {
  if (v.is_markup()) return v;
  return Value::markup(html_escape(soft_str(v)));
}

void check_size(Renderer& r, size_t bytes, const char* what) {
  if (bytes > r.limits().max_value_bytes)
    throw Error(ErrorKind::LimitError, std::string("the result of the ") + what +
                                           " filter exceeds the value size limit (" +
                                           std::to_string(r.limits().max_value_bytes) + " bytes)");
}

void reject_implicit(const char* func, const CallArgs& args, std::initializer_list<const char*> names) {
  for (const auto& kw : args.kw)
    for (const char* n : names)
      if (kw.first == n)
        type_error(std::string(func) + "() got multiple values for argument '" + n + "'");
}

void c_unary(const char* func, const CallArgs& args) {
  if (!args.kw.empty()) type_error(std::string(func) + "() takes no keyword arguments");
  if (!args.pos.empty())
    type_error(std::string(func) + "() takes exactly one argument (" + std::to_string(args.pos.size() + 1) +
               " given)");
}

Value ignore_case(const Value& v) {
  if (!v.is_str()) return v;
  return str_value(pystr::lower(v.str()), v.is_markup());
}

namespace {

// CPython listsort for short arrays: count_run + binary insertion, comparisons in
// CPython's order so the first failing comparison (and its message) is the same.
void binary_insertion(std::vector<size_t>& idx, const std::vector<Value>& keys, size_t start) {
  for (; start < idx.size(); ++start) {
    size_t l = 0, r = start;
    size_t pivot = idx[start];
    do {
      size_t p = l + ((r - l) >> 1);
      if (py_less(keys[pivot], keys[idx[p]])) r = p;
      else l = p + 1;
    } while (l < r);
    for (size_t k = start; k > l; --k) idx[k] = idx[k - 1];
    idx[l] = pivot;
  }
}

}  // namespace

std::vector<size_t> sorted_order(Renderer& r, const std::vector<Value>& keys, bool reverse) {
  const size_t n = keys.size();
  std::vector<size_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = reverse ? n - 1 - i : i;
  if (n < 2) return idx;
  r.charge(n);
  if (n < 64) {
    // count_run
    size_t run = 2;
    bool descending = py_less(keys[idx[1]], keys[idx[0]]);
    if (descending) {
      while (run < n && py_less(keys[idx[run]], keys[idx[run - 1]])) ++run;
      std::reverse(idx.begin(), idx.begin() + static_cast<ptrdiff_t>(run));
    } else {
      while (run < n && !py_less(keys[idx[run]], keys[idx[run - 1]])) ++run;
    }
    if (run < n) binary_insertion(idx, keys, run);
  } else {
    uint64_t work = 0;
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
      // a Python comparison through lt() is a few nodes' worth of work
      if ((++work & 1023) == 0) r.charge(4 * 1024);
      return py_less(keys[a], keys[b]);
    });
  }
  if (reverse) std::reverse(idx.begin(), idx.end());
  return idx;
}

}  // namespace fimpl

using namespace fimpl;

namespace {

// ---- numbers ----

Value f_abs(Renderer&, const Value& v, CallArgs& a) {
  c_unary("abs", a);
  if (v.is_float()) return Value::floating(std::fabs(v.as_float()));
  if (v.is_bigint()) return bigint_of(v).is_negative() ? py_neg(v) : v;
  if (v.is_int() || v.is_bool()) {
    int64_t i = v.int_like();
    if (i == INT64_MIN) return py_neg(v);  // 2**63, a big int
    return Value::integer(i < 0 ? -i : i);
  }
  type_error(std::string("bad operand type for abs(): '") + type_name(v) + "'");
}

Value f_length(Renderer&, const Value& v, CallArgs& a) {
  c_unary("len", a);
  return Value::integer(py_len(v));
}

Value f_default(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_default", a, {"value"});
  ArgBinder b("do_default", a, {"default_value", "boolean"}, 0, 1);
  if (v.is_undefined() || (b.has(1) && truthy(b.get(1)) && !truthy(v)))
    return b.get_or(0, Value::string(""));
  return v;
}

Value f_attr(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_attr", a, {"environment", "obj"});
  ArgBinder b("do_attr", a, {"name"}, 1, 2);
  const Value& name = b.get(0);
  if (!name.is_str()) {
    if (v.is_undefined()) raise_undefined(v);
    type_error(std::string("attribute name must be string, not '") + type_name(name) + "'");
  }
  if (v.is_object()) return r.getattr(v, name.str());
  MethodFn fn = nullptr;
  MethodLookup found = find_method(v, name.str(), &fn);
  if (found == MethodLookup::NotFound) {
    if (v.is_undefined()) raise_undefined(v);
    return Value::undefined_attr(v, std::string(name.str()));
  }
  return r.getattr(v, name.str());
}

int digit_value(char32_t c);

}  // namespace

// Python float(str): whitespace, sign, digits with single underscores, inf/nan.
bool fimpl::parse_py_float(std::string_view s, double& out) {
  std::string ascii;  // Unicode decimal digits count as digits, like Python
  for (size_t k = 0; k < s.size();) {
    unsigned char c0 = static_cast<unsigned char>(s[k]);
    if (c0 < 0x80) { ascii += s[k++]; continue; }
    size_t start = k;
    char32_t c = uni::decode_next(s, k);
    if (uni::is_decimal(c)) ascii += static_cast<char>('0' + digit_value(c));
    else ascii.append(s.substr(start, k - start));
  }
  std::string_view t = pystr::strip_view(ascii);
  std::string clean;
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) clean += t[i++];
  std::string rest(t.substr(i));
  std::string lowered;
  for (char c : rest) lowered += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lowered == "inf" || lowered == "infinity" || lowered == "nan") {
    double d = lowered == "nan" ? std::nan("") : INFINITY;
    out = (!clean.empty() && clean[0] == '-') ? -d : d;
    return true;
  }
  bool digits = false, prev_digit = false;
  size_t j = 0;
  for (; j < rest.size(); ++j) {
    char c = rest[j];
    if (c >= '0' && c <= '9') { clean += c; digits = true; prev_digit = true; continue; }
    if (c == '_') {
      if (!prev_digit || j + 1 >= rest.size() || !(rest[j + 1] >= '0' && rest[j + 1] <= '9')) return false;
      prev_digit = false;
      continue;
    }
    if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
      clean += c;
      prev_digit = false;
      continue;
    }
    return false;
  }
  if (!digits) return false;
  // Validate the shape: digits [. digits] [e [sign] digits] (strtod accepts a superset).
  const char* p = clean.c_str();
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(p, &end);
  if (end != p + clean.size()) return false;
  for (char c : clean)
    if (c == 'x' || c == 'X' || c == 'p' || c == 'P') return false;
  // "1." and ".5" are fine in Python; "e5" or "." are not (no digits before e).
  size_t epos = clean.find_first_of("eE");
  std::string mant = clean.substr(0, epos);
  if (mant.find_first_of("0123456789") == std::string::npos) return false;
  if (epos != std::string::npos) {
    std::string ex = clean.substr(epos + 1);
    if (!ex.empty() && (ex[0] == '+' || ex[0] == '-')) ex = ex.substr(1);
    if (ex.empty() || ex.find_first_not_of("0123456789") != std::string::npos) return false;
  }
  out = d;
  return true;
}

namespace {

// float(value) for float/int filters: sets ok=false on TypeError/ValueError.
double to_float(const Value& v, bool& ok) {
  ok = true;
  if (v.is_undefined()) raise_undefined(v);
  if (v.is_number()) return v.to_double();
  if (v.is_str()) {
    double d;
    if (parse_py_float(v.str(), d)) return d;
  }
  ok = false;
  return 0;
}

int digit_value(char32_t c) {
  if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
  if (c >= 'a' && c <= 'z') return static_cast<int>(c - 'a' + 10);
  if (c >= 'A' && c <= 'Z') return static_cast<int>(c - 'A' + 10);
  if (c >= 0x660 && uni::is_decimal(c)) {
    // Unicode decimal digits come in contiguous blocks of ten starting at a ...0 digit.
    char32_t z = c;
    while (z > 0 && uni::is_decimal(z - 1) && (c - (z - 1)) < 10) --z;
    return static_cast<int>((c - z) % 10);
  }
  return 99;
}

// Python int(str, base). Returns false on ValueError (also past 4300 digits); big ints beyond int64.
bool parse_py_int(std::string_view s, int64_t base, Value& out) {
  if (base != 0 && (base < 2 || base > 36)) return false;  // ValueError
  std::u32string t = uni::decode(pystr::strip_view(s));
  size_t i = 0;
  bool neg = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
  auto lower = [](char32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; };
  bool prefixed = false;
  if (i + 1 < t.size() && t[i] == '0') {
    char32_t p = lower(t[i + 1]);
    int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (pb && (base == 0 || base == pb)) {
      base = pb;
      i += 2;
      prefixed = true;
    }
  }
  bool base0 = base == 0;
  if (base0) base = 10;
  if (prefixed && i < t.size() && t[i] == '_') ++i;
  if (i >= t.size() || t[i] == '_' || t.back() == '_') return false;
  unsigned __int128 acc = 0;
  bool nonzero = false, big = false;
  size_t first_digit = i;
  std::string digits;  // ASCII digits, for a big int
  for (; i < t.size(); ++i) {
    if (t[i] == '_') {
      if (t[i - 1] == '_') return false;
      continue;
    }
    int d = digit_value(t[i]);
    if (d >= base) return false;
    if (d != 0) nonzero = true;
    digits += static_cast<char>(d < 10 ? '0' + d : 'a' + d - 10);
    acc = acc * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    if (acc > (static_cast<unsigned __int128>(1) << 64)) {
      big = true;
      acc = static_cast<unsigned __int128>(1) << 64;
    }
  }
  // base 0 without prefix: no leading zeros unless the value is zero
  if (base0 && !prefixed && nonzero && digit_value(t[first_digit]) == 0) return false;
  if ((base & (base - 1)) != 0 && digits.size() > kIntMaxStrDigits) return false;  // ValueError
  if (big || acc > static_cast<unsigned __int128>(INT64_MAX) + (neg ? 1 : 0)) {
    BigInt n;
    BigInt::from_digits(digits, static_cast<int>(base), n);
    out = make_int(neg ? -n : n);
  } else {
    out = Value::integer(acc == static_cast<unsigned __int128>(INT64_MAX) + 1 ? INT64_MIN
                         : neg ? -static_cast<int64_t>(acc) : static_cast<int64_t>(acc));
  }
  return true;
}

// int(float) with Python's errors; ok=false for NaN (ValueError). Big ints beyond int64.
Value float_to_int(double d, bool& ok, bool overflow_is_error) {
  ok = true;
  if (std::isnan(d)) { ok = false; return Value::integer(0); }
  if (std::isinf(d)) {
    if (overflow_is_error) throw Error(ErrorKind::OverflowError, "cannot convert float infinity to integer");
    ok = false;
    return Value::integer(0);
  }
  double t = std::trunc(d);
  if (t >= 9223372036854775808.0 || t < -9223372036854775808.0) return make_int(BigInt::from_double(t));
  return Value::integer(static_cast<int64_t>(t));
}

Value f_int(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_int", a, {"value"});
  ArgBinder b("do_int", a, {"default", "base"}, 0, 1);
  Value def = b.get_or(0, Value::integer(0));
  bool ok = true;
  // int(value[, base])
  if (v.is_str()) {
    const Value& base = b.has(1) ? b.get(1) : Value::integer(10);
    if (base.is_int() || base.is_bool()) {
      Value out;
      if (parse_py_int(v.str(), base.int_like(), out)) return out;
    }
  } else if (v.is_undefined()) {
    raise_undefined(v);
  } else if (v.is_bigint()) {
    return v;
  } else if (v.is_int() || v.is_bool()) {
    return Value::integer(v.int_like());
  } else if (v.is_float()) {
    Value i = float_to_int(v.as_float(), ok, true);
    if (ok) return i;
  }
  // int(float(value)), default on TypeError / ValueError / OverflowError
  double d = to_float(v, ok);
  if (!ok) return def;
  Value i = float_to_int(d, ok, false);
  return ok ? i : def;
}

Value f_float(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_float", a, {"value"});
  ArgBinder b("do_float", a, {"default"}, 0, 1);
  bool ok;
  double d = to_float(v, ok);
  if (!ok) return b.get_or(0, Value::floating(0.0));
  return Value::floating(d);
}

// round(x, n) for floats: correctly rounded decimal, ties to even (like CPython's dtoa).
double round_float(double x, int64_t nd) {
  if (!std::isfinite(x) || x == 0.0) return x;
  if (nd > 330) return x;
  if (nd >= 0) {
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(nd), x);
    return std::strtod(buf, nullptr);
  }
  if (nd < -330) return std::copysign(0.0, x);
  // Negative ndigits: round to a multiple of 10^-nd using the exact decimal expansion.
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.0f", x);  // exact integer part (|x| >= 2^52 is integral)
  std::string s = buf;
  bool neg = s[0] == '-';
  if (neg) s = s.substr(1);
  double frac = std::fabs(x) - std::floor(std::fabs(x));
  // %.0f rounded the fraction; use the truncated integer instead and remember the fraction.
  {
    double ip = std::floor(std::fabs(x));
    std::snprintf(buf, sizeof buf, "%.0f", ip);
    s = buf;
  }
  size_t k = static_cast<size_t>(-nd);
  if (s.size() < k) s.insert(0, k - s.size(), '0');
  std::string head = s.substr(0, s.size() - k);
  std::string tail = s.substr(s.size() - k);
  // compare tail(+frac) with half
  std::string half = "5" + std::string(k - 1, '0');
  int cmp = tail.compare(half);
  bool up;
  if (cmp > 0) up = true;
  else if (cmp < 0) up = false;
  else if (frac > 0) up = true;
  else {
    int last = head.empty() ? 0 : head.back() - '0';
    up = last % 2 == 1;
  }
  double h = head.empty() ? 0.0 : std::strtod(head.c_str(), nullptr);
  if (up) h += 1;
  double r = h * std::pow(10.0, static_cast<double>(k));
  if (std::isinf(r)) throw Error(ErrorKind::OverflowError, "rounded value too large to represent");
  return neg ? -r : r;
}

// round(int, nd): ties to even; int64 or big int in and out.
Value round_int(const Value& v, int64_t nd) {
  if (nd >= 0) return v.is_bool() ? Value::integer(v.int_like()) : v;
  if (!v.is_bigint()) {
    int64_t x = v.int_like();
    if (nd < -18) return Value::integer(0);
    int64_t p = 1;
    for (int64_t i = 0; i < -nd; ++i) p *= 10;
    int64_t q = x / p, rem = x % p;
    if (rem < 0) { rem += p; --q; }  // floor division
    int64_t twice = rem * 2;
    if (twice > p || (twice == p && (q & 1))) ++q;
    __int128 r = static_cast<__int128>(q) * p;
    if (r > INT64_MAX || r < INT64_MIN) return make_int(BigInt(q) * BigInt(p));
    return Value::integer(static_cast<int64_t>(r));
  }
  const BigInt& x = bigint_of(v);
  if (static_cast<double>(-nd) > static_cast<double>(x.bit_length()) * 0.30103 + 2) return Value::integer(0);
  BigInt p = BigInt::pow(BigInt(10), static_cast<uint64_t>(-nd)), q, rem, half_q, odd;
  BigInt::divmod(x, p, q, rem);
  BigInt::divmod(q, BigInt(2), half_q, odd);
  int c = BigInt::compare(rem + rem, p);
  if (c > 0 || (c == 0 && !odd.is_zero())) q = q + BigInt(1);
  return make_int(q * p);
}

Value f_round(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_round", a, {"value"});
  ArgBinder b("do_round", a, {"precision", "method"}, 0, 1);
  Value precision = b.get_or(0, Value::integer(0));
  Value method = b.get_or(1, Value::string("common"));
  std::string m = method.is_str() ? std::string(method.str()) : std::string();
  if (!method.is_str() || (m != "common" && m != "ceil" && m != "floor"))
    filter_arg_error("method must be common, ceil or floor");
  if (m == "common") {
    if (v.is_float()) {
      int64_t nd = as_index(precision);
      return Value::floating(round_float(v.as_float(), nd));
    }
    if (v.is_int() || v.is_bool() || v.is_bigint()) return round_int(v, as_index(precision));
    if (v.is_undefined() || !v.is_number())
      type_error(std::string("type ") + type_name(v) + " doesn't define __round__ method");
  }
  // math.ceil / math.floor of value * 10**precision, then true division.
  Value scale = py_pow(Value::integer(10), precision);
  Value x = py_mul(v, scale);
  if (!x.is_number()) type_error(std::string("must be real number, not ") + type_name(x));
  Value whole;
  if (x.is_float()) {
    double d = x.as_float();
    if (std::isnan(d)) throw Error(ErrorKind::ValueError, "cannot convert float NaN to integer");
    if (std::isinf(d)) throw Error(ErrorKind::OverflowError, "cannot convert float infinity to integer");
    double r = m == "ceil" ? std::ceil(d) : std::floor(d);
    bool ok;
    whole = float_to_int(r, ok, true);
  } else {
    whole = x.is_bigint() ? x : Value::integer(x.int_like());
  }
  return py_truediv(whole, scale);
}

struct FilterRow {
  std::string_view name;
  FilterFn fn;
};

const FilterRow kFilters[] = {
    {"abs", f_abs},
    {"attr", f_attr},
    {"batch", f_batch},
    {"capitalize", f_capitalize},
    {"center", f_center},
    {"count", f_length},
    {"d", f_default},
    {"default", f_default},
    {"dictsort", f_dictsort},
    {"e", f_escape},
    {"escape", f_escape},
    {"filesizeformat", f_filesizeformat},
    {"first", f_first},
    {"float", f_float},
    {"forceescape", f_forceescape},
    {"format", f_format},
    {"groupby", f_groupby},
    {"indent", f_indent},
    {"int", f_int},
    {"items", f_items},
    {"join", f_join},
    {"last", f_last},
    {"length", f_length},
    {"list", f_list},
    {"lower", f_lower},
    {"map", f_map},
    {"max", f_max},
    {"min", f_min},
    {"pprint", f_pprint},
    {"random", f_random},
    {"reject", f_reject},
    {"rejectattr", f_rejectattr},
    {"replace", f_replace},
    {"reverse", f_reverse},
    {"round", f_round},
    {"safe", f_safe},
    {"select", f_select},
    {"selectattr", f_selectattr},
    {"slice", f_slice},
    {"sort", f_sort},
    {"string", f_string},
    {"striptags", f_striptags},
    {"sum", f_sum},
    {"title", f_title},
    {"tojson", f_tojson},
    {"trim", f_trim},
    {"truncate", f_truncate},
    {"unique", f_unique},
    {"upper", f_upper},
    {"urlencode", f_urlencode},
    {"urlize", f_urlize},
    {"wordcount", f_wordcount},
    {"wordwrap", f_wordwrap},
    {"xmlattr", f_xmlattr},
};

}  // namespace

FilterFn find_filter(std::string_view name) { return fimpl::hashed_lookup(kFilters, name); }

}  // namespace toolchat::jinja
