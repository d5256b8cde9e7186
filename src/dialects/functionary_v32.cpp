// MeetKai Functionary v3.2 (docs/dialects.md §7.1; llama.cpp common_chat_parse_functionary_v3_2 and its
// tests). The generation prompt ends with ">>>", so the output starts with a recipient line:
//   all\nTEXT            content (to the next ">>>")
//   NAME\n{…}            a call with JSON arguments
//   python\nCODE         a call of `python`: JSON arguments, or raw code ({"code": CODE})
// and further segments follow as ">>>RECIPIENT\n…". An output that does not start with a recipient
// line is content (">>>" segments after it are still parsed).
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include <cctype>

#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kSep = ">>>";
constexpr size_t kMaxName = 128;

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

class FunctionaryV32Parser final : public scan::ParserBase {
 public:
  explicit FunctionaryV32Parser(const ParseOptions& o) : ParserBase(o) {}

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start:
        start_recording();
        st_ = St::Recipient;
        at_start_ = true;
        return true;
      case St::Recipient: return recipient(sink, eof);
      case St::Content: {
        if (text_until(sink, {kSep}, TextKind::Content, eof) < 0) return false;
        start_recording(kSep);
        at_start_ = false;
        st_ = St::Recipient;
        return true;
      }
      case St::Json:
        return args_step(args_, sink, "", name_, st_, {.done = St::AfterCall, .cut = St::Content, .not_object = kNotObject});
      case St::Code: {
        // Raw python code runs to the next ">>>" or the end.
        if (string_arg_until(sink, {kSep}, eof) < 0 && !eof) return false;
        close_string_call(sink);
        st_ = St::Content;
        return true;
      }
      case St::AfterCall: return ws_then_content(st_);
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::Json) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the arguments of '" + name_ + "'", true);
    else if (st_ == St::Recipient && recording_) {
      if (at_start_) { give_back_quietly(sink); }
      else give_back(sink, WarningKind::TruncatedCall, "output ended inside a >>> recipient line");
    }
  }

 private:
  // The recipient line: a name and '\n'. At the very start, anything else is plain content; after
  // ">>>" it is a malformed segment.
  bool recipient(Sink& sink, bool eof) {
    std::string_view r = rest();
    size_t i = 0;
    while (i < r.size() && i <= kMaxName && ident_char(r[i])) ++i;
    if (i == r.size() && i <= kMaxName && !eof) return false;
    if (i == r.size() && i <= kMaxName && !at_start_) return truncated(sink);
    if (i == 0 || i > kMaxName || i == r.size() || r[i] != '\n') return not_a_call(sink, "no recipient line after >>>");
    name_.assign(r.substr(0, i));
    if (name_ == "all") {
      advance(i + 1);
      stop_recording();
      st_ = St::Content;
      return true;
    }
    // NAME\n{ (llama.cpp's rule), or python\n followed by anything (raw code).
    if (i + 1 == r.size()) {
      if (!eof) return false;
      return at_start_ ? not_a_call(sink, "") : truncated(sink);
    }
    bool json = r[i + 1] == '{';
    if (!json && name_ != "python") return not_a_call(sink, "'" + name_ + "' is not followed by JSON arguments");
    advance(i + 1);
    if (json) {
      args_.reset();
      st_ = St::Json;
    } else {
      open_string_call(sink, name_, "code");
      stop_recording();  // after the announcement: an unknown tool's text starts with the marker
      st_ = St::Code;
    }
    return true;
  }

  bool truncated(Sink& sink) {
    give_back(sink, WarningKind::TruncatedCall, "output ended inside a >>> segment");
    st_ = St::Content;
    return true;
  }

  bool not_a_call(Sink& sink, const std::string& why) {
    if (at_start_ && st_ == St::Recipient) {
      // Plain text from the start.
      stop_recording();
    } else {
      give_back(sink, WarningKind::MalformedCall, why);
    }
    at_start_ = false;
    st_ = St::Content;
    return true;
  }

  enum class St { Start, Recipient, Content, Json, Code, AfterCall } st_ = St::Start;
  bool at_start_ = true;
  std::string name_;
  scan::ArgsReader args_;
};

// A JSON schema type as TypeScript (Functionary's prompt renders the tools as a TypeScript namespace).
std::string ts_type(const Value& schema) {
  if (!schema.is_dict()) return "any";
  const DictObj& d = schema.dict_obj();
  if (const Value* e = d.find("enum"); e && e->is_list()) {
    std::string out;
    for (const Value& v : e->items()) out += (out.empty() ? "" : " | ") + scan::compact_json(v);
    if (!out.empty()) return out;
  }
  const Value* t = d.find("type");
  std::string type = t && t->is_str() ? std::string(t->str()) : "";
  if (type == "string") return "string";
  if (type == "number" || type == "integer") return "number";
  if (type == "boolean") return "boolean";
  if (type == "null") return "null";
  if (type == "array") {
    const Value* items = d.find("items");
    return (items ? ts_type(*items) : std::string("any")) + "[]";
  }
  if (type == "object") return "object";
  return "any";
}

std::string prompt(const Value& tools) {
  std::string out =
      "You are capable of executing available function(s) if required.\nOnly execute function(s) when absolutely "
      "necessary.\nAsk for the required input to:recipient==all\nUse JSON for function arguments.\nRespond in this "
      "format:\n>>>${recipient}\n${content}\nAvailable functions:\n// Supported function definitions that should be "
      "called when necessary.\nnamespace functions {\n\n";
  for (const ToolFields& t : tool_fields(tools)) {
    out += "// " + t.description + "\ntype " + t.name + " = (_: {\n";
    const Value* props = t.parameters.is_dict() ? t.parameters.dict_obj().find("properties") : nullptr;
    const Value* req = t.parameters.is_dict() ? t.parameters.dict_obj().find("required") : nullptr;
    if (props && props->is_dict()) {
      for (const auto& [k, v] : props->dict_obj().entries) {
        if (!k.is_str()) continue;
        bool required = false;
        if (req && req->is_list())
          for (const Value& r : req->items()) required = required || (r.is_str() && r.str() == k.str());
        if (v.is_dict())
          if (const Value* d = v.dict_obj().find("description"); d && d->is_str()) out += "// " + std::string(d->str()) + "\n";
        out += std::string(k.str()) + (required ? ": " : "?: ") + ts_type(v) + ",\n";
      }
    }
    out += "}) => any;\n\n";
  }
  return out + "} // namespace functions";
}

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, ">>>all")) s += 75;
  if (scan::has(src, ">>>' + ") || scan::has(src, ">>>${recipient}") || scan::has(src, "recipient==all")) s += 10;
  return s;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<FunctionaryV32Parser>(o); }

// NAME\n{json} (the prompt ends with ">>>"), then further calls each after ">>>".
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    std::string call = b.name_then_args(tools, "", "\n");
    return b.calls(call, ws + " \">>>\"");
  });
}

}  // namespace

const Dialect& dialect_functionary_v32() {
  static const Dialect d{"functionary_v32", {"functionary", "functionary_v3_2", "functionary-v3.2", "meetkai_v32"},
                         "MeetKai Functionary v3.2 >>>RECIPIENT\\n segments (all = content, NAME = JSON call, python = code)",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
