// An OpenAI Chat Completions request, validated: every field the gateway reads is checked here and
// a bad one is reported as a 400 naming its JSON path (messages[2].tool_calls[0].function.arguments,
// tool_choice.function.name, ...). Beyond types, what the OpenAI API itself refuses is refused too
// (a tool message answering no call, a tool schema that is not a schema, NaN, lone surrogates), and
// so is every field the gateway cannot honour (n > 1, logprobs, image parts, ...): never a silent
// 200. Fields the gateway does not know are ignored, as most OpenAI-compatible servers do; the
// README's request field table lists both.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gateway/config.hpp"
#include "toolchat/value.hpp"

namespace toolchat::gateway {

struct ToolChoice {
  enum Kind { Auto, None, Required, Named } kind = Auto;
  std::string name;  // Named only
};

// response_format: text (the default), {"type": "json_object"}, or {"type": "json_schema",
// "json_schema": {"name", "schema", "strict"}}.
struct ResponseFormat {
  enum Kind { Text, JsonObject, JsonSchema } kind = Text;
  Value schema;  // JsonSchema only (an empty schema when none was given)
  std::string name;
};

struct ChatRequest {
  std::string model;
  Value messages;                 // the request's list, as given (rendered as is)
  Value tools;                    // the request's list, or undefined when absent / empty
  ToolChoice tool_choice;
  bool parallel_tool_calls = true;
  bool stream = false;
  bool include_usage = false;     // stream_options.include_usage
  std::vector<std::string> stop;
  std::optional<int64_t> max_tokens;  // max_completion_tokens, else max_tokens
  std::optional<double> temperature, top_p;
  std::optional<double> frequency_penalty, presence_penalty;
  // Beyond OpenAI's fields, as vLLM and llama-server accept them: top_k, min_p, and
  // repetition_penalty (llama.cpp's repeat_penalty is read as the same).
  std::optional<int64_t> top_k;
  std::optional<double> min_p, repetition_penalty;
  std::optional<int64_t> seed;
  Value logit_bias;               // {"token id": bias}, validated; undefined when absent or empty
  std::optional<int> top_logprobs;  // logprobs: true -> the alternatives wanted per token (0-20)
  Value template_kwargs = Value::dict();  // chat_template_kwargs (+ reasoning_effort)
  bool reasoning_as_content = false;      // reasoning_format "none": reasoning stays in content
  ResponseFormat response_format;
  std::string log_id;                     // the response id, for --log-prompts lines (set by the server)

  bool has_tools() const { return tools.is_list(); }
  // Whether the model sees tools (the request has some and tool_choice is not "none").
  bool shows_tools() const { return has_tools() && tool_choice.kind != ToolChoice::None; }
  bool wants_json() const { return response_format.kind != ResponseFormat::Text; }
};

// Parses and validates a request body. Throws ApiError (400, or 413 for limit breaches).
ChatRequest parse_chat_request(std::string_view body, const Limits& limits);

}  // namespace toolchat::gateway
