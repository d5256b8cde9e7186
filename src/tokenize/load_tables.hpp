// Reading a tokenizer.json quickly: everything but the BPE tables becomes a value tree as
// before, while model.vocab and model.merges (a million strings in Gemma 3's file) are read
// from the text straight into the model (tokenize/json_skim.hpp).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "tokenize/bpe.hpp"
#include "toolchat/value.hpp"

namespace toolchat::tokenize {

// Where the vocabulary object and the merges list of the document's model are (0, 0: not
// there, or not an object / a list, which the value tree then shows).
struct TableSpans {
  size_t vocab_begin = 0, vocab_end = 0, merges_begin = 0, merges_end = 0;
  size_t vocab_count = 0, merges_count = 0;  // entries (the tables are sized once)
};

// Reports a fault at a JSON path ("model.merges[3]") and throws; never returns.
using LoadFail = std::function<void(const std::string& path, const std::string& what)>;

// The document as values, with the vocabulary and merges found in `spans` left empty ({} and
// []). Invalid JSON is a ValueError "NAME: not valid JSON: <json::parse's message>".
Value read_outline(std::string_view text, const std::string& name, TableSpans& spans);

// model.vocab ({token: id}) into m.vocab and m.id_to_token (tokens mapped to raw bytes when
// m.byte_level).
void read_vocab(std::string_view text, const TableSpans& spans, Bpe& m, const LoadFail& fail);
// model.merges ("left right" or [left, right], in rank order) into m's merge table.
void read_merges(std::string_view text, const TableSpans& spans, Bpe& m, const LoadFail& fail);

}  // namespace toolchat::tokenize
