// The OpenAI error object ({"error": {"message", "type", "param", "code"}}) with its HTTP status.
// Everything a request can fail with is thrown as an ApiError and written by the server as is.
// Types follow OpenAI's: invalid_request_error for the client's mistakes, server_error for what went
// wrong on our side or the backend's (unreachable, failed, overloaded, answered wrongly).
#pragma once

#include <exception>
#include <string>
#include <utility>

namespace toolchat::gateway {

struct ApiError : std::exception {
  int status = 400;
  std::string message;
  std::string type = "invalid_request_error";
  std::string param;  // JSON path of the offending field ("" -> null)
  std::string code;   // "" -> null
  std::string retry_after;  // non-empty: sent as the Retry-After header (503)

  ApiError(int s, std::string msg, std::string t, std::string p = "", std::string c = "")
      : status(s), message(std::move(msg)), type(std::move(t)), param(std::move(p)), code(std::move(c)) {}
  const char* what() const noexcept override { return message.c_str(); }
  // {"error": {...}} as compact JSON.
  std::string body() const;
  // The metrics label for this error ("invalid_request", "backend_unreachable", ...).
  const std::string& kind() const { return code.empty() ? type : code; }
};

inline ApiError bad_request(std::string param, std::string msg) {
  return ApiError(400, std::move(msg), "invalid_request_error", std::move(param));
}

}  // namespace toolchat::gateway
