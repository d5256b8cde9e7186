// Shared incremental pieces for the dialect parsers: UTF-8-safe cut points, a marker search that
// holds back only a possible marker prefix, an incremental JSON value scanner, and ParserBase, the
// buffer + helpers every family's state machine is written on. Everything here is linear: a byte is
// examined a bounded number of times (held-back bytes at most once per feed, and at most
// max-marker-length of them).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dialects/dialect.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects::scan {

// Length of the longest prefix of s that does not end inside an incomplete UTF-8 sequence (an
// incomplete lead + continuation bytes at the very end are cut; invalid bytes are left alone).
size_t utf8_safe_end(std::string_view s);
inline bool is_json_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// A non-owning list of markers or literals for the functions below. It binds a braced list without
// building a std::vector (a heap allocation per call, and these run at every fed chunk) and binds a
// vector too; the list must outlive the call only.
class Markers {
 public:
  Markers() = default;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"  // on purpose: the list outlives the call
#endif
  Markers(std::initializer_list<std::string_view> l) : data_(l.begin()), size_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  Markers(const std::vector<std::string_view>& v) : data_(v.data()), size_(v.size()) {}
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::string_view& operator[](size_t i) const { return data_[i]; }
  const std::string_view* begin() const { return data_; }
  const std::string_view* end() const { return data_ + size_; }

 private:
  const std::string_view* data_ = nullptr;
  size_t size_ = 0;
};

struct MarkerHit {
  size_t pos;   // where the marker starts; when which < 0: where a possible marker prefix starts
  int which;    // index into markers, -1 when no full marker occurs
};
// Earliest full occurrence of any marker in s (the longest marker at the same position). With no
// full occurrence, pos is the start of the longest suffix of s that is a proper prefix of a marker
// (s.size() when none): bytes before pos can be emitted, the rest must be held back.
MarkerHit find_marker(std::string_view s, Markers markers);

// Incremental JSON container scanner: feed() bytes as they arrive; it tracks strings, escapes and
// nesting to find where the value ends, keeps the value's text with insignificant whitespace removed
// (strings verbatim), and checks the structure. Full validation (numbers, literals) is left to
// json::parse on text() once done.
class JsonScanner {
 public:
  enum class State { Start, Running, Done, Error };
  void reset();
  // Consumes bytes of s (leading whitespace included) until the value ends or an error; returns the
  // number consumed. Bytes after the value are not consumed.
  size_t feed(std::string_view s);
  State state() const { return state_; }
  const std::string& text() const { return text_; }  // the minified value so far
  size_t max_depth = 256;

 private:
  State state_ = State::Start;
  std::string text_;
  std::vector<char> stack_;  // expected closers
  bool in_string_ = false, escape_ = false;
};

// A call's arguments read from JSON text (a JsonScanner's): kept as the text itself when it is
// canonical compact JSON (compact_json_text::is_canonical_object: what parsing and dumping would give back),
// else parsed.
struct CallArgs {
  bool canonical = false;
  std::string text;  // canonical
  Value value;       // otherwise
};
// Empty when the text is not valid JSON.
std::optional<CallArgs> call_args(std::string_view json_text);

// A list of marker lists joined (for marker sets built from others once, as statics).
std::vector<std::string_view> joined(std::vector<std::string_view> a, const std::vector<std::string_view>& b);

class ArgsReader;
class CallReader;
}  // namespace toolchat::dialects::scan
namespace toolchat::dialects::pylit {
class KwargsStream;
}  // namespace toolchat::dialects::pylit
namespace toolchat::dialects::scan {

// Base for the families' state machines. feed() calls run(eof=false) on the input (in_), finish()
// calls run(eof=true). run() consumes from pos_; the consumed prefix is dropped after each call, so
// buf_ holds only what run() could not decide yet.
class ParserBase : public StreamParser {
 public:
  explicit ParserBase(const ParseOptions& o) : opts_(o) {}
  void feed(std::string_view chunk, Sink& sink) final;
  void finish(Sink& sink) final;

