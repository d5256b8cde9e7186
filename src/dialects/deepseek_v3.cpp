// DeepSeek V3 / V3-0324 / R1 / R1-0528 (docs/dialects.md §2.1):
//   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>
//   (\n<｜tool▁call▁begin｜>…)*<｜tool▁calls▁end｜>
// The parser (deepseek_calls.cpp) is shared with V3.1; this file holds what is V3's own: the
// template score and the tool prompt.
#include "dialects/gbnf.hpp"
#include "dialects/deepseek_calls.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!deepseek_template_has_calls(src)) return 0;
  // V3.1/V3.2 templates write NAME<｜tool▁sep｜>ARGS without the type word or a fence (deepseek_v31).
  if (!deepseek_template_is_v3_shape(src)) return 30;
  int s = 75;
  if (scan::has(src, "'<｜tool▁sep｜>' + tool['function']['name']") || scan::has(src, "function<｜tool▁sep｜>")) s += 5;
  return s;
}

std::string prompt(const Value& tools) {
  return "## Tools\nYou have access to the following tools:\n\n" + scan::tools_json_lines(tools) +
         "\nIMPORTANT: to call tools, write exactly:\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
         "TOOL_NAME\n```json\nARGUMENTS_JSON_OBJECT\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>\n"
         "For several calls, put one <｜tool▁call▁begin｜>…<｜tool▁call▁end｜> per call, separated by a newline, "
         "inside the same <｜tool▁calls▁begin｜>…<｜tool▁calls▁end｜>.";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return make_deepseek_parser(o, DeepSeekShape::V3); }

// Calls between <｜tool▁calls▁begin｜> and <｜tool▁calls▁end｜>, arguments in a ```json fence, after
// an optional <think> block (as llama.cpp's DeepSeek R1 grammar).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.name_then_args(tools, "<｜tool▁call▁begin｜>function<｜tool▁sep｜>", "\n```json\n", "\n```<｜tool▁call▁end｜>");
    return b.reasoning("<think>", "</think>") + " " + literal("<｜tool▁calls▁begin｜>") + " " + b.calls(call, ws) + " " + literal("<｜tool▁calls▁end｜>");
  });
}

}  // namespace

const Dialect& dialect_deepseek_v3() {
  static const Dialect d{"deepseek_v3", {"deepseekv3", "deepseek_r1", "deepseek-r1", "deepseek_v3_0324"},
                         "DeepSeek V3/V3-0324/R1/R1-0528 <｜tool▁calls▁begin｜> with ```json args", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
