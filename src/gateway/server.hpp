// The HTTP server of `toolchat serve` (cpp-httplib, one worker thread per open connection):
//   POST /v1/chat/completions   (also /chat/completions)
//   GET  /v1/models, /health, /metrics
// Every failure is an OpenAI error object with its status (400 with the JSON path, 404, 413, 502, 504).
#pragma once

#include <functional>
#include <mutex>

#include "gateway/config.hpp"

namespace toolchat::gateway {

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
