// Qwen-Agent ✿FUNCTION✿ dialect (docs/dialects.md §3.3):
//   [text\n]✿FUNCTION✿: NAME\n✿ARGS✿: {json}
// repeated for parallel calls (several ✿ARGS✿: under one ✿FUNCTION✿: are several calls of that
// tool); the stop words ✿RESULT✿ / ✿RETURN✿ end the turn, so a model that writes them has started
// inventing results and the rest is dropped. As in Qwen-Agent's postprocessing, text after the
// arguments' last '}' (or a code block's closing fence) is cut, a leading ": " left by a prompt
// ending in "✿RETURN✿" is removed, and non-JSON arguments (code_interpreter's code block) are
// passed as {FIRST_PARAM: text}. <think>…</think> reasoning is accepted first.
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/qwen_agent.hpp"

#include "dialects/compact_json_text.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

const std::vector<std::string_view> kMarkers = {"\n✿FUNCTION✿:", "✿FUNCTION✿:", "\n✿ARGS✿:", "✿ARGS✿:",
                                                "\n✿RESULT✿",    "✿RESULT✿",    "\n✿RETURN✿", "✿RETURN✿"};
enum Kind { kFunction, kArgs, kStop };
Kind kind(int k) { return k < 2 ? kFunction : k < 4 ? kArgs : kStop; }

class QwenAgentParser final : public scan::ThinkParser {
 public:
  explicit QwenAgentParser(const ParseOptions& o) : ThinkParser(o, "<think>", "</think>") {}

 protected:
  bool name_step(Sink& sink, bool eof) {
    int k = collect_until(name_, kMarkers, eof);
    if (k < 0 && !eof) return false;
    std::string name(textargs::trim(name_));
    if (k < 0 || name.empty() || name.find('\n') != std::string::npos) {
      give_back(sink, k < 0 ? WarningKind::TruncatedCall : WarningKind::MalformedCall,
                "✿FUNCTION✿: without a tool name and ✿ARGS✿:");
      st_ = St::Content;
      return true;
    }
    name_ = name;
    if (kind(k) == kArgs) {
      advance(kMarkers[k].size());
      args_.clear();
      st_ = St::ArgsStart;
    } else {
      // A name followed by a stop word or another call: Qwen-Agent calls it with empty arguments.
      emit_call(sink, "", name_, Value::dict());
      stop_recording();  // after: an unknown tool's text is the recording (note_call)
      st_ = St::Content;
    }
    return true;
  }

  bool args_start_step(Sink& sink, bool eof) {
    // A JSON object streams as it is written; any other arguments are read whole (St::Args).
    std::string_view r = rest();
    size_t i = 0;
    while (i < r.size() && scan::is_json_ws(r[i])) ++i;
    if (i == r.size() && !eof) return false;
    if (i < r.size() && r[i] == '{') {
      advance(i);
      json_.reset();
      st_ = St::ArgsJson;
      return true;
    }
    // Text or a code block streams into the tool's first parameter, what finish_call gives it
    // whole; empty arguments (a marker at once) are read whole.
    scan::MarkerHit h = scan::find_marker(r.substr(i), kMarkers);
    if (h.pos == 0 && h.which < 0 && !eof) return false;
    std::string_view t = r.substr(i);
    if (!t.empty() && h.pos > 0 && t[0] == '`' && t.size() < 3 && !eof) return false;
    st_ = St::Args;
    if (t.empty() || h.pos == 0) return true;
    advance(i);
    st_ = t.starts_with("```") ? St::FenceTag : St::ArgsText;
    if (st_ == St::ArgsText) open_text_call(sink);
    return true;
  }

