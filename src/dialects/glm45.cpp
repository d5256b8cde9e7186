// GLM-4.5 / 4.6 / 4.7 (docs/dialects.md §4.3):
//   <tool_call>NAME\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>
// (4.7 without the newlines; spaces or the two characters "\n" seen instead of newlines), one call
// per block, blocks repeated for parallel calls. Values are text trimmed of surrounding whitespace
// and typed by the tool schema; unlike Qwen3-Coder, "null" stays text for string parameters (vLLM
// glm4_moe). <think>…</think> reasoning, possibly after a leading newline.
#include "dialects/gbnf.hpp"
#include "dialects/interleaved_think.hpp"
#include "dialects/xml_calls.hpp"

namespace toolchat::dialects {
namespace {

const XmlSyntax& syntax() {
  static const XmlSyntax s = [] {
    XmlSyntax x;
    x.block_open = {"<tool_call>"};
    x.block_close = "</tool_call>";
    x.call_open = "";
    x.name_end = {"\n", "\\n", "<arg_key>", "</tool_call>"};
    x.call_close = "";
    x.param_open = "<arg_key>";
    x.param_name_end = "</arg_key>";
    x.value_open = "<arg_value>";
    x.param_close = "</arg_value>";
    x.literal_newlines = true;
    x.trim = schema::Trim::Whitespace;
    x.rules.null_text_is_null = false;
    return x;
  }();
  return s;
}

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<arg_key>") || !scan::has(src, "<arg_value>")) return 0;
  int s = 70;
  if (scan::has(src, "<tool_call>")) s += 15;
  return s;
}

std::string prompt(const Value& tools) {
  return "# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
         "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n" +
         scan::tools_json_lines(tools) +
         "</tools>\n\nFor each function call, output the function name and arguments within the following XML "
         "format:\n<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n"
         "<arg_key>{arg-key-2}</arg_key>\n<arg_value>{arg-value-2}</arg_value>\n...\n</tool_call>";
}

// Later <think> blocks (interleaved reasoning) are moved to reasoning_content by the wrapper.
std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  return with_interleaved_think(std::make_unique<XmlCallParser>(o, syntax()));
}

// <tool_call>NAME<arg_key>KEY</arg_key><arg_value>value</arg_value>…</tool_call>, after an optional
// <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    auto arg = [&](const std::string& key, const std::string& value) {
      return literal("<arg_key>") + " " + key + " " + literal("</arg_key>") + " " + ws + " " + literal("<arg_value>") + " " + value +
             " " + literal("</arg_value>");
    };
    // A value ends at its close tag, the next key or the block's end (the parser's value ends).
    gbnf::ValueText form{{"</arg_value>", "<arg_key>", "</tool_call>"}, syntax().trim, "", ""};
    std::string call = b.per_tool_params(tools, "call", [&](const std::string& name, const Value& params) {
      return literal("<tool_call>" + name) + " " + ws + " " + b.arg_elements(params, name + "-params", form, arg) +
             " " + ws + " " + literal("</tool_call>");
    });
    return b.reasoning("<think>", "</think>") + " " + b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_glm45() {
  static const Dialect d{"glm45", {"glm", "glm4_moe", "glm46", "glm47", "glm4_5"},
                         "GLM-4.5/4.6/4.7: <tool_call>N<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
