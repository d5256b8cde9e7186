#include "gateway/stream_job.hpp"

namespace toolchat::gateway {

StreamJob::StreamJob(std::function<void(const std::function<bool(std::string_view)>&)> work) {
  thread_ = std::thread([this, work = std::move(work)] {
    std::optional<ApiError> err;
    try {
      work([this](std::string_view e) { return push(e); });
    } catch (const ApiError& e) {
      err = e;
    } catch (const std::exception& e) {
      err = ApiError(500, std::string("internal error: ") + e.what(), "server_error", "", "internal_error");
    }
    std::lock_guard<std::mutex> g(mu_);
    if (err && !started_) early_error_ = std::move(err);
    finished_ = true;
    cv_.notify_all();
  });
}

StreamJob::~StreamJob() {
  {
    std::lock_guard<std::mutex> g(mu_);
    gone_ = true;  // unblocks a push waiting for room
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

bool StreamJob::push(std::string_view event) {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return gone_ || queue_.size() < kMaxQueued; });
  if (gone_) return false;
  queue_.emplace_back(event);
  started_ = true;
  cv_.notify_all();
  return true;
}

std::optional<ApiError> StreamJob::wait_first() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return started_ || finished_; });
  return started_ ? std::nullopt : early_error_;
}

void StreamJob::wait_done() {
  std::unique_lock<std::mutex> lk(mu_);
  cv_.wait(lk, [&] { return finished_; });
}

void StreamJob::drain(const std::function<bool(const std::string&)>& deliver) {
  for (;;) {
    std::string event;
    {
      std::unique_lock<std::mutex> lk(mu_);
      cv_.wait(lk, [&] { return !queue_.empty() || finished_; });
      if (queue_.empty()) return;  // finished and delivered
      event = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
    }
    if (!deliver(event)) {
      std::lock_guard<std::mutex> g(mu_);
      gone_ = true;
      queue_.clear();
      cv_.notify_all();
      return;
    }
  }
}

}  // namespace toolchat::gateway
