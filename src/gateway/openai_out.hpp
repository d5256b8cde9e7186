// The OpenAI response shapes: a whole chat.completion, and chat.completion.chunk SSE events built
// from dialect events as they come (a call's id/type/name first, then argument fragments, by
// index), then the finish chunk, an optional usage chunk and "data: [DONE]".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "dialects/dialect.hpp"
#include "gateway/api_error.hpp"

namespace toolchat::gateway {

struct ResponseMeta {
  std::string id;       // chatcmpl-...
  int64_t created = 0;  // unix seconds
  std::string model;
};
ResponseMeta new_response_meta(const std::string& model);

struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int64_t cached_tokens = -1;  // prompt tokens the backend reused from its cache; -1: not reported
};

// {"id", "object": "chat.completion", ..., "choices": [{"message", "finish_reason"}], "usage"}.
// The parser's warnings, when there are any, are the message's "toolchat_warnings" extension field
// ([{"kind", "detail"}]); a stream carries them in the delta of its finish chunk.
// `logprobs` (when the request asked for them): the choice's {"content": [...], "refusal": null}.
std::string completion_json(const ResponseMeta& meta, const dialects::ParsedMessage& msg,
                            const std::string& finish_reason, const Usage& usage,
                            const std::vector<Value>* logprobs = nullptr);

// Writes chunks through `write` (false: the client is gone; later writes are skipped).
class ChunkWriter final : public dialects::Sink {
 public:
  ChunkWriter(ResponseMeta meta, std::function<bool(std::string_view)> write)
      : meta_(std::move(meta)), write_(std::move(write)) {}
  void on(dialects::Event&& e) override;
  void finish(const std::string& finish_reason, const Usage* usage);
  // A generated token's log probabilities: sent with the next chunk that carries a delta (tokens the
  // parser holds back, e.g. a marker, go with the text they end up in, or with the finish chunk).
  void add_logprob(Value entry) { logprobs_.push_back(std::move(entry)); }
  // An error after the stream began: {"error": {...}} as an SSE event, then [DONE].
  void fail(const ApiError& e);
  bool client_gone() const { return gone_; }
  bool started() const { return started_; }  // something was written
  const std::vector<dialects::Warning>& warnings() const { return warnings_; }

 private:
  void role_once();
  void send_delta(const std::string& delta_json, const char* finish_reason = nullptr, bool with_logprobs = true);
  void send(std::string_view event);
  ResponseMeta meta_;
  std::function<bool(std::string_view)> write_;
  std::string prefix_;  // the constant start of every chunk
  std::vector<dialects::Warning> warnings_;
  std::vector<Value> logprobs_;  // not sent yet
  bool started_ = false, gone_ = false;
};

}  // namespace toolchat::gateway
