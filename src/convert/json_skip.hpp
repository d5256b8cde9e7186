// Passing over JSON text without reading it: where a string or a value ends, for the readers that
// only need a line's layout (the row reader's member cut, the line path's skeleton scan). They
// never decide that a text is valid JSON: what they pass over is parsed by json::parse elsewhere,
// or belongs to a line whose layout equals that of a line json::parse read.
#pragma once

#include <cstddef>
#include <string_view>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "value/escape_scan.hpp"

namespace toolchat::convert::skip {

inline bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

inline size_t spaces(std::string_view s, size_t i) {
  while (i < s.size() && space(s[i])) ++i;
  return i;
}

// The end (one past the closing quote) of the string whose opening quote is at s[i], or npos.
inline size_t string_end(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (++i;;) {
    i = json::next_escape(p, i, s.size(), false);  // a quote, a backslash or a control character
    if (i >= s.size()) return std::string_view::npos;
    if (s[i] == '"') return i + 1;
    i += s[i] == '\\' ? 2 : 1;  // a control character is the value's own parse's to refuse
  }
}

// The next quote or bracket at or after i, or the end.
inline size_t next_structural(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('['), close = _mm_set1_epi8(']');
  const __m128i brace_bit = _mm_set1_epi8(0x20);  // '{' and '}' are '[' and ']' with 0x20 set
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i folded = _mm_andnot_si128(brace_bit, v);
    const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                     _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (int mask = _mm_movemask_epi8(hit)) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < s.size(); ++i)
    if (s[i] == '"' || s[i] == '{' || s[i] == '}' || s[i] == '[' || s[i] == ']') return i;
  return s.size();
}

// The end of the value starting at s[i], for a well-formed one (npos where it cannot be found);
// a container nested deeper than `max_depth` is npos too. What it does not check (a malformed
// value inside brackets, a misspelled literal) the value's own parse finds.
inline size_t value_end(std::string_view s, size_t i, size_t max_depth = static_cast<size_t>(-1)) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return string_end(s, i);
  if (s[i] == '{' || s[i] == '[') {
    size_t depth = 0;
    for (i = next_structural(s, i); i < s.size(); i = next_structural(s, i)) {
      const char c = s[i];
      if (c == '"') {
        i = string_end(s, i);
        if (i == std::string_view::npos) return i;
      } else if (c == '{' || c == '[') {
        if (++depth > max_depth) return std::string_view::npos;
        ++i;
      } else {
        if (--depth == 0) return i + 1;
        ++i;
      }
    }
    return std::string_view::npos;
  }
  while (i < s.size() && !space(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
  return i;
}

}  // namespace toolchat::convert::skip
