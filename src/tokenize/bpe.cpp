// BPE word splitting as Hugging Face tokenizers does it (models/bpe/word.rs): start from one
// symbol per unit, then always apply the lowest-ranked merge present, the leftmost first.
#include "tokenize/bpe.hpp"

#include <algorithm>
#include <functional>
#include <cstdio>

#include "value/unicode.hpp"

namespace toolchat::tokenize {

namespace {
void uni_append(std::string& out, char32_t c) { uni::append_utf8(out, c); }
inline uint64_t pair_key(uint32_t a, uint32_t b) { return (uint64_t(a) << 32) | b; }
inline size_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return static_cast<size_t>(k);
}
}  // namespace

void Bpe::prefetch_merge(uint32_t left, uint32_t right) const {
  if (!merges_.empty()) __builtin_prefetch(&merges_[mix(pair_key(left, right)) & (merges_.size() - 1)]);
}

void Bpe::reserve_merges(size_t n) {
  by_rank_.reserve(n);
  size_t slots = 1024;
  while (slots < n * 2) slots *= 2;
  if (slots > merges_.size()) grow(slots);
}

void Bpe::grow(size_t slots) {
  std::vector<MergeSlot> old = std::move(merges_);
  merges_.assign(slots, MergeSlot{});
  const size_t mask = merges_.size() - 1;
  for (const MergeSlot& s : old) {
    if (s.key == ~uint64_t(0)) continue;
    size_t i = mix(s.key) & mask;
    while (merges_[i].key != ~uint64_t(0)) i = (i + 1) & mask;
    merges_[i] = s;
  }
}

