// ChatGLM3-6B (docs/dialects.md §4.1): <|assistant|> segments (glm_segments.hpp) whose metadata line is
// the tool name and whose body is a python code block holding tool_call(k=v, …), read with a safe
// Python-literal kwargs reader (ChatGLM3 itself uses eval). Metadata "interpreter" is a code
// interpreter call whose body is the code ({"code": …}). A named segment whose body is not a code
// block is text (the first line of a reply without the leading line break).
//
// A tool call streams: once the block's `tool_call(` is read the call is announced and its keyword
// arguments go out as they arrive (pylit::KwargsStream); the interpreter's code streams as it arrives
// (code_step). Any other body (a block that does not start with `tool_call(`) is read whole to the
// segment's end.
#include "dialects/gbnf.hpp"
#include "dialects/glm_segments.hpp"
#include "dialects/json_util.hpp"
#include "dialects/py_kwargs_stream.hpp"
#include "dialects/py_literal.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

class ChatGlm3Parser final : public GlmSegmentParser {
 public:
  // No reasoning block in this family: reasoning_open has nothing to open.
  explicit ChatGlm3Parser(const ParseOptions& o) : GlmSegmentParser(without_reasoning(o), "", "") {}
  static ParseOptions without_reasoning(ParseOptions o) {
    o.reasoning_open = false;
    return o;
  }

 protected:
  bool call_step(Sink& sink, bool eof) override {
    switch (cs_) {
      case Cs::Fence: {  // whitespace, then ``` (anything else: the segment is text)
        std::string_view r = rest();
        size_t i = 0;
        while (i < r.size() && scan::is_json_ws(r[i])) ++i;
        if (r.size() - i < 3) return eof ? to_whole() : false;
        if (r.substr(i, 3) != "```") {
          reset_call();
          as_text(sink);
          return true;
        }
        take(i + 3);
        cs_ = Cs::Tag;
        return true;
      }
      case Cs::Tag: {  // the language tag line
        std::string_view r = rest();
        size_t nl = r.find('\n');
        if (nl == std::string_view::npos) return eof || r.size() > kMaxTag ? to_whole() : false;
        for (char c : r.substr(0, nl))
          if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ')) return to_whole();
        take(nl + 1);
        if (name_ == "interpreter") {
          open_string_call(sink, name_, "code");
          code_ = {};
          cs_ = Cs::Code;
          return true;
        }
        cs_ = Cs::Head;
        return true;
      }
      case Cs::Head: {
        std::string_view r = rest();
        size_t i = 0;
        while (i < r.size() && scan::is_json_ws(r[i])) ++i;
        constexpr std::string_view kHead = "tool_call(";
        std::string_view t = r.substr(i);
        size_t n = std::min(t.size(), kHead.size());
        if (t.substr(0, n) != kHead.substr(0, n)) return to_whole();
        if (n < kHead.size()) return eof ? to_whole() : false;
        take(i + kHead.size());
        kwargs_.reset();
        cs_ = Cs::Args;
        return true;
      }
      case Cs::Args:
        switch (read_kwargs(kwargs_, sink, name_, eof, NotArgs::Cut)) {
          case Read::NeedMore: return false;  // at eof, call_end cuts it
          case Read::Done: cs_ = Cs::Tail; return true;
          default:
            reset_call();
            end_call();
            return true;
        }
      case Cs::Tail: {  // the block's closing ```; anything else is the segment's text
        std::string_view r = rest();
        size_t i = 0;
        while (i < r.size() && scan::is_json_ws(r[i])) ++i;
        if (r.size() - i < 3 && !eof) return false;
        bool fence = r.substr(i, 3) == "```";
        if (fence) advance(i + 3);
        else warn(sink, WarningKind::MissingCloseMarker, "the code block of '" + name_ + "' is not closed");
        reset_call();
        end_call();
        return true;
      }
      case Cs::Code: return code_step(sink, eof);
      case Cs::CodeFence: return code_fence_step(sink, eof);
      case Cs::Whole: break;
    }
    int k = collect_until(body_, segment_ends(), eof);
    std::string_view b = body_;
    while (!b.empty() && scan::is_json_ws(b.front())) b.remove_prefix(1);
    if (b.size() >= 3 && b.substr(0, 3) != "```") {
      reset_call();
      as_text(sink);
      return true;
    }
    if (k < 0 && !eof) return false;
    finish_call(sink, k < 0);
    reset_call();
    end_call();  // the segment end (if any) is handled as after text
    return true;
  }

  void call_end(Sink& sink) override {
    if (cs_ == Cs::Args || cs_ == Cs::Code) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the arguments of '" + name_ + "'", true);
    reset_call();
  }

