#include "dialects/call_reader.hpp"
#include "dialects/react_scan.hpp"

#include <cctype>

#include "dialects/json_stream.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

enum class Label { Thought, Action, Input, Observation, Final };

class ReactParser final : public scan::ParserBase {
 public:
  ReactParser(const ParseOptions& o, ReactStyle style) : ParserBase(o), style_(style) {
    add("\nThought:", Label::Thought);
    add("\nAction:", Label::Action);
    add("\nAction Input:", Label::Input);
    add("\nObservation:", Label::Observation);
    add("\nFinal Answer:", Label::Final);
    // A prompt that ends with "Thought:" (ReAct's continuation after an observation) leaves the model
    // inside a thought.
    if (o.reasoning_open && style_.sections) {
      reasoning_ = true;
      st_ = St::SkipSpace;
      after_space_ = St::Text;
    }
  }

 protected:
  bool name_step(Sink& sink, bool eof) {
    int k = collect_until(name_, lines_, eof);
    if (k < 0 && !eof) return false;
    std::string_view name = textargs::trim(name_);
    // Tool names have no spaces (LangChain rejects "Action: search Final Answer:").
    if (k >= 0 && labels_[k] == Label::Input && !name.empty() && name.find_first_of(" \t\r\n") == std::string_view::npos) {
      advance(lines_[k].size());
      name_ = std::string(name);
      args_.clear();
      // A call the guard keeps as content is content before a later "Final Answer:" too.
      if (call_kept_as_content(opts_.tools, name_)) content_seen_ = true;
      st_ = St::InputStart;
      return true;
    }
    fail(sink, k < 0 ? WarningKind::TruncatedCall : WarningKind::MalformedCall,
              "'Action:' without a tool name and 'Action Input:'");
    st_ = St::Text;
    return true;
  }

  bool input_start_step(Sink& sink, bool eof) {
    // What the input is can be told from its first bytes, so it streams: a JSON object, array
    // or (ReAct) string, on the label's line or the next, bare or in a code fence, and free text
    // on the label's line. Only the rest (a JSON string in LLaMA-Factory, which may hold an
    // object; a scalar; text from the next line on) is read whole (St::Input).
    Opening o = opening(rest(), eof);
    if (o.need_more) return false;
    fenced_ = o.fenced;
    if (o.kind == '{' || o.kind == '[') {
      advance(o.at);
      json_.reset(o.kind == '[');
      array_ = o.kind == '[';
      st_ = St::InputJson;
    } else if (o.kind == '"') {
      advance(o.at);
      open_string_call(sink, name_, textargs::free_text_key(opts_.tools, name_));
      str_.reset(0);
      quote_taken_ = false;
      st_ = St::InputString;
    } else if (o.kind == 't') {
      // Free text streams into the tool's first parameter (what finish_call gives it whole).
      advance(o.at);
      open_string_call(sink, name_, textargs::free_text_key(opts_.tools, name_));
      text_ = {};
      st_ = St::InputText;
    } else {
      st_ = St::Input;
    }
    return true;
  }

  bool input_string_step(Sink& sink) {
    // A JSON string (ReAct): its value, re-escaped canonically, is the first parameter's.
    do advance(str_.feed(rest()));
    while (str_.stop() == scan::JsonStream::Stop::ValueStart);
    std::string& out = str_.out();
    if (!quote_taken_ && !out.empty()) {  // the opening quote: open_string_call wrote one
      out.erase(0, 1);
      quote_taken_ = true;
    }
    if (str_.stop() == scan::JsonStream::Stop::Done) out.pop_back();  // the closing quote
    take_call_text(sink, out);
    if (str_.stop() == scan::JsonStream::Stop::NeedMore) return false;
    if (str_.stop() == scan::JsonStream::Stop::Error) {
      abandon_call(sink, WarningKind::MalformedCall, "'Action Input:' of '" + name_ + "' is not a valid JSON string");
      content_seen_ = true;
      st_ = St::Text;
      return true;
    }
    call_text(sink, "\"}");
    st_ = St::InputTail;
    return true;
  }

