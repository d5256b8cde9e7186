// A BPE vocabulary: token text -> id, looked up for every unit of a word, and three times per
// merge while loading (1.5 million lookups for Gemma 3). One flat open-addressing table whose
// slots hold short texts themselves (most tokens are under 8 bytes), so a lookup costs one
// cache miss; longer texts live in one buffer. std::unordered_map<std::string> cost a node, an
// allocation and three dependent misses per token, most of the load time.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace toolchat::tokenize {

class Vocab {
 public:
  // The id of `text`, or -1.
  int64_t find(std::string_view text) const { return find(text, hash(text)); }
  // The same, with hash(text) given.
  int64_t find(std::string_view text, uint64_t h) const {
    if (slots_.empty()) return -1;
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    const bool short_text = text.size() <= kInlineMax;
    const uint64_t key = short_text ? inline_key(text) : 0;
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.id == kEmpty) return -1;
      if (s.tag != tag) continue;
      if (short_text ? s.key == key : long_equal(s.key, text)) return s.id;
    }
  }
  bool contains(std::string_view text) const { return find(text) >= 0; }
  // Starts loading the slot a text of hash h is looked for first (for lookups made in batches).
  void prefetch(uint64_t h) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[h & mask_]);
  }
  // Sets text -> id. When text is there already its id is replaced (a repeated JSON key: the
  // last value wins) and the old id is returned; else -1.
  int64_t set(std::string_view text, uint32_t id);
  // Room for n entries without rehashing.
  void reserve(size_t n);
  size_t size() const { return count_; }
  // f(std::string_view text, uint32_t id) for every entry (in table order; the view lives for
  // the call only).
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_) {
      if (s.id == kEmpty) continue;
      char buf[kInlineMax];
      f(text_of(s.key, buf), s.id);
    }
  }

  static uint64_t hash(std::string_view s) {
    // Eight bytes at a time, multiply-xorshift mixing (tokens are short: one or two rounds).
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ s.size();
    size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, s.data() + i, 8);
      h = (h ^ w) * 0xff51afd7ed558ccdULL;
      h ^= h >> 32;
    }
    uint64_t w = 0;
    if (i < s.size()) std::memcpy(&w, s.data() + i, s.size() - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 29;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;  // ids are below 16 million (the loader's limit)
  static constexpr size_t kInlineMax = 7;
  static constexpr uint64_t kInline = uint64_t(1) << 63;
  // key: a text of up to 7 bytes as kInline | length << 56 | its bytes; a longer one as its
  // length << 40 | its offset in texts_.
  struct Slot {
    uint64_t key = 0;
    uint32_t tag = 0;  // the hash's high half
    uint32_t id = kEmpty;
  };
  static uint64_t inline_key(std::string_view text) {
    uint64_t k = 0;
    for (size_t j = 0; j < text.size(); ++j) k |= uint64_t(static_cast<unsigned char>(text[j])) << (8 * j);
    return kInline | uint64_t(text.size()) << 56 | k;
  }
  bool long_equal(uint64_t key, std::string_view text) const {
    return !(key & kInline) && (key >> 40) == text.size() &&
           std::memcmp(texts_.data() + (key & 0xFFFFFFFFFFULL), text.data(), text.size()) == 0;
  }
  std::string_view text_of(uint64_t key, char* buf) const {
    if (key & kInline) {
      const size_t n = (key >> 56) & 0x7F;
      for (size_t j = 0; j < n; ++j) buf[j] = static_cast<char>(key >> (8 * j));
      return std::string_view(buf, n);
    }
    return std::string_view(texts_.data() + (key & 0xFFFFFFFFFFULL), key >> 40);
  }
  std::string texts_;
  std::vector<Slot> slots_;  // power-of-two size, at most half full
  size_t mask_ = 0, count_ = 0;
  void rehash(size_t slots);
};

}  // namespace toolchat::tokenize
