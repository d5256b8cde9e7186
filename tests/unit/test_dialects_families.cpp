// Checks for the families added with deepseek_v31 … command_r7b that the corpus round trip cannot
// cover on its own: Firefunction v2 (its template wants `functions` and `datetime` instead of
// `tools`), Command R7B / Command A (the corpus conversions render calls only when `documents` are
// given), Llama 3.1 builtin tools (rendered only with `builtin_tools`), and the families with no
// corpus template (DeepSeek V3.2 DSML, Kimi K2, Functionary v3.2): for those, the tool-call
// rendering part of their official templates (verbatim excerpts, the rest trimmed) is detected,
// rendered and parsed back. Last, every new family's parser on a long argument in small chunks.
#include <gtest/gtest.h>

#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "dialects/scan.hpp"
#include "toolchat/chat.hpp"
#include "value/json.hpp"

using namespace toolchat;

namespace {

const std::string kTemplates = "tests/corpus/templates/";

std::string read(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return "";
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

// The text a template renders for an assistant message with `calls`, after the generation prompt.
std::string assistant_part(const std::string& source, const Value& tokens, const Value& extra, const Value& calls) {
  auto mt = chat::ModelTemplate::from_sources({{"default", source}}, tokens);
  Value user = json::parse(R"({"role": "user", "content": "Weather?"})");
  Value asst = json::parse(R"({"role": "assistant", "content": ""})");
  asst.dict_obj().set(Value::string("tool_calls"), calls);
  auto ctx = [&](std::vector<Value> msgs, bool gen) {
    Value c = extra;
    c.dict_obj().set(Value::string("messages"), Value::list(std::move(msgs)));
    c.dict_obj().set(Value::string("add_generation_prompt"), Value::boolean(gen));
    for (const auto& [k, v] : tokens.dict_obj().entries) c.dict_obj().set(k, v);
    return c;
  };
  std::string gen = mt.render_json(ctx({user}, true)).text;
  std::string full = mt.render_json(ctx({user, asst}, false)).text;
  EXPECT_EQ(full.substr(0, gen.size()), gen);
  return full.substr(std::min(gen.size(), full.size()));
}

// Checks that `src` is detected as dialect `want`, and parses `part` with that dialect.
dialects::ParsedMessage detect_and_parse(const std::string& src, std::string_view want, const std::string& part) {
  const dialects::Dialect* d = dialects::detect(src).dialect;
  EXPECT_TRUE(d && d->name == want) << "detected " << (d ? d->name : "nothing") << ", want " << want;
  return dialects::parse_all(*dialects::find(want), part);
}

}  // namespace

TEST(DialectFamilies, FirefunctionTemplateRoundTrip) {
  std::string src = read(kTemplates + "ollama-firefunction-v2-70b.jinja");
  ASSERT_FALSE(src.empty());
  Value tokens = json::parse(read(kTemplates + "ollama-firefunction-v2-70b.tokens.json"));
  // The template concatenates the arguments, so they are given as JSON text (as llama.cpp does).
  Value calls = json::parse(R"([
    {"id": "a1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris, France\"}"}},
    {"id": "a2", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\": \"Tōkyō\", \"n\": [1, {\"x\": null}]}"}}])");
  Value extra = json::parse(R"({"functions": "[]", "datetime": "Jan 01 2025 00:00:00 GMT"})");
  std::string part = assistant_part(src, tokens, extra, calls);
  auto m = detect_and_parse(src, "firefunction_v2", part);
  ASSERT_EQ(m.tool_calls.size(), 2u) << part;
  EXPECT_EQ(m.tool_calls[0].name, "get_weather");
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"location":"Paris, France"})");
  EXPECT_EQ(m.tool_calls[1].name, "get_time");
  EXPECT_EQ(m.tool_calls[1].arguments, R"({"tz":"Tōkyō","n":[1,{"x":null}]})");
  // What follows the calls is the end of turn (this template also always opens the next assistant turn).
  EXPECT_EQ(m.content.rfind("<|eot_id|>", 0), 0u) << m.content;
  EXPECT_TRUE(m.warnings.empty());
}

