// Interleaved reasoning (issue 12 §4): GLM-4.5 and Qwen3 may open a new <think>…</think> block
// between calls or paragraphs, after the one the output starts with. The family's parser reads the
// first block; this wraps it and moves any later block out of the content it emits into
// reasoning_content (a block left open at the end is reasoning, with an unclosed_reasoning warning).
// Only bytes that could still be the start of a tag are held.
#pragma once

#include <memory>
#include <string_view>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

std::unique_ptr<StreamParser> with_interleaved_think(std::unique_ptr<StreamParser> inner, std::string_view open = "<think>",
                                                     std::string_view close = "</think>");

}  // namespace toolchat::dialects
