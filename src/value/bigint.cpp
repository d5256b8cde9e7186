// Arbitrary-precision integers (see bigint.hpp): schoolbook multiplication, Knuth's
// algorithm D for division, base-10^9 chunks for decimal conversion.
#include "value/bigint.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace toolchat {

namespace {

[[noreturn]] void size_limit() {
  throw Error(ErrorKind::LimitError, "integer result exceeds the size limit");
}

constexpr uint32_t kChunk = 1000000000u;  // 10^9

}  // namespace

// ---- construction ----

BigInt::BigInt(int64_t v) {
  neg_ = v < 0;
  uint64_t u = neg_ ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  while (u) {
    mag_.push_back(static_cast<uint32_t>(u));
    u >>= 32;
  }
}

void BigInt::trim() {
  while (!mag_.empty() && mag_.back() == 0) mag_.pop_back();
  if (mag_.empty()) neg_ = false;
}

void BigInt::mul_add_small(uint32_t m, uint32_t add) {
  uint64_t carry = add;
  for (auto& limb : mag_) {
    uint64_t t = static_cast<uint64_t>(limb) * m + carry;
    limb = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  if (carry) mag_.push_back(static_cast<uint32_t>(carry));
}

bool BigInt::from_digits(std::string_view digits, int base, BigInt& out) {
  out = BigInt();
  if (digits.empty() || base < 2 || base > 36) return false;
  // Largest power of base that fits a limb multiplier, to take several digits per step.
  uint32_t step_pow = static_cast<uint32_t>(base);
  size_t per_step = 1;
  while (static_cast<uint64_t>(step_pow) * static_cast<uint64_t>(base) <= 0xFFFFFFFFull) {
    step_pow *= static_cast<uint32_t>(base);
    ++per_step;
  }
  size_t i = 0;
  while (i < digits.size()) {
    size_t take = std::min(per_step, digits.size() - i);
    uint32_t chunk = 0, mul = 1;
    for (size_t k = 0; k < take; ++k) {
      char c = digits[i + k];
      int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'z' ? c - 'a' + 10
              : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : 99;
      if (d >= base) return false;
      chunk = chunk * static_cast<uint32_t>(base) + static_cast<uint32_t>(d);
      mul *= static_cast<uint32_t>(base);
    }
    out.mul_add_small(take == per_step ? step_pow : mul, chunk);
    i += take;
  }
  out.trim();
  return true;
}

bool BigInt::from_decimal(std::string_view text, BigInt& out) {
  bool neg = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    neg = text[0] == '-';
    text.remove_prefix(1);
  }
  for (char c : text)
    if (c < '0' || c > '9') return false;
  if (!from_digits(text, 10, out)) return false;
  out.neg_ = neg && !out.mag_.empty();
  return true;
}

BigInt BigInt::from_double(double d) {
  double t = std::trunc(d);
  if (std::fabs(t) < 9223372036854775808.0) return BigInt(static_cast<int64_t>(t));
  int e = 0;
  double m = std::frexp(std::fabs(t), &e);  // t = m * 2^e, m in [0.5, 1)
  auto mant = static_cast<int64_t>(std::ldexp(m, 53));
  BigInt r = BigInt(mant).shl(static_cast<size_t>(e - 53));
  r.neg_ = t < 0;
  return r;
}

BigInt BigInt::shl(size_t bits) const {
  BigInt r;
  if (mag_.empty()) return r;
  size_t limbs = bits / 32;
  unsigned off = static_cast<unsigned>(bits % 32);
  r.mag_.assign(limbs, 0);
  uint32_t carry = 0;
  for (uint32_t limb : mag_) {
    r.mag_.push_back(off ? (limb << off) | carry : limb);
    carry = off ? limb >> (32 - off) : 0;
  }
  if (carry) r.mag_.push_back(carry);
  r.neg_ = neg_;
  return r;
}

// ---- queries ----

size_t BigInt::bit_length() const {
  if (mag_.empty()) return 0;
  return (mag_.size() - 1) * 32 + static_cast<size_t>(32 - __builtin_clz(mag_.back()));
}

