// The gateway's OpenAI-faithfulness rules without sockets (issue 11): what the OpenAI API refuses is
// refused with its JSON path, fields the gateway cannot honour are refused by name, tool and
// response_format schemas are checked, answers to requests without tools are the model's text as
// written, structured output reaches each backend protocol under its own field, the developer role
// is rendered as system, the parser's warnings reach the client, and the access log line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "gateway/access_log.hpp"
#include "gateway/api_error.hpp"
#include "gateway/as_written.hpp"
#include "gateway/backend_protocol.hpp"
#include "gateway/json_schema.hpp"
#include "gateway/openai_out.hpp"
#include "gateway/prompt.hpp"
#include "gateway/request.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::gateway;

namespace {

ApiError rejection(const std::string& body) {
  try {
    parse_chat_request(body, {});
  } catch (const ApiError& e) {
    return e;
  }
  return ApiError(0, "accepted", "");
}

std::string user_and(const std::string& fields) {
  return R"({"messages": [{"role": "user", "content": "hi"}])" + (fields.empty() ? "" : ", " + fields) + "}";
}

std::string tool_with(const std::string& params) {
  return R"("tools": [{"type": "function", "function": {"name": "f", "parameters": )" + params + "}}]";
}

const char* kCall = R"({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]})";

}  // namespace

TEST(GatewayOpenAIRules, RefusedWithTheJsonPath) {
  struct Case { std::string body; std::string param; std::string code; };
  const std::vector<Case> cases = {
      // tool messages answer an earlier call by id
      {R"({"messages": [{"role": "user", "content": "x"}, {"role": "tool", "content": "r"}]})", "messages[1].tool_call_id", ""},
      {R"({"messages": [{"role": "user", "content": "x"}, )" + std::string(kCall) + R"(, {"role": "tool", "tool_call_id": "call_2", "content": "r"}]})",
       "messages[2].tool_call_id", ""},
      {R"({"messages": [{"role": "tool", "tool_call_id": "call_1", "content": "r"}, )" + std::string(kCall) + "]}", "messages[0].tool_call_id", ""},
      // content parts
      {R"({"messages": [{"role": "user", "content": [{"type": "txt", "text": "a"}]}]})", "messages[0].content[0].type", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "text"}]}]})", "messages[0].content[0].text", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]})", "messages[0].content[0].text", ""},
      {R"({"messages": [{"role": "user", "content": [{"text": "a"}]}]})", "messages[0].content[0].type", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "refusal", "refusal": "no"}]}]})", "messages[0].content[0].type", ""},
      {R"({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}]})",
       "messages[0].content[0].type", "unsupported_content_part"},
      {R"({"messages": [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}]})", "messages[0].content[0].type", "unsupported_content_part"},
      // tool schemas
      {user_and(tool_with(R"({"type": 123})")), "tools[0].function.parameters.type", ""},
      {user_and(tool_with(R"({"type": "object", "properties": {"a": {"type": "string", "pattern": "(["}}})")),
       "tools[0].function.parameters.properties.a.pattern", ""},
      {user_and(tool_with(R"({"type": "object", "properties": {"a": {"type": ["string", 1]}}})")),
       "tools[0].function.parameters.properties.a.type[1]", ""},
      {user_and(tool_with(R"({"type": "object", "properties": []})")), "tools[0].function.parameters.properties", ""},
      {user_and(tool_with(R"({"type": "object", "required": "a"})")), "tools[0].function.parameters.required", ""},
      {user_and(tool_with(R"({"$ref": "#/$defs/missing"})")), "tools[0].function.parameters.$ref", ""},
      {user_and(tool_with(R"({"anyOf": []})")), "tools[0].function.parameters.anyOf", ""},
      // text that is not text, numbers that are not numbers
      {R"({"messages": [{"role": "user", "content": "a \ud800 b"}]})", "messages[0].content", ""},
      {R"({"messages": [{"role": "user", "content": "a", "name": "\udfff"}]})", "messages[0].name", ""},
      {user_and(R"("temperature": NaN)"), "temperature", ""},
      {user_and(R"("metadata": {"x": [Infinity]})"), "metadata.x[0]", ""},
      {user_and(R"("seed": -Infinity)"), "seed", ""},
      // templates come from the served model only
      {user_and(R"("chat_template_kwargs": {"chat_template": "{{ 1 }}"})"), "chat_template_kwargs.chat_template", "unsupported_parameter"},
      {user_and(R"("chat_template": "{{ 1 }}")"), "chat_template", "unsupported_parameter"},
      // what the gateway cannot honour
      {user_and(R"("n": 2)"), "n", "unsupported_parameter"},
      {user_and(R"("top_logprobs": 3)"), "top_logprobs", ""},  // only with logprobs: true
      {user_and(R"("presence_penalty": 2.5)"), "presence_penalty", ""},
      {user_and(R"("frequency_penalty": "1")"), "frequency_penalty", ""},
      {user_and(R"("logit_bias": [[50256, -100]])"), "logit_bias", ""},
      {user_and(R"("logit_bias": {"hello": -100})"), "logit_bias.hello", ""},
      {user_and(R"("logit_bias": {"50256": -101})"), "logit_bias.50256", ""},
      {user_and(R"("logit_bias": {"50256": "ban"})"), "logit_bias.50256", ""},
      {user_and(R"("modalities": ["text", "audio"])"), "modalities", "unsupported_parameter"},
      {user_and(R"("functions": [{"name": "f"}])"), "functions", "unsupported_parameter"},
      {user_and(R"("stream_options": {"include_usage": true})"), "stream_options", ""},
      // response_format
      {user_and(R"("response_format": {"type": "xml"})"), "response_format.type", ""},
      {user_and(R"("response_format": {"type": "json_schema"})"), "response_format.json_schema", ""},
      {user_and(R"("response_format": {"type": "json_schema", "json_schema": {"schema": {}}})"), "response_format.json_schema.name", ""},
      {user_and(R"("response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": 1}}})"),
       "response_format.json_schema.schema.type", ""},
      {user_and(R"("response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "float"}}})"),
       "response_format.json_schema.schema.type", ""},
      {user_and(R"("response_format": {"type": "json_object"}, )" + tool_with("{}")), "response_format", "unsupported_parameter"},
  };
  for (const auto& c : cases) {
    ApiError e = rejection(c.body);
    EXPECT_EQ(e.status, 400) << c.body << " -> " << e.message;
    EXPECT_EQ(e.param, c.param) << c.body << " -> " << e.message;
    EXPECT_EQ(e.code, c.code) << c.body << " -> " << e.message;
    EXPECT_EQ(e.message.rfind(c.param + ": ", 0), 0u) << "the message starts with the path: " << e.message;
  }
}

