// Issue 12 (parts 5 and 6) across every family: values typed only where the schema says so, invalid UTF-8
// repaired before any family sees it, and calls to functions the request does not offer kept as
// content with an unknown_tool warning.
#include <gtest/gtest.h>

#include <map>

#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "chat/template_source.hpp"
#include "dialects/infer.hpp"
#include "dialects/output_guard.hpp"
#include "dialects/template_probe.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;
using dialect_test::events_text;
using dialect_test::feed_cut;
using dialect_test::valid_utf8;

namespace {

std::string repair_whole(std::string_view s) {
  Utf8Repair r;
  return std::string(r.clean(s, true));
}

std::string repair_bytewise(std::string_view s) {
  Utf8Repair r;
  std::string out;
  for (char c : s) out += r.clean(std::string_view(&c, 1), false);
  out += r.clean({}, true);
  return out;
}

Value tools_of(const char* json) { return json::parse(json); }

}  // namespace

// Expected values: Debian's /usr/bin/python3, bytes.decode('utf-8', 'replace').
TEST(OutputGuard, Utf8RepairMatchesPythonReplace) {
  const std::pair<std::string, std::string> cases[] = {
      {"a\xff" "b", "a\xEF\xBF\xBD" "b"},
      {"\xe2\x82", "\xEF\xBF\xBD"},
      {"\xe2\x82x", "\xEF\xBF\xBDx"},
      {"\xf0\x9f\x98", "\xEF\xBF\xBD"},
      {"\xed\xa0\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"\xc0\xaf", "\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"\xf4\x90\x80\x80", "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"},
      {"ok \xe2\x82\xac", "ok \xe2\x82\xac"},
      {"\xf0\x9f\x98\x80\x80", "\xf0\x9f\x98\x80\xEF\xBF\xBD"},
  };
  for (const auto& [in, want] : cases) {
    EXPECT_EQ(repair_whole(in), want);
    EXPECT_EQ(repair_bytewise(in), want);
  }
}

// Every family, every chunking: no event carries invalid UTF-8 and every call's arguments are JSON,
// whatever bytes the model wrote (in prose, in reasoning, inside a call's string value).
TEST(OutputGuard, NoFamilyEmitsInvalidUtf8) {
  const std::string bad = "x\xff\xe2\x82 \xed\xa0\x80y\xf0\x9f";
  const std::string inputs[] = {
      "plain " + bad,
      "<think>" + bad + "</think>" + bad,
      "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"s\": \"" + bad + "\"}}\n</tool_call>",
      "<tool_call>\n<function=f>\n<parameter=s>\n" + bad + "\n</parameter>\n</function>\n</tool_call>",
      "[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"s\": \"" + bad + "\"}}]",
      "{\"name\": \"f\", \"parameters\": {\"s\": \"" + bad + "\"}}",
  };
  ParseOptions o;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"s":{"type":"string"}}}}}])");
  for (const Dialect* d : all())
    for (const std::string& in : inputs) {
      SCOPED_TRACE(std::string(d->name) + ": " + in);
      std::vector<size_t> bytes;
      for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
      auto whole = feed_cut(*d, o, in, {});
      auto split = feed_cut(*d, o, in, bytes);
      EXPECT_EQ(events_text(whole), events_text(split));
      ParsedMessage m = collect(whole);
      EXPECT_TRUE(valid_utf8(m.content));
      EXPECT_TRUE(valid_utf8(m.reasoning_content));
      for (const ParsedCall& c : m.tool_calls) {
        EXPECT_TRUE(valid_utf8(c.name));
        EXPECT_TRUE(valid_utf8(c.arguments));
        bool truncated = false;
        for (const Warning& w : m.warnings) truncated |= w.kind == WarningKind::TruncatedCall;
        if (!truncated) { EXPECT_NO_THROW(json::parse(c.arguments)) << c.arguments; }
      }
      for (const Event& e : split)
        if (auto* t = std::get_if<ContentDelta>(&e)) {
          EXPECT_TRUE(valid_utf8(t->text));
        }
    }
}