  bool fence_tag_step(Sink& sink, bool eof) {
    // "```TAG\n": the tag line is dropped (strip_code_fence); a line that is not a tag is code.
    // Without its line break before a marker, the block is read whole.
    std::string_view r = rest();
    size_t nl = r.find('\n');
    std::string_view line = r.substr(0, nl);
    scan::MarkerHit h = scan::find_marker(line, kMarkers);
    if (h.which >= 0 || (nl == std::string_view::npos && (eof || r.size() > kMaxTag))) {
      st_ = St::Args;
      return true;
    }
    if (nl == std::string_view::npos) return false;
    bool tag = true;
    for (char c : line.substr(3))
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ')) tag = false;
    advance(nl + 1);
    open_text_call(sink);
    if (!tag) call_trimmed_text(sink, r.substr(3, nl - 2), text_);  // the line and its break
    held_.clear();
    st_ = St::Code;
    return true;
  }

  bool code_step(Sink& sink, bool eof) {
    // The code runs to the LAST "\n```" before the next marker (remove_trailing_comment_of_fn_args):
    // from a fence on, the text is held until another fence (then it was code) or the marker.
    static const std::vector<std::string_view> ends = scan::joined({"\n```"}, kMarkers);
    std::string_view r = rest();
    scan::MarkerHit h = scan::find_marker(r, ends);
    size_t upto = h.which >= 0 ? h.pos : eof ? r.size() : scan::utf8_safe_end(r.substr(0, h.pos));
    if (held_.empty()) call_trimmed_text(sink, r.substr(0, upto), text_);
    else held_.append(r.substr(0, upto));
    advance(upto);
    if (h.which == 0) {
      call_trimmed_text(sink, held_, text_);
      held_.assign(ends[0]);
      advance(ends[0].size());
      return true;
    }
    if (h.which < 0 && !eof) return upto > 0;
    if (held_.empty()) {  // the block was never closed
      if (h.which < 0) {
        abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the code block of '" + name_ + "'", true);
      } else {
        abandon_call(sink, WarningKind::MalformedCall, "the code block of '" + name_ + "' is not closed");
      }
      st_ = St::Content;
      return true;
    }
    close_string_call(sink);
    return after_args(h.which < 0 ? -1 : h.which - 1);
  }

  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: {
        // A prompt that ended with "✿RETURN✿" (its ": " removed) leaves ": " or ":" to the model.
        Match m = match(":", eof);
        if (m == Match::NeedMore) return false;
        st_ = m == Match::Yes ? St::Space : St::Content;
        return true;
      }
      case St::Space:
        if (match(" ", eof) == Match::NeedMore) return false;
        st_ = St::Content;
        return true;
      case St::Content: {
        int k = text_until(sink, kMarkers, TextKind::Content, eof);
        if (k < 0) return false;
        if (kind(k) == kStop) {
          st_ = St::Done;
        } else if (kind(k) == kArgs) {
          emit_text(sink, kMarkers[k], TextKind::Content);  // ✿ARGS✿ without a function: plain text
        } else {
          start_recording(kMarkers[k]);
          name_.clear();
          st_ = St::Name;
        }
        return true;
      }
      case St::Name: return name_step(sink, eof);
      case St::ArgsStart: return args_start_step(sink, eof);
      case St::ArgsText: {
        int k = trimmed_string_until(sink, kMarkers, text_, eof);
        if (k < 0 && !eof) return false;
        close_string_call(sink);
        return after_args(k);
      }
      case St::FenceTag: return fence_tag_step(sink, eof);
      case St::Code: return code_step(sink, eof);
      case St::ArgsJson:
        return args_step(json_, sink, "", name_, st_, {.done = St::ArgsTail, .cut = St::Content, .what = "✿ARGS✿:"});
      case St::ArgsTail:  // a comment after the arguments (remove_trailing_comment_of_fn_args): dropped
      case St::Args: {
        int k = collect_until(args_, kMarkers, eof);
        if (k < 0 && !eof) return false;
        if (st_ == St::Args) finish_call(sink, k < 0);
        return after_args(k);
      }
      case St::Done:
        advance(rest().size());
        return false;
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::ArgsJson || ((st_ == St::ArgsText || st_ == St::Code) && call_is_open())) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the ✿ARGS✿: of '" + name_ + "'", true);
  }

 private:
  enum class St { Start, Space, Content, Name, ArgsStart, ArgsJson, ArgsTail, ArgsText, FenceTag, Code, Args, Done };
  static constexpr size_t kMaxTag = 64;

  void open_text_call(Sink& sink) {
    open_string_call(sink, name_, textargs::free_text_key(opts_.tools, name_));
    text_ = {};
  }
  // After a call's arguments, at marker k (-1: the end of the output).
  bool after_args(int k) {
    stop_recording();
    if (k >= 0 && kind(k) == kArgs) {
      // Another ✿ARGS✿: under the same ✿FUNCTION✿: is another call of that tool.
      advance(kMarkers[k].size());
      start_recording(kMarkers[k]);
      args_.clear();
      st_ = St::ArgsStart;
      return true;
    }
    st_ = St::Content;
    return true;
  }

  void finish_call(Sink& sink, bool at_eof) {
    // remove_trailing_comment_of_fn_args: cut after the last '}' / the closing fence.
    std::string_view s = textargs::trim(args_);
    bool fenced = s.substr(0, 3) == "```";
    if (!s.empty() && s[0] == '{') {
      size_t k = s.rfind('}');
      if (k != std::string_view::npos && k > 0) s = s.substr(0, k + 1);
    } else if (fenced) {
      size_t k = s.rfind("\n```");
      if (k != std::string_view::npos && k > 0) s = s.substr(0, k + 4);
    }
    Value args;
    if (s.empty()) {
      args = Value::dict();
    } else if (s[0] == '{') {
      // Minified by the scanner, canonical arguments go out as they are (no parse).
      scan::JsonScanner min;
      if (min.feed(s) == s.size() && min.state() == scan::JsonScanner::State::Done &&
          compact_json_text::is_canonical_object(min.text())) {
        emit_call_args(sink, "", name_, min.text());
        stop_recording();  // after: an unknown tool's text is the recording (note_call)
        return;
      }
      try {
        args = json::parse(std::string(s));
      } catch (const std::exception&) {
        scan::JsonScanner js;
        js.feed(s);
        bool truncated = at_eof && js.state() != scan::JsonScanner::State::Error;
        give_back(sink, truncated ? WarningKind::TruncatedCall : WarningKind::MalformedCall,
                  "✿ARGS✿: of '" + name_ + "' is not a valid JSON object");
        return;
      }
    } else {
      if (fenced && at_eof && textargs::strip_code_fence(s) == s) {
        give_back(sink, WarningKind::TruncatedCall, "output ended inside the code block of '" + name_ + "'");
        return;
      }
      args = textargs::free_text_object(opts_.tools, name_, textargs::strip_code_fence(s));
    }
    emit_call(sink, "", name_, args);
    stop_recording();  // after: an unknown tool's text is the recording (note_call)
  }

  St st_ = St::Start;
  std::string name_, args_;
  scan::ArgsReader json_;
  Trimmed text_;      // text or code arguments streamed
  std::string held_;  // code after a "\n```" that may be the block's close
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "✿FUNCTION✿")) return 0;
  return scan::has(src, "✿ARGS✿") ? 85 : 60;
}

