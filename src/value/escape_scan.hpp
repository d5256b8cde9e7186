// Finding the next byte a JSON string writer must look at: shared by json::dump_string and the
// dialects' streaming JSON reader (dialects/json_stream.cpp), whose plain runs are most of a text.
// Inline, because both call it once per escape in texts that have one every few dozen bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace toolchat::json {

inline bool needs_escape(unsigned char c, bool ensure_ascii) {
  return c < 0x20 || c == '"' || c == '\\' || (ensure_ascii && c >= 0x7F);
}

// The character a one-letter JSON escape stands for (`\n` -> '\n', `\/` -> '/'), or -1 for any
// other letter (`\u` included, which takes four hex digits after it).
inline int unescape_letter(unsigned char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return -1;
  }
}

// The value of a hex digit (0-9, a-f, A-F), or -1.
inline int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The code unit of the four hex digits at p (all present, as after `\u`), or -1.
inline int32_t hex4(const char* p) {
  int32_t v = 0;
  for (int k = 0; k < 4; ++k) {
    const int d = hex_digit(p[k]);
    if (d < 0) return -1;
    v = v << 4 | d;
  }
  return v;
}

// The first byte at or after i that needs escaping (a control, quote or backslash, and with
// ensure_ascii anything from DEL up), or n. 16 bytes at a time with SSE2, else 8 (SWAR).
inline size_t next_escape(const unsigned char* p, size_t i, size_t n, bool ensure_ascii) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i max_control = _mm_set1_epi8(0x1F), space = _mm_set1_epi8(0x20), tilde = _mm_set1_epi8(0x7E);
  for (; i + 16 <= n; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
    if (ensure_ascii)  // signed: bytes from 0x80 are negative, so below 0x20 too; DEL is above '~'
      special = _mm_or_si128(special, _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpgt_epi8(v, tilde)));
    else  // unsigned v <= 0x1F
      special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_min_epu8(v, max_control), v));
    if (int mask = _mm_movemask_epi8(special)) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  constexpr uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
  auto has_zero = [&](uint64_t x) { return (x - ones) & ~x & high; };
  for (;;) {
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      uint64_t special = ((w - ones * 0x20) & ~w & high) | has_zero(w ^ (ones * '"')) | has_zero(w ^ (ones * '\\'));
      if (ensure_ascii) special |= (w | (w + ones)) & high;  // >= 0x80, or 0x7F (+1 sets the high bit)
      if (special) break;
    }
    const size_t stop = n < i + 8 ? n : i + 8;
    for (; i < stop; ++i)
      if (needs_escape(p[i], ensure_ascii)) return i;
    if (i >= n) return n;
  }
}

}  // namespace toolchat::json
