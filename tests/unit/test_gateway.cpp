// Gateway pieces without sockets: request validation (status + JSON path), backend records of each
// protocol, the line splitter, and the OpenAI output shapes (whole and SSE chunks). The HTTP paths
// are covered end to end by tests/gateway/gateway_openai.mjs.
#include <gtest/gtest.h>

#include "gateway/api_error.hpp"
#include "gateway/backend.hpp"
#include "gateway/backend_protocol.hpp"
#include "gateway/openai_out.hpp"
#include "gateway/request.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

using namespace toolchat;
using namespace toolchat::gateway;

namespace {

const char* kTools =
    R"([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}])";

std::string with(const std::string& fields) {
  return std::string(R"({"messages": [{"role": "user", "content": "hi"}], "tools": )") + kTools +
         (fields.empty() ? "" : ", " + fields) + "}";
}

ApiError rejection(const std::string& body, const Limits& lim = {}) {
  try {
    parse_chat_request(body, lim);
  } catch (const ApiError& e) {
    return e;
  }
  return ApiError(0, "accepted", "");
}

}  // namespace

TEST(GatewayRequest, ReadsEveryField) {
  ChatRequest r = parse_chat_request(
      with(R"("model": "m", "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
              "parallel_tool_calls": false, "stream": true, "stream_options": {"include_usage": true},
              "stop": ["A", "B"], "max_tokens": 10, "max_completion_tokens": 20, "temperature": 0.2,
              "top_p": 0.5, "seed": -3, "chat_template_kwargs": {"enable_thinking": false},
              "reasoning_effort": "low", "reasoning_format": "none", "unknown_field": 1)"),
      {});
  EXPECT_EQ(r.model, "m");
  EXPECT_EQ(r.tool_choice.kind, ToolChoice::Named);
  EXPECT_EQ(r.tool_choice.name, "get_weather");
  EXPECT_FALSE(r.parallel_tool_calls);
  EXPECT_TRUE(r.stream && r.include_usage);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(r.max_tokens, 20);  // max_completion_tokens wins
  EXPECT_DOUBLE_EQ(*r.temperature, 0.2);
  EXPECT_DOUBLE_EQ(*r.top_p, 0.5);
  EXPECT_EQ(r.seed, -3);
  EXPECT_TRUE(r.reasoning_as_content);
  EXPECT_EQ(json::dumps(r.template_kwargs), R"({"enable_thinking": false, "reasoning_effort": "low"})");
  EXPECT_TRUE(r.has_tools());
}

TEST(GatewayRequest, NullMeansAbsentAndEmptyToolsMeansNone) {
  ChatRequest r = parse_chat_request(
      R"({"messages": [{"role": "user", "content": "hi"}], "tools": [], "tool_choice": null, "stop": null, "temperature": null})", {});
  EXPECT_FALSE(r.has_tools());
  EXPECT_EQ(r.tool_choice.kind, ToolChoice::Auto);
  EXPECT_TRUE(r.stop.empty());
  EXPECT_FALSE(r.temperature.has_value());
}

