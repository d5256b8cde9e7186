// The renders a conversation's labeling needs, reused across conversations that
// differ only in their message texts.
//
// Labeling a conversation of n messages with a assistant turns takes n + a
// renders: the whole conversation, every prefix (where each message's run
// starts) and every turn's prompt (the train = serve check). Two conversations
// with the same shape (roles, tool calls, argument names, tools, template
// variables; only the texts differ) run a template that passes the texts
// through along the same path, so their renders are the same template text with
// different texts put in. The cache keeps, per shape, those renders made with a
// marker per text; a conversation of a known shape gets its renders by putting
// its texts in place of the markers, without rendering. The labeler then runs
// the same checks on them as on real renders.
//
// Soundness rests on two conditions, both checked:
//  - per shape, the first conversation of that shape is rendered both ways
//  (real and marked) for
//    every render the labeling needs, and the marked ones with the texts put
//    back must equal the real ones byte for byte (failures: the same error); a
//    shape that fails is remembered as one to render for real;
//  - per conversation, texts a template could tell apart from a marker are not
//  substituted: a
//    text with leading or trailing whitespace (trim, strip), one holding marker
//    characters, one holding a string the template tests content against
//    ('</think>' in ..., .split('...'), .startswith(...), == '...',
//    .rstrip('...')). Such texts are cut where the template looks (text_cuts.hpp:
//    the tested strings and the whitespace beside them spelt out in the key, the
//    parts between them marked), and the conversation's renders are cached per
//    shape of its cut the same way. Where the texts do not cut, the conversation
//    is rendered for real, but for its renders of a prefix (its first k messages)
//    without such a text: a render of the first k messages sees only them, so
//    those are cached per prefix shape the same way.
// A marker shows how its text stands in a render: as it is, inside a JSON
// string (tojson), or inside a Python str repr (a list or dict printed; put
// back only for texts repr quotes in single quotes, as the marker); any other
// form (a changed case, HTML escaping, a split) leaves it unreadable, and the
// shape is refused. What the put-back cannot see, a template branching on a
// text's length or on a property no screened string names (an index, a slice,
// an ordering, a comparison with another text or a computed string, find,
// wordcount, int ...), the proof renders are watched for (value/text_watch.hpp):
// a marker looked into otherwise than as the screen accounts for refuses the
// shape (or the cut, or the prefix).
//
// Templates with {% generation %} (spans in code points) and clocks other than
// the fixed instant are not cached. The cache turns itself off for a template
// where it does not pay (shapes rarely repeat, or no shape passes). One cache
// per labeler: not thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "chat/content_marks.hpp"
#include "chat/render_case.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::convert {

// One render of a conversation: its first `count` messages, with or without the
// generation prompt.
struct RenderKey {
  size_t count = 0;
  bool generation_prompt = false;
};

using RenderFn = std::function<chat::CaseResult(const Value& messages, size_t count, bool generation_prompt)>;

// Where the message texts (numbered as chat::mark_message_texts numbers them) stand in a
// render: byte ranges, sorted, adjacent ones merged.
using TextRanges = std::vector<std::pair<size_t, size_t>>;

// A render made with markers, cut into the template's own text and the texts' places.
struct Piece {
  size_t begin = 0, end = 0;  // template text: marked[begin, end)
  long text = -1;             // then text `text` (or none)
  chat::MarkerAt::Shown shown = chat::MarkerAt::Shown::raw;
  size_t json_begin = 0, json_end = 0;  // the template text escaped: json[json_begin, json_end)
};

struct MarkedRender {
  bool ok = false;
  std::string error, message;  // of a failed render
  std::string marked;
  std::vector<Piece> pieces;
  // The first render only (the whole conversation, the row's text): its template pieces escaped
  // as in a JSON string, once per shape. JSON escaping goes character by character and pieces
  // end at character boundaries, so the pieces escaped and the texts escaped, put together, are
  // the whole text escaped.
  std::string json;
};

// What the labeler keeps with a shape (its labeling, when proven to hold for every conversation
// of the shape: labeler.cpp). The cache only holds it.
struct ShapeMemo {
  virtual ~ShapeMemo() = default;
};

// A conversation whose renders came from a known shape (or made it known), for the labeler.
struct RenderHit {
  // In: on a hit of a shape whose memo says so (memo_covers), put back only the first render.
  bool first_only_if_memo = false;
  // Out:
  std::unique_ptr<ShapeMemo>* memo = nullptr;      // the shape's memo (a hit or a learned shape)
  bool* memo_tried = nullptr;                      // ... set once the labeler tried to make it
  const std::vector<MarkedRender>* shape = nullptr;  // the shape's marked renders, in key order
  bool first_only = false;                         // only the first render was put back
  std::vector<size_t> starts;  // where each piece of the first render starts in its put-back text
  std::vector<std::string_view> texts;  // the conversation's texts (views into its messages)
};

