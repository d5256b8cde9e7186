// One state machine for the XML-style call formats, configured by their tags:
//   Qwen3-Coder  <tool_call><function=N><parameter=k>v</parameter></function></tool_call>
//   Seed-OSS     <seed:tool_call><function=N><parameter=k>v</parameter></function></seed:tool_call>
//   MiniMax-M2   <minimax:tool_call><invoke name="N"><parameter name="k">v</parameter></invoke></minimax:tool_call>
//   GLM-4.5      <tool_call>N\n<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>
// A call is announced (ToolCallBegin) once its name is complete; its arguments follow as JSON
// fragments (schema_args.hpp). Text before a call's name is given back as content when the call
// turns out malformed or truncated; a call cut short after its name is closed (its JSON completed)
// with a TruncatedCall warning. A JSON call in a block (XmlSyntax::json_block_open, json_in_block)
// streams too (scan::CallReader).
// Tolerated variants: several calls in one block, a parameter without
// its close tag (it ends at the next parameter or the call's end), a block without its close tag.
#pragma once

#include <string_view>
#include <vector>

#include "dialects/call_reader.hpp"
#include "dialects/scan.hpp"
#include "dialects/schema_args.hpp"

namespace toolchat::dialects {

struct XmlSyntax {
  std::vector<std::string_view> block_open;  // each closed by block_close
  std::string_view block_close;
  std::string_view call_open;   // "" when the name follows block_open directly (GLM)
  std::vector<std::string_view> name_end;  // what ends a call's name
  std::string_view call_close;  // "" when the block's close ends the call (GLM)
  std::string_view param_open;
  std::string_view param_name_end;
  std::string_view value_open;  // "" when the value follows the name's end directly
  std::string_view param_close;
  // An optional second form: JSON call objects, one per line, between these tags (MiniMax-M1's
  // <tool_calls>{"name": …, "arguments": …}\n…</tool_calls>).
  std::string_view json_block_open, json_block_close;
  bool json_in_block = false;   // a {"name", "arguments"} object may stand in the block (Hermes style)
  bool bare_calls = false;      // call_open in plain text starts a call without block_open
  bool quoted_names = false;    // names may be written "N" (MiniMax)
  bool literal_newlines = false;  // the two characters \n may stand for a newline between tags (GLM)
  schema::Trim trim = schema::Trim::OneNewline;
  schema::Rules rules;
  std::string_view think_open = "<think>", think_close = "</think>";
};

// The <function=N><parameter=k>v</parameter></function> layout inside the given block tags
// (Qwen3-Coder, Seed-OSS), values trimmed of one newline each side.
XmlSyntax function_parameter_syntax(std::string_view block_open, std::string_view block_close);

class XmlCallParser final : public scan::ThinkParser {
 public:
  XmlCallParser(const ParseOptions& o, const XmlSyntax& syn);

 protected:
  bool body_step(Sink& sink, bool eof) override;
  void body_end(Sink& sink) override;

 private:
  enum class St { Content, Block, Name, BareCheck, Params, ParamName, ValueOpen, Value, AfterBlock, JsonBlock, JsonCall };
  bool skip_filler(bool eof);  // whitespace (and literal \n when allowed); false = need more
  // Reads a name up to the first of `ends`: true when decided (*bad, or *which = the end found).
  bool read_name(const std::vector<std::string_view>& ends, std::string* out, int* which, bool* bad);
  void begin_call(Sink& sink, std::string name);
  void end_call(Sink& sink);
  bool not_a_call(Sink& sink, const char* why);   // before the name: give the text back
  bool broken_call(Sink& sink, const char* why);  // after the name: close the call, rest is content
  bool end_block(Sink& sink, bool closed);
  // One step per state of body_step.
  bool content_step(Sink& sink, bool eof);
  bool block_step(Sink& sink, bool eof);
  bool name_step(Sink& sink);
  bool bare_check_step(Sink& sink, bool eof);
  bool params_step(Sink& sink, bool eof);
  bool param_name_step(Sink& sink);
  bool value_open_step(Sink& sink, bool eof);
  bool value_step(Sink& sink, bool eof);
  bool json_block_step(Sink& sink, bool eof);
  bool json_call_step(Sink& sink);

  const XmlSyntax& syn_;
  std::vector<std::string_view> content_marks_, param_marks_, value_ends_, block_marks_;
  St st_ = St::Content;
  bool in_block_ = false;
  size_t block_calls_ = 0;
  size_t cur_ = 0;  // index of the open call
  schema::ArgsWriter args_;
  scan::CallReader json_;  // a Hermes-style JSON call in a block: streamed
  std::string_view json_close_;  // the close tag of the JSON block being read
  std::string bare_name_;        // a bare call's name, until what follows confirms the call
};

}  // namespace toolchat::dialects