TEST(DialectFamilies, CommandR7bTemplatesRoundTripWithDocuments) {
  Value calls = json::parse(R"([
    {"id": "a1", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Paris, France"}}},
    {"id": "a2", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Tōkyō", "days": 3}}}])");
  Value extra = json::parse(R"({"documents": [{"title": "t", "text": "x"}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather", "parameters": {"type": "object", "properties": {}}}}]})");
  for (const char* name : {"ollama-command-r7b-7b", "ollama-command-r7b-arabic-7b", "ollama-command-a-111b"}) {
    SCOPED_TRACE(name);
    std::string src = read(kTemplates + name + ".jinja");
    ASSERT_FALSE(src.empty());
    Value tokens = json::parse(read(kTemplates + name + ".tokens.json"));
    std::string part = assistant_part(src, tokens, extra, calls);
    auto m = detect_and_parse(src, "command_r7b", part);
    ASSERT_EQ(m.tool_calls.size(), 2u) << part;
    EXPECT_EQ(m.tool_calls[0].arguments, R"({"location":"Paris, France"})");
    EXPECT_EQ(m.tool_calls[1].arguments, R"({"location":"Tōkyō","days":3})");
    // The template numbers the calls after the injected-documents call "0".
    EXPECT_EQ(m.tool_calls[0].id, "1");
    EXPECT_EQ(m.tool_calls[1].id, "2");
    EXPECT_TRUE(m.warnings.empty());
  }
}

TEST(DialectFamilies, Llama31BuiltinToolRoundTrip) {
  const std::string name = "ollama-llama3.1-8b";
  std::string src = read(kTemplates + name + ".jinja");
  ASSERT_FALSE(src.empty());
  Value tokens = json::parse(read(kTemplates + name + ".tokens.json"));
  Value calls = json::parse(R"([{"id": "a1", "type": "function", "function": {"name": "brave_search", "arguments": {"query": "weather in Menlo Park, CA"}}}])");
  Value extra = json::parse(R"({"builtin_tools": ["brave_search", "wolfram_alpha"], "date_string": "26 Jul 2024"})");
  std::string part = assistant_part(src, tokens, extra, calls);
  auto m = detect_and_parse(src, "llama3_builtin", part);
  ASSERT_EQ(m.tool_calls.size(), 1u) << part;
  EXPECT_EQ(m.tool_calls[0].name, "brave_search");
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"query":"weather in Menlo Park, CA"})");
  // llama3_json, reachable by name, leaves the builtin call as text.
  auto j = dialects::parse_all(*dialects::find("llama3_json"), part);
  EXPECT_TRUE(j.tool_calls.empty());
}

namespace {

struct Excerpt {
  const char* source;  // where the excerpt comes from
  const char* dialect;
  std::string tmpl;
  const char* calls;   // JSON list of OpenAI tool calls
  const char* extra;   // extra context
};

// llama.cpp models/templates/DeepSeek-V3.2.jinja: encode_arguments_to_dsml and the assistant branch.
const std::string kDsml = R"TPL({%- set dsml_token = "｜DSML｜" -%}
{%- macro encode_arguments_to_dsml(tool_call) -%}
{%- set arguments = tool_call.function.arguments -%}
{%- if arguments is mapping -%}
  {%- for key, value in arguments.items() -%}
    {%- if not loop.first -%}{{ "\n" }}{%- endif -%}
    <{{ dsml_token }}parameter name="{{ key }}" string="{{ 'true' if value is string else 'false' }}">{{ value if value is string else (value | tojson(ensure_ascii=False)) }}</{{ dsml_token }}parameter>
  {%- endfor -%}
{%- endif -%}
{%- endmacro -%}
{%- for message in messages -%}
  {%- if message.role == "user" -%}
    <｜User｜>{{ message.content }}<｜Assistant｜></think>
  {%- elif message.role == "assistant" -%}
    {{ message.get('content', '') }}
    {%- if message.get('tool_calls') -%}
{{ "\n\n" }}<{{ dsml_token }}function_calls>
{%- for tool_call in message.tool_calls -%}
{{ "\n" }}<{{ dsml_token }}invoke name="{{ tool_call.function.name }}">{{ "\n" }}{{- encode_arguments_to_dsml(tool_call) -}}{{ "\n" }}</{{ dsml_token }}invoke>
{%- endfor -%}
{{ "\n" }}</{{ dsml_token }}function_calls>
    {%- endif -%}
    {{ eos_token }}
  {%- endif -%}
{%- endfor -%})TPL";

