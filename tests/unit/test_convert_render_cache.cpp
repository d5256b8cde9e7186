// Renders reused across conversations of one shape
// (src/convert/render_cache.hpp): equal to the real renders byte for byte, and
// rendered for real wherever a template could tell a text from its marker (a
// transformed text, marker text inside a text, strings the template tests for,
// trimmed texts, texts a repr would quote otherwise). The corpus-wide check labels every corpus
// template's conversations with and without reuse and compares the labels.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "chat/content_marks.hpp"
#include "chat/render_case.hpp"
#include "convert/formats.hpp"
#include "convert/labeler.hpp"
#include "convert/render_cache.hpp"
#include "convert/value_key.hpp"
#include "toolchat/jinja.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::convert;

namespace {

// A template with a cache, rendering the way the labeler does
// (chat::prepare_case).
struct Rig {
  std::string source;
  jinja::Template t;
  RenderCache cache;
  explicit Rig(const std::string& src) : source(src), t(jinja::Template::compile(src, "test")), cache(t) {}

  chat::CaseResult render(const Value& messages, size_t count, bool agp) {
    std::vector<Value> part(messages.items().begin(), messages.items().begin() + static_cast<std::ptrdiff_t>(count));
    Value ctx = Value::dict();
    ctx.dict_obj().set(Value::string("messages"), Value::list(std::move(part)));
    ctx.dict_obj().set(Value::string("add_generation_prompt"), Value::boolean(agp));
    return chat::render_prepared(t, chat::prepare_case(ctx, Value::dict()), jinja::RenderOptions{});
  }

  static std::vector<RenderKey> keys_of(const Value& messages) {
    const size_t n = messages.items().size();
    std::vector<RenderKey> keys{{n, false}};
    for (size_t k = 1; k < n; ++k) keys.push_back({k, false});
    for (size_t i = 0; i < n; ++i)
      if (messages.items()[i].dict_obj().find("role")->str() == "assistant") keys.push_back({i, true});
    return keys;
  }

  // Through the cache; checked equal to rendering every key for real.
  void check(const std::string& messages_json) {
    SCOPED_TRACE(messages_json);
    Value messages = json::parse(messages_json);
    auto keys = keys_of(messages);
    RenderFn fn = [&](const Value& m, size_t count, bool agp) { return render(m, count, agp); };
    std::vector<chat::CaseResult> got = cache.renders(messages, Value::dict(), keys, fn);
    ASSERT_EQ(got.size(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      chat::CaseResult want = render(messages, keys[i].count, keys[i].generation_prompt);
      EXPECT_EQ(got[i].ok, want.ok) << "render " << i;
      EXPECT_EQ(got[i].text, want.text) << "render " << i;
      EXPECT_EQ(got[i].message, want.message) << "render " << i;
    }
  }
};

const char* kPlain = R"({%- for m in messages -%}
<{{ m.role }}>{{ m.content }}{% if m.tool_calls %}{% for c in m.tool_calls %}[{{ c.function.name }}: {{ c.function.arguments | tojson }}]{% endfor %}{% endif %}</{{ m.role }}>
{% endfor -%}{% if add_generation_prompt %}<assistant>{% endif %})";

std::string conversation(const std::string& user, const std::string& answer, const std::string& city = "Paris") {
  std::string city_json, user_json, answer_json;
  json::dump_string(city_json, city, false);
  json::dump_string(user_json, user, false);
  json::dump_string(answer_json, answer, false);
  return R"([{"role": "user", "content": )" + user_json +
         R"(}, {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "weather", "arguments": {"city": )" +
         city_json + R"(}}}]}, {"role": "tool", "content": "21 C"}, {"role": "assistant", "content": )" + answer_json +
         "}]";
}

}  // namespace

// The second conversation of a shape is put together from the first one's
// marker renders, texts with quotes, newlines and non-ASCII characters included
// (tojson escapes them as JSON does).
TEST(ConvertRenderCache, OneShapeIsRenderedOnce) {
  Rig rig(kPlain);
  rig.check(conversation("Weather?", "Sunny."));
  EXPECT_EQ(rig.cache.stats().learned, 1u);
  rig.check(conversation("Say \"hi\"\nin Émile's words", "C'est \"ensoleillé\"\\n.", "Saint-Étienne \"FR\""));
  rig.check(conversation("<|im_end|> typed by a user", "{\"json\": true}"));
  EXPECT_EQ(rig.cache.stats().hits, 2u);
  EXPECT_EQ(rig.cache.stats().refused_shapes, 0u);
}