TEST(GatewayOpenAIRules, AcceptedAsTheOpenAIApiAcceptsThem) {
  // Accepted and ignored: user, store, metadata; the API's default values of refused fields.
  ChatRequest r = parse_chat_request(
      user_and(R"("user": "u-1", "store": false, "metadata": {"k": "v"}, "n": 1, "logprobs": false, "presence_penalty": 0,
                  "frequency_penalty": 0, "logit_bias": {}, "modalities": ["text"], "service_tier": "auto")"),
      {});
  EXPECT_TRUE(r.model.empty());  // missing model: the served one (the server decides)
  EXPECT_FALSE(r.wants_json());
  // A tool message answering an earlier call; text and refusal parts; developer role; a valid pair
  // of surrogate escapes is text.
  parse_chat_request(std::string(R"({"messages": [{"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
      {"role": "user", "content": "x \ud83d\ude00"}, )") + kCall + R"(,
      {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "ok"}]},
      {"role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}]})", {});
  // Schemas as client libraries write them, Python-style type names included (tool schemas only).
  parse_chat_request(user_and(tool_with(R"({"type": "object", "properties": {"a": {"type": ["string", "null"], "pattern": "^[a-z]+$"},
      "b": {"$ref": "#/$defs/B"}, "c": {"anyOf": [{"type": "integer"}, {"type": "boolean"}]}, "f": {"type": "float"}}, "required": ["a"],
      "additionalProperties": false, "$defs": {"B": {"type": "array", "items": {"type": "number"}}}})")), {});
  // response_format with tools is fine when the model does not see them.
  ChatRequest j = parse_chat_request(user_and(R"("response_format": {"type": "json_schema", "json_schema": {"name": "n",
      "schema": {"type": "object"}, "strict": true}}, "tool_choice": "none", )" + tool_with("{}")), {});
  EXPECT_EQ(j.response_format.kind, ResponseFormat::JsonSchema);
  EXPECT_EQ(j.response_format.name, "n");
  EXPECT_FALSE(j.shows_tools());
}