TEST(GatewayRequest, RejectionsNameTheJsonPath) {
  struct Case { std::string body; int status; std::string param; };
  const std::vector<Case> cases = {
      {"{", 400, ""},
      {"[]", 400, ""},
      {"{}", 400, "messages"},
      {R"({"messages": []})", 400, "messages"},
      {R"({"messages": [{"role": "user", "content": "x"}, "hi"]})", 400, "messages[1]"},
      {R"({"messages": [{"role": 3}]})", 400, "messages[0].role"},
      {R"({"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": "f", "arguments": [1]}}]}]})",
       400, "messages[1].tool_calls[0].function.arguments"},
      {with(R"("tool_choice": "always")"), 400, "tool_choice"},
      {with(R"("tool_choice": {"type": "function", "function": {"name": "nope"}})"), 400, "tool_choice.function.name"},
      {with(R"("tool_choice": {"type": "function"})"), 400, "tool_choice.function"},
      {R"({"messages": [{"role": "user", "content": "x"}], "tool_choice": "required"})", 400, "tool_choice"},
      {R"({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "retrieval"}]})", 400, "tools[0].type"},
      {R"({"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": ""}}]})", 400, "tools[0].function.name"},
      {with(R"("stop": {"a": 1})"), 400, "stop"},
      {with(R"("top_p": 1.5)"), 400, "top_p"},
      {with(R"("seed": "x")"), 400, "seed"},
      {with(R"("max_completion_tokens": -1)"), 400, "max_completion_tokens"},
      {with(R"("stream_options": {"include_usage": 1})"), 400, "stream_options.include_usage"},
      {with(R"("reasoning_effort": 2)"), 400, "reasoning_effort"},
  };
  for (const auto& c : cases) {
    ApiError e = rejection(c.body);
    EXPECT_EQ(e.status, c.status) << c.body << " -> " << e.message;
    EXPECT_EQ(e.param, c.param) << c.body << " -> " << e.message;
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(GatewayRequest, LimitsApply) {
  Limits lim;
  lim.max_body_bytes = 64;
  EXPECT_EQ(rejection(with(""), lim).status, 413);
  lim = Limits{};
  lim.max_messages = 1;
  EXPECT_EQ(rejection(R"({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]})", lim).param, "messages");
  lim = Limits{};
  lim.max_json_depth = 4;
  EXPECT_EQ(rejection(R"({"messages": [{"role": "user", "content": [[[["deep"]]]]}]})", lim).code, "invalid_json");
}

TEST(GatewayError, OpenAIShape) {
  ApiError e(400, "messages[0].role: missing", "invalid_request_error", "messages[0].role");
  EXPECT_EQ(e.body(), R"({"error":{"message":"messages[0].role: missing","type":"invalid_request_error","param":"messages[0].role","code":null}})");
  ApiError b(502, "down", "backend_error", "", "backend_unreachable");
  EXPECT_EQ(b.body(), R"({"error":{"message":"down","type":"backend_error","param":null,"code":"backend_unreachable"}})");
}

// Fuzz finding (chat_request): a message quoting request text with a lone surrogate ("\udbbb",
// read as WTF-8) made the error body invalid UTF-8. Bodies are ASCII-escaped JSON now.
TEST(GatewayError, BodyIsValidUtf8WhateverTheMessageQuotes) {
  Value req = json::parse(R"({"messages": [{"role": "us\udbbber é"}]})");
  std::string role(req.dict_obj().find("messages")->items()[0].dict_obj().find("role")->str());
  ApiError e = bad_request("messages[0].role", "messages[0].role: '" + role + "' is not a role");
  std::string body = e.body();
  EXPECT_EQ(utf8::find_invalid(body, false), std::string::npos) << body;
  EXPECT_NE(body.find("us\\udbbber \\u00e9"), std::string::npos) << body;
  json::ReadLimits rl;
  rl.allow_surrogates = true;
  EXPECT_EQ(json::parse(body, rl).dict_obj().find("error")->dict_obj().find("message")->str(), e.message);
  // Model output that is not valid UTF-8 is escaped in responses as well.
  dialects::ParsedMessage m;
  m.content = "ok " + role;
  std::string out = completion_json({"chatcmpl-x", 7, "m"}, m, "stop", {1, 1});
  EXPECT_EQ(utf8::find_invalid(out, false), std::string::npos) << out;
}

TEST(GatewayBackend, LineSplitterJoinsAcrossChunks) {
  LineSplitter s(16);
  std::vector<std::string> lines;
  auto keep = [&](std::string_view l) { lines.emplace_back(l); return true; };
  EXPECT_TRUE(s.feed("data: a", keep));
  EXPECT_TRUE(s.feed("b\r\n\ndata:", keep));
  EXPECT_TRUE(s.feed(" c\n", keep));
  EXPECT_EQ(lines, (std::vector<std::string>{"data: ab", "", "data: c"}));
  EXPECT_FALSE(s.feed(std::string(40, 'x'), keep));
  EXPECT_TRUE(s.overflowed());
}

TEST(GatewayBackend, RecordsOfEachProtocol) {
  Protocol llama = protocol_for(BackendKind::LlamaCpp, "");
  Record r = llama.read(R"({"content": "", "stop": true, "stopped_limit": true, "tokens_evaluated": 12, "tokens_predicted": 5})");
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.completion_tokens, 5);
  EXPECT_EQ(llama.read(R"({"content": "Hi", "stop": false})").text, "Hi");
  // Current llama-server: stop_type (the stopped_* booleans are gone); they win over the old fields.
  EXPECT_EQ(llama.read(R"({"content": "", "stop": true, "stop_type": "limit", "truncated": false})").finish_reason, "length");
  EXPECT_EQ(llama.read(R"({"content": "", "stop": true, "stop_type": "eos"})").finish_reason, "stop");
  EXPECT_EQ(llama.read(R"({"content": "", "stop": true, "stop_type": "word", "stopping_word": "x"})").finish_reason, "stop");
  EXPECT_EQ(llama.read(R"({"content": "", "stop": true, "stop_type": "limit", "stopped_limit": false})").finish_reason, "length");
  EXPECT_EQ(llama.read(R"({"content": "", "stop": true, "stopped_eos": true, "stopped_limit": false})").finish_reason, "stop");

  Protocol oa = protocol_for(BackendKind::OpenAI, "/v1");
  EXPECT_EQ(oa.path, "/v1/completions");
  Record o = oa.read(R"({"choices": [{"index": 0, "text": "x", "finish_reason": "stop"}]})");
  EXPECT_TRUE(o.done);
  EXPECT_EQ(o.text, "x");
  Record u = oa.read(R"({"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}})");
  EXPECT_EQ(u.prompt_tokens, 3);
  EXPECT_EQ(u.completion_tokens, 4);

  Protocol chat = protocol_for(BackendKind::OllamaChat, "");
  EXPECT_EQ(chat.path, "/api/chat");
  Record c = chat.read(R"({"message": {"role": "assistant", "content": "yo"}, "done": true, "done_reason": "stop", "eval_count": 2})");
  EXPECT_EQ(c.text, "yo");
  EXPECT_TRUE(c.done);
  EXPECT_EQ(c.completion_tokens, 2);
  EXPECT_EQ(protocol_for(BackendKind::OllamaGenerate, "").read(R"({"response": "r", "done": false})").text, "r");
}

