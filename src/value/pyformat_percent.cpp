// Python `fmt % args` (printf-style formatting, CPython 3.11), also Jinja2's `format` filter.
#include <algorithm>
#include <cmath>
#include <limits>

#include "value/pyformat.hpp"
#include "value/pyformat_internal.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::pyformat {

using namespace detail;

namespace {

struct PercentCtx {
  const Value& args;
  std::vector<Value> tuple;   // positional items when args is a tuple
  bool is_tuple = false;
  int64_t arglen = -1, argidx = -2;
  bool has_dict = false;
  Value cur;                  // the current single argument (args or a %(key) value)

  explicit PercentCtx(const Value& a) : args(a), cur(a) {
    if (a.is_list() && a.list_obj().lkind == ListKind::Tuple) {
      is_tuple = true;
      arglen = static_cast<int64_t>(a.items().size());
      argidx = 0;
    }
    has_dict = !is_tuple && (a.is_dict() || a.is_list());
  }
  Value next() {
    if (argidx < arglen) {
      int64_t i = argidx++;
      if (arglen < 0) return cur;
      return args.items()[static_cast<size_t>(i)];
    }
    type_error("not enough arguments for format string");
  }
};

std::string percent_number(const Value& v, char conv, int flags_minus, bool plus, bool space,
                           bool alt, bool zero, int64_t width, int64_t prec) {
  (void)flags_minus;
  Spec sp;
  sp.width = width;
  sp.sign = plus ? '+' : (space ? ' ' : 0);
  sp.fill = ' ';
  sp.align = flags_minus ? '<' : '>';
  if (zero && !flags_minus) { sp.fill = '0'; sp.align = '='; }
  bool is_int_conv = conv == 'd' || conv == 'i' || conv == 'u' || conv == 'x' || conv == 'X' || conv == 'o';
  if (is_int_conv) {
    int64_t iv;
    if (v.is_bigint()) {
      const BigInt& n = bigint_of(v);
      std::string digits, prefix;
      if (conv == 'x' || conv == 'X') { digits = big_digits(n, 16, conv == 'X'); if (alt) prefix = conv == 'x' ? "0x" : "0X"; }
      else if (conv == 'o') { digits = big_digits(n, 8, false); if (alt) prefix = "0o"; }
      else digits = big_digits(n, 10, false);
      if (prec > static_cast<int64_t>(digits.size())) digits.insert(0, static_cast<size_t>(prec) - digits.size(), '0');
      return layout_number(n.is_negative(), prefix, digits, "", sp, Grouping::None);
    }
    if (v.is_int() || v.is_bool()) iv = v.int_like();
    else if (v.is_float() && (conv == 'd' || conv == 'i' || conv == 'u')) {
      double d = v.as_float();
      if (std::isinf(d)) throw Error(ErrorKind::OverflowError, "cannot convert float infinity to integer");
      if (std::isnan(d)) value_error("cannot convert float NaN to integer");
      double t = std::trunc(d);
      if (t >= 9.2233720368547758e18 || t < -9.2233720368547758e18) {
        // Beyond int64: the float's exact integer value, as Python's int(float) prints it.
        std::string digits = c_format(std::fabs(t), 'f', 0, false);
        if (prec > static_cast<int64_t>(digits.size())) digits.insert(0, static_cast<size_t>(prec) - digits.size(), '0');
        return layout_number(t < 0, "", digits, "", sp, Grouping::None);
      }
      iv = static_cast<int64_t>(t);
    } else if (conv == 'd' || conv == 'i' || conv == 'u') {
      type_error(std::string("%") + conv + " format: a real number is required, not " + type_name(v));
    } else {
      type_error(std::string("%") + conv + " format: an integer is required, not " + type_name(v));
    }
    uint64_t u = uabs(iv);
    std::string digits, prefix;
    if (conv == 'x' || conv == 'X') { digits = to_base(u, 16, conv == 'X'); if (alt) prefix = conv == 'x' ? "0x" : "0X"; }
    else if (conv == 'o') { digits = to_base(u, 8, false); if (alt) prefix = "0o"; }
    else digits = to_base(u, 10, false);
    if (prec > static_cast<int64_t>(digits.size())) digits.insert(0, static_cast<size_t>(prec) - digits.size(), '0');
    return layout_number(iv < 0, prefix, digits, "", sp, Grouping::None);
  }
  double d;
  if (v.is_float()) d = v.as_float();
  else if (v.is_int() || v.is_bool() || v.is_bigint()) d = v.to_double();  // big: OverflowError
  else type_error(std::string("must be real number, not ") + type_name(v));
  if (prec < 0) prec = 6;
  bool neg = std::signbit(d) && !std::isnan(d);
  std::string body = float_body(std::fabs(d), conv, prec, alt, BareG::AsIs);
  return layout_number(neg, "", body, "", sp, Grouping::None);
}

// %s, %r, %a: str(), repr() or ascii(), cut to `prec` code points, padded to `width`.
std::string percent_text(const Value& v, char conv, bool minus, int64_t width, int64_t prec) {
  std::string s = conv == 's' ? py_str(v) : conv == 'r' ? py_repr(v) : ascii_repr(v);
  if (prec >= 0 && pystr::length(s) > prec) s = pystr::slice(s, 0, prec);
  int64_t len = pystr::length(s);
  if (width > len) {
    if (minus) { s.append(static_cast<size_t>(width - len), ' '); }
    else s.insert(0, static_cast<size_t>(width - len), ' ');
  }
  return s;
}

// %c: a one-character string or a code point, padded to `width`.
std::string percent_char(const Value& v, bool minus, int64_t width) {
  std::string s;
  if (v.is_str()) {
    if (pystr::length(v.str()) != 1) type_error("%c requires int or char");
    s = v.str();
  } else if (v.is_int() || v.is_bool()) {
    int64_t c = v.int_like();
    if (c < 0 || c > 0x10ffff) throw Error(ErrorKind::OverflowError, "%c arg not in range(0x110000)");
    s = uni::encode(static_cast<char32_t>(c));
  } else if (v.is_bigint()) {
    throw Error(ErrorKind::OverflowError, "%c arg not in range(0x110000)");
  } else {
    type_error("%c requires int or char");
  }
  if (width > 1) {
    if (minus) s.append(static_cast<size_t>(width - 1), ' ');
    else s.insert(0, static_cast<size_t>(width - 1), ' ');
  }
  return s;
}

}  // namespace