bool BigInt::fits_int64() const {
  if (mag_.size() <= 1) return true;
  if (mag_.size() > 2) return false;
  uint64_t u = (static_cast<uint64_t>(mag_[1]) << 32) | mag_[0];
  return u <= static_cast<uint64_t>(INT64_MAX) || (neg_ && u == static_cast<uint64_t>(INT64_MAX) + 1);
}

int64_t BigInt::to_int64() const {
  uint64_t u = 0;
  if (!mag_.empty()) u = mag_[0];
  if (mag_.size() > 1) u |= static_cast<uint64_t>(mag_[1]) << 32;
  return neg_ ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
}

bool BigInt::to_double_checked(double& out) const {
  size_t n = bit_length();
  double d;
  if (n <= 64) {
    uint64_t u = 0;
    for (size_t k = 0; k < mag_.size(); ++k) u |= static_cast<uint64_t>(mag_[k]) << (32 * k);
    d = static_cast<double>(u);
  } else {
    // The top 64 bits with a sticky bit for everything below: one correct rounding.
    size_t shift = n - 64;
    size_t li = shift / 32;
    unsigned off = static_cast<unsigned>(shift % 32);
    unsigned __int128 acc = 0;
    for (size_t k = 0; k < 3 && li + k < mag_.size(); ++k)
      acc |= static_cast<unsigned __int128>(mag_[li + k]) << (32 * k);
    auto top = static_cast<uint64_t>(acc >> off);
    bool sticky = off && (mag_[li] & ((1u << off) - 1)) != 0;
    for (size_t k = 0; k < li && !sticky; ++k) sticky = mag_[k] != 0;
    if (sticky) top |= 1;
    d = std::ldexp(static_cast<double>(top), static_cast<int>(std::min<size_t>(shift, 4096)));
  }
  if (std::isinf(d)) return false;
  out = neg_ ? -d : d;
  return true;
}

double BigInt::to_double() const {
  double d;
  if (!to_double_checked(d)) throw Error(ErrorKind::OverflowError, "int too large to convert to float");
  return d;
}

uint32_t BigInt::divmod_small(std::vector<uint32_t>& a, uint32_t d) {
  uint64_t rem = 0;
  for (size_t i = a.size(); i-- > 0;) {
    uint64_t cur = (rem << 32) | a[i];
    a[i] = static_cast<uint32_t>(cur / d);
    rem = cur % d;
  }
  while (!a.empty() && a.back() == 0) a.pop_back();
  return static_cast<uint32_t>(rem);
}

std::string BigInt::to_decimal() const {
  if (mag_.empty()) return "0";
  std::vector<uint32_t> work = mag_;
  std::vector<uint32_t> chunks;
  while (!work.empty()) chunks.push_back(divmod_small(work, kChunk));
  std::string out;
  if (neg_) out += '-';
  out += std::to_string(chunks.back());
  char buf[16];
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%09u", chunks[i]);
    out += buf;
  }
  return out;
}

std::string BigInt::magnitude_digits(int base, bool upper) const {
  if (mag_.empty()) return "0";
  uint32_t chunk = static_cast<uint32_t>(base);
  size_t per = 1;
  while (static_cast<uint64_t>(chunk) * static_cast<uint64_t>(base) <= 0xFFFFFFFFull) {
    chunk *= static_cast<uint32_t>(base);
    ++per;
  }
  const char* alphabet = upper ? "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" : "0123456789abcdefghijklmnopqrstuvwxyz";
  std::vector<uint32_t> work = mag_;
  std::string rev;  // least significant digit first
  while (!work.empty()) {
    uint32_t r = divmod_small(work, chunk);
    for (size_t k = 0; k < per && (r || !work.empty()); ++k) {
      rev += alphabet[r % static_cast<uint32_t>(base)];
      r /= static_cast<uint32_t>(base);
    }
  }
  return std::string(rev.rbegin(), rev.rend());
}

size_t BigInt::min_decimal_digits() const {
  size_t n = bit_length();
  if (n == 0) return 1;
  // value >= 2^(n-1): digits >= floor((n-1) * log10(2)) + 1 (the factor is rounded down)
  return static_cast<size_t>(static_cast<double>(n - 1) * 0.30102999) + 1;
}

