// The shared pieces of the XML-style and pythonic dialects: Python literals (ast.literal_eval
// semantics), schema typing of text values (vLLM's _convert_param_value rules), argument streaming
// (a string value is sent before its close tag arrives), and the cost and robustness of the
// parsers on long or hostile input.
#include <gtest/gtest.h>

#include <random>

#include "chat/template_source.hpp"
#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "dialects/py_literal.hpp"
#include "dialects/scan.hpp"
#include "dialects/schema_args.hpp"
#include "toolchat/chat.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;

namespace {

std::string lit(std::string_view s) {
  auto v = pylit::parse(s);
  return v ? scan::compact_json(*v) : std::string("<none>");
}

std::string typed(std::string_view text, const char* schema_type, bool null_rule = true) {
  Value tools = json::parse(std::string(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"p":)") +
                            schema_type + "}}}}]");
  schema::Rules r;
  r.null_text_is_null = null_rule;
  return schema::typed_json(text, schema::param_type(tools, "f", "p"), r);
}

ParsedMessage parse_chunked(const char* dialect, std::string_view text, size_t chunk, const ParseOptions& o = {}) {
  return collect(dialect_test::feed_chunked(*find(dialect), o, text, chunk));
}

}  // namespace

// Expected values are what CPython's ast.literal_eval gives, dumped by json.dumps.
TEST(PyLiteral, MatchesLiteralEval) {
  EXPECT_EQ(lit("'a\\'b'"), R"("a'b")");
  EXPECT_EQ(lit(R"("tab\there\n")"), R"("tab\there\n")");
  EXPECT_EQ(lit(R"('\x41\u00e9\U0001F600\101')"), "\"Aé😀A\"");
  EXPECT_EQ(lit(R"(r'C:\dir\n')"), R"("C:\\dir\\n")");
  EXPECT_EQ(lit("'''multi\nline \"q\"'''"), R"("multi\nline \"q\"")");
  EXPECT_EQ(lit("'a' \"b\""), R"("ab")");  // adjacent literals join
  EXPECT_EQ(lit("-12"), "-12");
  EXPECT_EQ(lit("1_000"), "1000");
  EXPECT_EQ(lit("123456789012345678901234567890"), "123456789012345678901234567890");
  EXPECT_EQ(lit("1.5e3"), "1500.0");
  EXPECT_EQ(lit(".5"), "0.5");
  EXPECT_EQ(lit("True"), "true");
  EXPECT_EQ(lit("None"), "null");
  EXPECT_EQ(lit("[1, (2, 3), {'a': None}, ]"), R"([1,[2,3],{"a":null}])");
  EXPECT_EQ(lit("(1)"), "1");
  EXPECT_EQ(lit("(1,)"), "[1]");
  EXPECT_EQ(lit("{1: 'x', True: 2}"), R"({"1":"x","true":2})");
  EXPECT_EQ(lit("{}"), "{}");
  // Not literals (literal_eval raises).
  EXPECT_EQ(lit("007"), "<none>");
  EXPECT_EQ(lit("2025-08-01"), "<none>");
  EXPECT_EQ(lit("Paris"), "<none>");
  EXPECT_EQ(lit("'unterminated"), "<none>");
  EXPECT_EQ(lit("[1, 2"), "<none>");
  EXPECT_EQ(lit("[1 2]"), "<none>");
  EXPECT_EQ(lit("{'a': 1, 2}"), "<none>");
  EXPECT_EQ(lit("f(x)"), "<none>");
}

// ChatGLM3's tool_call(k=v, …) and the pythonic dialect read keyword arguments with one reader.
TEST(PyLiteral, CallKeywordArguments) {
  std::string err;
  auto kw = pylit::parse_call_kwargs(" tool_call(location='beijing', days=3, unit=None,)\n", "tool_call", &err);
  ASSERT_TRUE(kw) << err;
  EXPECT_EQ(scan::compact_json(*kw), R"({"location":"beijing","days":3,"unit":null})");
  EXPECT_FALSE(pylit::parse_call_kwargs("tool_call('beijing')", "tool_call", &err));
  EXPECT_NE(err.find("keyword argument"), std::string::npos) << err;
  EXPECT_FALSE(pylit::parse_call_kwargs("other(a=1)", "tool_call", &err));
  EXPECT_FALSE(pylit::parse_call_kwargs("tool_call(a=1) tail", "tool_call", &err));
  EXPECT_NE(err.find("text after the call"), std::string::npos) << err;
  EXPECT_FALSE(pylit::parse_call_kwargs("tool_call(a.b=1)", "tool_call", &err));
}

TEST(PyLiteral, DeepNestingIsAnErrorNotACrash) {
  std::string deep(200000, '[');
  EXPECT_EQ(lit(deep), "<none>");
  std::string ok(100, '[');
  ok += std::string(100, ']');
  EXPECT_NE(lit(ok), "<none>");
}

TEST(SchemaArgs, TypesTextByTheSchema) {
  EXPECT_EQ(typed("123", R"({"type":"string"})"), R"("123")");
  // Null only where the schema allows it or excludes text (issue 12 §5).
  EXPECT_EQ(typed("null", R"({"type":"string"})"), R"("null")");
  EXPECT_EQ(typed("null", R"({"type":"integer"})"), "null");
  EXPECT_EQ(typed("null", R"({"type":"integer"})", false), R"("null")");  // GLM keeps it
  EXPECT_EQ(typed("null", R"({"type":["string","null"]})"), "null");
  EXPECT_EQ(typed("None", R"({"anyOf":[{"type":"string"},{"type":"null"}]})"), "null");
  EXPECT_EQ(typed("42", R"({"type":"integer"})"), "42");
  EXPECT_EQ(typed("007", R"({"type":"integer"})"), "7");  // int("007")
  EXPECT_EQ(typed("4.2", R"({"type":"integer"})"), R"("4.2")");
  EXPECT_EQ(typed("3.0", R"({"type":"number"})"), "3");   // integral floats become ints
  EXPECT_EQ(typed("3.25", R"({"type":"number"})"), "3.25");
  EXPECT_EQ(typed("nan", R"({"type":"number"})"), R"("nan")");
  EXPECT_EQ(typed("TRUE", R"({"type":"boolean"})"), "true");
  EXPECT_EQ(typed("yes", R"({"type":"boolean"})"), R"("yes")");
  EXPECT_EQ(typed("{\"a\": [1]}", R"({"type":"object"})"), R"({"a":[1]})");
  EXPECT_EQ(typed("{'a': True}", R"({"type":"object"})"), R"({"a":true})");
  EXPECT_EQ(typed("[1]", R"({"type":"object"})"), R"("[1]")");  // valid JSON of another type
  EXPECT_EQ(typed("[1, 'x']", R"({"type":"array"})"), R"([1,"x"])");
  EXPECT_EQ(typed("7", R"({"type":["string","integer"]})"), "7");
  EXPECT_EQ(typed("seven", R"({"type":["string","integer"]})"), R"("seven")");
  EXPECT_EQ(typed("none", R"({"anyOf":[{"type":"integer"},{"type":"null"}]})"), "null");
  EXPECT_EQ(typed("2", R"({"enum":[1,2,3]})"), "2");
  // No type in the schema: text, whatever it reads as (vLLM).
  EXPECT_EQ(typed("3", R"({"description":"no type"})"), R"("3")");
  EXPECT_EQ(typed("true", R"({"description":"no type"})"), R"("true")");
  EXPECT_EQ(typed("three", R"({"description":"no type"})"), R"("three")");
  EXPECT_EQ(typed("7", R"({"anyOf":[{"type":"string"},{"type":"integer"}]})"), "7");  // anyOf allows it
  // An unknown tool or parameter is text too.
  EXPECT_EQ(schema::typed_json("[1]", schema::param_type(Value(), "f", "p"), {}), R"("[1]")");
  EXPECT_EQ(schema::typed_json("null", schema::param_type(Value(), "f", "p"), {}), R"("null")");
}

TEST(SchemaArgs, JsonEscapingMatchesPython) {
  std::string out;
  json::append_escaped(out, std::string("a\"b\\c\n\t\x01\x7f é"), false);
  EXPECT_EQ(out, "a\\\"b\\\\c\\n\\t\\u0001\x7f é");
  EXPECT_EQ("\"" + out + "\"", json::dumps(Value::string(std::string("a\"b\\c\n\t\x01\x7f é")),
                                           [] { json::DumpOptions o; o.ensure_ascii = false; return o; }()));
}

// A string-typed value is streamed: its first characters are sent before the value ends.
TEST(SchemaArgs, StringValuesStreamBeforeTheirEnd) {
  Value tools = json::parse(R"([{"type":"function","function":{"name":"write","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}}])");
  ParseOptions o;
  o.tools = tools;
  for (const char* d : {"qwen3_coder", "seed_oss"}) {
    SCOPED_TRACE(d);
    std::string open = std::string(d) == "seed_oss" ? "<seed:tool_call>" : "<tool_call>";
    EventLog log;
    auto p = find(d)->make_parser(o);
    p->feed(open + "\n<function=write>\n<parameter=text>\nHello, wor", log);
    std::string args;
    bool begun = false;
    for (const Event& e : log.events) {
      if (std::holds_alternative<ToolCallBegin>(e)) begun = true;
      if (auto* a = std::get_if<ToolArgsDelta>(&e)) args += a->fragment;
    }
    EXPECT_TRUE(begun);
    EXPECT_EQ(args, "{\"text\":\"Hello, wor");
  }
}

