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

struct SkeletonTree::Node {
  struct Edge {
    std::string bytes;  // up to and including a text's opening quote; for `last`, the rest of the line
    bool last = false;
    bool empty = false;  // the text after `bytes` is empty
    std::unique_ptr<Node> next;
    const void* leaf = nullptr;
  };
  std::vector<Edge> edges;
};

SkeletonTree::SkeletonTree() : root_(std::make_unique<Node>()) {}
SkeletonTree::~SkeletonTree() = default;

void SkeletonTree::clear() { root_ = std::make_unique<Node>(); }

void SkeletonTree::add(std::string_view line, const std::vector<TextAt>& strings, const void* leaf) {
  Node* node = root_.get();
  size_t from = 0;
  for (const TextAt& t : strings) {
    const std::string_view bytes = line.substr(from, t.open + 1 - from);
    const bool empty = t.close == t.open + 1;
    Node::Edge* edge = nullptr;
    for (Node::Edge& e : node->edges)
      if (!e.last && e.empty == empty && e.bytes == bytes) edge = &e;
    if (!edge) {
      node->edges.push_back({std::string(bytes), false, empty, std::make_unique<Node>(), nullptr});
      edge = &node->edges.back();
    }
    node = edge->next.get();
    from = t.close;
  }
  const std::string_view rest = line.substr(from);
  for (Node::Edge& e : node->edges)
    if (e.last && e.bytes == rest) {
      e.leaf = leaf;
      return;
    }
  node->edges.push_back({std::string(rest), true, false, nullptr, leaf});
}

const void* SkeletonTree::match(std::string_view line, std::vector<TextAt>& strings) const {
  strings.clear();
  const Node* node = root_.get();
  const char* const d = line.data();
  const size_t n = line.size();
  size_t at = 0;
  for (;;) {
    const Node* next = nullptr;
    for (const Node::Edge& e : node->edges) {
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
      next = e.next.get();
      break;
    }
    if (!next) return nullptr;
    node = next;
  }
}

}  // namespace toolchat::convert
