// The Llama 3.x parser shared by llama3_json and llama3_builtin (docs/dialects.md §5.1): the whole output
// is {"name": N, "parameters": {…}} (optionally after <|python_tag|>; "arguments" and
// {"type": "function", …} are accepted), recognised only at the start since it has no opening
// marker; several objects separated by ';' (SGLang's convention), concatenated, or in a JSON array
// give parallel calls; Llama 4's <|python_start|> is accepted. A JSON object that is not a call is
// content. With builtin tools, <|python_tag|> may also come after text and be followed by a builtin
// call `brave_search.call(query="…")` or raw code (python_tag.hpp).
#pragma once

#include <memory>
#include <string>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

std::unique_ptr<StreamParser> make_llama3_parser(const ParseOptions& o, bool builtin_tools);
// How much the template looks like a Llama 3.x JSON-calls template (llama3_json's score).
int llama3_template_score(const std::string& src);
// The official Llama 3.1 tool prompt (the JSON-calls instruction and one JSON line per tool).
std::string llama3_tool_prompt(const Value& tools);

}  // namespace toolchat::dialects
