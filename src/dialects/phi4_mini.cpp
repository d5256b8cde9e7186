// Microsoft Phi-4-mini (docs/dialects.md §7.5): `functools[{"name", "arguments"|"parameters"}, …]` (vLLM
// phi4_mini_json; the vLLM template's system text asks for it) and Ollama's
// `<|tool_call|>[…]<|/tool_call|>`; <|end|> ends the turn; <think>…</think> for the reasoning
// variants. Unlike vLLM's lazy `functools\[(.*?)\]` regex, the list is scanned as JSON, so nested
// arrays in arguments are fine, and calls stream. Scanner: marked_json.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/marked_json.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  // Firefunction v2 (a Llama 3 template) asks for the same functools[…]: not this family.
  if (scan::has(src, "<|start_header_id|>")) return 0;
  if (scan::has(src, "functools[")) return 75;
  // The HF Phi-4-mini-instruct template: tools as a string on the system message between <|tool|> tags.
  if (scan::has(src, "<|tool|>") && scan::has(src, "<|/tool|>")) return 70;
  return 0;
}

// The HF template shows the system message's `tools` string (the model card passes json.dumps of the
// function objects) between <|tool|> and <|/tool|>.
std::string prompt(const Value& tools) {
  return "<|tool|>" + python_json(function_objects(tools), std::nullopt, true) + "<|/tool|>";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  static const MarkedJsonStyle style{
      {{"functools[", "", true, 1}, {"<|tool_call|>", "<|/tool_call|>", false, 0}}, {{"<think>", "</think>"}}, {}, {"<|end|>"}};
  return make_marked_json_parser(o, style);
}

// functools[{"name", "arguments"}, …] or <|tool_call|>[…]<|/tool_call|>, after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string list = b.json_list(b.call_object(tools), "call-list");
    return b.reasoning("<think>", "</think>") + " ( " + literal("functools") + " " + list + " | " + literal("<|tool_call|>") +
                       " " + list + " " + literal("<|/tool_call|>") + " )";
  });
}

}  // namespace

const Dialect& dialect_phi4_mini() {
  static const Dialect d{"phi4_mini", {"phi4_mini_json", "phi4", "phi_4_mini"},
                         "Phi-4-mini: functools[…] or <|tool_call|>[…]<|/tool_call|>", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
