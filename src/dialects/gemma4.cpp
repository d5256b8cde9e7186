// Google Gemma 4 (tests/corpus/templates/vllm-gemma4.jinja, llama.cpp models/templates/gemma4.jinja):
//   <|tool_call>call:NAME{key:VALUE,…}<tool_call|>   (calls written one after another)
// VALUE is the template's format_argument: a string between <|"|> quotes (no escapes: the quote
// token cannot occur inside), true / false, a bare number, {key:VALUE,…} (keys bare in calls,
// <|"|>-quoted elsewhere) or [VALUE,…]. Reasoning is a channel, <|channel>thought\n…<channel|>;
// <|tool_response> (the model hands over to the tool) and <turn|> end the turn.
// A call streams from the end of its name (Gemma4Parser).
#include "dialects/gbnf.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "toolchat/json.hpp"

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

// Where a value written in the template's syntax ends: scanned as it arrives (a string's quote
// token may be split between chunks), depth-counted, strings skipped. Linear: every byte is looked
// at once, a possible quote-token prefix at the end of the input at most once more per feed.
class ValueEnd {
 public:
  void reset() { depth_ = 0; in_quote_ = in_json_ = escape_ = false; }
  // Scans s (bytes after those already scanned); returns how many bytes belong to the value and
  // whether it ended (the delimiter, a top-level ',' '}' or ']', is not consumed). Without an end,
  // a possible quote-token prefix at the end of s is left unconsumed unless eof.
  std::pair<size_t, bool> scan(std::string_view s, bool eof) {
    size_t i = 0;
    while (i < s.size()) {
      if (in_json_) {
        char c = s[i++];
        if (escape_) escape_ = false;
        else if (c == '\\') escape_ = true;
        else if (c == '"') in_json_ = false;
        continue;
      }
      if (s.substr(i).starts_with(kQuote)) {
        in_quote_ = !in_quote_;
        i += kQuote.size();
        continue;
      }
      if (!eof && s.size() - i < kQuote.size() && kQuote.starts_with(s.substr(i))) return {i, false};
      char c = s[i];
      if (in_quote_) { ++i; continue; }
      if (c == '"') in_json_ = true;
      else if (c == '{' || c == '[') ++depth_;
      else if (c == '}' || c == ']' || c == ',') {
        if (depth_ == 0) return {i, true};
        if (c != ',') --depth_;
      }
      ++i;
    }
    return {i, false};
  }

 private:
  size_t depth_ = 0;
  bool in_quote_ = false, in_json_ = false, escape_ = false;
};

// A call streams once its name is complete: call:NAME{ announces it; the arguments object is read
// member by member and written as compact JSON as it goes, a <|"|>string<|"|> value streaming
// (JSON-escaped) as it arrives, any other value held until it ends (a number's last digit, a
// nested object's close) and then converted. A call that turns out not to be the template's form
// after it was announced is cut (the whole-message result gives its text back as content); so is
// one the output ends inside (at_end: the states just wait for more input).
class Gemma4Parser final : public scan::ParserBase {
 public:
  explicit Gemma4Parser(const ParseOptions& o) : ParserBase(o) { st_ = o.reasoning_open ? St::Channel : St::Content; }

 protected:
  bool content_step(Sink& sink, bool eof) {
    int k = text_until(sink, {kCallOpen, kChannelOpen, "<|tool_response>", "<turn|>"}, TextKind::Content, eof);
    if (k < 0) return false;
    if (k == 0) {
      start_recording(kCallOpen);
      body_.clear();
      st_ = St::Name;
    } else if (k == 1) {
      st_ = St::Channel;
    } else {
      skip_to_end();  // end of turn: what follows is not this message
      st_ = St::Done;
    }
    return true;
  }

  // a call's name, after <|tool_call>
  bool name_step(Sink& sink, bool eof) {
    int k = collect_until(body_, {"{", kCallClose}, eof);
    if (k < 0) return body_.size() > kMaxName ? not_a_call(sink) : false;
    if (k == 1 || !std::string_view(body_).starts_with("call:")) return not_a_call(sink);
    std::string name = body_.substr(5);
    if (name.empty() || name.find_first_of(" \n{}<>") != std::string::npos) return not_a_call(sink);
    advance(1);
    open_call(sink, "", name);
    call_text(sink, "{");
    members_ = 0;
    st_ = St::Key;
    return true;
  }

  bool key_text_step(Sink& sink, bool eof) {
    // A key ends at ':' (bare), or at its closing quote token.
    std::string_view stop = key_quoted_ ? kQuote : std::string_view(":");
    int k = collect_until(body_, {stop, kCallClose}, eof);
    if (k < 0) return body_.size() > kMaxName ? cut(sink, "a key too long") : false;
    if (k == 1) return cut(sink, "a call's key not followed by a value");
    advance(stop.size());
    if (!key_quoted_) {
      while (!body_.empty() && scan::is_json_ws(body_.back())) body_.pop_back();
      if (body_.empty() || body_.find_first_of("{}[],\"") != std::string::npos) return cut(sink, "not a key");
      st_ = St::Value;
    } else {
      st_ = St::Colon;
    }
    std::string head = members_++ ? "," : "";
    json::dump_string(head, body_, false);
    head += ':';
    call_text(sink, head);
    return true;
  }

