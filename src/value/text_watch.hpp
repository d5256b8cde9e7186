// Whether a render looked into a text it was given as a marker (the render cache's proof
// renders: convert/render_cache.hpp).
//
// The render cache renders the first conversation of a shape with a marker (private-use
// characters, chat::make_marker) in place of every message text, and reuses those renders for
// every conversation of the shape with its texts put in. That holds only where the template
// passes a text through (prints it, joins it, escapes it as JSON) or looks into it only as far as
// the cache screens texts for (the strings the template tests texts against, whitespace at the
// ends). Anything else a template does with a text (its length, a character at an index, a slice,
// an ordering, a comparison with a string that is not screened for, a filter or method that reads
// the content: find, wordcount, int, ...) could turn out otherwise for another text, and is noted
// here while the cache watches a proof render; the cache then refuses the shape.
//
// Off, the watch costs one thread-local flag test in the operations that inspect a string, none
// in printing or concatenation. Watching is per thread (a render runs on one thread).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::text_watch {

// The strings a text is screened for (jinja::TemplateUses): a text holding one of `contained`,
// starting or ending as one of `compared` does, or starting or ending with a character of
// `stripped` (or whitespace) is never substituted.
struct Screened {
  const std::vector<std::string>* contained = nullptr;
  const std::vector<std::string>* compared = nullptr;
  const std::string* stripped = nullptr;
};

struct State {
  bool on = false;
  bool inspected = false;
  Screened screened;
  // The `|length` of the comparison being evaluated when that comparison only asks whether the
  // length is 0 (`x|length > 0`): a marked str is never empty, nor is it with its texts put
  // back (empty texts are not marked). An expression node of the template rendered.
  const void* length_as_truth = nullptr;
};
// initial-exec, as the object pool's lists (obj_pool.cpp): in the Python module the default
// model calls __tls_get_addr on every access.
__attribute__((tls_model("initial-exec"))) inline thread_local State state;

inline bool watching() { return __builtin_expect(state.on, false); }
inline void note_inspected() { state.inspected = true; }

// A marker character's bytes in s (U+E000..U+E03F start every marker).
bool holds_marker(std::string_view s);
// A str holding one, or a list or dict with one anywhere inside (keys and values).
bool holds_marker(const Value& v);

// Whether a text's test against `s` (a str) is screened for: `s in text`, text.split(s),
// replace(s, ...) need s among the contained strings; text == s, startswith(s) among either;
// strip(s) needs every character of s among the stripped ones.
bool screened_contained(const Value& s);
bool screened_compared(const Value& s);
bool screened_stripped(const Value& chars);

// Whether a cut at code point `at` of s (from the end when negative: a slice's or an index's
// bound) leaves every marker of s whole on one side that is the same for any texts: the part
// before a non-negative bound, or after a negative one, holds no marker character.
bool marker_free_bound(std::string_view s, int64_t at);
// A printf-style format (`%` operator, the format filter) or a str.format string that only puts
// its arguments in (%s, %r, {}, {0}, {name}, {!r}: no width, precision or number conversion).
bool plain_percent_format(std::string_view fmt);
bool plain_brace_format(std::string_view fmt);

// Notes an inspection of a marker by these operations (called only while watching).
void note_equal(const Value& a, const Value& b);
void note_order(const Value& a, const Value& b);
void note_contains(const Value& container, const Value& item);

// Watches the renders of this thread while in scope (not nested: the cache's proof renders).
class Scope {
 public:
  explicit Scope(const Screened& screened) {
    state.on = true;
    state.inspected = false;
    state.screened = screened;
    state.length_as_truth = nullptr;
  }
  ~Scope() {
    state.on = false;
    state.inspected = false;
  }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;
  // Whether a render in scope so far inspected a marker.
  bool inspected() const { return state.inspected; }
};

}  // namespace toolchat::text_watch
