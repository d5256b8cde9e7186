// Shared by the families whose arguments are free text after a label rather than a delimited JSON
// value (ReAct "Action Input:", LLaMA-Factory "Action Input:", Qwen-Agent "✿ARGS✿:", ChatGLM3's
// code block): trimming, code-fence removal, and the mapping of non-JSON text to an arguments
// object, plus the tool-list lookups their tool prompts need.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::dialects::textargs {

std::string_view trim(std::string_view s);  // JSON whitespace at both ends
// "```lang\nBODY\n```" (or "```BODY```") -> BODY; anything else unchanged.
std::string_view strip_code_fence(std::string_view s);

// Free text given where a JSON object was expected becomes {KEY: text}, KEY being the first
// property of the tool's parameter schema (what LangChain does with a string tool input), or
// "input" when the tool or its schema is unknown.
Value free_text_object(const Value& tools, std::string_view tool_name, std::string_view text);
std::string free_text_key(const Value& tools, std::string_view tool_name);  // that KEY

// The parameters schema of tool `name`; null when unknown.
const Value* tool_parameters(const Value& tools, std::string_view name);

}  // namespace toolchat::dialects::textargs