std::string prompt(const Value& tools) { return qwen_agent_tool_prompt(tools, "en", false); }

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<QwenAgentParser>(o); }

}  // namespace

std::string qwen_agent_tool_prompt(const Value& tools, std::string_view lang, bool parallel) {
  bool zh = lang == "zh";
  std::string descs, names;
  for (const auto& t : tool_fields(tools)) {
    bool code = t.name == "code_interpreter";
    std::string format = zh ? (code ? "此工具的输入应为Markdown代码块。" : "此工具的输入应为JSON对象。")
                            : (code ? "Enclose the code within triple backticks (`) at the beginning and end of the code."
                                    : "Format the arguments as a JSON object.");
    std::string params = t.parameters.is_undefined() ? "{}" : python_json(t.parameters);
    std::string d = "### " + t.name + "\n\n" + t.name + ": " + t.description + (zh ? " 输入参数：" : " Parameters: ") +
                    params + " " + format;
    while (!d.empty() && (d.back() == ' ' || d.back() == '\n')) d.pop_back();
    descs += (descs.empty() ? "" : "\n\n") + d;
    names += (names.empty() ? "" : ",") + t.name;
  }
  std::string info = zh ? "# 工具\n\n## 你拥有如下工具：\n\n" + descs : "# Tools\n\n## You have access to the following tools:\n\n" + descs;
  std::string fmt;
  if (zh && !parallel)
    fmt = "## 你可以在回复中插入零次、一次或多次以下命令以调用工具：\n\n✿FUNCTION✿: 工具名称，必须是[" + names +
          "]之一。\n✿ARGS✿: 工具输入\n✿RESULT✿: 工具结果\n✿RETURN✿: 根据工具结果进行回复，需将图片用![](url)渲染出来";
  else if (zh)
    fmt = "## 你可以在回复中插入以下命令以并行调用N个工具：\n\n✿FUNCTION✿: 工具1的名称，必须是[" + names +
          "]之一\n✿ARGS✿: 工具1的输入\n✿FUNCTION✿: 工具2的名称\n✿ARGS✿: 工具2的输入\n...\n✿FUNCTION✿: 工具N的名称\n"
          "✿ARGS✿: 工具N的输入\n✿RESULT✿: 工具1的结果\n✿RESULT✿: 工具2的结果\n...\n✿RESULT✿: 工具N的结果\n"
          "✿RETURN✿: 根据工具结果进行回复，需将图片用![](url)渲染出来";
  else if (!parallel)
    fmt = "## When you need to call a tool, please insert the following command in your reply, which can be called "
          "zero or multiple times according to your needs:\n\n✿FUNCTION✿: The tool to use, should be one of [" + names +
          "]\n✿ARGS✿: The input of the tool\n✿RESULT✿: Tool results\n✿RETURN✿: Reply based on tool results. Images need "
          "to be rendered as ![](url)";
  else
    fmt = "## Insert the following command in your reply when you need to call N tools in parallel:\n\n✿FUNCTION✿: The "
          "name of tool 1, should be one of [" + names +
          "]\n✿ARGS✿: The input of tool 1\n✿FUNCTION✿: The name of tool 2\n✿ARGS✿: The input of tool 2\n...\n"
          "✿FUNCTION✿: The name of tool N\n✿ARGS✿: The input of tool N\n✿RESULT✿: The result of tool 1\n✿RESULT✿: The "
          "result of tool 2\n...\n✿RESULT✿: The result of tool N\n✿RETURN✿: Reply based on tool results. Images need to "
          "be rendered as ![](url)";
  return info + "\n\n" + fmt;
}

