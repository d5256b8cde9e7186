// One chat completion from request to answer: prompt (PromptBuilder), backend generation, the
// dialect's incremental parser fed as bytes arrive, and the request's tool policy:
//   no tools, or tool_choice none
//                         tools are not shown; whatever the model writes is returned as written
//                         (a call-shaped answer is content, markers included: as_written.hpp)
//   response_format       json_object / json_schema go to the backend (its grammar / format) and
//                         the answer is checked (502 response_format_not_honoured), so these too
//                         stream only once the answer is known
//   tool_choice required / named
//                         when the backend takes a grammar and the dialect provides one, the grammar
//                         (one call, or at most kMaxParallelCalls; no text before it; reasoning only
//                         when the template thinks) guarantees the call: streamed as generated. Else
//                         (no grammar) the answer is checked, a non-complying one retried once with a
//                         stricter instruction, then refused (502 tool_choice_not_honoured); checking
//                         needs the whole answer, so such requests stream only once it is known.
//                         Non-streaming answers are checked either way (a grammar-bound answer can
//                         still be cut by max_tokens).
//   parallel_tool_calls false
//                         at most one call: the generation is cancelled when a second one begins
// The backend is always asked to stream, so that --backend-timeout bounds the silence between two
// pieces rather than the whole generation, and a client that goes away (streaming or not) cancels
// the backend's generation.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "gateway/backend.hpp"
#include "gateway/config.hpp"
#include "gateway/metrics.hpp"
#include "gateway/openai_out.hpp"
#include "gateway/prompt.hpp"
#include "gateway/request.hpp"
#include "toolchat/tokenize.hpp"

namespace toolchat::gateway {

using Clock = std::chrono::steady_clock;

// The most calls a grammar admits in one answer when parallel_tool_calls is true.
inline constexpr size_t kMaxParallelCalls = 8;

struct Outcome {
  std::vector<dialects::Event> events;  // as the client sees them (after the tool policy)
  std::string finish_reason;
  Usage usage;
  std::optional<std::vector<Value>> logprobs;  // logprobs: true -> every generated token, in order
};

class Gateway {
 public:
  explicit Gateway(const Config& cfg);
  ~Gateway();

  const Config& config() const { return cfg_; }
  Metrics& metrics() { return metrics_; }
  const PromptBuilder& prompts() const { return *prompts_; }
  // "" when the backend can serve now, else why not (GET /health).
  std::string backend_problem() { return backend_->probe(); }

  // tool_choice required or named.
  static bool constrained(const ChatRequest& req);
  // Whether the backend's grammar guarantees the call (constrained, and both the backend and the
  // dialect do grammars).
  bool grammar_guarantees(const ChatRequest& req) const;
  // Whether the answer must be complete before anything is sent: constrained without a grammar,
  // or response_format (the answer is checked before it is sent).
  bool needs_whole_answer(const ChatRequest& req) const {
    return (constrained(req) && !grammar_guarantees(req)) || req.wants_json();
  }
  // The whole answer (non-streaming requests, and streaming ones that need_whole_answer).
  // client_ok is polled while the backend generates; once false the generation is cancelled and
  // ApiError 499 (client_disconnected) thrown.
  Outcome run_whole(const ChatRequest& req, Clock::time_point deadline,
                    const std::function<bool()>& client_ok = [] { return true; });
  // Streams chunks as the backend produces them. A failure (even after chunks were sent) is thrown
  // as ApiError; the caller ends the stream with it (ChunkWriter::fail). Returns the usage and
  // finish reason (events stay empty: they went to `out`).
  Outcome run_streaming(const ChatRequest& req, ChunkWriter& out, Clock::time_point deadline);

 private:
  struct Attempt;
  // on_logprob (logprobs requested): each generated token's entry as it arrives; without it they
  // are kept in the Attempt.
  Attempt attempt(const ChatRequest& req, const std::string& extra, dialects::Sink& out,
                  const std::function<bool()>& client_ok, Clock::time_point deadline, bool stream_backend,
                  const std::function<void(Value&&)>& on_logprob = nullptr);
  void account(const Outcome& o);

  Config cfg_;
  Metrics metrics_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<PromptBuilder> prompts_;
  // Tokens (Config::tokenizer): the tokenizer, and the ids the backend adds before a text prompt
  // (its BOS), which a prompt sent as ids must carry itself.
  std::optional<tokenize::Tokenizer> tokenizer_;
  std::vector<uint32_t> added_prefix_;
  // The prompt's ids; 400 context_length_exceeded when they and max_tokens do not fit.
  std::vector<uint32_t> prompt_ids(const ChatRequest& req, const Prompt& p);
};

}  // namespace toolchat::gateway
