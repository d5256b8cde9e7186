// GBNF built from tool schemas (dialects/gbnf.hpp) and the dialects' call grammars, checked by running
// the grammar with a small GBNF matcher (gbnf_matcher.hpp): valid outputs must match and near misses
// must not.
#include <gtest/gtest.h>

#include "dialects/dialect.hpp"
#include "dialects/gbnf.hpp"
#include "value/json.hpp"
#include "gbnf_matcher.hpp"

using namespace toolchat;

namespace {

using gbnf_test::Grammar;
using Reasoning = dialects::GrammarOptions::Reasoning;

// Parallel calls and thinking allowed (what the gateway asks for with parallel_tool_calls and a
// thinking template).
dialects::GrammarOptions loose() {
  dialects::GrammarOptions o;
  o.max_calls = 8;
  o.reasoning = Reasoning::Optional;
  return o;
}

const char* kTools = R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "array", "items": {"type": "integer"}},
                   "unit": {"enum": ["c", "f"]}, "detail": {"type": ["string", "null"]}},
    "required": ["city"]}}},
  {"type": "function", "function": {"name": "set_alarm", "parameters": {"type": "object",
    "properties": {"hour": {"type": "integer"}, "label": {"type": "string"}}}}},
  {"type": "function", "function": {"name": "ping"}}
])";

}  // namespace

TEST(Gbnf, HermesGrammarAcceptsCallsItsSchemasAllow) {
  const dialects::Dialect* d = dialects::find("hermes");
  ASSERT_TRUE(d && d->grammar);
  std::string text = *d->grammar(json::parse(kTools), loose());
  Grammar g(text);
  EXPECT_EQ(g.undefined(), std::vector<std::string>{}) << text;
  const std::vector<std::string> good = {
      "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
      "<tool_call>{\"name\":\"get_weather\",\"arguments\":{\"city\":\"Par\\\"is\\u00e9\",\"days\":[1,-2,30],\"unit\":\"f\",\"detail\":null}}</tool_call>",
      "<tool_call>\n{\"name\": \"set_alarm\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"set_alarm\", \"arguments\": {\"label\": \"x\"}}\n</tool_call>",
      "<tool_call>{\"name\": \"set_alarm\", \"arguments\": {\"hour\": 7, \"label\": \"up\"}}</tool_call>",
      "<tool_call>{\"name\": \"ping\", \"arguments\": {\"anything\": [true, {\"a\": 1.5e3}]}}</tool_call>",
      "<think>Which tool? Paris < Rome.</think>\n<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\"}}</tool_call>",
  };
  for (const auto& s : good) EXPECT_TRUE(g.matches(s)) << s;
  const std::vector<std::string> bad = {
      "",                                                                                        // a call is required
      "Sure! <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>",  // text first
      "<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>",                       // unknown tool
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {}}</tool_call>",                    // city required
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": 3}}</tool_call>",         // wrong type
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\", \"unit\": \"k\"}}</tool_call>",  // enum
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\", \"days\": [1.5]}}</tool_call>",  // integers
      "<tool_call>{\"name\": \"set_alarm\", \"arguments\": {\"label\": \"x\", \"hour\": 7}}</tool_call>",  // schema order
      "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",             // unclosed
  };
  for (const auto& s : bad) EXPECT_FALSE(g.matches(s)) << s;
}

TEST(Gbnf, LiteralsEscape) {
  EXPECT_EQ(dialects::gbnf::literal("a\"b\\c\nd"), "\"a\\\"b\\\\c\\nd\"");
  dialects::gbnf::Builder b;
  std::string v = b.value(json::parse(R"({"const": {"k": "v"}})"), "c");
  b.rule("root", v);
  Grammar g(b.str());
  EXPECT_TRUE(g.matches("{\"k\":\"v\"}"));
  EXPECT_FALSE(g.matches("{\"k\":\"w\"}"));
}

