// Exact integers beyond int64, as Python's int: sign + magnitude in base 2^32 limbs.
// Values that fit int64 stay plain Type::Int; only larger ones become a BigIntObj
// (Type::Object, ObjKind::BigInt), so every int64 code path is unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat {

class BigInt {
 public:
  BigInt() = default;  // zero
  explicit BigInt(int64_t v);

  // Digits only (no sign, no underscores), base 2..36; false on an invalid digit or empty text.
  static bool from_digits(std::string_view digits, int base, BigInt& out);
  // [+-]?[0-9]+ ; false on anything else.
  static bool from_decimal(std::string_view text, BigInt& out);
  // Truncated toward zero; d must be finite.
  static BigInt from_double(double d);

  bool is_zero() const { return mag_.empty(); }
  bool is_negative() const { return neg_; }
  int sign() const { return mag_.empty() ? 0 : (neg_ ? -1 : 1); }
  size_t bit_length() const;  // of the magnitude; 0 for zero
  bool fits_int64() const;
  int64_t to_int64() const;   // only when fits_int64()

  // Python float(n): correctly rounded; OverflowError "int too large to convert to float".
  double to_double() const;
  // Like to_double but without raising: false when the value exceeds the double range.
  bool to_double_checked(double& out) const;
  // Decimal text with '-' for negatives (no digit limit; see int_str_append for Python's).
  std::string to_decimal() const;
  // Digits of the magnitude in base 2..36 (lowercase unless upper), no sign, no limit.
  std::string magnitude_digits(int base, bool upper = false) const;
  // A lower bound of the number of decimal digits (cheap: from the bit length).
  size_t min_decimal_digits() const;
  size_t hash() const;  // equal to std::hash<double>(d) when exactly a double d

  BigInt operator-() const;
  friend BigInt operator+(const BigInt& a, const BigInt& b);
  friend BigInt operator-(const BigInt& a, const BigInt& b);
  friend BigInt operator*(const BigInt& a, const BigInt& b);  // LimitError past the size limit
  friend bool operator==(const BigInt& a, const BigInt& b) { return a.neg_ == b.neg_ && a.mag_ == b.mag_; }
  static int compare(const BigInt& a, const BigInt& b);  // -1, 0, 1
  // Exact comparison with a double (not NaN): -1, 0, 1.
  static int compare(const BigInt& a, double d);

  // Python divmod: q = floor(a / b), r = a - q*b (sign of b). b must be non-zero.
  static void divmod(const BigInt& a, const BigInt& b, BigInt& q, BigInt& r);
  // Python a / b for ints: correctly rounded; b non-zero.
  // OverflowError "integer division result too large for a float".
  static double truediv(const BigInt& a, const BigInt& b);
  // base ** e, e >= 0; LimitError "integer result exceeds the size limit" past ~1M bits.
  static BigInt pow(const BigInt& base, uint64_t e);
  // Bits of base ** e as pow() measures them for its size limit (log2|base| * e; 0 for 0 and 1).
  static double pow_bits(const BigInt& base, uint64_t e);

  BigInt shl(size_t bits) const;  // magnitude shifted left, sign kept

 private:
  bool neg_ = false;
  std::vector<uint32_t> mag_;  // little-endian limbs, no leading zero limbs; empty = 0

  void trim();
  static int cmp_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);
  static std::vector<uint32_t> add_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);
  static std::vector<uint32_t> sub_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);  // a >= b
  static void divmod_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                         std::vector<uint32_t>& q, std::vector<uint32_t>& r);
  static uint32_t divmod_small(std::vector<uint32_t>& a, uint32_t d);  // in place, returns remainder
  void mul_add_small(uint32_t m, uint32_t add);
};

// The largest result pow() accepts, in bits; multiplication accepts four times that.
constexpr size_t kBigIntMaxBits = size_t(1) << 20;
// Python's sys.get_int_max_str_digits() default (CPython 3.11).
constexpr size_t kIntMaxStrDigits = 4300;

struct BigIntObj final : Obj {
  BigInt n;
  explicit BigIntObj(BigInt v) : Obj(ObjKind::BigInt), n(std::move(v)) {}
  void append_repr(std::string& out) const override;  // digits, with Python's 4300-digit limit
};

// ---- Value glue ----
// An int Value: int64 when it fits, else a BigIntObj.
Value make_int(const BigInt& v);
// Int, Bool or BigInt value -> BigInt.
BigInt to_bigint(const Value& v);
inline const BigInt& bigint_of(const Value& v) { return v.as<BigIntObj>()->n; }
// str(n) appended: ValueError "Exceeds the limit (4300 digits) for integer string conversion;
// use sys.set_int_max_str_digits() to increase the limit" past 4300 digits.
void int_str_append(std::string& out, const BigInt& n);
// int(text) of a digit string (no sign): ValueError with Python's "value has N digits"
// message past 4300 digits (base 10 only).
void check_int_str_digits(size_t ndigits);
// "Python int too large to convert to C ssize_t" (OverflowError).
[[noreturn]] void throw_ssize_overflow();
// "cannot fit 'int' into an index-sized integer" (OverflowError).
[[noreturn]] void throw_index_overflow();

}  // namespace toolchat
