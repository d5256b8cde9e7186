// The line path: rows of a known shape written straight from their JSON lines, without values.
//
// A line's *skeleton* is the line with the contents of its message texts cut out (the strings
// chat::walk_marked_messages numbers: content or each content part's "text", reasoning_content,
// the strings under a call's function.arguments), each replaced by whether it was empty. Two
// lines with one skeleton parse to the same values but for those texts, so they are one shape
// of the render cache, and once that shape's labeling is a proven memo (label_memo.hpp), a line
// of the skeleton is labelled by putting its texts into the memo's row: the template pieces
// escaped once, the texts escaped from the line, the spans moved by the texts' lengths.
//
// What makes that the value path's output, checked when a skeleton is learned (from a line the
// value path converted from a memo): the skeleton's strings are the walk's texts, in its order
// (shown on a copy of the line whose texts are filled with strings found nowhere else in it:
// the walk gives back exactly those, so it numbers the cut strings and nothing else); the
// written row and counts equal the value path's for that line. Per line: the texts must be
// valid JSON string contents (escapes, UTF-8, no control characters) and pass the render
// cache's screen; find_dropped's look into string `arguments` texts is made again. A line that
// fails any of it, or whose skeleton is not known, takes the value path (so its errors are that
// path's). A line's skeleton is found by matching the line against the known ones byte for byte
// (line_match.hpp), its texts passed over once on the way; scan_line cuts only the lines learned
// from. Not used with a tokenizer, polyfills, split rows, listed mismatches or rows as parts, and
// it turns itself off where fewer than a quarter of the first 1,024 lines it scans take it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "convert/label_memo.hpp"
#include "convert/line_match.hpp"
#include "convert/pipeline.hpp"

namespace toolchat::convert {

// A line cut into its skeleton and its message texts.
struct LineScan {
  std::string key;  // the skeleton
  struct Text {
    size_t open = 0, close = 0;  // the string's quotes in the line
    long index = -1;             // its number in the walk; -1: empty (not a text)
  };
  std::vector<Text> strings;            // the texts' strings, in line order
  std::vector<std::string_view> texts;  // non-empty texts by number: their contents, still escaped
  std::vector<size_t> kinds[3];         // the scan's own: a message's strings by kind (kept for their buffers)
};
// False for a line the scan does not follow (not an object, deeper than it goes, ...).
bool scan_line(std::string_view line, LineScan& out);

class LinePath {
 public:
  LinePath();
  ~LinePath();
  // Converts `line` into `r` when its skeleton is known and the line passes the checks above.
  bool convert(const ConvertConfig& cfg, std::string_view line, RowResult& r);
  // After the value path converted `line` into `r`: learns the skeleton when the row came from a
  // memo and the proof above holds.
  void learn(const Labeler& labeler, const ConvertConfig& cfg, std::string_view line, const RowResult& r);

  size_t known() const;

 private:
  struct Shape;
  // The line's texts, by number, from found_: false for one the value path must read, or for texts
  // too long to reuse renders for (render_cache.hpp).
  bool read_texts(const Shape& s, std::string_view line);
  bool checks_hold(const Shape& s);  // the screens, the memo's conditions, find_dropped's looks
  bool write(const Shape& s, std::string_view line, const ConvertConfig& cfg, RowResult& r);
  void write_row(const Shape& s, std::string& out);
  bool learn_row(Shape& s, const LabelMemo& m);  // a memo's row as the shape's pieces and span heads
  void forget();
  std::unordered_map<std::string, std::unique_ptr<Shape>> shapes_;  // by skeleton
  SkeletonTree tree_;                        // the same skeletons, matched against lines
  std::unordered_set<std::string> refused_;  // skeletons tried and not learned
  size_t tried_ = 0, written_ = 0;  // lines scanned once a skeleton was known, lines written
  bool off_ = false;
  LineScan scan_;
  std::vector<TextAt> found_;  // the line's cut strings, in line order
  std::vector<std::string> decoded_;  // texts with escapes, decoded (by number)
  std::vector<std::string_view> texts_;
  std::vector<char> plain_;  // text k is spelt in the line without escapes (its own JSON escape)
  std::vector<char> ascii_;  // ... and holds no byte from 0x7F
  std::vector<size_t> cps_;  // its code points
  std::vector<std::string> shown_;    // texts as tojson shows them (by number)
  std::vector<size_t> starts_, cp_starts_;
  size_t text_bytes_ = 0;  // the row's text
  std::string scratch_;
  std::vector<char> spans_;  // a row's spans, written in place
};

// Whether the line path may run for rows converted with `cfg` by a labeler with `opts`.
bool line_path_applies(const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const LabelOptions& opts);

}  // namespace toolchat::convert