TEST(GatewayOpenAIRules, SchemaViolations) {
  Value s = json::parse(R"({"type": "object", "properties": {"city": {"type": "string", "pattern": "^[A-Z]"},
      "days": {"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 3},
      "unit": {"enum": ["c", "f"]}, "ref": {"$ref": "#/$defs/R"}}, "required": ["city"], "additionalProperties": false,
      "$defs": {"R": {"anyOf": [{"type": "null"}, {"type": "string", "minLength": 2}]}}})");
  check_schema(s, "s", true);
  auto why = [&](const char* instance) { return schema_violation(json::parse(instance), s).value_or("ok"); };
  EXPECT_EQ(why(R"({"city": "Paris", "days": [1, 2], "unit": "c", "ref": null})"), "ok");
  EXPECT_EQ(why(R"({"city": "Paris", "ref": "ab", "days": [2.0]})"), "ok");
  EXPECT_EQ(why(R"({"days": [1]})"), "$: missing required property 'city'");
  EXPECT_EQ(why(R"({"city": 3})"), "$.city: expected string, got integer");
  EXPECT_EQ(why(R"({"city": "paris"})"), "$.city: does not match the pattern");
  EXPECT_EQ(why(R"({"city": "P", "days": [1, 0]})"), "$.days[1]: below the minimum");
  EXPECT_EQ(why(R"({"city": "P", "days": [1, 1, 1, 1]})"), "$.days: more items than maxItems");
  EXPECT_EQ(why(R"({"city": "P", "unit": "k"})"), "$.unit: not one of the enum values");
  EXPECT_EQ(why(R"({"city": "P", "extra": 1})"), "$.extra: no value is allowed here");
  EXPECT_EQ(why(R"({"city": "P", "ref": "a"})"), "$.ref: matches none of anyOf");
  EXPECT_EQ(why("[1]"), "$: expected object, got array");
}

namespace {

// The events a dialect's parser gives for `text` fed in `chunk`-byte pieces, through AsWritten.
dialects::ParsedMessage as_written(const std::string& dialect, const std::string& text, size_t chunk) {
  const dialects::Dialect* d = dialects::find(dialect);
  EXPECT_NE(d, nullptr);
  auto parser = d->make_parser({});
  dialects::EventLog log;
  AsWritten aw(log);
  for (size_t i = 0; i < text.size(); i += chunk) {
    std::string_view piece = std::string_view(text).substr(i, chunk);
    aw.raw(piece);
    parser->feed(piece, aw);
  }
  parser->finish(aw);
  return dialects::collect(log.events);
}

}  // namespace

TEST(GatewayOpenAIRules, WithoutToolsTheAnswerIsTheTextAsWritten) {
  const std::string calls =
      "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"get_time\", \"arguments\": {}}\n</tool_call>";
  for (size_t chunk : {1u, 3u, 7u, 1000u}) {
    dialects::ParsedMessage m = as_written("hermes", calls, chunk);
    EXPECT_TRUE(m.tool_calls.empty()) << chunk;
    EXPECT_EQ(m.content, calls) << chunk;
    EXPECT_TRUE(m.warnings.empty()) << chunk;
    // Reasoning is still separated; the rest is as written.
    dialects::ParsedMessage r = as_written("hermes", "<think>Weather, so a call.</think>" + calls, chunk);
    EXPECT_EQ(r.reasoning_content, "Weather, so a call.") << chunk;
    EXPECT_EQ(r.content, calls) << chunk;
    EXPECT_TRUE(r.tool_calls.empty()) << chunk;
  }
  EXPECT_EQ(as_written("hermes", "Just text.", 2).content, "Just text.");
}

TEST(GatewayOpenAIRules, StructuredOutputReachesEveryBackend) {
  GenRequest g;
  g.prompt = "P";
  g.messages = Value::list({});
  g.response_format.kind = ResponseFormat::JsonSchema;
  g.response_format.name = "weather";
  g.response_format.schema = json::parse(R"({"type": "object", "properties": {"t": {"type": "number"}}})");
  auto body = [&](BackendKind k) { return json::parse(protocol_for(k, "").body(g, "m")); };
  auto field = [](const Value& v, const char* k) { return json::dumps(*v.dict_obj().find(k)); };
  // llama.cpp /completion: json_schema (tools/server/server-schema.cpp); OpenAI: response_format;
  // Ollama: format (a schema, or "json").
  EXPECT_EQ(field(body(BackendKind::LlamaCpp), "json_schema"), R"({"type": "object", "properties": {"t": {"type": "number"}}})");
  EXPECT_EQ(field(body(BackendKind::OpenAI), "response_format"),
            R"({"type": "json_schema", "json_schema": {"name": "weather", "schema": {"type": "object", "properties": {"t": {"type": "number"}}}}})");
  EXPECT_EQ(field(body(BackendKind::OllamaGenerate), "format"), R"({"type": "object", "properties": {"t": {"type": "number"}}})");
  EXPECT_EQ(field(body(BackendKind::OllamaChat), "format"), R"({"type": "object", "properties": {"t": {"type": "number"}}})");
  g.response_format = ResponseFormat{};
  g.response_format.kind = ResponseFormat::JsonObject;
  EXPECT_EQ(field(body(BackendKind::LlamaCpp), "json_schema"), R"({"type": "object"})");
  EXPECT_EQ(field(body(BackendKind::OpenAI), "response_format"), R"({"type": "json_object"})");
  EXPECT_EQ(field(body(BackendKind::OllamaChat), "format"), R"("json")");
  g.response_format = ResponseFormat{};
  for (BackendKind k : {BackendKind::LlamaCpp, BackendKind::OpenAI, BackendKind::OllamaGenerate}) {
    Value b = body(k);
    EXPECT_FALSE(b.dict_obj().find("json_schema") || b.dict_obj().find("response_format") || b.dict_obj().find("format"));
  }
}

