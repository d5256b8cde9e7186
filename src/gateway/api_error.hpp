// ApiError is public (include/toolchat/gateway.hpp); the shorthands the gateway builds them with.
#pragma once

#include <string>
#include <utility>

#include "toolchat/gateway.hpp"

namespace toolchat::gateway {

inline ApiError bad_request(std::string param, std::string msg) {
  return ApiError(400, std::move(msg), "invalid_request_error", std::move(param));
}

// A field the gateway (or its backend) cannot honour: 400 naming it, never a 200 that ignored it.
inline ApiError unsupported_parameter(const std::string& param, const std::string& why) {
  return ApiError(400, param + ": " + why, "invalid_request_error", param, "unsupported_parameter");
}

}  // namespace toolchat::gateway
