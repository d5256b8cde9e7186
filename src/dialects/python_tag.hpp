// What follows <|python_tag|> in the Llama 3.1 family (docs/dialects.md §5.1, §7.1): a builtin tool call
// `NAME.call(key=VALUE, …)` (brave_search, wolfram_alpha, code_interpreter, …; values are JSON, or
// Python literals: 'single-quoted' strings, True/False/None), or raw Python code, which becomes a
// call of `raw_code_tool` with {"code": CODE}. Both stream as they are written. Raw code runs to
// <|eom_id|> / <|eot_id|> or the end of the output. Used by llama3_builtin and functionary_v31.
#pragma once

#include <string>
#include <string_view>

#include "dialects/py_kwargs_stream.hpp"
#include "dialects/scan.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects {

// Decides what follows the tag: `NAME.call(` (a builtin call) or raw code.
class PythonTagBody {
 public:
  explicit PythonTagBody(std::string raw_code_tool) : raw_code_tool_(std::move(raw_code_tool)) {}
  // Reads nothing past `NAME.call(`: NeedMore, Call (name() set, *used past the parenthesis) or
  // Raw (nothing consumed: the code starts at the start of `in`).
  enum class Kind { NeedMore, Call, Raw };
  Kind decide_kind(std::string_view in, bool eof, size_t* used);
  const std::string& name() const { return name_; }
  const std::string& raw_code_tool() const { return raw_code_tool_; }

 private:
  enum class St { Decide, CallArgs, Raw } st_ = St::Decide;
  std::string raw_code_tool_, name_;
};

// A parser whose state machine hands the text after <|python_tag|> to a PythonTagBody.
class PythonTagParser : public scan::ParserBase {
 protected:
  using scan::ParserBase::ParserBase;
  enum class TagStep { NeedMore, Progress, Finished };
  // Feeds body_ from rest(). Finished: the call was emitted, or the recorded text was given back as
  // content with a warning; either way the caller goes back to content.
  // The text after the tag streams: a builtin call's keyword arguments as they are read
  // (pylit::KwargsStream), raw code as the string {"code": …} of a call of the raw-code tool.
  TagStep python_tag_step(Sink& sink, bool eof);
  // Starts reading a new tag's text; raw code becomes a call of `raw_code_tool`.
  void start_python_tag(std::string raw_code_tool) {
    body_ = PythonTagBody(std::move(raw_code_tool));
    tag_ = Tag::Decide;
  }

 private:
  enum class Tag { Decide, Kwargs, Raw } tag_ = Tag::Decide;
  PythonTagBody body_{"python"};
  pylit::KwargsStream kwargs_;
};

}  // namespace toolchat::dialects