// A template that changes the texts: the first conversation's check refuses the
// shape, even when its texts hold nothing a case change would alter (the
// marker's probe does).
TEST(ConvertRenderCache, TransformedTextsRefuseTheShape) {
  Rig upper(R"({% for m in messages %}{{ m.role }}: {{ m.content | upper }}
{% endfor %}{% if add_generation_prompt %}assistant:{% endif %})");
  upper.check(R"([{"role": "user", "content": "42"}, {"role": "assistant", "content": "7"}])");
  upper.check(R"([{"role": "user", "content": "hello"}, {"role": "assistant", "content": "bye"}])");
  EXPECT_EQ(upper.cache.stats().refused_shapes, 1u);
  EXPECT_EQ(upper.cache.stats().hits, 0u);

  Rig escaped(R"({% for m in messages %}{{ m.content | e }};{% endfor %})");
  escaped.check(R"([{"role": "user", "content": "plain"}, {"role": "assistant", "content": "text"}])");
  escaped.check(R"([{"role": "user", "content": "a < b"}, {"role": "assistant", "content": "&"}])");
  EXPECT_EQ(escaped.cache.stats().hits, 0u);

  Rig split(R"({% for m in messages %}{{ m.content.split('\n') | join(' ') }};{% endfor %})");
  split.check(R"([{"role": "user", "content": "one"}, {"role": "assistant", "content": "two"}])");
  split.check(R"([{"role": "user", "content": "one\nline"}, {"role": "assistant", "content": "two"}])");
  EXPECT_EQ(split.cache.stats().hits, 0u);
}

// A text holding marker characters is rendered for real (it could pose as
// another text's marker).
TEST(ConvertRenderCache, MarkerTextInsideATextIsRenderedForReal) {
  Rig rig(kPlain);
  rig.check(conversation("Weather?", "Sunny."));
  rig.check(conversation("\xEE\x80\x80\nqQ<\"\xEE\x80\x90\xEE\x80\x81 posing as text 0", "Sunny."));
  rig.check(conversation("private use \xEE\x80\x85", "Sunny."));
  EXPECT_EQ(rig.cache.stats().screened, 2u);
  EXPECT_EQ(rig.cache.stats().hits, 0u);
}

// Texts shown twice, or not at all, are put back everywhere they show.
TEST(ConvertRenderCache, TextsShownTwiceOrNotAtAll) {
  Rig rig(
      R"({% for m in messages %}{% if m.role == 'user' %}[{{ m.content }}|{{ m.content }}]{% elif m.role == 'assistant' %}<{{ m.content }}>{% endif %}{% endfor %}{% if add_generation_prompt %}<{% endif %})");
  const char* a =
      R"([{"role": "system", "content": "never shown"}, {"role": "user", "content": "twice"}, {"role": "assistant", "content": "once"}])";
  const char* b =
      R"([{"role": "system", "content": "hidden too"}, {"role": "user", "content": "shown two times"}, {"role": "assistant", "content": "one time"}])";
  rig.check(a);
  rig.check(b);
  EXPECT_EQ(rig.cache.stats().hits, 1u);
}

// A template that tests contents for a string: texts holding it (or starting /
// ending with a compared one, or with stripped characters at an end) are
// rendered for real; others reuse.
TEST(ConvertRenderCache, TextsHoldingTestedStringsAreRenderedForReal) {
  Rig rig(
      R"({% for m in messages %}{% if '</think>' in m.content %}T:{{ m.content.split('</think>')[-1] }}{% elif m.content == 'ok' %}OK{% else %}{{ m.content.rstrip('.') }}{% endif %};{% endfor %})");
  rig.check(R"([{"role": "user", "content": "question"}, {"role": "assistant", "content": "answer"}])");
  rig.check(R"([{"role": "user", "content": "why"}, {"role": "assistant", "content": "because</think>so"}])");
  rig.check(R"([{"role": "user", "content": "why"}, {"role": "assistant", "content": "ok"}])");
  rig.check(R"([{"role": "user", "content": "why"}, {"role": "assistant", "content": "ends with a dot."}])");
  rig.check(R"([{"role": "user", "content": "plain"}, {"role": "assistant", "content": "words"}])");
  EXPECT_EQ(rig.cache.stats().screened, 3u);
  EXPECT_EQ(rig.cache.stats().hits, 1u);
}

