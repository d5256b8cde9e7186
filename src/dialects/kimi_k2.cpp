// Moonshot Kimi K2 / K2-Instruct / K2-Thinking (docs/dialects.md §7.6; SGLang KimiK2Detector, llama.cpp
// Kimi-K2-Thinking tests):
//   <|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{…}<|tool_call_end|>
//   (<|tool_call_begin|>…)*<|tool_calls_section_end|>
// `functions.NAME:IDX` is the call's id (tool results refer to it: "## Return of functions.NAME:IDX"),
// so it is kept as the id; the name is the part between `functions.` (sometimes missing) and the
// last ':'. Reasoning is <think>…</think>; K2-Thinking may start the calls at the end of its
// reasoning without closing it, and may leave out the section and call-end markers, so the call
// markers (special tokens, which cannot occur in prose) also end the reasoning block.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kSectionBegin = "<|tool_calls_section_begin|>";
constexpr std::string_view kSectionEnd = "<|tool_calls_section_end|>";
constexpr std::string_view kCallBegin = "<|tool_call_begin|>";
constexpr std::string_view kArgBegin = "<|tool_call_argument_begin|>";
constexpr std::string_view kCallEnd = "<|tool_call_end|>";
constexpr size_t kMaxId = 256;

class KimiParser final : public scan::ParserBase {
 public:
  explicit KimiParser(const ParseOptions& o) : ParserBase(o) { st_ = o.reasoning_open ? St::Reasoning : St::Start; }

 protected:
  bool step(Sink& sink, bool eof) override {
    size_t len = 0;
    switch (st_) {
      case St::Start: {
        Match m = match("<think>", eof);
        if (m == Match::NeedMore) return false;
        st_ = m == Match::Yes ? St::Reasoning : St::Content;
        return true;
      }
      case St::Reasoning: {
        int k = text_until(sink, {"</think>", kSectionBegin, kCallBegin}, TextKind::Reasoning, eof);
        if (k < 0) return false;
        if (k == 0) st_ = St::AfterThink;
        else open_calls(k == 1 ? kSectionBegin : kCallBegin, k == 1);
        return true;
      }
      case St::AfterThink: return ws_then_content(st_, /*drop_ws=*/true);
      case St::Content: {
        int k = text_until(sink, {kSectionBegin, kCallBegin}, TextKind::Content, eof);
        if (k < 0) return false;
        open_calls(k == 0 ? kSectionBegin : kCallBegin, k == 0);
        return true;
      }
      case St::Between: {
        int m = scan::match_any(rest(), {kCallBegin, kSectionEnd}, eof, &len);
        if (m == -2) return false;
        if (m == 0) {
          advance(len);
          st_ = St::Id;
          return true;
        }
        if (m == 1) {
          advance(len);
          stop_recording();
          st_ = St::AfterSection;
          return true;
        }
        if (in_section_ == 0 && section_) return eof ? false : malformed(sink, "no call after <|tool_calls_section_begin|>", st_);
        if (section_) warn(sink, WarningKind::MissingCloseMarker, "tool calls section without <|tool_calls_section_end|>");
        stop_recording();
        st_ = St::Content;
        return true;
      }
      case St::Id: {
        std::string_view r = rest();
        scan::MarkerHit h = scan::find_marker(r, {kArgBegin});
        std::string_view id = r.substr(0, h.pos);
        if (id.find('<') != std::string_view::npos || id.find('\n') != std::string_view::npos || h.pos > kMaxId)
          return malformed(sink, "no <|tool_call_argument_begin|> after the call id", st_);
        if (h.which < 0) return false;
        id_.assign(id);
        while (!id_.empty() && scan::is_json_ws(id_.back())) id_.pop_back();
        while (!id_.empty() && scan::is_json_ws(id_.front())) id_.erase(0, 1);
        advance(h.pos + kArgBegin.size());
        if (!split_id()) return malformed(sink, "bad call id '" + id_ + "'", st_);
        args_.reset();
        st_ = St::Args;
        return true;
      }
      case St::Args:
        return args_step(args_, sink, id_, name_, st_, {.done = St::CallEnd, .cut = St::Content, .close = false, .not_object = kNotObject});
      case St::CallEnd: {
        int m = scan::match_any(rest(), {kCallEnd}, eof, &len);
        if (m == -2) return false;
        if (m == 0) advance(len);
        close_call(sink);
        if (m != 0) warn(sink, WarningKind::MissingCloseMarker, "call without <|tool_call_end|>");
        ++in_section_;
        start_recording();
        st_ = St::Between;
        return true;
      }
      case St::AfterSection: return ws_then_content(st_);
    }
    return false;
  }

