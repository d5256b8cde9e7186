// A pythonic call's keyword arguments `k='v', n=3)` streamed as JSON while they are read: the call
// is announced at its first `k=` (or at an empty `)`), each key goes out as it completes, a plain
// '…' / "…" string value streams as its characters arrive (escapes decoded as Python decodes them),
// and any other value (numbers, True/False/None, lists, dicts, triple-quoted or prefixed strings) is
// converted once it is complete. Cost is linear: only a cut escape or character is offered again.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "dialects/dialect.hpp"

namespace toolchat::dialects::scan {
class ParserBase;
}

namespace toolchat::dialects::pylit {

class KwargsStream {
 public:
  enum class Status {
    NeedMore,
    Done,       // the closing ')' was read; the call is open (the caller closes it)
    NotKwargs,  // not keyword arguments, found before the call was announced (nothing emitted)
    Broken,     // not keyword arguments any more, after the call was announced (it is open)
  };
  void reset();
  // Reads from the start of `in` (after the call's '('); *used = bytes consumed.
  Status step(scan::ParserBase& p, Sink& sink, const std::string& name, std::string_view in, bool eof, size_t* used);

 private:
  enum class St { Key, Eq, Value, Str, Other, After } st_ = St::Key;
  Status fail(const scan::ParserBase& p) const;
  bool other_done(char c);  // tracks a non-string value; true at its end (c not consumed)

  // One step's input and the JSON text it writes (sent to the sink once, at the step's end).
  struct Pass {
    scan::ParserBase& p;
    Sink& sink;
    const std::string& name;
    std::string_view in;
    bool eof;
    size_t i;
    std::string out;
  };
  // One reader per state: nullopt to go on, else the step's answer.
  std::optional<Status> key(Pass& x);
  std::optional<Status> equals(Pass& x);
  std::optional<Status> value_start(Pass& x);
  std::optional<Status> string_part(Pass& x);
  std::optional<Status> other_value(Pass& x);
  std::optional<Status> after_value(Pass& x);

  std::string key_, val_;
  size_t params_ = 0;
  char quote_ = 0;          // the quote of the streaming string
  // The non-string value being collected: nesting and a string inside it.
  int depth_ = 0;
  char oquote_ = 0;
  bool otriple_ = false, oescape_ = false;
  int orun_ = 0;
};

}  // namespace toolchat::dialects::pylit