TEST(GatewayBackend, BadRecordsAre502) {
  Protocol llama = protocol_for(BackendKind::LlamaCpp, "");
  for (const char* bad : {"not json", "[1]", R"({"text": "x"})"}) {
    try {
      llama.read(bad);
      ADD_FAILURE() << bad;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status, 502);
      EXPECT_EQ(e.code, "backend_invalid_response");
    }
  }
  try {
    protocol_for(BackendKind::OpenAI, "").read(R"({"error": {"message": "model not loaded"}})");
    ADD_FAILURE();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code, "backend_error");
    EXPECT_NE(e.message.find("model not loaded"), std::string::npos);
  }
}

TEST(GatewayBackend, RequestBodies) {
  GenRequest g;
  g.prompt = "P";
  g.stop = {"Observation:"};
  g.max_tokens = 8;
  g.temperature = 0.5;
  g.grammar = "root ::= \"x\"";
  g.stream = true;
  Value l = json::parse(protocol_for(BackendKind::LlamaCpp, "").body(g, "m"));
  EXPECT_EQ(json::dumps(l), R"({"prompt": "P", "n_predict": 8, "stop": ["Observation:"], "stream": true, "cache_prompt": true, "temperature": 0.5, "grammar": "root ::= \"x\""})");
  Value o = json::parse(protocol_for(BackendKind::OpenAI, "").body(g, "m"));
  EXPECT_EQ(json::dumps(o), R"({"model": "m", "prompt": "P", "max_tokens": 8, "stop": ["Observation:"], "stream": true, "stream_options": {"include_usage": true}, "temperature": 0.5})");
  // The grammar forms of OpenAI-style servers: none by default, llama.cpp's, vLLM's, SGLang's.
  auto openai_with = [&](GrammarForm f) { return json::dumps(json::parse(protocol_for(BackendKind::OpenAI, "", f).body(g, "m"))); };
  EXPECT_EQ(openai_with(GrammarForm::Auto), json::dumps(o));
  EXPECT_NE(openai_with(GrammarForm::LlamaCpp).find(R"("grammar": "root ::= \"x\"")"), std::string::npos);
  EXPECT_NE(openai_with(GrammarForm::Vllm).find(R"("structured_outputs": {"grammar": "root ::= \"x\""})"), std::string::npos);
  EXPECT_NE(openai_with(GrammarForm::Sglang).find(R"("ebnf": "root ::= \"x\"")"), std::string::npos);
  EXPECT_FALSE(protocol_for(BackendKind::LlamaCpp, "", GrammarForm::None).body(g, "m").find("grammar") != std::string::npos);
  // Ollama takes no grammar but a JSON schema in `format` (tool_choice asks for the calls in it).
  EXPECT_EQ(protocol_for(BackendKind::OllamaGenerate, "").grammar, GrammarForm::None);
  EXPECT_TRUE(protocol_for(BackendKind::OllamaChat, "").calls_as_json);
  EXPECT_FALSE(protocol_for(BackendKind::OllamaChat, "", GrammarForm::None).calls_as_json);
  EXPECT_FALSE(protocol_for(BackendKind::LlamaCpp, "").calls_as_json);
  Value ol = json::parse(protocol_for(BackendKind::OllamaGenerate, "").body(g, "m"));
  EXPECT_EQ(json::dumps(ol), R"({"model": "m", "prompt": "P", "raw": true, "stream": true, "options": {"num_predict": 8, "stop": ["Observation:"], "temperature": 0.5}})");
}

TEST(GatewayOutput, WholeCompletion) {
  dialects::ParsedMessage m;
  m.tool_calls.push_back({"call_1", "f", ""});
  ResponseMeta meta{"chatcmpl-x", 7, "m"};
  Value v = json::parse(completion_json(meta, m, "tool_calls", {3, 4}));
  EXPECT_EQ(json::dumps(v),
            R"({"id": "chatcmpl-x", "object": "chat.completion", "created": 7, "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}, "logprobs": null, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}})");
}