TEST(OutputGuard, UnknownToolIsContentNotACall) {
  ParseOptions o;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}])");
  // hermes: an unknown call between two known ones; the known ones keep indexes 0 and 1.
  std::string in =
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"A\"}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"rm\", \"arguments\": {\"path\": \"/\"}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"B\"}}\n</tool_call>";
  ParsedMessage m = parse_all(*find("hermes"), in, o);
  ASSERT_EQ(m.tool_calls.size(), 2u);
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"city":"A"})");
  EXPECT_EQ(m.tool_calls[1].arguments, R"({"city":"B"})");
  EXPECT_NE(m.content.find("\"rm\""), std::string::npos) << m.content;
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0].kind, WarningKind::UnknownTool);
  auto ev = feed_cut(*find("hermes"), o, in, {});
  for (const Event& e : ev)
    if (auto* b = std::get_if<ToolCallBegin>(&e)) {
      EXPECT_NE(b->name, "rm");
    }

  // XML families: the same (the call is announced by name before its values arrive).
  ParsedMessage x = parse_all(*find("qwen3_coder"), "<tool_call>\n<function=rm>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>", o);
  EXPECT_TRUE(x.tool_calls.empty());
  EXPECT_EQ(x.content, "<tool_call>\n<function=rm>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>");

  // The text of each unknown call is kept in place, and a known call cut short after one is still
  // the one the whole result takes out (its cut_call index follows the renumbering).
  std::string cut =
      "A <tool_call>\n{\"name\": \"rm\", \"arguments\": {}}\n</tool_call> B "
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Os";
  ParsedMessage c = parse_all(*find("hermes"), cut, o);
  EXPECT_TRUE(c.tool_calls.empty());
  EXPECT_EQ(c.content, cut);
  for (size_t chunk : {1u, 3u, 7u})
    EXPECT_EQ(events_text(dialect_test::feed_chunked(*find("hermes"), o, cut, chunk)), events_text(feed_cut(*find("hermes"), o, cut, {})));

  // Without tools nothing is unknown.
  ParsedMessage free = parse_all(*find("hermes"), in, {});
  EXPECT_EQ(free.tool_calls.size(), 3u);
  EXPECT_TRUE(free.warnings.empty());
}

// Issue 12 part 5: without a schema a parameter value is text in every parameter family (vLLM returns the
// string when the parameter is not in the tool's schema).
TEST(OutputGuard, ParameterValuesWithoutSchemaStayText) {
  struct In { const char* dialect; std::string text; };
  const In ins[] = {
      {"qwen3_coder", "<tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=b>\ntrue\n</parameter>\n<parameter=l>\n[1]\n</parameter>\n</function>\n</tool_call>"},
      {"seed_oss", "<seed:tool_call>\n<function=f>\n<parameter=n>\n3\n</parameter>\n<parameter=b>\ntrue\n</parameter>\n<parameter=l>\n[1]\n</parameter>\n</function>\n</seed:tool_call>"},
      {"glm45", "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>3</arg_value>\n<arg_key>b</arg_key>\n<arg_value>true</arg_value>\n<arg_key>l</arg_key>\n<arg_value>[1]</arg_value>\n</tool_call>"},
      {"minimax_m2", "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"n\">3</parameter>\n<parameter name=\"b\">true</parameter>\n<parameter name=\"l\">[1]</parameter>\n</invoke>\n</minimax:tool_call>"},
  };
  const Value typed_tools = tools_of(
      R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"type":"integer"},"b":{"type":"boolean"},"l":{"type":"array"}}}}}])");
  const Value untyped_tools = tools_of(
      R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"description":"a number"},"b":{},"l":{}}}}}])");
  for (const In& in : ins) {
    SCOPED_TRACE(in.dialect);
    ParseOptions none;
    ParsedMessage a = parse_all(*find(in.dialect), in.text, none);
    ASSERT_EQ(a.tool_calls.size(), 1u);
    EXPECT_EQ(a.tool_calls[0].arguments, R"({"n":"3","b":"true","l":"[1]"})");
    ParseOptions untyped;
    untyped.tools = untyped_tools;
    ParsedMessage u = parse_all(*find(in.dialect), in.text, untyped);
    ASSERT_EQ(u.tool_calls.size(), 1u);
    EXPECT_EQ(u.tool_calls[0].arguments, R"({"n":"3","b":"true","l":"[1]"})");
    ParseOptions typed;
    typed.tools = typed_tools;
    ParsedMessage t = parse_all(*find(in.dialect), in.text, typed);
    ASSERT_EQ(t.tool_calls.size(), 1u);
    EXPECT_EQ(t.tool_calls[0].arguments, R"({"n":3,"b":true,"l":[1]})");
  }
}

