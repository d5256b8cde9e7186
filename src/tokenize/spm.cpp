// llama.cpp's SentencePiece-style tokenization of a GGUF "llama" model (its SPM session): one
// symbol per UTF-8 character; any two neighbours whose joined text is a token may merge, the one
// whose token has the highest score first, the leftmost on equal scores; at the end a symbol that
// is no token (a character missing from the vocabulary) becomes one token per byte.
// The scores decide, not a merge list: llama.cpp keeps no merges for these models.
#include <queue>

#include "tokenize/bpe.hpp"
#include "toolchat/error.hpp"

namespace toolchat::tokenize {

void Bpe::spm_merge_word(std::string_view w, std::vector<std::pair<uint32_t, uint32_t>>& out) const {
  struct Sym {
    uint32_t begin, len;
    int32_t prev, next;
  };
  struct Cand {
    float score;
    int32_t left, right;
    uint32_t size;
  };
  // The order of llama.cpp's work queue: highest score on top, then the lowest left index.
  auto lower = [](const Cand& l, const Cand& r) { return l.score < r.score || (l.score == r.score && l.left > r.left); };
  std::vector<Sym> syms;
  syms.reserve(w.size());
  for (size_t i = 0; i < w.size();) {
    const unsigned char b = static_cast<unsigned char>(w[i]);
    // llama.cpp's lengths by the lead byte (a stray continuation byte is one symbol).
    const size_t len = std::min(w.size() - i, size_t(b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4));
    const int32_t n = static_cast<int32_t>(syms.size());
    syms.push_back(Sym{static_cast<uint32_t>(i), static_cast<uint32_t>(len), n - 1, i + len == w.size() ? -1 : n + 1});
    i += len;
  }
  std::vector<Cand> store;
  store.reserve(syms.size());
  std::priority_queue<Cand, std::vector<Cand>, decltype(lower)> queue(lower, std::move(store));
  auto try_pair = [&](int32_t l, int32_t r) {
    if (l < 0 || r < 0) return;
    const uint32_t size = syms[l].len + syms[r].len;
    const int64_t id = vocab.find(w.substr(syms[l].begin, size));
    if (id < 0 || static_cast<size_t>(id) >= spm_scores.size()) return;
    queue.push(Cand{spm_scores[static_cast<size_t>(id)], l, r, size});
  };
  for (int32_t i = 1; i < static_cast<int32_t>(syms.size()); ++i) try_pair(i - 1, i);
  while (!queue.empty()) {
    const Cand c = queue.top();
    queue.pop();
    Sym& l = syms[c.left];
    Sym& r = syms[c.right];
    if (l.len == 0 || r.len == 0 || l.len + r.len != c.size) continue;  // a side merged since
    l.len += r.len;
    r.len = 0;
    l.next = r.next;
    if (r.next >= 0) syms[r.next].prev = c.left;
    try_pair(l.prev, c.left);
    try_pair(c.left, l.next);
  }
  for (int32_t i = syms.empty() ? -1 : 0; i != -1; i = syms[i].next) {
    const std::string_view text = w.substr(syms[i].begin, syms[i].len);
    const int64_t id = vocab.find(text);
    if (id >= 0) {
      out.emplace_back(static_cast<uint32_t>(id), syms[i].len);
      continue;
    }
    for (unsigned char b : text) {
      if (spm_byte_token[b] < 0)
        throw_error(ErrorKind::ValueError, "tokenizer: the vocabulary has no token for byte " + std::to_string(b) +
                                               " (neither <0x..> nor the byte itself), which a character left unmerged needs");
      out.emplace_back(static_cast<uint32_t>(spm_byte_token[b]), 1);
    }
  }
}

}  // namespace toolchat::tokenize
