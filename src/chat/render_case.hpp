// apply_chat_template's rendering contract (as the oracle implements it): a context of
// messages / tools / documents / flags / special tokens / kwargs -> text + generation spans,
// including continue_final_message truncation. Failures are results, not exceptions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "toolchat/chat.hpp"
#include "toolchat/jinja.hpp"

namespace toolchat::chat {

struct CaseResult {
  bool ok = false;
  std::string text;
  std::vector<std::pair<size_t, size_t>> spans;
  std::string error;    // Python exception class name
  std::string message;  // str(exception)
};

// The variables a template sees for `context` (special tokens under the context's own).
// Throws Error on a context that is not usable (no messages, flags that exclude each other).
struct PreparedCase {
  Value variables;
  Value messages;
  bool continue_final = false;
};
PreparedCase prepare_case(const Value& context, const Value& special_tokens);
// The same from apply_chat_template's arguments; call_of reads a context into them (TypeError when
// it is not a dict; a missing "messages" is left undefined, for prepare_call's KeyError).
PreparedCase prepare_call(const ChatCall& call, const Value& special_tokens);
ChatCall call_of(const Value& context);

// Renders one context with a compiled template.
CaseResult render_prepared(const jinja::Template& t, const PreparedCase& c, const jinja::RenderOptions& opts);

// Compiles and renders; every failure (syntax, render, context) becomes an error result.
CaseResult render_case(std::string_view source, const Value& context, const Value& special_tokens,
                       const jinja::RenderOptions& opts, const jinja::EngineLimits& limits = {});

// transformers' continue_final_message: cut the text after the final message's content.
std::string continue_final(const std::string& rendered, const Value& messages);

// {"text", "generation_spans"} or {"error", "message"} as the oracle's JSON objects.
Value case_result_json(const CaseResult& r);

}  // namespace toolchat::chat