// A screened conversation's renders of its first messages, which hold no screened text, come
// from those prefixes' shapes (with and without the generation prompt, which differ here); the
// renders holding the screened text are made for real.
TEST(ConvertRenderCache, ScreenedConversationsReusePrefixesWithoutTheScreenedText) {
  Rig rig(
      R"({% for m in messages %}{% if '</think>' in m.content %}T:{{ m.content.split('</think>')[-1] }}{% else %}{{ m.role }}:{{ m.content }}{% endif %};{% endfor %}{% if add_generation_prompt %}<gen>{% endif %})");
  // The screened texts hold a marker character, so they are not cut either (text_cuts.hpp).
  rig.check(R"([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}, {"role": "assistant", "content": "x\ue005</think>y"}])");
  rig.check(R"([{"role": "user", "content": "d"}, {"role": "assistant", "content": "e"}, {"role": "user", "content": "f"}, {"role": "assistant", "content": "p\ue005</think>q"}])");
  rig.check(R"([{"role": "user", "content": "g"}, {"role": "assistant", "content": "</think>h\ue005"}, {"role": "user", "content": "i"}, {"role": "assistant", "content": "j"}])");
  EXPECT_EQ(rig.cache.stats().screened, 3u);
  EXPECT_EQ(rig.cache.stats().hits, 0u);
  EXPECT_GE(rig.cache.stats().prefix_hits, 4u);
}

// Qwen3's split of an answer at '</think>' (its reasoning and its answer, stripped of newlines):
// the texts are cut where the template looks, and conversations of one cut reuse its renders,
// whatever the reasoning and the answer say; another spacing around the tags is another cut.
TEST(ConvertRenderCache, ScreenedTextsCutWhereTheTemplateLooksReuseRenders) {
  Rig rig(R"({% for m in messages %}{% if '</think>' in m.content %}{% set r = m.content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') %}<think>{{ r.strip('\n') }}</think>{{ m.content.split('</think>')[-1].lstrip('\n') }}{% else %}{{ m.role }}:{{ m.content }}{% endif %};{% endfor %}{% if add_generation_prompt %}<gen>{% endif %})");
  for (const char* answer : {R"(<think>\nfirst thought\n</think>\n\nfirst answer)", R"(<think>\nanother, longer thought\n</think>\n\n\"quoted\" answer)",
                             R"(<think>\n\u00e9t\u00e9\n</think>\n\n42)"})
    rig.check(std::string(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": ")") + answer + R"("}, {"role": "user", "content": "more"}])");
  EXPECT_EQ(rig.cache.stats().cut_learned, 1u);
  EXPECT_EQ(rig.cache.stats().cut_hits, 2u);
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>t</think>a"}, {"role": "user", "content": "more"}])");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "<think>u</think>b"}, {"role": "user", "content": "more"}])");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "\n</think>"}, {"role": "user", "content": "more"}])");
  EXPECT_EQ(rig.cache.stats().cut_learned, 3u);
  EXPECT_EQ(rig.cache.stats().cut_hits, 3u);
  EXPECT_EQ(rig.cache.stats().hits, 0u);
}

// A part the cache's screen refuses (here one equal to a compared string) is not cut: the
// conversation is rendered as before, not from the cut's shape.
TEST(ConvertRenderCache, CutPartsPassTheScreen) {
  Rig rig(R"({% for m in messages %}{% if '</think>' in m.content %}{% if m.content.split('</think>')[-1] == 'yes' %}Y{% else %}N:{{ m.content.split('</think>')[-1] }}{% endif %}{% else %}{{ m.content }}{% endif %};{% endfor %})");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a</think>no"}])");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "b</think>yes"}])");
  EXPECT_EQ(rig.cache.stats().cut_learned, 1u);
  EXPECT_EQ(rig.cache.stats().cut_hits, 0u);
}

