// OpenAI gpt-oss, Harmony format (docs/dialects.md §7.8). The output is a run of messages, each
//   [<|start|>assistant][ to=RECIPIENT]<|channel|>CHANNEL[ to=RECIPIENT][ <|constrain|>json]<|message|>BODY
// ended by <|end|>, <|call|> or <|return|> (the last two are stop tokens a server usually strips).
// The analysis channel is reasoning, final is content, commentary without a recipient is a
// user-visible preamble (content); a recipient functions.NAME (on commentary or analysis) makes the
// body a JSON call of NAME, the builtin recipient python a call of `python` with {"code": BODY}.
// Text with no header at all is content.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include <algorithm>

#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

const std::vector<std::string_view>& body_ends() {
  static const std::vector<std::string_view> v{"<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|channel|>"};
  return v;
}
constexpr size_t kMaxHeader = 1024;

// The word after `key` in a header (up to whitespace or '<'); empty when absent.
std::string header_word(std::string_view h, std::string_view key) {
  size_t p = h.find(key);
  if (p == std::string_view::npos) return {};
  p += key.size();
  size_t e = p;
  while (e < h.size() && !scan::is_json_ws(h[e]) && h[e] != '<') ++e;
  return std::string(h.substr(p, e - p));
}

class HarmonyParser final : public scan::ParserBase {
 public:
  explicit HarmonyParser(const ParseOptions& o) : ParserBase(o) {
    if (o.reasoning_open) {
      st_ = St::Text;
      reasoning_ = true;
    }
  }

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Between: {
        size_t len = 0;
        int m = scan::match_any(rest(), {"<|start|>", "<|channel|>", "to=functions."}, eof, &len);
        if (m == -2) return false;
        if (m < 0) {  // a message without a header: content
          reasoning_ = false;
          st_ = St::Text;
          return true;
        }
        start_recording();
        st_ = St::Header;
        return true;
      }
      case St::Header: {
        std::string_view r = rest();
        // Over-long means no <|message|> starts within kMaxHeader bytes: decided only once every
        // such start is visible, so that it does not depend on the chunking.
        constexpr std::string_view kMessage = "<|message|>";
        size_t p = r.find(kMessage);
        if (p == std::string_view::npos || p > kMaxHeader) {
          if (r.size() >= kMaxHeader + kMessage.size()) return bad_header(sink, false);
          return false;
        }
        header_.assign(r.substr(0, p));
        advance(p + 11);
        std::string channel = header_word(header_, "<|channel|>");
        std::string to = header_word(header_, "to=");
        if (to == "python") {
          // The builtin python tool: the body is code, not JSON; it becomes a call of `python`
          // with {"code": BODY}, as Llama's <|python_tag|> code becomes code_interpreter's.
          open_string_call(sink, "python", "code");
          stop_recording();  // after the announcement: an unknown tool's text starts with the marker
          st_ = St::CodeBody;
          return true;
        }
        if (!to.empty()) {
          name_ = to.rfind("functions.", 0) == 0 ? to.substr(10) : to;
          if (name_.empty()) return bad_header(sink, true);
          args_.reset();
          reasoning_ = false;  // a cut call's text is content
          st_ = St::CallBody;
          return true;
        }
        stop_recording();
        reasoning_ = channel == "analysis";
        st_ = St::Text;
        return true;
      }
      case St::Text: {
        int k = text_until(sink, body_ends(), reasoning_ ? TextKind::Reasoning : TextKind::Content, eof);
        if (k < 0) return false;
        end_of_message(k);
        return true;
      }
      case St::CallBody:
        return args_step(args_, sink, "", name_, st_, {.done = St::AfterCall, .cut = St::Text, .what = "the body of a call"});
      case St::CodeBody: {
        int k = string_arg_until(sink, body_ends(), eof);
        if (k < 0 && !eof) return false;
        close_string_call(sink);
        reasoning_ = false;
        if (k < 0) {  // the output ended (the <|call|> stop token stripped): the call stands
          st_ = St::Between;
          return true;
        }
        advance(body_ends()[k].size());
        end_of_message(k);
        return true;
      }
      case St::AfterCall: {
        // Only the message's end marker should follow; anything else is content.
        if (!skip_ws()) return false;
        reasoning_ = false;
        st_ = St::Text;
        return true;
      }
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::CallBody) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a call to '" + name_ + "'", true);
    else if (st_ == St::Header) {
      if (header_word(rest(), "to=").empty()) {
        stop_recording();  // the unfinished header is kept as content by run()
      } else {
        std::string raw = this->raw() + std::string(rest());
        skip_to_end();
        stop_recording();
        sink.on(ContentDelta{raw});
        warn(sink, WarningKind::TruncatedCall, "output ended inside a call header");
      }
    }
  }

 private:
  enum class St { Between, Header, Text, CallBody, CodeBody, AfterCall } st_ = St::Between;

  void end_of_message(int k) {
    std::string_view m = body_ends()[k];
    if (m == "<|start|>" || m == "<|channel|>") {
      // A new header started without the previous message's end: step back onto its marker
      // (still in the input during this run) and read it as a header.
      pos_ -= m.size();
      start_recording();
      st_ = St::Header;
      return;
    }
    st_ = St::Between;
  }

  // A header that is not one becomes content, with a warning, and reading goes on as content.
  // What it swallows is decided by bytes that have arrived in any chunking: a complete header
  // (through <|message|>) is already consumed; an over-long one is taken up to the next special
  // token within its first kMaxHeader bytes (all present, since it is over-long), so that its
  // opening token is not read as a header again.
  bool bad_header(Sink& sink, bool consumed) {
    if (!consumed) {
      std::string_view r = rest();
      size_t next = r.substr(0, kMaxHeader + 1).find("<|", 1);
      // Without a special token, the bound backs off to a character's start: the text after it is
      // read as text, and a character cut in two would be invalid UTF-8 in both pieces.
      size_t n = next == std::string_view::npos ? scan::utf8_safe_end(r.substr(0, kMaxHeader + 1)) : next;
      raw().append(r.substr(0, n));
      skip(n);
    }
    give_back(sink, WarningKind::MalformedCall, "malformed message header");
    reasoning_ = false;
    st_ = St::Text;
    return true;
  }

  bool reasoning_ = false;
  std::string header_, name_;
  scan::ArgsReader args_;
};

