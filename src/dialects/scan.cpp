#include "dialects/compact_json_text.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"

#include <algorithm>
#include <array>

#include "dialects/tool_fields.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"

namespace toolchat::dialects::scan {

size_t utf8_safe_end(std::string_view s) {
  size_t n = s.size();
  // Look back at most 3 bytes for a lead byte whose sequence is not complete.
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    unsigned char c = static_cast<unsigned char>(s[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // continuation: keep looking for the lead
    size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if (c >= 0xF8) need = 1;  // invalid lead: leave it alone
    return back < need ? n - back : n;
  }
  return n;
}


MarkerHit find_marker(std::string_view s, Markers markers) {
  // One pass over s: only a byte that starts some marker is a candidate position (this runs at
  // every fed chunk, and a search per marker cost several times more). At a candidate, a full
  // marker wins (the longest there); else a marker cut off by the end of s marks where to hold back
  // (the earliest such start), unless a full marker occurs later.
  uint64_t first[4] = {0, 0, 0, 0};
  for (std::string_view m : markers) {
    if (m.empty()) continue;
    auto b = static_cast<unsigned char>(m[0]);
    first[b >> 6] |= uint64_t{1} << (b & 63);
  }
  size_t hold = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    auto b = static_cast<unsigned char>(s[i]);
    if (!(first[b >> 6] >> (b & 63) & 1)) continue;
    const std::string_view tail = s.substr(i);
    int best = -1;
    for (size_t k = 0; k < markers.size(); ++k) {
      std::string_view m = markers[k];
      if (m.empty() || m[0] != tail[0]) continue;
      if (tail.size() >= m.size()) {
        if (tail.compare(0, m.size(), m) == 0 && (best < 0 || m.size() > markers[best].size())) best = static_cast<int>(k);
      } else if (hold == s.size() && m.compare(0, tail.size(), tail) == 0) {
        hold = i;
      }
    }
    if (best >= 0) return {i, best};
  }
  return {hold, -1};
}

// ---- JsonScanner ---------------------------------------------------------------------------------

namespace {
// What a byte means outside strings. A table, not std::isalnum and a chain of compares: this runs
// on every byte of a call's JSON.
enum ByteClass : unsigned char { kOther, kScalar, kSpace, kQuote, kOpen, kClose };
constexpr auto kByteClass = [] {
  std::array<ByteClass, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kScalar;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kScalar;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kScalar;
  for (char c : {':', ',', '-', '+', '.'}) t[static_cast<unsigned char>(c)] = kScalar;
  for (char c : {' ', '\n', '\r', '\t'}) t[static_cast<unsigned char>(c)] = kSpace;
  t['"'] = kQuote;
  t['{'] = t['['] = kOpen;
  t['}'] = t[']'] = kClose;
  return t;
}();
}  // namespace

void JsonScanner::reset() {
  state_ = State::Start;
  text_.clear();
  stack_.clear();
  in_string_ = escape_ = false;
}

size_t JsonScanner::feed(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0;
  if (state_ == State::Start) {
    while (i < n && is_json_ws(p[i])) ++i;
    if (i == n) return i;
    if (p[i] != '{' && p[i] != '[') {
      state_ = State::Error;
      return i;
    }
    state_ = State::Running;
  }
  if (state_ != State::Running) return 0;
  // Kept bytes are copied to text_ in runs, cut only at whitespace outside strings and at the end,
  // rather than byte by byte; the state lives in locals meanwhile (a char write may alias members).
  bool in_string = in_string_, escape = escape_;
  State state = State::Running;
  size_t run = i;
  while (i < n) {
    const char c = p[i];
    if (in_string) {
      if (escape) escape = false;
      else if (c == '\\') escape = true;
      else if (c == '"') in_string = false;
      else if (static_cast<unsigned char>(c) < 0x20) { state = State::Error; break; }
      ++i;
      continue;
    }
    switch (kByteClass[static_cast<unsigned char>(c)]) {
      case kScalar: ++i; continue;
      case kSpace:
        text_.append(p + run, i - run);
        run = ++i;
        continue;
      case kQuote: in_string = true; ++i; continue;
      case kOpen:
        stack_.push_back(c == '{' ? '}' : ']');
        ++i;
        if (stack_.size() > max_depth) state = State::Error;
        break;
      case kClose:
        if (stack_.empty() || stack_.back() != c) { state = State::Error; break; }
        stack_.pop_back();
        ++i;
        if (stack_.empty()) state = State::Done;
        break;
      case kOther: state = State::Error; break;
    }
    if (state != State::Running) break;
  }
  text_.append(p + run, i - run);
  state_ = state;
  in_string_ = in_string;
  escape_ = escape;
  return i;
}

// ---- ParserBase ----------------------------------------------------------------------------------

void ParserBase::run(Sink& sink, bool eof) {
  raw_from_ = pos_;
  while (step(sink, eof)) {
  }
  if (eof) {
    at_end(sink);
    // Whatever a state machine left undecided at the end is content.
    if (pos_ < in_.size()) emit_text(sink, rest(), TextKind::Content);
    skip_to_end();
    send_source(sink);
  }
  sync_raw();  // in_ changes after the run
}

void ParserBase::advance(size_t n) {
  if (src_.on) src_.text.append(in_.data() + pos_, n);
  pos_ += n;
}

void ParserBase::note_call(Sink& sink, size_t index, const std::string& name) {
  send_source(sink, recording_ ? std::string_view(raw()) : std::string_view(), true);
  if (!call_kept_as_content(opts_.tools, name)) return;
  warn(sink, WarningKind::UnknownTool, "call to '" + name + "', which is not among the tools");
  // Without a recording the call's first bytes are gone: the guard's JSON form it is.
  if (recording_) src_ = Source{.on = true, .closed = false, .call = index, .text = raw(), .end = std::nullopt};
}

void ParserBase::mark_source_end(std::string_view not_ours) {
  if (src_.end || !src_.closed) return;
  size_t n = src_.text.size();
  if (!not_ours.empty() && n > not_ours.size() && src_.text.ends_with(not_ours)) n -= not_ours.size();
  src_.end = n;
}

void ParserBase::send_source(Sink& sink, std::string_view not_ours, bool next_call) {
  if (!src_.on) return;
  Source s = std::move(src_);
  src_ = Source{};
  if (!s.closed) return;
  // Text since a new recording began is the call's (a block's close marker) unless it is given back
  // as content or begins the next call.
  if ((next_call || !not_ours.empty()) && s.end) {
    s.text.resize(*s.end);
  } else if (!not_ours.empty()) {
    // The next call's recording holds this call's text too: the two cannot be told apart.
    if (not_ours.size() >= s.text.size()) return;
    if (s.text.ends_with(not_ours)) s.text.resize(s.text.size() - not_ours.size());
  }
  Warning w{WarningKind::UnknownTool, "the call's text, kept as content"};
  w.cut_call = s.call;
  w.cut_text = std::move(s.text);
  sink.on(std::move(w));
}

void ParserBase::give_back(Sink& sink, WarningKind k, std::string detail) {
  give_back_quietly(sink);
  warn(sink, k, std::move(detail));
}

bool ParserBase::close_marked_call(Sink& sink, std::string_view open, std::string_view close, bool not_call,
                                   CloseMarker close_marker, std::string_view not_call_what, bool eof) {
  int m = -1;
  if (!close.empty()) {
    size_t len = 0;
    m = match_any(rest(), {close}, eof, &len);
    if (m == -2) return false;
    if (m == 0) advance(len);
  }
  std::string text = std::move(raw());
  stop_recording();
  if (not_call) {
    sink.on(ContentDelta{std::move(text)});
    warn(sink, WarningKind::MalformedCall, "the JSON after " + std::string(open) + " is not " + std::string(not_call_what));
  } else if (!close.empty() && m != 0 && close_marker == CloseMarker::Required) {
    warn(sink, WarningKind::MissingCloseMarker, "call without " + std::string(close));
  }
  return true;
}

void ParserBase::give_back_quietly(Sink& sink) {
  send_source(sink, raw());
  if (!raw_.empty()) sink.on(ContentDelta{raw_});
  stop_recording();
}

void ParserBase::feed(std::string_view chunk, Sink& sink) {
  // With nothing held back the chunk is read in place; only what run() leaves undecided is copied.
  const bool in_place = buf_.empty();
  if (in_place) {
    in_ = chunk;
  } else {
    buf_.append(chunk);
    in_ = buf_;
  }
  pos_ = 0;
  run(sink, false);
  if (!in_place) buf_.erase(0, pos_);
  else if (pos_ < in_.size()) buf_.assign(in_.substr(pos_));
  in_ = {};
  pos_ = 0;
}

void ParserBase::finish(Sink& sink) {
  in_ = buf_;
  pos_ = 0;
  run(sink, true);
  buf_.clear();
  in_ = {};
  pos_ = 0;
}

void ParserBase::emit_text(Sink& sink, std::string_view s, TextKind kind) {
  if (src_.on) send_source(sink);
  if (s.empty()) return;
  if (kind == TextKind::Reasoning) sink.on(ReasoningDelta{std::string(s)});
  else sink.on(ContentDelta{std::string(s)});
}

int ParserBase::text_until(Sink& sink, Markers markers, TextKind kind, bool eof) {
  if (src_.on) send_source(sink);  // text again: a call before it is over
  std::string_view r = rest();
  MarkerHit h = find_marker(r, markers);
  if (h.which >= 0) {
    emit_text(sink, r.substr(0, h.pos), kind);
    skip(h.pos);
    advance(markers[h.which].size());
    return h.which;
  }
  size_t upto = eof ? r.size() : utf8_safe_end(r.substr(0, h.pos));
  emit_text(sink, r.substr(0, upto), kind);
  skip(upto);
  return -1;
}

int ParserBase::string_arg_until(Sink& sink, Markers markers, bool eof) {
  Trimmed verbatim{{}, true, false};
  return trimmed_string_until(sink, markers, verbatim, eof);
}

int ParserBase::trimmed_string_until(Sink& sink, Markers markers, Trimmed& t, bool eof) {
  std::string_view r = rest();
  MarkerHit h = find_marker(r, markers);
  size_t upto = h.which >= 0 ? h.pos : eof ? r.size() : utf8_safe_end(r.substr(0, h.pos));
  call_trimmed_text(sink, r.substr(0, upto), t);
  advance(upto);
  return h.which;
}

int ParserBase::collect_until(std::string& acc, Markers markers, bool eof) {
  std::string_view r = rest();
  MarkerHit h = find_marker(r, markers);
  size_t upto = h.which >= 0 ? h.pos : eof ? r.size() : utf8_safe_end(r.substr(0, h.pos));
  acc.append(r.substr(0, upto));
  advance(upto);
  return h.which;
}

bool ParserBase::skip_ws() {
  size_t p = pos_;
  while (p < in_.size() && is_json_ws(in_[p])) ++p;
  advance(p - pos_);
  return pos_ < in_.size();
}

ParserBase::Match ParserBase::match(std::string_view lit, bool eof) {
  std::string_view r = rest();
  size_t n = std::min(r.size(), lit.size());
  if (r.substr(0, n) != lit.substr(0, n)) return Match::No;
  if (n < lit.size()) return eof ? Match::No : Match::NeedMore;
  advance(lit.size());
  return Match::Yes;
}

std::string ParserBase::next_id() {
  return id_len_ ? make_alnum_id(opts_.id_seed, generated_++, id_len_) : make_call_id(opts_.id_seed, generated_++);
}

void ParserBase::warn(Sink& sink, WarningKind k, std::string detail) { sink.on(Warning{k, std::move(detail)}); }

void ParserBase::emit_call(Sink& sink, std::string id, const std::string& name, const Value& args) {
  std::string a;
  if (args.is_dict()) {
    a = compact_json(args);
  } else if (args.is_str()) {
    // Arguments given as a JSON string holding an object: use the object.
    if (auto inner = json_value(args.str()); inner && inner->is_dict()) a = compact_json(*inner);
    if (a.empty()) {
      warn(sink, WarningKind::InvalidArguments, "arguments of '" + name + "' are a string, not a JSON object");
      a = compact_json(args);
    }
  } else if (args.is_undefined() || args.is_none()) {
    a = "{}";
  } else {
    warn(sink, WarningKind::InvalidArguments, "arguments of '" + name + "' are not a JSON object");
    a = compact_json(args);
  }
  emit_call_args(sink, std::move(id), name, std::move(a));
}

void ParserBase::emit_call_args(Sink& sink, std::string id, const std::string& name, std::string a) {
  if (id.empty()) id = next_id();
  size_t idx = calls_++;
  note_call(sink, idx, name);
  sink.on(ToolCallBegin{idx, std::move(id), name});
  sink.on(ToolArgsDelta{idx, std::move(a)});
  sink.on(ToolCallEnd{idx});
  note_call_end(idx);
}

void ParserBase::open_call(Sink& sink, std::string id, const std::string& name) {
  if (id.empty()) id = next_id();
  note_call(sink, calls_, name);
  sink.on(ToolCallBegin{calls_++, std::move(id), name});
  open_ = true;
}

void ParserBase::call_text(Sink& sink, std::string_view fragment) {
  if (!fragment.empty()) sink.on(ToolArgsDelta{calls_ - 1, std::string(fragment)});
}

void ParserBase::take_call_text(Sink& sink, std::string& fragment) {
  if (!fragment.empty()) sink.on(ToolArgsDelta{calls_ - 1, std::move(fragment)});
  fragment.clear();
}

void ParserBase::open_string_call(Sink& sink, const std::string& name, std::string_view key) {
  open_call(sink, "", name);
  std::string head = "{";
  json::dump_string(head, key, false);
  head += ":\"";
  call_text(sink, head);
}

void ParserBase::call_string_text(Sink& sink, std::string_view text) {
  if (text.empty()) return;
  std::string quoted;
  json::dump_string(quoted, text, false);
  call_text(sink, std::string_view(quoted).substr(1, quoted.size() - 2));
}

void ParserBase::call_trimmed_text(Sink& sink, std::string_view text, Trimmed& t) {
  if (!t.trim) return call_string_text(sink, text);
  if (!t.started) {
    while (!text.empty() && is_json_ws(text.front())) text.remove_prefix(1);
    if (text.empty()) return;
    t.started = true;
  }
  size_t keep = text.size();
  while (keep > 0 && is_json_ws(text[keep - 1])) --keep;
  if (keep == 0) {
    t.pending.append(text);
    return;
  }
  if (t.pending.empty()) {
    call_string_text(sink, text.substr(0, keep));
  } else {  // one fragment
    t.pending.append(text.substr(0, keep));
    call_string_text(sink, t.pending);
  }
  t.pending.assign(text.substr(keep));
}

void ParserBase::close_string_call(Sink& sink) {
  call_text(sink, "\"}");
  close_call(sink);
}

void ParserBase::close_call(Sink& sink) {
  sink.on(ToolCallEnd{calls_ - 1});
  note_call_end(calls_ - 1);
  open_ = false;
}

void ParserBase::abandon_call(Sink& sink, WarningKind k, std::string detail, bool take_rest) {
  if (take_rest) advance(in_.size() - pos_);
  if (!open_) {
    give_back(sink, k, std::move(detail));
    return;
  }
  note_call_end(calls_ - 1);
  open_ = false;
  cut_streamed_call(sink, calls_ - 1, k, std::move(detail));
}

void ParserBase::cut_streamed_call(Sink& sink, size_t index, WarningKind k, std::string detail) {
  sink.on(ToolCallEnd{index});
  Warning w{k, std::move(detail)};
  w.cut_call = index;
  w.cut_text = std::move(raw());
  sink.on(std::move(w));
  stop_recording();
}

std::optional<CallArgs> call_args(std::string_view json_text) {
  CallArgs a;
  if (compact_json_text::is_canonical_object(json_text)) {
    a.canonical = true;
    a.text.assign(json_text);
    return a;
  }
  std::optional<Value> v = json_value(json_text);
  if (!v) return std::nullopt;
  a.value = std::move(*v);
  return a;
}

void ParserBase::emit_call(Sink& sink, std::string id, const std::string& name, const CallArgs& args) {
  if (args.canonical) emit_call_args(sink, std::move(id), name, args.text);
  else emit_call(sink, std::move(id), name, args.value);
}

bool ParserBase::emit_call_object(Sink& sink, const std::string& json_text,
                                  std::initializer_list<std::string_view> args_keys, bool keep_id) {
  if (compact_json_text::CallText ct; compact_json_text::read_call_object(json_text, args_keys, keep_id, &ct)) {
    emit_call_args(sink, std::string(ct.id), std::string(ct.name), std::string(ct.args));
    return true;
  }
  std::optional<Value> parsed = json_value(json_text);
  if (!parsed) return false;
  const Value& v = *parsed;
  return emit_call_value(sink, v, args_keys, keep_id);
}

namespace {
// The object holding a call's name and arguments: the call itself ({"name", "arguments", "id"}) or
// its "function" member ({"id", "type": "function", "function": {"name", "arguments"}}); null
// when there is no non-empty string name.
const DictObj* call_fields(const Value& call) {
  if (!call.is_dict()) return nullptr;
  const DictObj* d = &call.dict_obj();
  if (!d->find("name"))
    if (const Value* f = d->find("function"); f && f->is_dict()) d = &f->dict_obj();
  const Value* name = d->find("name");
  return name && name->is_str() && !name->str().empty() ? d : nullptr;
}
}  // namespace

bool ParserBase::emit_call_value(Sink& sink, const Value& v, std::initializer_list<std::string_view> args_keys,
                                 bool keep_id) {
  const DictObj* fields = call_fields(v);
  if (!fields) return false;
  Value args;
  for (auto k : args_keys)
    if (const Value* a = fields->find(k)) { args = *a; break; }
  std::string idv;
  if (keep_id)
    if (const Value* id = v.dict_obj().find("id"); id && id->is_str()) idv = id->str();
  emit_call(sink, idv, std::string(fields->find("name")->str()), args);
  return true;
}

bool ParserBase::emit_call_list(Sink& sink, const std::string& json_text,
                                std::initializer_list<std::string_view> args_keys, bool keep_id) {
  if (std::vector<compact_json_text::CallText> calls; compact_json_text::read_call_list(json_text, args_keys, keep_id, &calls)) {
    for (const auto& ct : calls) emit_call_args(sink, std::string(ct.id), std::string(ct.name), std::string(ct.args));
    return true;
  }
  std::optional<Value> parsed = json_value(json_text);
  if (!parsed) return false;
  const Value& v = *parsed;
  if (!v.is_list() || v.items().empty()) return false;
  for (const Value& c : v.items())
    if (!call_fields(c)) return false;
  for (const Value& c : v.items()) emit_call_value(sink, c, args_keys, keep_id);
  return true;
}

bool ThinkParser::step(Sink& sink, bool eof) {
  switch (phase_) {
    case Phase::Start: {
      if (open_.empty()) { phase_ = Phase::Body; return true; }
      if (think_after_ws_) {
        std::string_view r = rest();
        size_t i = 0;
        while (i < r.size() && is_json_ws(r[i])) ++i;
        if (i == r.size() && !eof) return false;
        std::string_view t = r.substr(i);
        size_t n = std::min(t.size(), open_.size());
        if (i > 0 && t.substr(0, n) == open_.substr(0, n)) {
          if (n < open_.size() && !eof) return false;
          if (n == open_.size()) advance(i);
        }
      }
      Match m = match(open_, eof);
      if (m == Match::NeedMore) return false;
      phase_ = m == Match::Yes ? Phase::Reasoning : Phase::Body;
      return true;
    }
    case Phase::Reasoning: {
      if (text_until(sink, {close_}, TextKind::Reasoning, eof) < 0) return false;
      phase_ = Phase::AfterThink;
      return true;
    }
    case Phase::AfterThink:
      if (!skip_ws()) return false;
      phase_ = Phase::Body;
      return true;
    case Phase::Body:
      return body_step(sink, eof);
  }
  return false;
}

void ThinkParser::at_end(Sink& sink) {
  if (phase_ == Phase::Reasoning) warn(sink, WarningKind::UnclosedReasoning, "output ended inside the reasoning block");
  if (phase_ == Phase::Body) body_end(sink);
}

int match_any(std::string_view r, Markers lits, bool eof, size_t* len) {
  size_t i = 0;
  while (i < r.size() && is_json_ws(r[i])) ++i;
  r = r.substr(i);
  // The longest full match, unless a longer literal could still match with more input.
  bool partial = false;
  int best = -1;
  for (size_t k = 0; k < lits.size(); ++k) {
    size_t n = std::min(r.size(), lits[k].size());
    if (n > 0 && r[0] != lits[k][0]) continue;
    if (r.substr(0, n) != lits[k].substr(0, n)) continue;
    if (n < lits[k].size()) partial = true;
    else if (best < 0 || lits[k].size() > lits[best].size()) best = static_cast<int>(k);
  }
  if (!eof && (partial || r.empty())) return -2;
  if (best >= 0) *len = i + lits[best].size();
  return best;
}

std::string compact_json(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  o.separators = std::make_pair(std::string(","), std::string(":"));
  try {
    return json::dumps(v, o);
  } catch (const std::exception&) {
    return "{}";
  }
}

std::string tools_json_lines(const Value& tools) {
  std::string out;
  if (!tools.is_list()) return out;
  json::DumpOptions o;
  o.ensure_ascii = false;
  for (const Value& t : tools.items()) {
    try {
      out += json::dumps(t, o);
    } catch (const std::exception&) {
      continue;
    }
    out += '\n';
  }
  return out;
}

std::vector<std::string_view> joined(std::vector<std::string_view> a, const std::vector<std::string_view>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool has(const std::string& s, std::string_view needle) { return s.find(needle) != std::string::npos; }

}  // namespace toolchat::dialects::scan
