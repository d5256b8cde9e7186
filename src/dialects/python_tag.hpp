// What follows <|python_tag|> in the Llama 3.1 family (docs/dialects.md §5.1, §7.1): a builtin tool call
// `NAME.call(key=VALUE, …)` (brave_search, wolfram_alpha, code_interpreter, …; values are JSON, or
// Python literals: 'single-quoted' strings, True/False/None), or raw Python code, which becomes a
// call of `raw_code_tool` with {"code": CODE}. Raw code runs to <|eom_id|> / <|eot_id|> or the end
// of the output. Used by llama3_builtin and functionary_v31.
#pragma once

#include <string>
#include <string_view>

#include "dialects/scan.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects {

class PythonTagBody {
 public:
  explicit PythonTagBody(std::string raw_code_tool) : raw_code_tool_(std::move(raw_code_tool)) {}
  enum class Status { NeedMore, Done, Malformed, Truncated };
  // Consumes from `in` (the text after the tag, as far as it has arrived); *used = bytes consumed
  // (the caller advances by them and calls again while it is > 0). On Done, name()/args() hold the
  // call; on Malformed, error(); Truncated: the output ended inside the call's arguments.
  Status feed(std::string_view in, bool eof, size_t* used);
  const std::string& name() const { return name_; }
  const Value& args() const { return args_; }
  const std::string& error() const { return error_; }

 private:
  Status decide(std::string_view in, bool eof, size_t* used);
  Status call_args(std::string_view in, bool eof, size_t* used);
  Status raw_code(std::string_view in, bool eof, size_t* used);

  enum class St { Decide, CallArgs, Raw } st_ = St::Decide;
  std::string raw_code_tool_, name_, text_, error_;
  Value args_;
  // Scanning a call's arguments: quote char when inside a string, escape flag, bracket depth.
  char quote_ = 0;
  bool escape_ = false;
  int depth_ = 0;
};

// A parser whose state machine hands the text after <|python_tag|> to a PythonTagBody.
class PythonTagParser : public scan::ParserBase {
 protected:
  using scan::ParserBase::ParserBase;
  enum class TagStep { NeedMore, Progress, Finished };
  // Feeds body_ from rest(). Finished: the call was emitted, or the recorded text was given back as
  // content with a warning; either way the caller goes back to content.
  TagStep python_tag_step(Sink& sink, bool eof);
  PythonTagBody body_{"python"};
};

// `key=VALUE, key2=VALUE2` (the inside of NAME.call(...)) as a dict; false when malformed.
bool parse_python_kwargs(std::string_view text, Value* out, std::string* error);

}  // namespace toolchat::dialects
