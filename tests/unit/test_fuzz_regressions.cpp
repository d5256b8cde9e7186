// Regressions found by the libFuzzer targets (fuzz/, issue 7). Each test states the property the
// target checks and the smallest input found to break it; the original inputs are also kept as
// seeds in fuzz/seeds/<target>/ so the smoke run replays them.
#include <gtest/gtest.h>

#include <string>

#include "dialects/dialect.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

using namespace toolchat;
using namespace toolchat::dialects;

namespace {

std::string events_text(const std::vector<Event>& ev) {
  std::string out;
  for (const Event& e : coalesce(ev)) out += json::dumps(event_json(e)) + "\n";
  return out;
}

std::string parse_in_chunks(const Dialect& d, const std::string& text, size_t chunk, const ParseOptions& o = {}) {
  EventLog log;
  auto p = d.make_parser(o);
  for (size_t i = 0; i < text.size(); i += chunk) p->feed(std::string_view(text).substr(i, chunk), log);
  p->finish(log);
  return events_text(log.events);
}

}  // namespace

// fuzz_dialect_stream: DeepSeek-V3 refused a tool name over 256 bytes only when the name's
// newline had not arrived yet, so the whole-string parse and a chunked parse disagreed.
TEST(FuzzRegressions, DeepSeekV3LongNameSameInAnyChunking) {
  const Dialect* d = find("deepseek_v3");
  ASSERT_NE(d, nullptr);
  std::string text = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>" + std::string(300, 'a') +
                     "\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
  std::string whole = parse_in_chunks(*d, text, text.size());
  for (size_t chunk : {1, 7, 64, 200}) EXPECT_EQ(parse_in_chunks(*d, text, chunk), whole) << "chunk " << chunk;
  EXPECT_NE(whole.find("tool name too long"), std::string::npos) << whole;
}

// fuzz_dialect_stream: Mistral took every name / id character a chunk held before checking the
// length bound, so an over-long name or call id was cut (and the rest shown as content) at a
// place that depended on the chunking.
TEST(FuzzRegressions, MistralLongNameAndIdSameInAnyChunking) {
  const Dialect* d = find("mistral");
  ASSERT_NE(d, nullptr);
  const std::string texts[] = {
      "[TOOL_CALLS]get_weather[CALL_ID]" + std::string(80, 'j') + "89[ARGS]{\"city\": \"Bern\"}",
      "[TOOL_CALLS]" + std::string(300, 'a') + "[ARGS]{}",
  };
  for (const std::string& text : texts) {
    std::string whole = parse_in_chunks(*d, text, text.size());
    for (size_t chunk : {1, 5, 50, 100}) EXPECT_EQ(parse_in_chunks(*d, text, chunk), whole) << "chunk " << chunk;
    EXPECT_NE(whole.find("too long"), std::string::npos) << whole;
  }
}

// fuzz_dialect_stream: MiniMax-M2 (the XML call families) judged a parameter or invoke tag whose
// end had not arrived by all the text held so far (any '<', over 256 bytes), but a complete tag
// only by its quoted name, so `name="days"` followed by echoed text with a '<' before the '>' was
// a malformed call or a parameter depending on the chunking.
TEST(FuzzRegressions, XmlTagNameSameInAnyChunking) {
  const Dialect* d = find("minimax_m2");
  ASSERT_NE(d, nullptr);
  const std::string head = "<minimax:tool_call>\n<invoke name=\"get_weather\">\n<parameter name=\"city\">Paris</parameter>\n";
  const std::string tail = "3</parameter>\n</invoke>\n</minimax:tool_call>";
  const std::string texts[] = {
      head + "<parameter name=\"days\"granite\n<tonite\n{\"name\": \"argu>" + tail,
      head + "<parameter name=\"days\" " + std::string(300, 'x') + ">" + tail,
  };
  for (const std::string& text : texts) {
    std::string whole = parse_in_chunks(*d, text, text.size());
    for (size_t chunk : {1, 3, 16, 100}) EXPECT_EQ(parse_in_chunks(*d, text, chunk), whole) << "chunk " << chunk;
    EXPECT_NE(whole.find("malformed parameter name"), std::string::npos) << whole;
  }
}

// fuzz_dialect_stream: gpt-oss gave back a bad message header together with the text after it up
// to the next special token, as far as that text had arrived, so the warning fell at a place that
// depended on the chunking. Now a complete bad header alone is given back, and an over-long one up
// to the next special token within its first 1024 bytes.
TEST(FuzzRegressions, HarmonyBadHeaderSameInAnyChunking) {
  const Dialect* d = find("gpt_oss");
  ASSERT_NE(d, nullptr);
  const std::string texts[] = {
      " to=functions.<｜tool call on<|channel|>commentary <|constrain|>json<|message|>{\"a\": 1} more text",
      "<|channel|>commentary to=functions. <|constrain|>json<|message|>{\"a\": 1}<|call|>",
      "<|channel|>commentary to=functions.f " + std::string(1500, 'x') + "<|constrain|>json<|message|>{}",
      "<|channel|>commentary to=functions.f " + std::string(500, 'x') + "<|constrain|>" + std::string(900, 'y') + "<|message|>{}",
  };
  for (const std::string& text : texts) {
    std::string whole = parse_in_chunks(*d, text, text.size());
    for (size_t chunk : {1, 2, 13, 100, 700}) EXPECT_EQ(parse_in_chunks(*d, text, chunk), whole) << "chunk " << chunk;
    EXPECT_NE(whole.find("malformed message header"), std::string::npos) << whole;
  }
}