// A compared string across a part's edge (the cut keeps the newline, the part is "abc", the
// template compares the piece after '</think>' with "\nabc"): not cut.
TEST(ConvertRenderCache, ComparedStringsAcrossACutEdgeAreNotCut) {
  Rig rig(R"({% for m in messages %}{% if '</think>' in m.content %}{% if m.content.split('</think>')[-1] == '\nabc' %}Y{% else %}N:{{ m.content.split('</think>')[-1] }}{% endif %}{% else %}{{ m.content }}{% endif %};{% endfor %})");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "r</think>\nxyz"}])");
  rig.check(R"([{"role": "user", "content": "q"}, {"role": "assistant", "content": "s</think>\nabc"}])");
  EXPECT_EQ(rig.cache.stats().cut_learned, 1u);
  EXPECT_EQ(rig.cache.stats().cut_hits, 0u);
}

// Texts with whitespace at an end meet templates that trim: rendered for real.
TEST(ConvertRenderCache, TrimmedTextsWithSpacesAreRenderedForReal) {
  Rig rig(R"({% for m in messages %}{{ m.content | trim }};{% endfor %})");
  rig.check(R"([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])");
  rig.check(R"([{"role": "user", "content": "  padded\n"}, {"role": "assistant", "content": "b"}])");
  rig.check(R"([{"role": "user", "content": "a\u00a0"}, {"role": "assistant", "content": "b"}])");
  EXPECT_EQ(rig.cache.stats().screened, 2u);
}

// Arguments shown as a Python dict (repr, which spells out the markers' characters as \ue0xx):
// put back as repr spells each text; one that repr would quote "..." (a ' and no ") is rendered
// for real, and does not teach the shape.
TEST(ConvertRenderCache, ReprShownTextsArePutBackAsReprSpellsThem) {
  Rig rig(
      R"({% for m in messages %}{{ m.content }}{% if m.tool_calls %}{{ m.tool_calls[0].function.arguments }}{% endif %};{% endfor %})");
  rig.check(conversation("Weather?", "Sunny.", "L'Aquila"));
  rig.check(conversation("Weather?", "Sunny.", "Paris"));
  rig.check(conversation("Weather?", "Sunny.", "Rome, Italy"));
  rig.check(conversation("Weather?", "Sunny.", "L'Aquila"));
  rig.check(conversation("Weather?", "Sunny.", "L'Aquila \"IT\" \\ \u00e9\u200b\nx"));
  EXPECT_EQ(rig.cache.stats().learned, 1u);
  EXPECT_EQ(rig.cache.stats().hits, 2u);
  EXPECT_EQ(rig.cache.stats().refused_shapes, 0u);
}

// A template that fails on the conversation fails the same way through the
// cache.
TEST(ConvertRenderCache, FailuresAreKeptAsFailures) {
  Rig rig(
      R"({% if messages[-1].role == 'user' and not add_generation_prompt %}{{ raise_exception('ends with a user turn') }}{% endif %}{% for m in messages %}{{ m.content }};{% endfor %})");
  rig.check(R"([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])");
  rig.check(R"([{"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}])");
  EXPECT_EQ(rig.cache.stats().hits, 1u);
}

// A conversation that does not render at all: its shape keeps the one failed
// render, and the next conversation of that shape gets the same failure
// without rendering.
TEST(ConvertRenderCache, ConversationsThatDoNotRenderAreKeptAsOneFailure) {
  Rig rig(R"({% for m in messages %}{{ m.content }}{% if m.tool_calls %}{{ m.content + m.tool_calls }}{% endif %}{% endfor %})");
  for (const char* answer : {"Sunny.", "Rainy, \"cold\"."}) {
    Value messages = json::parse(conversation("Weather?", answer));
    auto keys = Rig::keys_of(messages);
    RenderFn fn = [&](const Value& m, size_t count, bool agp) { return rig.render(m, count, agp); };
    std::vector<chat::CaseResult> got = rig.cache.renders(messages, Value::dict(), keys, fn);
    chat::CaseResult want = rig.render(messages, keys[0].count, keys[0].generation_prompt);
    ASSERT_FALSE(want.ok);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_FALSE(got[0].ok);
    EXPECT_EQ(got[0].error, want.error);
    EXPECT_EQ(got[0].message, want.message);
  }
  EXPECT_EQ(rig.cache.stats().learned, 1u);
  EXPECT_EQ(rig.cache.stats().hits, 1u);
}