// DSML parameters without the string attribute are typed by the same schema reader: text when the
// schema says string (or string or null) or says nothing, JSON otherwise.
TEST(SchemaArgs, DsmlParameterWithoutStringAttribute) {
  ParseOptions o;
  o.tools = json::parse(R"([{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"s":{"type":["string","null"]},"n":{"type":"integer"}}}}}])");
  std::string text = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n"
                     "<｜DSML｜parameter name=\"s\">12</｜DSML｜parameter>\n"
                     "<｜DSML｜parameter name=\"n\">12</｜DSML｜parameter>\n"
                     "<｜DSML｜parameter name=\"u\">[1]</｜DSML｜parameter>\n"
                     "</｜DSML｜invoke>\n</｜DSML｜function_calls>";
  ParsedMessage m = parse_chunked("deepseek_v32", text, 7, o);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"s":"12","n":12,"u":"[1]"})");
}

TEST(XmlDialects, LinearOnALongValueFedInSmallChunks) {
  std::string big(1 << 20, 'x');
  struct Case { const char* dialect; std::string text; };
  std::vector<Case> cases = {
      {"qwen3_coder", "<tool_call>\n<function=w>\n<parameter=s>\n" + big + "\n</parameter>\n</function>\n</tool_call>"},
      {"glm45", "<tool_call>w\n<arg_key>s</arg_key>\n<arg_value>" + big + "</arg_value>\n</tool_call>"},
      {"minimax_m2", "<minimax:tool_call><invoke name=\"w\"><parameter name=\"s\">" + big + "</parameter></invoke></minimax:tool_call>"},
      {"pythonic", "[w(s='" + big + "')]"},
      {"gpt_oss", "<|channel|>commentary to=functions.w <|constrain|>json<|message|>{\"s\": \"" + big + "\"}<|call|>"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect);
    ParsedMessage m = parse_chunked(c.dialect, c.text, 4);
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].arguments, "{\"s\":\"" + big + "\"}");
    EXPECT_TRUE(m.warnings.empty());
  }
}

