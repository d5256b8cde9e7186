// The tokenizer's own behaviour that the reference comparison (tests/tokenize/compare.py) does
// not reach: errors on bad tokenizer files and regexes, and the BPE rules on tiny vocabularies.
#include <gtest/gtest.h>

#include <string>

#include "tokenize/regex.hpp"
#include "toolchat/error.hpp"
#include "toolchat/tokenize.hpp"
#include "value/unicode.hpp"

using toolchat::Error;
using toolchat::tokenize::Regex;
using toolchat::tokenize::Tokenizer;

namespace {

std::string error_of(const std::string& json) {
  try {
    Tokenizer::from_json(json, "t.json");
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

std::string tiny(const std::string& model_extra, const std::string& rest = "") {
  return R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2, "c": 3, "abc": 4},
             "merges": ["a b", "ab c"])" + model_extra + "}" + rest + "}";
}

std::vector<std::pair<size_t, size_t>> matches(const std::string& pattern, const std::string& text) {
  Regex re(pattern);
  const std::u32string cps = toolchat::uni::decode(text);
  std::vector<std::pair<size_t, size_t>> out;
  re.find_all(cps.data(), cps.size(), out);
  return out;
}

}  // namespace

TEST(Tokenize, MissingFileNamesThePath) {
  try {
    Tokenizer::load("/nonexistent/dir/tokenizer.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(e.message().find("/nonexistent/dir/tokenizer.json"), std::string::npos) << e.message();
  }
}

TEST(Tokenize, UnsupportedPartsNameTheirJsonPath) {
  EXPECT_NE(error_of(R"({"model": {"type": "Unigram", "vocab": []}})").find("t.json: model.type"),
            std::string::npos);
  EXPECT_NE(error_of(tiny("", R"(, "normalizer": {"type": "Precompiled"})")).find("normalizer.type"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a q"]}})")
                .find("model.merges[0]"),
            std::string::npos);
  EXPECT_NE(error_of("{not json").find("t.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(tiny("", R"(, "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a"},
                                  "behavior": "Isolated"})"))
                .find("pre_tokenizer.pattern.Regex"),
            std::string::npos);
}

TEST(Tokenize, BpeAppliesMergesByRank) {
  const Tokenizer t = Tokenizer::from_json(tiny(""));
  EXPECT_EQ(t.encode_ids("abc", false), (std::vector<uint32_t>{4}));
  EXPECT_EQ(t.encode_ids("abab", false), (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(t.encode_ids("ba", false), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(t.decode({4, 0}, false), "abc a");  // no decoder: tokens joined by spaces
}

TEST(Tokenize, UnknownCharactersWithoutUnkAreDropped) {
  // HF tokenizers 0.23.2 gives [2] with offsets [0, 2]: the dropped 'x' lets a and b merge,
  // and offsets add up the kept symbols' lengths.
  const Tokenizer t = Tokenizer::from_json(tiny(""));
  const auto e = t.encode("axb", false);
  EXPECT_EQ(e.ids, (std::vector<uint32_t>{2}));
  EXPECT_EQ(e.offsets[0], (std::pair<uint32_t, uint32_t>{0, 2}));
}

TEST(Tokenize, OffsetsAreCodePoints) {
  const Tokenizer t = Tokenizer::from_json(
      R"({"model": {"type": "BPE", "vocab": {"é": 0, "a": 1}, "merges": []}})");
  const auto e = t.encode("éa", false);
  ASSERT_EQ(e.ids, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(e.offsets[1], (std::pair<uint32_t, uint32_t>{1, 2}));
}

TEST(TokenizeRegex, LookaheadLeavesTheLastSpace) {
  // `\s+(?!\S)` stops one space short of a following word, so " b" stays together.
  EXPECT_EQ(matches("\\s+(?!\\S)|\\s+", "a   b"), (std::vector<std::pair<size_t, size_t>>{{1, 3}, {3, 4}}));
}

TEST(TokenizeRegex, CaseInsensitiveGroupAndClasses) {
  EXPECT_EQ(matches("(?i:'s|'t)", "it'S 'T"), (std::vector<std::pair<size_t, size_t>>{{2, 4}, {5, 7}}));
  EXPECT_EQ(matches("\\p{N}{1,3}", "12345"), (std::vector<std::pair<size_t, size_t>>{{0, 3}, {3, 5}}));
  EXPECT_EQ(matches("[^\\s\\p{L}]+", "ab!?  c"), (std::vector<std::pair<size_t, size_t>>{{2, 4}}));
}

TEST(TokenizeRegex, LongRunsDoNotRecurse) {
  const std::string text(200000, 'a');
  EXPECT_EQ(matches("\\p{L}+", text), (std::vector<std::pair<size_t, size_t>>{{0, 200000}}));
}

TEST(TokenizeRegex, BadPatternsAreErrors) {
  for (const char* p : {"(a", "a)", "[a", "\\p{Nope}", "*a", "a{3,1}", "a++"}) {
    try {
      Regex r(p);
      ADD_FAILURE() << p;
    } catch (const Error& e) {
      EXPECT_NE(e.message().find("regex"), std::string::npos) << e.message();
    }
  }
}
