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

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

enum class DeepSeekShape { V3, V31 };
std::unique_ptr<StreamParser> make_deepseek_parser(const ParseOptions& o, DeepSeekShape shape);

// Scores shared by the two dialects: does the template write V3's `function` + ```json form?
bool deepseek_template_has_calls(const std::string& src);
bool deepseek_template_is_v3_shape(const std::string& src);

}  // namespace toolchat::dialects
