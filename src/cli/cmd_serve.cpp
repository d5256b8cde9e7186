// toolchat serve: an OpenAI-compatible server in front of a completion backend (src/gateway/).
// --port 0 picks a free port; the line "toolchat serve: listening on http://HOST:PORT ..." on stderr
// says which. The process-wide signal set-up lives here, not in the library: SIGPIPE ignored,
// SIGINT/SIGTERM waited for by one thread that stops the server (gateway::ServeStop).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/app.hpp"
#include "gateway/reachability.hpp"
#include "gateway/server.hpp"

namespace toolchat::cli {

namespace {

// The flags that are not gateway::Config fields as such.
struct ServeArgs {
  gateway::Config cfg;
  std::string backend_kind = "llamacpp";
  std::string backend_grammar = "auto";
  std::vector<std::string> model_names;  // the first is listed, the others are aliases
  std::string log_format = "text";
  bool quiet = false;
};

// Every flag of `toolchat serve`, bound to the gateway's Config: new settings are one line here.
// Defaults shown in --help are Config's own.
void add_serve_options(CLI::App& app, ServeArgs& a) {
  gateway::Config& c = a.cfg;
  gateway::Limits& L = c.limits;
  app.add_option("--model", c.model_path,
                 "the chat template: folder, .jinja, tokenizer_config.json, .gguf (required unless "
                 "--backend-kind ollama-chat with --dialect)");
  app.add_option("--backend", c.backend_url, "the completion backend, e.g. http://127.0.0.1:8081")->required();
  app.add_option("--backend-kind", a.backend_kind, "the backend's protocol")
      ->check(CLI::IsMember({"llamacpp", "llama.cpp", "openai", "ollama", "ollama-chat"}));
  app.add_option("--backend-grammar", a.backend_grammar,
                 "how tool_choice's grammar reaches the backend (auto: llamacpp for the llamacpp kind, none for "
                 "openai, the calls' JSON schema in Ollama's format for the ollama kinds; llamacpp also fits "
                 "llama-server's /v1/completions)")
      ->check(CLI::IsMember({"auto", "none", "llamacpp", "vllm", "sglang"}));
  app.add_option("--host", c.host, "address to listen on");
  app.add_option("--port", c.port, "port to listen on (0: any free port)")->check(whole_number(0, 65535));
  app.add_option("--dialect", c.dialect, "the tool-call dialect (default: detected from the template)");
  app.add_flag("--inject", c.inject, "always show tools through the dialect's tool prompt");
  app.add_option("--tokenizer", c.tokenizer,
                 "tokenizer.json, a folder holding one, or a .gguf (default: --model's own when it is a .gguf): exact "
                 "prompt token counts, and prompts sent to llama.cpp as token ids with message texts as plain text");
  app.add_option("--context-size", c.context_size,
                 "the backend's context in tokens, checked against prompt + max_tokens with a tokenizer (0: llama-server's "
                 "/props)")
      ->check(whole_number(0));
  app.add_option("--model-name", a.model_names,
                 "the model id /v1/models lists (default: the path's last part); repeat it for aliases")
      ->take_all();
  app.add_option("--backend-model", c.backend_model, "\"model\" sent to OpenAI/Ollama backends (default: --model-name)");
  app.add_option("--threads", c.threads, "HTTP worker threads (one per open connection)")->check(whole_number(1, 100000));
  app.add_option("--max-body-bytes", L.max_body_bytes, "request body limit (larger: 413)")->check(whole_number(1));
  app.add_option("--max-messages", L.max_messages, "messages per request")->check(whole_number(1));
  app.add_option("--max-tools", L.max_tools, "tools per request")->check(whole_number(0));
  app.add_option("--max-output-bytes", L.max_output_bytes, "model output per request (beyond it: finish_reason length)")
      ->check(whole_number(1));
  app.add_option("--request-timeout", L.request_timeout_s, "seconds for a whole request (then 504)")
      ->check(seconds());
  app.add_option("--backend-timeout", L.backend_idle_timeout_s, "seconds without a byte from the backend (then 504)")
      ->check(seconds());
  app.add_option("--connect-timeout", L.backend_connect_timeout_s, "seconds to connect to the backend (then 502)")
      ->check(seconds());
  app.add_option("--read-timeout", L.client_read_timeout_s, "seconds a client may stay silent while sending its request (then 408)")
      ->check(seconds());
  // Operations and security.
  app.add_option("--api-key", c.api_key, "require \"Authorization: Bearer KEY\" on every route but /health and /live");
  app.add_option("--backend-api-key", c.backend_api_key, "sent to the backend as \"Authorization: Bearer KEY\"");
  app.add_option("--backend-ca", c.backend_ca_file, "CA bundle to verify an https:// backend with (default: the system's)");
  app.add_option("--cors", c.cors_origin, "answer browsers from this origin with CORS headers (\"*\": any)");
  app.add_option("--retry-after", c.retry_after_s, "Retry-After seconds of a 503 when the backend sent none")
      ->check(seconds(Zero::Allowed));
  app.add_option("--log-format", a.log_format, "access log lines as text or JSON")->check(CLI::IsMember({"text", "json"}));
  app.add_flag("--quiet", a.quiet, "no access log");
  app.add_flag("--log-prompts", c.log_prompts, "log each rendered prompt and the raw model output (debugging)");
}

// SIGINT/SIGTERM blocked in every thread (threads inherit the mask) and taken by one thread with
// sigwait, which stops the server; SIGPIPE ignored (a client gone mid-write fails the write).
class SignalStop {
 public:
  explicit SignalStop(gateway::ServeStop& stop) {
    sigemptyset(&sigs_);
    sigaddset(&sigs_, SIGINT);
    sigaddset(&sigs_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs_, nullptr);
    signal(SIGPIPE, SIG_IGN);
    waiter_ = std::thread([this, &stop] {
      int sig = 0;
      sigwait(&sigs_, &sig);
      stop.request();
    });
  }
  ~SignalStop() {
    pthread_kill(waiter_.native_handle(), SIGTERM);  // wakes the waiter when the server ended by itself
    waiter_.join();
  }

