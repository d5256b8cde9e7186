// The Unicode classes tokenizer.json regexes and pre-tokenizers use, as Hugging Face tokenizers
// sees them (generated from the reference by tools/gen_tokenize_unicode.mjs: its Oniguruma has
// a newer Unicode than CPython's tables in src/value).
#pragma once

#include <cstdint>

namespace toolchat::tokenize::ucls {

enum : unsigned {
  L = 1u << 0, Lu = 1u << 1, Ll = 1u << 2, Lt = 1u << 3, Lm = 1u << 4, Lo = 1u << 5,
  M = 1u << 6, N = 1u << 7, Nd = 1u << 8, P = 1u << 9, S = 1u << 10,
  Space = 1u << 11,  // White_Space (regex \s, Rust char::is_whitespace)
  Word = 1u << 12,   // regex \w
};

unsigned classes_of_slow(char32_t c) noexcept;  // generated table

// ASCII answered from a small table built once; the rest from the generated one.
struct AsciiClasses {
  unsigned short v[128];
  AsciiClasses() noexcept {
    for (unsigned c = 0; c < 128; ++c) v[c] = static_cast<unsigned short>(classes_of_slow(c));
  }
};

inline unsigned classes_of(char32_t c) noexcept {
  static const AsciiClasses ascii;
  return c < 128 ? ascii.v[c] : classes_of_slow(c);
}

inline bool is(char32_t c, unsigned mask) noexcept { return (classes_of(c) & mask) != 0; }
inline bool is_space(char32_t c) noexcept { return is(c, Space); }

}  // namespace toolchat::tokenize::ucls