// Issue 12 part 7: `check` tells a template that cannot show two calls in a message (gpt-oss, GigaChat 3 render
// only the first) from a parser that reads a call back wrong.
TEST(CheckRoundTrip, OneCallPerMessageIsATemplateLimitNotAFailure) {
  auto load = [](const std::string& path) {
    return chat::select_template(chat::load_templates(path), std::nullopt, false);
  };
  {
    TemplateProbe probe(load("tests/dialects/templates/openai-gpt-oss-120b.jinja"), Value::dict());
    auto cases = round_trip(probe, parser_factory(*find("gpt_oss")));
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].outcome, RoundTripCase::Outcome::Ok);
    EXPECT_EQ(cases[1].outcome, RoundTripCase::Outcome::Limited) << cases[1].detail;
    EXPECT_TRUE(round_trip_ok(cases));
    // The same template read by a parser of another family: a parser fault, reported as one.
    auto wrong = round_trip(probe, parser_factory(*find("hermes")));
    EXPECT_EQ(wrong[0].outcome, RoundTripCase::Outcome::Failed);
    EXPECT_FALSE(round_trip_ok(wrong));
  }
  {
    TemplateProbe probe(load("tests/dialects/templates/ai-sage-GigaChat3-10B-A1.8B.jinja"), Value::dict());
    std::string why;
    auto d = infer(probe, &why);
    ASSERT_TRUE(d) << why;
    auto cases = round_trip(probe, d->factory());
    ASSERT_EQ(cases.size(), 2u);
    EXPECT_EQ(cases[0].outcome, RoundTripCase::Outcome::Ok) << cases[0].detail;
    EXPECT_EQ(cases[1].outcome, RoundTripCase::Outcome::Limited) << cases[1].detail;
  }
}

// Issue 12 part 4: inside an open reasoning block a call marker is reasoning text (Kimi K2-Thinking's call
// tokens are the documented exception: they end the block).
TEST(OutputGuard, CallMarkersInsideOpenReasoningAreReasoning) {
  const std::string markers =
      "maybe <tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call> or [TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]"
      " or <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
      " or <|tool_call>call:f{}<tool_call|> or functools[{\"name\": \"f\", \"arguments\": {}}]";
  ParseOptions o;
  o.reasoning_open = true;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}])");
  for (const Dialect* d : all()) {
    if (d->name == "kimi_k2") continue;
    SCOPED_TRACE(d->name);
    ParsedMessage m = parse_all(*d, markers, o);
    if (!m.reasoning_content.empty()) { EXPECT_TRUE(m.tool_calls.empty()) << json::dumps(m.to_json(true)); }
  }
}

// Issue 12 part 4: interleaved reasoning blocks (GLM-4.5, Qwen3 between calls) all go to reasoning_content.
TEST(OutputGuard, InterleavedThinkBlocksAreAllReasoning) {
  for (const char* name : {"glm45", "hermes", "qwen3_coder"}) {
    SCOPED_TRACE(name);
    ParsedMessage m = parse_all(*find(name), "<think>a</think>text<think>b</think>more", {});
    EXPECT_EQ(m.reasoning_content, "ab");
    EXPECT_EQ(m.content, "textmore");
  }
}

