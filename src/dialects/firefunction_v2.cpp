// Fireworks Firefunction v2 (docs/dialects.md §7.2; llama.cpp common_chat_parse_firefunction_v2 and its
// tests): text, then ` functools[{"name": N, "arguments": {…}}, …]` (leading space, no closing
// marker); parallel calls are more array elements. The template's system text tells the model the
// format; tools reach it through the `functions` context variable (tool_prompt gives the same text).
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

const std::vector<std::string_view> kMarkers{" functools[", "functools["};

class FirefunctionParser final : public scan::ParserBase {
 public:
  explicit FirefunctionParser(const ParseOptions& o) : ParserBase(o) {}

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, kMarkers, TextKind::Content, eof);
        if (k < 0) return false;
        start_recording(kMarkers[k]);
        reader_.reset(scan::CallReader::Mode::List, {"arguments", "parameters"}, true);
        reader_.prime(*this, sink, "[");
        st_ = St::Array;
        return true;
      }
      case St::Array:
        if (Read r = read_calls(reader_, sink, "functools[…]"); r != Read::NotCall)
          return moved(r, st_, St::Content, St::Content);
        if (!reader_.json_ended()) return malformed(sink, "functools[ not followed by a JSON list", st_);
        return malformed(sink, "functools[…] is not a list of {\"name\", \"arguments\"} calls", st_);
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::Array) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside functools[…]", true);
  }

 private:

  enum class St { Content, Array } st_ = St::Content;
  scan::CallReader reader_;
};

int score(const std::string& src, const chat::Capabilities*) {
  // The Llama 3 header tells Firefunction from Phi-4-mini templates that reuse its system text.
  if (!scan::has(src, "functools[") || !scan::has(src, "<|start_header_id|>")) return 0;
  int s = 75;
  if (scan::has(src, "' functools['")) s += 5;
  return s;
}

// The system text of the Firefunction v2 template, followed by the tools as JSON.
std::string prompt(const Value& tools) {
  std::string spec = tools.is_list() ? python_json(tools, "  ") : "[]";
  return "In addition to plain text responses, you can chose to call one or more of the provided functions.\n\n"
         "Use the following rule to decide when to call a function:\n"
         "  * if the response can be generated from your internal knowledge (e.g., as in the case of queries like "
         "\"What is the capital of Poland?\"), do so\n"
         "  * if you need external information that can be obtained by calling one or more of the provided functions, "
         "generate a function calls\n\nIf you decide to call functions:\n"
         "  * prefix function calls with functools marker (no closing marker required)\n"
         "  * all function calls should be generated in a single JSON list formatted as functools[{\"name\": "
         "[function name], \"arguments\": [function arguments as JSON]}, ...]\n"
         "  * follow the provided JSON schema. Do not hallucinate arguments or values. Do to blindly copy values from "
         "the provided samples\n"
         "  * respect the argument type formatting. E.g., if the type if number and format is float, write value 7 as "
         "7.0\n  * make sure you pick the right functions that match the user intent\n\n"
         "Available functions as JSON spec:\n" +
         spec;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<FirefunctionParser>(o); }

// " functools[{"name", "arguments"}, …]".
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    return "\" \"? \"functools\" " + b.json_list(b.call_object(tools), "call-list");
  });
}

}  // namespace

const Dialect& dialect_firefunction_v2() {
  static const Dialect d{"firefunction_v2", {"firefunction", "firefunction-v2", "fireworks"},
                         "Firefunction v2 ' functools[{\"name\", \"arguments\"}, …]'", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
