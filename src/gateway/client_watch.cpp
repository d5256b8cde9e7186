#include "gateway/client_watch.hpp"

#include <dirent.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>

#include <cstdlib>
#include <string>

namespace toolchat::gateway {

namespace {

// The numeric host and port of an address, as cpp-httplib writes them into a Request.
bool host_port(const sockaddr_storage& a, socklen_t len, std::string& host, int& port) {
  char h[NI_MAXHOST], p[NI_MAXSERV];
  if (getnameinfo(reinterpret_cast<const sockaddr*>(&a), len, h, sizeof h, p, sizeof p, NI_NUMERICHOST | NI_NUMERICSERV) != 0)
    return false;
  host = h;
  port = std::atoi(p);
  return true;
}

bool same(int fd, const httplib::Request& req) {
  sockaddr_storage local{}, peer{};
  socklen_t ll = sizeof local, pl = sizeof peer;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &ll) != 0) return false;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &pl) != 0) return false;
  std::string lh, ph;
  int lp = -1, pp = -1;
  return host_port(local, ll, lh, lp) && host_port(peer, pl, ph, pp) && lp == req.local_port && pp == req.remote_port &&
         lh == req.local_addr && ph == req.remote_addr;
}

}  // namespace

ClientWatch::ClientWatch(const httplib::Request& req) {
  if (req.remote_port <= 0 || req.local_port <= 0) return;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return;
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    long fd = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0' || fd == dirfd(d)) continue;
    if (same(static_cast<int>(fd), req)) {
      fd_ = static_cast<int>(fd);
      break;
    }
  }
  closedir(d);
}

bool ClientWatch::alive() {
  if (fd_ < 0 || gone_) return !gone_;
  auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return true;
  next_check_ = now + std::chrono::milliseconds(50);
  pollfd p{fd_, POLLRDHUP, 0};
  if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL))) gone_ = true;
  return !gone_;
}

}  // namespace toolchat::gateway