// until(stop) is any text without `stop`: checked where the stop text overlaps itself ("aab" after
// "a"), for multi-byte stops, and at the end of the text.
TEST(Gbnf, UntilExcludesExactlyTheStopText) {
  auto grammar = [](std::string_view stop) {
    dialects::gbnf::Builder b;
    b.rule("root", b.until(stop) + " " + dialects::gbnf::literal(stop));
    return Grammar(b.str());
  };
  Grammar tag = grammar("</x>");
  for (std::string s : {"</x>", "a</x>", "</</x>", "<<//x</x>", "</y></x>", "東京</x>"}) EXPECT_TRUE(tag.matches(s)) << s;
  for (std::string s : {"a</x>b</x>", "</x></x>", "a</x", ""}) EXPECT_FALSE(tag.matches(s)) << s;
  Grammar aab = grammar("aab");
  for (std::string s : {"aab", "aaab", "abaab", "baaab"}) EXPECT_TRUE(aab.matches(s)) << s;
  for (std::string s : {"aabaab", "aab aab", "aaba"}) EXPECT_FALSE(aab.matches(s)) << s;
  Grammar wide = grammar("<｜end｜>");
  EXPECT_TRUE(wide.matches("｜<｜<end｜><｜end｜>"));
  EXPECT_FALSE(wide.matches("a<｜end｜>b<｜end｜>"));
}

// A reasoning block may be whole, forced open (no opening tag) or absent.
TEST(Gbnf, ReasoningBlockIsOptionalAndMayBeForcedOpen) {
  auto grammar = [](Reasoning r) {
    dialects::GrammarOptions o;
    o.reasoning = r;
    dialects::gbnf::Builder b(o);
    b.rule("root", b.reasoning("<think>", "</think>") + " \"CALL\"");
    return Grammar(b.str());
  };
  Grammar optional = grammar(Reasoning::Optional);
  for (std::string s : {"CALL", "<think>hm</think>CALL", "<think></think> CALL", "<think>a < b </th> <think/> </x></think>\nCALL"})
    EXPECT_TRUE(optional.matches(s)) << s;
  for (std::string s : {"<think>hm CALL", "<think>a</think>b</think>CALL", "text CALL", "hm</think>CALL"}) EXPECT_FALSE(optional.matches(s)) << s;
  Grammar open = grammar(Reasoning::Open);  // the prompt ended inside <think>
  for (std::string s : {"hm, <b> </think>\nCALL", "</think>CALL"}) EXPECT_TRUE(open.matches(s)) << s;
  for (std::string s : {"CALL", "a</think>b</think>CALL"}) EXPECT_FALSE(open.matches(s)) << s;
  Grammar none = grammar(Reasoning::None);
  EXPECT_TRUE(none.matches("CALL"));
  EXPECT_FALSE(none.matches("<think></think>CALL"));
}

// Every grammar of the registry parses, defines what it uses, and a grammar made for one named tool
// rejects a call of another (checked on the same calls as the fixtures by test_gbnf_dialects.cpp).
TEST(Gbnf, RegistryGrammarsAreWellFormed) {
  Value tools = json::parse(kTools);
  size_t n = 0;
  for (const dialects::Dialect* d : dialects::all()) {
    if (!d->grammar) continue;
    ++n;
    auto text = d->grammar(tools, loose());
    ASSERT_TRUE(text.has_value()) << d->name;
    Grammar g(*text);
    EXPECT_EQ(g.undefined(), std::vector<std::string>{}) << d->name << "\n" << *text;
    EXPECT_FALSE(g.matches("")) << d->name;
    // Rule names are GBNF identifiers.
    for (size_t at = 0; at < text->size();) {
      size_t eol = text->find('\n', at);
      std::string name = text->substr(at, text->find(" ::= ", at) - at);
      for (char c : name) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-') << d->name << ": " << name;
      at = eol == std::string::npos ? text->size() : eol + 1;
    }
  }
  EXPECT_EQ(n, dialects::all().size()) << "a dialect without a grammar";
}