// Templates that look into a text in ways no screened string names (its length, a character, a
// slice, an ordering, a comparison with another text or a computed string, a filter or method
// reading its content): two conversations of one shape whose texts take different branches,
// each taught first, must render as they do for real. Without the watch of the proof renders
// (value/text_watch.hpp) the second reuses the first one's branch.
TEST(ConvertRenderCache, TemplatesInspectingTextsRefuseTheShape) {
  // Each case: a template body inside the loop over messages (m the message), the user's text
  // of two conversations, and the assistant's text (the user's when not given).
  const Value cases = json::parse_file("tests/convert/inspecting_templates.json");
  ASSERT_GE(cases.items().size(), 32u);
  for (const Value& c : cases.items()) {
    const auto field = [&](const char* k) { return std::string(c.dict_obj().find(k)->str()); };
    SCOPED_TRACE(field("name"));
    const std::string source = "{% for m in messages %}{{ m.role }}:{{ m.content }}:" + field("body") +
                               ";{% endfor %}{% if add_generation_prompt %}<gen>{% endif %}";
    const Value* answer = c.dict_obj().find("answer");
    auto conv = [&](const std::string& user) {
      std::string user_json, answer_json;
      json::dump_string(user_json, user, false);
      json::dump_string(answer_json, answer ? std::string(answer->str()) : user, false);
      return R"([{"role": "user", "content": )" + user_json + R"(}, {"role": "assistant", "content": )" + answer_json + "}]";
    };
    for (bool a_first : {true, false}) {  // the marker takes one of the branches: both orders
      Rig rig(source);
      rig.check(conv(field(a_first ? "a" : "b")));
      rig.check(conv(field(a_first ? "b" : "a")));
      EXPECT_EQ(rig.cache.stats().hits, 0u);
    }
  }
}

// The same for the proof of a cut (texts holding a tested string) and of a prefix (the first
// messages of a conversation whose later text is screened and does not cut: a marker character).
TEST(ConvertRenderCache, InspectingCutsAndPrefixesAreRefused) {
  const std::string cut_source =
      R"({% for m in messages %}{% if '</think>' in m.content %}{% if m.content.split('</think>')[-1]|length > 12 %})"
      R"(long{% endif %}{{ m.content.split('</think>')[-1] }}{% else %}{{ m.content }}{% endif %};{% endfor %})";
  const std::string prefix_source =
      R"({% for m in messages %}{% if m.content|length > 12 %}long{% endif %}{{ m.content }};{% endfor %})"
      R"({% if add_generation_prompt %}<gen>{% endif %})";
  auto conv = [](const std::string& user, const std::string& answer) {
    std::string user_json, answer_json;
    json::dump_string(user_json, user, false);
    json::dump_string(answer_json, answer, false);
    return R"([{"role": "user", "content": )" + user_json + R"(}, {"role": "assistant", "content": )" + answer_json + "}]";
  };
  const std::string cut_a = conv("q", "t</think>a_rather_long_answer_here"), cut_b = conv("q", "t</think>hi");
  const std::string prefix_a = conv("a_rather_long_question_here", "marker \xEE\x80\x85"),
                    prefix_b = conv("hi", "marker \xEE\x80\x85");
  for (bool a_first : {true, false}) {
    Rig cut(cut_source);
    cut.check(a_first ? cut_a : cut_b);
    cut.check(a_first ? cut_b : cut_a);
    EXPECT_EQ(cut.cache.stats().cut_hits, 0u);
    Rig prefix(prefix_source);
    prefix.check(a_first ? prefix_a : prefix_b);
    prefix.check(a_first ? prefix_b : prefix_a);
    EXPECT_EQ(prefix.cache.stats().prefix_hits, 0u);
  }
}

