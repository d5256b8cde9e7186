// Llama 3.1/3.2/3.3 JSON calls (docs/dialects.md §5.1): {"name": N, "parameters": {…}} as the whole output
// (parser in llama3_parser.cpp). Templates that render builtin tools (<|python_tag|>NAME.call(…)) are
// claimed by llama3_builtin, whose parser accepts everything this one does.
#include "dialects/gbnf.hpp"
#include "dialects/near_miss.hpp"
#include "dialects/llama3_parser.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) { return llama3_template_score(src); }

// A call in a ```json fence as the whole output (Ollama reads any JSON object in the output) is
// recovered as a near miss (near_miss.hpp).
std::unique_ptr<StreamParser> make(const ParseOptions& o) {
  return with_near_miss_recovery(make_llama3_parser(o, false), o, NearMissForms::WholeOutput);
}

// One {"name": N, "parameters": {…}} object, optionally after <|python_tag|>.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    return ws + " " + literal("<|python_tag|>") + "? " + b.call_object(tools, "name", "parameters");
  });
}

}  // namespace

const Dialect& dialect_llama3_json() {
  static const Dialect d{"llama3_json", {"llama3", "llama31", "llama3_1"}, "Llama 3.x {\"name\", \"parameters\"} JSON",
                         &score, &llama3_tool_prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
