// Backends: the model servers the gateway sends rendered prompts to, over HTTP, streaming or not.
//
//   llamacpp      POST /completion      {prompt, n_predict, stop, stream, grammar, ...}  (SSE)
//   openai        POST /v1/completions  {model, prompt, max_tokens, stop, stream, ...} (SSE; vLLM,
//                                       TGI, SGLang, llama.cpp)
//   ollama        POST /api/generate    {model, prompt, raw: true, stream, options}   (NDJSON)
//   ollama-chat   POST /api/chat        {model, messages, stream, options}            (NDJSON); the
//                                       tool prompt travels inside the system message
//
// generate() calls on_text with each piece of model output as it arrives; on_text returning false
// cancels the backend request (the connection is closed, so the model server stops generating).
// Failures are thrown as ApiError of type server_error: 502 (unreachable, HTTP error, invalid
// response, connection lost), 503 (the backend is overloaded or loading; its Retry-After passed
// on), 504 (no byte within the idle timeout, or the request's deadline passed).
// https:// backends are verified against the system's CAs or Config::backend_ca_file.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config.hpp"
#include "gateway/request.hpp"
#include "toolchat/value.hpp"

namespace toolchat::gateway {

struct GenRequest {
  std::string prompt;       // completion backends
  std::vector<uint32_t> prompt_ids;  // llama.cpp: sent instead of `prompt` when not empty
  Value messages;           // ollama-chat: [{role, content}] with content strings
  std::vector<std::string> stop;
  std::optional<int64_t> max_tokens;
  std::optional<double> temperature, top_p;
  std::optional<double> frequency_penalty, presence_penalty;
  std::optional<int64_t> top_k;
  std::optional<double> min_p, repetition_penalty;
  std::optional<int64_t> seed;
  Value logit_bias;         // OpenAI's {"token id": bias}; undefined when none
  // logprobs wanted: the alternatives per token (0-20). Each record's entries, in OpenAI's chat
  // shape ({token, logprob, bytes, top_logprobs}, alternatives as the backend sent them), go to
  // on_logprobs before that record's text goes to on_text.
  std::optional<int> top_logprobs;
  std::function<void(const Value& entries)> on_logprobs;
  std::string grammar;      // GBNF; sent only to backends that take one
  ResponseFormat response_format;  // json_object / json_schema: the backend's structured output
  bool stream = true;
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
};

struct GenResult {
  std::string finish_reason = "stop";  // "stop" or "length"
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int64_t cached_tokens = -1;          // prompt tokens served from the backend's cache; -1: unknown
  bool cancelled = false;              // on_text asked to stop
  std::string warning;                 // the backend failed after generating (Record::warning)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual GenResult generate(const GenRequest& req, const std::function<bool(std::string_view)>& on_text) = 0;
  // Whether GenRequest::grammar is honoured (llama.cpp's GBNF).
  virtual bool takes_grammar() const = 0;
  // Whether the backend constrains output to a JSON schema given in GenRequest::response_format
  // (Ollama's `format`): tool_choice then asks for the calls as one JSON object (gateway.hpp).
  virtual bool takes_json_schema() const = 0;
  // Whether the backend wants messages (ollama-chat) instead of a prompt.
  virtual bool wants_messages() const = 0;
  // Asks the backend whether it can serve now (its health / models route): "" when it can, else why
  // not ("unreachable at URL (Connection)", "answered HTTP 503 (loading model)").
  virtual std::string probe() = 0;
  // The context of one request in tokens, as the backend says (llama-server's /props), or 0.
  virtual int64_t context_size() { return 0; }
};

std::unique_ptr<Backend> make_backend(const Config& cfg);

// Splits a byte stream into lines ("\n" or "\r\n"), across chunk boundaries; bounded.
class LineSplitter {
 public:
  explicit LineSplitter(size_t max_line) : max_line_(max_line) {}
  // Calls on_line for every complete line; returns false when on_line does or a line is too long.
  bool feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line);
  bool overflowed() const { return overflowed_; }
  const std::string& rest() const { return buf_; }

 private:
  std::string buf_;
  size_t max_line_;
  bool overflowed_ = false;
};

}  // namespace toolchat::gateway