  // ---- a call streamed as it is read (docs/design.md §3.2) ----
  // Announces a call (an empty id is generated; an UnknownTool warning first when it is not among
  // the tools); call_text() emits a piece of its arguments; close_call() ends it.
  void open_call(Sink& sink, std::string id, const std::string& name);
  void call_text(Sink& sink, std::string_view fragment);
  // The same for a buffer the caller reuses: its text is moved into the event (no copy of a long
  // argument), and it is left empty.
  void take_call_text(Sink& sink, std::string& fragment);
  void close_call(Sink& sink);
  bool call_is_open() const { return open_; }
  // A call whose arguments are one string, {"KEY": TEXT} (a code body: gpt-oss / functionary
  // python, Llama's code_interpreter, ChatGLM3's interpreter): announced at once, TEXT streamed
  // JSON-escaped as it arrives (call_string_text), the string and the call closed at its end.
  void open_string_call(Sink& sink, const std::string& name, std::string_view key);
  void call_string_text(Sink& sink, std::string_view text);
  void close_string_call(Sink& sink);
  // The string streamed as a text trimmed at both ends (what trimming the whole text would give):
  // leading whitespace is skipped, trailing whitespace held until more text follows.
  struct Trimmed {
    std::string pending;
    bool started = false;
    bool trim = true;  // false: the text goes out as it is
  };
  void call_trimmed_text(Sink& sink, std::string_view text, Trimmed& t);
  // What is being read stops being a call: an open call is closed and cut (its source text, what
  // was recorded, goes with the warning: the whole-message result gives it as content); with no
  // call open the recorded text is given back as content. With take_rest (at the end of the
  // output) the bytes left undecided belong to it.
  void abandon_call(Sink& sink, WarningKind k, std::string detail, bool take_rest = false);
  // The same for a call a family streams with its own writer (schema::ArgsWriter): call `index`
  // is ended and cut, its recorded text going with the warning.
  void cut_streamed_call(Sink& sink, size_t index, WarningKind k, std::string detail);

  // ---- a call to a tool that is not among the request's tools (issue 12 §6) ----
  // The output guard keeps such a call out of the calls and gives it back as content: as the model
  // wrote it when the parser could say which bytes were the call's, else as {"name","arguments"}
  // JSON. Where a family announces a call it calls note_call() (before the ToolCallBegin), and
  // note_call_end() after its ToolCallEnd. For an unknown tool, the call's source text is the
  // recording so far (its open marker and name) plus every byte consumed until the parser shows the
  // call is over: it reads text again (emit_text), starts recording another call, gives back a
  // recording, or announces the next call, or the output ends. The text then goes to the sink as
  // an UnknownTool warning with cut_call/cut_text (collect() treats it like a cut call: the call
  // out, its text in). A call still open at that point (cut short, or a family that reads text
  // inside a call) sends nothing: the guard's JSON form stands.
  void note_call(Sink& sink, size_t index, const std::string& name);
  void note_call_end(size_t index) {
    if (src_.on && src_.call == index) src_.closed = true;
  }

 protected:
  // One step of the state machine: true when it consumed bytes or changed state (it is called
  // again), false when it needs more input (or, at eof, has nothing left to do).
  virtual bool step(Sink& sink, bool eof) = 0;
  // Called once after the last step at eof: report what was left open.
  virtual void at_end(Sink& sink) = 0;
  void run(Sink& sink, bool eof);

  // Moves pos_ by n; while recording, the bytes are kept (raw(): the source text of a call in
  // progress, given back as content when the call turns out malformed or truncated).
  void advance(size_t n);
  // Moves pos_ by n without recording the bytes.
  void skip(size_t n) {
    sync_raw();
    pos_ += n;
    raw_from_ = pos_;
  }
  void start_recording(std::string_view already = {}) {
    if (src_.on) mark_source_end(already);
    recording_ = true;
    raw_.assign(already);
    raw_from_ = pos_;
  }
  void stop_recording() {
    recording_ = false;
    raw_.clear();
  }
  // The text recorded since start_recording (empty when not recording).
  std::string& raw() {
    sync_raw();
    return raw_;
  }
  // The recorded text becomes content, with a warning.
  void give_back(Sink& sink, WarningKind k, std::string detail);
  // The same without a warning (the text was never a call, only looked like one's start).
  void give_back_quietly(Sink& sink);
  // What is being read is not a call after all: its text becomes content with a MalformedCall
  // warning and the state machine goes back to reading content (its `state` to St::Content).
  // True, so that a step can end with `return malformed(sink, why, st_);`.
  template <class St>
  bool malformed(Sink& sink, std::string why, St& state) {
    give_back(sink, WarningKind::MalformedCall, std::move(why));
    state = St::Content;
    return true;
  }
  // After a call or a block of calls: content resumes (`state` becomes St::Content). The whitespace
  // that follows is content too: the output guard (output_guard.hpp) drops it when only a call or
  // the end of the output follows. With drop_ws (after a reasoning block) it is skipped here; false
  // then while only whitespace is available.
  template <class St>
  bool ws_then_content(St& state, bool drop_ws = false) {
    if (drop_ws && !skip_ws()) return false;
    state = St::Content;
    return true;
  }
  // After a call's JSON between markers: reads the close marker (none when `close` is empty) and
  // ends the recording. JSON that was not a call (not_call) becomes content with a MalformedCall
  // warning ("the JSON after OPEN is not NOT_CALL_WHAT"); a call without its close marker gets a
  // MissingCloseMarker warning unless the close is optional. False while the marker may be arriving.
  enum class CloseMarker : bool { Required, Optional };
  bool close_marked_call(Sink& sink, std::string_view open, std::string_view close, bool not_call,
                         CloseMarker close_marker, std::string_view not_call_what, bool eof);
  // A block of calls whose close marker never came: the calls it held stand, with a warning.
  void unclosed_block(Sink& sink, std::string what) {
    stop_recording();
    warn(sink, WarningKind::MissingCloseMarker, std::move(what));
  }