size_t BigInt::hash() const {
  double d;
  if (to_double_checked(d) && from_double(d) == *this) return std::hash<double>()(d);
  size_t h = neg_ ? 0x51ed27u : 0x2545f491u;
  for (uint32_t limb : mag_) h = (h ^ limb) * 1099511628211ull;
  return h;
}

// ---- comparison ----

int BigInt::cmp_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

int BigInt::compare(const BigInt& a, const BigInt& b) {
  if (a.neg_ != b.neg_) return a.neg_ ? -1 : 1;
  int c = cmp_mag(a.mag_, b.mag_);
  return a.neg_ ? -c : c;
}

int BigInt::compare(const BigInt& a, double d) {
  if (std::isinf(d)) return d > 0 ? -1 : 1;
  double f = std::floor(d);
  int c = compare(a, from_double(f));
  if (c != 0) return c;
  return d == f ? 0 : -1;  // a == floor(d) < d
}

// ---- arithmetic ----

std::vector<uint32_t> BigInt::add_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  const auto& x = a.size() >= b.size() ? a : b;
  const auto& y = a.size() >= b.size() ? b : a;
  std::vector<uint32_t> r(x.size() + 1);
  uint64_t carry = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    uint64_t t = static_cast<uint64_t>(x[i]) + (i < y.size() ? y[i] : 0) + carry;
    r[i] = static_cast<uint32_t>(t);
    carry = t >> 32;
  }
  r[x.size()] = static_cast<uint32_t>(carry);
  return r;
}

std::vector<uint32_t> BigInt::sub_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  std::vector<uint32_t> r(a.size());
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t t = static_cast<int64_t>(a[i]) - (i < b.size() ? b[i] : 0) - borrow;
    borrow = t < 0;
    r[i] = static_cast<uint32_t>(t);
  }
  return r;
}

BigInt BigInt::operator-() const {
  BigInt r = *this;
  if (!r.mag_.empty()) r.neg_ = !r.neg_;
  return r;
}

BigInt operator+(const BigInt& a, const BigInt& b) {
  BigInt r;
  if (a.neg_ == b.neg_) {
    r.mag_ = BigInt::add_mag(a.mag_, b.mag_);
    r.neg_ = a.neg_;
  } else if (BigInt::cmp_mag(a.mag_, b.mag_) >= 0) {
    r.mag_ = BigInt::sub_mag(a.mag_, b.mag_);
    r.neg_ = a.neg_;
  } else {
    r.mag_ = BigInt::sub_mag(b.mag_, a.mag_);
    r.neg_ = b.neg_;
  }
  r.trim();
  return r;
}

BigInt operator-(const BigInt& a, const BigInt& b) { return a + (-b); }

