// ChatGLM3-6B (docs/dialects.md §4.1): <|assistant|> segments (glm_segments.hpp) whose metadata line is
// the tool name and whose body is a python code block holding tool_call(k=v, …), read with a safe
// Python-literal kwargs reader (ChatGLM3 itself uses eval). Metadata "interpreter" is a code
// interpreter call whose body is the code ({"code": …}). A named segment whose body is not a code
// block is text (the first line of a reply without the leading line break).
#include "dialects/gbnf.hpp"
#include "dialects/glm_segments.hpp"
#include "dialects/json_util.hpp"
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
    int k = collect_until(body_, segment_ends(), eof);
    std::string_view b = body_;
    while (!b.empty() && scan::is_json_ws(b.front())) b.remove_prefix(1);
    if (b.size() >= 3 && b.substr(0, 3) != "```") {
      body_.clear();
      as_text(sink);
      return true;
    }
    if (k < 0 && !eof) return false;
    finish_call(sink, k < 0);
    body_.clear();
    end_call();  // the segment end (if any) is handled as after text
    return true;
  }

  void call_end(Sink&) override {}

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
      args = Value::dict();
      args.dict_obj().set(Value::string("code"), Value::string(code));
    } else {
      std::string err;
      auto kw = pylit::parse_call_kwargs(code, "tool_call", &err);
      if (!kw) {
        give_back(sink, WarningKind::MalformedCall, "call to '" + name_ + "': " + err);
        return;
      }
      args = std::move(*kw);
    }
    stop_recording();
    emit_call(sink, "", name_, args);
  }

  std::string body_;
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