// Issue 12 part 4: content is verbatim around calls and around text that only looks like a call.
TEST(OutputGuard, ContentAroundCallsIsVerbatim) {
  ParsedMessage a = parse_all(*find("phi4_mini"), "You can use functools[partial] here to bind args.", {});
  EXPECT_EQ(a.content, "You can use functools[partial] here to bind args.");
  ParsedMessage b = parse_all(*find("hermes"), "Before.<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\nAfter.", {});
  EXPECT_EQ(b.content, "Before.\nAfter.");
  ASSERT_EQ(b.tool_calls.size(), 1u);
  // Whitespace between calls or at the end is not content.
  ParsedMessage c = parse_all(*find("hermes"),
                              "<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>\n", {});
  EXPECT_EQ(c.content, "");
  EXPECT_EQ(c.tool_calls.size(), 2u);
  // A recovered DeepSeek call whose block lacks its inner end marker leaves no marker behind.
  ParsedMessage d = parse_all(*find("deepseek_v3"),
                              "A\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁calls▁end｜>\nB", {});
  EXPECT_EQ(d.content, "A\n\nB");
  EXPECT_EQ(d.tool_calls.size(), 1u);
}

// Kimi K3 streams a string argument as it arrives (issue 12 §1 for the new family): fed a byte at
// a time, once half the value is in, the events already hold the name and that half.
TEST(OutputGuard, KimiK3StreamsStringArguments) {
  std::string value(4000, 'x');
  for (size_t i = 0; i < value.size(); i += 7) value[i] = 'a' + static_cast<char>(i % 26);
  const std::string head = "<|open|>tools<|sep|><|open|>call tool=\"write_file\" index=\"1\"<|sep|>"
                           "<|open|>argument key=\"content\" type=\"string\"<|sep|>";
  const std::string text = head + value + "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>";
  ParseOptions o;
  EventLog log;
  auto p = find("kimi_k3")->make_parser(o);
  size_t half = head.size() + value.size() / 2;
  for (size_t i = 0; i < half; ++i) p->feed(std::string_view(text).substr(i, 1), log);
  ParsedMessage mid = collect(log.events);
  ASSERT_EQ(mid.tool_calls.size(), 1u);
  EXPECT_EQ(mid.tool_calls[0].name, "write_file");
  std::string want_prefix = "{\"content\":\"" + value.substr(0, value.size() / 2 - 8);
  EXPECT_EQ(mid.tool_calls[0].arguments.substr(0, want_prefix.size()), want_prefix);
  for (size_t i = half; i < text.size(); ++i) p->feed(std::string_view(text).substr(i, 1), log);
  p->finish(log);
  ParsedMessage all_of = collect(log.events);
  ASSERT_EQ(all_of.tool_calls.size(), 1u);
  EXPECT_EQ(all_of.tool_calls[0].arguments, "{\"content\":\"" + value + "\"}");
}

