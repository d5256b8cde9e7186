// Dialect inference (src/dialects/infer.hpp) over the corpus: for every template that renders tool
// calls natively (capabilities: supports_tool_calls), the dialect inferred from the template alone
// (the registry is not consulted) must round-trip 1 and 2 calls; the templates it cannot handle are
// listed with the reason (checked both ways). The inferred parser must also give the same events
// for every chunking of the renders.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "chat/caps.hpp"
#include "dialects/infer.hpp"
#include "corpus_templates.hpp"
#include "dialect_test_util.hpp"
#include "value/json.hpp"

using namespace toolchat;
using dialect_test::events_text;

namespace {

std::vector<test_corpus::CorpusTemplate> corpus() { return test_corpus::corpus_templates(); }

// Templates with native tool calls whose encoding inference does not cover: Python call syntax
// (quoted string values, unquoted numbers), Gemma 4's <|"|> quoting, a name rendered twice. The
// registered families for these formats read them.
const std::map<std::string, std::string> kNotInferred = {
    {"vllm-muse_glimmer.jinja", "the name is rendered twice (to=NAME header and <atem:invoke name=NAME>), "
                                "each call in its own assistant turn"},
    {"vllm-gemma3_pythonic.jinja", "Python call syntax: [NAME(KEY='VALUE')]"},
    {"vllm-gemma3_pythonic_both.jinja", "Python call syntax: [NAME(KEY='VALUE')]"},
    {"vllm-llama3.2_pythonic.jinja", "Python call syntax, values unquoted: [NAME(KEY=VALUE)]"},
    {"vllm-llama4_pythonic.jinja", "Python call syntax: [NAME(KEY=VALUE)]"},
    {"vllm-olmo3.jinja", "Python call syntax: NAME(KEY='VALUE') lines in <function_calls>"},
    {"vllm-minicpm3.jinja", "Python call syntax in a ```python fence"},
    {"vllm-toolace.jinja", "Python call syntax, and the template appends 'r' to values"},
    {"vllm-templates__toolace.jinja", "Python call syntax, and the template appends 'r' to values"},
    {"vllm-gemma4.jinja", "Gemma 4 call:NAME{KEY:<|\"|>VALUE<|\"|>}: strings quoted with <|\"|>, numbers bare"},
};

std::vector<dialects::Event> parse_chunked(const dialects::InferredDialect& d, std::string_view text, size_t chunk,
                                           bool reasoning_open) {
  dialects::ParseOptions o;
  o.reasoning_open = reasoning_open;
  return dialects::coalesce(dialect_test::feed_chunked(d, o, text, chunk));
}

}  // namespace

TEST(DialectInfer, CorpusRoundTrip) {
  std::set<std::string> failing;
  size_t native = 0, inferred = 0;
  for (const auto& t : corpus()) {
    chat::Capabilities caps;
    try {
      caps = chat::detect_capabilities(t.source, t.tokens);
    } catch (const Error&) {
      continue;  // does not compile (the oracle fails too)
    }
    if (!caps.supports_tool_calls) continue;
    ++native;
    dialects::TemplateProbe probe(t.source, t.tokens);
    std::string why;
    auto d = dialects::infer(probe, &why);
    if (!d) {
      failing.insert(t.path);
      if (!kNotInferred.count(t.path)) ADD_FAILURE() << t.path << ": not inferred: " << why;
      continue;
    }
    auto cases = dialects::round_trip(probe, d->factory());
    if (!dialects::round_trip_ok(cases)) {
      failing.insert(t.path);
      if (!kNotInferred.count(t.path))
        ADD_FAILURE() << t.path << ": inferred " << json::dumps(d->spec().to_json()) << " but the round trip fails: "
                      << json::dumps(dialects::round_trip_json(cases));
      continue;
    }
    ++inferred;
    // Every split point of the rendered calls gives the same events as the whole text.
    for (const auto& rc : cases) {
      if (rc.outcome != dialects::RoundTripCase::Outcome::Ok) continue;
      bool ro = false;
      std::string whole = events_text(parse_chunked(*d, rc.rendered, rc.rendered.size() + 1, ro));
      for (size_t chunk : {1, 2, 3, 7})
        EXPECT_EQ(events_text(parse_chunked(*d, rc.rendered, chunk, ro)), whole) << t.path << " chunk " << chunk;
    }
  }
  for (const auto& [path, why] : kNotInferred)
    if (!failing.count(path)) ADD_FAILURE() << "listed as not inferred but works now: " << path << " (" << why << ")";
  EXPECT_GT(native, 40u);
  std::printf("inference: %zu templates with native tool calls, %zu inferred and round-tripped\n", native, inferred);
}

