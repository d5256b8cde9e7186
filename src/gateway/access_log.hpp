// One line per request for the access log (Config::log): what was asked, how it ended, how long it
// took, what it cost, and what the parser noticed. Text for people, JSON (--log-format json) for
// log collectors; the fields are the same.
//   2026-11-26T01:02:03Z chatcmpl-... POST /v1/chat/completions 200 0.412s model=qwen stream=0
//     prompt_tokens=31 completion_tokens=12 finish=tool_calls warnings=unknown_tool error=-
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gateway/config.hpp"

namespace toolchat::gateway {

struct AccessRecord {
  std::string id;               // the response id (chatcmpl-...), or a request id for other routes
  std::string method, path;
  int status = 0;
  double seconds = 0;
  std::string model;            // chat completions only
  bool stream = false;
  int64_t prompt_tokens = -1, completion_tokens = -1;  // -1: not known (no generation)
  std::string finish_reason;
  std::vector<std::string> warnings;  // the parser's (truncated_call, unknown_tool, ...)
  std::string error;            // the error code (or type) of a failed request
};

// One line, no newline at the end. `unix_seconds` is the time the request ended.
std::string access_line(const AccessRecord& r, LogFormat format, int64_t unix_seconds);

}  // namespace toolchat::gateway
