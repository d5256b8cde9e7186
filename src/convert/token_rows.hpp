// A labeled row as tokens: input_ids by the one tokenization rule (template text with special
// tokens, message texts as plain text) and labels from the row's train spans. Rules (README
// "Token rows"): a token is trained (label = its id) when any character of it is in a train span,
// else -100; a token with characters on both sides is counted as straddling. With max_length N,
// a longer row keeps its first N tokens; a row left with no trained token is dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toolchat/convert.hpp"
#include "toolchat/tokenize.hpp"

namespace toolchat::convert {

struct TokenRow {
  std::vector<uint32_t> ids;
  std::vector<int64_t> labels;
  size_t straddling = 0;   // tokens over a train / no-train boundary
  size_t cut_tokens = 0;   // tokens dropped by max_length
  bool injection = false;  // tokenizing the whole text (as transformers does) gives other ids
  bool trained() const;    // some label is not -100
};

TokenRow tokenize_row(const tokenize::Tokenizer& tok, const Row& row, size_t max_length);

// row_json(row) with "input_ids" and "labels" added, appended to `out`.
void append_token_row_json(std::string& out, const Row& row, const TokenRow& t);

}  // namespace toolchat::convert