TEST(GatewayOpenAIRules, DeveloperRoleIsRenderedAsSystem) {
  Config cfg;
  cfg.model_path = "examples/qwen2.5";
  PromptBuilder pb(cfg, false);
  ChatRequest req = parse_chat_request(
      R"({"messages": [{"role": "developer", "content": "Answer in French."}, {"role": "user", "content": "Hi"}]})", {});
  Prompt p = pb.build(req, Value(), "");
  EXPECT_EQ(p.text.rfind("<|im_start|>system\nAnswer in French.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n", 0), 0u) << p.text;
}

// Kimi K2 Thinking shows a call only through its id: a client's own ids (call_1) are rendered as
// functions.NAME:N, in the call and in the tool result answering it, so the history keeps the name.
TEST(GatewayOpenAIRules, CallIdsCarryTheNameWhereTheTemplateShowsOnlyIds) {
  Config cfg;
  cfg.model_path = "tests/dialects/templates/moonshotai-Kimi-K2-Thinking.jinja";
  PromptBuilder pb(cfg, false);
  ChatRequest req = parse_chat_request(
      R"({"messages": [{"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
          "function": {"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "-3 C"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
          "properties": {"city": {"type": "string"}}}}}]})",
      {});
  Prompt p = pb.build(req, req.tools, "");
  EXPECT_NE(p.text.find("<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Oslo\"}<|tool_call_end|>"),
            std::string::npos)
      << p.text;
  EXPECT_NE(p.text.find("## Return of functions.get_weather:0\n-3 C"), std::string::npos) << p.text;
  EXPECT_EQ(p.text.find("call_1"), std::string::npos) << p.text;
}

TEST(GatewayOpenAIRules, WarningsReachTheClient) {
  dialects::ParsedMessage m;
  m.content = "Sure.\n<tool_call>\n{\"name\": \"get_weather\", \"argum";
  m.warnings.push_back({dialects::WarningKind::TruncatedCall, "output ended inside a call"});
  Value v = json::parse(completion_json({"chatcmpl-x", 7, "m"}, m, "length", {1, 2}));
  const Value& msg = *v.dict_obj().find("choices")->items()[0].dict_obj().find("message");
  EXPECT_EQ(json::dumps(*msg.dict_obj().find("toolchat_warnings")), R"([{"kind": "truncated_call", "detail": "output ended inside a call"}])");

  std::vector<std::string> sent;
  ChunkWriter w({"chatcmpl-x", 7, "m"}, [&](std::string_view s) { sent.emplace_back(s); return true; });
  w.on(dialects::ContentDelta{"Sure."});
  w.on(dialects::Warning{dialects::WarningKind::UnknownTool, "no tool named f"});
  w.finish("stop", nullptr);
  ASSERT_EQ(sent.size(), 4u);  // role, content, finish (with the warnings), [DONE]
  Value fin = json::parse(std::string_view(sent[2]).substr(6));
  const Value& c0 = fin.dict_obj().find("choices")->items()[0];
  EXPECT_EQ(json::dumps(*c0.dict_obj().find("delta")), R"({"toolchat_warnings": [{"kind": "unknown_tool", "detail": "no tool named f"}]})");
  EXPECT_EQ(c0.dict_obj().find("finish_reason")->str(), "stop");
  EXPECT_EQ(w.warnings().size(), 1u);
}

