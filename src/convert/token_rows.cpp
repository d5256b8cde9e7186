// Token ids and labels of a labeled row (rules in token_rows.hpp).
#include "convert/token_rows.hpp"

#include <algorithm>

namespace toolchat::convert {

bool TokenRow::trained() const {
  return std::any_of(labels.begin(), labels.end(), [](int64_t l) { return l != -100; });
}

TokenRow tokenize_row(const tokenize::Tokenizer& tok, const Row& row, size_t max_length) {
  TokenRow out;
  bool special_in_texts = false;
  tokenize::Encoding e = tok.encode_with_plain(row.text, row.plain, false, &special_in_texts);
  if (special_in_texts) out.injection = tok.encode_ids(row.text, false) != e.ids;
  // trained[c]: code points before c that are in a train span (offsets are in code points).
  std::vector<uint32_t> trained{0};
  trained.reserve(row.text.size() + 1);
  size_t span = 0;
  for (size_t i = 0; i < row.text.size(); ++i) {
    if ((static_cast<unsigned char>(row.text[i]) & 0xC0) == 0x80) continue;
    while (span < row.spans.size() && row.spans[span].end <= i) ++span;
    const bool t = span < row.spans.size() && row.spans[span].begin <= i && row.spans[span].train;
    trained.push_back(trained.back() + t);
  }
  out.ids = std::move(e.ids);
  out.labels.reserve(out.ids.size());
  const uint32_t n_cp = static_cast<uint32_t>(trained.size() - 1);
  for (size_t k = 0; k < out.ids.size(); ++k) {
    const uint32_t a = std::min(e.offsets[k].first, n_cp), b = std::min(e.offsets[k].second, n_cp);
    const uint32_t in = trained[b] - trained[a];
    out.labels.push_back(in > 0 ? static_cast<int64_t>(out.ids[k]) : -100);
    out.straddling += in > 0 && in < b - a;
  }
  if (max_length > 0 && out.ids.size() > max_length) {
    out.cut_tokens = out.ids.size() - max_length;
    out.ids.resize(max_length);
    out.labels.resize(max_length);
  }
  return out;
}

void append_token_row_json(std::string& out, const Row& row, const TokenRow& t) {
  append_row_json(out, row);
  out.pop_back();  // the closing brace
  out += ", \"input_ids\": [";
  for (size_t i = 0; i < t.ids.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(t.ids[i]);
  }
  out += "], \"labels\": [";
  for (size_t i = 0; i < t.labels.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(t.labels[i]);
  }
  out += "]}";
}

}  // namespace toolchat::convert
