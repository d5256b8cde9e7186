// The number and padding layout shared by format(), `%` and str.format (CPython 3.11).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "value/pyformat_internal.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::pyformat::detail {

[[noreturn]] void value_error(std::string m) { throw Error(ErrorKind::ValueError, std::move(m)); }
[[noreturn]] void type_error(std::string m) { throw Error(ErrorKind::TypeError, std::move(m)); }

std::string hex_lower(uint32_t c) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", c);
  return buf;
}

namespace {

// CPython's _PyUnicode_InsertThousandsGrouping with a minimum width (zero padding).
std::string group_digits(const std::string& d, char sep, int g, int64_t min_width) {
  std::string out;
  int64_t remaining = static_cast<int64_t>(d.size());
  min_width = std::max<int64_t>(0, min_width);
  size_t pos = d.size();
  bool use_sep = false;
  for (;;) {
    int64_t l = std::min<int64_t>(g, std::max<int64_t>(std::max(remaining, min_width), 1));
    int64_t n_zeros = std::max<int64_t>(0, l - remaining);
    int64_t n_chars = std::max<int64_t>(0, std::min(remaining, l));
    if (use_sep) out.push_back(sep);
    for (int64_t k = 0; k < n_chars; ++k) out.push_back(d[--pos]);
    out.append(static_cast<size_t>(n_zeros), '0');
    remaining -= n_chars;
    min_width -= l;
    if (remaining <= 0 && min_width <= 0) break;
    min_width -= 1;
    use_sep = true;
  }
  std::reverse(out.begin(), out.end());
  return out;
}

void append_fill(std::string& out, char32_t fill, int64_t n) {
  if (n <= 0) return;
  if (fill < 0x80) { out.append(static_cast<size_t>(n), static_cast<char>(fill)); return; }
  std::string f = uni::encode(fill);
  for (int64_t k = 0; k < n; ++k) out += f;
}

}  // namespace

std::string layout_number(bool neg, const std::string& prefix, const std::string& digits,
                          const std::string& rem, const Spec& sp, Grouping grouping) {
  std::string sign;
  if (neg) sign = "-";
  else if (sp.sign == '+') sign = "+";
  else if (sp.sign == ' ') sign = " ";
  bool zero_pad = sp.fill == '0' && sp.align == '=';
  int64_t fixed = static_cast<int64_t>(sign.size() + prefix.size() + rem.size());
  std::string body;
  if (grouping == Grouping::Spec && sp.sep) {
    body = group_digits(digits, sp.sep, sp.group, zero_pad ? sp.width - fixed : 0);
  } else {
    body = digits;
    if (zero_pad && sp.width - fixed > static_cast<int64_t>(body.size()))
      body.insert(0, static_cast<size_t>(sp.width - fixed - static_cast<int64_t>(body.size())), '0');
  }
  int64_t total = fixed + static_cast<int64_t>(body.size());
  int64_t pad = sp.width > total ? sp.width - total : 0;
  std::string out;
  switch (sp.align) {
    case '<': out = sign + prefix + body + rem; append_fill(out, sp.fill, pad); break;
    case '^': append_fill(out, sp.fill, pad / 2); out += sign + prefix + body + rem;
              append_fill(out, sp.fill, pad - pad / 2); break;
    case '=': out = sign + prefix; append_fill(out, sp.fill, pad); out += body + rem; break;
    default: append_fill(out, sp.fill, pad); out += sign + prefix + body + rem; break;
  }
  return out;
}

std::string pad_str(const std::string& s, const Spec& sp) {
  int64_t len = pystr::length(s);
  int64_t pad = sp.width > len ? sp.width - len : 0;
  std::string out;
  if (sp.align == '>') { append_fill(out, sp.fill, pad); out += s; }
  else if (sp.align == '^') {
    append_fill(out, sp.fill, pad / 2); out += s; append_fill(out, sp.fill, pad - pad / 2);
  } else { out = s; append_fill(out, sp.fill, pad); }
  return out;
}

std::string to_base(uint64_t u, int base, bool upper) {
  if (u == 0) return "0";
  const char* dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  while (u) { s.push_back(dig[u % base]); u /= base; }
  std::reverse(s.begin(), s.end());
  return s;
}

uint64_t uabs(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

std::string c_format(double x, char conv, int64_t prec, bool alt) {
  char fmt[8];
  char* p = fmt;
  *p++ = '%';
  if (alt) *p++ = '#';
  *p++ = '.'; *p++ = '*'; *p++ = conv; *p = 0;
  if (prec > 100000000) throw Error(ErrorKind::MemoryError, "");
  int n = std::snprintf(nullptr, 0, fmt, static_cast<int>(prec), x);
  std::string s(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(s.data(), s.size(), fmt, static_cast<int>(prec), x);
  s.resize(static_cast<size_t>(n));
  return s;
}

std::string float_body(double ax, char type, int64_t prec, bool alt, BareG bare_g) {
  bool upper = type == 'E' || type == 'F' || type == 'G';
  if (std::isinf(ax)) return upper ? "INF" : "inf";
  if (std::isnan(ax)) return upper ? "NAN" : "nan";
  if (type == 'r') {
    std::string s = float_repr(ax);
    if (alt && s.find('.') == std::string::npos) {
      size_t e = s.find('e');
      s.insert(e == std::string::npos ? s.size() : e, ".");
    }
    return s;
  }
  if (type == 'g' || type == 'G') {
    if (prec == 0) prec = 1;
    if (bare_g == BareG::AsIs) return c_format(ax, type, prec, alt);
    // No presentation type with a precision (CPython format_float_short, 'g' with
    // ADD_DOT_0): exponent form once the decimal exponent reaches precision - 1.
    std::string e = c_format(ax, 'e', prec - 1, false);
    size_t epos = e.find('e');
    int x = std::atoi(e.c_str() + epos + 1);
    auto strip = [alt](std::string m) {
      if (!alt && m.find('.') != std::string::npos) {
        while (!m.empty() && m.back() == '0') m.pop_back();
        if (!m.empty() && m.back() == '.') m.pop_back();
      }
      return m;
    };
    if (x < -4 || x >= prec - 1) {
      std::string m = strip(e.substr(0, epos));
      if (alt && m.find('.') == std::string::npos) m += '.';
      return m + e.substr(epos);
    }
    std::string f = strip(c_format(ax, 'f', prec - 1 - x, alt));
    if (f.find('.') == std::string::npos) f += alt ? "." : ".0";
    return f;
  }
  return c_format(ax, type, prec, alt);
}

std::string big_digits(const BigInt& n, int base, bool upper) {
  if (base != 10) return n.magnitude_digits(base, upper);
  std::string s;
  int_str_append(s, n.is_negative() ? -n : n);
  return s;
}

void check_widths(int64_t width, int64_t numeric_precision, size_t max_bytes) {
  if ((width > 0 && static_cast<uint64_t>(width) > max_bytes) ||
      (numeric_precision > 0 && static_cast<uint64_t>(numeric_precision) > max_bytes))
    throw Error(ErrorKind::LimitError, "format width or precision exceeds the value size limit (" +
                                           std::to_string(max_bytes) + " bytes)");
}

void check_built(const std::string& out, size_t max_bytes) {
  if (out.size() > max_bytes)
    throw Error(ErrorKind::LimitError, "formatted string exceeds the value size limit (" +
                                           std::to_string(max_bytes) + " bytes)");
}

}  // namespace toolchat::pyformat::detail
