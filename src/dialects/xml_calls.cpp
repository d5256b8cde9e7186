#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/xml_calls.hpp"

#include <algorithm>

namespace toolchat::dialects {
namespace {

constexpr size_t kMaxName = 256;

void add(std::vector<std::string_view>& v, std::string_view s) {
  if (!s.empty() && std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

}  // namespace

XmlSyntax function_parameter_syntax(std::string_view block_open, std::string_view block_close) {
  XmlSyntax x;
  x.block_open = {block_open};
  x.block_close = block_close;
  x.call_open = "<function=";
  x.name_end = {">"};
  x.call_close = "</function>";
  x.param_open = "<parameter=";
  x.param_name_end = ">";
  x.param_close = "</parameter>";
  return x;
}

XmlCallParser::XmlCallParser(const ParseOptions& o, const XmlSyntax& syn)
    : ThinkParser(o, syn.think_open, syn.think_close), syn_(syn) {
  think_after_ws_ = true;
  for (auto m : syn.block_open) add(content_marks_, m);
  add(content_marks_, syn.json_block_open);
  if (syn.bare_calls) add(content_marks_, syn.call_open);
  add(param_marks_, syn.param_open);
  add(param_marks_, syn.call_close);
  add(param_marks_, syn.block_close);
  if (!syn.call_close.empty()) add(param_marks_, syn.call_open);  // the next call without a close
  add(value_ends_, syn.param_close);
  add(value_ends_, syn.param_open);
  add(value_ends_, syn.call_close);
  add(value_ends_, syn.block_close);
  add(block_marks_, syn.call_open);
  add(block_marks_, syn.block_close);
}

bool XmlCallParser::skip_filler(bool eof) {
  for (;;) {
    if (!skip_ws()) return eof;
    if (!syn_.literal_newlines || rest()[0] != '\\') return true;
    if (rest().size() < 2) return eof;
    if (rest()[1] != 'n') return true;
    advance(2);
  }
}

// Reads up to the first of `ends`: true when decided (*which = index, or -1 with *bad set).
bool XmlCallParser::read_name(const std::vector<std::string_view>& ends, std::string* out, int* which, bool* bad) {
  std::string_view r = rest();
  scan::MarkerHit h = scan::find_marker(r, ends);
  *bad = false;
  // The same bounds whether the end marker has arrived or not, on the text before it (bytes before
  // h.pos are name text either way): a decision must not depend on how the output was chunked.
  const bool raw_bad = h.pos > kMaxName || r.substr(0, h.pos).find('<') != std::string_view::npos;
  if (h.which < 0) {  // more input needed (at the end: truncated, reported by body_end)
    *bad = raw_bad;
    return *bad;
  }
  std::string_view name = textargs::trim(r.substr(0, h.pos));
  if (raw_bad) name = std::string_view();
  if (syn_.quoted_names && !name.empty() && (name.front() == '"' || name.front() == '\'')) {
    // name="N" possibly followed by other attributes the model echoed (vLLM #32827): keep N.
    size_t q = name.find(name.front(), 1);
    name = q == std::string_view::npos ? std::string_view() : name.substr(1, q - 1);
  }
  if (name.empty() || name.size() > kMaxName || name.find_first_of("<>\n\"") != std::string_view::npos) {
    *bad = true;
    *which = -1;
    return true;
  }
  out->assign(name);
  advance(h.pos + ends[h.which].size());
  *which = h.which;
  return true;
}

void XmlCallParser::begin_call(Sink& sink, std::string name) {
  // Recording goes on: the call's source text is what a cut-short call gives back (body_end).
  cur_ = calls_++;
  note_call(sink, cur_, name);
  sink.on(ToolCallBegin{cur_, next_id(), name});
  args_.begin(sink, cur_, opts_.tools.is_list() ? &opts_.tools : nullptr, std::move(name), syn_.rules, syn_.trim);
}

void XmlCallParser::end_call(Sink& sink) {
  stop_recording();
  args_.end(sink);  // "}" and the call's end
  note_call_end(cur_);
  ++block_calls_;
}

bool XmlCallParser::not_a_call(Sink& sink, const char* why) {
  give_back(sink, WarningKind::MalformedCall, why);
  st_ = St::Content;
  return true;
}

bool XmlCallParser::broken_call(Sink& sink, const char* why) {
  end_call(sink);
  warn(sink, WarningKind::MalformedCall, why);
  st_ = St::Content;
  return true;
}

// The block ends at its close tag (closed) or at text that is neither a call nor the close.
bool XmlCallParser::end_block(Sink& sink, bool closed) {
  if (block_calls_ == 0) return not_a_call(sink, "tool call block without a call");
  stop_recording();
  if (!closed) warn(sink, WarningKind::MissingCloseMarker, "tool call block without its close tag");
  st_ = closed ? St::AfterBlock : St::Content;
  return true;
}

bool XmlCallParser::body_step(Sink& sink, bool eof) {
  switch (st_) {
    case St::Content: return content_step(sink, eof);
    case St::Block: return block_step(sink, eof);
    case St::Name: return name_step(sink);
    case St::BareCheck: return bare_check_step(sink, eof);
    case St::Params: return params_step(sink, eof);
    case St::ParamName: return param_name_step(sink);
    case St::ValueOpen: return value_open_step(sink, eof);
    case St::Value: return value_step(sink, eof);
    case St::AfterBlock: return ws_then_content(st_);
    case St::JsonBlock: return json_block_step(sink, eof);
    case St::JsonCall: return json_call_step(sink);
  }
  return false;
}

// Text up to a block, JSON block or bare call marker; the marker starts a recording.
bool XmlCallParser::content_step(Sink& sink, bool eof) {
  int k = text_until(sink, content_marks_, TextKind::Content, eof);
  if (k < 0) return false;
  std::string_view m = content_marks_[k];
  start_recording(m);
  block_calls_ = 0;
  if (m == syn_.json_block_open) {
    json_close_ = syn_.json_block_close;
    st_ = St::JsonBlock;
    return true;
  }
  in_block_ = m != syn_.call_open;
  st_ = !in_block_ || syn_.call_open.empty() ? St::Name : St::Block;
  return true;
}

// Inside a block: the next call's open, Hermes-style JSON, or the block's close.
bool XmlCallParser::block_step(Sink& sink, bool eof) {
  size_t len = 0;
  if (!skip_filler(eof)) return false;
  if (syn_.json_in_block && rest()[0] == '{') {  // Hermes-style JSON where XML was expected
    json_close_ = syn_.block_close;
    st_ = St::JsonBlock;
    return true;
  }
  const std::vector<std::string_view>& opts = block_marks_;
  int m = scan::match_any(rest(), opts, eof, &len);
  if (m == -2) return false;
  if (m >= 0 && opts[m] == syn_.call_open) {
    advance(len);
    st_ = St::Name;
    return true;
  }
  if (m >= 0) advance(len);  // the block's close
  return m < 0 && eof ? false : end_block(sink, m >= 0);
}

// The call's name up to its end marker: announced at once in a block, checked first when bare.
bool XmlCallParser::name_step(Sink& sink) {
  const std::vector<std::string_view>& ends = syn_.name_end;
  std::string name;
  int which = -1;
  bool bad = false;
  if (!read_name(ends, &name, &which, &bad)) return false;
  if (bad) return not_a_call(sink, "malformed tool name");
  if (!in_block_) {
    // A bare <function=N> is a call only when a parameter or the call's end follows (prose
    // may mention the syntax): decide before announcing it.
    bare_name_ = std::move(name);
    st_ = St::BareCheck;
    return true;
  }
  begin_call(sink, std::move(name));
  std::string_view end = ends[which];
  if (end == syn_.param_open) {
    st_ = St::ParamName;
  } else if (!syn_.block_close.empty() && end == syn_.block_close) {
    end_call(sink);
    st_ = St::AfterBlock;
  } else {
    st_ = St::Params;
  }
  return true;
}

// A bare <function=N> is a call only when a parameter or the call's end follows.
bool XmlCallParser::bare_check_step(Sink& sink, bool eof) {
  size_t len = 0;
  if (!skip_ws()) return false;
  int m = scan::match_any(rest(), {syn_.param_open, syn_.call_close}, eof, &len);
  if (m == -2) return false;
  if (m < 0) {  // not a call: the text is content, quietly
    give_back_quietly(sink);
    st_ = St::Content;
    return true;
  }
  begin_call(sink, std::move(bare_name_));
  st_ = St::Params;
  return true;
}

// Between parameters: the next parameter, the call's close, the block's close, or the next call.
bool XmlCallParser::params_step(Sink& sink, bool eof) {
  size_t len = 0;
  if (!skip_filler(eof)) return false;
  int m = scan::match_any(rest(), param_marks_, eof, &len);
  if (m == -2) return false;
  if (m < 0) {
    if (eof) return false;
    return broken_call(sink, "unexpected text inside a tool call");
  }
  std::string_view mark = param_marks_[m];
  if (mark == syn_.param_open) {
    advance(len);
    st_ = St::ParamName;
  } else if (mark == syn_.call_close) {
    advance(len);
    end_call(sink);
    if (in_block_) {
      start_recording();
      st_ = St::Block;
    } else {
      st_ = St::AfterBlock;
    }
  } else if (mark == syn_.block_close) {
    advance(len);
    end_call(sink);
    if (!syn_.call_close.empty())
      warn(sink, WarningKind::MissingCloseMarker, "call without " + std::string(syn_.call_close));
    st_ = St::AfterBlock;
  } else {  // the next call's open: this one lacks its close
    end_call(sink);
    warn(sink, WarningKind::MissingCloseMarker, "call without " + std::string(syn_.call_close));
    start_recording();
    st_ = in_block_ ? St::Block : St::Content;
  }
  return true;
}

bool XmlCallParser::param_name_step(Sink& sink) {
  std::string name;
  int which = -1;
  bool bad = false;
  if (!read_name({syn_.param_name_end}, &name, &which, &bad)) return false;
  if (bad) return broken_call(sink, "malformed parameter name");
  args_.param(sink, name);
  st_ = syn_.value_open.empty() ? St::Value : St::ValueOpen;
  return true;
}

bool XmlCallParser::value_open_step(Sink& sink, bool eof) {
  size_t len = 0;
  if (!skip_filler(eof)) return false;
  int m = scan::match_any(rest(), {syn_.value_open}, eof, &len);
  if (m == -2) return false;
  if (m < 0) return eof ? false : broken_call(sink, "parameter name without its value");
  advance(len);
  st_ = St::Value;
  return true;
}

// A parameter's value streams until its close tag (or the next tag, when the close is missing).
bool XmlCallParser::value_step(Sink& sink, bool eof) {
  std::string_view r = rest();
  scan::MarkerHit h = scan::find_marker(r, value_ends_);
  if (h.which < 0) {
    size_t upto = eof ? r.size() : scan::utf8_safe_end(r.substr(0, h.pos));
    args_.text(sink, r.substr(0, upto));
    advance(upto);
    return false;
  }
  args_.text(sink, r.substr(0, h.pos));
  advance(h.pos);
  if (value_ends_[h.which] == syn_.param_close) advance(syn_.param_close.size());
  args_.end_param(sink);  // a value without its close tag ends where the next tag starts
  st_ = St::Params;
  return true;
}

// Inside a JSON block: the next call object or the block's close.
bool XmlCallParser::json_block_step(Sink& sink, bool eof) {
  size_t len = 0;
  if (!skip_ws()) return false;
  if (rest()[0] == '{') {
    json_.reset(scan::CallReader::Mode::Object, {"arguments", "parameters"}, true);
    st_ = St::JsonCall;
    return true;
  }
  int m = scan::match_any(rest(), {json_close_}, eof, &len);
  if (m == -2) return false;
  if (m == 0) advance(len);
  return m < 0 && eof ? false : end_block(sink, m == 0);
}

bool XmlCallParser::json_call_step(Sink& sink) {
  Read r = read_calls(json_, sink, "JSON in a tool call block");
  if (r == Read::NeedMore) return false;
  if (r == Read::NotCall)
    return not_a_call(sink, json_.json_ended() ? "JSON in a tool call block is not a call" : "invalid JSON in a tool call block");
  if (r == Read::Cut) {
    st_ = St::Content;
    return true;
  }
  ++block_calls_;
  start_recording();
  st_ = St::JsonBlock;
  return true;
}

void XmlCallParser::body_end(Sink& sink) {
  switch (st_) {
    case St::Content:
    case St::AfterBlock:
      return;
    case St::Block:
      if (block_calls_ == 0) {
        give_back(sink, WarningKind::TruncatedCall, "output ended inside a tool call block");
      } else {
        unclosed_block(sink, "tool call block without its close tag");
      }
      return;
    case St::Name:
    case St::BareCheck:
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a tool name");
      return;
    case St::JsonBlock:
    case St::JsonCall:
      if (call_is_open()) {  // a JSON call announced, then cut short
        abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a tool call", true);
      } else if (block_calls_ == 0 || st_ == St::JsonCall) {
        give_back(sink, WarningKind::TruncatedCall, "output ended inside a tool call block");
      } else {
        unclosed_block(sink, "tool call block without its close tag");
      }
      return;
    default: {
      // What was streamed stands, unfinished; the whole-message result gives the call's text back
      // as content (docs/design.md §3.2, "a call cut short").
      advance(rest().size());
      cut_streamed_call(sink, cur_, WarningKind::TruncatedCall, "output ended inside a tool call");
      st_ = St::Content;
    }
  }
}

}  // namespace toolchat::dialects
