// MeetKai Functionary v3.1 on Llama 3.1 (docs/dialects.md §7.1; llama.cpp
// common_chat_parse_functionary_v3_1_llama_3_1 and its tests), and vLLM's Llama 3.1 "user-defined
// tool call" template, which writes the same calls:
//   <function=NAME>{…}</function>       (parallel calls are concatenated; text may come before)
//   <|python_tag|>CODE                  a call of `python` with {"code": CODE}
//   <|python_tag|>NAME.call(k="v")      a builtin tool call (the vLLM template's brave_search etc.)
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/python_tag.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kFunction = "<function=";
constexpr std::string_view kPythonTag = "<|python_tag|>";
constexpr std::string_view kClose = "</function>";
constexpr size_t kMaxName = 128;

class FunctionaryV31Parser final : public PythonTagParser {
 public:
  explicit FunctionaryV31Parser(const ParseOptions& o) : PythonTagParser(o) {}

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, {kFunction, kPythonTag}, TextKind::Content, eof);
        if (k < 0) return false;
        if (k == 0) {
          start_recording(kFunction);
          st_ = St::Name;
        } else {
          start_recording(kPythonTag);
          start_python_tag("python");
          st_ = St::Python;
        }
        return true;
      }
      case St::Name: {
        std::string_view r = rest();
        size_t gt = r.find('>');
        std::string_view name = r.substr(0, gt);
        if (name.find('<') != std::string_view::npos || name.find('\n') != std::string_view::npos ||
            name.size() > kMaxName || (gt != std::string_view::npos && name.empty()))
          return malformed(sink, "bad function name after <function=", st_);
        if (gt == std::string_view::npos) return false;
        name_.assign(name);
        advance(gt + 1);
        args_.reset();
        st_ = St::Json;
        return true;
      }
      case St::Json:
        return args_step(args_, sink, "", name_, st_, {.done = St::Close, .cut = St::Content, .close = false, .not_object = kNotObject});
      case St::Close: {
        size_t len = 0;
        int m = scan::match_any(rest(), {kClose}, eof, &len);
        if (m == -2) return false;
        if (m == 0) advance(len);
        stop_recording();
        close_call(sink);
        if (m != 0) warn(sink, WarningKind::MissingCloseMarker, "call without </function>");
        st_ = St::Content;
        return true;
      }
      case St::Python: {
        TagStep s = python_tag_step(sink, eof);
        if (s == TagStep::Finished) st_ = St::Content;
        return s != TagStep::NeedMore;
      }
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::Name || st_ == St::Json || st_ == St::Python)
      abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a call", true);
  }

 private:

  enum class St { Content, Name, Json, Close, Python } st_ = St::Content;
  std::string name_;
  scan::ArgsReader args_;
};

int score(const std::string& src, const chat::Capabilities*) {
  // llama.cpp's rule: a Llama 3 header and <function= (Qwen3-Coder's <function=…> has no such header).
  if (!scan::has(src, "<function=") || !scan::has(src, "<|start_header_id|>")) return 0;
  int s = 70;
  if (scan::has(src, "</function>")) s += 5;
  return s;
}

// The system text of the Llama 3.1 / Functionary v3.1 templates.
std::string prompt(const Value& tools) {
  std::string out = "You have access to the following functions:\n\n";
  for (const ToolFields& t : tool_fields(tools))
    out += "Use the function '" + t.name + "' to: " + t.description + "\n" + python_json(t.function_json(), "    ") +
           "\n\n";
  return out +
         "If a you choose to call a function ONLY reply in the following format:\n<{start_tag}={function_name}>"
         "{parameters}{end_tag}\nwhere\n\nstart_tag => `<function`\nparameters => a JSON dict with the function "
         "argument name as key and function argument value as value.\nend_tag => `</function>`\n\nHere is an example,\n"
         "<function=example_function_name>{\"example_name\": \"example_value\"}</function>\n\nReminder:\n"
         "- Function calls MUST follow the specified format\n- Required parameters MUST be specified\n"
         "- Put the entire function call reply on one line\n"
         "- If there is no relevant function available, do NOT call any function: respond directly to the user\n";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<FunctionaryV31Parser>(o); }

// One or more <function=NAME>{json}</function> (as llama.cpp's Functionary v3.1 grammar).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    std::string call = b.name_then_args(tools, "<function=", ">", "</function>");
    return b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_functionary_v31() {
  static const Dialect d{"functionary_v31", {"functionary_v3_1", "functionary-v3.1", "functionary_v3_1_llama_3_1", "llama3_function_tag"},
                         "Functionary v3.1 / Llama 3.1 <function=NAME>{json}</function> and <|python_tag|> code",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