void Bpe::add_merge(uint32_t left, uint32_t right, uint32_t rank, uint32_t merged) {
  if ((merge_count_ + 1) * 2 > merges_.size()) grow(merges_.empty() ? 1024 : merges_.size() * 2);
  const uint64_t key = pair_key(left, right);
  const size_t mask = merges_.size() - 1;
  size_t i = mix(key) & mask;
  while (merges_[i].key != ~uint64_t(0)) {
    if (merges_[i].key == key) {  // a repeated pair: the later line wins, as in HF's HashMap
      merges_[i].rank = rank;
      merges_[i].merged = merged;
      if (by_rank_.size() <= rank) by_rank_.resize(rank + 1, RankInfo{});
      by_rank_[rank] = RankInfo{left, right, merged};
      return;
    }
    i = (i + 1) & mask;
  }
  merges_[i] = MergeSlot{key, rank, merged};
  ++merge_count_;
  if (by_rank_.size() <= rank) by_rank_.resize(rank + 1, RankInfo{});
  by_rank_[rank] = RankInfo{left, right, merged};
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

void Bpe::note_cut_unsafe(std::string_view token, std::vector<char32_t>& unsafe) {
  // A U+2581 after the first character starts at byte 1 or later (most tokens have none).
  if (token.size() < 4 || token.find("\xE2\x96\x81", 1) == std::string_view::npos) return;
  const std::u32string cps = uni::decode(token);
  for (size_t i = 1; i < cps.size(); ++i) {
    if (cps[i] != 0x2581 || cps[i - 1] == 0x2581) continue;
    bool seen = false;
    for (char32_t u : unsafe) seen = seen || u == cps[i - 1];
    if (!seen) unsafe.push_back(cps[i - 1]);
  }
}

void Bpe::finish() {
  for (unsigned b = 0; b < 256; ++b) {
    const char c = static_cast<char>(b);
    byte_unit[b] = vocab.find(std::string_view(&c, 1));
  }
  for (unsigned b = 0; b < 256; ++b) {
    char code[8];
    std::snprintf(code, sizeof code, "<0x%02X>", b);
    const int64_t id = vocab.find(std::string_view(code));
    spm_byte_token[b] = id >= 0 ? id : byte_unit[b];
  }
  char_unit.clear();
  bmp_unit.assign(0x10000, -1);
  vocab.for_each([&](std::string_view tok, uint32_t id) {
    size_t i = 0;
    if (tok.empty() || tok.size() > 4) return;
    const char32_t c = uni::decode_next(tok, i);
    if (i == tok.size()) {
      char_unit.emplace(c, id);
      if (c < 0x10000 && bmp_unit[c] < 0) bmp_unit[c] = static_cast<int32_t>(id);
    }
  });
}

void Bpe::merge_word(std::string_view w, std::vector<std::pair<uint32_t, uint32_t>>& out) const {
  if (!spm_scores.empty()) return spm_merge_word(w, out);
  struct Sym {
    uint32_t id, len;
    int32_t prev, next;
  };
  thread_local std::vector<Sym> syms;  // scratch kept between calls: no allocation per word
  syms.clear();
  auto add = [&](uint32_t id, uint32_t len) {
    const int32_t n = static_cast<int32_t>(syms.size());
    syms.push_back(Sym{id, len, n - 1, -1});
    if (n > 0) syms[n - 1].next = n;
  };
  bool unk_pending = false;
  uint32_t unk_id = 0, unk_len = 0;
  const int64_t unk = has_unk ? vocab.find(unk_token) : -1;
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
    int64_t unit_id = -1;
    if (unit.data() != tmp.data()) {
      // The common case: a plain unit, found in the one-unit tables.
      if (byte_level) {
        unit_id = byte_unit[static_cast<unsigned char>(unit[0])];
      } else {
        size_t k = 0;
        const char32_t c = uni::decode_next(unit, k);
        if (k == unit.size()) {
          if (c < 0x10000) {
            unit_id = bmp_unit[c];
          } else {
            auto cu = char_unit.find(c);
            if (cu != char_unit.end()) unit_id = cu->second;
          }
        } else {
          unit_id = vocab.find(unit);
        }
      }
    } else {
      unit_id = vocab.find(unit);
    }
    if (unit_id >= 0) {
      if (unk_pending) {
        add(unk_id, unk_len);
        unk_pending = false;
      }
      add(static_cast<uint32_t>(unit_id), byte_len);
    } else {
      bool done = false;
      if (byte_fallback) {
        std::vector<uint32_t> ids;
        for (unsigned char b : unit) {
          char code[8];
          std::snprintf(code, sizeof code, "<0x%02X>", b);
          const int64_t bt = vocab.find(std::string_view(code));
          if (bt < 0) break;
          ids.push_back(static_cast<uint32_t>(bt));
        }
        if (ids.size() == unit.size()) {
          for (uint32_t id : ids) add(id, 1);
          done = true;
        }
      }
      if (!done && unk >= 0) {
        if (unk_pending && fuse_unk) {
          unk_len += byte_len;
        } else {
          if (unk_pending) add(unk_id, unk_len);
          unk_pending = true;
          unk_id = static_cast<uint32_t>(unk);
          unk_len = byte_len;
        }
      }
    }
    i = end;
  }
  if (unk_pending) add(unk_id, unk_len);

  // Candidates as one integer, rank then position (a min-heap pops the lowest rank, leftmost
  // first); the merged id is looked up again when popped, which also drops stale entries.
  auto key = [](uint32_t rank, int32_t pos) { return (uint64_t(rank) << 32) | uint32_t(pos); };
  thread_local std::vector<uint64_t> heap;
  heap.clear();
  for (size_t k = 0; k + 1 < syms.size(); ++k)
    if (const MergeSlot* m = find_merge(syms[k].id, syms[k + 1].id))
      heap.push_back(key(m->rank, static_cast<int32_t>(k)));
  std::greater<uint64_t> after;
  std::make_heap(heap.begin(), heap.end(), after);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), after);
    const uint64_t top = heap.back();
    heap.pop_back();
    const uint32_t rank = static_cast<uint32_t>(top >> 32);
    const int32_t pos = static_cast<int32_t>(top & 0xFFFFFFFFu);
    Sym& cur = syms[pos];
    if (cur.len == 0 || cur.next < 0) continue;
    const int32_t next_pos = cur.next;
    const Sym right = syms[next_pos];
    // HF's check is that the pair here now merges into the same token as the candidate did.
    // That holds exactly when the pair is still the candidate's: the symbol at `pos` changes
    // only by taking in its right neighbour, and the neighbour only by taking in its own, each
    // time into a longer text, so a changed pair would make another token.
    const RankInfo& ri = by_rank_[rank];
    if (cur.id != ri.left || right.id != ri.right) continue;
    cur.id = ri.merged;
    cur.len += right.len;
    cur.next = right.next;
    syms[next_pos].len = 0;
    if (right.next >= 0) syms[right.next].prev = pos;
    if (cur.prev >= 0) {
      if (const MergeSlot* pm = find_merge(syms[cur.prev].id, cur.id)) {
        heap.push_back(key(pm->rank, cur.prev));
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
    if (cur.next >= 0) {
      if (const MergeSlot* nm = find_merge(cur.id, syms[cur.next].id)) {
        heap.push_back(key(nm->rank, pos));
        std::push_heap(heap.begin(), heap.end(), after);
      }
    }
  }
  for (const Sym& s : syms)
    if (s.len) out.emplace_back(s.id, s.len);
}

