// Moonshot Kimi K3 (llama.cpp models/templates/Kimi-K3.jinja): tagged messages built from three
// special tokens, <|open|>TAG attrs<|sep|> … <|close|>TAG<|sep|>. The assistant turn is
//   <|open|>think<|sep|>REASONING<|close|>think<|sep|><|open|>response<|sep|>CONTENT<|close|>response<|sep|>
//   <|open|>tools<|sep|><|open|>call tool="NAME" index="1"<|sep|>ARGS<|close|>call<|sep|>…<|close|>tools<|sep|>
//   <|close|>message<|sep|><|end_of_msg|>
// ARGS is a list of <|open|>argument key="K" type="T"<|sep|>VALUE<|close|>argument<|sep|> (strings
// written as they are, other types as JSON) or one <|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>
// (streamed as a JSON reader reads it).
// Attribute values escape & and " as &amp; and &quot;. The generation prompt opens the think block
// (thinking on, the default: ParseOptions::reasoning_open) or the response block.
// A value is typed by its type attribute (the model says what it wrote); without one, by the tool's
// schema (schema_args.hpp: text when no schema says otherwise). A call is announced once its name is
// complete and string values stream as they arrive (schema::ArgsWriter); a call cut short or broken
// after that ends cut, with a truncated_call / malformed_call warning.
#include "dialects/gbnf.hpp"
#include "dialects/json_stream.hpp"
#include "dialects/scan.hpp"
#include "dialects/schema_args.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kSep = "<|sep|>";
constexpr std::string_view kThinkOpen = "<|open|>think<|sep|>";
constexpr std::string_view kThinkClose = "<|close|>think<|sep|>";
constexpr std::string_view kResponseOpen = "<|open|>response<|sep|>";
constexpr std::string_view kResponseClose = "<|close|>response<|sep|>";
constexpr std::string_view kToolsOpen = "<|open|>tools<|sep|>";
constexpr std::string_view kToolsClose = "<|close|>tools<|sep|>";
constexpr std::string_view kMessageClose = "<|close|>message<|sep|>";
constexpr std::string_view kEndOfMsg = "<|end_of_msg|>";
constexpr std::string_view kCallOpen = "<|open|>call";
constexpr std::string_view kCallClose = "<|close|>call<|sep|>";
constexpr std::string_view kArgOpen = "<|open|>argument";
constexpr std::string_view kArgClose = "<|close|>argument<|sep|>";
constexpr std::string_view kJsonOpen = "<|open|>json";
constexpr std::string_view kJsonClose = "<|close|>json<|sep|>";
constexpr size_t kMaxTag = 1024;

std::string unescape_attr(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v.substr(i).starts_with("&quot;")) { out += '"'; i += 5; }
    else if (v.substr(i).starts_with("&amp;")) { out += '&'; i += 4; }
    else out += v[i];
  }
  return out;
}

