// The known skeletons' tree and the pass over a line's texts (see line_match.hpp).
#include "convert/line_match.hpp"

#include <cstring>
#include <string>

#include "value/escape_scan.hpp"

namespace toolchat::convert {

bool scan_text(std::string_view line, TextAt& at) {
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  const size_t n = line.size();
  at.escaped = at.non_ascii = false;
  for (size_t i = at.open + 1;;) {
    // Until the first byte from 0x7F, those stop the pass too; after it, the text is counted and
    // checked whole anyway, so only quotes, backslashes and controls stop it.
    i = json::next_escape(p, i, n, !at.non_ascii);
    if (i >= n) return false;
    const unsigned char c = p[i];
    if (c == '"') {
      at.close = i;
      return true;
    }
    if (c == '\\') {
      at.escaped = true;
      i += 2;
    } else if (c < 0x20) {
      return false;
    } else {
      at.non_ascii = true;
      ++i;
    }
  }
}

// Nodes in one vector, edges pointing at them by number: a skeleton of many texts is a long path,
// freed without recursion.
struct SkeletonTree::Node {
  struct Edge {
    std::string bytes;  // up to and including a text's opening quote; for `last`, the rest of the line
    bool last = false;
    bool empty = false;  // the text after `bytes` is empty
    size_t next = 0;     // the node after the text
    const void* leaf = nullptr;
  };
  std::vector<Edge> edges;
};

SkeletonTree::SkeletonTree() { clear(); }
SkeletonTree::~SkeletonTree() = default;

void SkeletonTree::clear() {
  nodes_.clear();
  nodes_.emplace_back();  // the root
}

void SkeletonTree::add(std::string_view line, const std::vector<TextAt>& strings, const void* leaf) {
  size_t node = 0;
  size_t from = 0;
  for (const TextAt& t : strings) {
    const std::string_view bytes = line.substr(from, t.open + 1 - from);
    const bool empty = t.close == t.open + 1;
    size_t next = 0;
    for (const Node::Edge& e : nodes_[node].edges)
      if (!e.last && e.empty == empty && e.bytes == bytes) {
        next = e.next;
        break;
      }
    if (next == 0) {
      next = nodes_.size();
      nodes_.emplace_back();
      nodes_[node].edges.push_back({std::string(bytes), false, empty, next, nullptr});
    }
    node = next;
    from = t.close;
  }
  const std::string_view rest = line.substr(from);
  for (Node::Edge& e : nodes_[node].edges)
    if (e.last && e.bytes == rest) {
      e.leaf = leaf;
      return;
    }
  nodes_[node].edges.push_back({std::string(rest), true, false, 0, leaf});
}

const void* SkeletonTree::match(std::string_view line, std::vector<TextAt>& strings) const {
  strings.clear();
  const char* const d = line.data();
  const size_t n = line.size();
  size_t node = 0, at = 0;
  for (;;) {
    size_t next = 0;
    for (const Node::Edge& e : nodes_[node].edges) {
      const size_t k = e.bytes.size();
      if (k > n - at || std::memcmp(d + at, e.bytes.data(), k) != 0) continue;
      if (e.last) {
        if (k == n - at) return e.leaf;
        continue;
      }
      TextAt t;
      t.open = at + k - 1;
      if (!scan_text(line, t) || (t.close == t.open + 1) != e.empty) continue;
      strings.push_back(t);
      at = t.close;
      next = e.next;
      break;
    }
    if (next == 0) return nullptr;  // node 0 is the root, never an edge's end
    node = next;
  }
}

}  // namespace toolchat::convert
