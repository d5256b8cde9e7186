// GLM-4-9B-chat and GLM-4-0414 / GLM-Z1 (docs/dialects.md §4.2): <|assistant|> segments
// (glm_segments.hpp) whose metadata line is the tool name and whose body is the JSON arguments:
// "get_weather\n{\"city\": \"Beijing\"}". A named segment whose body does not start with '{' is text;
// when the request's tools are known, only their names start a call (otherwise a one-word first line
// of a reply would be taken for one). <think>…</think> (GLM-Z1) is accepted first.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/glm_segments.hpp"
#include "dialects/json_util.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

class Glm4Parser final : public GlmSegmentParser {
 public:
  explicit Glm4Parser(const ParseOptions& o) : GlmSegmentParser(o, "<think>", "</think>") {}

 protected:
  bool accepts_name(std::string_view name) const override {
    if (!GlmSegmentParser::accepts_name(name)) return false;
    return !call_kept_as_content(opts_.tools, name);
  }

  bool call_step(Sink& sink, bool /*eof: call_end() handles it*/) override {
    if (!started_) {
      if (!skip_ws()) return false;
      if (rest()[0] != '{') {
        as_text(sink);
        return true;
      }
      started_ = true;
      args_.reset();
    }
    if (read_args(args_, sink, "", name_, "arguments", OnArgsDone::CloseCall, NotArgs::Cut) == Read::NeedMore) return false;
    done();
    return true;
  }

  void call_end(Sink& sink) override {
    if (started_) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the arguments of '" + name_ + "'", true);
    else as_text(sink);  // a name line and nothing after it
  }

 private:
  void done() {
    started_ = false;
    end_call();
  }
  bool started_ = false;
  scan::ArgsReader args_;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<|assistant|>") || !scan::has(src, "[gMASK]<sop>")) return 0;
  // GLM-4.5/4.6/4.7 write XML arguments inside <tool_call> (another family).
  if (scan::has(src, "<arg_key>") || scan::has(src, "<tool_call>")) return 10;
  int s = 50;
  if (scan::has(src, "在调用上述函数时，请使用 Json 格式表示调用的参数")) s += 25;
  if (scan::has(src, "<|observation|>")) s += 10;
  return s;
}

// The system text the glm-4-9b-chat template renders with tools: per tool "\n## NAME\n\n" (the
// template writes "\n\n## " after a block tag, and trim_blocks eats one line break) + the function
// object as tojson(indent=4) + the Json instruction.
std::string prompt(const Value& tools) {
  std::string out =
      "你是一个名为 ChatGLM 的人工智能助手。你是基于智谱AI训练的语言模型 GLM-4 模型开发的，你的任务是针对用户的问题和要求提供适当的答复和支持。"
      "\n\n# 可用工具";
  if (!tools.is_list()) return out;
  for (const Value& t : tools.items()) {
    const Value* f = t.is_dict() ? t.dict_obj().find("function") : nullptr;
    const Value& fn = f && f->is_dict() ? *f : t;
    const Value* name = fn.is_dict() ? fn.dict_obj().find("name") : nullptr;
    if (!name || !name->is_str()) continue;
    out += "\n## " + std::string(name->str()) + "\n\n" + python_json(fn, "    ") + "\n在调用上述函数时，请使用 Json 格式表示调用的参数。";
  }
  return out;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<Glm4Parser>(o); }

// NAME\n{json} segments (several joined by a newline or <|assistant|>), after an optional <think>
// block; the <|observation|> stop token may end the output.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.name_then_args(tools, "", "\n");
    return b.reasoning("<think>", "</think>") + " " + ws + " " + b.calls(call, "( " + ws + " | " + literal("<|assistant|>") + " )") + " " + literal("<|observation|>") + "?";
  });
}

}  // namespace

const Dialect& dialect_glm4() {
  static const Dialect d{"glm4", {"glm4_9b", "glm4_0414", "glm_z1", "chatglm4"},
                         "GLM-4: <|assistant|>NAME then its JSON arguments", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
