// Tokenization exactly like Hugging Face tokenizers: load a tokenizer.json (a file, or a model
// folder holding one) and encode text to token ids (with offsets) or decode ids to text.
//
// Supported (see README "Tokenizer"): BPE (byte-level, and SentencePiece-style with
// byte_fallback), normalizers NFC, NFKC, NFD, NFKD, Replace, Prepend, Strip, Lowercase,
// Sequence; pre-tokenizers ByteLevel, Split, Metaspace, Digits, Punctuation, Whitespace,
// WhitespaceSplit, Sequence; post-processors TemplateProcessing, ByteLevel, Sequence; decoders
// ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, Sequence; added tokens with special,
// lstrip, rstrip, normalized, single_word. Anything else is refused when loading, naming it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolchat::tokenize {

struct Encoding {
  std::vector<uint32_t> ids;
  // [start, end) of each token in code points of the input text; tokens added by the
  // post-processor (add_special_tokens) have (0, 0).
  std::vector<std::pair<uint32_t, uint32_t>> offsets;
};

class TokenizerImpl;

// Immutable after loading; encode/decode are safe from several threads at once.
class Tokenizer {
 public:
  // `path` is a tokenizer.json, a folder holding one, or a .gguf model (its tokenizer.ggml.*
  // metadata, tokenizing as llama.cpp does: byte-level BPE models with the pre-tokenizers
  // qwen2, llama-bpe, deepseek-v3, gpt-4o, gpt2). Throws toolchat::Error naming the file and
  // the JSON path (or GGUF key) of what is wrong or unsupported.
  static Tokenizer load(const std::string& path);
  // From the text of a tokenizer.json; `name` is used in error messages.
  static Tokenizer from_json(std::string_view json_text, const std::string& name = "tokenizer.json");

  // Text must be UTF-8 (invalid bytes are taken as U+FFFD, like a lossy decode).
  Encoding encode(std::string_view text, bool add_special_tokens) const;
  // Message contents as plain text: inside `plain` (byte ranges of `text`, sorted, not
  // overlapping) special added tokens are not recognised (a match that overlaps a range stays
  // text), as HF tokenizers' encode_special_tokens does; non-special added tokens still are.
  // The rest of the text is split at special tokens as encode() does, and each piece between
  // them is encoded whole, so that nothing differs from encode() but the dropped matches.
  // `special_text_in_plain`, when given, tells whether a match was dropped (then encode() of
  // the whole text gives other ids). Throws Error(ValueError) on text that is not UTF-8.
  Encoding encode_with_plain(std::string_view text, const std::vector<std::pair<size_t, size_t>>& plain,
                             bool add_special_tokens, bool* special_text_in_plain = nullptr) const;
  std::vector<uint32_t> encode_ids(std::string_view text, bool add_special_tokens) const;
  std::string decode(const std::vector<uint32_t>& ids, bool skip_special_tokens) const;

  // Token text by id (added tokens included), or empty when the id is unknown.
  std::string id_to_token(uint32_t id) const;
  // -1 when the token is not in the vocabulary or among the added tokens.
  int64_t token_to_id(std::string_view token) const;
  size_t vocab_size() const;  // largest id + 1

  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

 private:
  explicit Tokenizer(std::shared_ptr<const TokenizerImpl> impl);
  std::shared_ptr<const TokenizerImpl> impl_;
};

}  // namespace toolchat::tokenize
