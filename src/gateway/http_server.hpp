// cpp-httplib's Server with a usable listen backlog and exclusive ports. Debian's libcpp-httplib
// 0.11 listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed when the library was built):
// 200 clients connecting at once overflow it and wait for SYN retransmits (1 s, 3 s, 7 s ...).
// Linux lets listen() be called again on a listening socket to change the backlog.
#pragma once

#include <httplib.h>
#include <sys/socket.h>

namespace toolchat::gateway {

// cpp-httplib's default socket options also set SO_REUSEPORT, which lets a second server bind the
// same port and take half of its connections; this one sets SO_REUSEADDR only (a restart may bind
// over connections in TIME_WAIT, a second listener may not).
class HttpServer : public httplib::Server {
 public:
  HttpServer() {
    set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
  }

  // After bind_to_port / bind_to_any_port.
  bool widen_backlog(int backlog) { return ::listen(svr_sock_, backlog) == 0; }
  // Ends accept() on the listening socket, even before the listen loop runs (stop() alone does
  // nothing until it does).
  void shutdown_listener() { ::shutdown(svr_sock_, SHUT_RDWR); }
};

}  // namespace toolchat::gateway