  void at_end(Sink& sink) override {
    switch (st_) {
      case St::Reasoning: warn(sink, WarningKind::UnclosedReasoning, "output ended inside the reasoning block"); return;
      case St::Between:
        if (in_section_ > 0 || !section_) {
          if (section_) warn(sink, WarningKind::MissingCloseMarker, "tool calls section without <|tool_calls_section_end|>");
          stop_recording();
          return;
        }
        break;
      case St::Id: case St::Args: case St::CallEnd: break;
      default: return;
    }
    abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a tool call", true);
  }

 private:
  void open_calls(std::string_view marker, bool section) {
    start_recording(marker);
    section_ = section;
    in_section_ = 0;
    st_ = section ? St::Between : St::Id;
  }
  // functions.NAME:IDX -> NAME; the id is kept as written. Without ":IDX" the id is generated.
  bool split_id() {
    std::string_view s = id_;
    if (s.starts_with("functions.")) s.remove_prefix(10);
    size_t colon = s.rfind(':');
    bool indexed = colon != std::string_view::npos && colon + 1 < s.size() &&
                   s.find_first_not_of("0123456789", colon + 1) == std::string_view::npos;
    name_.assign(indexed ? s.substr(0, colon) : s);
    // A bare counter ("0") instead of functions.NAME:IDX names the request's only tool (vLLM's
    // Kimi K2 parser infers it so); the counter stays the id.
    if (!name_.empty() && name_.find_first_not_of("0123456789") == std::string::npos && !indexed) {
      if (std::optional<std::string> only = only_tool()) {
        name_ = *only;
        return true;
      }
    }
    if (!indexed) id_.clear();
    return !name_.empty();
  }
  std::optional<std::string> only_tool() const {
    std::vector<ToolFields> tools = tool_fields(opts_.tools);
    if (tools.size() != 1) return std::nullopt;
    return tools[0].name;
  }

  enum class St { Start, Reasoning, AfterThink, Content, Between, Id, Args, CallEnd, AfterSection } st_;
  bool section_ = false;
  size_t in_section_ = 0;
  std::string id_, name_;
  scan::ArgsReader args_;
};

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, "<|tool_calls_section_begin|>")) s += 70;
  if (scan::has(src, "<|tool_call_begin|>")) s += 5;
  if (scan::has(src, "tool_declare")) s += 5;
  if (scan::has(src, "## Return of")) s += 5;
  return s;
}

std::string prompt(const Value& tools) {
  std::string list;
  if (tools.is_list()) list = scan::compact_json(tools);
  return "# Tools\nYou can call these functions (OpenAI tool JSON):\n" + list +
         "\n\nTo call functions, write:\n<|tool_calls_section_begin|><|tool_call_begin|>functions.NAME:0"
         "<|tool_call_argument_begin|>{JSON arguments}<|tool_call_end|><|tool_calls_section_end|>\n"
         "For several calls, put one <|tool_call_begin|>…<|tool_call_end|> per call in the same section, numbered "
         ":0, :1, :2 and so on.";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<KimiParser>(o); }

// Calls functions.NAME:IDX<|tool_call_argument_begin|>{json} inside the calls section, after an optional
// <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.per_tool(tools, "call", [&](const std::string& name, const std::string& args) {
      return literal("<|tool_call_begin|>functions." + name + ":") + " [0-9]{1,4} " + literal("<|tool_call_argument_begin|>") + " " +
             args + " " + literal("<|tool_call_end|>");
    });
    return b.reasoning("<think>", "</think>") + " " + literal("<|tool_calls_section_begin|>") + " " + ws + " " + b.calls(call, ws) + " " + ws + " " +
           literal("<|tool_calls_section_end|>");
  });
}

}  // namespace

const Dialect& dialect_kimi_k2() {
  static const Dialect d{"kimi_k2", {"kimi", "kimi-k2", "kimi_k2_thinking", "moonshot"},
                         "Moonshot Kimi K2: <|tool_call_begin|>functions.NAME:IDX<|tool_call_argument_begin|>{json}",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
