// Cohere Command R7B / Command A (docs/dialects.md §7.3; llama.cpp common_chat_parse_command_r7b and its
// tests; the c4ai-command-r7b template):
//   <|START_THINKING|>plan<|END_THINKING|><|START_ACTION|>[
//       {"tool_call_id": "0", "tool_name": "NAME", "parameters": {…}}
//   ]<|END_ACTION|>
// Replies are <|START_RESPONSE|>text<|END_RESPONSE|> (the markers are dropped from the content).
// The thinking block (the "tool plan") is reasoning; tool_call_id is the format's own id and is kept.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kAction = "<|START_ACTION|>";
constexpr std::string_view kEndAction = "<|END_ACTION|>";
constexpr std::string_view kResponse = "<|START_RESPONSE|>";
constexpr std::string_view kEndResponse = "<|END_RESPONSE|>";

class CommandR7bParser final : public scan::ThinkParser {
 public:
  explicit CommandR7bParser(const ParseOptions& o) : ThinkParser(o, "<|START_THINKING|>", "<|END_THINKING|>") {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, {kAction, kResponse, kEndResponse}, TextKind::Content, eof);
        if (k < 0) return false;
        if (k != 0) return true;  // response markers only frame the content
        start_recording(kAction);
        reader_.reset(scan::CallReader::Mode::List, {"parameters"}, true, "tool_name", "tool_call_id");
        st_ = St::Array;
        return true;
      }
      case St::Array:
        if (Read r = read_calls(reader_, sink, "the action"); r != Read::NotCall) return moved(r, st_, St::End, St::Content);
        return malformed(sink, "<|START_ACTION|> not followed by a list of {\"tool_name\", \"parameters\"} calls", st_);
      case St::End: {
        size_t len = 0;
        int m = scan::match_any(rest(), {kEndAction}, eof, &len);
        if (m == -2) return false;
        if (m == 0) advance(len);
        stop_recording();
        if (m != 0) warn(sink, WarningKind::MissingCloseMarker, "action without <|END_ACTION|>");
        st_ = St::AfterAction;
        return true;
      }
      case St::AfterAction: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Array) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the action", true);
  }

 private:

  enum class St { Content, Array, End, AfterAction } st_ = St::Content;
  scan::CallReader reader_;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<|START_ACTION|>")) return 0;
  int s = 60;
  if (scan::has(src, "<|END_THINKING|><|START_ACTION|>")) s += 15;  // llama.cpp's rule
  if (scan::has(src, "\"tool_name\"")) s += 5;
  return s;
}

// The tool-use section of the Command R7B template (shortened) and the tools as JSON.
std::string prompt(const Value& tools) {
  std::string list = "[\n";
  bool first = true;
  for (const ToolFields& t : tool_fields(tools)) {
    list += (first ? "    " : ",\n    ") + python_json(t.function_json());
    first = false;
  }
  list += "\n]";
  return "## Tool Use\nThink about how you can make best use of the provided tools to help with the task and come up "
         "with a high level plan that you will execute first.\n\n"
         "0. Start by writing <|START_THINKING|> followed by a detailed step by step plan of how you will solve the "
         "problem. When you finish, close it out with <|END_THINKING|>.\n"
         "1. Action: write <|START_ACTION|> followed by a list of JSON-formatted tool calls, with each one containing "
         "\"tool_name\" and \"parameters\" fields. When there are multiple tool calls which are completely independent "
         "of each other, list them out all together in one step. When you finish, close it out with <|END_ACTION|>.\n"
         "2. Observation: you will then receive results of those tool calls in JSON format in the very next turn, "
         "wrapped around by <|START_TOOL_RESULT|> and <|END_TOOL_RESULT|>.\n"
         "3. Response: write <|START_RESPONSE|> followed by a piece of text which serves as a response to the user's "
         "last request. When you finish, close it out with <|END_RESPONSE|>.\n\n"
         "## Available Tools\nHere is the list of tools that you have available to you.\n\n```json\n" +
         list + "\n```";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<CommandR7bParser>(o); }

// <|START_ACTION|>[{"tool_call_id", "tool_name", "parameters"}, …]<|END_ACTION|> after an optional
// thinking block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.per_tool(tools, "call", [&](const std::string& name, const std::string& args) {
      std::string colon = " " + ws + " \":\" " + ws + " ", comma = " " + ws + " \",\" " + ws + " ";
      return "\"{\" " + ws + " " + literal("\"tool_call_id\"") + colon + b.json_call_id() + comma + literal("\"tool_name\"") + colon +
             gbnf::json_literal(name) + comma + literal("\"parameters\"") + colon + args + " " + ws + " \"}\"";
    });
    return b.reasoning("<|START_THINKING|>", "<|END_THINKING|>") + " " + literal("<|START_ACTION|>") + " " + ws + " " +
                       b.json_list(call, "call-list") + " " + ws + " " + literal("<|END_ACTION|>");
  });
}

}  // namespace

const Dialect& dialect_command_r7b() {
  static const Dialect d{"command_r7b", {"command-r7b", "command_a", "c4ai_command_r7b"},
                         "Cohere Command R7B / Command A <|START_ACTION|>[{tool_call_id, tool_name, parameters}]",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
