// Polyfills: rewrite an oracle-style context so that a template shows everything the caller gave,
// using the template's Capabilities (caps.hpp). Each is switchable and applies only where the
// capabilities say the template needs it; order of application:
//
//   inject_tools          tools the template cannot show in a multi-turn conversation -> text
//                         (tools_text) prepended to the first system message, or a new system
//                         message; `tools` is removed
//   call_ids_with_names   templates that show a call's name only through its id (Kimi K2
//                         Thinking): every call id not already "functions.NAME:N" for its own
//                         name becomes one (N counts the conversation's calls), and the tool
//                         messages answering it get the same id
//   one_call_per_message  templates without parallel calls: an assistant message with N calls
//                         becomes N assistant messages with one call each, each followed by its
//                         tool response (matched by tool_call_id, else by position)
//   content_with_calls    templates that drop content or calls when a message has both
//                         (DeepSeek-V3 drops the calls): split into an assistant message with the
//                         content, then one with the calls, when the template shows that pair
//                         (probe `split_content_calls`); else the calls become text after the
//                         content. Splitting is preferred because the calls keep the template's
//                         native format (what the model was trained to read and to emit).
//   tool_calls_as_text    templates that cannot show calls: calls_text appended to the content
//   tool_responses_as_text templates that cannot show tool messages: each run of tool messages
//                         becomes one user message of response_text blocks
//   argument_form         arguments as an object or a JSON string, whichever the template needs
//                         (never double-encoded: strings holding an object are parsed)
//   system_to_user        templates that do not show a system message in a multi-turn
//                         conversation: system text + "\n\n" + the next user message's text (a
//                         system message with no user after it becomes a user one)
//   non_null_content      null content -> "" where the template needs a string
//   content_form          string content -> [{"type": "text", "text": ...}] where required, and
//                         text parts -> one string where parts do not render
//
// Default texts (replaceable through the options; the dialect layer supplies per-family ones):
//   tools:     "You can call the following tools, given as JSON schemas:\n" + one tool JSON per
//              line + "\nTo call tools, reply with {\"tool_calls\": [{\"name\": \"<name>\",
//              \"arguments\": {<arguments>}}]}."
//   calls:     {"tool_calls": [{"name": N, "arguments": {...}, "id": ID}]}   (one line; id if given)
//   responses: "Tool result for N (id ID):\nCONTENT"   (the name from the matching call if absent)
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "chat/caps.hpp"
#include "toolchat/chat.hpp"
#include "toolchat/value.hpp"

namespace toolchat::chat {

// PolyfillOptions is public (include/toolchat/chat.hpp): which of the polyfills above apply.


std::string default_tools_text(const Value& tools);
std::string default_calls_text(const Value& tool_calls);
std::string default_response_text(const Value& tool_message, const std::string& name);

// The transformed context (the input is not modified; unchanged parts are shared).
Value apply_polyfills(const Value& context, const Capabilities& caps, const PolyfillOptions& opts = {});

// `--polyfill LIST`: polyfill_options_from_list (toolchat/chat.hpp).

}  // namespace toolchat::chat
