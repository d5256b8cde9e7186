// Helpers the dialect tests share: feeding a parser its input in pieces, comparing event streams,
// checking that text deltas are whole UTF-8.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "dialects/dialect.hpp"
#include "value/json.hpp"

namespace dialect_test {

// One JSON line per event, adjacent deltas merged: two streams are the same output when these
// texts are equal, however the deltas were split.
inline std::string events_text(const std::vector<toolchat::dialects::Event>& ev) {
  std::string out;
  for (const auto& e : toolchat::dialects::coalesce(ev)) out += toolchat::json::dumps(toolchat::dialects::event_json(e)) + "\n";
  return out;
}

// A new parser of `d` (a Dialect or an InferredDialect) fed `text` cut at the ascending offsets
// `cuts`, then finished: the events as emitted.
template <class D>
std::vector<toolchat::dialects::Event> feed_cut(const D& d, const toolchat::dialects::ParseOptions& o, std::string_view text,
                                                const std::vector<size_t>& cuts) {
  toolchat::dialects::EventLog log;
  auto p = d.make_parser(o);
  size_t at = 0;
  for (size_t c : cuts) {
    p->feed(text.substr(at, c - at), log);
    at = c;
  }
  p->feed(text.substr(at), log);
  p->finish(log);
  return log.events;
}

// The same with pieces of `chunk` bytes (the last one shorter).
template <class D>
std::vector<toolchat::dialects::Event> feed_chunked(const D& d, const toolchat::dialects::ParseOptions& o,
                                                    std::string_view text, size_t chunk) {
  toolchat::dialects::EventLog log;
  auto p = d.make_parser(o);
  for (size_t i = 0; i < text.size(); i += chunk) p->feed(text.substr(i, chunk), log);
  p->finish(log);
  return log.events;
}

// Is s well-formed UTF-8 (no sequence cut short)?
inline bool valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!n || i + n > s.size()) return false;
    for (size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

// Feeds `text` one byte at a time. After `half` bytes (no finish) the events must already hold one
// call named `name` whose arguments start with `head`. Returns all the events (finished).
template <class D>
std::vector<toolchat::dialects::Event> fed_bytewise(const D& d, const toolchat::dialects::ParseOptions& o, const std::string& text, size_t half,
                                const std::string& name, const std::string& head) {
  toolchat::dialects::EventLog log;
  auto p = d.make_parser(o);
  for (size_t i = 0; i < half; ++i) p->feed(std::string_view(text).substr(i, 1), log);
  toolchat::dialects::ParsedMessage partial = toolchat::dialects::collect(log.events);
  EXPECT_EQ(partial.tool_calls.size(), 1u);
  if (!partial.tool_calls.empty()) {
    EXPECT_EQ(partial.tool_calls[0].name, name);
    EXPECT_EQ(partial.tool_calls[0].arguments.substr(0, head.size()), head);
  }
  for (size_t i = half; i < text.size(); ++i) p->feed(std::string_view(text).substr(i, 1), log);
  p->finish(log);
  return log.events;
}

// One call named `name` with arguments `want` in `text`: fed a byte at a time, the events hold the
// call and the first `head` bytes of its arguments once `half` bytes are in; the result has that
// one call and no warning; the events are the same fed whole and in 7-byte pieces.
template <class D>
void expect_streamed_call(const D& d, const toolchat::dialects::ParseOptions& o, const std::string& text, size_t half,
                          const std::string& name, const std::string& want, size_t head) {
  auto events = fed_bytewise(d, o, text, half, name, want.substr(0, head));
  toolchat::dialects::ParsedMessage m = toolchat::dialects::collect(events);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, want);
  EXPECT_TRUE(m.warnings.empty());
  auto whole = feed_cut(d, o, text, {});
  EXPECT_EQ(events_text(events), events_text(whole));
  EXPECT_EQ(events_text(whole), events_text(feed_chunked(d, o, text, 7)));
}

}  // namespace dialect_test