  std::string_view rest() const { return in_.substr(pos_); }
  // Everything available is consumed, without recording it.
  void skip_to_end() { skip(in_.size() - pos_); }
  // Emits rest() as content or reasoning up to the first of `markers`; returns the marker's index
  // (pos_ then past it) or -1 when more input is needed (the possible marker prefix and any
  // incomplete UTF-8 tail are held back, unless eof).
  enum class TextKind : bool { Content, Reasoning };  // which delta text goes out as
  int text_until(Sink& sink, Markers markers, TextKind kind, bool eof);
  void emit_text(Sink& sink, std::string_view s, TextKind kind);
  // Like text_until, but appends the text to acc instead of emitting it, and leaves pos_ on the
  // marker (not past it): for a call's free-form part that runs to the next label.
  int collect_until(std::string& acc, Markers markers, bool eof);
  // Like collect_until, but the text streams into the open string call (open_string_call).
  int string_arg_until(Sink& sink, Markers markers, bool eof);
  // The same, the text trimmed as a whole (call_trimmed_text).
  int trimmed_string_until(Sink& sink, Markers markers, Trimmed& t, bool eof);
  // Skips JSON whitespace; true when a non-whitespace byte is available.
  bool skip_ws();
  enum class Match { Yes, No, NeedMore };
  // Does rest() start with lit? On Yes, pos_ moves past it.
  Match match(std::string_view lit, bool eof);

  // ---- a call's JSON read by an ArgsReader / CallReader (call_reader.hpp) ----
  // One step of the reader, with what every family does alike done here: an object that turned
  // invalid after its call was announced cuts the call (abandon_call, MalformedCall warning naming
  // `what` and the tool); a finished arguments object with `close` ends the call and the recording
  // (without it the family reads its own close marker first); a finished list of calls ends the
  // recording. NotCall (nothing emitted, the text read is not a call) is the family's to decide;
  // with NotArgs::Cut it is cut like Cut instead.
  enum class Read { NeedMore, Done, NotCall, Cut };
  enum class NotArgs : bool { Report, Cut };
  // On a finished arguments object: end the call and its recording, or leave that to the family.
  enum class OnArgsDone : bool { FamilyCloses, CloseCall };
  static constexpr const char* kNotObject = "arguments are not a JSON object";
  Read read_args(ArgsReader& r, Sink& sink, const std::string& id, const std::string& name, std::string_view what,
                 OnArgsDone on_done, NotArgs not_args);
  Read read_calls(CallReader& r, Sink& sink, std::string_view what);
  // The same for a pythonic call's keyword arguments (after `NAME(`): Done closes the call.
  Read read_kwargs(pylit::KwargsStream& k, Sink& sink, const std::string& name, bool eof, NotArgs not_args);
  // Moves `state` on after a Read: to `done` on Done, to `cut` on Cut; false on NeedMore.
  template <class St>
  static bool moved(Read r, St& state, St done, St cut) {
    if (r == Read::NeedMore) return false;
    state = r == Read::Done ? done : cut;
    return true;
  }
  // read_args then moved(), for the usual family: a JSON object after the tool's name. A text that
  // is not an object is given back as content (`not_object` the warning; state `cut`) or, with
  // not_object null, cut like an invalid object.
  template <class St>
  struct ArgsPlan {
    St done;
    St cut;  // the state after a cut call
    bool close = true;
    std::string_view what = "arguments";
    const char* not_object = nullptr;
  };
  template <class St>
  bool args_step(ArgsReader& r, Sink& sink, const std::string& id, const std::string& name, St& state,
                 const ArgsPlan<St>& plan) {
    Read got = read_args(r, sink, id, name, plan.what, plan.close ? OnArgsDone::CloseCall : OnArgsDone::FamilyCloses,
                         plan.not_object == nullptr ? NotArgs::Cut : NotArgs::Report);
    if (got == Read::NotCall) give_back(sink, WarningKind::MalformedCall, plan.not_object);
    return moved(got, state, plan.done, plan.cut);
  }