// Issue 12 part 6: an unknown tool's call is content as the model wrote it. Every family, on each of its
// fixture cases with one call and nothing to warn about, parsed with a tools list that does not
// name the call: no call, an unknown_tool warning, the same events for every chunking, and content
// that is the input's own text (the call's markers and JSON or XML included), not a JSON rendering.
TEST(OutputGuard, UnknownToolKeepsTheModelsText) {
  ParseOptions o;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"not_this_one","parameters":{"type":"object"}}}])");
  size_t checked = 0;
  std::map<std::string, size_t> raw_by_family;
  for (const Dialect* d : all()) {
    std::string path = "tests/dialects/fixtures/" + std::string(d->name) + ".json";
    Value f = json::parse_file(path);
    for (const Value& c : f.dict_obj().find("cases")->items()) {
      const Value* calls = c.dict_obj().find("tool_calls");
      const Value* warnings = c.dict_obj().find("warnings");
      const Value* reasoning = c.dict_obj().find("reasoning_content");
      const Value* open = c.dict_obj().find("reasoning_open");
      if (!calls || !calls->is_list() || calls->items().size() != 1) continue;
      if ((warnings && warnings->is_list() && !warnings->items().empty()) || (reasoning && reasoning->is_str() && !reasoning->str().empty()) || open) continue;
      std::string in(c.dict_obj().find("input")->str());
      std::string name(calls->items()[0].dict_obj().find("name")->str());
      SCOPED_TRACE(std::string(d->name) + ": " + in);
      ParseOptions known;
      if (const Value* t = c.dict_obj().find("tools")) known.tools = *t;
      ParsedMessage base = parse_all(*d, in, known);
      if (base.tool_calls.size() != 1) continue;  // a near-miss form: a call only when its tool is offered
      // A call that does not name its tool (Kimi K2's bare counter names the request's only tool)
      // names the one tool offered here.
      if (in.find(name) == std::string::npos) continue;
      std::vector<size_t> bytes;
      for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
      auto whole = feed_cut(*d, o, in, {});
      EXPECT_EQ(events_text(whole), events_text(feed_cut(*d, o, in, bytes)));
      ParsedMessage m = collect(whole);
      EXPECT_TRUE(m.tool_calls.empty());
      bool warned = false;
      for (const Warning& w : m.warnings) warned |= w.kind == WarningKind::UnknownTool;
      // A near-miss form (its case names the tools) is a call only when its tool is offered, and so
      // is GLM-4's bare name line (glm4.cpp): here they stay content without a warning.
      EXPECT_TRUE(warned || c.dict_obj().find("tools") || d->name == "glm4");
      EXPECT_NE(m.content.find(name), std::string::npos) << m.content;
      // The text outside the call is kept, around the call's own text.
      EXPECT_GT(m.content.size(), base.content.size());
      ++checked;
      // Each piece of content is the model's text (markers a family drops, such as a role line,
      // may stand between two pieces).
      bool verbatim = true;
      for (const Event& e : whole)
        if (auto* t = std::get_if<ContentDelta>(&e)) verbatim &= in.find(t->text) != std::string::npos;
      if (verbatim) ++raw_by_family[std::string(d->name)];
      else ADD_FAILURE() << d->name << ": content is not the model's text: " << m.content;
    }
  }
  EXPECT_GT(checked, 28u);
  // Every family gives its own text back on at least one case.
  for (const Dialect* d : all()) EXPECT_GT(raw_by_family[std::string(d->name)], 0u) << d->name;
}

// Issue 12 part 6 applies "when the request has tools": an empty tool list offers none to check
// against, so every family reads its fixtures as without a list (the parsers' own unknown-tool
// notice used to fire on an empty list while the guard let the call through: a streamed call,
// then its text as a cut call).
TEST(OutputGuard, EmptyToolListChecksNoNames) {
  ParseOptions none, empty;
  empty.tools = json::parse("[]");
  size_t checked = 0;
  for (const Dialect* d : all()) {
    Value f = json::parse_file("tests/dialects/fixtures/" + std::string(d->name) + ".json");
    for (const Value& c : f.dict_obj().find("cases")->items()) {
      if (c.dict_obj().find("tools") || c.dict_obj().find("reasoning_open")) continue;
      std::string in(c.dict_obj().find("input")->str());
      SCOPED_TRACE(std::string(d->name) + ": " + in);
      EXPECT_EQ(events_text(feed_cut(*d, empty, in, {})), events_text(feed_cut(*d, none, in, {})));
      ++checked;
    }
  }
  EXPECT_GT(checked, 28u);
}