TEST(GatewayOutput, ChunksInOpenAIOrder) {
  std::vector<std::string> sent;
  ChunkWriter w({"chatcmpl-x", 7, "m"}, [&](std::string_view s) { sent.emplace_back(s); return true; });
  w.on(dialects::ReasoningDelta{"hmm"});
  w.on(dialects::ToolCallBegin{0, "call_1", "get_weather"});
  w.on(dialects::ToolArgsDelta{0, "{\"city\": "});
  w.on(dialects::ToolArgsDelta{0, "\"Paris\"}"});
  w.on(dialects::ToolCallEnd{0});
  Usage u{1, 2};
  w.finish("tool_calls", &u);
  ASSERT_EQ(sent.size(), 8u);
  auto delta = [&](size_t i) {
    EXPECT_EQ(sent[i].rfind("data: ", 0), 0u);
    Value v = json::parse(std::string_view(sent[i]).substr(6));
    return json::dumps(*v.dict_obj().find("choices")->items()[0].dict_obj().find("delta"));
  };
  EXPECT_EQ(delta(0), R"({"role": "assistant", "content": ""})");
  EXPECT_EQ(delta(1), R"({"reasoning_content": "hmm"})");
  EXPECT_EQ(delta(2), R"({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]})");
  EXPECT_EQ(delta(3), R"({"tool_calls": [{"index": 0, "function": {"arguments": "{\"city\": "}}]})");
  EXPECT_EQ(delta(5), "{}");
  EXPECT_NE(sent[5].find(R"("finish_reason":"tool_calls")"), std::string::npos);
  EXPECT_NE(sent[6].find(R"("choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3})"), std::string::npos);
  EXPECT_EQ(sent[7], "data: [DONE]\n\n");
}

TEST(GatewayOutput, StopsWritingOnceTheClientIsGone) {
  int writes = 0;
  ChunkWriter w({"id", 0, "m"}, [&](std::string_view) { ++writes; return writes < 2; });
  w.on(dialects::ContentDelta{"a"});
  w.on(dialects::ContentDelta{"b"});
  w.on(dialects::ContentDelta{"c"});
  EXPECT_TRUE(w.client_gone());
  EXPECT_EQ(writes, 2);
}