TEST(GatewayOpenAIRules, AccessLogLine) {
  AccessRecord r;
  r.id = "chatcmpl-abc";
  r.method = "POST";
  r.path = "/v1/chat/completions";
  r.status = 200;
  r.seconds = 0.25;
  r.model = "qwen";
  r.prompt_tokens = 31;
  r.completion_tokens = 12;
  r.finish_reason = "tool_calls";
  r.warnings = {"unknown_tool"};
  const int64_t t = 1795654058;  // 2026-11-26T00:47:38Z
  EXPECT_EQ(access_line(r, LogFormat::Text, t),
            "2026-11-26T00:47:38Z chatcmpl-abc POST /v1/chat/completions 200 0.250s model=qwen stream=0 prompt_tokens=31 "
            "completion_tokens=12 finish=tool_calls warnings=unknown_tool");
  Value j = json::parse(access_line(r, LogFormat::Json, t));
  EXPECT_EQ(json::dumps(j), R"({"time": "2026-11-26T00:47:38Z", "id": "chatcmpl-abc", "method": "POST", "path": "/v1/chat/completions", "status": 200, "seconds": 0.25, "model": "qwen", "stream": false, "prompt_tokens": 31, "completion_tokens": 12, "finish_reason": "tool_calls", "warnings": ["unknown_tool"]})");
  // A path from the client cannot split the line.
  AccessRecord bad;
  bad.method = "GET";
  bad.path = "/x y\nz";
  bad.status = 404;
  bad.error = "not_found";
  EXPECT_EQ(access_line(bad, LogFormat::Text, t), "2026-11-26T00:47:38Z - GET \"/x y\\nz\" 404 0.000s error=not_found");
}

namespace {

// Keywords the gateway's schema checker implements (json_schema.hpp) and annotations it may ignore.
const std::set<std::string> kImplemented = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "pattern", "anyOf",
    "oneOf", "allOf", "not", "$ref", "definitions", "$defs", "description", "title", "default", "$comment", "examples"};

// Whether a suite group's schema stays inside what is implemented (tuple `items`, remote or $id-based
// references and draft-7's "$ref hides its siblings" rule are outside it).
bool within_subset(const Value& s) {
  if (s.is_bool()) return true;
  if (!s.is_dict()) return false;
  const auto& d = s.dict_obj();
  if (d.find("$ref") && d.entries.size() > 1) return false;
  for (const auto& [k, v] : d.entries) {
    std::string_view key = k.str();
    if (!kImplemented.count(std::string(key))) return false;
    if (key == "$ref" && (!v.is_str() || v.str().empty() || v.str()[0] != '#')) return false;
    if (key == "items" && v.is_list()) return false;
    if (key == "properties" || key == "definitions" || key == "$defs") {
      if (!v.is_dict()) return false;
      for (const auto& [name, sub] : v.dict_obj().entries)
        if (!within_subset(sub)) return false;
    } else if (key == "anyOf" || key == "oneOf" || key == "allOf") {
      if (!v.is_list()) return false;
      for (const Value& sub : v.items())
        if (!within_subset(sub)) return false;
    } else if (key == "not" || key == "items" || key == "additionalProperties") {
      if (!within_subset(v)) return false;
    }
  }
  return true;
}

}  // namespace

// The reference: the official JSON-Schema-Test-Suite (Debian json-schema-test-suite, draft 7), every
// group of the implemented keywords' files whose schema stays inside the subset. Both directions
// count: a valid instance must pass, an invalid one must be caught.
TEST(GatewayOpenAIRules, SchemaCheckerAgainstTheJsonSchemaTestSuite) {
  const std::string dir = "/usr/share/json-schema-test-suite/tests/draft7/";
  if (!std::ifstream(dir + "type.json")) GTEST_SKIP() << "json-schema-test-suite is not installed (make deps)";
  size_t groups = 0, cases = 0, skipped_groups = 0;
  for (const char* file : {"type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems",
                           "maxItems", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                           "pattern", "anyOf", "oneOf", "allOf", "not", "boolean_schema", "ref", "definitions"}) {
    Value suite = json::parse_file(dir + file + ".json");
    for (const Value& group : suite.items()) {
      const Value& schema = *group.dict_obj().find("schema");
      std::string gname(std::string(file) + ": " + std::string(group.dict_obj().find("description")->str()));
      if (!within_subset(schema)) {
        ++skipped_groups;
        continue;
      }
      ++groups;
      EXPECT_NO_THROW(check_schema(schema, "s", true)) << gname;
      for (const Value& t : group.dict_obj().find("tests")->items()) {
        ++cases;
        bool valid = t.dict_obj().find("valid")->as_bool();
        auto why = schema_violation(*t.dict_obj().find("data"), schema);
        EXPECT_EQ(!why, valid) << gname << " / " << t.dict_obj().find("description")->str() << ": " << why.value_or("passed");
      }
    }
  }
  EXPECT_GT(groups, 60u);  // 66 of 81 in the suite shipped with Debian 12
  std::printf("JSON-Schema-Test-Suite draft 7: %zu groups, %zu cases checked; %zu groups outside the subset\n", groups, cases, skipped_groups);
}

