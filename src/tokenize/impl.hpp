// The parts of a loaded tokenizer (tokenizer.json's sections) and the text they work on.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace toolchat::chat {
struct GgufMetadata;
}

#include "tokenize/bpe.hpp"
#include "tokenize/regex.hpp"
#include "toolchat/tokenize.hpp"

namespace toolchat::tokenize {

// Text after normalization: UTF-8 bytes, and for each byte the code point range of the
// original input it came from (offsets of tokens map back through it).
struct NormStr {
  std::string s;
  std::vector<std::pair<uint32_t, uint32_t>> align;
  void push(std::string_view bytes, std::pair<uint32_t, uint32_t> a) {
    s.append(bytes);
    align.insert(align.end(), bytes.size(), a);
  }
};

// A literal string or a regex, as tokenizer.json's {"String": ...} / {"Regex": ...}.
struct Pattern {
  std::u32string literal;
  std::string literal_utf8;  // the literal as UTF-8 (byte search finds the same matches in valid UTF-8)
  std::shared_ptr<const Regex> regex;
  // Matches in cps[0, n) as (start, end) code point pairs, non-overlapping, left to right.
  void find_all(const char32_t* cps, size_t n, std::vector<std::pair<size_t, size_t>>& out) const;
};

struct Normalizer {
  enum class Type { NFC, NFD, NFKC, NFKD, Replace, Prepend, Strip, Lowercase, Sequence };
  Type type = Type::Sequence;
  Pattern pattern;            // Replace
  std::string content;        // Replace, Prepend
  bool left = false, right = false;  // Strip
  std::vector<Normalizer> children;  // Sequence
  void apply(NormStr& t) const;
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

struct PreTokenizer {
  enum class Type { ByteLevel, Split, Metaspace, Digits, Punctuation, Whitespace, WhitespaceSplit,
                    Sequence };
  Type type = Type::Sequence;
  bool add_prefix_space = false;  // ByteLevel
  bool use_regex = true;          // ByteLevel
  Pattern pattern;                // Split; ByteLevel's GPT-2 regex
  SplitBehavior behavior = SplitBehavior::Isolated;
  bool invert = false;
  std::string replacement;        // Metaspace
  enum class Prepend { Always, First, Never } prepend = Prepend::Always;  // Metaspace
  bool split = true;              // Metaspace
  bool individual_digits = false; // Digits
  std::vector<PreTokenizer> children;
};

struct Decoder {
  enum class Type { ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence };
  Type type = Type::Sequence;
  std::string pattern, content;   // Replace (literal), Strip (content)
  size_t start = 0, stop = 0;     // Strip
  std::string replacement;        // Metaspace
  bool prepend = true;            // Metaspace: strip the first token's leading space
  std::vector<Decoder> children;
  void apply(std::vector<std::string>& tokens) const;
};

struct PostProcessor {
  enum class Type { TemplateProcessing, ByteLevel, Sequence };
  Type type = Type::Sequence;
  // TemplateProcessing "single": a special token's ids, or the sequence (empty ids).
  struct Item {
    bool is_sequence = false;
    std::vector<uint32_t> ids;
  };
  std::vector<Item> single;
  bool trim_offsets = false;      // ByteLevel
  bool add_prefix_space = false;  // ByteLevel: trimming keeps the first token's one leading space
  std::vector<PostProcessor> children;
};

struct AddedToken {
  uint32_t id = 0;
  std::string content;
  bool special = false, lstrip = false, rstrip = false, normalized = false, single_word = false;
};

// Finds added tokens in text: leftmost, then longest, like Aho-Corasick LeftmostLongest.
class AddedTokenMatcher {
 public:
  void build(const std::vector<AddedToken>& tokens, const std::vector<size_t>& which);
  bool empty() const { return nodes_.size() <= 1; }
  // Split text into (token index or -1, [begin, end) bytes), applying lstrip/rstrip/single_word.
  // `skip(begin, end, token)`, when given, drops a match as HF's encode_special_tokens does
  // (the search goes on after it).
  using SkipMatch = std::function<bool(size_t, size_t, const AddedToken&)>;
  void split(std::string_view text, const std::vector<AddedToken>& tokens,
             std::vector<std::pair<int64_t, std::pair<size_t, size_t>>>& out,
             const SkipMatch* skip = nullptr) const;

 private:
  struct Node {
    std::vector<std::pair<unsigned char, uint32_t>> next;  // sorted by byte
    int64_t token = -1;
  };
  std::vector<Node> nodes_{1};
  bool first_byte_[256] = {};
};

class TokenizerImpl {
 public:
  TokenizerImpl();
  std::string name;
  uint64_t serial;  // unique per loaded tokenizer: the owner of a thread's word cache
  std::vector<Normalizer> normalizer;  // 0 or 1
  std::vector<PreTokenizer> pre_tokenizer;  // 0 or 1
  Bpe model;
  std::vector<PostProcessor> post;  // 0 or 1
  std::vector<Decoder> decoder;     // 0 or 1
  std::vector<AddedToken> added;
  std::unordered_map<std::string, uint32_t> added_by_content;
  std::unordered_map<uint32_t, size_t> added_by_id;
  AddedTokenMatcher raw_matcher, normalized_matcher;

  // `plain`: sorted code point ranges of the input where special added tokens are not
  // recognised; `skipped` (when given) is set when a special token's text was met there.
  Encoding encode(std::string_view text, bool add_special_tokens,
                  const std::vector<std::pair<uint32_t, uint32_t>>* plain = nullptr, bool* skipped = nullptr) const;
  std::string decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const;
};

TokenizerImpl load_tokenizer_json(std::string_view text, const std::string& name);

// The tokenizer of a GGUF model's tokenizer.ggml.* metadata, as llama.cpp tokenizes (gguf_tokenizer.cpp).
TokenizerImpl load_gguf_tokenizer(const chat::GgufMetadata& md, const std::string& name);

// Pre-tokenization of one segment: pieces as code point ranges of `cps`.
struct Piece {
  uint32_t begin, end;
};
void pre_tokenize(const PreTokenizer& p, NormStr& seg, std::u32string& cps,
                  std::vector<uint32_t>& cp_byte, std::vector<Piece>& pieces);

// Decodes s into code points and the byte offset of each (plus s.size() at the end).
void decode_cps(std::string_view s, std::u32string& cps, std::vector<uint32_t>& cp_byte);

// Hugging Face's (Rust's) from_utf8_lossy: each maximal invalid subpart becomes U+FFFD.
std::string utf8_lossy(std::string_view bytes);

// The GPT-2 byte-to-unicode map of ByteLevel (byte -> code point) and its inverse (-1: none).
char32_t byte_level_char(unsigned char b);
int byte_level_byte(char32_t c);

}  // namespace toolchat::tokenize
