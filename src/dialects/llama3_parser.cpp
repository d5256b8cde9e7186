#include "dialects/call_reader.hpp"
#include "dialects/llama3_parser.hpp"

#include "dialects/python_tag.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kPythonTag = "<|python_tag|>";

class Llama3Parser final : public PythonTagParser {
 public:
  Llama3Parser(const ParseOptions& o, bool builtins) : PythonTagParser(o), builtins_(builtins) {}

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: {
        if (!recording_) start_recording();
        if (!skip_ws()) return false;
        if (!tag_done_) {
          // <|python_tag|> (Llama 3.x) or <|python_start|>…<|python_end|> (Llama 4) may come first.
          size_t len = 0;
          int m = scan::match_any(rest(), {kPythonTag, "<|python_start|><|python_end|>", "<|python_start|>"}, eof, &len);
          if (m == -2) return false;
          if (m >= 0) advance(len);
          tag_done_ = true;
          if (m == 0 && builtins_) st_ = St::Tagged;
          return true;
        }
        if (rest()[0] == '{' || rest()[0] == '[') { start_json(); return true; }
        give_back_quietly(sink);
        st_ = St::Content;
        return true;
      }
      case St::Tagged: {
        // After <|python_tag|>: a JSON call or a builtin call / raw code.
        if (!skip_ws()) {
          if (!eof) return false;
          give_back(sink, WarningKind::TruncatedCall, "output ended after <|python_tag|>");
          st_ = St::Content;
          return true;
        }
        if (rest()[0] == '{' || rest()[0] == '[') { start_json(); return true; }
        start_python_tag("code_interpreter");
        st_ = St::Builtin;
        return true;
      }
      case St::Builtin: {
        TagStep s = python_tag_step(sink, eof);
        if (s == TagStep::Finished) st_ = St::Content;
        return s != TagStep::NeedMore;
      }
      case St::Json: {
        Read r = read_calls(reader_, sink, "the JSON call");
        if (r != Read::NotCall) return moved(r, st_, St::AfterCall, St::Content);
        if (!reader_.json_invalid()) {  // JSON that is not a call: content, quietly
          give_back_quietly(sink);
        } else {
          give_back(sink, WarningKind::MalformedCall, "invalid JSON at the start of the output");
        }
        st_ = St::Content;
        return true;
      }
      case St::AfterCall: {
        size_t len = 0;
        // Parallel calls: objects separated by ';' (SGLang), by ',' (llama.cpp with parallel calls
        // on) or simply concatenated (Llama 4 template). A separator not followed by a call is
        // content with the text after it (Start gives back what it recorded).
        int m = scan::match_any(rest(), {";", ",", "{", "<|python_end|>"}, eof, &len);
        if (m == -2) return false;
        if (m == 3) {
          advance(len);
          return true;
        }
        if (m <= 2) {
          std::string sep;
          if (m < 2) {
            sep.assign(rest().substr(0, len));
            skip(len);  // recorded below, with what follows
          } else {
            skip_ws();
          }
          start_recording(sep);
          tag_done_ = true;
          st_ = St::Start;
          return true;
        }
        st_ = St::Content;  // whitespace before the text is content (output_guard.hpp)
        return true;
      }
      case St::Content: {
        if (!builtins_) return text_until(sink, {}, TextKind::Content, eof), false;
        // With builtin tools, llama.cpp also takes <|python_tag|> after some text.
        if (text_until(sink, {kPythonTag}, TextKind::Content, eof) < 0) return false;
        start_recording(kPythonTag);
        st_ = St::Tagged;
        return true;
      }
    }
    return false;
  }
  void at_end(Sink& sink) override {
    if (st_ == St::Json) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the JSON call", true);
    else if (st_ == St::Start && recording_) { give_back_quietly(sink); }
    else if (st_ == St::Builtin || st_ == St::Tagged) abandon_call(sink, WarningKind::TruncatedCall, "output ended after <|python_tag|>", true);
  }

 private:
  // An object that is a call, or a non-empty array of calls (SGLang's llama3 detector, xLAM).
  void start_json() {
    reader_.reset(scan::CallReader::Mode::Either, {"parameters", "arguments"}, true);
    st_ = St::Json;
  }

  enum class St { Start, Tagged, Builtin, Json, AfterCall, Content } st_ = St::Start;
  bool builtins_;
  bool tag_done_ = false;
  scan::CallReader reader_;
};

}  // namespace

std::unique_ptr<StreamParser> make_llama3_parser(const ParseOptions& o, bool builtin_tools) {
  return std::make_unique<Llama3Parser>(o, builtin_tools);
}

int llama3_template_score(const std::string& src) {
  int s = 0;
  if (scan::has(src, "<|start_header_id|>ipython<|end_header_id|>") || scan::has(src, "\"ipython\"")) s += 40;
  if (scan::has(src, "\"parameters\": dictionary of argument name")) s += 15;
  if (scan::has(src, "<|python_tag|>")) s += 5;
  if (scan::has(src, "<function=")) s -= 30;  // Functionary v3.1 on Llama 3.1
  return s < 0 ? 0 : s;
}

std::string llama3_tool_prompt(const Value& tools) {
  std::string out =
      "Given the following functions, please respond with a JSON for a function call with its proper arguments "
      "that best answers the given prompt.\n\nRespond in the format {\"name\": function name, \"parameters\": "
      "dictionary of argument name and its value}.Do not use variables.\n\n";
  return out + scan::tools_json_lines(tools);
}

}  // namespace toolchat::dialects