void Bpe::tokenize(std::string_view word, BpeCache* cache, std::vector<ModelToken>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    const int64_t id = vocab.find(word);
    if (id >= 0) {
      out.push_back(ModelToken{static_cast<uint32_t>(id), 0, static_cast<uint32_t>(word.size())});
      return;
    }
  }
  if (cut_char && word.size() > 256) {
    // Cut points where no merge can reach across (see cut_char): each chunk on its own.
    std::string cut_utf8;
    uni_append(cut_utf8, cut_char);
    size_t chunk = 0, pos = 0;
    while (true) {
      const size_t k = word.find(cut_utf8, pos);
      if (k == std::string_view::npos) break;
      pos = k + cut_utf8.size();
      if (k == chunk) continue;
      // The character before the cut_char.
      size_t b = k - 1;
      while (b > chunk && (static_cast<unsigned char>(word[b]) & 0xC0) == 0x80) --b;
      size_t at = b;
      const char32_t prev = uni::decode_next(word, at);
      if (prev == cut_char) continue;
      if (std::find(cut_unsafe_prev.begin(), cut_unsafe_prev.end(), prev) != cut_unsafe_prev.end()) continue;
      merge_cached(word.substr(chunk, k - chunk), cache, static_cast<uint32_t>(chunk), out);
      chunk = k;
    }
    merge_cached(word.substr(chunk), cache, static_cast<uint32_t>(chunk), out);
    return;
  }
  merge_cached(word, cache, 0, out);
}

void Bpe::merge_cached(std::string_view word, BpeCache* cache, uint32_t base,
                       std::vector<ModelToken>& out) const {
  thread_local std::vector<std::pair<uint32_t, uint32_t>> local;
  const std::pair<uint32_t, uint32_t>* parts;
  size_t count;
  if (cache && word.size() < 256) {
    auto it = cache->words.find(word);
    if (it == cache->words.end()) {
      if (cache->words.size() >= cache->limit) {
        cache->words.clear();
        cache->parts.clear();
      }
      const size_t first = cache->parts.size();
      merge_word(word, cache->parts);
      it = cache->words.emplace(std::string(word), std::make_pair(static_cast<uint32_t>(first),
                                                                  static_cast<uint32_t>(cache->parts.size() - first))).first;
    }
    parts = cache->parts.data() + it->second.first;
    count = it->second.second;
  } else {
    local.clear();
    merge_word(word, local);
    parts = local.data();
    count = local.size();
  }
  uint32_t pos = base;
  for (size_t k = 0; k < count; ++k) {
    out.push_back(ModelToken{parts[k].first, pos, pos + parts[k].second});
    pos += parts[k].second;
  }
}

}  // namespace toolchat::tokenize