 private:
  void finish_call(Sink& sink, bool at_eof) {
    std::string_view body = textargs::trim(body_);
    std::string_view code = textargs::strip_code_fence(body);
    if (code == body) {
      give_back(sink, at_eof ? WarningKind::TruncatedCall : WarningKind::MalformedCall,
                "the body of '" + name_ + "' is not a complete code block");
      return;
    }
    Value args;
    if (name_ == "interpreter") {
      args = DictBuilder().add("code", code).build();
    } else {
      std::string err;
      auto kw = pylit::parse_call_kwargs(code, "tool_call", &err);
      if (!kw) {
        give_back(sink, WarningKind::MalformedCall, "call to '" + name_ + "': " + err);
        return;
      }
      args = std::move(*kw);
    }
    emit_call(sink, "", name_, args);
    stop_recording();  // after: an unknown tool's text is the recording (note_call)
  }

  // The interpreter's code streams as it arrives. It is the block's text trimmed (as the whole
  // block's strip_code_fence would give it): leading whitespace is skipped, trailing whitespace held
  // until text follows. A ``` ends the code only when the segment or the output ends after it
  // (whitespace between); before anything else it is code.
  bool code_step(Sink& sink, bool eof) {
    static const std::vector<std::string_view> markers = scan::joined({"```"}, segment_ends());
    int k = trimmed_string_until(sink, markers, code_, eof);
    if (k < 0) {
      if (!eof) return false;
      abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the code of '" + name_ + "'", true);
    } else if (k == 0) {
      advance(3);
      fence_ws_.clear();
      cs_ = Cs::CodeFence;
      return true;
    } else {
      abandon_call(sink, WarningKind::MalformedCall, "the body of '" + name_ + "' is not a complete code block");
    }
    reset_call();
    end_call();
    return true;
  }
  bool code_fence_step(Sink& sink, bool eof) {
    std::string_view r = rest();
    size_t i = 0;
    while (i < r.size() && scan::is_json_ws(r[i])) ++i;
    fence_ws_.append(r.substr(0, i));
    advance(i);
    if (i == r.size() && !eof) return i > 0;
    bool ends = i == r.size();
    for (std::string_view m : segment_ends()) {
      std::string_view t = rest().substr(0, m.size());
      if (m.starts_with(t) && t.size() < m.size() && !eof) return false;  // could still be the marker
      ends = ends || t == m;
    }
    if (!ends) {  // the fence and its whitespace were code
      call_trimmed_text(sink, "```", code_);
      call_trimmed_text(sink, fence_ws_, code_);
      cs_ = Cs::Code;
      return true;
    }
    close_string_call(sink);
    stop_recording();
    reset_call();
    end_call();
    return true;
  }
  // The streamed path's bytes are kept in body_ too, for the whole path to take over.
  void take(size_t n) {
    body_.append(rest().substr(0, n));
    advance(n);
  }
  bool to_whole() {
    cs_ = Cs::Whole;
    return true;
  }
  void reset_call() {
    body_.clear();
    cs_ = Cs::Fence;
  }

  static constexpr size_t kMaxTag = 32;
  enum class Cs { Fence, Tag, Head, Args, Tail, Code, CodeFence, Whole } cs_ = Cs::Fence;
  std::string body_;
  Trimmed code_;          // the interpreter's code
  std::string fence_ws_;  // the whitespace after a ``` in the code
  pylit::KwargsStream kwargs_;
};

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, "Answer the following questions as best as you can. You have access to the following tools:")) s += 70;
  // The HF chatglm3-6b template: "[gMASK]sop<|role|>\n content" (GLM-4 writes "[gMASK]<sop>").
  if (scan::has(src, "[gMASK]sop") && scan::has(src, "<|assistant|>")) s += 60;
  return s;
}

std::string prompt(const Value& tools) {
  return "Answer the following questions as best as you can. You have access to the following tools:\n" +
         python_json(function_objects(tools), "    ");
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<ChatGlm3Parser>(o); }

// NAME then a ```python block with tool_call(key=value, …) (Python literals), several joined by
// <|assistant|>; the <|observation|> stop token may end the output.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.per_tool_params(tools, "call", [&](const std::string& name, const Value& params) {
      return literal(name + "\n```python\ntool_call(") + " " + ws + " " + b.py_kwargs(params, name + "-kwargs") + " " + ws + " " +
             literal(")\n```");
    });
    return ws + " " + b.calls(call, literal("<|assistant|>")) + " " + literal("<|observation|>") + "?";
  });
}

}  // namespace

const Dialect& dialect_chatglm3() {
  static const Dialect d{"chatglm3", {"chatglm3_6b", "chatglm"},
                         "ChatGLM3: <|assistant|>NAME then a code block with tool_call(k=v)", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