TEST(GatewayOpenAIRules, PatternsCannotHangAWorker) {
  // Exponential for a backtracking matcher; the breadth-first one takes one pass.
  Value s = json::parse(R"({"type": "string", "pattern": "^(a+)+$"})");
  check_schema(s, "s", true);
  std::string text(5000, 'a');
  EXPECT_FALSE(schema_violation(Value::string(text), s));
  EXPECT_TRUE(schema_violation(Value::string(text + "!"), s));
  // Backreferences are not run: refused where the schema is checked.
  EXPECT_THROW(check_schema(json::parse(R"({"pattern": "(a)\\1"})"), "s", true), ApiError);
}

TEST(GatewayOpenAIRules, PenaltiesAndLogitBiasReachTheBackend) {
  ChatRequest r = parse_chat_request(user_and(R"("frequency_penalty": 0.5, "presence_penalty": -1, "logit_bias": {"50256": -100, "7": 2.5})"), {});
  ASSERT_TRUE(r.frequency_penalty && r.presence_penalty);
  GenRequest g;
  g.prompt = "P";
  g.frequency_penalty = r.frequency_penalty;
  g.presence_penalty = r.presence_penalty;
  g.logit_bias = r.logit_bias;
  // llama-server and OpenAI-style servers take OpenAI's names and logit_bias object as they are.
  for (BackendKind k : {BackendKind::LlamaCpp, BackendKind::OpenAI}) {
    Value b = json::parse(protocol_for(k, "").body(g, "m"));
    EXPECT_EQ(json::dumps(*b.dict_obj().find("frequency_penalty")), "0.5");
    EXPECT_EQ(json::dumps(*b.dict_obj().find("presence_penalty")), "-1.0");
    EXPECT_EQ(json::dumps(*b.dict_obj().find("logit_bias")), R"({"50256": -100, "7": 2.5})");
  }
  // Ollama: penalties are options; it has no token biases, so the request is refused, not ignored.
  GenRequest penalties_only = g;
  penalties_only.logit_bias = Value();
  Value ol = json::parse(protocol_for(BackendKind::OllamaGenerate, "").body(penalties_only, "m"));
  EXPECT_EQ(json::dumps(*ol.dict_obj().find("options")), R"({"frequency_penalty": 0.5, "presence_penalty": -1.0})");
  try {
    protocol_for(BackendKind::OllamaChat, "").body(g, "m");
    ADD_FAILURE() << "logit_bias accepted by the ollama backend";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, "logit_bias");
  }
  // An empty object asks for nothing.
  EXPECT_TRUE(parse_chat_request(user_and(R"("logit_bias": {})"), {}).logit_bias.is_undefined());

  // vLLM's and llama-server's extra sampling fields: honoured, repetition_penalty under each one's name.
  ChatRequest x = parse_chat_request(user_and(R"("top_k": 40, "min_p": 0.05, "repeat_penalty": 1.1)"), {});
  GenRequest gx;
  gx.top_k = x.top_k;
  gx.min_p = x.min_p;
  gx.repetition_penalty = x.repetition_penalty;
  auto field_of = [&](BackendKind k, const char* name) {
    Value b = json::parse(protocol_for(k, "").body(gx, "m"));
    if (k == BackendKind::OllamaGenerate) b = *b.dict_obj().find("options");
    const Value* v = b.dict_obj().find(name);
    return v ? json::dumps(*v) : std::string("absent");
  };
  for (BackendKind k : {BackendKind::LlamaCpp, BackendKind::OpenAI, BackendKind::OllamaGenerate}) {
    EXPECT_EQ(field_of(k, "top_k"), "40");
    EXPECT_EQ(field_of(k, "min_p"), "0.05");
  }
  EXPECT_EQ(field_of(BackendKind::LlamaCpp, "repeat_penalty"), "1.1");
  EXPECT_EQ(field_of(BackendKind::OllamaGenerate, "repeat_penalty"), "1.1");
  EXPECT_EQ(field_of(BackendKind::OpenAI, "repetition_penalty"), "1.1");
  EXPECT_EQ(rejection(user_and(R"("repeat_penalty": 1.1, "repetition_penalty": 1.2)")).param, "repeat_penalty");
  EXPECT_EQ(rejection(user_and(R"("min_p": 2)")).param, "min_p");
}

