// The C++ client: JSON schemas derived from callables, argument conversion errors, and the agent
// loop against an in-process llama.cpp-protocol stand-in on 127.0.0.1 (first a Hermes tool call,
// then, once the prompt shows the tool's result, a final answer).
#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "gateway/config.hpp"
#include "gateway/http_server.hpp"
#include "toolchat/agent.hpp"
#include "value/json.hpp"

using namespace toolchat;

TEST(AgentTool, SchemaFromParameterTypesAndNames) {
  auto t = agent::tool("plan", "Plan a trip", {"city", "days", "budget", "metric", "stops", "notes"},
                       [](std::string, int, double, std::optional<bool>, std::vector<std::string>, Value) { return 1; });
  EXPECT_EQ(json::dumps(t.openai_json()),
            R"({"type": "function", "function": {"name": "plan", "description": "Plan a trip", "parameters": )"
            R"({"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, )"
            R"("budget": {"type": "number"}, "metric": {"type": "boolean"}, "stops": {"type": "array", "items": )"
            R"({"type": "string"}}, "notes": {}}, "required": ["city", "days", "budget", "stops", "notes"]}}})");
  EXPECT_THROW(agent::tool("f", "", {"a"}, [](int, int) { return 0; }), Error);
}

TEST(AgentTool, CallsConvertArguments) {
  auto t = agent::tool("add", "", {"a", "b", "scale"},
                       [](int a, int b, std::optional<double> scale) { return (a + b) * scale.value_or(1.0); });
  EXPECT_EQ(t.call(json::parse(R"({"a": 2, "b": 3})")), "5.0");
  EXPECT_EQ(t.call(json::parse(R"({"a": 2, "b": 3, "scale": 0.5})")), "2.5");
  try {
    t.call(json::parse(R"({"a": "2", "b": 3})"));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.message(), "a: expected an integer");
  }
  EXPECT_THROW(t.call(json::parse(R"({"b": 3})")), Error);  // a is required
}

namespace {

// llama.cpp /completion (streamed when asked, as the gateway always asks), scripted by what the prompt shows.
struct FakeLlama {
  gateway::HttpServer svr;
  int port = 0;
  std::thread th;
  std::vector<std::string> prompts;
  FakeLlama() {
    svr.set_keep_alive_max_count(1);  // no idle keep-alive connection for stop() to wait on
    svr.Post("/completion", [this](const httplib::Request& q, httplib::Response& r) {
      Value body = json::parse(q.body);
      std::string prompt(body.dict_obj().find("prompt")->str());
      prompts.push_back(prompt);
      std::string text = prompt.find("<tool_response>\n18 degrees, sunny\n</tool_response>") != std::string::npos
                             ? "It is 18 degrees and sunny in Paris."
                             : "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>";
      const Value* stream = body.dict_obj().find("stream");
      if (stream && stream->is_bool() && stream->as_bool()) {
        // As llama-server streams: the text, then a last event with the stop reason and the counts.
        std::string out = "data: {\"content\": ";
        json::dump_string(out, text);
        out += ", \"stop\": false}\n\ndata: {\"content\": \"\", \"stop\": true, \"stop_type\": \"eos\", "
               "\"tokens_evaluated\": 10, \"tokens_predicted\": 5}\n\n";
        r.set_content(out, "text/event-stream");
        return;
      }
      std::string out = "{\"content\": ";
      json::dump_string(out, text);
      out += ", \"stop\": true, \"stop_type\": \"eos\", \"tokens_evaluated\": 10, \"tokens_predicted\": 5}";
      r.set_content(out, "application/json");
    });
    port = svr.bind_to_any_port("127.0.0.1");
    th = std::thread([this] { svr.listen_after_bind(); });
  }
  ~FakeLlama() {
    svr.stop();
    th.join();
  }
};

gateway::Config config(int port) {
  gateway::Config cfg;
  cfg.model_path = "examples/qwen2.5";
  cfg.backend_url = "http://127.0.0.1:" + std::to_string(port);
  cfg.limits.request_timeout_s = 20;
  return cfg;
}

}  // namespace

TEST(AgentLoop, RunsTheCallAndReturnsTheAnswer) {
  FakeLlama llama;
  ASSERT_GT(llama.port, 0);
  agent::Client client(config(llama.port));
  std::vector<std::pair<std::string, int>> seen;
  auto weather = agent::tool("get_weather", "Weather for a city", {"city", "days"}, [&](std::string city, int days) {
    seen.emplace_back(city, days);
    return std::string("18 degrees, sunny");
  });
  agent::Result r = agent::run(client, agent::user("Weather in Paris?"), {weather});
  EXPECT_EQ(r.answer, "It is 18 degrees and sunny in Paris.");
  EXPECT_EQ(r.steps, 2);
  EXPECT_FALSE(r.step_limit);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{{"Paris", 2}}));
  ASSERT_EQ(r.messages.items().size(), 4u);  // user, assistant call, tool result, answer
  const Value& call = r.messages.items()[1];
  EXPECT_EQ(json::dumps(*call.dict_obj().find("tool_calls")->items()[0].dict_obj().find("function")),
            R"({"name": "get_weather", "arguments": "{\"city\":\"Paris\",\"days\":2}"})");
  EXPECT_EQ(r.messages.items()[2].dict_obj().find("content")->str(), "18 degrees, sunny");
  ASSERT_EQ(llama.prompts.size(), 2u);
  EXPECT_NE(llama.prompts[0].find("\"name\": \"get_weather\""), std::string::npos);  // the tool was shown
}

TEST(AgentLoop, StopsAtTheStepLimitAndReportsToolErrors) {
  FakeLlama llama;
  agent::Client client(config(llama.port));
  auto weather = agent::tool("get_weather", "", {"city", "days"}, [](std::string, int) -> std::string {
    throw Error(ErrorKind::ValueError, "service down");
  });
  agent::Result r = agent::run(client, agent::user("Weather?"), {weather}, 3);
  EXPECT_TRUE(r.step_limit);
  EXPECT_EQ(r.steps, 3);
  EXPECT_EQ(r.answer, "");
  EXPECT_EQ(r.messages.items()[2].dict_obj().find("content")->str(), "error: service down");
}