// llama.cpp models/templates/Kimi-K2-Thinking.jinja: render_toolcalls, tool_declare and the turns.
const std::string kKimi = R"TPL({%- macro render_toolcalls(message) -%}
  <|tool_calls_section_begin|>
  {%- for tool_call in message['tool_calls'] -%}
    {%- set formatted_id = tool_call['id'] -%}
    <|tool_call_begin|>{{ formatted_id }}<|tool_call_argument_begin|>{% if tool_call['function']['arguments'] is string %}{{ tool_call['function']['arguments'] }}{% else %}{{ tool_call['function']['arguments'] | tojson }}{% endif %}<|tool_call_end|>
  {%- endfor -%}
  <|tool_calls_section_end|>
{%- endmacro -%}
{%- if tools -%}
  <|im_system|>tool_declare<|im_middle|>{{ tools | tojson }}<|im_end|>
{%- endif -%}
{%- for message in messages -%}
  {%- if message['role'] == 'user' -%}
    <|im_user|>user<|im_middle|>{{ message['content'] }}<|im_end|>
  {%- elif message['role'] == 'assistant' -%}
    <|im_assistant|>assistant<|im_middle|><think></think>{{ message['content'] }}
    {%- if message.get('tool_calls') -%}
      {{render_toolcalls(message)}}
    {%- endif -%}
  <|im_end|>
  {%- endif -%}
{%- endfor -%}
{%- if add_generation_prompt -%}
  <|im_assistant|>assistant<|im_middle|>
{%- endif -%})TPL";

// llama.cpp models/templates/meetkai-functionary-medium-v3.2.jinja: the message loop and prompt.
const std::string kFunctionary = R"TPL({%- for message in messages -%}
    {%- if message['role'] == 'user' or message['role'] == 'system' -%}
        {{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] + '<|eot_id|>' }}
    {%- else -%}
        {{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'}}
        {%- if message['content'] -%}
            {{ '>>>all\n' + message['content'] }}
        {%- endif -%}
        {%- if 'tool_calls' in message and message['tool_calls'] -%}
            {%- for tool_call in message['tool_calls'] -%}
                {{ '>>>' + tool_call['function']['name'] + '\n' + tool_call['function']['arguments'] }}
            {%- endfor -%}
        {%- endif -%}
        {{ '<|eot_id|>' }}
    {%- endif -%}
{%- endfor -%}
{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n>>>' }}{% endif %})TPL";

}  // namespace

TEST(DialectFamilies, OfficialTemplateExcerptsRoundTrip) {
  const std::vector<Excerpt> excerpts = {
      {"DeepSeek-V3.2.jinja", "deepseek_v32", kDsml,
       R"([{"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Paris, \"France\"\n<b>", "days": 3, "opts": {"u": ["c", null], "x": true}}}},
           {"id": "b", "type": "function", "function": {"name": "get_time", "arguments": {"tz": "Tōkyō"}}}])",
       R"({"eos_token": "<｜end▁of▁sentence｜>"})"},
      {"Kimi-K2-Thinking.jinja", "kimi_k2", kKimi,
       R"([{"id": "functions.get_weather:0", "type": "function", "function": {"name": "get_weather", "arguments": {"location": "Paris, France", "days": 3}}},
           {"id": "functions.get_time:1", "type": "function", "function": {"name": "get_time", "arguments": {"tz": "Tōkyō"}}}])",
       R"({"tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]})"},
      {"meetkai-functionary-medium-v3.2.jinja", "functionary_v32", kFunctionary,
       R"([{"id": "a", "type": "function", "function": {"name": "get_weather", "arguments": "{\"location\": \"Paris, France\", \"days\": 3}"}},
           {"id": "b", "type": "function", "function": {"name": "get_time", "arguments": "{\"tz\": \"Tōkyō\"}"}}])",
       "{}"},
  };
  for (const Excerpt& e : excerpts) {
    SCOPED_TRACE(e.source);
    Value calls = json::parse(e.calls);
    std::string part = assistant_part(e.tmpl, Value::dict(), json::parse(e.extra), calls);
    auto m = detect_and_parse(e.tmpl, e.dialect, part);
    ASSERT_EQ(m.tool_calls.size(), calls.items().size()) << part;
    for (size_t i = 0; i < m.tool_calls.size(); ++i) {
      const Value& f = *calls.items()[i].dict_obj().find("function");
      const Value& args = *f.dict_obj().find("arguments");
      EXPECT_EQ(m.tool_calls[i].name, f.dict_obj().find("name")->str());
      EXPECT_EQ(m.tool_calls[i].arguments, args.is_str() ? dialects::scan::compact_json(json::parse(args.str()))
                                                         : dialects::scan::compact_json(args));
    }
    if (std::string(e.dialect) == "kimi_k2") {
      EXPECT_EQ(m.tool_calls[0].id, "functions.get_weather:0");
      EXPECT_EQ(m.tool_calls[1].id, "functions.get_time:1");
    }
    EXPECT_TRUE(m.warnings.empty()) << part;
  }
}