BigInt operator*(const BigInt& a, const BigInt& b) {
  BigInt r;
  if (a.is_zero() || b.is_zero()) return r;
  if (a.bit_length() + b.bit_length() > 4 * kBigIntMaxBits) size_limit();
  r.mag_.assign(a.mag_.size() + b.mag_.size(), 0);
  for (size_t i = 0; i < a.mag_.size(); ++i) {
    uint64_t carry = 0, ai = a.mag_[i];
    for (size_t j = 0; j < b.mag_.size(); ++j) {
      uint64_t t = ai * b.mag_[j] + r.mag_[i + j] + carry;
      r.mag_[i + j] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    r.mag_[i + b.mag_.size()] = static_cast<uint32_t>(carry);
  }
  r.neg_ = a.neg_ != b.neg_;
  r.trim();
  return r;
}

// Knuth, TAOCP vol. 2, 4.3.1 algorithm D (as in Hacker's Delight's divmnu).
void BigInt::divmod_mag(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                        std::vector<uint32_t>& q, std::vector<uint32_t>& r) {
  if (cmp_mag(a, b) < 0) {
    q.clear();
    r = a;
    return;
  }
  if (b.size() == 1) {
    q = a;
    uint32_t rem = divmod_small(q, b[0]);
    r.clear();
    if (rem) r.push_back(rem);
    return;
  }
  const size_t n = b.size(), m = a.size() - n;
  const unsigned s = static_cast<unsigned>(__builtin_clz(b.back()));
  std::vector<uint32_t> bn(n), an(a.size() + 1);
  for (size_t i = n - 1; i > 0; --i)
    bn[i] = s ? (b[i] << s) | (b[i - 1] >> (32 - s)) : b[i];
  bn[0] = b[0] << s;
  an[a.size()] = s ? a.back() >> (32 - s) : 0;
  for (size_t i = a.size() - 1; i > 0; --i)
    an[i] = s ? (a[i] << s) | (a[i - 1] >> (32 - s)) : a[i];
  an[0] = a[0] << s;
  q.assign(m + 1, 0);
  const uint64_t base = uint64_t(1) << 32;
  for (size_t j = m + 1; j-- > 0;) {
    uint64_t num = (static_cast<uint64_t>(an[j + n]) << 32) | an[j + n - 1];
    uint64_t qhat = num / bn[n - 1], rhat = num % bn[n - 1];
    while (qhat >= base || qhat * bn[n - 2] > ((rhat << 32) | an[j + n - 2])) {
      --qhat;
      rhat += bn[n - 1];
      if (rhat >= base) break;
    }
    int64_t borrow = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t p = qhat * bn[i] + carry;
      carry = p >> 32;
      int64_t t = static_cast<int64_t>(an[i + j]) - borrow - static_cast<int64_t>(p & 0xFFFFFFFFu);
      an[i + j] = static_cast<uint32_t>(t);
      borrow = t < 0 ? 1 : 0;
    }
    int64_t t = static_cast<int64_t>(an[j + n]) - borrow - static_cast<int64_t>(carry);
    an[j + n] = static_cast<uint32_t>(t);
    if (t < 0) {  // qhat was one too large: add the divisor back
      --qhat;
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t sum = static_cast<uint64_t>(an[i + j]) + bn[i] + c;
        an[i + j] = static_cast<uint32_t>(sum);
        c = sum >> 32;
      }
      an[j + n] = static_cast<uint32_t>(an[j + n] + c);
    }
    q[j] = static_cast<uint32_t>(qhat);
  }
  r.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    r[i] = s ? (an[i] >> s) | (an[i + 1] << (32 - s)) : an[i];
  while (!q.empty() && q.back() == 0) q.pop_back();
  while (!r.empty() && r.back() == 0) r.pop_back();
}

void BigInt::divmod(const BigInt& a, const BigInt& b, BigInt& q, BigInt& r) {
  BigInt qq, rr;
  divmod_mag(a.mag_, b.mag_, qq.mag_, rr.mag_);
  qq.neg_ = a.neg_ != b.neg_;
  rr.neg_ = a.neg_;
  qq.trim();
  rr.trim();
  if (!rr.is_zero() && a.neg_ != b.neg_) {  // floor, not truncation
    qq = qq - BigInt(1);
    rr = rr + b;
  }
  q = std::move(qq);
  r = std::move(rr);
}

