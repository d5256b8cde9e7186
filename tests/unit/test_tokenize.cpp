// The tokenizer's own behaviour that the reference comparison (tests/tokenize/compare.py) does
// not reach: errors on bad tokenizer files and regexes, and the BPE rules on tiny vocabularies.
// TokenizeLoad: the vocabulary and merges are read from the text (load_tables.cpp,
// json_skim.cpp) rather than through json::parse; these check that the fast reader means what
// JSON means (escapes, repeated keys, key order, -0) and refuses what json::parse refuses, with
// the same messages and JSON paths.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "tokenize/regex.hpp"
#include "toolchat/error.hpp"
#include "toolchat/tokenize.hpp"
#include "value/json.hpp"
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

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

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


TEST(TokenizeLoad, TablesMeanWhatTheirJsonMeans) {
  // Escaped keys (\u0061 is "a", a surrogate pair is one character), -0 as an id, whitespace
  // everywhere, merges before the vocabulary, both merge forms, and a repeated key whose last
  // value counts ("b" is 1, not 7).
  const Tokenizer t = Tokenizer::from_json(R"( { "model" : { "type" : "BPE" ,
      "merges" : [ "a b" , [ "ab" , "\ud83d\ude00" ] ] ,
      "vocab" : { "\u0061" : -0 , "b" : 7 , "ab" : 2 , "\ud83d\ude00" : 3 , "ab😀" : 4 , "b" : 1 } } } )");
  EXPECT_EQ(t.encode_ids("ab😀", false), (std::vector<uint32_t>{4}));
  EXPECT_EQ(t.encode_ids("ba", false), (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(t.id_to_token(1), "b");
  EXPECT_EQ(t.id_to_token(7), "");  // the repeated key's first id has no text left
}

TEST(TokenizeLoad, ARepeatedModelKeyTakesTheLastModel) {
  const Tokenizer t = Tokenizer::from_json(
      R"({"model": {"type": "BPE", "vocab": {"x": 0}, "merges": []},
          "model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}})");
  EXPECT_EQ(t.encode_ids("ab", false), (std::vector<uint32_t>{2}));
}

TEST(TokenizeLoad, TableFaultsNameTheirJsonPath) {
  const std::string head = R"({"model": {"type": "BPE", )";
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 1.5}, "merges": []}})"),
                  "t.json: model.vocab[\"a\"]: must be a token id"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": -1}, "merges": []}})"), "model.vocab[\"a\"]"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": "0"}, "merges": []}})"), "model.vocab[\"a\"]"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 99999999999}, "merges": []}})"), "model.vocab[\"a\"]"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 20000000}, "merges": []}})"), "token id too large"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": ["a"], "merges": []}})"), "t.json: model.vocab: must be an object"));
  EXPECT_TRUE(has(error_of(head + R"("merges": []}})"), "t.json: model.vocab: must be an object"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0}, "merges": {}}})"), "t.json: model.merges: must be a list"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0, "aa": 1}, "merges": ["a a", ["a"]]}})"),
                  "t.json: model.merges[1]: a merge must be"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0}, "merges": ["aa"]}})"), "model.merges[0]: a merge must be"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0}, "merges": ["a a"]}})"),
                  "model.merges[0]: the merged token is not in the vocabulary"));
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0}, "merges": [["a", "q"]]}})"),
                  "model.merges[0]: \"q\" is not in the vocabulary"));
  // Merges are read in batches: the first faulty one is still the one named.
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0}, "merges": ["a q", "ab"]}})"),
                  "model.merges[0]: \"q\" is not in the vocabulary"));
  std::string many;
  for (int i = 0; i < 100; ++i) many += "\"a a\", ";
  EXPECT_TRUE(has(error_of(head + R"("vocab": {"a": 0, "aa": 1}, "merges": [)" + many + R"("a"]}})"),
                  "model.merges[100]: a merge must be"));
}

TEST(TokenizeLoad, BadJsonInsideTheTablesIsJsonParsesError) {
  const std::string head = R"({"model": {"type": "BPE", )";
  for (const std::string bad : {R"("vocab": {"a": 0,}, "merges": []}})", R"("vocab": {"a": 01}, "merges": []}})",
                                R"("vocab": {"a\x": 0}, "merges": []}})", R"("vocab": {"a": 0}, "merges": ["a	b"]}})",
                                R"("vocab": {"a": 0}, "merges": ["a b"})", R"("vocab": {"a": 0}, "merges": [] }} x)"}) {
    const std::string e = error_of(head + bad);
    EXPECT_TRUE(has(e, "t.json: not valid JSON: ")) << bad << " -> " << e;
    EXPECT_TRUE(has(e, " (char ")) << e;  // json::parse's message, with its position
  }
  EXPECT_TRUE(has(error_of(head + "\"vocab\": {\"\xFF\": 0}, \"merges\": []}}"), "invalid UTF-8"));
  std::string deep = head + R"("vocab": {"a": )" + std::string(600, '[') + std::string(600, ']') + R"(}, "merges": []}})";
  EXPECT_TRUE(has(error_of(deep), "nesting too deep")) << error_of(deep);
}

// Random edits of a small tokenizer.json: the loader calls a text invalid JSON exactly when
// json::parse does (the fast reader must accept and refuse the same texts).
TEST(TokenizeLoad, AcceptsExactlyTheJsonThatJsonParseAccepts) {
  const std::string base =
      R"({"normalizer": null, "model": {"type": "BPE", "vocab": {"a": 0, "b\n": 1, "ab\n": 2, "\u00e9": 3},)"
      R"( "merges": ["a b\n", ["a", "b\n"]], "unk_token": null}, "added_tokens": [{"id": 3, "content": "\u00e9"}]})";
  const std::string alphabet = "{}[]\",:\\ 0-1.eE+natrufslNIy\x01";
  std::mt19937 rng(12345);
  int valid = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string s = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % s.size();
      const char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0: s[at] = c; break;
        case 1: s.insert(s.begin() + static_cast<long>(at), c); break;
        default: s.erase(at, 1); break;
      }
    }
    bool json_ok = true;
    try {
      toolchat::json::parse(s);
    } catch (const Error&) {
      json_ok = false;
    }
    valid += json_ok;
    const std::string e = error_of(s);
    EXPECT_EQ(has(e, "not valid JSON"), !json_ok) << s << "\n-> " << e;
  }
  EXPECT_GT(valid, 100);  // the edits reach valid texts too, not only broken ones
}
