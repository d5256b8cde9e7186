// One chat completion from request to answer: prompt (PromptBuilder), backend generation, the
// dialect's incremental parser fed as bytes arrive, and the request's tool policy:
//   no tools, or tool_choice none
//                         tools are not shown; whatever the model writes is returned as written
//                         (a call-shaped answer is content, markers included: as_written.hpp)
//   response_format       json_object / json_schema go to the backend (its grammar / format) and
//                         the answer is checked (502 response_format_not_honoured), so these too
//                         stream only once the answer is known
//   tool_choice required / named
//                         the backend's grammar when it takes one and the dialect provides one; the
//                         result is checked in every case, a non-complying answer is retried once
//                         with a stricter instruction, then refused (502 tool_choice_not_honoured).
//                         Checking needs the whole answer, so these requests stream only once the
//                         answer is known (the chunks are the same).
//   parallel_tool_calls false
//                         at most one call: the generation is cancelled when a second one begins
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "gateway/backend.hpp"
#include "gateway/config.hpp"
#include "gateway/metrics.hpp"
#include "gateway/openai_out.hpp"
#include "gateway/prompt.hpp"
#include "gateway/request.hpp"

namespace toolchat::gateway {

using Clock = std::chrono::steady_clock;

struct Outcome {
  std::vector<dialects::Event> events;  // as the client sees them (after the tool policy)
  std::string finish_reason;
  Usage usage;
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

  // Whether the answer must be complete before anything is sent (tool_choice required / named,
  // response_format).
  static bool needs_whole_answer(const ChatRequest& req);
  // The whole answer (non-streaming requests, and streaming ones that need_whole_answer).
  Outcome run_whole(const ChatRequest& req, Clock::time_point deadline);
  // Streams chunks as the backend produces them. A failure (even after chunks were sent) is thrown
  // as ApiError; the caller ends the stream with it (ChunkWriter::fail). Returns the usage and
  // finish reason (events stay empty: they went to `out`).
  Outcome run_streaming(const ChatRequest& req, ChunkWriter& out, Clock::time_point deadline);

 private:
  struct Attempt;
  Attempt attempt(const ChatRequest& req, const std::string& extra, dialects::Sink& out,
                  const std::function<bool()>& client_ok, Clock::time_point deadline, bool stream_backend);
  void account(const Outcome& o);

  Config cfg_;
  Metrics metrics_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<PromptBuilder> prompts_;
};

}  // namespace toolchat::gateway
