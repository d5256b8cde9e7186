// llama.cpp's "Generic" format for templates with no native one (docs/dialects.md §9): the whole reply is
// one JSON object, {"tool_calls": [{"name", "arguments", "id"?}, …]}, {"tool_call": {…}} or
// {"response": …} (a string is content as is; other JSON is dumped with indent 2). Text that is not
// such an object is content. An optional <think> block may come first.
//
// The calls stream: when the object's first key is "tool_calls" or "tool_call", its value is read by
// a CallReader as it arrives, and the rest of the object is only checked. Any other first key (a
// "response") is read whole, as the whole object decides what it means.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/scan.hpp"
#include "dialects/json_util.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

class GenericParser final : public scan::ThinkParser {
 public:
  explicit GenericParser(const ParseOptions& o) : ThinkParser(o, "<think>", "</think>") {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: {
        if (!recording_) start_recording();
        if (!skip_ws()) return false;
        if (rest()[0] != '{') {
          give_back_quietly(sink);
          st_ = St::Content;
          return true;
        }
        advance(1);
        st_ = St::Key;
        return true;
      }
      case St::Key: {
        // {"tool_calls": or {"tool_call": streams; anything else is read whole from here on.
        size_t len = 0;
        int k = scan::match_any(rest(), {"\"tool_calls\"", "\"tool_call\""}, eof, &len);
        if (k == -2) return false;
        if (k >= 0) {
          advance(len);
          list_ = k == 0;
          st_ = St::Colon;
          return true;
        }
        return read_whole();
      }
      case St::Colon: {
        size_t len = 0;
        int k = scan::match_any(rest(), {":"}, eof, &len);
        if (k == -2) return false;
        if (k < 0) return read_whole();
        advance(len);
        calls_reader_.reset(list_ ? scan::CallReader::Mode::List : scan::CallReader::Mode::Object,
                            {"arguments", "parameters"}, true);
        calls_reader_.skip_bad_elements = true;
        st_ = St::Calls;
        return true;
      }
      case St::Calls: {
        Read r = read_calls(calls_reader_, sink, list_ ? "tool_calls" : "tool_call");
        if (r == Read::NeedMore) return false;
        if (r == Read::Cut) {
          st_ = St::Content;
          return true;
        }
        // The rest of the object after the value: checked, not used.
        not_call_ = r == Read::NotCall;
        if (!not_call_) start_recording();
        if (!not_call_ || calls_reader_.json_ended()) {
          json_.reset();
          json_.feed("{\"\":0");
          st_ = St::Tail;
          return true;
        }
        give_back(sink, WarningKind::MalformedCall, "the reply is not valid JSON");
        st_ = St::Content;
        return true;
      }
      case St::Tail: {
        advance(json_.feed(rest()));
        if (json_.state() == scan::JsonScanner::State::Running || json_.state() == scan::JsonScanner::State::Start) return false;
        if (not_call_) {  // {"tool_calls": <not calls>, ...}: the reply is content
          give_back_quietly(sink);
        } else if (json_.state() == scan::JsonScanner::State::Error) {
          give_back(sink, WarningKind::MalformedCall, "text after the calls is not the rest of the JSON reply");
        } else {
          stop_recording();
        }
        st_ = St::Content;
        return true;
      }
      case St::Json: {
        advance(json_.feed(rest()));
        if (json_.state() == scan::JsonScanner::State::Error) {
          give_back(sink, WarningKind::MalformedCall, "the reply is not valid JSON");
          st_ = St::Content;
          return true;
        }
        if (json_.state() != scan::JsonScanner::State::Done) return false;
        interpret(sink);
        st_ = St::Content;
        return true;
      }
      case St::Content:
        return text_until(sink, {}, TextKind::Content, eof), false;
    }
    return false;
  }
  void body_end(Sink& sink) override {
    if (st_ == St::Calls) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the tool calls", true);
    else if (st_ == St::Tail && !not_call_) unclosed_block(sink, "the JSON reply around the calls is not closed");
    else if (st_ == St::Key || st_ == St::Colon || st_ == St::Json || st_ == St::Tail)
      give_back(sink, WarningKind::TruncatedCall, "output ended inside the JSON reply");
    else if (st_ == St::Start && recording_) { give_back_quietly(sink); }
  }

 private:
  // The object is not a streamed call list: it is read whole from its start (recorded) on.
  bool read_whole() {
    json_.reset();
    json_.feed(raw());
    st_ = St::Json;
    return true;
  }

  void interpret(Sink& sink) {
    std::string raw = this->raw();
    stop_recording();
    std::optional<Value> parsed = json_value(json_.text());
    if (!parsed) {
      sink.on(ContentDelta{raw});
      warn(sink, WarningKind::MalformedCall, "the reply is not valid JSON");
      return;
    }
    const Value& v = *parsed;
    const DictObj& d = v.dict_obj();
    if (const Value* tc = d.find("tool_calls"); tc && tc->is_list()) {
      for (const Value& c : tc->items())
        if (!emit_call_value(sink, c, {"arguments", "parameters"}, true))
          warn(sink, WarningKind::MalformedCall, "an element of tool_calls is not a call: " + scan::compact_json(c));
      return;
    }
    if (const Value* tc = d.find("tool_call"); tc && tc->is_dict()) {
      if (!emit_call_value(sink, *tc, {"arguments", "parameters"}, true)) {
        sink.on(ContentDelta{raw});
        warn(sink, WarningKind::MalformedCall, "tool_call is not a call");
      }
      return;
    }
    if (const Value* r = d.find("response")) {
      if (r->is_str()) {
        sink.on(ContentDelta{std::string(r->str())});
      } else {
        json::DumpOptions o;
        o.ensure_ascii = false;
        o.indent = "  ";
        sink.on(ContentDelta{json::dumps(*r, o)});
      }
      return;
    }
    sink.on(ContentDelta{raw});  // some other JSON answer
  }

  enum class St { Start, Key, Colon, Calls, Tail, Json, Content } st_ = St::Start;
  scan::JsonScanner json_;
  scan::CallReader calls_reader_;
  bool list_ = false, not_call_ = false;
};