std::string percent(const std::string& fmt, const Value& args, size_t max_bytes) {
  PercentCtx ctx(args);
  std::string out;
  size_t i = 0, n = fmt.size();
  size_t cp_index = 0;   // code point index of position i (for error messages)
  auto advance = [&](size_t& pos) -> char32_t {
    char32_t c = uni::decode_next(fmt, pos);
    ++cp_index;
    return c;
  };
  while (i < n) {
    size_t pct = fmt.find('%', i);
    if (pct == std::string::npos) { out.append(fmt, i, std::string::npos); break; }
    cp_index += uni::count_code_points(std::string_view(fmt).substr(i, pct - i));
    out.append(fmt, i, pct - i);
    i = pct + 1;
    ++cp_index;
    if (i < n && fmt[i] == '%') { out += '%'; ++i; ++cp_index; continue; }
    // %(key)
    if (i < n && fmt[i] == '(') {
      if (!ctx.has_dict) type_error("format requires a mapping");
      ++i; ++cp_index;
      size_t kstart = i;
      int depth = 1;
      while (i < n && depth > 0) {
        if (fmt[i] == '(') ++depth;
        else if (fmt[i] == ')') --depth;
        if (depth > 0) advance(i);
      }
      if (depth > 0) value_error("incomplete format key");
      Value key = Value::string(fmt.substr(kstart, i - kstart));
      ++i; ++cp_index;
      ctx.cur = mapping_get(args, key);
      ctx.arglen = -1;
      ctx.argidx = -2;
    }
    bool minus = false, plus = false, space = false, alt = false, zero = false;
    while (i < n) {
      char c = fmt[i];
      if (c == '-') minus = true;
      else if (c == '+') plus = true;
      else if (c == ' ') space = true;
      else if (c == '#') alt = true;
      else if (c == '0') zero = true;
      else break;
      ++i; ++cp_index;
    }
    int64_t width = -1, prec = -1;
    if (i < n && fmt[i] == '*') {
      Value w = ctx.next();
      if (!(w.is_int() || w.is_bool())) type_error("* wants int");
      width = w.int_like();
      if (width < 0) { minus = true; width = -width; }
      ++i; ++cp_index;
    } else {
      while (i < n && fmt[i] >= '0' && fmt[i] <= '9') {
        if (width < 0) width = 0;
        if (width > (std::numeric_limits<int32_t>::max() - (fmt[i] - '0')) / 10) value_error("width too big");
        width = width * 10 + (fmt[i] - '0');
        ++i; ++cp_index;
      }
    }
    if (i < n && fmt[i] == '.') {
      ++i; ++cp_index;
      prec = 0;
      if (i < n && fmt[i] == '*') {
        Value p = ctx.next();
        if (!(p.is_int() || p.is_bool())) type_error("* wants int");
        prec = std::max<int64_t>(0, p.int_like());
        ++i; ++cp_index;
      } else {
        while (i < n && fmt[i] >= '0' && fmt[i] <= '9') {
          if (prec > (std::numeric_limits<int32_t>::max() - (fmt[i] - '0')) / 10) value_error("precision too big");
          prec = prec * 10 + (fmt[i] - '0');
          ++i; ++cp_index;
        }
      }
    }
    if (i < n && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) { ++i; ++cp_index; }
    if (i >= n) value_error("incomplete format");
    check_built(out, max_bytes);
    bool text_conv = fmt[i] == 's' || fmt[i] == 'r' || fmt[i] == 'a' || fmt[i] == 'c';
    check_widths(width, text_conv ? -1 : prec, max_bytes);
    size_t conv_index = cp_index;
    char32_t conv = advance(i);
    if (conv == '%') {
      // CPython 3.11: a '%' after flags/width/key still consumes an argument first.
      ctx.next();
    } else {
      Value v = ctx.next();
      std::string piece;
      switch (conv) {
        case 's': case 'r': case 'a':
          out += percent_text(v, static_cast<char>(conv), minus, width, prec);
          continue;
        case 'c':
          out += percent_char(v, minus, width);
          continue;
        case 'd': case 'i': case 'u': case 'o': case 'x': case 'X':
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
          out += percent_number(v, static_cast<char>(conv), minus, plus, space, alt, zero, width, prec);
          continue;
        default: break;
      }
    }
    char shown = (conv >= 31 && conv <= 126) ? static_cast<char>(conv) : '?';
    value_error(std::string("unsupported format character '") + shown + "' (0x" +
                hex_lower(static_cast<uint32_t>(conv)) + ") at index " + std::to_string(conv_index));
  }
  if (ctx.argidx < ctx.arglen && !ctx.has_dict)
    type_error("not all arguments converted during string formatting");
  check_built(out, max_bytes);
  return out;
}

}  // namespace toolchat::pyformat
