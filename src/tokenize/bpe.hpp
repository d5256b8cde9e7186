// The BPE model of tokenizer.json: vocabulary, ranked merges, unk / byte_fallback handling.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tokenize/vocab.hpp"

namespace toolchat::tokenize {

struct StrHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

// A token out of the model: id and [begin, end) bytes of the word it covers.
struct ModelToken {
  uint32_t id, begin, end;
};

// Words already split by this encode call (text repeats words a lot): word -> its tokens,
// (id, byte length) each, as a range of `parts` (one flat vector: no allocation per word).
struct BpeCache {
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>, StrHash, std::equal_to<>> words;  // (first, count)
  std::vector<std::pair<uint32_t, uint32_t>> parts;
  size_t limit = 1 << 15;  // words; emptied when full (memory stays bounded)
};

class Bpe {
 public:
  // Byte-level: the units of a word are its bytes, and vocabulary/merges were mapped from the
  // ByteLevel alphabet to raw bytes when loading. Otherwise units are UTF-8 characters.
  bool byte_level = false;
  std::vector<std::string> id_to_token;  // as written in tokenizer.json ("" for holes)
  Vocab vocab;                           // in unit space (raw bytes when byte_level)
  std::string unk_token;
  bool has_unk = false, byte_fallback = false, fuse_unk = false, ignore_merges = false;
  std::string continuing_subword_prefix, end_of_word_suffix;
  // Long words (SentencePiece-style models have no pre-tokenizer: the whole text is one word)
  // are cut before `cut_char` (U+2581) where no merge can cross: when the character before it
  // is not itself cut_char and not in cut_unsafe_prev (characters some merged token has right
  // before a cut_char). 0: never cut.
  char32_t cut_char = 0;
  // Ids of the one-unit tokens (filled by finish()): bytes when byte_level, else characters.
  int64_t byte_unit[256];
  std::unordered_map<char32_t, uint32_t> char_unit;
  std::vector<int32_t> bmp_unit;  // char_unit below U+10000 as a table (-1: none)
  void finish();
  std::vector<char32_t> cut_unsafe_prev;
  // Adds the characters right before a U+2581 inside `token` to `unsafe`.
  static void note_cut_unsafe(std::string_view token, std::vector<char32_t>& unsafe);
  // llama.cpp's SentencePiece-style merging (GGUF "llama" models, spm.cpp), used when not empty:
  // the score of each id. Two neighbouring symbols merge when their text is a token, the highest
  // score first, the leftmost on ties; a symbol left that is no token becomes its bytes' tokens.
  std::vector<float> spm_scores;
  int64_t spm_byte_token[256];  // "<0xXX>", else the byte itself as a token; -1: none

  void add_merge(uint32_t left, uint32_t right, uint32_t rank, uint32_t merged);
  void reserve_merges(size_t n);  // room for n merges without growing
  void prefetch_merge(uint32_t left, uint32_t right) const;  // before add_merge/find_merge of the pair
  void tokenize(std::string_view word, BpeCache* cache, std::vector<ModelToken>& out) const;

 private:
  struct MergeSlot {
    uint64_t key = ~uint64_t(0);
    uint32_t rank = 0, merged = 0;
  };
  std::vector<MergeSlot> merges_;  // open addressing, power-of-two size
  size_t merge_count_ = 0;
  struct RankInfo {
    uint32_t left = ~0u, right = ~0u, merged = 0;
  };
  std::vector<RankInfo> by_rank_;  // the merge of each rank
  const MergeSlot* find_merge(uint32_t left, uint32_t right) const;
  void grow(size_t slots);
  void merge_word(std::string_view word, std::vector<std::pair<uint32_t, uint32_t>>& out) const;
  void spm_merge_word(std::string_view word, std::vector<std::pair<uint32_t, uint32_t>>& out) const;
  void merge_cached(std::string_view word, BpeCache* cache, uint32_t base, std::vector<ModelToken>& out) const;
};

}  // namespace toolchat::tokenize
