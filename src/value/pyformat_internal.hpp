// Internal to the pyformat_*.cpp files: the parsed format spec and the number / padding
// layout that `format(value, spec)`, `%` and str.format share (CPython 3.11's
// unicode_format.h and formatter_unicode.c).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolchat/value.hpp"
#include "value/bigint.hpp"

namespace toolchat::pyformat::detail {

[[noreturn]] void value_error(std::string m);
[[noreturn]] void type_error(std::string m);

// Lower-case hex digits of c, no prefix.
std::string hex_lower(uint32_t c);

struct Spec {
  char32_t fill = 0;      // 0: not given
  char align = 0;         // 0: not given
  char sign = 0;
  bool no_neg_0 = false;
  bool alternate = false;
  int64_t width = -1;
  char sep = 0;           // ',' or '_'
  int group = 3;
  int64_t precision = -1;
  char32_t type = 0;
};

// calc_number_widths + fill_number: sign, prefix ("0x"), integer digits, remainder.
// Grouping::Spec: the digits take the spec's thousands separator.
enum class Grouping : bool { None, Spec };
std::string layout_number(bool neg, const std::string& prefix, const std::string& digits,
                          const std::string& rem, const Spec& sp, Grouping grouping = Grouping::Spec);
// s padded to the spec's width with its fill and alignment (default left).
std::string pad_str(const std::string& s, const Spec& sp);

// Digits of u in base 2..16, no sign or prefix.
std::string to_base(uint64_t u, int base, bool upper);
uint64_t uabs(int64_t v);
// Digits of a big int's magnitude; decimal has Python's 4300-digit str limit.
std::string big_digits(const BigInt& n, int base, bool upper);

// printf of a non-negative finite double with conversion `conv` (e f g E F G).
std::string c_format(double x, char conv, int64_t prec, bool alt);
// The digits of |x| for a Python float presentation type (e E f F g G r %), no sign.
// r: repr; BareG::AddDot0: a 'g' result gets ".0" when it has no '.'/'e' (no-type with precision).
enum class BareG : bool { AsIs, AddDot0 };
std::string float_body(double ax, char type, int64_t prec, bool alt, BareG bare_g);

// LimitError when a width or numeric precision (-1: none) exceeds max_bytes.
void check_widths(int64_t width, int64_t numeric_precision, size_t max_bytes);
// LimitError when what was built so far exceeds max_bytes.
void check_built(const std::string& out, size_t max_bytes);

// m[key] with Python's subscript semantics and errors for dict / list / tuple / str.
Value mapping_get(const Value& m, const Value& key);

}  // namespace toolchat::pyformat::detail