// A long whitespace run inside a streamed string value is held (it may be trimmed) without
// rescanning it for every piece.
TEST(XmlDialects, LinearOnALongWhitespaceRunInAStringValue) {
  ParseOptions o;
  o.tools = json::parse(R"([{"type":"function","function":{"name":"w","parameters":{"type":"object","properties":{"s":{"type":"string"}}}}}])");
  std::string spaces(1 << 20, ' ');
  std::string text = "<tool_call>w\n<arg_key>s</arg_key>\n<arg_value>a" + spaces + "b" + spaces + "</arg_value>\n</tool_call>";
  ParsedMessage m = parse_chunked("glm45", text, 3, o);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"s\":\"a" + spaces + "b\"}");
}

// Hostile output ends as content (and warnings), never a crash or a hang.
TEST(XmlDialects, HostileOutputEndsAsContent) {
  std::string long_name = "<tool_call>\n<function=" + std::string(100000, 'n');
  ParsedMessage m = parse_chunked("qwen3_coder", long_name, 7);
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, long_name);
  ASSERT_FALSE(m.warnings.empty());

  std::string deep = "[f(a=" + std::string(50000, '[') + ")]";
  m = parse_chunked("pythonic", deep, 5);
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, deep);

  std::string prose = "[" + std::string(10000, 'a') + " b]";
  m = parse_chunked("pythonic", prose, 3);
  EXPECT_EQ(m.content, prose);
  EXPECT_TRUE(m.warnings.empty());

  std::string header = "<|channel|>commentary to=functions.x " + std::string(5000, 'h');
  m = parse_chunked("gpt_oss", header, 11);
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, header);
}

