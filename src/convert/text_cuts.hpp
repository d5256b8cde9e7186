// Texts a template looks into, cut where it looks, so that the render cache can still reuse
// renders of their conversations (render_cache.hpp).
//
// A text the cache screens (it holds a string the template tests for, or whitespace or a
// stripped character at an end) is cut into the template's part and the rest: every place a
// string the template searches for ('</think>' in ..., split, startswith ...) occurs, widened over
// the whitespace and stripped characters next to it and at the text's ends, is the template's
// part, spelt out in the shape's key; what lies between (the parts) goes into the render as a
// marker each, as a whole text does. A split, a strip, an `in` test or a startswith on such a
// text then finds the same strings at the same places of the marked text, the parts whole
// between them: so a conversation's renders depend only on that cut, not on the parts.
// Conditions, checked per text: every part passes the cache's own screen (no tested string,
// nothing stripped at an end, no marker character, not starting or ending as a compared string
// does), and no string compared whole (== 'x') occurs across a part's edge (a piece of a split
// could equal it). A template reading a part's length (find's and index's positions are lengths
// of what comes before) or a property no literal names is caught as for whole texts: the cut's
// proof render is watched (value/text_watch.hpp) and the cut refused.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolchat::convert {

struct TestedLiterals;

// Whether the character at `at` of s (ending before `end`) is whitespace Python's str.strip()
// removes.
bool space_like(std::string_view s, size_t at, size_t end);
// The start of the last UTF-8 character of s (not empty).
inline size_t last_char(std::string_view s) {
  size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

// One conversation's texts cut.
struct TextCuts {
  struct Unit {
    std::string_view kept;  // the template's part of a text, as it is ...
    long part = -1;         // ... or part `part`
  };
  std::string key;                      // every text's cut: kept bytes spelt out, a place per part
  std::vector<std::string_view> parts;  // numbered in text order; views into the texts
  std::vector<Unit> units;              // every text's units in order
  std::vector<size_t> text_end;         // text i's units end at units[text_end[i]]
  std::vector<std::pair<size_t, size_t>> found;  // scratch: where a text holds tested strings
};

class TextCutter {
 public:
  TextCutter(const TestedLiterals& literals, std::function<bool(std::string_view)> screened);
  // The texts cut into `out`; false when some text cannot be (a part the screen refuses, a
  // compared string across a part's edge).
  bool cut(const std::vector<std::string_view>& texts, TextCuts& out) const;
  // Each text with its parts as markers (chat::make_marker, with the escape probe).
  static std::vector<std::string> marked_texts(const TextCuts& cuts);

 private:
  bool cut_text(std::string_view t, TextCuts& out) const;
  bool stripped_at(std::string_view t, size_t at, size_t end) const;
  bool compared_across_edges(std::string_view t, const TextCuts& out, size_t first_unit) const;

  std::vector<std::string> contained_, compared_;
  std::string end_chars_;
  std::function<bool(std::string_view)> screened_;
};

}  // namespace toolchat::convert