double BigInt::truediv(const BigInt& a, const BigInt& b) {
  bool neg = a.neg_ != b.neg_;
  if (a.is_zero()) return neg ? -0.0 : 0.0;
  size_t na = a.bit_length(), nb = b.bit_length();
  if (na <= 53 && nb <= 53)  // both exact as doubles: one correctly rounded division
    return static_cast<double>(a.to_int64()) / static_cast<double>(b.to_int64());
  const auto k = static_cast<int64_t>(na) - static_cast<int64_t>(nb);  // |a/b| in [2^(k-1), 2^(k+1))
  if (k > 1025) throw Error(ErrorKind::OverflowError, "integer division result too large for a float");
  if (k < -1080) return neg ? -0.0 : 0.0;
  // q = |a| * 2^s // |b| has 55 or 56 bits; the remainder is the sticky bit.
  const int64_t s = 55 - k;
  BigInt A, B;
  A.mag_ = a.mag_;
  B.mag_ = b.mag_;
  if (s > 0) A = A.shl(static_cast<size_t>(s));
  else if (s < 0) B = B.shl(static_cast<size_t>(-s));
  std::vector<uint32_t> q, r;
  divmod_mag(A.mag_, B.mag_, q, r);
  uint64_t qv = 0;
  for (size_t i = 0; i < q.size() && i < 2; ++i) qv |= static_cast<uint64_t>(q[i]) << (32 * i);
  bool sticky = !r.empty();
  const int64_t qbits = 64 - __builtin_clzll(qv);
  const int64_t ulp = std::max<int64_t>(-s + qbits - 53, -1074);  // exponent of the last kept bit
  const int64_t drop = ulp + s;
  double res;
  if (drop <= 0) {
    res = std::ldexp(static_cast<double>(qv), static_cast<int>(-s));
  } else if (drop >= 64) {
    res = 0.0;
  } else {
    uint64_t keep = qv >> drop, rem = qv & ((uint64_t(1) << drop) - 1), half = uint64_t(1) << (drop - 1);
    if (rem > half || (rem == half && (sticky || (keep & 1)))) ++keep;
    res = std::ldexp(static_cast<double>(keep), static_cast<int>(ulp));
  }
  if (std::isinf(res)) throw Error(ErrorKind::OverflowError, "integer division result too large for a float");
  return neg ? -res : res;
}

double BigInt::pow_bits(const BigInt& base, uint64_t e) {
  size_t bits = base.bit_length();
  if (bits <= 1) return 0;
  double lg = bits <= 1000 ? std::log2(std::fabs(base.to_double())) : static_cast<double>(bits - 1);
  return lg * static_cast<double>(e);
}

BigInt BigInt::pow(const BigInt& base, uint64_t e) {
  if (e == 0) return BigInt(1);
  if (base.is_zero()) return BigInt();
  if (base.mag_.size() == 1 && base.mag_[0] == 1) return (base.neg_ && (e & 1)) ? BigInt(-1) : BigInt(1);
  if (pow_bits(base, e) > static_cast<double>(kBigIntMaxBits)) size_limit();
  BigInt result(1), b = base;
  for (;;) {
    if (e & 1) result = result * b;
    e >>= 1;
    if (!e) break;
    b = b * b;
  }
  return result;
}

// ---- Value glue ----

void BigIntObj::append_repr(std::string& out) const { int_str_append(out, n); }

Value make_int(const BigInt& v) {
  if (v.fits_int64()) return Value::integer(v.to_int64());
  return Value(new BigIntObj(v));
}

BigInt to_bigint(const Value& v) {
  if (v.is_bigint()) return bigint_of(v);
  return BigInt(v.int_like());
}

[[noreturn]] static void str_limit() {
  throw Error(ErrorKind::ValueError,
              "Exceeds the limit (4300 digits) for integer string conversion; "
              "use sys.set_int_max_str_digits() to increase the limit");
}

void int_str_append(std::string& out, const BigInt& n) {
  if (n.min_decimal_digits() > kIntMaxStrDigits) str_limit();
  std::string s = n.to_decimal();
  if (s.size() - (n.is_negative() ? 1 : 0) > kIntMaxStrDigits) str_limit();
  out += s;
}

void check_int_str_digits(size_t ndigits) {
  if (ndigits > kIntMaxStrDigits)
    throw Error(ErrorKind::ValueError,
                "Exceeds the limit (4300 digits) for integer string conversion: value has " +
                    std::to_string(ndigits) + " digits; use sys.set_int_max_str_digits() to increase the limit");
}

void throw_ssize_overflow() {
  throw Error(ErrorKind::OverflowError, "Python int too large to convert to C ssize_t");
}

void throw_index_overflow() {
  throw Error(ErrorKind::OverflowError, "cannot fit 'int' into an index-sized integer");
}

int64_t Value::int_like_slow() const {
  if (t_ == Type::Bool) return u_.b ? 1 : 0;
  if (is_bigint()) throw_ssize_overflow();
  return u_.i;
}

double Value::bigint_to_double() const {
  if (is_bigint()) return bigint_of(*this).to_double();
  return static_cast<double>(u_.i);
}

}  // namespace toolchat