// Templates of these families are told apart from each other and from Hermes by their markers.
TEST(XmlDialects, DetectionByMarkers) {
  EXPECT_EQ(detect("{{ '<tool_call>\\n<function=' + name + '>\\n<parameter=' }}").dialect->name, "qwen3_coder");
  EXPECT_EQ(detect("{{ '<tool_call>' + name }}<arg_key>{{ k }}</arg_key><arg_value>").dialect->name, "glm45");
  EXPECT_EQ(detect("{{ '<seed:tool_call>\\n<function=' }}<seed:think>").dialect->name, "seed_oss");
  EXPECT_EQ(detect("]~!b[]~b]ai <minimax:tool_call>\\n<invoke name=").dialect->name, "minimax_m2");
  EXPECT_EQ(detect("<|start|>assistant<|channel|>commentary to=functions.x <|constrain|>json").dialect->name, "gpt_oss");
  EXPECT_EQ(detect("Respond in the format [func_name1(params_name1=params_value1)]").dialect->name, "pythonic");
  EXPECT_EQ(detect("{{ '<tool_call>' }}<tools>").dialect->name, "hermes");
}

TEST(XmlDialects, ToolPromptsShowTheTools) {
  Value tools = json::parse(R"([{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}}])");
  for (const char* d : {"qwen3_coder", "glm45", "minimax_m2", "seed_oss", "gpt_oss", "pythonic"}) {
    SCOPED_TRACE(d);
    std::string p = find(d)->tool_prompt(tools);
    EXPECT_NE(p.find("get_weather"), std::string::npos);
  }
  std::string ts = find("gpt_oss")->tool_prompt(tools);
  EXPECT_NE(ts.find("// Weather now\ntype get_weather = (_: {\n// City\ncity: string,\nunit?: \"c\" | \"f\",\n}) => any;"),
            std::string::npos)
      << ts;
}

