// The injected DeepSeek-R1 style (docs/dialects.md §2.4) for models without working native tools: tools listed as
// JSON inside <available_tools>…</available_tools>, each call written as
// <tool_code>{"name": N, "arguments": {…}}</tool_code>; <think> reasoning first (R1 distills open
// inside it: ParseOptions::reasoning_open).
#include "dialects/gbnf.hpp"
#include "dialects/tagged_json.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, "<tool_code>")) s += 45;
  if (scan::has(src, "<available_tools>")) s += 20;
  return s;
}

std::string prompt(const Value& tools) {
  return "You can call tools. The available tools are listed as JSON inside <available_tools></available_tools>:\n"
         "<available_tools>\n" +
         scan::tools_json_lines(tools) +
         "</available_tools>\n\nThink first inside <think></think>. Then, to call a tool, write exactly:\n"
         "<tool_code>{\"name\": <tool-name>, \"arguments\": <args-json-object>}</tool_code>\n"
         "Write one <tool_code> block per call. Otherwise answer the user directly.";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  return std::make_unique<TaggedJsonParser>(o, std::vector<std::string_view>{"<tool_code>"},
                                            std::vector<std::string_view>{"</tool_code>"});
}

// One or more <tool_code>{"name", "arguments"}</tool_code> after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.rule("tool-code", literal("<tool_code>") + " " + ws + " " + b.call_object(tools) + " " + ws + " " + literal("</tool_code>"));
    return b.reasoning("<think>", "</think>") + " " + b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_deepseek_r1_xml() {
  static const Dialect d{"deepseek_r1_xml", {"r1_xml", "deepseek_r1_injected"},
                         "injected R1 style: <available_tools> JSON, calls in <tool_code>", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
