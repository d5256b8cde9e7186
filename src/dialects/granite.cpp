// IBM Granite (docs/dialects.md §7.4): 3.x `<|tool_call|>[{"name", "arguments"}, …]` (no closing marker;
// vLLM also strips a plain `<tool_call>` before the list), 4.x Hermes-style
// `<tool_call>{…}</tool_call>`, and granite-20b-functioncalling `<function_call> {…}` (repeated for
// parallel calls). Reasoning: 3.3 `<think>…</think><response>…</response>` (the response tags are
// dropped) and 3.2 "Here is my thought process: … Here is my response: …". Scanner: marked_json.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/near_miss.hpp"
#include "dialects/marked_json.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  bool roles = scan::has(src, "<|start_of_role|>");
  if (scan::has(src, "<|tool_call|>")) return roles ? 80 : 60;
  if (roles && scan::has(src, "<tool_call>")) return 75;  // Granite 4 (hermes scores 65)
  if (scan::has(src, "<function_call>") && scan::has(src, "<|function_call_library|>")) return 70;
  return 0;
}

// What the Granite 3.x templates add to the default system message when tools are given (the tools
// themselves follow as tojson(indent=4) in an available_tools turn).
std::string prompt(const Value& tools) {
  return "You are a helpful assistant with access to the following tools. When a tool is required to answer the "
         "user's query, respond only with <|tool_call|> followed by a JSON list of tools used. If a tool does not exist "
         "in the provided list of tools, notify the user that you do not have the ability to fulfill the request.\n\n" +
         python_json(tools.is_list() ? tools : Value::list(), "    ");
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  static const MarkedJsonStyle style{
      {{"<|tool_call|>", "", true}, {"<tool_call>", "</tool_call>", true}, {"<function_call>", "", true}},
      // vLLM's granite reasoning parser also sees "Here's …" from quantized models.
      {{"<think>", "</think>"},
       {"Here is my thought process:", "Here is my response:"},
       {"Here's my thought process:", "Here's my response:"}},
      {"<response>", "</response>"},
      {"<|end_of_text|>"}};
  // A bare array of calls as the whole output (vLLM's Granite parser makes the marker optional),
  // or one in a ```json fence: recovered as a near miss (near_miss.hpp).
  return with_near_miss_recovery(make_marked_json_parser(o, style), o, NearMissForms::WholeOutput);
}

// <|tool_call|>[{"name", "arguments"}, …] (Granite 3.x), after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    return b.reasoning("<think>", "</think>") + " " + literal("<|tool_call|>") + " " + b.json_list(b.call_object(tools), "call-list");
  });
}

}  // namespace

const Dialect& dialect_granite() {
  static const Dialect d{"granite", {"granite3", "granite4", "granite-20b-fc", "granite_20b_fc"},
                         "IBM Granite: <|tool_call|>[…], <tool_call>{…}</tool_call>, <function_call> {…}", &score,
                         &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
