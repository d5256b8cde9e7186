// BPE word splitting as Hugging Face tokenizers does it (models/bpe/word.rs): start from one
// symbol per unit, then always apply the lowest-ranked merge present, the leftmost first.
#include "tokenize/bpe.hpp"

#include <algorithm>
#include <cstdio>

namespace toolchat::tokenize {

namespace {
inline uint64_t pair_key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }
inline size_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return static_cast<size_t>(k);
}
}  // namespace

void Bpe::grow() {
  std::vector<MergeSlot> old = std::move(merges_);
  merges_.assign(old.empty() ? 1024 : old.size() * 2, MergeSlot{});
  const size_t mask = merges_.size() - 1;
  for (const MergeSlot& s : old) {
    if (s.key == ~uint64_t(0)) continue;
    size_t i = mix(s.key) & mask;
    while (merges_[i].key != ~uint64_t(0)) i = (i + 1) & mask;
    merges_[i] = s;
  }
}

void Bpe::add_merge(uint32_t left, uint32_t right, uint32_t rank, uint32_t merged) {
  if ((merge_count_ + 1) * 2 > merges_.size()) grow();
  const uint64_t key = pair_key(left, right);
  const size_t mask = merges_.size() - 1;
  size_t i = mix(key) & mask;
  while (merges_[i].key != ~uint64_t(0)) {
    if (merges_[i].key == key) {  // a repeated pair: the later line wins, as in HF's HashMap
      merges_[i].rank = rank;
      merges_[i].merged = merged;
      return;
    }
    i = (i + 1) & mask;
  }
  merges_[i] = MergeSlot{key, rank, merged};
  ++merge_count_;
}

const Bpe::MergeSlot* Bpe::find_merge(uint32_t left, uint32_t right) const {
  if (merges_.empty()) return nullptr;
  const uint64_t key = pair_key(left, right);
  const size_t mask = merges_.size() - 1;
  size_t i = mix(key) & mask;
  while (true) {
    const MergeSlot& s = merges_[i];
    if (s.key == key) return &s;
    if (s.key == ~uint64_t(0)) return nullptr;
    i = (i + 1) & mask;
  }
}

void Bpe::merge_word(std::string_view w, std::vector<std::pair<uint32_t, uint32_t>>& out) const {
  struct Sym {
    uint32_t id, len;
    int32_t prev, next;
  };
  std::vector<Sym> syms;
  syms.reserve(w.size());
  auto add = [&](uint32_t id, uint32_t len) {
    const int32_t n = static_cast<int32_t>(syms.size());
    syms.push_back(Sym{id, len, n - 1, -1});
    if (n > 0) syms[n - 1].next = n;
  };
  bool unk_pending = false;
  uint32_t unk_id = 0, unk_len = 0;
  const auto unk_it = has_unk ? vocab.find(unk_token) : vocab.end();
  std::string tmp;
  size_t i = 0;
  while (i < w.size()) {
    size_t end = i + 1;
    if (!byte_level) {
      const unsigned char b = static_cast<unsigned char>(w[i]);
      const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
      end = std::min(w.size(), i + len);
    }
    const bool first = i == 0, last = end == w.size();
    std::string_view unit = w.substr(i, end - i);
    if ((!first && !continuing_subword_prefix.empty()) || (last && !end_of_word_suffix.empty())) {
      tmp.clear();
      if (!first) tmp += continuing_subword_prefix;
      tmp += unit;
      if (last) tmp += end_of_word_suffix;
      unit = tmp;
    }
    const uint32_t byte_len = static_cast<uint32_t>(end - i);
    auto it = vocab.find(unit);
    if (it != vocab.end()) {
      if (unk_pending) {
        add(unk_id, unk_len);
        unk_pending = false;
      }
      add(it->second, byte_len);
    } else {
      bool done = false;
      if (byte_fallback) {
        std::vector<uint32_t> ids;
        for (unsigned char b : unit) {
          char code[8];
          std::snprintf(code, sizeof code, "<0x%02X>", b);
          auto bt = vocab.find(std::string_view(code));
          if (bt == vocab.end()) break;
          ids.push_back(bt->second);
        }
        if (ids.size() == unit.size()) {
          for (uint32_t id : ids) add(id, 1);
          done = true;
        }
      }
      if (!done && unk_it != vocab.end()) {
        if (unk_pending && fuse_unk) {
          unk_len += byte_len;
        } else {
          if (unk_pending) add(unk_id, unk_len);
          unk_pending = true;
          unk_id = unk_it->second;
          unk_len = byte_len;
        }
      }
    }
    i = end;
  }
  if (unk_pending) add(unk_id, unk_len);

  // (rank, position, merged id); a min-heap on rank then position.
  struct Cand {
    uint32_t rank;
    int32_t pos;
    uint32_t merged;
  };
  auto worse = [](const Cand& a, const Cand& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  std::vector<Cand> heap;
  heap.reserve(syms.size());
  for (size_t k = 0; k + 1 < syms.size(); ++k)
    if (const MergeSlot* m = find_merge(syms[k].id, syms[k + 1].id))
      heap.push_back(Cand{m->rank, static_cast<int32_t>(k), m->merged});
  std::make_heap(heap.begin(), heap.end(), worse);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), worse);
    const Cand top = heap.back();
    heap.pop_back();
    Sym& cur = syms[top.pos];
    if (cur.len == 0 || cur.next < 0) continue;
    const int32_t next_pos = cur.next;
    const Sym right = syms[next_pos];
    const MergeSlot* m = find_merge(cur.id, right.id);
    if (!m || m->merged != top.merged) continue;
    cur.id = top.merged;
    cur.len += right.len;
    cur.next = right.next;
    syms[next_pos].len = 0;
    if (right.next >= 0) syms[right.next].prev = top.pos;
    if (cur.prev >= 0) {
      if (const MergeSlot* pm = find_merge(syms[cur.prev].id, cur.id)) {
        heap.push_back(Cand{pm->rank, cur.prev, pm->merged});
        std::push_heap(heap.begin(), heap.end(), worse);
      }
    }
    if (cur.next >= 0) {
      if (const MergeSlot* nm = find_merge(cur.id, syms[cur.next].id)) {
        heap.push_back(Cand{nm->rank, top.pos, nm->merged});
        std::push_heap(heap.begin(), heap.end(), worse);
      }
    }
  }
  for (const Sym& s : syms)
    if (s.len) out.emplace_back(s.id, s.len);
}

void Bpe::tokenize(std::string_view word, BpeCache* cache, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    auto it = vocab.find(word);
    if (it != vocab.end()) {
      out.push_back(ModelToken{it->second, 0, static_cast<uint32_t>(word.size())});
      return;
    }
  }
  const std::vector<std::pair<uint32_t, uint32_t>>* parts = nullptr;
  std::vector<std::pair<uint32_t, uint32_t>> local;
  if (cache && word.size() < 256) {
    auto it = cache->words.find(word);
    if (it == cache->words.end()) {
      std::vector<std::pair<uint32_t, uint32_t>> v;
      merge_word(word, v);
      it = cache->words.emplace(std::string(word), std::move(v)).first;
    }
    parts = &it->second;
  } else {
    merge_word(word, local);
    parts = &local;
  }
  uint32_t pos = 0;
  for (const auto& [id, len] : *parts) {
    out.push_back(ModelToken{id, pos, pos + len});
    pos += len;
  }
}

}  // namespace toolchat::tokenize
