// Added tokens found in text the way HF's AddedVocabulary does: Aho-Corasick leftmost-longest
// over the token contents, then single_word / lstrip / rstrip applied to each match.
#include <algorithm>

#include "tokenize/impl.hpp"
#include "tokenize/unicode_classes.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

void AddedTokenMatcher::build(const std::vector<AddedToken>& tokens, const std::vector<size_t>& which) {
  nodes_.assign(1, Node{});
  std::fill(std::begin(first_byte_), std::end(first_byte_), false);
  for (size_t t : which) {
    const std::string& s = tokens[t].content;
    if (s.empty()) continue;
    first_byte_[static_cast<unsigned char>(s[0])] = true;
    uint32_t cur = 0;
    for (unsigned char b : s) {
      auto& nx = nodes_[cur].next;
      auto it = std::lower_bound(nx.begin(), nx.end(), std::make_pair(b, uint32_t(0)),
                                 [](const auto& x, const auto& y) { return x.first < y.first; });
      if (it != nx.end() && it->first == b) {
        cur = it->second;
      } else {
        const uint32_t id = static_cast<uint32_t>(nodes_.size());
        nx.insert(it, {b, id});
        nodes_.emplace_back();
        cur = id;
      }
    }
    // Two added tokens with one content: the first one listed is the one HF's matcher reports.
    if (nodes_[cur].token < 0) nodes_[cur].token = static_cast<int64_t>(t);
  }
}

namespace {
bool is_word_char(char32_t c) { return c == U'_' || ucls::is(c, ucls::L | ucls::N | ucls::M); }
}  // namespace

void AddedTokenMatcher::split(std::string_view text, const std::vector<AddedToken>& tokens,
                              std::vector<std::pair<int64_t, std::pair<size_t, size_t>>>& out,
                              const SkipMatch* skip) const {
  size_t start_offset = 0;
  size_t pos = 0;
  const size_t n = text.size();
  while (pos < n) {
    // Leftmost start with a match, longest match there.
    size_t ms = n, me = 0;
    int64_t tok = -1;
    for (size_t p = pos; p < n; ++p) {
      if (!first_byte_[static_cast<unsigned char>(text[p])]) continue;
      uint32_t cur = 0;
      for (size_t q = p; q < n; ++q) {
        const auto& nx = nodes_[cur].next;
        const unsigned char b = static_cast<unsigned char>(text[q]);
        auto it = std::lower_bound(nx.begin(), nx.end(), std::make_pair(b, uint32_t(0)),
                                   [](const auto& x, const auto& y) { return x.first < y.first; });
        if (it == nx.end() || it->first != b) break;
        cur = it->second;
        if (nodes_[cur].token >= 0) {
          tok = nodes_[cur].token;
          me = q + 1;
        }
      }
      if (tok >= 0) {
        ms = p;
        break;
      }
    }
    if (tok < 0) break;
    pos = me;
    const AddedToken& at = tokens[static_cast<size_t>(tok)];
    size_t start = ms, stop = me;
    if (skip && (*skip)(start, stop, at)) continue;
    if (at.single_word) {
      bool start_ok = true, stop_ok = true;
      if (start > 0) {
        size_t k = start;
        start_ok = !is_word_char(uni::decode_prev(text, k));
      }
      if (stop < n) {
        size_t k = stop;
        stop_ok = !is_word_char(uni::decode_next(text, k));
      }
      if (!start_ok || !stop_ok) continue;
    }
    if (at.lstrip) {
      size_t b = start;
      while (b > 0) {
        size_t k = b;
        if (!ucls::is_space(uni::decode_prev(text, k))) break;
        b = k;
      }
      start = std::max(b, start_offset);
    }
    if (at.rstrip) {
      while (stop < n) {
        size_t k = stop;
        if (!ucls::is_space(uni::decode_next(text, k))) break;
        stop = k;
      }
    }
    if (start_offset < start) out.push_back({-1, {start_offset, start}});
    out.push_back({tok, {start, stop}});
    start_offset = stop;
  }
  if (start_offset < n) out.push_back({-1, {start_offset, n}});
}

}  // namespace toolchat::tokenize
