// A forward reader over JSON text for the parts of a tokenizer.json too large to build a value
// tree of (the vocabulary and merges: up to a million strings, which as values cost an
// allocation each and most of the load time). It checks the grammar json::parse checks (strings
// and their escapes, numbers, literals, nesting up to json::ReadLimits' depth) and keeps
// nothing; on any fault it throws Bad, and the caller asks json::parse for the message, so the
// errors stay json::parse's. The text must already be valid UTF-8 (json::parse's first check).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace toolchat::tokenize {

class JsonSkim {
 public:
  struct Bad {
    size_t pos;
  };
  explicit JsonSkim(std::string_view text, size_t pos = 0) : s_(text), i_(pos) {}
  size_t pos() const { return i_; }

  // Skips whitespace; true (and consumed) when the next byte is c.
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) throw Bad{i_};
  }
  // Skips whitespace; the next byte, or 0 at the end.
  char peek() {
    ws();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  // A string (whitespace first): its text, a view into the input or, when it had escapes, into
  // `scratch`.
  std::string_view string(std::string& scratch);
  // Any value (whitespace first), skipped: its [begin, end) in the text. `depth`: the
  // containers it is inside (for the nesting limit).
  std::pair<size_t, size_t> value(size_t depth);
  // True with v set when `literal` (a value value() skipped) is an integer from 0 to `max` as
  // json::parse reads it ("-0" too).
  static bool integer(std::string_view literal, uint64_t max, uint64_t& v);
  // Whitespace, then the end of the text.
  void end() {
    ws();
    if (i_ != s_.size()) throw Bad{i_};
  }

 private:
  std::string_view s_;
  size_t i_;
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  void skip_number();
};

}  // namespace toolchat::tokenize
