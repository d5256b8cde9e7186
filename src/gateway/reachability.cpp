// Why a backend cannot be reached, in the OS's words. cpp-httplib reports every failed connect as
// "Connection"; the gateway's 502 and serve's start-up warning should say what the user can act on.
#include "gateway/reachability.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

namespace toolchat::gateway {

std::string connect_problem(const std::string& url, double timeout_s) {
  std::string rest = url;
  std::string port = "80";
  if (rest.rfind("https://", 0) == 0) rest = rest.substr(8), port = "443";
  else if (rest.rfind("http://", 0) == 0) rest = rest.substr(7);
  rest = rest.substr(0, rest.find('/'));
  std::string host = rest;
  if (!rest.empty() && rest[0] == '[') {  // [v6]:port
    size_t close = rest.find(']');
    host = rest.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    if (close != std::string::npos && close + 1 < rest.size() && rest[close + 1] == ':') port = rest.substr(close + 2);
  } else if (size_t colon = rest.rfind(':'); colon != std::string::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &res); rc != 0)
    return std::string("cannot resolve ") + host + " (" + gai_strerror(rc) + ") for " + url;
  int err = ECONNREFUSED;
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = ::poll(&p, 1, static_cast<int>(timeout_s * 1000));
      socklen_t len = sizeof err;
      if (rc == 1 && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) rc = 0;
      else if (rc == 0) err = ETIMEDOUT, rc = -1;
      else rc = -1;
    } else if (rc != 0) {
      err = errno;
    }
    ::close(fd);
    if (rc == 0) {
      freeaddrinfo(res);
      return "";
    }
  }
  freeaddrinfo(res);
  std::string reason = std::strerror(err);
  if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
  return reason + " at " + url;
}

}  // namespace toolchat::gateway