// A long argument fed 4 bytes at a time: each family's parser must keep linear cost (a parser that
// re-scanned its buffer on every feed would not finish), and the argument must come out whole.
TEST(DialectFamilies, LongArgumentsInSmallChunks) {
  const std::string big(1 << 18, 'x');
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{\"s\": \"" + big + "\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
      {"deepseek_v32", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">\n<｜DSML｜parameter name=\"s\" string=\"true\">" + big +
                           "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>"},
      {"kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{\"s\": \"" + big +
                      "\"}<|tool_call_end|><|tool_calls_section_end|>"},
      {"llama3_builtin", "<|python_tag|>f.call(s=\"" + big + "\")"},
      {"functionary_v32", "f\n{\"s\": \"" + big + "\"}"},
      {"functionary_v31", "<function=f>{\"s\": \"" + big + "\"}</function>"},
      {"firefunction_v2", " functools[{\"name\": \"f\", \"arguments\": {\"s\": \"" + big + "\"}}]"},
      {"command_r7b", "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"f\", \"parameters\": {\"s\": \"" + big +
                          "\"}}]<|END_ACTION|>"},
  };
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    auto m = dialects::collect(dialect_test::feed_chunked(*dialects::find(name), {}, text, 4));
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].arguments, "{\"s\":\"" + big + "\"}");
  }
  // Raw code (no closing marker until the end) too.
  for (const char* name : {"llama3_builtin", "functionary_v32"}) {
    SCOPED_TRACE(name);
    std::string text = std::string(std::string_view(name) == "llama3_builtin" ? "<|python_tag|>" : "python\n") + "print('" + big + "')";
    auto m = dialects::collect(dialect_test::feed_chunked(*dialects::find(name), {}, text, 4));
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].arguments, "{\"code\":\"print('" + big + "')\"}");
  }
}

// Hermes-style tags holding a Python dict: read as a literal up to the close tag within 64 KiB;
// past the bound, or not a call, it is content with a warning, decided the same in any chunking.
TEST(DialectFamilies, TaggedPythonDictBoundedAndChunkingFree) {
  const toolchat::dialects::Dialect* d = toolchat::dialects::find("hermes");
  ASSERT_NE(d, nullptr);
  toolchat::dialects::ParseOptions o;
  const std::string big(70 * 1024, 'x');
  const std::string texts[] = {
      "<tool_call>{'name': 'f', 'arguments': {'s': '" + big + "'}}</tool_call> tail",
      "<tool_call>{'name': 'f', 'arguments': {'s': '" + std::string(1000, 'y') + "'}}</tool_call> tail",
      "<tool_call>{'name': 'f', 'arguments': {'a': 1}}",
      "<tool_call>{'name': 'f', 'arguments': {'a': 1",
  };
  const char* expect[] = {"malformed_call", "\"name\": \"f\"", "missing_close_marker", "truncated_call"};
  for (size_t i = 0; i < 4; ++i) {
    std::string whole = dialect_test::events_text(dialect_test::feed_chunked(*d, o, texts[i], texts[i].size()));
    for (size_t chunk : {1, 7, 4096}) EXPECT_EQ(dialect_test::events_text(dialect_test::feed_chunked(*d, o, texts[i], chunk)), whole) << i << " chunk " << chunk;
    EXPECT_NE(whole.find(expect[i]), std::string::npos) << i << ": " << whole.substr(0, 300);
  }
}
