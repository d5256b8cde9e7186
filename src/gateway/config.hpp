// Settings of one gateway process (toolchat serve): the model, the backend and the limits every
// request is held to. Plain data; the CLI fills it, tests build it directly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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
};

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
};

}  // namespace toolchat::gateway
