// toolchat serve --model PATH --backend URL [--backend-kind llamacpp|openai|ollama|ollama-chat]
//                [--port N] [--host ADDR] [--dialect NAME] [--inject] [--model-name ID]
//                [--backend-model NAME] [--threads N] [limits: --max-body-bytes N --max-messages N
//                 --max-tools N --max-output-bytes N --request-timeout S --backend-timeout S
//                 --connect-timeout S]
// An OpenAI-compatible server in front of a completion backend (src/gateway/). --port 0 picks a
// free port; the line "toolchat serve: listening on http://HOST:PORT ..." on stderr says which.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli/args.hpp"
#include "gateway/server.hpp"
#include "toolchat/error.hpp"

namespace toolchat::cli {

namespace {
const char* kUsage =
    "usage: toolchat serve --model PATH --backend URL [--backend-kind llamacpp|openai|ollama|ollama-chat]\n"
    "                      [--port N] [--host ADDR] [--dialect NAME] [--inject] [--model-name ID]\n"
    "                      [--backend-model NAME] [--threads N] [--max-body-bytes N] [--max-messages N]\n"
    "                      [--max-tools N] [--max-output-bytes N] [--request-timeout S]\n"
    "                      [--backend-timeout S] [--connect-timeout S]\n"
    "                      [--backend-grammar auto|none|llamacpp|vllm|sglang]\n"
    "--backend-timeout S: longest silence from the backend while it generates (default 120).\n"
    "--backend-grammar: how tool_choice's grammar reaches the backend (auto: llamacpp for the llamacpp\n"
    "  kind, none for the others; llamacpp also fits llama-server's /v1/completions).\n"
    "OpenAI-compatible server: POST /v1/chat/completions, GET /v1/models, /health, /metrics.\n";

double number(const std::string& opt, const std::string& v, double lo) {
  size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !(d >= lo)) throw std::runtime_error("--" + opt + " needs a number >= " + std::to_string(lo) + ", got '" + v + "'");
  return d;
}
}  // namespace

int cmd_serve(int argc, char** argv) {
  gateway::Config cfg;
  try {
    Args a = parse_args(argc, argv, 2,
                        {"model", "backend", "backend-kind", "port", "host", "dialect", "model-name", "backend-model",
                         "threads", "max-body-bytes", "max-messages", "max-tools", "max-output-bytes",
                         "request-timeout", "backend-timeout", "connect-timeout",
                         "backend-grammar"},
                        {"inject", "help"});
    if (a.has("help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    auto backend = a.get("backend");
    if (!backend) throw std::runtime_error("--backend URL is required (e.g. http://127.0.0.1:8081)");
    cfg.backend_url = *backend;
    cfg.model_path = a.get("model").value_or("");
    if (auto k = a.get("backend-kind")) cfg.backend_kind = gateway::backend_kind_from_name(*k);
    if (auto g = a.get("backend-grammar")) cfg.backend_grammar = gateway::grammar_form_from_name(*g);
    if ((cfg.backend_kind == gateway::BackendKind::OllamaGenerate || cfg.backend_kind == gateway::BackendKind::OllamaChat) &&
        cfg.backend_grammar != gateway::GrammarForm::Auto && cfg.backend_grammar != gateway::GrammarForm::None)
      throw std::runtime_error("--backend-grammar: Ollama takes no grammar (only auto or none)");
    if (cfg.model_path.empty() && !(cfg.backend_kind == gateway::BackendKind::OllamaChat && a.get("dialect")))
      throw std::runtime_error("--model PATH is required (only --backend-kind ollama-chat with --dialect can do without)");
    if (auto p = a.get("port")) cfg.port = static_cast<int>(number("port", *p, 0));
    if (cfg.port > 65535) throw std::runtime_error("--port must be at most 65535");
    if (auto h = a.get("host")) cfg.host = *h;
    cfg.dialect = a.get("dialect").value_or("");
    cfg.inject = a.has("inject");
    cfg.model_name = a.get("model-name").value_or("");
    cfg.backend_model = a.get("backend-model").value_or("");
    if (auto t = a.get("threads")) cfg.threads = static_cast<int>(number("threads", *t, 1));
    auto& L = cfg.limits;
    if (auto v = a.get("max-body-bytes")) L.max_body_bytes = static_cast<size_t>(number("max-body-bytes", *v, 1));
    if (auto v = a.get("max-messages")) L.max_messages = static_cast<size_t>(number("max-messages", *v, 1));
    if (auto v = a.get("max-tools")) L.max_tools = static_cast<size_t>(number("max-tools", *v, 0));
    if (auto v = a.get("max-output-bytes")) L.max_output_bytes = static_cast<size_t>(number("max-output-bytes", *v, 1));
    if (auto v = a.get("request-timeout")) L.request_timeout_s = number("request-timeout", *v, 0.001);
    if (auto v = a.get("backend-timeout")) L.backend_idle_timeout_s = number("backend-timeout", *v, 0.001);
    if (auto v = a.get("connect-timeout")) L.backend_connect_timeout_s = number("connect-timeout", *v, 0.001);
  } catch (const Error& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.message().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.what());
    return 2;
  }
  try {
    return gateway::serve(cfg, [&](int port, const std::string& summary) {
      std::fprintf(stderr, "toolchat serve: listening on http://%s:%d (%s)\n", cfg.host.c_str(), port, summary.c_str());
      std::fflush(stderr);
    });
  } catch (const Error& e) {
    std::fprintf(stderr, "toolchat serve: %s: %s\n", error_kind_name(e.kind()), e.message().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.what());
    return 1;
  }
}

}  // namespace toolchat::cli
