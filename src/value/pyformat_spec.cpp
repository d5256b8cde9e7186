// Python `format(value, spec)`: the format-spec mini-language for str / int / float (CPython 3.11).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "value/pyformat.hpp"
#include "value/pyformat_internal.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::pyformat {

using namespace detail;

namespace {

// "'q'" for printable ASCII, else "'\xNN'" (CPython's unknown_presentation_type).
std::string code_char(char32_t c) {
  if (c > 32 && c < 128) return std::string("'") + static_cast<char>(c) + "'";
  return "'\\x" + hex_lower(static_cast<uint32_t>(c)) + "'";
}

bool is_align(char32_t c) { return c == '<' || c == '>' || c == '=' || c == '^'; }

int64_t read_number(const std::u32string& s, size_t& i) {
  int64_t v = 0;
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    int d = static_cast<int>(s[i] - '0');
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10)
      value_error("Too many decimal digits in format string");
    v = v * 10 + d;
    ++i;
  }
  return i == start ? -1 : v;
}

// parse_internal_render_format_spec
Spec parse_spec(std::string_view spec_utf8, const char* type_name, char default_align,
                char32_t default_type) {
  std::u32string s = uni::decode(spec_utf8);
  Spec sp;
  size_t i = 0, n = s.size();
  bool align_given = false;
  if (n >= 2 && is_align(s[1])) {
    sp.fill = s[0];
    sp.align = static_cast<char>(s[1]);
    align_given = true;
    i = 2;
  } else if (n >= 1 && is_align(s[0])) {
    sp.align = static_cast<char>(s[0]);
    align_given = true;
    i = 1;
  }
  if (i < n && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = static_cast<char>(s[i++]);
  if (i < n && s[i] == 'z') { sp.no_neg_0 = true; ++i; }
  if (i < n && s[i] == '#') { sp.alternate = true; ++i; }
  if (sp.fill == 0 && i < n && s[i] == '0') {
    sp.fill = '0';
    if (!align_given && default_align == '>') sp.align = '=';
    ++i;
  }
  sp.width = read_number(s, i);
  if (i < n && s[i] == ',') { sp.sep = ','; ++i; }
  if (i < n && s[i] == '_') {
    if (sp.sep) value_error("Cannot specify both ',' and '_'.");
    sp.sep = '_';
    ++i;
  }
  if (i < n && s[i] == ',' && sp.sep == '_') value_error("Cannot specify both ',' and '_'.");
  if (i < n && s[i] == '.') {
    ++i;
    sp.precision = read_number(s, i);
    if (sp.precision < 0) value_error("Format specifier missing precision");
  }
  if (n - i > 1)
    value_error("Invalid format specifier '" + std::string(spec_utf8) + "' for object of type '" +
                type_name + "'");
  sp.type = i < n ? s[i] : default_type;
  if (sp.sep) {
    switch (sp.type) {
      case 'd': case 'e': case 'f': case 'g': case 'E': case 'G': case '%': case 'F': case 0:
        break;
      case 'b': case 'o': case 'x': case 'X':
        if (sp.sep == '_') { sp.group = 4; break; }
        [[fallthrough]];
      default:
        value_error(std::string("Cannot specify '") + sp.sep + "' with " + code_char(sp.type) + ".");
    }
  }
  if (!sp.fill) sp.fill = ' ';
  if (!sp.align) sp.align = default_align;
  return sp;
}

[[noreturn]] void unknown_code(char32_t t, const char* type_name) {
  value_error("Unknown format code " + code_char(t) + " for object of type '" + type_name + "'");
}

bool all_zero_digits(const std::string& body) {
  for (char c : body) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

// Splits a formatted magnitude into the integer digits and the rest (".5e+03", "%").
void split_digits(const std::string& body, std::string& digits, std::string& rem) {
  size_t k = 0;
  while (k < body.size() && body[k] >= '0' && body[k] <= '9') ++k;
  digits = body.substr(0, k);
  rem = body.substr(k);
}

std::string format_float_spec(double x, const Spec& sp_in) {
  Spec sp = sp_in;
  char type = static_cast<char>(sp.type);
  BareG bare_g = BareG::AsIs;
  int64_t prec = sp.precision;
  if (type == 0) { bare_g = BareG::AddDot0; type = 'r'; }
  if (type == 'n') type = 'g';
  bool pct = false;
  if (type == '%') { type = 'f'; x *= 100; pct = true; }
  if (prec < 0) prec = type == 'r' ? 0 : 6;
  else if (type == 'r') type = 'g';
  bool neg = std::signbit(x) && !std::isnan(x);
  std::string body = float_body(std::fabs(x), type, prec, sp.alternate, bare_g);
  if (neg && sp.no_neg_0 && std::isfinite(x) && all_zero_digits(body)) neg = false;
  if (pct) body += '%';
  std::string digits, rem;
  if (std::isfinite(x)) split_digits(body, digits, rem);
  else digits = body;
  return layout_number(neg, "", digits, rem, sp, std::isfinite(x) ? Grouping::Spec : Grouping::None);
}

std::string format_int_spec(int64_t v, const Spec& sp, const char* tname) {
  if (sp.precision >= 0) value_error("Precision not allowed in integer format specifier");
  if (sp.no_neg_0) value_error("Negative zero coercion (z) not allowed in integer format specifier");
  uint64_t u = uabs(v);
  std::string prefix, digits;
  switch (sp.type) {
    case 'c': {
      if (sp.sign) value_error("Sign not allowed with integer format specifier 'c'");
      if (sp.alternate) value_error("Alternate form (#) not allowed with integer format specifier 'c'");
      if (v < 0 || v > 0x10ffff) throw Error(ErrorKind::OverflowError, "%c arg not in range(0x110000)");
      Spec s2 = sp;
      return layout_number(false, "", uni::encode(static_cast<char32_t>(v)), "", s2, Grouping::None);
    }
    case 'b': digits = to_base(u, 2, false); if (sp.alternate) prefix = "0b"; break;
    case 'o': digits = to_base(u, 8, false); if (sp.alternate) prefix = "0o"; break;
    case 'x': digits = to_base(u, 16, false); if (sp.alternate) prefix = "0x"; break;
    case 'X': digits = to_base(u, 16, true); if (sp.alternate) prefix = "0X"; break;
    default: digits = to_base(u, 10, false); break;
  }
  (void)tname;
  return layout_number(v < 0, prefix, digits, "", sp);
}

// format(n, spec) of an int beyond int64 (as format_int_spec, or float types via float(n)).
std::string format_bigint_spec(const BigInt& n, const Spec& sp, const char* tname) {
  switch (sp.type) {
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
      return format_float_spec(n.to_double(), sp);
    case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n': case 0: break;
    default: unknown_code(sp.type, tname);
  }
  if (sp.precision >= 0) value_error("Precision not allowed in integer format specifier");
  if (sp.no_neg_0) value_error("Negative zero coercion (z) not allowed in integer format specifier");
  std::string prefix, digits;
  switch (sp.type) {
    case 'c':
      if (sp.sign) value_error("Sign not allowed with integer format specifier 'c'");
      if (sp.alternate) value_error("Alternate form (#) not allowed with integer format specifier 'c'");
      throw Error(ErrorKind::OverflowError, "Python int too large to convert to C long");
    case 'b': digits = big_digits(n, 2, false); if (sp.alternate) prefix = "0b"; break;
    case 'o': digits = big_digits(n, 8, false); if (sp.alternate) prefix = "0o"; break;
    case 'x': digits = big_digits(n, 16, false); if (sp.alternate) prefix = "0x"; break;
    case 'X': digits = big_digits(n, 16, true); if (sp.alternate) prefix = "0X"; break;
    default: digits = big_digits(n, 10, false); break;
  }
  return layout_number(n.is_negative(), prefix, digits, "", sp);
}

void check_str_spec(const Spec& sp, const char* tname) {
  if (sp.type != 's') unknown_code(sp.type, tname);
  if (sp.sign == ' ') value_error("Space not allowed in string format specifier");
  if (sp.sign) value_error("Sign not allowed in string format specifier");
  if (sp.no_neg_0) value_error("Negative zero coercion (z) not allowed in string format specifier");
  if (sp.alternate) value_error("Alternate form (#) not allowed in string format specifier");
  if (sp.align == '=') value_error("'=' alignment not allowed in string format specifier");
}

}  // namespace

std::string ascii_repr(const Value& v) {
  std::string r = py_repr(v);
  if (uni::is_ascii(r)) return r;
  std::string out;
  size_t i = 0;
  while (i < r.size()) {
    char32_t c = uni::decode_next(r, i);
    if (c < 0x80) { out.push_back(static_cast<char>(c)); continue; }
    char buf[16];
    if (c < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
    else if (c < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
    else std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
    out += buf;
  }
  return out;
}

std::string format_value(const Value& v, std::string_view spec, size_t max_bytes) {
  const char* tname = type_name(v);
  switch (v.type()) {
    case Type::Str: {
      if (spec.empty()) return std::string(v.str());
      Spec sp = parse_spec(spec, tname, '<', 's');
      check_str_spec(sp, tname);
      check_widths(sp.width, -1, max_bytes);
      std::string s(v.str());
      if (sp.precision >= 0 && pystr::length(s) > sp.precision) s = pystr::slice(s, 0, sp.precision);
      return pad_str(s, sp);
    }
    case Type::Bool:
    case Type::Int: {
      if (spec.empty()) return py_str(v);
      Spec sp = parse_spec(spec, tname, '>', 'd');
      check_widths(sp.width, sp.precision, max_bytes);
      switch (sp.type) {
        case 'b': case 'c': case 'd': case 'o': case 'x': case 'X': case 'n': case 0:
          return format_int_spec(v.int_like(), sp, tname);
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case '%':
          return format_float_spec(static_cast<double>(v.int_like()), sp);
        default: unknown_code(sp.type, tname);
      }
    }
    case Type::Float: {
      if (spec.empty()) return py_str(v);
      Spec sp = parse_spec(spec, tname, '>', 0);
      check_widths(sp.width, sp.precision, max_bytes);
      switch (sp.type) {
        case 0: case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'n': case '%':
          return format_float_spec(v.as_float(), sp);
        default: unknown_code(sp.type, tname);
      }
    }
    default:
      if (spec.empty()) return py_str(v);
      if (v.is_bigint()) {
        Spec sp = parse_spec(spec, tname, '>', 'd');
        check_widths(sp.width, sp.precision, max_bytes);
        return format_bigint_spec(bigint_of(v), sp, tname);
      }
      type_error(std::string("unsupported format string passed to ") + tname + ".__format__");
  }
}

}  // namespace toolchat::pyformat
