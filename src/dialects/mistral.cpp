// Mistral (docs/dialects.md §6): v3/v7 `[TOOL_CALLS][{"name", "arguments", "id"}, …]` (a space after the
// marker allowed), v11 `[TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}`, v13 `[TOOL_CALLS]NAME[ARGS]{…}` (and
// `[TOOL_CALLS]NAME{…}` when the markers were decoded away), parallel calls by repeating the prefix;
// a single call object after the marker, without the array (SGLang's Mistral detector reads it too);
// [THINK]…[/THINK] reasoning (Magistral). Ids are kept; missing ones are generated with 9 alphanumerics.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/scan.hpp"
#include "dialects/json_util.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

class MistralParser final : public scan::ThinkParser {
 public:
  explicit MistralParser(const ParseOptions& o) : ThinkParser(o, "[THINK]", "[/THINK]") { id_len_ = 9; }

 protected:
  bool body_step(Sink& sink, bool eof) override {
    size_t len = 0;
    switch (st_) {
      case St::Content: {
        if (text_until(sink, {"[TOOL_CALLS]"}, TextKind::Content, eof) < 0) return false;
        start_recording("[TOOL_CALLS]");
        name_.clear();
        id_.clear();
        args_.reset();
        list_.reset(scan::CallReader::Mode::List, {"arguments", "parameters"}, true);
        list_.skip_bad_elements = true;
        st_ = St::After;
        return true;
      }
      case St::After: {
        int m = scan::match_any(rest(), {"[", "{"}, eof, &len);
        if (m == -2) return false;
        if (m == 1) list_.reset(scan::CallReader::Mode::Object, {"arguments", "parameters"}, true);  // one call, unwrapped (SGLang)
        if (m >= 0) { st_ = St::Array; return true; }
        skip_ws();
        st_ = St::Name;
        return true;
      }
      case St::Array: {
        Read r = read_calls(list_, sink, "the list after [TOOL_CALLS]");
        if (r != Read::NotCall) return moved(r, st_, St::AfterCall, St::Content);
        if (!list_.json_ended()) return malformed(sink, "[TOOL_CALLS] not followed by a JSON array or call object", st_);
        give_back(sink, WarningKind::MalformedCall, "[TOOL_CALLS] not followed by calls");
        st_ = St::AfterCall;
        return true;
      }
      case St::Name: {
        std::string_view r = rest();
        size_t i = 0;
        // at most one byte past the bound, so the refusal comes at the same byte in any chunking
        while (i < r.size() && name_.size() + i <= 256 && name_char(r[i])) ++i;
        name_.append(r.substr(0, i));
        advance(i);
        if (name_.size() > 256) return malformed(sink, "tool name too long", st_);
        if (i == r.size()) return i > 0;
        if (name_.empty()) return malformed(sink, "[TOOL_CALLS] not followed by a name or an array", st_);
        st_ = St::NameEnd;
        return true;
      }
      case St::NameEnd: {
        int m = scan::match_any(rest(), {"[CALL_ID]", "[ARGS]", "{"}, eof, &len);
        if (m == -2) return false;
        if (m < 0) return eof ? false : malformed(sink, "expected [CALL_ID] or [ARGS] after the name", st_);
        if (m < 2) advance(len);
        st_ = m == 0 ? St::Id : St::Args;
        return true;
      }
      case St::Id: {
        std::string_view r = rest();
        size_t i = 0;
        while (i < r.size() && id_.size() + i <= 64 && std::isalnum(static_cast<unsigned char>(r[i]))) ++i;
        id_.append(r.substr(0, i));
        advance(i);
        if (id_.size() > 64) return malformed(sink, "call id too long", st_);
        if (i == r.size()) return i > 0;
        int m = scan::match_any(rest(), {"[ARGS]"}, eof, &len);
        if (m == -2) return false;
        if (m < 0) return malformed(sink, "expected [ARGS] after the call id", st_);
        advance(len);
        st_ = St::Args;
        return true;
      }
      case St::Args:
        return args_step(args_, sink, id_, name_, st_, {.done = St::AfterCall, .cut = St::Content, .not_object = kNotObject});
      case St::AfterCall: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ != St::Content && st_ != St::AfterCall) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a tool call", true);
  }

 private:
  enum class St { Content, After, Array, Name, NameEnd, Id, Args, AfterCall } st_ = St::Content;
  std::string name_, id_;
  scan::ArgsReader args_;
  scan::CallReader list_;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "[TOOL_CALLS]")) return 0;
  int s = 60;
  if (scan::has(src, "[AVAILABLE_TOOLS]")) s += 10;
  return s;
}

std::string prompt(const Value& tools) {
  std::string list;
  if (tools.is_list()) {
    std::vector<Value> items = tools.items();
    list = scan::compact_json(Value::list(items));
  }
  return "[AVAILABLE_TOOLS]" + list + "[/AVAILABLE_TOOLS]";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<MistralParser>(o); }

// v3/v7 [TOOL_CALLS][{"name", "arguments", "id"?}, …] or v11/v13 [TOOL_CALLS]NAME[CALL_ID]ID?[ARGS]{…}
// repeated, after an optional [THINK] block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string id = b.rule("id-key", "( " + ws + " \",\" " + ws + " \"\\\"id\\\"\" " + ws + " \":\" " + ws + " " + b.json_call_id() + " )?");
    std::string list = literal("[TOOL_CALLS]") + " " + ws + " " + b.json_list(b.call_object(tools, "name", "arguments", id), "call-list");
    std::string named = b.per_tool(tools, "named-call", [&](const std::string& name, const std::string& args) {
      return literal("[TOOL_CALLS]" + name) + " ( " + literal("[CALL_ID]") + " [a-zA-Z0-9]{9} )? " + literal("[ARGS]") + " " + args;
    });
    return b.reasoning("[THINK]", "[/THINK]") + " ( " + list + " | " + b.calls(named, ws) + " )";
  });
}

}  // namespace

const Dialect& dialect_mistral() {
  static const Dialect d{"mistral", {"mistral_nemo", "magistral", "ministral"},
                         "Mistral [TOOL_CALLS] (v3/v7 array, v11 [CALL_ID], v13 [ARGS])", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
