#pragma once
// A TCP connect to a backend's address, to name why it fails.
#include <string>

namespace toolchat::gateway {

// "connection refused at URL", "cannot resolve HOST (...) for URL", "connection timed out at URL", ...;
// "" when a connection opens. Only a connect, no request: a backend may legitimately start after the
// gateway, so callers report this rather than refuse to start.
std::string connect_problem(const std::string& url, double timeout_s);

}  // namespace toolchat::gateway