// The XML-style grammars take parameters from the schema: string values raw, others JSON of their
// type, required ones present.
TEST(Gbnf, Qwen3CoderParametersFollowTheSchema) {
  const dialects::Dialect* d = dialects::find("qwen3_coder");
  ASSERT_TRUE(d && d->grammar);
  Grammar g(*d->grammar(json::parse(kTools), loose()));
  auto call = [](const std::string& params) {
    return "<tool_call>\n<function=get_weather>\n" + params + "</function>\n</tool_call>";
  };
  EXPECT_TRUE(g.matches(call("<parameter=city>\nSan Francisco, CA\n</parameter>\n")));
  EXPECT_TRUE(g.matches(call("<parameter=city>\nParis\n</parameter>\n<parameter=days>\n[1, 2]\n</parameter>\n<parameter=unit>\nc\n</parameter>\n")));
  EXPECT_FALSE(g.matches(call("<parameter=days>\n[1, 2]\n</parameter>\n")));                                        // city required
  EXPECT_FALSE(g.matches(call("<parameter=city>\nParis\n</parameter>\n<parameter=days>\nthree\n</parameter>\n")));  // not JSON
  EXPECT_FALSE(g.matches(call("<parameter=city>\nParis\n</parameter>\n<parameter=unit>\nk\n</parameter>\n")));      // enum
  EXPECT_FALSE(g.matches(call("<parameter=city>\nParis\n</parameter>\n<parameter=zone>\nx\n</parameter>\n")));      // unknown
  EXPECT_TRUE(g.matches("<tool_call>\n<function=ping>\n<parameter=anything>\nx\n</parameter>\n</function>\n</tool_call>"));
}

// Pythonic calls: Python literals of the schema types.
TEST(Gbnf, PythonicValuesArePythonLiterals) {
  const dialects::Dialect* d = dialects::find("pythonic");
  ASSERT_TRUE(d && d->grammar);
  Grammar g(*d->grammar(json::parse(kTools), loose()));
  EXPECT_TRUE(g.matches("[get_weather(city='Paris', days=[1, 2], unit='c', detail=None)]"));
  EXPECT_TRUE(g.matches("[get_weather(city=\"it's\"), set_alarm(), ping(x={'a': [True, 1.5]})]"));
  EXPECT_FALSE(g.matches("[get_weather(city=Paris)]"));
  EXPECT_FALSE(g.matches("[get_weather(days=[1])]"));
  EXPECT_FALSE(g.matches("[get_weather(city='P', unit='k')]"));
  EXPECT_FALSE(g.matches("[set_alarm(hour='7')]"));
}

// What a random-weight model behind llama-server showed (tests/e2e/): a grammar must bound everything
// outside the schema's own freedom. Whitespace as llama.cpp's `space`, no text before the call, one
// call unless parallel calls are asked for (then a bounded number), reasoning only when the options
// say the template thinks, and then bounded.
TEST(Gbnf, GrammarsBoundWhitespaceCallsAndReasoning) {
  const dialects::Dialect* d = dialects::find("hermes");
  ASSERT_TRUE(d && d->grammar);
  Value tools = json::parse(kTools);
  auto call = [](const std::string& inner_ws) {
    return "<tool_call>" + inner_ws + "{\"name\": \"set_alarm\", \"arguments\": {}}</tool_call>";
  };
  dialects::GrammarOptions one;  // the defaults: one call, no reasoning
  Grammar g1(*d->grammar(tools, one));
  EXPECT_TRUE(g1.matches(call("")));
  EXPECT_TRUE(g1.matches(call(" ")));
  EXPECT_TRUE(g1.matches(call("\n\n" + std::string(20, ' '))));
  EXPECT_FALSE(g1.matches(call("\n\n" + std::string(21, ' '))));  // 20 spaces at most
  EXPECT_FALSE(g1.matches(call("\n\n\n")));                       // two newlines at most
  EXPECT_FALSE(g1.matches(call("  ")));                           // one space, or a newline first
  EXPECT_FALSE(g1.matches(call("") + "\n" + call("")));          // one call
  EXPECT_FALSE(g1.matches("<think>hm</think>" + call("")));      // no reasoning when not thinking
  EXPECT_FALSE(g1.matches("Sure. " + call("")));                 // no text before the call
  // Digits bounded as llama.cpp's integral part (16).
  auto hour = [](const std::string& n) { return "<tool_call>{\"name\": \"set_alarm\", \"arguments\": {\"hour\": " + n + "}}</tool_call>"; };
  EXPECT_TRUE(g1.matches(hour(std::string(16, '9'))));
  EXPECT_FALSE(g1.matches(hour(std::string(17, '9'))));

  dialects::GrammarOptions three;
  three.max_calls = 3;
  Grammar g3(*d->grammar(tools, three));
  EXPECT_TRUE(g3.matches(call("") + "\n" + call("") + call("")));
  EXPECT_FALSE(g3.matches(call("") + call("") + call("") + call("")));

  dialects::GrammarOptions think;
  think.reasoning = Reasoning::Optional;
  think.max_reasoning_chars = 10;
  Grammar gt(*d->grammar(tools, think));
  EXPECT_TRUE(gt.matches(call("")));
  EXPECT_TRUE(gt.matches("<think>0123456789</think>\n" + call("")));
  EXPECT_TRUE(gt.matches("<think>a < b</think>" + call("")));
  EXPECT_FALSE(gt.matches("<think>0123456789X</think>" + call("")));  // over the bound (10 pieces)
  EXPECT_FALSE(gt.matches("0123</think>" + call("")));                // the model opens the block itself

  think.reasoning = Reasoning::Open;  // the prompt ended inside <think>
  Grammar go(*d->grammar(tools, think));
  EXPECT_TRUE(go.matches("plan</think>\n" + call("")));
  EXPECT_FALSE(go.matches(call("")));  // the block must be closed first
}