struct RenderCacheStats {
  size_t hits = 0, learned = 0, refused_shapes = 0, screened = 0;
  // Renders of a screened conversation put together from a known prefix (its first messages
  // hold no screened text): see Impl::prefix_render.
  size_t prefix_hits = 0, prefix_learned = 0;
  // Screened conversations whose renders came from the shape of their texts' cut
  // (text_cuts.hpp), shapes of cuts learned and refused.
  size_t cut_hits = 0, cut_learned = 0, cut_refused = 0;
};

class RenderCache {
 public:
  // `t`: the template, read for the strings it tests contents against
  // (tested_literals).
  explicit RenderCache(const jinja::Template& t);
  ~RenderCache();
  RenderCache(const RenderCache&) = delete;
  RenderCache& operator=(const RenderCache&) = delete;

  // The renders for `keys`, in order, of `messages` with `variables` (the
  // context without the messages and the flags). `render` renders for real (any
  // messages list, same variables). With `ranges`: when the renders were put
  // together from a shape's marker renders (or checked against them), where
  // the texts stand in each one that rendered (one entry per render); left
  // empty otherwise. With `first_json`: when the renders were put together, the first one's text
  // escaped as a JSON string's contents (from template pieces escaped once per shape); left
  // empty otherwise.
  std::vector<chat::CaseResult> renders(const Value& messages, const Value& variables,
                                        const std::vector<RenderKey>& keys, const RenderFn& render,
                                        std::vector<TextRanges>* ranges = nullptr, std::string* first_json = nullptr);
  // The same into `out`: a conversation of a known shape reuses the buffers of the renders `out`
  // held (the labeler keeps one vector from row to row).
  // With `hit`: what the labeler needs to make and use a shape's memo (RenderHit).
  void renders(std::vector<chat::CaseResult>& out, const Value& messages, const Value& variables,
               const std::vector<RenderKey>& keys, const RenderFn& render, std::vector<TextRanges>* ranges = nullptr,
               std::string* first_json = nullptr, RenderHit* hit = nullptr);

  const RenderCacheStats& stats() const { return stats_; }
  // Whether a conversation with these texts is rendered for real (texts a template could tell
  // from their markers: see above). With `ascii`: which texts hold no byte from 0x7F (so no
  // marker character and no whitespace but ASCII's), as the caller's pass over them found.
  bool screens(const std::vector<std::string_view>& texts, const std::vector<char>* ascii = nullptr) const;

 private:
  // renders() but for the engine's output limit (render_cache.cpp).
  void reused_or_real(std::vector<chat::CaseResult>& out, const Value& messages, const Value& variables,
                      const std::vector<RenderKey>& keys, const RenderFn& render, std::vector<TextRanges>* ranges,
                      std::string* first_json, RenderHit* hit);
  struct Impl;
  std::unique_ptr<Impl> impl_;
  RenderCacheStats stats_;
};

// The strings a template tests contents against, from its tree
// (jinja::Template::uses): literals before `in`/`not in`, arguments of
// split/startswith/endswith/replace/find/... and of strip/lstrip/rstrip/trim
// (their characters), and literals compared with == / != (or listed after
// `in`). Exposed for tests.
struct TestedLiterals {
  std::vector<std::string> contained;  // a text holding one of these is screened
  std::vector<std::string> compared;   // ... starting with, ending with or equal to one of these
  std::string end_chars;               // ... starting or ending with one of these characters
};
TestedLiterals tested_literals(const jinja::Template& t);

// Text t as a render shows it (Piece::shown) into `out`: as it is, escaped as in a JSON string,
// or as inside Python's repr (quotes left out). False, `out` unchanged, for a repr that would not
// use single quotes (t holds ' and no "): the marker's quotes are template bytes of the shape.
bool append_shown(std::string& out, std::string_view t, chat::MarkerAt::Shown shown);
bool repr_single_quoted(std::string_view t);

class ValueKey;
// The key of a conversation's messages as chat::mark_message_texts(messages, true) marks them
// (texts as markers), written into `key` straight from the messages, and their texts (views
// into them, numbered as MarkedMessages::texts). False for a value JSON cannot hold. The cache's
// key of a conversation; exposed for tests.
bool marked_messages_key(const Value& messages, ValueKey& key, std::vector<std::string_view>& texts);

// Whether a conversation's texts are too long for its renders to be put together from a shape's:
// a render made with markers stays under the engine's value limit where one with the texts may
// not (a template building `content + content` and showing it once). Texts of more than 1/64 of
// max_value_bytes in all (1 MiB) are rendered for real, which covers a template building a string
// of up to 64 copies of them.
inline constexpr size_t kMaxReusedTextBytes = jinja::EngineLimits{}.max_value_bytes / 64;
inline bool too_long_to_reuse(const std::vector<std::string_view>& texts) {
  size_t bytes = 0;
  for (std::string_view t : texts) bytes += t.size();
  return bytes > kMaxReusedTextBytes;
}

}  // namespace toolchat::convert
