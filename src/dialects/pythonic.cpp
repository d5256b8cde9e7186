// Pythonic calls (docs/dialects.md §5.2): Llama 3.2 (pythonic prompt), Llama 4, ToolACE, prompted Gemma,
// Olmo 3, LFM2:
//   [get_weather(city='San Francisco', metric="celsius"), search(q="x", limit=3)]
// keyword arguments only, values Python literals (True/False/None, JSON's true/false/null too)
// turned into JSON. Wrappers: Llama 4 <|python_start|>…<|python_end|>, LFM2
// <|tool_call_start|>…<|tool_call_end|>, Olmo 3 <function_calls>\nf(a=1)\ng(b=2)\n</function_calls>
// (one call per line, no brackets). A bare list may follow text (SGLang); a '[' that does not start
// NAME( is just text, decided as soon as a character rules it out. A call is announced at its first
// `k=` and its arguments stream as they are read (py_kwargs_stream.*). A list element may also be a JSON call object {"name", "arguments"}
// (llama.cpp's LFM2 template writes those).
#include "dialects/call_reader.hpp"
#include "dialects/gbnf.hpp"
#include "dialects/py_kwargs_stream.hpp"
#include "dialects/py_literal.hpp"
#include "dialects/scan.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

constexpr size_t kMaxName = 256;

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-'; }

class PythonicParser final : public scan::ThinkParser {
 public:
  explicit PythonicParser(const ParseOptions& o) : ThinkParser(o, "<think>", "</think>") {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: return content(sink, eof);
      case St::Open: return open_wrapper(eof);
      case St::Name: return call_name(sink);
      case St::Args: {
        Read r = read_kwargs(kw_, sink, name_, eof, wrapped_ || group_calls_ > 0 ? NotArgs::Cut : NotArgs::Report);
        if (r == Read::NotCall) return not_a_call(sink);
        if (r == Read::Done) {
          ++group_calls_;
          start_recording();
        }
        return moved(r, st_, St::AfterCall, St::Content);
      }
      case St::Json:
        switch (Read r = read_calls(json_, sink, "a JSON call object in the list")) {
          case Read::NotCall: return not_a_call(sink);
          case Read::Done:
            ++group_calls_;
            start_recording();
            [[fallthrough]];
          default: return moved(r, st_, St::AfterCall, St::Content);
        }
      case St::AfterCall: return after_call(sink, eof);
      case St::Close: {
        size_t len = 0;
        int m = scan::match_any(rest(), {close_}, eof, &len);
        if (m == -2) return false;
        if (m == 0) advance(len);
        return end_group(sink, true);
      }
      case St::AfterGroup: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (call_is_open()) {
      abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a pythonic call", true);
    } else if (st_ == St::Args || st_ == St::Json || ((st_ == St::Name || st_ == St::Open) && (wrapped_ || group_calls_ > 0))) {
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a pythonic call");
    } else if (st_ == St::Name || st_ == St::Open) {
      give_back_quietly(sink);
    } else if (st_ == St::AfterCall || st_ == St::Close) {
      stop_recording();
      if (bracket_ || !close_.empty())
        warn(sink, WarningKind::MissingCloseMarker, "call list without its closing " + std::string(bracket_ ? "]" : close_));
    }
  }

 private:
  // Content up to a bare '[' or a wrapper's open marker.
  bool content(Sink& sink, bool eof) {
    static const std::vector<std::string_view> marks{"[", "<|python_start|>", "<|tool_call_start|>", "<function_calls>"};
    static const std::vector<std::string_view> closes{"", "<|python_end|>", "<|tool_call_end|>", "</function_calls>"};
    int k = text_until(sink, marks, TextKind::Content, eof);
    if (k < 0) return false;
    start_recording(marks[k]);
    close_ = closes[k];
    wrapped_ = k > 0;
    bracket_ = k == 0;
    group_calls_ = 0;
    st_ = bracket_ ? St::Name : St::Open;
    return true;
  }

  // Just inside a wrapper: a markdown fence or a '[' may come before the first call.
  bool open_wrapper(bool eof) {
    if (!skip_ws()) return false;
    // A markdown fence inside the wrapper (MiniCPM3: <|tool_call_start|>\n```python\n…\n```).
    size_t len = 0;
    int f = scan::match_any(rest(), {"```python", "```"}, eof, &len);
    if (f == -2) return false;
    if (f >= 0) {
      advance(len);
      return true;
    }
    if (rest()[0] == '[') {
      advance(1);
      bracket_ = true;
    }
    st_ = St::Name;
    return true;
  }

