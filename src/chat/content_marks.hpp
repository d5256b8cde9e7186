// Where the message texts sit in a rendered conversation, so that they can be tokenized as plain
// text (a "<|im_end|>" typed in a message must not close its turn) while the template's own text
// keeps its special tokens.
//
// Method: the conversation is rendered once more with every message text replaced by a marker
// (private-use characters a template passes through unchanged). Putting the texts back in place
// of the markers must give the real render byte for byte, each text as is, stripped of
// surrounding whitespace (templates that trim) or escaped as in a JSON string (templates that
// show it through tojson); then the markers' places are the texts' places. When a template
// transforms a text otherwise (splits it at "</think>"), each text is searched instead, in
// message order, in the real render (as is, stripped, escaped), and texts not found are counted
// (special-token strings in them would be read as special tokens).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::chat {

// Marked texts: content (a string, or the "text" of each part), reasoning_content and tool call
// arguments (a string, or each string inside an arguments object) of every message. Empty texts
// are left as they are (a template may test them for truth).
struct MarkedMessages {
  Value messages;                  // a copy of the messages with markers for the texts
  std::vector<std::string> texts;  // text i is behind marker i
};
// With escape_probe every marker holds a probe, so that a render shows whether the text stands
// there as it is or as inside a JSON string (tojson), and characters that case-changing and
// HTML-escaping filters would change.
MarkedMessages mark_message_texts(const Value& messages, bool escape_probe = false);
// A copy of the messages with the same texts empty (the texts of mark_message_texts).
Value blank_message_texts(const Value& messages);
// A copy of the messages with text i (numbered as mark_message_texts numbers them) replaced by
// texts[i] (the render cache's texts cut into parts: convert/text_cuts.hpp).
Value replace_message_texts(const Value& messages, const std::vector<std::string>& texts);
// Marker i into `out` (replacing what it held, keeping its buffer: a walk makes one per text).
void make_marker(std::string& out, size_t i, bool escape_probe);

// The same marked messages walked without being made (the render cache's key of a conversation
// of a known shape): the visitor sees the copy's values in order, each text (a view into
// `messages`) with its number (as in MarkedMessages::texts) and marker. False when the visitor
// refuses a value.
class MarkedVisitor {
 public:
  virtual ~MarkedVisitor() = default;
  virtual bool keep(const Value& v) = 0;  // a value the copy holds as it is
  virtual void list(size_t n) = 0;        // a new list (ListKind::List) of n items, which follow
  virtual void dict(size_t n) = 0;        // a new dict of n entries, which follow: key, then value
  virtual bool key(const Value& k) = 0;
  virtual void text(size_t index, std::string_view text, std::string_view marker) = 0;  // a marker for a text
};
bool walk_marked_messages(const Value& messages, bool escape_probe, MarkedVisitor& visit);

// A marker at a byte offset of a render: the index of its text, its length, and (markers made
// with escape_probe) how its text shows there.
struct MarkerAt {
  // repr: inside a Python str repr in single quotes (a template printing a list or dict of
  // texts); read_marker_at never gives it, the render cache reads that form itself.
  enum class Shown { raw, json, repr };
  size_t index = 0, length = 0;
  bool probed = false;
  Shown shown = Shown::raw;
};
bool read_marker_at(std::string_view render, size_t at, MarkerAt& out);
// The bytes every marker starts with (a private-use character).
inline constexpr std::string_view kMarkerOpen = "\xEE\x80\x80";

// Byte ranges sorted, empty ones dropped, overlapping and adjacent ones merged.
void merge_ranges(std::vector<std::pair<size_t, size_t>>& ranges);

struct ContentRanges {
  std::vector<std::pair<size_t, size_t>> bytes;  // sorted, not overlapping, in the real text
  bool by_markers = false;   // the marker render matched the real one
  size_t not_found = 0;      // texts holding a non-space character that were not located
};

// `render_marked` renders the marked messages (the caller's context, same flags) and returns
// the text, or throws. `real` is the real render of the same context.
ContentRanges locate_message_texts(const MarkedMessages& marked, const std::string& real,
                                   const std::function<std::string(const Value& marked_messages)>& render_marked);

}  // namespace toolchat::chat