class KimiK3Parser final : public scan::ParserBase {
 public:
  explicit KimiK3Parser(const ParseOptions& o) : ParserBase(o) { st_ = o.reasoning_open ? St::Reasoning : St::Start; }

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: return start(eof);
      case St::Reasoning: return reasoning(sink, eof);
      case St::Content: return content(sink, eof);
      case St::Tools: return tools(sink, eof);
      case St::CallTag: return call_tag(sink);
      case St::Args: return args(sink, eof);
      case St::ArgTag: return arg_tag(sink);
      case St::ArgValue: return arg_value(sink, eof);
      case St::JsonTag: return json_tag(sink);
      case St::JsonValue: return json_value_block(sink, eof);
      case St::Done:  // what follows the end of the turn is not this message
        skip_to_end();
        return false;
    }
    return false;
  }

  void at_end(Sink& sink) override {
    switch (st_) {
      case St::Reasoning: warn(sink, WarningKind::UnclosedReasoning, "output ended inside the think block"); break;
      case St::Tools:
        if (block_calls_ == 0) {
          give_back(sink, WarningKind::TruncatedCall, "output ended inside the tools block");
        } else {  // the calls of the block stand
          stop_recording();
          warn(sink, WarningKind::MissingCloseMarker, "the tools block was not closed");
        }
        break;
      case St::CallTag:
        give_back(sink, WarningKind::TruncatedCall, "output ended inside a call");
        break;
      case St::Args: case St::ArgTag: case St::ArgValue: case St::JsonTag: case St::JsonValue:
        // The call was announced and its arguments streamed: it ends cut, the whole-message result
        // giving its text back as content (issue 12 §2).
        advance(rest().size());
        cut_streamed_call(sink, cur_, WarningKind::TruncatedCall, "output ended inside a call");
        break;
      default: break;
    }
  }

 private:
  // Before anything: a think block may open the turn.
  bool start(bool eof) {
    Match m = match(kThinkOpen, eof);
    if (m == Match::NeedMore) return false;
    st_ = m == Match::Yes ? St::Reasoning : St::Content;
    return true;
  }

  // Inside the think block, up to its close.
  bool reasoning(Sink& sink, bool eof) {
    if (text_until(sink, {kThinkClose}, TextKind::Reasoning, eof) < 0) return false;
    st_ = St::Content;
    return true;
  }

  // Content up to the next tag that matters; the response tags only wrap content.
  bool content(Sink& sink, bool eof) {
    int k = text_until(sink, {kResponseOpen, kResponseClose, kToolsOpen, kMessageClose, kEndOfMsg, kThinkOpen}, TextKind::Content, eof);
    if (k < 0) return false;
    if (k == 2) {
      start_recording(kToolsOpen);
      block_calls_ = 0;
      st_ = St::Tools;
    } else if (k == 3 || k == 4) {
      skip_to_end();  // the turn is over
      st_ = St::Done;
    } else if (k == 5) {
      st_ = St::Reasoning;
    }
    return true;
  }

  // Inside the tools block: a call opens or the block closes.
  bool tools(Sink& sink, bool eof) {
    size_t len = 0;
    int m = scan::match_any(rest(), {kCallOpen, kToolsClose}, eof, &len);
    if (m == -2) return false;
    if (m < 0) return malformed(sink, "<|open|>tools<|sep|> not followed by a call", st_);
    advance(len);
    if (m == 1) {
      stop_recording();
      st_ = St::Content;
      return true;
    }
    st_ = St::CallTag;
    return true;
  }

  // A call's tag with its name.
  bool call_tag(Sink& sink) {
    std::string tag;
    if (!read_tag(sink, &tag, TagIn::Block)) return st_ == St::Content;
    auto name = schema::xml_attr(tag, "tool");
    if (!name || name->empty()) return malformed(sink, "a call without its tool attribute", st_);
    // The name is complete: the call is announced and its arguments stream from here on.
    // Recording goes on: a call cut short gives its text back (cut_streamed_call).
    std::string n = unescape_attr(*name);
    cur_ = calls_++;
    note_call(sink, cur_, n);
    sink.on(ToolCallBegin{cur_, next_id(), n});
    args_.begin(sink, cur_, opts_.tools.is_list() ? &opts_.tools : nullptr, std::move(n), {}, schema::Trim::None);
    st_ = St::Args;
    return true;
  }

  // Inside a call: an argument, a json block, or the call's close.
  bool args(Sink& sink, bool eof) {
    size_t len = 0;
    int m = scan::match_any(rest(), {kArgOpen, kJsonOpen, kCallClose}, eof, &len);
    if (m == -2) return false;
    if (m < 0) return broken_call(sink, "unexpected text inside a call");
    advance(len);
    if (m == 2) {
      stop_recording();
      args_.end(sink);
      note_call_end(cur_);
      ++block_calls_;
      start_recording();  // what follows in the block, if it is cut short, is given back alone
      st_ = St::Tools;
      return true;
    }
    st_ = m == 0 ? St::ArgTag : St::JsonTag;
    return true;
  }

  // An argument's tag: its key and type attribute.
  bool arg_tag(Sink& sink) {
    std::string tag;
    if (!read_tag(sink, &tag, TagIn::Call)) return st_ == St::Content;
    auto key = schema::xml_attr(tag, "key");
    if (!key) return broken_call(sink, "an argument without its key attribute");
    auto type = schema::xml_attr(tag, "type");
    args_.param(sink, unescape_attr(*key), type ? type_of(unescape_attr(*type)) : std::nullopt);
    st_ = St::ArgValue;
    return true;
  }

  // An argument's value, streamed up to its close.
  bool arg_value(Sink& sink, bool eof) {
    std::string piece;
    int k = collect_until(piece, {kArgClose}, eof);
    args_.text(sink, piece);
    if (k < 0) return false;
    advance(kArgClose.size());
    args_.end_param(sink);
    st_ = St::Args;
    return true;
  }

  // A json block's tag (its attributes are not needed).
  bool json_tag(Sink& sink) {
    std::string tag;
    if (!read_tag(sink, &tag, TagIn::Call)) return st_ == St::Content;
    json_.reset(0);
    json_first_ = true;
    json_brace_ = false;
    st_ = St::JsonValue;
    return true;
  }

  // A json block's object: its members join the call's arguments as they are read (canonical
  // JSON, each typed as the JSON wrote it), then the block's close.
  bool json_value_block(Sink& sink, bool eof) {
    using Stop = scan::JsonStream::Stop;
    if (json_.stop() != Stop::Done) {
      advance(json_.feed(rest()));
      if (json_.stop() == Stop::ValueStart) {
        if (json_.kind() != '{') return broken_call(sink, "a json argument block that is not a JSON object");
        advance(json_.feed(rest()));
      }
      std::string& out = json_.out();
      if (!json_brace_ && !out.empty()) {  // the object's own brace: the call's is open already
        out.erase(0, 1);
        json_brace_ = true;
      }
      if (json_.stop() == Stop::Done) out.pop_back();
      if (!out.empty()) {
        args_.raw_members(sink, out, json_first_);
        json_first_ = false;
      }
      out.clear();
      if (json_.stop() == Stop::Error) return broken_call(sink, "a json argument block that is not a JSON object");
      if (json_.stop() != Stop::Done) return false;
    }
    size_t ws = 0;
    std::string_view r = rest();
    while (ws < r.size() && scan::is_json_ws(r[ws])) ++ws;
    advance(ws);
    Match m = match(kJsonClose, eof);
    if (m == Match::NeedMore) return false;
    if (m == Match::No) return broken_call(sink, "text after a json argument block's object");
    st_ = St::Args;
    return true;
  }

  // The rest of a tag up to <|sep|> (its attributes); false when more input is needed, or when the
  // tag is unterminated: then st_ is Content, the text given back (a call's tag) or the open call
  // closed as broken (an argument's or json block's tag).
  enum class TagIn { Block, Call };
  bool read_tag(Sink& sink, std::string* tag, TagIn where) {
    std::string_view r = rest();
    size_t end = r.find(kSep);
    if ((end == std::string_view::npos ? r.size() : end) > kMaxTag) {
      if (where == TagIn::Call) broken_call(sink, "unterminated tag");
      else malformed(sink, "unterminated tag", st_);
      return false;
    }
    if (end == std::string_view::npos) return false;
    tag->assign(r.substr(0, end));
    advance(end + kSep.size());
    return true;
  }

  // The type attribute's value as schema bits (an unknown name: the schema decides).
  static std::optional<schema::ParamType> type_of(const std::string& t) {
    schema::ParamType p{schema::type_name_bit(t, schema::Names::Strict)};
    if (p.bits == 0) return std::nullopt;
    return p;
  }
  // After the call was announced: it ends cut (its text is content in the whole-message result),
  // with a warning, and the rest of the output is content.
  bool broken_call(Sink& sink, const char* why) {
    cut_streamed_call(sink, cur_, WarningKind::MalformedCall, why);
    st_ = St::Content;
    return true;
  }

  enum class St { Start, Reasoning, Content, Tools, CallTag, Args, ArgTag, ArgValue, JsonTag, JsonValue, Done } st_;
  scan::JsonStream json_;  // a json block's object
  bool json_first_ = true, json_brace_ = false;
  schema::ArgsWriter args_;
  size_t cur_ = 0;  // index of the open call
  size_t block_calls_ = 0;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<|open|>") || !scan::has(src, "<|sep|>")) return 0;
  return scan::has(src, "'call'") || scan::has(src, "\"call\"") ? 90 : 40;
}

