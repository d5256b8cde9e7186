// What every dialect's output obeys whatever the family (issue 12 §6), enforced once around each
// parser instead of in 28 state machines:
// - Input bytes that are not UTF-8 reach the parser as U+FFFD, one per maximal ill-formed
//   subsequence (what Python's `decode('utf-8', 'replace')` and Rust's `from_utf8_lossy` give), so
//   no event can carry invalid UTF-8. A sequence cut by a chunk boundary is held until the next chunk.
// - A call to a function that is not among the request's tools (ParseOptions::tools is a non-empty
//   list) is never passed on as a call: its events are held and it becomes content (the call as
//   `{"name": ..., "arguments": ...}` JSON text) with an `unknown_tool` warning; the calls after it
//   are renumbered so that indexes stay 0, 1, 2... Calls to known tools stream through untouched.
// - Content is the text outside the calls, verbatim (issue 12 §4), with one exception: whitespace
//   that only separates calls from each other or from the end of the output is not content. The
//   parsers pass whitespace after a call on as content; it is held here until text follows (then it
//   is sent with that text: "A.<call>\nB." has content "A.\nB.") or a call or the end comes (dropped).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

std::unique_ptr<StreamParser> guard_output(std::unique_ptr<StreamParser> inner, const ParseOptions& opts);

// Incremental UTF-8 repair (exposed for tests): clean(chunk, eof) returns the valid text of the bytes
// seen so far, holding back a tail that is the start of a sequence until more bytes come (or eof).
class Utf8Repair {
 public:
  // The cleaned text; points into `chunk` when the chunk needed no repair and nothing was held
  // (no copy on the common path), else into an internal buffer valid until the next call.
  std::string_view clean(std::string_view chunk, bool eof);

 private:
  std::string held_, out_;
};

}  // namespace toolchat::dialects
