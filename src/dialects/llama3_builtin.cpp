// Llama 3.1/3.3 with builtin tools (docs/dialects.md §5.1): the JSON calls of llama3_json plus, after
// <|python_tag|> (also after some text, as llama.cpp accepts), `brave_search.call(query="…")`,
// `wolfram_alpha.call(query="…")` or raw Python code for code_interpreter ({"code": …}), ended by
// <|eom_id|>. Claims the templates that render builtin tools; llama3_json stays available by name.
#include "dialects/gbnf.hpp"
#include "dialects/llama3_parser.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  int base = llama3_template_score(src);
  // Templates that write custom calls as <function=…> are functionary_v31's.
  if (base == 0 || scan::has(src, "<function=") || !scan::has(src, "builtin_tools") || !scan::has(src, "<|python_tag|>") || !scan::has(src, ".call("))
    return 0;
  return base + 10;
}

std::string prompt(const Value& tools) {
  return "Environment: ipython\nTools: brave_search, wolfram_alpha\n\n" + llama3_tool_prompt(tools);
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return make_llama3_parser(o, true); }

// One {"name": N, "parameters": {…}} object (optionally after <|python_tag|>), or
// <|python_tag|>NAME.call(key=value, …) with Python literal values (the builtin tools' form).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string builtin = b.per_tool_params(tools, "builtin-call", [&](const std::string& name, const Value& params) {
      return literal("<|python_tag|>" + name + ".call(") + " " + ws + " " + b.py_kwargs(params, name + "-kwargs") + " " + ws + " \")\"";
    });
    return ws + " ( " + literal("<|python_tag|>") + "? " + b.call_object(tools, "name", "parameters") + " | " + builtin + " )";
  });
}

}  // namespace

const Dialect& dialect_llama3_builtin() {
  static const Dialect d{"llama3_builtin", {"llama3_x_builtin", "llama3_builtin_tools", "llama3_1_builtin"},
                         "Llama 3.1/3.3 JSON calls + <|python_tag|> builtin tools (brave_search, wolfram_alpha, code_interpreter)",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
