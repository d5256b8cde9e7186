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

std::string parse_in_chunks(const Dialect& d, const std::string& text, size_t chunk) {
  EventLog log;
  auto p = d.make_parser(ParseOptions{});
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
        if (auto* c = std::get_if<ContentDelta>(&e)) EXPECT_EQ(utf8::find_invalid(c->text), std::string_view::npos) << pad << " " << chunk;
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
