// ApiError is public (include/toolchat/gateway.hpp); the shorthands the gateway builds them with.
#pragma once

#include <string>
#include <utility>

#include "toolchat/gateway.hpp"

namespace toolchat::gateway {

inline ApiError bad_request(std::string param, std::string msg) {
  return ApiError(400, std::move(msg), "invalid_request_error", std::move(param));
}

}  // namespace toolchat::gateway