// Random soups of each family's markers and text: the events never depend on the chunking, every
// call's arguments are a JSON object, and the parse ends (no crash, no hang) whatever the order.
TEST(XmlDialects, MarkerSoupIsChunkingInvariant) {
  struct Family { const char* dialect; std::vector<std::string> pieces; };
  const std::vector<std::string> common = {"a", " ", "\n", "é", "🌍", "\"", "\\", "{", "}", "[", "]", "(", ")", "=", ",",
                                           "'", "1", "null", "true", "<think>", "</think>", "<", ">", "/"};
  std::vector<Family> fams = {
      {"qwen3_coder", {"<tool_call>", "</tool_call>", "<function=", "</function>", "<parameter=", "</parameter>", "f>", "x>"}},
      {"glm45", {"<tool_call>", "</tool_call>", "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "\\n", "f"}},
      {"minimax_m2", {"<minimax:tool_call>", "</minimax:tool_call>", "<invoke name=", "\"f\">", "</invoke>",
                      "<parameter name=", "\"k\">", "</parameter>", "<tool_calls>", "</tool_calls>", "{\"name\": \"f\"}"}},
      {"seed_oss", {"<seed:tool_call>", "</seed:tool_call>", "<function=", "</function>", "<parameter=", "</parameter>",
                    "<seed:think>", "</seed:think>", "f>"}},
      {"gpt_oss", {"<|start|>", "assistant", "<|channel|>", "analysis", "final", "commentary", " to=functions.f",
                   "<|constrain|>", "json", "<|message|>", "<|end|>", "<|call|>", "<|return|>", "{\"a\": 1}",
                   "<|channel|>commentary to=functions.f <|constrain|>json<|message|>"}},
      {"gemma4", {"<|tool_call>", "<tool_call|>", "call:", "f{", "k:", "<|\"|>", "<|\"|>x<|\"|>", ":", "<|channel>",
                  "thought\n", "<channel|>", "<turn|>", "{\"k\": \"v\"}", "<|tool_call>call:f{",
                  "<|tool_call>call:f{k:<|\"|>x<|\"|>}<tool_call|>", "<|tool_call>call:f{k:[1,{a:2}]}<tool_call|>"}},
      {"kimi_k3", {"<|open|>tools<|sep|>", "<|close|>tools<|sep|>", "<|open|>call tool=\"f\" index=\"1\"<|sep|>",
                   "<|close|>call<|sep|>", "<|open|>argument key=\"k\" type=\"string\"<|sep|>", "<|close|>argument<|sep|>",
                   "<|open|>json type=\"object\"<|sep|>", "<|close|>json<|sep|>", "{\"a\": \"x\\ny\", \"b\": [1.50]}",
                   "<|open|>response<|sep|>", "<|close|>response<|sep|>", "<|close|>think<|sep|>", "<|sep|>",
                   "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>",
                   "<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
                   "<|open|>tools<|sep|><|open|>call tool=\"f\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>"
                   "{\"k\": {\"x\": [\"\\u00e9\"]}}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"}},
      {"pythonic", {"[", "f(", "a=", "'x'", ", ", ")", "]", "<|python_start|>", "<|python_end|>", "<function_calls>",
                    "</function_calls>", "<|tool_call_start|>", "<|tool_call_end|>", "```python", "```", "{\"name\": \"f\"}"}},
  };
  std::mt19937_64 rng(20261124);
  for (const Family& f : fams) {
    SCOPED_TRACE(f.dialect);
    const Dialect& d = *find(f.dialect);
    size_t calls = 0;
    for (int round = 0; round < 150; ++round) {
      std::string text;
      size_t n = 1 + rng() % 40;
      for (size_t i = 0; i < n; ++i) {
        bool own = rng() % 2;
        const auto& src = own ? f.pieces : common;
        text += src[rng() % src.size()];
      }
      auto run = [&](size_t max_chunk) {
        EventLog log;
        ParseOptions o;
        o.reasoning_open = round % 7 == 0;
        auto p = d.make_parser(o);
        for (size_t i = 0; i < text.size();) {
          size_t c = max_chunk ? 1 + rng() % max_chunk : text.size();
          p->feed(std::string_view(text).substr(i, c), log);
          i += c;
        }
        p->finish(log);
        std::string out;
        for (const Event& e : coalesce(log.events)) out += json::dumps(event_json(e)) + "\n";
        return out;
      };
      std::string whole = run(0);
      // Whatever happened, every call's streamed arguments are one JSON object.
      ParsedMessage m = parse_chunked(f.dialect, text, 3);
      calls += m.tool_calls.size();
      for (const ParsedCall& c : m.tool_calls) {
        Value v;
        EXPECT_NO_THROW(v = json::parse(c.arguments)) << text << "\n" << c.arguments;
        EXPECT_TRUE(v.is_dict()) << text << "\n" << c.arguments;
      }
      ASSERT_EQ(run(1), whole) << text;
      ASSERT_EQ(run(5), whole) << text;
    }
    EXPECT_GT(calls, 0u) << "the soup never formed a call";
  }
}

// The tool prompt a dialect injects is the text its family's own template writes for the same
// tools (the template is the reference, rendered by the engine that matches Jinja2).
TEST(XmlDialects, ToolPromptsMatchTheirTemplates) {
  Value tools = json::parse(R"([{"type":"function","function":{"name":"get_weather","description":"Weather now","parameters":{"type":"object","properties":{"city":{"type":"string","description":"City"},"unit":{"type":"string","enum":["c","f"]}},"required":["city"]}}}])");
  struct Case { const char* dialect; const char* path; const char* kwarg; std::string_view from, to; };
  const std::vector<Case> cases = {
      {"glm45", "tests/dialects/templates/zai-org-GLM-4.6.jinja", nullptr, "", ""},
      {"minimax_m2", "tests/dialects/templates/unsloth-MiniMax-M2.jinja", nullptr, "", ""},
      {"seed_oss", "tests/dialects/templates/ByteDance-Seed-OSS.jinja", "use_json_tooldef", "", ""},
      {"pythonic", "tests/corpus/templates/vllm-llama3.2_pythonic.jinja", nullptr, "", ""},
      // Qwen3-Coder's template shows tools as nested XML (Qwen3.5's as JSON lines): the instructions.
      {"qwen3_coder", "tests/corpus/templates/vllm-qwen3coder.jinja", nullptr, "If you choose", ""},
      // gpt-oss: the namespace block of the developer message.
      {"gpt_oss", "tests/dialects/templates/openai-gpt-oss-120b.jinja", nullptr, "", "} // namespace functions"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect);
    auto set = chat::load_templates(c.path);
    auto mt = chat::ModelTemplate::from_sources({{"default", chat::select_template(set, std::nullopt, false)}}, Value::dict());
    Value ctx = json::parse(R"({"messages": [{"role": "user", "content": "Weather?"}], "add_generation_prompt": true})");
    ctx.dict_obj().set(Value::string("tools"), tools);
    if (c.kwarg) ctx.dict_obj().set(Value::string(c.kwarg), Value::boolean(true));
    std::string rendered = mt.render_json(ctx).text;
    std::string prompt = find(c.dialect)->tool_prompt(tools);
    if (!c.to.empty()) prompt = prompt.substr(0, prompt.find(c.to) + c.to.size());
    if (!c.from.empty()) prompt = prompt.substr(prompt.find(c.from));
    EXPECT_NE(rendered.find(prompt), std::string::npos) << "prompt:\n" << prompt << "\nrendered:\n" << rendered;
  }
}
