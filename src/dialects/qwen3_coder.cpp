// Qwen3-Coder / Qwen3.5 / Step-3.5 (docs/dialects.md §3.2):
//   <tool_call>\n<function=NAME>\n<parameter=k>\nvalue\n</parameter>\n</function>\n</tool_call>
// values are text typed by the tool schema (one '\n' trimmed each side; "null" is null), several
// <function=…> blocks may share one <tool_call>, and a bare <function=…> without <tool_call> is a
// call too (vLLM's fallback), and so is Hermes-style JSON inside <tool_call>. <think>…</think>
// reasoning (Qwen3.5).
#include "dialects/gbnf.hpp"
#include "dialects/interleaved_think.hpp"
#include "dialects/xml_calls.hpp"

namespace toolchat::dialects {
namespace {

const XmlSyntax& syntax() {
  static const XmlSyntax s = [] {
    XmlSyntax x = function_parameter_syntax("<tool_call>", "</tool_call>");
    x.bare_calls = true;
    x.json_in_block = true;  // Qwen3.5 finetunes trained on Hermes data write JSON here too
    return x;
  }();
  return s;
}

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<function=") || !scan::has(src, "<parameter=")) return 0;
  int s = 60;
  if (scan::has(src, "<tool_call>")) s += 20;
  if (scan::has(src, "</parameter>")) s += 5;
  return s;
}

std::string prompt(const Value& tools) {
  return "# Tools\n\nYou have access to the following functions:\n\n<tools>\n" + scan::tools_json_lines(tools) +
         "</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
         "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
         "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
         "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
         "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested "
         "within <tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n"
         "- You may provide optional reasoning for your function call in natural language BEFORE the function call, "
         "but NOT after\n- If there is no function call available, answer the question like normal with your current "
         "knowledge and do not tell the user about function calls\n</IMPORTANT>";
}

// Later <think> blocks (interleaved reasoning) are moved to reasoning_content by the wrapper.
std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  return with_interleaved_think(std::make_unique<XmlCallParser>(o, syntax()));
}

// <tool_call><function=NAME><parameter=KEY>value</parameter>…</function></tool_call>, parameters from
// the schema (string values raw, others JSON), after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    std::string call = b.function_parameter_call(tools, "<tool_call>", "</tool_call>");
    return b.reasoning("<think>", "</think>") + " " + b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_qwen3_coder() {
  static const Dialect d{"qwen3_coder", {"qwen3_xml", "qwen3coder", "step3p5", "qwen3_5"},
                         "Qwen3-Coder/Qwen3.5/Step-3.5: <tool_call><function=N><parameter=k>v</parameter>",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
