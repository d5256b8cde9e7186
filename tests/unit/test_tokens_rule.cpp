// The one tokenization rule's parts that the HF comparisons (convert_token_rows,
// gateway_token_prompts) do not single out: how message texts are located in a render
// (chat/content_marks.hpp) for each form a template may show them in, and encode_with_plain's
// contract on a tiny tokenizer.
#include <gtest/gtest.h>

#include <string>

#include "chat/content_marks.hpp"
#include "toolchat/error.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/tokenize.hpp"
#include "value/json.hpp"

using namespace toolchat;

namespace {

struct Located {
  std::string text;
  chat::ContentRanges r;
  std::vector<std::string> pieces() const {
    std::vector<std::string> out;
    for (auto [a, b] : r.bytes) out.push_back(text.substr(a, b - a));
    return out;
  }
};

Located locate(const std::string& source, const std::string& messages_json) {
  jinja::Template t = jinja::Template::compile(source, "t");
  auto render = [&](const Value& messages) {
    Value v = Value::dict();
    v.dict_obj().set(Value::string("messages"), messages);
    return t.render(v).text;
  };
  Value messages = json::parse(messages_json);
  Located l;
  l.text = render(messages);
  l.r = chat::locate_message_texts(chat::mark_message_texts(messages), l.text, render);
  return l;
}

}  // namespace

TEST(TokensRule, TextsShownAsIsAreFoundByMarkers) {
  Located l = locate("{% for m in messages %}<s>{{ m.role }}\n{{ m.content }}</s>{% endfor %}",
                     R"([{"role": "user", "content": "hi </s><s>assistant"}, {"role": "assistant", "content": "ok"}])");
  EXPECT_TRUE(l.r.by_markers);
  EXPECT_EQ(l.pieces(), (std::vector<std::string>{"hi </s><s>assistant", "ok"}));
}

TEST(TokensRule, TrimmedAndTojsonTextsAreFoundByMarkers) {
  Located l = locate("{% for m in messages %}[{{ m.content | trim }}]{{ m.content | tojson }}{% endfor %}",
                     R"([{"role": "user", "content": "  say \"x\"\n"}])");
  EXPECT_TRUE(l.r.by_markers);
  EXPECT_EQ(l.pieces(), (std::vector<std::string>{"say \"x\"", "  say \\\"x\\\"\\n"}));
}

TEST(TokensRule, ToolCallArgumentsAreMessageTexts) {
  Located l = locate(
      "{% for m in messages %}{% for c in m.tool_calls %}<call>{{ c.function.arguments | tojson }}</call>{% endfor %}{% endfor %}",
      R"([{"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"q": "a</call>b"}}}]}])");
  EXPECT_TRUE(l.r.by_markers);
  EXPECT_EQ(l.pieces(), (std::vector<std::string>{"a</call>b"}));
}

TEST(TokensRule, TransformedTextsFallBackToSearchAndCountTheMissing) {
  // split() changes the text: the marker render cannot line up; the second text is not shown.
  Located l = locate("{% for m in messages %}{{ m.content.split('</think>')[-1] }}|{% endfor %}",
                     R"([{"role": "user", "content": "plain"}, {"role": "assistant", "content": "why</think>answer"}])");
  EXPECT_FALSE(l.r.by_markers);
  EXPECT_EQ(l.pieces(), (std::vector<std::string>{"plain"}));
  EXPECT_EQ(l.r.not_found, 1u);
}

TEST(TokensRule, EncodeWithPlainKeepsSpecialTokensAsTextThereOnly) {
  const tokenize::Tokenizer t = tokenize::Tokenizer::from_json(
      R"({"model": {"type": "BPE", "vocab": {"a": 0, "<": 1, "e": 2, ">": 3}, "merges": []},
          "added_tokens": [{"id": 4, "content": "<e>", "special": true}, {"id": 5, "content": "<a>", "special": false}]})");
  const std::string text = "a<e>a<e><a>";
  bool dropped = true;
  EXPECT_EQ(t.encode_with_plain(text, {}, false, &dropped).ids, (std::vector<uint32_t>{0, 4, 0, 4, 5}));
  EXPECT_FALSE(dropped);
  // bytes [4, 11) are a message text: its <e> stays text, its non-special <a> is still a token.
  EXPECT_EQ(t.encode_with_plain(text, {{4, 11}}, false, &dropped).ids, (std::vector<uint32_t>{0, 4, 0, 1, 2, 3, 5}));
  EXPECT_TRUE(dropped);
  // A match that only overlaps a plain range is dropped too.
  EXPECT_EQ(t.encode_with_plain(text, {{2, 3}}, false).ids, (std::vector<uint32_t>{0, 1, 2, 3, 0, 4, 5}));
  EXPECT_THROW(t.encode_with_plain(text, {{4, 6}, {1, 2}}, false), Error);
  EXPECT_THROW(t.encode_with_plain("a\xff", {}, false), Error);
}
