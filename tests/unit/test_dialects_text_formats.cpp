// Properties of the labelled-text and marker+JSON dialects (react, llamafactory_default, qwen_agent,
// chatglm3, glm4, granite, phi4_mini, telechat) beyond their fixtures: arbitrary mixes of their
// markers, JSON fragments and text never crash, give the same events whole and byte by byte, and
// keep content valid UTF-8; a 1 MiB call fed 4 bytes at a time is parsed (each byte is scanned a
// bounded number of times, so this finishes quickly).
#include <gtest/gtest.h>

#include <random>

#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;
using namespace dialect_test;

namespace {

const char* const kMine[] = {"react", "llamafactory_default", "qwen_agent", "chatglm3",
                             "glm4",  "granite",              "phi4_mini",  "telechat"};

std::vector<Event> run(const Dialect& d, std::string_view text, size_t chunk, bool reasoning_open) {
  ParseOptions o;
  o.reasoning_open = reasoning_open;
  return feed_chunked(d, o, text, chunk);
}

}  // namespace

TEST(DialectTextFormats, RandomMixesAreChunkingInvariant) {
  const std::vector<std::string> pieces = {
      "Thought:", "\nAction:", " get_weather", "\nAction Input:", " {\"city\": \"Paris\"}", "\nObservation:",
      "\nFinal Answer:", "✿FUNCTION✿:", "\n✿ARGS✿:", "✿RESULT✿", "✿RETURN✿", ": ", "<|assistant|>", "\n",
      "```python\n", "tool_call(city='東京', n=3)", "\n```", "<|observation|>", "<think>", "</think>",
      "<|tool_call|>", "[{\"name\": \"f\", \"arguments\": {\"a\": [1, {\"b\": null}]}}]", "<tool_call>",
      "</tool_call>", "functools[", "<|/tool_call|>", "<response>", "</response>", "<_end>", "<|end|>",
      "{", "}", "[", "]", "\"", "\\", "Grüße 👋", " plain text ", "{\"name\": \"g\", \"arguments\": {}}",
      "<function_call> ", "Here is my thought process:", "Here is my response:",
      // Code and free-text arguments that stream (interpreter code, Qwen-Agent code blocks).
      "interpreter\n", "\n✿FUNCTION✿: code_interpreter", "```", "```py\n", "print(1)", "  ",
      // Action Inputs that stream though not an object: arrays, JSON strings, fenced values.
      "[\"a\", 2]", " \"say \\\"hi\\\"\"", "```json\n", "\n```\n", "\"\\u00e9\"", "\n{\"city\": \"Oslo\"}"};
  std::mt19937_64 rng(20261124);
  for (const char* name : kMine) {
    const Dialect* d = find(name);
    ASSERT_NE(d, nullptr) << name;
    for (int round = 0; round < 150; ++round) {
      std::string text;
      size_t n = 1 + rng() % 12;
      for (size_t i = 0; i < n; ++i) text += pieces[rng() % pieces.size()];
      bool open = rng() % 4 == 0;
      SCOPED_TRACE(std::string(name) + ": " + json::dumps(Value::string(text)));
      std::string whole = events_text(run(*d, text, text.size() + 1, open));
      auto bytes = run(*d, text, 1, open);
      EXPECT_EQ(events_text(bytes), whole);
      for (const Event& e : bytes) {
        if (auto* c = std::get_if<ContentDelta>(&e)) { EXPECT_TRUE(valid_utf8(c->text)); }
        if (auto* r = std::get_if<ReasoningDelta>(&e)) { EXPECT_TRUE(valid_utf8(r->text)); }
      }
      if (HasFailure()) return;
    }
  }
}

TEST(DialectTextFormats, LongCallsInSmallChunks) {
  const std::string big(1 << 20, 'x');
  struct Case {
    const char* dialect;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"react", "Action: f\nAction Input: {\"s\": \"" + big + "\"}"},
      {"react", "Action: f\nAction Input: " + big},
      {"llamafactory_default", "Action: f\nAction Input: {\"s\": \"" + big + "\"}"},
      {"qwen_agent", "✿FUNCTION✿: f\n✿ARGS✿: {\"s\": \"" + big + "\"}"},
      {"chatglm3", "f\n```python\ntool_call(s='" + big + "')\n```"},
      {"glm4", "f\n{\"s\": \"" + big + "\"}"},
      {"granite", "<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"s\": \"" + big + "\"}}]"},
      {"phi4_mini", "functools[{\"name\": \"f\", \"arguments\": {\"s\": \"" + big + "\"}}]"},
      {"telechat", "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"" + big + "\"}}\n</tool_call>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect);
    ParsedMessage m = collect(run(*find(c.dialect), c.text, 4, false));
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].name, "f");
    EXPECT_EQ(m.tool_calls[0].arguments.size(), big.size() + (std::string_view(c.dialect) == "react" &&
                                                                         c.text.find('{') == std::string::npos
                                                                     ? 12  // {"input":"…"}
                                                                     : 8));
  }
  // A long reply line without a leading line break (GLM families hold the first line, up to a bound).
  for (const char* d : {"chatglm3", "glm4"}) {
    ParsedMessage m = collect(run(*find(d), big, 4, false));
    EXPECT_EQ(m.content, big) << d;
  }
}