namespace {

// "✿FUNCTION✿: NAME\n✿ARGS✿: {json}", several joined by newlines, or several ✿ARGS✿ lines under one
// ✿FUNCTION✿ (calls of one tool); at most max_calls calls either way; after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.per_tool(tools, "call", [&](const std::string& name, const std::string& args) {
      return literal("✿FUNCTION✿: " + name + "\n✿ARGS✿: ") + " " + args;
    });
    if (opts.max_calls <= 1) return b.reasoning("<think>", "</think>") + " " + call;
    // Several calls: each with its ✿FUNCTION✿ line, or all of one tool under one ✿FUNCTION✿.
    std::string same = b.per_tool(tools, "same-tool-calls", [&](const std::string& name, const std::string& args) {
      return literal("✿FUNCTION✿: " + name + "\n✿ARGS✿: ") + " " + args + " ( " + ws + " " + literal("✿ARGS✿: ") + " " + args +
             " ){0," + std::to_string(opts.max_calls - 1) + "}";
    });
    return b.reasoning("<think>", "</think>") + " ( " + b.calls(call, ws) + " | " + same + " )";
  });
}

}  // namespace

const Dialect& dialect_qwen_agent() {
  static const Dialect d{"qwen_agent", {"qwen_fncall", "qwen_agent_fncall"},
                         "Qwen-Agent: ✿FUNCTION✿: NAME / ✿ARGS✿: {json}", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
