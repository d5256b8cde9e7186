// A small backtracking regex engine over code points for the Split patterns of tokenizer.json
// (the Oniguruma syntax Hugging Face tokenizers accepts, in the subset tokenizers use):
// alternation, groups (?:..) (?i:..), lookahead (?=..) (?!..), quantifiers ? * + {m,n} and their
// lazy forms, classes [...] with ranges and \p{..} \s \w \d (and negations), '.', ^ $ \A \z.
// Leftmost match with ordered alternation, like Oniguruma. A repeated single-character atom
// counts forward without recursion, so `\p{L}+` over 100 KB of letters stays linear.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace toolchat::tokenize {

class Regex {
 public:
  // Throws Error(ValueError) naming the pattern and the code point offset of the problem.
  explicit Regex(std::string_view pattern);

  // First match in text[from, n): true with [ms, me) set (code point offsets).
  bool search(const char32_t* text, size_t n, size_t from, size_t& ms, size_t& me) const;

  // Oniguruma's find_iter: successive matches, an empty match right after the previous match
  // skipped. Appends (start, end) pairs.
  void find_all(const char32_t* text, size_t n, std::vector<std::pair<size_t, size_t>>& out) const;

  const std::string& pattern() const { return pattern_; }

  struct CharSet {
    std::vector<std::pair<char32_t, char32_t>> ranges;
    unsigned mask = 0;                 // any of these classes matches
    std::vector<unsigned> neg_masks;   // \S \W \D \P{..}: a class the char is not in
    bool negated = false;
    bool any_but_newline = false;      // '.'
    uint64_t ascii[2] = {0, 0};        // precomputed answer for code points < 128
    bool matches_slow(char32_t c) const;
    bool matches(char32_t c) const {
      return c < 128 ? (ascii[c >> 6] >> (c & 63)) & 1 : matches_slow(c);
    }
    void finish();
  };
  enum class Kind : uint8_t { Set, Group, Repeat, Look, Bol, Eol, BeginText, EndText };
  struct Node {
    Kind kind = Kind::Set;
    uint32_t set = 0;                      // Set
    std::vector<std::vector<uint32_t>> alts;  // Group, Look; Repeat: alts[0] is the body
    uint32_t min = 0, max = 0;             // Repeat (max UINT32_MAX = unbounded)
    bool greedy = true;
    bool negative = false;                 // Look
    bool single = false;                   // Repeat of one Set node: counted, not recursed
    // Group/Look: per alternative, the sets its first character must be in (empty: unknown);
    // an alternative whose first character is in none of them is not tried.
    std::vector<std::vector<uint32_t>> first;
  };

 private:
  friend class RegexParser;
  friend class RegexMatcher;
  std::string pattern_;
  std::vector<CharSet> sets_;
  std::vector<Node> nodes_;
  std::vector<std::vector<uint32_t>> top_;  // top-level alternatives
  std::vector<std::vector<uint32_t>> top_first_;  // as Node::first, for top_
  std::vector<uint32_t> search_first_;  // union of top_first_ when every one is known
  std::vector<uint32_t> first_sets(const std::vector<uint32_t>& alt) const;
  void compute_first();
};

}  // namespace toolchat::tokenize
