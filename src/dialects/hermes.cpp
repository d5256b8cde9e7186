// Hermes 2 Pro / Hermes 3 / Qwen2.5 / QwQ / Qwen3: <tool_call>\n{"name": N, "arguments": {…}}\n</tool_call>,
// repeated for parallel calls; <think>…</think> reasoning, forced open for QwQ (docs/dialects.md §3.1).
// <function_call>…</function_call> (a near-miss wrapper models emit) is accepted too; the other near-miss
// forms of small models are recovered by near_miss.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/interleaved_think.hpp"
#include "dialects/near_miss.hpp"
#include "dialects/tagged_json.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<tool_call>")) return 0;
  // Qwen3-Coder (<function=…><parameter=…>) and GLM-4.5 (<arg_key>) also use <tool_call>.
  if (scan::has(src, "<function=") || scan::has(src, "<parameter=") || scan::has(src, "<arg_key>")) return 10;
  int s = 50;
  if (scan::has(src, "<tools>")) s += 10;
  if (scan::has(src, "\"arguments\"") || scan::has(src, "arguments")) s += 5;
  return s;
}

std::string prompt(const Value& tools) {
  return "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
         "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
         scan::tools_json_lines(tools) +
         "</tools>\n\nFor each function call, return a json object with function name and arguments within "
         "<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": "
         "<args-json-object>}\n</tool_call>";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  // The near-miss forms of small models (near_miss.hpp) are recovered around the canonical parser.
  // Later <think> blocks (Qwen3's interleaved reasoning) go to reasoning_content.
  return with_near_miss_recovery(
      with_interleaved_think(std::make_unique<TaggedJsonParser>(
          o, std::vector<std::string_view>{"<tool_call>", "<function_call>"}, std::vector<std::string_view>{"</tool_call>", "</function_call>"})),
      o);
}

// One or more <tool_call> blocks (after an optional <think> block, possibly forced open), each a call object of a given tool.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    std::string call = b.rule("tool-call", "\"<tool_call>\" " + ws + " " + b.call_object(tools) + " " + ws + " \"</tool_call>\"");
    return b.reasoning("<think>", "</think>") + " " + b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_hermes() {
  static const Dialect d{"hermes", {"qwen", "qwen25", "qwen2_5", "qwen3", "qwq", "hermes2_pro"},
                         "Hermes/Qwen2.5/Qwen3/QwQ: JSON inside <tool_call>", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