// fuzz_dialect_stream (the driver's mutations): an over-long bad header was cut at its byte bound
// inside a multi-byte character, so the content before and after the cut each carried half of it.
TEST(FuzzRegressions, HarmonyOverLongBadHeaderCutsBetweenCharacters) {
  const Dialect* d = find("gpt_oss");
  ASSERT_NE(d, nullptr);
  for (size_t pad = 0; pad < 4; ++pad) {
    const std::string text = "<|start|>assistant to=f " + std::string(pad, 'x') + [] {
      std::string s;
      for (int i = 0; i < 1000; ++i) s += "\xC3\xA9";  // é
      return s;
    }();
    for (size_t chunk : {text.size(), size_t{1}, size_t{7}}) {
      EventLog log;
      auto p = d->make_parser({});
      for (size_t i = 0; i < text.size(); i += chunk) p->feed(std::string_view(text).substr(i, chunk), log);
      p->finish(log);
      for (const Event& e : log.events)
        if (auto* c = std::get_if<ContentDelta>(&e)) { EXPECT_EQ(utf8::find_invalid(c->text), std::string_view::npos) << pad << " " << chunk; }
    }
  }
}

// fuzz_dialect_stream: ChatGLM3 / GLM-4 gave back a named segment whose body is not a code block as
// text including its trailing whitespace when the whole body had arrived, while text read later
// drops a segment's trailing whitespace, so the result depended on when the decision fell.
TEST(FuzzRegressions, GlmTextSegmentTrailingSpaceSameInAnyChunking) {
  for (const char* name : {"chatglm3", "glm4"}) {
    const Dialect* d = find(name);
    ASSERT_NE(d, nullptr);
    for (std::string text : {std::string("runner\n\x14\n He\n```python\nos.system('x')\n` How can I help``oda  "),
                             std::string("get_weather\nnot a block \n\n  ")}) {
      std::string whole = parse_in_chunks(*d, text, text.size());
      for (size_t chunk : {1, 3, 4, 9}) EXPECT_EQ(parse_in_chunks(*d, text, chunk), whole) << name << " chunk " << chunk;
    }
  }
}

// fuzz_dialect_stream (tools given): Hermes's near-miss recovery held the family parser's warnings
// while it held text that could still be a near-miss form, and sent them only once it held no text
// at all, so a malformed_call warning fell after however much text a chunk had brought in (after
// all of it in the whole parse, after "… </tool_call> o" in one chunking), and a "\n" between a
// given-back block and the next call landed on either side of it. A held warning is now sent at
// its place in the held text. Every chunk size is compared with the whole parse.
TEST(FuzzRegressions, HermesNearMissHeldWarningSameInAnyChunking) {
  const Dialect* d = find("hermes");
  ASSERT_NE(d, nullptr);
  ParseOptions o;
  o.tools = json::parse(
      R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},)"
      R"({"type":"function","function":{"name":"f","parameters":{"type":"object"}}}])");
  o.id_seed = 7;
  const std::string malformed_twice = "<tool_call>\nnot json\n</tool_call> okl_call>\nnot json\n</tool_call> ok";
  const std::string given_back_then_call =  // the fuzzer's input, mutated bytes kept
      "<tool_call>\n{\"name\": \"get_weather\", \"argu } :,\xA9} ,}}]},[b]\xC3::{,\xA9" "b][:b\"{],\xA9"
      ", , \"\",\n\xC3:,a,\xA9\xC3[\\\xC3" "ab\n]\n,[]]b{]\xA9,]\n\\[\na]\xC3\xC3\xA9\\{\xC3 a\xC3{:a ["
      "\"}\xA9[]:\xA9{[\\,]\\b]\\}{[ ]a{\xA9\xC3\xA9" "b\xA9[\"b [,\n[aa\":a\" [b\"\\\n \\\\\"a:]\"}\xA9"
      "[}bb ],},\xA9}a]\n:b\":,[aa\\,\" \xC3" "a}b \xC3 ab\\:{\\{\xC3 \",\xC3][[aaa {b{\xA9\xC3\"\xA9\\"
      "a[\n\xA9,\xA9]\"]\xA9},\",\xA9,b\xC3\\\xC3ments\": {\"city\": \"Paris\"}}\n</tool_call>\n<tool_c"
      "all>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Bern\"}}\n</tool_call>";
  const std::string given_back_then_call_small =
      "<tool_call>\n{\"name\": \"get_weather\", \"argu\" ] x\n</tool_call>\n<tool_call>\n"
      "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Bern\"}}\n</tool_call>";
  for (const std::string& text : {malformed_twice, given_back_then_call, given_back_then_call_small}) {
    std::string whole = parse_in_chunks(*d, text, text.size(), o);
    for (size_t chunk = 1; chunk < text.size(); ++chunk)
      ASSERT_EQ(parse_in_chunks(*d, text, chunk, o), whole) << "chunk " << chunk << " of\n" << text;
    // The warning follows the text the family's parser gave back with it, not the text after.
    std::string expected_head = text == malformed_twice ? "<tool_call>\\n" : "<tool_call>\\n{\\\"name\\\": \\\"get_weather\\\", \\\"argu";
    size_t w = whole.find("\"malformed_call\"");
    ASSERT_NE(w, std::string::npos) << whole;
    EXPECT_TRUE(whole.starts_with("{\"type\": \"content\"")) << whole;
    EXPECT_LT(whole.find(expected_head), w) << whole;
    EXPECT_NE(whole.find("\"content\"", w), std::string::npos) << "text after the warning:\n" << whole;
  }
}
