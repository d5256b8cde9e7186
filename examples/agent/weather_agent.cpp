// An agent in a few lines with toolchat's C++ client: two C++ functions become tools, the model
// (any llama.cpp / OpenAI-completions / Ollama server) decides when to call them, the loop runs the
// calls and feeds the results back until the model answers.
//
//   example_agent --model examples/qwen2.5 --backend http://127.0.0.1:8081 "Weather in Paris?"
//
// Without a real model: build/scripted_backend --scripts tests/gateway/scripts.json --port 8081, and
// end the question with "SCRIPT:agent_demo" (a Hermes call, then an answer once the result is shown).
#include <cstdio>
#include <cstring>
#include <string>

#include <toolchat/agent.hpp>
#include <toolchat/gateway.hpp>
#include <toolchat/json.hpp>

using namespace toolchat;

int main(int argc, char** argv) {
  gateway::Config cfg;
  std::string question;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--model") && i + 1 < argc) cfg.model_path = argv[++i];
    else if (!std::strcmp(argv[i], "--backend") && i + 1 < argc) cfg.backend_url = argv[++i];
    else if (!std::strcmp(argv[i], "--backend-kind") && i + 1 < argc) cfg.backend_kind = gateway::backend_kind_from_name(argv[++i]);
    else question = argv[i];
  }
  if (cfg.model_path.empty() || cfg.backend_url.empty() || question.empty()) {
    std::fprintf(stderr, "usage: example_agent --model PATH --backend URL [--backend-kind KIND] QUESTION\n");
    return 2;
  }

  auto weather = agent::tool("get_weather", "Current weather for a city", {"city", "celsius"},
                             [](std::string city, std::optional<bool> celsius) {
                               bool c = celsius.value_or(true);
                               return city + ": " + (c ? "18 °C" : "64 °F") + ", sunny";
                             });
  auto convert = agent::tool("convert_currency", "Convert an amount between currencies", {"amount", "from", "to"},
                             [](double amount, std::string from, std::string to) {
                               double rate = from == to ? 1.0 : 1.1;  // a demo rate
                               return amount * rate;
                             });
  try {
    agent::Client client(cfg);
    agent::Result r = agent::run(client, agent::user(question), {weather, convert}, /*max_steps=*/6);
    json::DumpOptions o;
    o.ensure_ascii = false;
    o.indent = "  ";
    std::printf("%s\n", json::dumps(r.messages, o).c_str());
    std::printf("answer after %d model call(s)%s: %s\n", r.steps, r.step_limit ? " (step limit)" : "", r.answer.c_str());
    return r.step_limit ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "example_agent: %s\n", e.what());
    return 1;
  }
}