// What the cache accounts for is not an inspection: printing, joining, tojson, a test for a
// screened string, a strip, a split at a screened string, a role compared, a length compared
// with 0, a comparison with '', a slice or format that leaves the marker whole: shapes reuse.
TEST(ConvertRenderCache, PassedThroughTextsStillReuse) {
  Rig rig(R"({% for m in messages %}{% if m.role == 'user' and m.content is string %}{{ m.content | trim }}{% else %})"
          R"({{ [m.content, 'x'] | join('|') }}{{ m.content | tojson }}{{ {'t': m.content} }}{% endif %})"
          R"({% if m.content.startswith('/') %}cmd{% endif %}{% if '<br>' in m.content %}{{ m.content.split('<br>')|length }}{% endif %})"
          R"({{ m.content.rstrip('.') ~ '!' }}{{ m.content|default('') }}{{ messages|map(attribute='content')|list|length }})"
          R"({% if m.content|trim|length > 0 and m.content != '' %}{{ ('%s.' % m.content)[:-1] }}{{ '{}'.format(m.content) }}{% endif %};)"
          R"({% endfor %}{% if add_generation_prompt %}<gen>{% endif %})");
  rig.check(R"([{"role": "user", "content": "question"}, {"role": "assistant", "content": "answer"}])");
  rig.check(R"([{"role": "user", "content": "why so"}, {"role": "assistant", "content": "because"}])");
  EXPECT_EQ(rig.cache.stats().hits, 1u);
}

TEST(ConvertRenderCache, TestedLiteralsAreReadFromTheTree) {
  TestedLiterals l = tested_literals(jinja::Template::compile(
      R"(text 'not in a tag' in {# 'a comment' in c #}{% if '</think>' in c and c.startswith("<tool_response>") %})"
      R"({{ c.rstrip('\n') }}{% endif %}{{ r == 'user' }}{{ 'x' + c }}{{ c | replace('<|im_end|>', '') | trim('*') }})"
      R"({% if 'assistant' != r and r not in ['tool', 'ipython'] %}{% endif %})"
      R"({{ messages | selectattr('role', 'equalto', 'system') | list }}{{ c.split(('a', 'b')) }}{{ '' in c }})"));
  EXPECT_EQ(l.contained, (std::vector<std::string>{"</think>", "<tool_response>", "<|im_end|>", "a", "b"}));
  EXPECT_EQ(l.compared, (std::vector<std::string>{"assistant", "ipython", "system", "tool", "user"}));
  EXPECT_EQ(l.end_chars, "\n*");
}

// The names a template looks up: variables, loop targets, macros and globals, not attribute
// names, filters, keywords, strings or words of its text.
TEST(ConvertRenderCache, TemplateUsesListsTheNamesLookedUp) {
  jinja::TemplateUses u = jinja::Template::compile(
      R"(tools {# documents #}{% macro show(x, sep='-') %}{{ x.content ~ sep }}{% endmacro %})"
      R"({% set ns = namespace(n=0) %}{% for m in messages if m.role != 'x' %}{{ show(m) }}{% set ns.n = 1 %}{% endfor %})"
      R"({{ 'bos_token' }}{{ raise_exception('no') if strict is defined }}{{ x | default(eos_token) }})").uses();
  EXPECT_EQ(u.names, (std::vector<std::string>{"eos_token", "m", "messages", "namespace", "ns", "raise_exception",
                                               "sep", "show", "strict", "x"}));
}