TEST(Gbnf, StringLengthsAndArraySizesFollowTheSchema) {
  dialects::gbnf::Builder b;
  Value schema = json::parse(R"({"type": "object", "properties": {
      "s": {"type": "string", "minLength": 2, "maxLength": 4},
      "a": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2}}, "required": ["s", "a"]})");
  b.rule("root", b.value(schema, "args"));
  Grammar g(b.str());
  EXPECT_TRUE(g.matches(R"({"s": "ab", "a": [1]})"));
  EXPECT_TRUE(g.matches(R"({"s": "\u00e9\"cd", "a": [1, 2]})"));  // an escape is one character
  EXPECT_FALSE(g.matches(R"({"s": "a", "a": [1]})"));
  EXPECT_FALSE(g.matches(R"({"s": "abcde", "a": [1]})"));
  EXPECT_FALSE(g.matches(R"({"s": "ab", "a": []})"));
  EXPECT_FALSE(g.matches(R"({"s": "ab", "a": [1, 2, 3]})"));
}

// Raw-text arguments (XML-style formats) honour maxLength too, and ids a format lets the model
// write are bounded (a random model would otherwise write them to the end of the context).
TEST(Gbnf, RawTextAndIdsAreBounded) {
  Value tools = json::parse(R"([{"type": "function", "function": {"name": "f", "parameters": {"type": "object",
      "properties": {"q": {"type": "string", "maxLength": 3}}, "required": ["q"]}}}])");
  Grammar coder(*dialects::find("qwen3_coder")->grammar(tools, {}));
  // The value sits between the two newlines the parser trims (so they count for nothing).
  auto q = [](const std::string& v) { return "<tool_call>\n<function=f>\n<parameter=q>\n" + v + "\n</parameter>\n</function>\n</tool_call>"; };
  EXPECT_TRUE(coder.matches(q("abc")));
  EXPECT_TRUE(coder.matches(q("\nb")));
  EXPECT_FALSE(coder.matches(q("abcd")));
  EXPECT_FALSE(coder.matches(q("a<c")));
  Grammar mistral(*dialects::find("mistral")->grammar(tools, {}));
  EXPECT_TRUE(mistral.matches(R"([TOOL_CALLS][{"name": "f", "arguments": {"q": "x"}, "id": "abc123XYZ"}])"));
  EXPECT_FALSE(mistral.matches("[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {\"q\": \"x\"}, \"id\": \"" + std::string(41, 'a') + "\"}]"));
  EXPECT_TRUE(mistral.matches(R"([TOOL_CALLS]f[CALL_ID]abc123XYZ[ARGS]{"q": "x"})"));
  EXPECT_FALSE(mistral.matches(R"([TOOL_CALLS]f[CALL_ID]abc123XYZ0[ARGS]{"q": "x"})"));
}