std::string prompt(const Value& tools) {
  return "# Tools\nHere are the available tools, described in JSONSchema.\n\n```json\n" + scan::tools_json_lines(tools) +
         "```\nTo call tools, write <|open|>tools<|sep|>, then for each call <|open|>call tool=\"NAME\" index=\"N\"<|sep|>, "
         "each argument as <|open|>argument key=\"KEY\" type=\"TYPE\"<|sep|>VALUE<|close|>argument<|sep|> (strings as "
         "they are, other types as JSON), then <|close|>call<|sep|>; end with <|close|>tools<|sep|>.";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<KimiK3Parser>(o); }

// The think block (forced open), an empty response, then <|open|>tools<|sep|> with one or more calls,
// each argument an element whose type attribute says text ("string") or JSON.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    auto element = [&](const std::string& key, const std::string& value) {
      return literal("<|open|>argument key=\"") + " " + key + " " + value + " " + literal(kArgClose);
    };
    // type="string": the text as it is, up to the close tag; type="json": JSON.
    gbnf::ValueText form{{std::string(kArgClose)}, schema::Trim::None, "\" type=\"string\"<|sep|>", "\" type=\"json\"<|sep|>"};
    std::string call = b.per_tool_params(tools, "call", [&](const std::string& name, const Value& params) {
      return literal("<|open|>call tool=\"" + name + "\" index=\"1\"<|sep|>") + " " +
             b.arg_elements(params, name + "-args", form, element) +
             " " + literal(kCallClose);
    });
    // The response tags may come first, but empty: text there would be free text before the calls.
    std::string response = "( " + literal(std::string(kResponseOpen) + std::string(kResponseClose)) + " )?";
    return b.reasoning(kThinkOpen, kThinkClose) + " " + response + " " + literal(kToolsOpen) + " " + b.calls(call, "") + " " + literal(kToolsClose);
  });
}

}  // namespace

const Dialect& dialect_kimi_k3() {
  static const Dialect d{"kimi_k3", {"kimi-k3"}, "Kimi K3: <|open|>call tool=\"N\"<|sep|><|open|>argument key=… type=…<|sep|>v…",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