// Every corpus template, natively and with polyfills, on the corpus
// conversations varied five ways (plain, texts with tested strings, padded
// texts, quotes, plain again): the labels with reuse equal the labels without
// it, and so do the places of the texts (convert --tokenizer), and reuse happens.
TEST(ConvertRenderCache, CorpusLabelsEqualWithAndWithoutReuse) {
  std::vector<Value> contexts;
  for (const auto& e : fs::directory_iterator("tests/corpus/contexts")) {
    Value ctx = json::parse_file(e.path().string());
    const Value* cont = ctx.dict_obj().find("continue_final_message");
    if (!(cont && cont->is_bool() && cont->as_bool())) contexts.push_back(ctx);
  }
  auto varied = [](const Value& ctx, int v) {
    Value c = json::parse(json::dumps(ctx));
    Value row = Value::dict();
    for (const auto& [k, x] : c.dict_obj().entries)
      if (k.str() == "messages" || k.str() == "tools" || k.str() == "documents") row.dict_obj().set(k, x);
    static const char* tails[] = {" (#1)", " (#2) with </think> and <tool_call>", " (#3) padded \n",
                                  " (#4) \"quoted\" it's", " (#5)"};
    for (auto& m : row.dict_obj().find("messages")->list_obj().items) {
      const Value* content = m.dict_obj().find("content");
      if (content && content->is_str() && !content->str().empty())
        m.dict_obj().set(Value::string("content"), Value::string(std::string(content->str()) + tails[v]));
    }
    return read_openai(row);
  };
  size_t labeled = 0, reused = 0;
  for (const auto& e : fs::directory_iterator("tests/corpus/templates")) {
    if (e.path().extension() != ".jinja") continue;
    const std::string name = e.path().stem().string();
    for (bool polyfill : {false, true}) {
      LabelOptions with;
      with.locate_texts = true;  // where the texts stand (convert --tokenizer): from the markers with reuse
      std::string tokens = "tests/corpus/templates/" + name + ".tokens.json";
      if (fs::exists(tokens)) with.special_tokens = json::parse_file(tokens);
      if (polyfill) with.polyfills = chat::PolyfillOptions{};
      LabelOptions without = with;
      without.reuse_renders = false;
      Labeler a(e.path().string(), with), b(e.path().string(), without);
      for (const Value& ctx : contexts)
        for (int v = 0; v < 5; ++v) {
          SCOPED_TRACE(name + (polyfill ? " (polyfill)" : "") + " variant " + std::to_string(v));
          Sample s = varied(ctx, v);
          std::string ea, eb;
          Labeled la, lb;
          try {
            la = a.label(s);
          } catch (const Error& x) {
            ea = x.message();
          }
          try {
            lb = b.label(s);
          } catch (const Error& x) {
            eb = x.message();
          }
          ASSERT_EQ(ea, eb);
          ASSERT_EQ(la.rows.size(), lb.rows.size());
          for (size_t r = 0; r < la.rows.size(); ++r) {
            ASSERT_EQ(row_json(la.rows[r]), row_json(lb.rows[r]));
            EXPECT_EQ(la.rows[r].plain, lb.rows[r].plain) << "row " << r;
            EXPECT_EQ(la.rows[r].texts_not_found, lb.rows[r].texts_not_found) << "row " << r;
          }
          ASSERT_EQ(la.turns.size(), lb.turns.size());
          for (size_t t = 0; t < la.turns.size(); ++t) {
            EXPECT_EQ(la.turns[t].served, lb.turns[t].served);
            EXPECT_EQ(la.turns[t].reason, lb.turns[t].reason);
          }
          ++labeled;
          reused += la.reused_renders;
          EXPECT_FALSE(lb.reused_renders);
        }
    }
  }
  // Reuse is what the test is about: a conversation of a known shape is put
  // together.
  EXPECT_GT(reused * 4, labeled) << reused << " of " << labeled;
}

// The cache keys a conversation by walking its messages as mark_message_texts marks them,
// without making the marked copy: the walk must see exactly that copy, and number the texts
// the same way, whatever order a message's fields come in.
TEST(ConvertRenderCache, MarkedWalkSeesTheMarkedCopy) {
  const char* rows[] = {
      R"([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello", "reasoning_content": "think"}])",
      R"([{"reasoning_content": "first", "role": "assistant", "tool_calls": [{"function": {"arguments": {"a": ["x", 1, {"b": "y"}], "c": ""}, "name": "f"}, "type": "function"}, {"function": {"name": "g"}}], "content": "last"}])",
      R"([{"role": "user", "content": [{"type": "text", "text": "part one"}, {"type": "image"}, {"text": ""}, {"text": 3}, {"type": "text", "text": "part two"}]}, "not a dict", {"content": null, "tool_calls": "no list"}])",
      R"([{"role": "assistant", "tool_calls": [{"function": {"arguments": "{\"q\": 1}", "name": "s"}}], "content": ""}, {"role": "tool", "content": "out"}])",
  };
  for (const char* r : rows) {
    Value messages = json::parse(r);
    chat::MarkedMessages marked = chat::mark_message_texts(messages, true);
    std::string a, b;
    ValueKey made(a, ValueKey::Strings::text);
    ASSERT_TRUE(made.add(marked.messages));
    ValueKey walked(b, ValueKey::Strings::text);
    std::vector<std::string_view> texts;
    ASSERT_TRUE(marked_messages_key(messages, walked, texts));
    EXPECT_EQ(made.view(), walked.view()) << r;
    EXPECT_EQ(marked.texts, std::vector<std::string>(texts.begin(), texts.end())) << r;
  }
}