// Hand-checked specs: the markers and paths inference must derive for well-known formats
// (docs/dialects.md §3.1 Hermes, §2.1 DeepSeek V3, §5.1 Llama 3.1, §3.2 Qwen3-Coder).
TEST(DialectInfer, KnownFormats) {
  std::map<std::string, std::string> want = {
      {"vllm-hermes.jinja",
       R"({"form":"call_object","block_open":"","call_open":"<tool_call>","call_close":"</tool_call>","separator":"","block_close":"","name_path":["name"],"arguments_path":["arguments"],"parallel":true,"start_only":false})"},
      {"deepseek-ai-DeepSeek-V3.jinja",
       "{\"form\":\"name_then_arguments\",\"block_open\":\"<｜tool▁calls▁begin｜>\",\"call_open\":\"<｜tool▁call▁begin｜>function<｜tool▁sep｜>\",\"name_separator\":\"```json\",\"call_close\":\"```<｜tool▁call▁end｜>\",\"separator\":\"\",\"block_close\":\"<｜tool▁calls▁end｜>\",\"parallel\":true,\"start_only\":false}"},
      // Llama 3.1 JSON (docs/dialects.md §5.1): the bare object, "parameters", one call per message.
      {"vllm-llama3.1_json.jinja",
       R"({"form":"call_object","block_open":"","call_open":"","call_close":"","separator":"","block_close":"","name_path":["name"],"arguments_path":["parameters"],"parallel":false,"start_only":true})"},
      // Llama 3.1 user-defined tool calling: <function=NAME>{...}</function>, ended by <|eom_id|>.
      {"vllm-llama3.1_usr_def_tool_call.jinja",
       R"({"form":"name_then_arguments","block_open":"","call_open":"<function=","name_separator":">","call_close":"</function>","separator":"","block_close":"","parallel":false,"start_only":false})"},
      // Qwen3-Coder (docs/dialects.md §3.2): <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>…
      {"vllm-qwen3coder.jinja",
       "{\"form\":\"key_value\",\"block_open\":\"\",\"call_open\":\"<tool_call>\\n<function=\",\"name_separator\":\">\\n<parameter=\",\"key_value_separator\":\">\",\"argument_separator\":\"</parameter>\\n<parameter=\",\"call_close\":\"</parameter>\\n</function>\\n</tool_call>\",\"separator\":\"\",\"block_close\":\"\",\"parallel\":true,\"start_only\":false}"},
  };
  size_t seen = 0;
  for (const auto& t : corpus()) {
    auto it = want.find(t.path);
    if (it == want.end()) continue;
    ++seen;
    std::string why;
    auto d = dialects::infer(t.source, t.tokens, &why);
    ASSERT_TRUE(d) << t.path << ": " << why;
    json::DumpOptions o;
    o.ensure_ascii = false;
    o.separators = std::make_pair(std::string(","), std::string(":"));
    EXPECT_EQ(json::dumps(d->spec().to_json(), o), it->second) << t.path;
  }
  EXPECT_EQ(seen, want.size());
}

// Malformed and truncated output through an inferred parser: content plus a warning, never a call.
TEST(DialectInfer, MalformedAndTruncated) {
  dialects::InferredSpec s;
  s.call_open = "<tool_call>";
  s.call_close = "</tool_call>";
  s.name_path = {"name"};
  s.args_path = {"arguments"};
  dialects::InferredDialect d(s);
  auto run = [&](std::string_view text) {
    dialects::EventLog log;
    auto p = d.make_parser({});
    p->feed(text, log);
    p->finish(log);
    return dialects::collect(log.events);
  };
  auto m = run("Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1");
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, "Hi <tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1");
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0].kind, dialects::WarningKind::TruncatedCall);
  m = run("<tool_call>not json</tool_call> ok");
  EXPECT_TRUE(m.tool_calls.empty());
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_EQ(m.warnings[0].kind, dialects::WarningKind::MalformedCall);
  m = run("<tool_call>{\"name\": \"f\", \"arguments\": {\"a\": 1}}</tool_call>\nDone");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, "{\"a\":1}");
  EXPECT_EQ(m.content, "Done");
}

