// Google Gemma 4 (tests/corpus/templates/vllm-gemma4.jinja, llama.cpp models/templates/gemma4.jinja):
//   <|tool_call>call:NAME{key:VALUE,…}<tool_call|>   (calls written one after another)
// VALUE is the template's format_argument: a string between <|"|> quotes (no escapes: the quote
// token cannot occur inside), true / false, a bare number, {key:VALUE,…} (keys bare in calls,
// <|"|>-quoted elsewhere) or [VALUE,…]. Reasoning is a channel, <|channel>thought\n…<channel|>;
// <|tool_response> (the model hands over to the tool) and <turn|> end the turn.
// A call is held until its close marker (its text has no escapes to stream through).
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kCallOpen = "<|tool_call>";
constexpr std::string_view kCallClose = "<tool_call|>";
constexpr std::string_view kQuote = "<|\"|>";
constexpr std::string_view kChannelOpen = "<|channel>";
constexpr std::string_view kChannelClose = "<channel|>";
constexpr size_t kMaxDepth = 64;

// Reads the template's value syntax into a Value; nullopt when s is not one.
class ValueReader {
 public:
  explicit ValueReader(std::string_view s) : s_(s) {}
  std::optional<Value> value(size_t depth = 0) {
    ws();
    if (depth > kMaxDepth || i_ >= s_.size()) return std::nullopt;
    if (s_.substr(i_).starts_with(kQuote)) {
      size_t end = s_.find(kQuote, i_ + kQuote.size());
      if (end == std::string_view::npos) return std::nullopt;
      Value v = Value::string(std::string(s_.substr(i_ + kQuote.size(), end - i_ - kQuote.size())));
      i_ = end + kQuote.size();
      return v;
    }
    if (s_[i_] == '{') return object(depth);
    if (s_[i_] == '[') return list(depth);
    if (s_[i_] == '"') return json_string();  // JSON written where the template writes its own syntax
    size_t b = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']') ++i_;
    std::string_view bare = trim(s_.substr(b, i_ - b));
    if (bare.empty()) return std::nullopt;
    if (auto v = json_value(bare); v && !v->is_dict() && !v->is_list()) return v;
    return Value::string(std::string(bare));  // a bare word the template would not write: kept as text
  }
  std::optional<Value> object(size_t depth) {
    Value d = Value::dict();
    ++i_;  // '{'
    ws();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return d;
    }
    while (true) {
      ws();
      std::string key;
      if (s_.substr(i_).starts_with(kQuote)) {
        size_t end = s_.find(kQuote, i_ + kQuote.size());
        if (end == std::string_view::npos) return std::nullopt;
        key.assign(s_.substr(i_ + kQuote.size(), end - i_ - kQuote.size()));
        i_ = end + kQuote.size();
        ws();
        if (i_ >= s_.size() || s_[i_] != ':') return std::nullopt;
      } else if (s_[i_] == '"') {
        auto k = json_string();
        if (!k) return std::nullopt;
        key = k->str();
        ws();
        if (i_ >= s_.size() || s_[i_] != ':') return std::nullopt;
      } else {
        size_t colon = s_.find(':', i_);
        if (colon == std::string_view::npos) return std::nullopt;
        key.assign(trim(s_.substr(i_, colon - i_)));
        if (key.empty() || key.find_first_of("{}[],") != std::string::npos) return std::nullopt;
        i_ = colon;
      }
      ++i_;  // ':'
      auto v = value(depth + 1);
      if (!v) return std::nullopt;
      d.dict_obj().set(Value::string(key), *v);
      ws();
      if (i_ >= s_.size()) return std::nullopt;
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == '}') { ++i_; return d; }
      return std::nullopt;
    }
  }
  std::optional<Value> list(size_t depth) {
    std::vector<Value> items;
    ++i_;  // '['
    ws();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return Value::list(std::vector<Value>{});
    }
    while (true) {
      auto v = value(depth + 1);
      if (!v) return std::nullopt;
      items.push_back(std::move(*v));
      ws();
      if (i_ >= s_.size()) return std::nullopt;
      if (s_[i_] == ',') { ++i_; continue; }
      if (s_[i_] == ']') { ++i_; return Value::list(std::move(items)); }
      return std::nullopt;
    }
  }
  // A JSON string literal at i_.
  std::optional<Value> json_string() {
    size_t j = i_ + 1;
    while (j < s_.size() && s_[j] != '"') j += s_[j] == '\\' ? 2 : 1;
    if (j >= s_.size()) return std::nullopt;
    auto v = json_value(s_.substr(i_, j + 1 - i_));
    if (!v || !v->is_str()) return std::nullopt;
    i_ = j + 1;
    return v;
  }
  bool at_end() {
    ws();
    return i_ == s_.size();
  }

 private:
  static std::string_view trim(std::string_view v) {
    while (!v.empty() && scan::is_json_ws(v.front())) v.remove_prefix(1);
    while (!v.empty() && scan::is_json_ws(v.back())) v.remove_suffix(1);
    return v;
  }
  void ws() {
    while (i_ < s_.size() && scan::is_json_ws(s_[i_])) ++i_;
  }
  std::string_view s_;
  size_t i_ = 0;
};

