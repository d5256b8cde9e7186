// The model's text as it wrote it, for requests where no tools were shown (no `tools`, or
// tool_choice "none"): a call-shaped answer is not a call then, and its text (markers included)
// is the answer's content, exactly as generated. Reasoning is still separated.
//
// The dialect's parser runs as usual; until it reports a call, its content and reasoning pass
// through (they are the model's own bytes) while the position they reach in the raw output is
// tracked. From the first call on, the raw output from that position is passed through as content
// and the parser's events are dropped.
#pragma once

#include <string>
#include <string_view>

#include "dialects/dialect.hpp"

namespace toolchat::gateway {

class AsWritten final : public dialects::Sink {
 public:
  explicit AsWritten(dialects::Sink& out) : out_(out) {}
  // Every piece of model output, before the parser is fed with it.
  void raw(std::string_view text);
  void on(dialects::Event&& e) override;

 private:
  void advance(const std::string& text);
  dialects::Sink& out_;
  std::string raw_;      // the output so far (until the first call)
  size_t pos_ = 0;       // how far of raw_ the passed-through events account for
  bool verbatim_ = false;
};

}  // namespace toolchat::gateway