  // Validates a {"name": ..., <args_key>: ...} call object (text from a JsonScanner) and emits it.
  // Returns false when it is not a call (nothing emitted). args_keys are tried in order.
  bool emit_call_object(Sink& sink, const std::string& json_text,
                        std::initializer_list<std::string_view> args_keys, bool keep_id);
  // A non-empty JSON array of call objects (JsonScanner text), all or nothing: false (nothing
  // emitted) when it is not an array or an element is not a call ({"name", ...} or {"function": {...}}).
  bool emit_call_list(Sink& sink, const std::string& json_text, std::initializer_list<std::string_view> args_keys,
                      bool keep_id = true);
  // The same for a call object already parsed (an element of a JSON array of calls): no
  // serialise-and-parse-again per call.
  bool emit_call_value(Sink& sink, const Value& call, std::initializer_list<std::string_view> args_keys,
                       bool keep_id);
  // Emits Begin/ArgsDelta/End for a call whose arguments are given as a parsed Value (an empty id
  // is generated).
  void emit_call(Sink& sink, std::string id, const std::string& name, const Value& args);
  void emit_call(Sink& sink, std::string id, const std::string& name, const CallArgs& args);
  // The events of a call whose arguments are already compact JSON.
  void emit_call_args(Sink& sink, std::string id, const std::string& name, std::string args_json);
  std::string next_id();  // make_call_id(seed, n)
  void warn(Sink& sink, WarningKind k, std::string detail);

  ParseOptions opts_;
  // During a run, in_ is what can be read: the fed chunk itself when nothing was held back, else
  // buf_ (held-back bytes + chunk); pos_ indexes it. Between runs buf_ holds only what run() could
  // not decide yet.
  std::string_view in_;
  std::string buf_;
  size_t pos_ = 0;
  size_t calls_ = 0;      // calls emitted
  size_t generated_ = 0;  // ids generated
  size_t id_len_ = 0;     // 0: "call_" + 24; else that many alphanumerics
  bool recording_ = false;
  bool open_ = false;  // a streamed call is open (index calls_ - 1)

 private:
  // The recording is kept lazily: raw_ holds what was recorded before in_[raw_from_], and the bytes
  // from there to pos_ are recorded too; they are copied only when raw() is asked for or before
  // in_ changes (the end of a run), so a call read within one chunk is never copied.
  void sync_raw() {
    if (recording_ && pos_ > raw_from_) raw_.append(in_.data() + raw_from_, pos_ - raw_from_);
    raw_from_ = pos_;
  }
  std::string raw_;
  size_t raw_from_ = 0;

  // The source text of an unknown tool's call (note_call). A new recording marks where the call
  // may end (`end`): the text up to it goes if another call follows, all of it if text or the end
  // of the output does (a block's close marker after the call is the call's too).
  struct Source {
    bool on = false, closed = false;
    size_t call = 0;
    std::string text;
    std::optional<size_t> end;
  };
  Source src_;
  void mark_source_end(std::string_view not_ours);
  // Sends the source text (without a tail `not_ours` that belongs to what comes next) and ends it.
  void send_source(Sink& sink, std::string_view not_ours = {}, bool next_call = false);
 protected:

  friend class CallReader;
  friend class ArgsReader;
};

// ParserBase with a reasoning block: the output may start with think_open (or, with
// ParseOptions::reasoning_open, start inside the block); everything up to think_close is
// reasoning, whitespace after it is dropped, and body_step() parses the rest. Calls are never
// looked for inside the block.
class ThinkParser : public ParserBase {
 public:
  ThinkParser(const ParseOptions& o, std::string_view think_open, std::string_view think_close)
      : ParserBase(o), open_(think_open), close_(think_close) {
    phase_ = o.reasoning_open ? Phase::Reasoning : Phase::Start;
  }

 protected:
  bool step(Sink& sink, bool eof) final;
  void at_end(Sink& sink) final;
  virtual bool body_step(Sink& sink, bool eof) = 0;
  virtual void body_end(Sink& sink) = 0;
  // The reasoning block may follow leading whitespace (GLM-4.5 writes "\n<think>"); the whitespace
  // is dropped only when the block does follow.
  bool think_after_ws_ = false;

 private:
  enum class Phase { Start, Reasoning, AfterThink, Body } phase_;
  std::string_view open_, close_;
};

// Skips whitespace, then matches one of `lits`: index, -1 = none of them, -2 = need more input.
int match_any(std::string_view rest, Markers lits, bool eof, size_t* len);

// Compact JSON (separators "," ":", UTF-8 kept) of v.
std::string compact_json(const Value& v);

// Shared by the tool prompts.
std::string tools_json_lines(const Value& tools);  // one compact-ish JSON line per tool
bool has(const std::string& s, std::string_view needle);

}  // namespace toolchat::dialects::scan