class Gemma4Parser final : public scan::ParserBase {
 public:
  explicit Gemma4Parser(const ParseOptions& o) : ParserBase(o) { st_ = o.reasoning_open ? St::Channel : St::Content; }

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, {kCallOpen, kChannelOpen, "<|tool_response>", "<turn|>"}, false, eof);
        if (k < 0) return false;
        if (k == 0) {
          start_recording(kCallOpen);
          body_.clear();
          in_string_ = false;
          st_ = St::Call;
        } else if (k == 1) {
          st_ = St::Channel;
        } else {
          skip_to_end();  // end of turn: what follows is not this message
          st_ = St::Done;
        }
        return true;
      }
      case St::Channel: {
        // The channel's name line ("thought\n") is not reasoning text.
        Match m = match("thought\n", eof);
        if (m == Match::NeedMore) return false;
        st_ = St::Reasoning;
        return true;
      }
      case St::Reasoning: {
        int k = text_until(sink, {kChannelClose}, true, eof);
        if (k < 0) return false;
        st_ = St::Content;
        return true;
      }
      case St::Call: {
        int k = collect_until(body_, {kQuote, kCallClose}, eof);
        if (k < 0) return false;
        if (k == 0 || in_string_) {  // a quote, or a close marker inside a string
          std::string_view m = k == 0 ? kQuote : kCallClose;
          body_.append(m);
          advance(m.size());
          if (k == 0) in_string_ = !in_string_;
          return true;
        }
        advance(kCallClose.size());
        return finish_call(sink);
      }
      case St::Done:  // what follows the end of the turn is not this message
        skip_to_end();
        return false;
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::Call) {
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a <|tool_call>");
      st_ = St::Content;
    } else if (st_ == St::Reasoning || st_ == St::Channel) {
      warn(sink, WarningKind::UnclosedReasoning, "output ended inside the thought channel");
    }
  }

 private:
  bool finish_call(Sink& sink) {
    std::string_view b = body_;
    size_t brace = b.find('{');
    std::optional<Value> args;
    std::string name;
    if (b.starts_with("call:") && brace != std::string_view::npos) {
      name.assign(b.substr(5, brace - 5));
      ValueReader r(b.substr(brace));
      args = r.object(0);
      if (args && !r.at_end()) args.reset();
    }
    if (!args || name.empty() || name.find_first_of(" \n{}<>") != std::string::npos) {
      give_back(sink, WarningKind::MalformedCall, "<|tool_call> not followed by call:NAME{…}");
      st_ = St::Content;
      return true;
    }
    emit_call(sink, "", name, *args);
    stop_recording();  // after: an unknown tool's text is the recording (note_call)
    st_ = St::Content;
    return true;
  }

  enum class St { Content, Channel, Reasoning, Call, Done } st_;
  std::string body_;
  bool in_string_ = false;
};

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "<|tool_call>")) return 0;
  int s = 60;
  if (scan::has(src, "call:")) s += 20;
  if (scan::has(src, "<|\"|>")) s += 10;
  return s;
}

std::string prompt(const Value& tools) {
  return "You can call these functions (JSON schemas):\n" + scan::tools_json_lines(tools) +
         "\nTo call one, write <|tool_call>call:NAME{key:VALUE,...}<tool_call|> where a string VALUE is written "
         "between <|\"|> and <|\"|>, and numbers, true, false, {key:VALUE} and [VALUE] are written bare.";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<Gemma4Parser>(o); }

// One or more <|tool_call>call:NAME{…}<tool_call|>, the arguments written as JSON (which the parser
// reads as well as the template's own <|"|> syntax), after an optional thought channel.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string call = b.name_then_args(tools, "<|tool_call>call:", "", "<tool_call|>");
    return b.reasoning("<|channel>thought\n", "<channel|>") + " " + b.calls(call, b.ws());
  });
}

}  // namespace

const Dialect& dialect_gemma4() {
  static const Dialect d{"gemma4", {"gemma_4"}, "Gemma 4: <|tool_call>call:NAME{key:<|\"|>v<|\"|>}<tool_call|>",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
