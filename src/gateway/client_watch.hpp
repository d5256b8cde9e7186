// Whether the client of a non-streaming request is still connected, so that a client that gives
// up cancels the backend's generation instead of leaving it to run for nobody. cpp-httplib 0.11
// (Debian 12) does not hand a handler its socket, so the socket is found among the process's
// descriptors by the connection's two addresses (unique for a TCP connection), then polled for
// the peer's hang-up.
#pragma once

#include <httplib.h>

#include <chrono>

namespace toolchat::gateway {

class ClientWatch {
 public:
  explicit ClientWatch(const httplib::Request& req);
  // False once the client has closed its side (or the socket failed). Polls at most every 50 ms;
  // true when the socket could not be found (nothing to watch).
  bool alive();

 private:
  int fd_ = -1;
  bool gone_ = false;
  std::chrono::steady_clock::time_point next_check_{};
};

}  // namespace toolchat::gateway
