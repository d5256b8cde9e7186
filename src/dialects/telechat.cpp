// TeleChat2 (Tele-AI; docs/dialects.md §7.10): Hermes-style `<tool_call>\n{"name", "arguments"}\n</tool_call>`
// blocks, several joined by "\n", inside the `<_bot>` turn that `<_end>` closes. The tools template's
// generation prompt is `<_bot><think>\n` (reasoning forced open, ParseOptions::reasoning_open);
// `<think>…</think>` is accepted first otherwise. Scanner: marked_json.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/marked_json.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<_bot>")) return 0;
  return scan::has(src, "<tool_call>") ? 80 : 30;
}

// The tools block of the TeleChat2 tools template (tests/corpus/templates/telechat-tools.jinja), which
// follows the system content there: one tojson line per tool inside <tools>, then the call format.
std::string prompt(const Value& tools) {
  std::string out = "# 可用工具\n你可以调用<tools></tools>标签中包含的一个或多个工具来辅助你回答问题,以下是可用工具详情:\n<tools>\n";
  if (tools.is_list())
    for (const Value& t : tools.items()) out += python_json(t) + "\n";
  return out +
         "</tools>\n\n# 调用方法\n你需要遵循工具的要求,使用json格式返回工具名称及参数,并用<tool_call></tool_call>包含。"
         "下方是一个调用模板:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n</tool_call>";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  static const MarkedJsonStyle style{{{"<tool_call>", "</tool_call>", false, 0}}, {{"<think>", "</think>"}}, {}, {"<_end>"}};
  return make_marked_json_parser(o, style);
}

// One or more <tool_call>{"name", "arguments"}</tool_call>, after an optional <think> block (forced open
// by the tools template); the <_end> stop token may end the output.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.rule("tool-call", literal("<tool_call>") + " " + ws + " " + b.call_object(tools) + " " + ws + " " + literal("</tool_call>"));
    return b.reasoning("<think>", "</think>") + " " + b.calls(call, ws) + " " + literal("<_end>") + "?";
  });
}

}  // namespace

const Dialect& dialect_telechat() {
  static const Dialect d{"telechat", {"telechat2", "telechat2_5"}, "TeleChat2: <tool_call>{json}</tool_call> in <_bot>…<_end>",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
