// ServiceNow Apriel 1.5 / 1.6 Thinker (llama.cpp models/templates/Apriel-1.6-15b-Thinker-fixed.jinja,
// unsloth-Apriel-1.5.jinja): the template documents its format in the tools prompt,
//   <tool_calls>[{"name": NAME, "arguments": {…}}, …]</tool_calls>
// after the answer text. The generation prompt ends with "Here are my reasoning steps:\n", so the
// output starts inside the reasoning (ParseOptions::reasoning_open), which "[BEGIN FINAL RESPONSE]"
// ends; Apriel 1.5 reasons inside <thinking>…</thinking> (llama.cpp's Apriel 1.5 parser); <|end|> ends
// the turn. Scanner: marked_json.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/marked_json.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<tool_calls>")) return 0;
  int s = 40;
  if (scan::has(src, "[BEGIN FINAL RESPONSE]")) s += 40;
  if (scan::has(src, "<|begin_assistant|>")) s += 10;
  return s;
}

std::string prompt(const Value& tools) {
  return "You are provided with function signatures within <available_tools></available_tools> XML tags.\n"
         "You may call one or more functions to assist with the user query.\n"
         "Here are the available tools:\n<available_tools>\n" +
         scan::tools_json_lines(tools) +
         "</available_tools>\n\nReturn all function calls as a list of JSON objects within <tool_calls></tool_calls> XML tags:\n"
         "<tool_calls>[{\"name\": <function-name>, \"arguments\": <args-dict>}]</tool_calls>";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  static const MarkedJsonStyle style{{{"<tool_calls>", "</tool_calls>", false, 0}},
                                     {{"Here are my reasoning steps:", "[BEGIN FINAL RESPONSE]"}, {"<thinking>", "</thinking>"}},
                                     {},
                                     {"<|end|>"}};
  return make_marked_json_parser(o, style);
}

// <tool_calls>[call, …]</tool_calls> after the reasoning (forced open by the generation prompt).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    return b.reasoning("Here are my reasoning steps:", "[BEGIN FINAL RESPONSE]") + " " + gbnf::literal("<tool_calls>") + " " + ws +
           " " + b.json_list(b.call_object(tools), "calls") + " " + ws + " " + gbnf::literal("</tool_calls>");
  });
}

}  // namespace

const Dialect& dialect_apriel() {
  static const Dialect d{"apriel", {"apriel_1_5", "apriel_1_6"},
                         "Apriel 1.5/1.6: reasoning then [BEGIN FINAL RESPONSE], <tool_calls>[json…]</tool_calls>",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
