// A streaming JSON reader that writes the value's canonical compact form as it reads: the text a
// call's `arguments` carries, produced while the model is still writing it. Canonical form: no
// whitespace outside strings, separators "," and ":", strings re-escaped the way Python's
// json.dumps(ensure_ascii=False) writes them (escapes decoded to UTF-8; `"`, `\` and control
// characters escaped with the short forms or \u00XX), with these exceptions that keep the model's
// data: number text is kept exactly as written (1e400 stays 1e400, a 23-digit integer keeps its
// digits), a lone surrogate escape (\ud800) stays an escape, raw control characters inside strings
// are accepted (and escaped), invalid UTF-8 becomes U+FFFD, and duplicate keys are kept.
//
// Only what cannot be decided yet is held back: a cut escape sequence or UTF-8 character (not
// consumed: the caller offers those bytes again with more input), a number until it ends, a
// literal until it is complete. Each byte is examined once (held bytes at most once per feed, at
// most 12 of them), so the cost is linear in the input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace toolchat::dialects::scan {

class JsonStream {
 public:
  // Why feed() returned.
  enum class Stop {
    NeedMore,    // all input consumed but what is left undecided (a cut escape: left unconsumed)
    Key,         // an object key at depth <= watch was written (its canonical text ends out())
    ValueStart,  // a value at depth <= watch starts; its first byte (kind()) is not consumed yet
    ValueEnd,    // a value at depth <= watch (not the top one) ended; its text ends out()
    Done,        // the top value ended; bytes after it are not consumed
    Error,       // not JSON; the offending byte is not consumed
  };
  // `watch`: the depth (containers open) down to which keys and value starts/ends stop feed(); the
  // top value starts at depth 0, its keys and members are at depth 1.
  void reset(size_t watch = 0);
  void set_watch(size_t watch) { watch_ = watch; }
  // Reads from the start of s; returns the bytes consumed.
  size_t feed(std::string_view s);
  Stop stop() const { return stop_; }
  size_t depth() const { return stack_.size(); }
  char kind() const { return kind_; }  // at ValueStart: '{', '[', '"' or the scalar's first byte
  // Canonical text written so far and not yet taken by the caller.
  std::string& out() { return out_; }
  size_t max_depth = 256;

 private:
  enum class St : unsigned char {
    Value,        // a value must come (after ':' or ',' in an array, or at the top)
    ValueOrClose, // after '[': a value or ']'
    Key,          // after ',' in an object: a key must come
    KeyOrClose,   // after '{'
    Colon,        // after a key
    After,        // after a value: ',' or the closer
    Str,          // inside a string (key_ tells whether it is a key)
    Num,          // inside a number
    Lit,          // inside true / false / null
    Done,
    Error,
  };
  bool begin_value(char c);  // false: not a value
  void end_value();          // a value (scalar or container) ended at the current depth
  size_t string_run(const char* p, size_t n);  // inside a string; returns bytes consumed
  bool number_ok() const;
  void error() { st_ = St::Error; stop_ = Stop::Error; }

  St st_ = St::Value;
  Stop stop_ = Stop::NeedMore;
  size_t watch_ = 0;
  char kind_ = 0;
  bool key_ = false;          // the string being read is a key
  bool pending_start_ = false;  // a ValueStart stop was reported; the value's first byte comes next
  std::vector<char> stack_;   // open containers: '{' or '['
  std::string out_;
  std::string num_;           // the number read so far
  std::string_view lit_;      // the literal being matched
  size_t lit_pos_ = 0;
};

}  // namespace toolchat::dialects::scan
