// The OpenAI-compatible gateway (`toolchat serve`) as a library: its settings (the model, the
// backend, the limits every request is held to), the error every request can fail with, and the
// HTTP server run in-process.
//
//   gateway::Config cfg;
//   cfg.model_path = "models/qwen2.5";                 // folder, .jinja, tokenizer_config.json, .gguf
//   cfg.backend_url = "http://127.0.0.1:8081";         // llama-server, OpenAI-style or Ollama
//   cfg.port = 0;                                      // any free port
//   gateway::ServeStop stop;                           // stop.request() from any thread ends serve()
//   gateway::serve(cfg, [](int port, const std::string& summary) { /* listening */ }, &stop);
//
// To chat in-process without HTTP, use agent::Client (toolchat/agent.hpp) with the same Config.
// Ownership: Config is plain data, copied by what takes it. Thread safety: serve() runs the server
// on its own worker threads and blocks the calling one; ServeStop may be used from any thread.
// Errors: configuration problems throw Error (error.hpp) naming the setting; a request's failure
// is an ApiError. The library writes nothing to the terminal: diagnostics go to Config::log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "toolchat/error.hpp"

namespace toolchat::gateway {

enum class BackendKind { LlamaCpp, OpenAI, OllamaGenerate, OllamaChat };

// How a call grammar (tool_choice enforcement) reaches the backend: llama.cpp's `grammar` field
// (/completion, and llama-server's /v1/completions), vLLM's `structured_outputs: {"grammar"}`,
// SGLang's `ebnf` (both read llama.cpp's GBNF through xgrammar), or not at all (the answer is
// checked and retried instead). Auto: llamacpp for the llamacpp kind, none for the others (an
// OpenAI-style server may reject fields it does not know).
enum class GrammarForm { Auto, None, LlamaCpp, Vllm, Sglang };
// "auto", "none", "llamacpp", "vllm", "sglang"; throws Error(ValueError) naming them.
GrammarForm grammar_form_from_name(const std::string& name);

// "llamacpp" (or "llama.cpp"), "openai", "ollama" (/api/generate, raw), "ollama-chat" (/api/chat).
// Throws Error(ValueError) naming the accepted kinds.
BackendKind backend_kind_from_name(const std::string& name);
// Throws Error(ConfigError) unless `url` starts with http:// or https://.
void check_backend_url(const std::string& url);
const char* backend_kind_name(BackendKind k);

// Documented in README ("Gateway limits"); every one is a command-line option of `toolchat serve`.
struct Limits {
  size_t max_body_bytes = 4u << 20;      // request body; larger -> 413
  size_t max_messages = 2048;            // messages per request
  size_t max_tools = 512;                // tools per request
  size_t max_json_depth = 64;            // nesting of the request JSON
  size_t max_stop = 16;                  // stop strings per request
  size_t max_output_bytes = 16u << 20;   // model output per request; beyond it the request ends (length)
  double request_timeout_s = 600;        // whole request, backend included -> 504
  double backend_idle_timeout_s = 120;   // no byte from the backend for this long -> 504
  double backend_connect_timeout_s = 5;  // connecting to the backend -> 502
  double client_read_timeout_s = 30;     // a client silent this long while sending its request: closed
};

enum class LogFormat { Text, Json };

struct Config {
  std::string model_path;               // template source: folder, .jinja, tokenizer_config.json, .gguf
  std::string model_name;               // the id /v1/models lists (default: the path's last part)
  std::string backend_url;              // http://host:port[/prefix]
  BackendKind backend_kind = BackendKind::LlamaCpp;
  GrammarForm backend_grammar = GrammarForm::Auto;
  std::string backend_model;            // "model" sent to OpenAI/Ollama backends (default model_name)
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string dialect;                  // empty: detected from the template
  bool inject = false;                  // always show tools through the dialect's tool prompt
  int threads = 256;                    // HTTP worker threads (one per open connection)
  Limits limits;

