// What a chat template can render, found only by rendering probe conversations with distinctive
// needle strings and looking for them in the output (never by matching model names or the
// template's source). A probe that raises (raise_exception, TypeError, ...) counts as "cannot".
// One compile, about 15 renders.
//
// Flag meanings (each is what the probe output shows):
//   supports_system_role       a system message's text appears in the prompt
//   supports_tools             a tool's name from `tools` appears (with or without a system message)
//   supports_tool_calls        an assistant tool call's name and arguments appear, given as an
//                              object or as a JSON string (rendered cleanly: not double-encoded,
//                              not a Python repr)
//   supports_tool_responses    a tool message's content appears
//   supports_parallel_tool_calls  both calls of a two-call assistant message appear
//   supports_tool_call_id      a tool call id appears (in the call or in the tool response)
//   names_in_call_ids          a call's name shows only through its id: with plain ids no call
//                              shows, with ids "functions.NAME:N" (Kimi K2 Thinking) they do; the
//                              other call probes then use such ids (conv_util.hpp named_call_id)
// The dialect layer's TemplateProbe renders its calls in the forms these flags name (content
// typed, arguments as object or string, content null or "", named ids): they are found here only.
//   requires_object_arguments  arguments render cleanly only when given as an object (or both
//                              forms render cleanly but differently: the object form is native)
//   requires_string_arguments  arguments render cleanly only when given as a JSON string
//   requires_typed_content     string content does not show, [{"type":"text","text":...}] does
//   supports_typed_content     [{"type":"text","text":...}] content shows
//   requires_non_null_content  a content-less tool-call message needs content "" (null fails/drops)
//   renders_reasoning_content  an assistant's reasoning_content appears
//   thinking_switch            output differs between enable_thinking=true and false
//   system_in_multi_turn       the system text still shows in [system, user, assistant, user,
//                              assistant] (Mistral templates show it only with the last user turn)
//   tools_in_multi_turn        the same for tools (name and description)
//   content_with_tool_calls    an assistant message with both content and tool calls shows both
//   split_content_calls        when it does not: the same content and calls given as two assistant
//                              messages (content first) show both (what the polyfill uses)
// requires_non_null_content is also set when content null fails and "" works for a calls-only
// message followed by more messages. A template that fails on a conversation without tools but
// renders one with tools gets a declared tool, with needles of its own, in every probe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::chat {

// Information the caller gave that a rendered prompt does not show.
struct DropWarning {
  std::string probe;          // which probe conversation ("" for a caller's conversation)
  int64_t message_index = -1; // index in messages; -1 for tools / the whole conversation
  std::string field;          // "content", "tool_calls[1].function.name", "tools[0].description", ...
  std::string detail;         // one line for people
};

struct Capabilities {
  bool supports_system_role = false;
  bool supports_tools = false;
  bool supports_tool_calls = false;
  bool supports_tool_responses = false;
  bool supports_parallel_tool_calls = false;
  bool supports_tool_call_id = false;
  bool names_in_call_ids = false;
  bool requires_object_arguments = false;
  bool requires_string_arguments = false;
  bool requires_typed_content = false;
  bool supports_typed_content = false;
  bool requires_non_null_content = false;
  bool renders_reasoning_content = false;
  bool thinking_switch = false;
  bool system_in_multi_turn = false;
  bool tools_in_multi_turn = false;
  bool content_with_tool_calls = false;
  bool split_content_calls = false;
  std::vector<DropWarning> warnings;

  // {"flag": bool, ...} with the flags above (no warnings).
  Value flags_json() const;
  // [{"probe", "message_index", "field", "detail"}, ...]
  Value warnings_json() const;
};

// Probes a compiled template. special_tokens: bos_token, eos_token, ... as the template sees them.
Capabilities detect_capabilities(const jinja::Template& t, const Value& special_tokens,
                                 const jinja::RenderOptions& opts = {});
// Compiles and probes; throws Error when the template does not compile.
Capabilities detect_capabilities(std::string_view source, const Value& special_tokens,
                                 const jinja::RenderOptions& opts = {});

// Every piece of information in an oracle-style context (message texts, reasoning, tool call
// names and argument values, tool results, tool names and descriptions) that `rendered` does not
// contain. Text is compared after stripping surrounding whitespace; argument values that are not
// strings are looked for as JSON and as Python literals.
std::vector<DropWarning> find_dropped(const Value& context, std::string_view rendered);

// What `toolchat detect` prints: {"capabilities": {...}, "warnings": [...]} (an object, so that
// more keys, such as "dialect", can be added).
Value detect_report(const Capabilities& caps);

}  // namespace toolchat::chat
