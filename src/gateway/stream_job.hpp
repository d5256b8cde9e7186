// A streaming completion run on a thread of its own, so that the HTTP handler can wait for the
// first chunk: a failure before any output (backend refused, HTTP error, silent backend, template
// refusal) still gets its HTTP status and error object; afterwards the chunks flow through a
// bounded queue to the response writer, and a client that goes away stops the generation (its
// next chunk is refused, the backend request is cancelled).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "gateway/api_error.hpp"

namespace toolchat::gateway {

class StreamJob {
 public:
  // Starts `work` on a new thread. work(write) writes SSE events; write returns false once the
  // client is gone. An ApiError thrown before the first write is kept for the handler (early_error);
  // after it, work must report failures as events itself.
  explicit StreamJob(std::function<void(const std::function<bool(std::string_view)>&)> work);
  ~StreamJob();  // joins

  // Blocks until the first event or the end; the error when the job failed without output.
  std::optional<ApiError> wait_first();
  // Hands queued events to `deliver` until the job ends or deliver returns false (client gone).
  void drain(const std::function<bool(const std::string&)>& deliver);
  // Blocks until `work` has returned (after drain, once the client is gone, the job is still
  // cancelling): whatever it wrote is then visible to the caller.
  void wait_done();

 private:
  bool push(std::string_view event);
  static constexpr size_t kMaxQueued = 256;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool started_ = false, finished_ = false, gone_ = false;
  std::optional<ApiError> early_error_;
  std::thread thread_;
};

}  // namespace toolchat::gateway
