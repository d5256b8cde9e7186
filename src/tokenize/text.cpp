// Text helpers of the tokenizer: code point decoding with byte offsets, the lossy UTF-8 decode
// of Rust's String::from_utf8_lossy, the ByteLevel alphabet and pattern matching.
#include <array>

#include "tokenize/impl.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

void decode_cps(std::string_view s, std::u32string& cps, std::vector<uint32_t>& cp_byte) {
  cps.resize(s.size());  // at most one code point per byte; cut to size below
  cp_byte.resize(s.size() + 1);
  size_t i = 0, n = 0;
  while (i < s.size()) {
    cp_byte[n] = static_cast<uint32_t>(i);
    const unsigned char b = static_cast<unsigned char>(s[i]);
    cps[n++] = b < 0x80 ? (++i, char32_t(b)) : uni::decode_next(s, i);
  }
  cp_byte[n] = static_cast<uint32_t>(s.size());
  cps.resize(n);
  cp_byte.resize(n + 1);
}

std::string utf8_lossy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  const size_t n = s.size();
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  while (i < n) {
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) {
      out.push_back(static_cast<char>(b0));
      ++i;
      continue;
    }
    // Length and the valid range of the second byte (Unicode's "maximal subpart" rule).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
    else if (b0 == 0xE0) { len = 3; lo = 0xA0; }
    else if (b0 >= 0xE1 && b0 <= 0xEC) len = 3;
    else if (b0 == 0xED) { len = 3; hi = 0x9F; }
    else if (b0 >= 0xEE && b0 <= 0xEF) len = 3;
    else if (b0 == 0xF0) { len = 4; lo = 0x90; }
    else if (b0 >= 0xF1 && b0 <= 0xF3) len = 4;
    else if (b0 == 0xF4) { len = 4; hi = 0x8F; }
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    size_t k = 1;
    bool ok = true;
    for (; k < len; ++k) {
      if (i + k >= n) { ok = false; break; }
      const unsigned char b = byte(i + k);
      const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
      if (b < l || b > h) { ok = false; break; }
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      i += k;
    }
  }
  return out;
}

namespace {
struct ByteLevelTables {
  std::array<char32_t, 256> to_char{};
  ByteLevelTables() {
    char32_t extra = 256;
    for (unsigned b = 0; b < 256; ++b) {
      const bool keep = (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      to_char[b] = keep ? char32_t(b) : extra++;
    }
  }
};
const ByteLevelTables& byte_level_tables() {
  static const ByteLevelTables t;
  return t;
}
}  // namespace

char32_t byte_level_char(unsigned char b) { return byte_level_tables().to_char[b]; }

int byte_level_byte(char32_t c) {
  // Inverse of the alphabet: every ByteLevel character is below U+0144.
  static const std::array<int16_t, 0x144> inverse = [] {
    std::array<int16_t, 0x144> inv{};
    inv.fill(-1);
    for (unsigned b = 0; b < 256; ++b) inv[byte_level_tables().to_char[b]] = static_cast<int16_t>(b);
    return inv;
  }();
  return c < inverse.size() ? inverse[c] : -1;
}

void Pattern::find_all(const char32_t* cps, size_t n,
                       std::vector<std::pair<size_t, size_t>>& out) const {
  if (regex) {
    regex->find_all(cps, n, out);
    return;
  }
  const size_t m = literal.size();
  if (m == 0) return;
  size_t i = 0;
  while (i + m <= n) {
    if (cps[i] == literal[0] && std::u32string_view(cps + i, m) == literal) {
      out.emplace_back(i, i + m);
      i += m;
    } else {
      ++i;
    }
  }
}

}  // namespace toolchat::tokenize
