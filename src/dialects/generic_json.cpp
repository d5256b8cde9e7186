// llama.cpp's "Generic" format for templates with no native one (docs/dialects.md §9): the whole reply is
// one JSON object, {"tool_calls": [{"name", "arguments", "id"?}, …]}, {"tool_call": {…}} or
// {"response": …} (a string is content as is; other JSON is dumped with indent 2). Text that is not
// such an object is content. An optional <think> block may come first.
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
        if (rest()[0] == '{') { st_ = St::Json; return true; }
        sink.on(ContentDelta{raw_});
        stop_recording();
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
        return text_until(sink, {}, false, eof), false;
    }
    return false;
  }
  void body_end(Sink& sink) override {
    if (st_ == St::Json) give_back(sink, WarningKind::TruncatedCall, "output ended inside the JSON reply");
    else if (st_ == St::Start && recording_) { sink.on(ContentDelta{raw_}); stop_recording(); }
  }

 private:
  void interpret(Sink& sink) {
    std::string raw = raw_;
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
        sink.on(ContentDelta{r->str()});
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

  enum class St { Start, Json, Content } st_ = St::Start;
  scan::JsonScanner json_;
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
