// The <｜tool▁calls▁begin｜> block shared by DeepSeek V3/R1 (docs/dialects.md §2.1) and V3.1 (§2.2):
//   V3:   <｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>
//   V3.1: <｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>
// inside <｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>, with the distill marker variants llama.cpp
// accepts (`_`, space and `\_` for `▁`, <｜tool▁calls｜>, the call-begin marker and the code fence
// optional) and <think> reasoning (forced open via ParseOptions::reasoning_open). The two shapes
// differ only in what stands before <｜tool▁sep｜>: the type word `function` (V3; the name follows on
// the same line) or the name itself (V3.1; the JSON follows at once).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

// The calls of a DeepSeek tool calls block (V3/V3.1 and V3.2's DSML): when a later call in the block
// is not a call, the block cannot be recovered whole and the whole-message result has it as content
// whole (issue 12 §4). Streamed events cannot be taken back, so the block's calls are cut: cut()
// sends a MalformedCall warning per call, the first carrying the block's text up to the bad call
// (from its open marker); the bad call's own text follows it as content.
struct DeepSeekBlock {
  size_t first = 0;  // the index of the block's first call
  size_t calls = 0;  // the block's calls so far
  std::string text;  // the block's text up to the call being read
  void start(size_t first_call) {
    first = first_call;
    calls = 0;
    text.clear();
  }
  void add_call(std::string_view call_text) {
    ++calls;
    text += call_text;
  }
  void cut(Sink& sink);
};

enum class DeepSeekShape { V3, V31 };
std::unique_ptr<StreamParser> make_deepseek_parser(const ParseOptions& o, DeepSeekShape shape);

// Scores shared by the two dialects: does the template write V3's `function` + ```json form?
bool deepseek_template_has_calls(const std::string& src);
bool deepseek_template_is_v3_shape(const std::string& src);

}  // namespace toolchat::dialects
