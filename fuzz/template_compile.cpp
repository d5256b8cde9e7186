// Any bytes as a template source: compile either succeeds or throws toolchat::Error.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common.hpp"
#include "toolchat/jinja.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view src(reinterpret_cast<const char*>(data), size);
  toolchat::jinja::EngineLimits lim;
  // Compile-time constant folding evaluates under this budget too; the small one of the render
  // targets keeps each input fast under the sanitizers (the default allows ~0.4 s of work in a
  // release build, several seconds under ASan: a timeout, not a finding).
  lim.max_steps = 1'000'000;
  toolchat::fuzz::expect_only_toolchat_errors("compile", [&] {
    auto t = toolchat::jinja::Template::compile(src, "fuzz", lim);
    (void)t;
  });
  return 0;
}
