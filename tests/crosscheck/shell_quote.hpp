// Shared by the cross-check programs that run node through popen/system.
#pragma once

#include <string>

namespace toolchat::testing {

// s as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace toolchat::testing