  bool input_tail_step(Sink& sink, bool eof) {
    // Text after the JSON value, up to the next label: content (ReAct keeps it); where only JSON
    // may follow the label, the call is cut there (the whole result is its text, as before). A
    // code fence's closing line is not text after it.
    int k = collect_until(args_, lines_, eof);
    if (k < 0 && !eof) return false;
    std::string_view trimmed = textargs::trim(args_);
    if (fenced_ && trimmed.substr(0, 3) == "```") trimmed = textargs::trim(trimmed.substr(3));
    std::string tail(trimmed);
    args_.clear();
    st_ = St::Text;
    if (!tail.empty() && style_.json_only) {
      abandon_call(sink, WarningKind::MalformedCall, "'Action Input:' of '" + name_ + "' is not a valid JSON object");
      content_seen_ = true;
      return true;
    }
    stop_recording();
    close_call(sink);
    if (!tail.empty()) sink.on(ContentDelta{tail});
    return true;
  }

  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: {
        size_t len = 0;
        int m = scan::match_any(rest(), bare_, eof, &len);
        if (m == -2) return false;
        st_ = St::Text;
        if (m >= 0) {
          std::string text(rest().substr(0, len));
          advance(len);
          on_label(sink, m, text);
        }
        return true;
      }
      case St::Text: {
        size_t before = pos_;
        int k = text_until(sink, lines_, reasoning_ ? TextKind::Reasoning : TextKind::Content, eof);
        if (!reasoning_ && pos_ - before > (k >= 0 ? lines_[k].size() : 0)) content_seen_ = true;
        if (k < 0) return false;
        on_label(sink, k, std::string(lines_[k]));
        return true;
      }
      case St::SkipSpace: {
        Match m = match(" ", eof);
        if (m == Match::NeedMore) return false;
        st_ = after_space_;
        return true;
      }
      case St::Name: return name_step(sink, eof);
      case St::InputStart: return input_start_step(sink, eof);
      case St::InputString: return input_string_step(sink);
      case St::InputText: {
        if (trimmed_string_until(sink, lines_, text_, eof) < 0 && !eof) return false;
        // The next label or the end of the output (its stop word eaten) ends the text.
        close_string_call(sink);
        stop_recording();
        st_ = St::Text;
        return true;
      }
      case St::InputJson:
        if (!args_step(json_, sink, "", name_, st_, {.done = St::InputTail, .cut = St::Text, .close = false, .what = "'Action Input:'"}))
          return false;
        if (st_ == St::Text) content_seen_ = true;
        if (st_ == St::InputTail && array_)
          warn(sink, WarningKind::InvalidArguments, "arguments of '" + name_ + "' are not a JSON object");
        return true;
      case St::InputTail: return input_tail_step(sink, eof);
      case St::Input: {
        int k = collect_until(args_, lines_, eof);
        if (k < 0 && !eof) return false;
        finish_call(sink, k < 0);
        st_ = St::Text;
        return true;
      }
      case St::Final:
        text_until(sink, {}, TextKind::Content, eof);
        return false;
      case St::Done:
        // Text after the model's own "Observation:" is a made-up tool result: dropped like a stop word.
        advance(rest().size());
        return false;
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::InputJson || st_ == St::InputString || (st_ == St::InputTail && call_is_open())) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside the 'Action Input:' of '" + name_ + "'", true);
  }

 private:
  enum class St { Start, Text, SkipSpace, Name, InputStart, InputJson, InputString, InputTail, InputText, Input, Final, Done };

  // How an Action Input starts: `kind` '{', '[' or '"' (a JSON value streamed, its first byte at
  // `at`), 't' (free text at `at`), 0 (read whole); need_more when that is not known yet.
  struct Opening {
    char kind = 0;
    size_t at = 0;
    bool fenced = false, need_more = false;
  };
  Opening opening(std::string_view r, bool eof) const {
    Opening o;
    size_t i = 0;
    bool newline = false;
    auto skip_space = [&] {
      for (; i < r.size() && scan::is_json_ws(r[i]); ++i) newline |= r[i] == '\n' || r[i] == '\r';
    };
    skip_space();
    if (i == r.size()) {
      o.need_more = !eof;
      return o;
    }
    if (r[i] == '`') {
      // "```" and a language tag to the end of the line, then the value.
      size_t nl = r.substr(i, 64).find('\n');  // a fence line is short
      if (nl == std::string_view::npos) {
        o.need_more = !eof && r.size() - i < 64;
        return o;
      }
      nl += i;
      std::string_view head = r.substr(i, nl - i);
      if (head.substr(0, 3) != "```") return o;
      for (char c : head.substr(3))
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ')) return o;
      i = nl + 1;
      skip_space();
      if (i == r.size()) {
        o.need_more = !eof;
        return o;
      }
      o.fenced = true;
    }
    char c = r[i];
    if (c == '{' || c == '[' || (c == '"' && !style_.json_only)) {
      o.kind = c;
      o.at = i;
    } else if (!o.fenced && !newline && !style_.json_only && c != '"') {
      o.kind = 't';
      o.at = i;
    }
    return o;
  }

  // A label counts at a line start ("\nAction:") or at the very start of the output ("Action:").
  void add(std::string_view line, Label l) {
    if (!style_.sections && l != Label::Action && l != Label::Input) return;
    lines_.push_back(line);
    bare_.push_back(line.substr(1));
    labels_.push_back(l);
  }

  void on_label(Sink& sink, int k, const std::string& text) {
    switch (labels_[k]) {
      case Label::Thought:
        reasoning_ = true;
        after_space_ = St::Text;
        st_ = St::SkipSpace;
        break;
      case Label::Action:  // ends a thought; text after a failed call is content
        reasoning_ = false;
        start_recording(text);
        name_.clear();
        st_ = St::Name;
        break;
      case Label::Input:  // no Action before it: plain text
        emit_text(sink, text, reasoning_ ? TextKind::Reasoning : TextKind::Content);
        break;
      case Label::Observation:
        st_ = St::Done;
        break;
      case Label::Final:
        // The line break before the label separates the answer from content already given.
        if (!reasoning_ && content_seen_) emit_text(sink, "\n", TextKind::Content);
        reasoning_ = false;
        after_space_ = St::Final;
        st_ = St::SkipSpace;
        break;
    }
  }

  void fail(Sink& sink, WarningKind k, std::string detail) {
    give_back(sink, k, std::move(detail));
    content_seen_ = true;
  }

  void finish_call(Sink& sink, bool at_eof) {
    std::string_view s = textargs::strip_code_fence(textargs::trim(args_));
    Value args;
    std::optional<scan::CallArgs> json_args;  // JSON arguments (canonical ones are not parsed)
    std::string tail;  // text after a JSON object (ReAct keeps it as content)
    if (!s.empty() && (s[0] == '{' || s[0] == '[')) {
      scan::JsonScanner js;
      size_t n = js.feed(s);
      bool ok = js.state() == scan::JsonScanner::State::Done;
      if (ok) {
        json_args = scan::call_args(js.text());
        ok = json_args.has_value();
      }
      tail = std::string(textargs::trim(s.substr(n)));
      if (!ok || (!tail.empty() && style_.json_only)) {
        bool truncated = at_eof && js.state() == scan::JsonScanner::State::Running;
        fail(sink, truncated ? WarningKind::TruncatedCall : WarningKind::MalformedCall,
                  "'Action Input:' of '" + name_ + "' is not a valid JSON object");
        return;
      }
    } else if (style_.json_only) {
      try {
        args = json::parse(std::string(s));
      } catch (const std::exception&) {
        fail(sink, WarningKind::MalformedCall, "'Action Input:' of '" + name_ + "' is not JSON");
        return;
      }
    } else if (s.empty()) {
      args = Value::dict();
    } else {
      // Free text: a JSON string stands for its value; the text becomes the tool's first parameter.
      std::string text(s);
      try {
        Value v = json::parse(text);
        if (v.is_str()) text = v.str();
      } catch (const std::exception&) {
      }
      args = textargs::free_text_object(opts_.tools, name_, text);
    }
    if (json_args) emit_call(sink, "", name_, *json_args);
    else emit_call(sink, "", name_, args);
    stop_recording();  // after: an unknown tool's text is the recording (note_call)
    if (!tail.empty()) sink.on(ContentDelta{tail});
  }

  ReactStyle style_;
  std::vector<std::string_view> lines_, bare_;
  std::vector<Label> labels_;
  St st_ = St::Start, after_space_ = St::Text;
  bool reasoning_ = false, content_seen_ = false;
  std::string name_, args_;
  scan::ArgsReader json_;
  scan::JsonStream str_;  // a JSON string's value streamed (ReAct)
  bool array_ = false, fenced_ = false, quote_taken_ = false;
  Trimmed text_;  // free-text arguments streamed
};

}  // namespace

std::unique_ptr<StreamParser> make_react_parser(const ParseOptions& o, ReactStyle style) {
  return std::make_unique<ReactParser>(o, style);
}

}  // namespace toolchat::dialects