namespace {
std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
// llama-server's extra per-token "id", which OpenAI's shape does not have.
Value without_ids(const Value& v) {
  if (v.is_list()) {
    std::vector<Value> out;
    for (const Value& x : v.items()) out.push_back(without_ids(x));
    return Value::list(std::move(out));
  }
  if (!v.is_dict()) return v;
  Value d = Value::dict();
  for (const auto& [k, x] : v.dict_obj().entries)
    if (!(k.is_str() && k.str() == "id")) d.dict_obj().set(k, without_ids(x));
  return d;
}
}  // namespace

TEST(GatewayOpenAIRules, LogprobsAsLlamaServerGivesThem) {
  // The records of a real llama-server's /completion stream (n_probs 2) read into the tokens that
  // llama-server's own /v1/chat/completions gives for the same conversation and seed
  // (tests/gateway/recorded/README.md says how both were recorded).
  std::vector<Value> entries;
  std::istringstream records(read_text("tests/gateway/recorded/llamacpp_completion_logprobs.jsonl"));
  Protocol p = protocol_for(BackendKind::LlamaCpp, "");
  for (std::string line; std::getline(records, line);) {
    if (line.empty()) continue;
    Record r = p.read(line);
    if (r.logprobs.is_list())
      for (const Value& e : r.logprobs.items()) entries.push_back(e);
  }
  Value want = json::parse(read_text("tests/gateway/recorded/llamacpp_chat_logprobs.json"));
  ASSERT_EQ(entries.size(), 3u);
  json::DumpOptions sorted;  // the same fields; the order is OpenAI's (token, logprob, bytes, top_logprobs)
  sorted.sort_keys = true;
  EXPECT_EQ(json::dumps(Value::list(entries), sorted), json::dumps(without_ids(*want.dict_obj().find("content")), sorted));

  // In the answer: choices[0].logprobs = {"content": [...], "refusal": null}.
  dialects::ParsedMessage m;
  m.content = "x";
  std::string body = completion_json(new_response_meta("m"), m, "length", {}, &entries);
  Value choice = json::parse(body).dict_obj().find("choices")->items()[0];
  const Value* lp = choice.dict_obj().find("logprobs");
  ASSERT_TRUE(lp && lp->is_dict());
  EXPECT_EQ(json::dumps(*lp->dict_obj().find("content")), json::dumps(Value::list(entries)));
  EXPECT_TRUE(lp->dict_obj().find("refusal")->is_none());
  // Not asked for: null, as OpenAI answers.
  EXPECT_TRUE(json::parse(completion_json(new_response_meta("m"), m, "stop", {})).dict_obj().find("choices")->items()[0].dict_obj().find("logprobs")->is_none());
}

TEST(GatewayOpenAIRules, LlamaServerParserFailureAfterTheAnswerEndsIt) {
  // llama-server's own chat parser failing on an answer cut inside a UTF-8 character (the error
  // record of tests/gateway/recorded/llamacpp_completion_utf8_cut.sse) ends the generation, on
  // /completion (llamacpp) and /v1/completions (openai) alike; any other error record is a 502.
  const std::string late = R"({"error":{"code":500,"message":"The model produced output that does not match the expected Content-only format","type":"server_error"}})";
  for (BackendKind k : {BackendKind::LlamaCpp, BackendKind::OpenAI}) {
    Record r = protocol_for(k, "").read(late);
    EXPECT_TRUE(r.done);
    EXPECT_EQ(r.finish_reason, "length");
    EXPECT_NE(r.warning.find("Content-only format"), std::string::npos);
    EXPECT_THROW(protocol_for(k, "").read(R"({"error":{"code":500,"message":"out of memory"}})"), ApiError);
  }
}