// KEY/VALUE arguments: values typed by the tool's schema when given, else JSON scalars when they
// read as one; a value cut off by the end of the output gives the text back as content.
TEST(DialectInfer, KeyValueTyping) {
  dialects::InferredSpec s;
  s.form = dialects::InferredSpec::Form::KeyValue;
  s.call_open = "<tool_call>\n<function=";
  s.name_sep = ">\n<parameter=";
  s.kv_sep = ">";
  s.arg_sep = "</parameter>\n<parameter=";
  s.call_close = "</parameter>\n</function>\n</tool_call>";
  dialects::InferredDialect d(s);
  const std::string out =
      "<tool_call>\n<function=set>\n<parameter=code>\n007\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>";
  auto parse = [&](std::string_view text, const Value& tools) {
    dialects::ParseOptions o;
    o.tools = tools;
    dialects::EventLog log;
    auto p = d.make_parser(o);
    for (size_t i = 0; i < text.size(); i += 5) p->feed(text.substr(i, 5), log);
    p->finish(log);
    return dialects::collect(log.events);
  };
  Value tools = json::parse(
      R"([{"type": "function", "function": {"name": "set", "parameters": {"type": "object", "properties": {"code": {"type": "string"}, "n": {"type": "integer"}}}}}])");
  auto m = parse(out, tools);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "set");
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"code":"007","n":3})");
  m = parse("<tool_call>\n<function=set>\n<parameter=code>\nabc\n</parameter>\n<parameter=n>\n3\n</parameter>\n</function>\n</tool_call>",
            Value());
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"code":"abc","n":"3"})");  // no schema: text (issue 12 §5)
  // A tool the request does not offer: its call is content as written (issue 12 §6).
  m = parse("Hi " + out + " ok", json::parse(R"([{"type": "function", "function": {"name": "other"}}])"));
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, "Hi " + out + " ok");
  m = parse(out.substr(0, 50), tools);
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, out.substr(0, 50));
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0].kind, dialects::WarningKind::TruncatedCall);
}

namespace {

// An inferred dialect from its spec's JSON (InferredSpec::to_json's keys).
dialects::InferredDialect spec(const std::string& json_text) {
  Value v = json::parse(json_text);
  dialects::InferredSpec s;
  auto str = [&](const char* k) {
    const Value* x = v.dict_obj().find(k);
    return x ? std::string(x->str()) : std::string();
  };
  auto list = [&](const char* k) {
    std::vector<std::string> out;
    if (const Value* x = v.dict_obj().find(k))
      for (const Value& e : x->items()) out.emplace_back(e.str());
    return out;
  };
  std::string form = str("form");
  s.form = form == "call_object" ? dialects::InferredSpec::Form::CallObject
           : form == "key_value" ? dialects::InferredSpec::Form::KeyValue
                                 : dialects::InferredSpec::Form::NameThenArgs;
  s.block_open = str("block_open");
  s.call_open = str("call_open");
  s.name_sep = str("name_separator");
  s.kv_sep = str("key_value_separator");
  s.arg_sep = str("argument_separator");
  s.call_close = str("call_close");
  s.block_close = str("block_close");
  s.name_path = list("name_path");
  s.args_path = list("arguments_path");
  return dialects::InferredDialect(s);
}

}  // namespace

// issue 12 §1: an inferred dialect streams a call as the model writes it, in each form: the call
// is announced once its name is known and a long string value goes out as it arrives; the events
// are the same for every chunking, and the fragments join to the whole result's arguments.
TEST(DialectInfer, CallsStreamInEveryForm) {
  std::string value;
  for (int i = 0; value.size() < 2000; ++i) value += "line " + std::to_string(i) + " of the body, ";
  value += "end.";
  struct Case {
    std::string spec, text;
  };
  // The specs are what DialectInfer.KnownFormats infers from the corpus templates.
  const Case cases[] = {
      {R"({"form":"call_object","call_open":"<tool_call>","call_close":"</tool_call>","name_path":["name"],"arguments_path":["arguments"]})",
       "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}\n</tool_call>"},
      {R"({"form":"call_object","call_open":"<call>","call_close":"</call>","name_path":["function","name"],"arguments_path":["function","arguments"]})",
       "<call>{\"type\": \"function\", \"function\": {\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}}</call>"},
      // A wrapper member other than "function" (issue 12 §1: nested name / arguments paths stream).
      {R"({"form":"call_object","call_open":"<call>","call_close":"</call>","name_path":["tool_call","name"],"arguments_path":["tool_call","parameters"]})",
       "<call>{\"tool_call\": {\"name\": \"write_file\", \"parameters\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}}</call>"},
      {R"({"form":"name_then_arguments","call_open":"<function=","name_separator":">","call_close":"</function>"})",
       "<function=write_file>{\"path\": \"a.txt\", \"content\": \"VALUE\"}</function>"},
      {"{\"form\":\"name_then_arguments\",\"block_open\":\"<｜tool▁calls▁begin｜>\",\"call_open\":\"<｜tool▁call▁begin｜>function<｜tool▁sep｜>\","
       "\"name_separator\":\"```json\",\"call_close\":\"```<｜tool▁call▁end｜>\",\"block_close\":\"<｜tool▁calls▁end｜>\"}",
       "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}\n"
       "```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
      {"{\"form\":\"key_value\",\"call_open\":\"<tool_call>\\n<function=\",\"name_separator\":\">\\n<parameter=\",\"key_value_separator\":\">\","
       "\"argument_separator\":\"</parameter>\\n<parameter=\",\"call_close\":\"</parameter>\\n</function>\\n</tool_call>\"}",
       "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nVALUE\n</parameter>\n</function>\n</tool_call>"},
  };
  dialects::ParseOptions o;
  o.tools = json::parse(R"([{"type":"function","function":{"name":"write_file","parameters":{"type":"object","properties":)"
                        R"({"path":{"type":"string"},"content":{"type":"string"}}}}}])");
  const std::string want = R"({"path":"a.txt","content":")" + value + "\"}";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    auto d = spec(c.spec);
    std::string text = c.text;
    size_t at = text.find("VALUE");
    text.replace(at, 5, value);
    dialect_test::expect_streamed_call(d, o, text, at + value.size() / 2, "write_file", want, 27 + value.size() / 2 - 8);
    // Cut short inside the value: what was streamed, then the call's end and a truncated_call
    // warning; the whole result is the call's text as content.
    std::string cut = text.substr(0, at + 1000);
    auto m = dialects::collect(dialect_test::feed_cut(d, o, cut, {}));
    EXPECT_TRUE(m.tool_calls.empty());
    EXPECT_EQ(m.content, cut);
    ASSERT_EQ(m.warnings.size(), 1u);
    EXPECT_EQ(m.warnings[0].kind, dialects::WarningKind::TruncatedCall);
  }
}