  // a value other than a <|"|> string: held until its end, then converted
  bool other_value_step(Sink& sink, bool eof) {
    auto [n, ended] = end_.scan(rest(), eof);
    body_.append(rest().substr(0, n));
    advance(n);
    if (!ended) return false;
    ValueReader r(body_);
    std::optional<Value> v = r.value();
    if (!v || !r.at_end()) return cut(sink, "a value the template would not write");
    call_text(sink, scan::compact_json(*v));
    st_ = St::AfterValue;
    return true;
  }

  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: return content_step(sink, eof);
      case St::Channel: {
        // The channel's name line ("thought\n") is not reasoning text.
        Match m = match("thought\n", eof);
        if (m == Match::NeedMore) return false;
        st_ = St::Reasoning;
        return true;
      }
      case St::Reasoning: {
        int k = text_until(sink, {kChannelClose}, TextKind::Reasoning, eof);
        if (k < 0) return false;
        st_ = St::Content;
        return true;
      }
      case St::Name: return name_step(sink, eof);
      case St::Key: return key_step(sink, eof);
      case St::KeyText: return key_text_step(sink, eof);
      case St::Colon: {
        if (!skip_ws()) return false;
        if (rest()[0] != ':') return cut(sink, "a key not followed by ':'");
        advance(1);
        st_ = St::Value;
        return true;
      }
      case St::Value: {
        if (!skip_ws()) return false;
        Match m = match(kQuote, eof);
        if (m == Match::NeedMore) return false;
        if (m == Match::Yes) {
          call_text(sink, "\"");
          st_ = St::StringValue;
        } else {
          body_.clear();
          end_.reset();
          st_ = St::OtherValue;
        }
        return true;
      }
      case St::StringValue: {
        // No escapes in the template's strings: everything up to the closing quote token is the text.
        if (string_arg_until(sink, {kQuote}, eof) < 0) return false;
        advance(kQuote.size());
        call_text(sink, "\"");
        st_ = St::AfterValue;
        return true;
      }
      case St::OtherValue: return other_value_step(sink, eof);
      case St::AfterValue: {
        if (!skip_ws()) return false;
        char c = rest()[0];
        if (c != ',' && c != '}') return cut(sink, "a value not followed by ',' or '}'");
        advance(1);
        if (c == ',') {
          st_ = St::Key;
        } else {
          call_text(sink, "}");
          st_ = St::Close;
        }
        return true;
      }
      case St::Close: {
        if (!skip_ws()) return false;
        Match m = match(kCallClose, eof);
        if (m == Match::NeedMore) return false;
        if (m == Match::No) return cut(sink, "a call's arguments not followed by <tool_call|>");
        close_call(sink);
        stop_recording();
        st_ = St::Content;
        return true;
      }
      case St::Done:  // what follows the end of the turn is not this message
        skip_to_end();
        return false;
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (call_is_open()) {  // the output ended inside an announced call (a state that waited for more)
      cut(sink, "");
    } else if (st_ == St::Name) {
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a <|tool_call>");
      st_ = St::Content;
    } else if (st_ == St::Reasoning || st_ == St::Channel) {
      warn(sink, WarningKind::UnclosedReasoning, "output ended inside the thought channel");
    }
  }

 private:
  static constexpr size_t kMaxName = 1024;

  bool key_step(Sink& sink, bool eof) {
    if (!skip_ws()) return false;
    if (rest()[0] == '}' && members_ == 0) {  // call:NAME{}
      advance(1);
      call_text(sink, "}");
      st_ = St::Close;
      return true;
    }
    if (rest()[0] == '"') {  // a JSON key, written where the template writes its own syntax
      auto [n, ended] = json_key_end();
      if (n == 0) return false;
      auto k = json_value(rest().substr(0, n));
      if (!k || !k->is_str() || !ended) return cut(sink, "not a key");
      advance(n);
      body_ = k->str();
      std::string head = members_++ ? "," : "";
      json::dump_string(head, body_, false);
      head += ':';
      call_text(sink, head);
      st_ = St::Colon;
      return true;
    }
    Match m = match(kQuote, eof);
    if (m == Match::NeedMore) return false;
    key_quoted_ = m == Match::Yes;
    body_.clear();
    st_ = St::KeyText;
    return true;
  }
  // The length of the JSON string at rest() (0 while its end has not arrived).
  std::pair<size_t, bool> json_key_end() const {
    std::string_view r = rest();
    for (size_t j = 1; j < r.size(); ++j) {
      if (j > kMaxName) return {j, false};
      if (r[j] == '\\') ++j;
      else if (r[j] == '"') return {j + 1, true};
    }
    return {0, false};
  }
  // The text read is not call:NAME{…}: it is content, with a warning.
  bool not_a_call(Sink& sink) {
    give_back(sink, WarningKind::MalformedCall, "<|tool_call> not followed by call:NAME{…}");
    st_ = St::Content;
    return true;
  }
  // The announced call is not the template's form after all (or the output ended inside it).
  bool cut(Sink& sink, std::string why) {
    if (why.empty()) {
      abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a <|tool_call>", true);
    } else {
      abandon_call(sink, WarningKind::MalformedCall, "<|tool_call>: " + why);
    }
    st_ = St::Content;
    return true;
  }

  enum class St {
    Content, Channel, Reasoning, Name, Key, KeyText, Colon, Value, StringValue, OtherValue, AfterValue, Close, Done
  } st_;
  std::string body_;
  ValueEnd end_;
  size_t members_ = 0;
  bool key_quoted_ = false;
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