  // Further names the model answers to (a repeated --model-name); requests naming any other model
  // get 404 model_not_found.
  std::vector<std::string> model_aliases;
  std::string api_key;                  // non-empty: every route but the liveness one needs "Bearer KEY"
  std::string backend_api_key;          // sent to the backend as "Authorization: Bearer KEY"
  std::string backend_ca_file;          // https backends: CA bundle to verify with (default: the system's)
  std::string cors_origin;              // non-empty: CORS headers for this origin ("*" for any)
  double retry_after_s = 5;             // Retry-After of a 503 when the backend sent none

  // Where diagnostics go: one line per request (the access log), and with log_prompts the rendered
  // prompt and the raw model output. Null: nowhere. The library never writes to the terminal itself.
  std::function<void(const std::string& line)> log;
  LogFormat log_format = LogFormat::Text;
  bool access_log = true;               // --quiet: false
  bool log_prompts = false;

  // Tokens: with a tokenizer (tokenizer.json, a folder holding one, or a .gguf; by default the
  // model's own when model_path is a .gguf) the prompt is tokenized before the backend is asked
  // (message texts as plain text, the template's text with its special tokens), a request whose
  // prompt plus max_tokens exceeds the context gets 400 context_length_exceeded with the counts,
  // and a llama.cpp backend gets the prompt as token ids (a "<|im_end|>" typed in a message cannot
  // end its turn). context_size 0: llama-server's /props (n_ctx of a slot), else no check.
  std::string tokenizer;
  int64_t context_size = 0;
};


// The OpenAI error object ({"error": {"message", "type", "param", "code"}}) with its HTTP status.
// Everything a request can fail with (in the server, and from agent::Client::chat) is thrown as an
// ApiError; the server writes it as is. Types follow OpenAI's: invalid_request_error for the
// client's mistakes, server_error for what went wrong on our side or the backend's (unreachable,
// failed, overloaded, answered wrongly).
struct ApiError : Error {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // JSON path of the offending field ("" -> null)
  std::string code;   // "" -> null
  std::string retry_after;  // non-empty: sent as the Retry-After header (503)

  ApiError(int s, std::string msg, std::string t, std::string p = "", std::string c = "")
      : Error(ErrorKind::ApiError, msg), status(s), message(std::move(msg)), type(std::move(t)), param(std::move(p)),
        code(std::move(c)) {}
  const char* what() const noexcept override { return message.c_str(); }
  // {"error": {...}} as compact JSON.
  std::string body() const;
  // The metrics label for this error ("invalid_request", "backend_unreachable", ...); hides
  // Error::kind(), which is ErrorKind::ApiError.
  const std::string& kind() const { return code.empty() ? type : code; }
};

// Stops a running serve() from another thread: the embedding program's, or the signal-waiting
// thread of `toolchat serve`. A request made before serve() listens stops it as soon as it does.
class ServeStop {
 public:
  void request();  // any thread, any number of times
  bool requested() const;

 private:
  friend int serve(const Config&, const std::function<void(int, const std::string&)>&, ServeStop*);
  void attach(std::function<void()> stopper);  // runs it at once when a stop was already requested
  void detach();
  mutable std::mutex mu_;
  bool requested_ = false;
  std::function<void()> stopper_;
};

// The HTTP server (cpp-httplib, one worker thread per open connection):
//   POST /v1/chat/completions   (also /chat/completions)
//   GET  /v1/models, /health, /metrics
// Runs until `stop` is requested (runs for ever when it is null). on_listening gets the bound port
// (port 0 in cfg: any free port). Throws Error when the model or the backend settings are
// unusable, or the port cannot be bound.
// Process state is the caller's: serve() installs no signal handler and changes no signal mask but
// its own threads'. Its worker threads start with SIGPIPE blocked, so a client that disconnects
// mid-response fails the write (EPIPE) instead of killing the process; `toolchat serve` also
// ignores SIGPIPE and turns SIGINT/SIGTERM into a ServeStop request (src/cli/cmd_serve.cpp).
int serve(const Config& cfg, const std::function<void(int port, const std::string& summary)>& on_listening,
          ServeStop* stop = nullptr);

}  // namespace toolchat::gateway