  // NAME( of the next call, or a JSON call object.
  bool call_name(Sink& sink) {
    if (!skip_ws()) return false;  // at the end: body_end decides
    std::string_view r = rest();
    size_t i = 0;
    if (r[0] == '{') {  // a JSON call object in the list (llama.cpp's LFM2 template)
      json_.reset(scan::CallReader::Mode::Object, {"arguments", "parameters"}, true);
      st_ = St::Json;
      return true;
    }
    size_t n0 = 0;
    if (ident_start(r[0]))
      while (i < r.size() && ident_char(r[i])) ++i;
    size_t n1 = i;
    // A name longer than any tool's is prose (and bounds the rescan of an undecided name).
    if (n1 - n0 > kMaxName) return not_a_call(sink);
    while (i < r.size() && scan::is_json_ws(r[i]) && i - n1 <= kMaxName) ++i;
    if (i - n1 > kMaxName) return not_a_call(sink);
    if (i == r.size()) return false;
    if (n1 == n0 || r[i] != '(') return not_a_call(sink);
    name_.assign(r.substr(n0, n1 - n0));
    advance(i + 1);  // past '('
    kw_.reset();
    st_ = St::Args;
    return true;
  }

  // After a call: the next one, the list's ']', the wrapper's close, or the end of the group.
  bool after_call(Sink& sink, bool eof) {
    if (!skip_ws()) return eof ? end_group(sink, false) : false;
    char c = rest()[0];
    if (c == ',') {
      advance(1);
      st_ = St::Name;
      return true;
    }
    if (bracket_ && c == ']') {
      advance(1);
      bracket_ = false;
      if (close_.empty()) return end_group(sink, true);
      st_ = St::Close;
      return true;
    }
    if (!bracket_ && !close_.empty()) {
      size_t len = 0;
      int m = scan::match_any(rest(), {close_, "```"}, eof, &len);
      if (m == -2) return false;
      if (m == 1) {  // the fence's end; the wrapper's close follows
        advance(len);
        return true;
      }
      if (m == 0) {
        advance(len);
        return end_group(sink, true);
      }
      if (ident_start(c)) {  // the next call on its own line (Olmo 3)
        st_ = St::Name;
        return true;
      }
    }
    return end_group(sink, false);
  }

  enum class St { Content, Open, Name, Args, Json, AfterCall, Close, AfterGroup } st_ = St::Content;


  bool end_group(Sink& sink, bool closed) {
    stop_recording();
    if (!closed) warn(sink, WarningKind::MalformedCall, "pythonic call list not closed");
    st_ = closed ? St::AfterGroup : St::Content;
    return true;
  }

  // Not a call after all: the text read so far is content (a warning only inside an explicit wrapper).
  bool not_a_call(Sink& sink) {
    if (wrapped_ || group_calls_ > 0) give_back(sink, WarningKind::MalformedCall, "not a pythonic call");
    else give_back_quietly(sink);
    st_ = St::Content;
    return true;
  }

  std::string_view close_;
  bool wrapped_ = false, bracket_ = false;
  size_t group_calls_ = 0;
  std::string name_;
  pylit::KwargsStream kw_;
  scan::CallReader json_;
};

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, "[func_name1(")) s += 75;  // Llama 3.2/4 pythonic, ToolACE, prompted Gemma
  if (scan::has(src, "<function_calls>")) s += 70;  // Olmo 3
  // LFM2: the tool list and a call list inside <|tool_call_start|>; MiniCPM3 shares only the
  // marker (with a code fence after it), so the marker alone scores low.
  if (scan::has(src, "<|tool_list_start|>") || scan::has(src, "<|tool_call_start|>[")) s += 75;
  else if (scan::has(src, "<|tool_call_start|>")) s += 10;
  if (scan::has(src, "python list of the calls") || scan::has(src, "python list for function calls")) s += 5;
  return s > 90 ? 90 : s;
}

// The Llama 3.2 pythonic template's system text; each tool as tojson(indent=4) and a blank line.
std::string prompt(const Value& tools) {
  std::string out =
      "You have access to the following functions. To call functions, please respond with a python list of the "
      "calls. Respond in the format [func_name1(params_name1=params_value1, params_name2=params_value2...), "
      "func_name2(params)] Do not use variables.\n\n";
  json::DumpOptions o;
  o.ensure_ascii = false;
  o.indent = json::indent_spaces(4);
  if (tools.is_list())
    for (const Value& t : tools.items()) {
      try {
        out += json::dumps(t, o) + "\n\n";
      } catch (const std::exception&) {
      }
    }
  return out;
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<PythonicParser>(o); }

// [NAME(key=value, …), …] with Python literal values, after an optional <think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    std::string call = b.per_tool_params(tools, "call", [&](const std::string& name, const Value& params) {
      return literal(name + "(") + " " + ws + " " + b.py_kwargs(params, name + "-kwargs") + " " + ws + " \")\"";
    });
    return b.reasoning("<think>", "</think>") + " " + b.json_list(call, "call-list");
  });
}

}  // namespace

const Dialect& dialect_pythonic() {
  static const Dialect d{"pythonic", {"llama4_pythonic", "olmo3", "lfm2", "toolace", "llama3_pythonic"},
                         "Pythonic [f(a=1, b='x')] lists (Llama 3.2/4, ToolACE, Gemma, Olmo 3, LFM2)", &score, &prompt,
                         &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
