// The line path's known skeletons (line_memo.hpp) as a tree of the bytes between their texts, and
// one pass over each text of a line on the way.
//
// A skeleton is the line with its texts' contents cut out, each replaced by whether it was empty.
// A line has the skeleton of a learned line L exactly when it reads as L's bytes up to L's first
// text, a string's contents, L's bytes from that text's closing quote to the next text, ..., L's
// bytes from the last text's closing quote to the end: the scan that cut L (scan_line) reads the
// line as it read L, since it looks at a text only for where it ends (the first quote no backslash
// escapes) and whether it is empty. So a line is matched from the left against the stored bytes
// (memcmp), a text's end found where the skeleton says one starts; no skeleton is built and no key
// hashed. Two skeletons cannot both match one line (the scan's skeleton of it is one), so the
// first edge that matches is the one.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace toolchat::convert {

// One text of a line: its string's quotes, and what the pass over its contents saw.
struct TextAt {
  size_t open = 0, close = 0;
  bool escaped = false;    // a backslash: the contents must be decoded (and checked as JSON)
  bool non_ascii = false;  // a byte from 0x7F up: UTF-8 to check, code points to count
};

// The contents of the string whose opening quote is at line[at.open]: sets at.close and the flags.
// False at a control character (json::parse refuses it: the line takes the value path) or when the
// string does not end. A backslash's next byte is passed over, as the scan ends strings.
bool scan_text(std::string_view line, TextAt& at);

class SkeletonTree {
 public:
  SkeletonTree();
  ~SkeletonTree();
  // Adds the skeleton of `line`, whose cut strings (quotes, in line order) are `strings`, leading
  // to `leaf`. Its strings must be what scan_line cut.
  void add(std::string_view line, const std::vector<TextAt>& strings, const void* leaf);
  // The leaf of the line's skeleton and its strings (in line order, scanned), or nullptr (no
  // known skeleton, or a text the pass refuses).
  const void* match(std::string_view line, std::vector<TextAt>& strings) const;
  void clear();

 private:
  struct Node;
  std::vector<Node> nodes_;  // [0]: the root
};

}  // namespace toolchat::convert
