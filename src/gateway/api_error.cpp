#include "gateway/api_error.hpp"

#include "value/json.hpp"

namespace toolchat::gateway {

// ASCII-escaped: a message quotes request text, which may hold lone surrogates (a "\udbbb"
// escape read as WTF-8); raw, they would make the body invalid UTF-8 (fuzz finding, chat_request).
std::string ApiError::body() const {
  std::string o = "{\"error\":{\"message\":";
  json::dump_string(o, message, true);
  o += ",\"type\":";
  json::dump_string(o, type, true);
  o += ",\"param\":";
  if (param.empty()) o += "null";
  else json::dump_string(o, param, true);
  o += ",\"code\":";
  if (code.empty()) o += "null";
  else json::dump_string(o, code, true);
  o += "}}";
  return o;
}

}  // namespace toolchat::gateway
