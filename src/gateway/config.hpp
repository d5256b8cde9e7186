// Settings of one gateway process (toolchat serve): the model, the backend and the limits every
// request is held to. Plain data; the CLI fills it, tests build it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace toolchat::gateway {

enum class BackendKind { LlamaCpp, OpenAI, OllamaGenerate, OllamaChat };

// "llamacpp" (or "llama.cpp"), "openai", "ollama" (/api/generate, raw), "ollama-chat" (/api/chat).
// Throws Error(ValueError) naming the accepted kinds.
BackendKind backend_kind_from_name(const std::string& name);
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
};

}  // namespace toolchat::gateway