TEST(GatewayOpenAIRules, LogprobsRequestRules) {
  EXPECT_EQ(parse_chat_request(user_and(R"("logprobs": true)"), {}).top_logprobs, 0);
  EXPECT_EQ(parse_chat_request(user_and(R"("logprobs": true, "top_logprobs": 5)"), {}).top_logprobs, 5);
  EXPECT_FALSE(parse_chat_request(user_and(R"("logprobs": false)"), {}).top_logprobs);
  for (const char* bad : {R"("top_logprobs": 2)", R"("logprobs": true, "top_logprobs": 21)", R"("logprobs": true, "top_logprobs": -1)"}) {
    ApiError e = rejection(user_and(bad));
    EXPECT_EQ(e.status, 400) << bad;
    EXPECT_EQ(e.param, "top_logprobs") << bad;
  }
  // Asked of the backend as each protocol names it; Ollama reports none: refused, not ignored.
  GenRequest g;
  g.prompt = "P";
  g.top_logprobs = 0;
  EXPECT_EQ(json::dumps(*json::parse(protocol_for(BackendKind::LlamaCpp, "").body(g, "m")).dict_obj().find("n_probs")), "1");
  EXPECT_EQ(json::dumps(*json::parse(protocol_for(BackendKind::OpenAI, "").body(g, "m")).dict_obj().find("logprobs")), "0");
  try {
    protocol_for(BackendKind::OllamaGenerate, "").body(g, "m");
    ADD_FAILURE() << "logprobs accepted by the ollama backend";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.param, "logprobs");
  }
  // The completions API's shape (vLLM, OpenAI) reads into the same chat shape.
  Record r = protocol_for(BackendKind::OpenAI, "").read(
      R"({"choices": [{"text": "Hi", "logprobs": {"tokens": ["Hi"], "token_logprobs": [-0.5], "top_logprobs": [{"Hi": -0.5, "Hello": -1.25}]}}]})");
  EXPECT_EQ(json::dumps(r.logprobs),
            R"([{"token": "Hi", "logprob": -0.5, "bytes": [72, 105], "top_logprobs": [{"token": "Hi", "logprob": -0.5, "bytes": [72, 105]}, {"token": "Hello", "logprob": -1.25, "bytes": [72, 101, 108, 108, 111]}]}])");
}

TEST(GatewayOpenAIRules, StreamedLogprobsRideWithTheNextDelta) {
  std::vector<std::string> events;
  ChunkWriter w(new_response_meta("m"), [&](std::string_view s) { events.emplace_back(s); return true; });
  Value tok = json::parse(R"({"token": "Hi", "logprob": -0.5, "bytes": [72, 105], "top_logprobs": []})");
  w.add_logprob(tok);
  w.on(dialects::ContentDelta{"Hi"});
  w.add_logprob(tok);  // a token the parser still holds: it goes with the finish chunk
  w.finish("stop", nullptr);
  ASSERT_EQ(events.size(), 4u);  // role, content, finish, [DONE]
  auto logprobs_of = [](const std::string& ev) {
    return *json::parse(ev.substr(6)).dict_obj().find("choices")->items()[0].dict_obj().find("logprobs");
  };
  EXPECT_TRUE(logprobs_of(events[0]).is_none());
  EXPECT_EQ(json::dumps(logprobs_of(events[1])), R"({"content": [{"token": "Hi", "logprob": -0.5, "bytes": [72, 105], "top_logprobs": []}], "refusal": null})");
  EXPECT_EQ(json::dumps(*logprobs_of(events[2]).dict_obj().find("content")), "[" + json::dumps(tok) + "]");
}

TEST(GatewayOpenAIRules, CachedPromptTokensAsTheBackendReportsThem) {
  // llama-server's /completion puts what its chat endpoint calls prompt_tokens_details.cached_tokens
  // in timings.cache_n; OpenAI-style servers send the OpenAI field; Ollama reports none.
  Record l = protocol_for(BackendKind::LlamaCpp, "").read(
      R"({"content": "", "stop": true, "stop_type": "eos", "tokens_evaluated": 33, "tokens_predicted": 2, "timings": {"cache_n": 32, "prompt_n": 1}})");
  EXPECT_EQ(l.cached_tokens, 32);
  Record o = protocol_for(BackendKind::OpenAI, "").read(
      R"({"choices": [], "usage": {"prompt_tokens": 33, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 30}}})");
  EXPECT_EQ(o.cached_tokens, 30);
  EXPECT_EQ(protocol_for(BackendKind::OllamaGenerate, "").read(R"({"response": "", "done": true, "prompt_eval_count": 3})").cached_tokens, -1);
  dialects::ParsedMessage m;
  Value with = json::parse(completion_json(new_response_meta("m"), m, "stop", Usage{33, 2, 32}));
  EXPECT_EQ(json::dumps(*with.dict_obj().find("usage")),
            R"({"prompt_tokens": 33, "completion_tokens": 2, "total_tokens": 35, "prompt_tokens_details": {"cached_tokens": 32}})");
  Value without = json::parse(completion_json(new_response_meta("m"), m, "stop", Usage{33, 2}));
  EXPECT_FALSE(without.dict_obj().find("usage")->dict_obj().find("prompt_tokens_details"));
}