// Random mixes of an inferred dialect's markers, JSON pieces and text: the same events for every
// chunking, every call's arguments one JSON object.
TEST(DialectInfer, MarkerSoupIsChunkingInvariant) {
  const std::pair<const char*, std::vector<std::string>> specs[] = {
      {R"({"form":"call_object","call_open":"<tool_call>","call_close":"</tool_call>","name_path":["name"],"arguments_path":["arguments"]})",
       {"<tool_call>", "</tool_call>", "{\"name\": \"f\", \"arguments\": {\"a\": 1}}", "{\"name\": \"f\"", ", \"arguments\": ", "{", "}"}},
      {R"({"form":"name_then_arguments","call_open":"<function=","name_separator":">","call_close":"</function>"})",
       {"<function=", "f>", "</function>", "{\"a\": \"x\"}", "{", "}", ">"}},
      {"{\"form\":\"key_value\",\"call_open\":\"<tool_call>\\n<function=\",\"name_separator\":\">\\n<parameter=\",\"key_value_separator\":\">\","
       "\"argument_separator\":\"</parameter>\\n<parameter=\",\"call_close\":\"</parameter>\\n</function>\\n</tool_call>\"}",
       {"<tool_call>\n<function=", "f>\n<parameter=", "k>", "</parameter>\n<parameter=", "</parameter>\n</function>\n</tool_call>", "v", "3"}},
      {R"({"form":"call_object","call_open":"<call>","call_close":"</call>","name_path":["tool_call","name"],"arguments_path":["tool_call","args"]})",
       {"<call>", "</call>", "{\"tool_call\": {\"name\": \"f\", \"args\": {\"a\": 1}}}", "{\"tool_call\": ", "{\"name\": \"f\"",
        ", \"args\": ", "{\"name\": \"f\", \"args\": {}}", "{", "}"}},
  };
  const std::vector<std::string> common = {"a", " ", "\n", "é", "🌍", "\"", "\\", "[", "]", ":", ",", "<", ">", "<think>", "</think>"};
  std::mt19937_64 rng(20261126);
  for (const auto& [json_spec, own] : specs) {
    SCOPED_TRACE(json_spec);
    auto d = spec(json_spec);
    size_t calls = 0;
    for (int round = 0; round < 200; ++round) {
      std::string text;
      size_t n = 1 + rng() % 24;
      for (size_t i = 0; i < n; ++i) text += rng() % 2 ? own[rng() % own.size()] : common[rng() % common.size()];
      dialects::ParseOptions o;
      auto whole = dialect_test::feed_cut(d, o, text, {});
      ASSERT_EQ(events_text(dialect_test::feed_chunked(d, o, text, 1)), events_text(whole)) << text;
      ASSERT_EQ(events_text(dialect_test::feed_chunked(d, o, text, 3)), events_text(whole)) << text;
      auto m = dialects::collect(whole);
      calls += m.tool_calls.size();
      for (const auto& c : m.tool_calls) {
        Value v;
        EXPECT_NO_THROW(v = json::parse(c.arguments)) << text << "\n" << c.arguments;
        EXPECT_TRUE(v.is_dict()) << text;
      }
    }
    EXPECT_GT(calls, 0u) << "the soup never formed a call";
  }
}