// Issue 12 parts 4 and 6: ReAct writes the line break before "Final Answer:" as a separator only
// after content; a call to a tool the request does not offer is content too, so the break stays
// between its text and the answer (the label alone is dropped, as after a call), in every chunking.
TEST(OutputGuard, ReactUnknownToolKeepsTheBreakBeforeTheAnswer) {
  const Dialect* d = find("react");
  ASSERT_NE(d, nullptr);
  ParseOptions o;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}])");
  const std::pair<std::string, std::string> cases[] = {  // input, content
      {"Action: other_tool\nAction Input: x\nFinal Answer: y", "Action: other_tool\nAction Input: x\ny"},
      {"Action: other_tool\nAction Input: {\"a\": 1}\nFinal Answer: y", "Action: other_tool\nAction Input: {\"a\": 1}\ny"},
      {"Action: other_tool\nAction Input: [1]\nFinal Answer: y", "Action: other_tool\nAction Input: [1]\ny"},
      {"Action: other_tool\nAction Input: x\nAction: f\nAction Input: z\nFinal Answer: y", "Action: other_tool\nAction Input: x\ny"},
      {"Action: f\nAction Input: x\nFinal Answer: y", "y"},  // an offered tool: the answer alone
  };
  for (const auto& [in, content] : cases) {
    SCOPED_TRACE(in);
    auto whole = feed_cut(*d, o, in, {});
    EXPECT_EQ(collect(whole).content, content);
    std::vector<size_t> bytes;
    for (size_t i = 1; i < in.size(); ++i) bytes.push_back(i);
    EXPECT_EQ(events_text(whole), events_text(feed_cut(*d, o, in, bytes)));
  }
}

// Issue 12 part 4: a DeepSeek tool calls block that cannot be read whole (a later call in it is not a
// call) is content whole in the whole-message result: the calls already streamed from it are cut,
// as a call cut by the end of the output is. A block recovered whole (missing inner markers) leaves
// none of its markers in content.
TEST(OutputGuard, DeepSeekBlockNotReadableWholeIsContentWhole) {
  const std::pair<const char*, std::string> cases[] = {
      {"deepseek_v3",
       "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
       "<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Oslo\"}\n```<｜tool▁call▁end｜>"
       "<｜tool▁call▁begin｜>garbage here<｜tool▁calls▁end｜> B"},
      {"deepseek_v31",
       "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>"
       "<｜tool▁call▁begin｜>not a call<｜tool▁calls▁end｜> B"},
      // The JSON of a later call turns invalid after it was announced, or is not an object.
      {"deepseek_v3",
       "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
       "<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Oslo\" x}\n```"
       "<｜tool▁call▁end｜><｜tool▁calls▁end｜> B"},
      {"deepseek_v31",
       "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>"
       "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>[\"Oslo\"]<｜tool▁call▁end｜><｜tool▁calls▁end｜> B"},
      // V3.2's DSML block, the same rules: a later invoke that is not one, a JSON body turning invalid.
      {"deepseek_v32",
       "A <｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">"
       "Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke garbage>\n</｜DSML｜function_calls> B"},
      {"deepseek_v32",
       "A <｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" string=\"true\">"
       "Paris</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"get_weather\">{\"city\": \"Oslo\" x}</｜DSML｜invoke>\n"
       "</｜DSML｜function_calls> B"},
  };
  ParseOptions o;
  o.tools = tools_of(R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}])");
  for (const auto& [name, in] : cases) {
    SCOPED_TRACE(name);
    ParsedMessage m = parse_all(*find(name), in, o);
    EXPECT_TRUE(m.tool_calls.empty());
    EXPECT_EQ(m.content, in);
    auto whole = feed_cut(*find(name), o, in, {});
    size_t begins = 0;
    for (const Event& e : whole) begins += std::holds_alternative<ToolCallBegin>(e);
    EXPECT_GE(begins, 1u);  // streamed before the bad call came
    for (size_t chunk : {1u, 5u}) EXPECT_EQ(events_text(dialect_test::feed_chunked(*find(name), o, in, chunk)), events_text(whole));
  }
  // Recovered whole: the block's close marker is not left in content.
  ParsedMessage r = parse_all(*find("deepseek_v3"),
                              "A <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁calls▁end｜> B", o);
  ASSERT_EQ(r.tool_calls.size(), 1u);
  EXPECT_EQ(r.content, "A  B");
}