int score(const std::string&, const chat::Capabilities*) { return 1; }  // the fallback for any template

std::string prompt(const Value& tools) {
  return "Respond in JSON format, either with `tool_calls` (a request to call tools) or with `response` "
         "(a reply to the user's request).\nTo call tools: {\"tool_calls\": [{\"name\": <tool-name>, "
         "\"arguments\": <args-json-object>}]}\nTo reply: {\"response\": \"<your reply>\"}\nAvailable tools:\n" +
         scan::tools_json_lines(tools);
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<GenericParser>(o); }

// {"tool_calls": [{"name", "arguments", "id"?}, …]} or {"tool_call": {…}}, after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string id = b.rule("id-key", "( " + ws + " \",\" " + ws + " \"\\\"id\\\"\" " + ws + " \":\" " + ws + " " + b.json_call_id() + " )?");
    std::string call = b.call_object(tools, "name", "arguments", id);
    std::string many = "\"{\" " + ws + " " + literal("\"tool_calls\"") + " " + ws + " \":\" " + ws + " " + b.json_list(call, "call-list") + " " + ws + " \"}\"";
    std::string one = "\"{\" " + ws + " " + literal("\"tool_call\"") + " " + ws + " \":\" " + ws + " " + call + " " + ws + " \"}\"";
    return b.reasoning("<think>", "</think>") + " ( " + many + " | " + one + " )";
  });
}

}  // namespace

const Dialect& dialect_generic_json() {
  static const Dialect d{"generic_json", {"generic"}, "llama.cpp Generic: the reply is {\"tool_calls\": [...]} or {\"response\": ...}",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
