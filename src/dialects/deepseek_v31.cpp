// DeepSeek V3.1 / V3.1-Terminus (docs/dialects.md §2.2), and the V3.1-shaped templates vLLM ships for
// V3.2 (tool_chat_template_deepseekv32.jinja writes the same calls):
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>(<｜tool▁call▁begin｜>…)*<｜tool▁calls▁end｜>
// Calls are chained with no separator; reasoning is <think>…</think> (thinking mode: the prompt
// ends with <think>, so ParseOptions::reasoning_open). Parser shared with V3 (deepseek_calls.cpp).
#include "dialects/gbnf.hpp"
#include "dialects/deepseek_calls.hpp"
#include "dialects/scan.hpp"
#include "dialects/json_util.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!deepseek_template_has_calls(src) || deepseek_template_is_v3_shape(src)) return 0;
  int s = 60;
  // The V3.1 templates: '<｜tool▁call▁begin｜>' + name + '<｜tool▁sep｜>' + arguments, and the model
  // card's instruction text.
  if (scan::has(src, "'<｜tool▁sep｜>' + tool['function']['arguments']")) s += 15;
  if (scan::has(src, "tool_call_name<｜tool▁sep｜>tool_call_arguments")) s += 5;
  return s;
}

// The model card's tool section (also what vLLM's V3.1/V3.2 templates render).
std::string prompt(const Value& tools) {
  std::string out = "## Tools\nYou have access to the following tools:\n";
  for (const ToolFields& t : tool_fields(tools)) {
    out += "\n### " + t.name + "\nDescription: " + t.description + "\n\nParameters: " +
           (t.parameters.is_undefined() ? std::string("{}") : python_json(t.parameters)) + "\n";
  }
  out +=
      "\nIMPORTANT: ALWAYS adhere to this exact format for tool use:\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
      "tool_call_name<｜tool▁sep｜>tool_call_arguments<｜tool▁call▁end｜>{{additional_tool_calls}}<｜tool▁calls▁end｜>\n\n"
      "Where:\n\n- `tool_call_name` must be an exact match to one of the available tools\n- `tool_call_arguments` must be "
      "valid JSON that strictly follows the tool's Parameters Schema\n- For multiple tool calls, chain them directly "
      "without separators or spaces\n";
  return out;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return make_deepseek_parser(o, DeepSeekShape::V31); }

// Calls NAME<｜tool▁sep｜>{json} between the calls markers, after an optional reasoning block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.name_then_args(tools, "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>");
    return b.reasoning("<think>", "</think>") + " " + literal("<｜tool▁calls▁begin｜>") + " " + b.calls(call, ws) + " " + literal("<｜tool▁calls▁end｜>");
  });
}

}  // namespace

const Dialect& dialect_deepseek_v31() {
  static const Dialect d{"deepseek_v31", {"deepseekv31", "deepseek_v3_1", "deepseek-v3.1", "deepseek_v31_terminus"},
                         "DeepSeek V3.1/V3.1-Terminus NAME<｜tool▁sep｜>{json} calls", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