// ---- tool prompt: the TypeScript-like namespace of the Harmony developer message -----------------

std::string ts_type(const Value& s, int depth) {
  if (!s.is_dict() || depth > 6) return "any";
  const DictObj& d = s.dict_obj();
  if (const Value* e = d.find("enum"); e && e->is_list() && !e->items().empty()) {
    std::string out;
    for (const Value& x : e->items()) out += (out.empty() ? "" : " | ") + scan::compact_json(x);
    return out;
  }
  const Value* t = d.find("type");
  std::string type = t && t->is_str() ? std::string(t->str()) : "";
  if (type == "string") return "string";
  if (type == "integer" || type == "number") return "number";
  if (type == "boolean") return "boolean";
  if (type == "null") return "null";
  if (type == "array") {
    const Value* items = d.find("items");
    return items ? ts_type(*items, depth + 1) + "[]" : "any[]";
  }
  if (type == "object") {
    const Value* props = d.find("properties");
    if (!props || !props->is_dict() || props->dict_obj().size() == 0) return "object";
    std::string out = "{\n";
    for (const auto& [k, v] : props->dict_obj().entries)
      out += (k.is_str() ? std::string(k.str()) : std::string("?")) + ": " + ts_type(v, depth + 1) + ",\n";
    return out + "}";
  }
  return "any";
}

std::string prompt(const Value& tools) {
  std::string out = "# Tools\n\n## functions\n\nnamespace functions {\n\n";
  for (const ToolFields& t : tool_fields(tools)) {
    if (t.has_description) out += "// " + t.description + "\n";
    const Value* params = &t.parameters;
    const Value* props = params->is_dict() ? params->dict_obj().find("properties") : nullptr;
    if (!props || !props->is_dict() || props->dict_obj().size() == 0) {
      out += "type " + t.name + " = () => any;\n\n";
      continue;
    }
    std::vector<std::string> required;
    if (const Value* r = params->dict_obj().find("required"); r && r->is_list())
      for (const Value& x : r->items())
        if (x.is_str()) required.emplace_back(x.str());
    out += "type " + t.name + " = (_: {\n";
    for (const auto& [k, v] : props->dict_obj().entries) {
      std::string key = k.is_str() ? std::string(k.str()) : "?";
      if (v.is_dict())
        if (const Value* pd = v.dict_obj().find("description"); pd && pd->is_str()) out += "// " + std::string(pd->str()) + "\n";
      bool req = std::find(required.begin(), required.end(), key) != required.end();
      out += key + (req ? ": " : "?: ") + ts_type(v, 0) + ",\n";
    }
    out += "}) => any;\n\n";
  }
  return out + "} // namespace functions\n\nCalls to these tools must go to the commentary channel: 'functions'.";
}

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<|channel|>")) return 0;
  int s = 60;
  if (scan::has(src, "<|constrain|>") || scan::has(src, "to=functions")) s += 25;
  if (scan::has(src, "<|call|>")) s += 5;
  return s;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<HarmonyParser>(o); }

// An optional analysis message, then a commentary message to functions.NAME with JSON arguments
// (<|call|>, a stop token, may end it).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    // The analysis channel is gpt-oss's reasoning (bounded, and only when the options allow it).
    std::string analysis = b.reasoning("<|channel|>analysis<|message|>", "<|end|><|start|>assistant");
    std::string call = b.name_then_args(tools, "<|channel|>commentary to=functions.", " <|constrain|>json<|message|>");
    return analysis + " " + call + " " + literal("<|call|>") + "?";
  });
}

}  // namespace

const Dialect& dialect_gpt_oss() {
  static const Dialect d{"gpt_oss", {"openai", "harmony", "gpt-oss", "gptoss"},
                         "OpenAI gpt-oss Harmony channels; commentary to=functions.N <|message|>{json}<|call|>", &score,
                         &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
