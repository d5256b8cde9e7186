// Unicode normalization (NFC, NFD, NFKC, NFKD) over a NormStr, keeping each character's
// original range (a composed character keeps its starter's range, as HF does).
#pragma once

#include <cstddef>
#include <cstdint>

#include "tokenize/impl.hpp"

namespace toolchat::tokenize {

namespace norm_data {
struct Decomp {
  char32_t cp;
  uint8_t compat;  // 1: compatibility (NFKD) decomposition, 0: canonical
  uint32_t offset, len;
};
struct Ccc {
  char32_t cp;
  uint8_t ccc;
};
struct Compose {
  char32_t first, second, composed;
};
extern const char32_t kPool[];
extern const Decomp kDecomp[];
extern const size_t kDecompCount;
extern const Ccc kCcc[];
extern const size_t kCccCount;
extern const Compose kCompose[];
extern const size_t kComposeCount;
}  // namespace norm_data

// The four Unicode normalization forms: NFC {.compose}, NFD {}, NFKC {.compat, .compose}, NFKD {.compat}.
struct UnicodeForm {
  bool compat = false;   // compatibility decomposition (K forms)
  bool compose = false;  // canonical composition after decomposing (C forms)
};
void normalize_unicode(NormStr& t, UnicodeForm form);

// The Lowercase normalizer's exceptions to the engine's case table (lowercase_data.cpp, sorted).
struct LowercaseOverride {
  char32_t cp;
  uint8_t n;
  char32_t lower[3];
};
extern const LowercaseOverride kLowercaseOverrides[];
extern const size_t kLowercaseOverrideCount;

}  // namespace toolchat::tokenize