 private:
  sigset_t sigs_;
  std::thread waiter_;
};

int run_serve(ServeArgs& a) {
  gateway::Config& cfg = a.cfg;
  cfg.backend_kind = gateway::backend_kind_from_name(a.backend_kind);
  cfg.backend_grammar = gateway::grammar_form_from_name(a.backend_grammar);
  if (!a.model_names.empty()) {
    cfg.model_name = a.model_names.front();
    cfg.model_aliases.assign(a.model_names.begin() + 1, a.model_names.end());
  }
  cfg.log_format = a.log_format == "json" ? gateway::LogFormat::Json : gateway::LogFormat::Text;
  cfg.access_log = !a.quiet;
  cfg.log = [](const std::string& line) {
    std::string l = line + "\n";
    std::fwrite(l.data(), 1, l.size(), stderr);  // one write per line: lines of threads never interleave
  };
  if (cfg.model_path.empty() && !(cfg.backend_kind == gateway::BackendKind::OllamaChat && !cfg.dialect.empty()))
    throw UsageError("--model PATH is required (only --backend-kind ollama-chat with --dialect can do without)");
  if (!cfg.dialect.empty()) dialect_named(cfg.dialect);
  try {
    gateway::check_backend_url(cfg.backend_url);
  } catch (const Error& e) {
    throw UsageError("--backend: " + e.message());
  }
  gateway::ServeStop stop;
  SignalStop signals(stop);
  return gateway::serve(
      cfg,
      [&](int port, const std::string& summary) {
        std::fprintf(stderr, "toolchat serve: listening on http://%s:%d (%s)\n", cfg.host.c_str(), port, summary.c_str());
        std::string down = gateway::connect_problem(cfg.backend_url, cfg.limits.backend_connect_timeout_s);
        if (!down.empty())
          std::fprintf(stderr, "toolchat serve: warning: %s (requests get 502 until the backend is up)\n", down.c_str());
        std::fflush(stderr);
      },
      &stop);
}

}  // namespace

Verb add_serve(CLI::App& root) {
  auto a = std::make_shared<ServeArgs>();
  CLI::App* app = root.add_subcommand("serve", "OpenAI-compatible gateway in front of a completion backend");
  add_serve_options(*app, *a);
  app->footer(
      "OpenAI-compatible server: POST /v1/chat/completions, GET /v1/models[/ID], /health, /live, /metrics.\n"
      "Tool calls are rendered into the prompt with the model's chat template and parsed out of the\n"
      "backend's completion with the template's dialect. SIGINT or SIGTERM stops it."
      "\n\n"
      "Example:\n"
      "  toolchat serve --model examples/qwen2.5 --backend http://127.0.0.1:8081 --port 8080");
  return {app, [a] { return run_serve(*a); }};
}

}  // namespace toolchat::cli
