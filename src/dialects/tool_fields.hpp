// The parts of an OpenAI tool list the tool prompts show: name, description, parameters schema.
// Accepts {"type": "function", "function": {…}} entries and bare {"name", …} ones; entries without a
// string name are skipped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::dialects {

struct ToolFields {
  std::string name;
  std::string description;
  bool has_description = false;  // the tool gives a string description (possibly empty)
  Value parameters;  // undefined when the tool has none
  // {"name", "description", "parameters"} (parameters left out when the tool has none).
  Value function_json() const;
};
std::vector<ToolFields> tool_fields(const Value& tools);
// The tools as bare function objects {"name", "description"[, "parameters"]} (ChatGLM3 and
// Phi-4-mini show tools this way, without the OpenAI {"type", "function"} wrapper).
Value function_objects(const Value& tools);

// The function object ({"name", …}) of tool `name`; null when the list has no such tool.
const Value* tool_function(const Value& tools, std::string_view name);
// Whether call names are checked against `tools`: only a non-empty tool list names tools.
bool names_checked(const Value& tools);
// Is a call to `name` kept as content (issue 12 §6: the request has tools and this is none of them)?
// An empty list offers no tools: nothing to check against. The output guard decides by this; the
// parsers ask too (their unknown-tool notice, GLM-4's bare name line, ReAct's separators).
bool call_kept_as_content(const Value& tools, std::string_view name);

}  // namespace toolchat::dialects
