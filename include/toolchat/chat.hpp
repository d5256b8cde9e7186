// The typed conversation API: messages, tools and flags as C++ types, a model's chat templates
// loaded once, and rendering exactly as transformers' apply_chat_template does it.
//
//   auto model = chat::ModelTemplate::load("path/to/model");          // folder, .jinja, .json, .gguf
//   chat::Conversation conv = chat::from_openai_json(request_json);   // or build it in C++
//   chat::Rendered out = model.render(conv);                          // text + spans
//
// Ownership: Conversation, Message and Tool are plain data owned by the caller; a ModelTemplate is
// a cheap handle to templates compiled once (copies share them). Thread safety: a ModelTemplate
// may be rendered from several threads at once (its compiled templates and special tokens are
// frozen, as jinja.hpp says); the Values of a conversation are one thread's at a time. Errors: Error (error.hpp) with the exception transformers raises,
// and ValueError naming the JSON path for a malformed request.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::chat {

struct TemplateSet;  // chat/template_source.hpp (internal)

// One part of a multi-part content: {"type": "text", "text": ...}, {"type": "image_url", ...}.
struct ContentPart {
  std::string type = "text";
  std::optional<std::string> text;  // the "text" field, when present
  Value extra = Value::dict();      // every other field, in order
  std::vector<std::string> order;   // the source's key order (empty: type, text, extras)
};

// Content: null, a string, or parts. A message without content has no Content at all.
using Content = std::variant<std::monostate, std::string, std::vector<ContentPart>>;

struct ToolCall {
  std::optional<std::string> id;
  std::optional<std::string> type = "function";
  std::string name;
  // A JSON object (Value dict), or the JSON text of one (Value string), as the caller gave it.
  Value arguments = Value::dict();
  Value extra = Value::dict();                 // other fields of the call, in order
  Value function_extra = Value::dict();        // other fields of its "function" object
  std::vector<std::string> order;              // key order of the call
  std::vector<std::string> function_order;     // key order of its "function" object
};

struct Message {
  std::string role;
  std::optional<Content> content;               // nullopt: no "content" key
  std::optional<std::string> reasoning_content;
  std::optional<std::vector<ToolCall>> tool_calls;
  std::optional<std::string> tool_call_id;
  std::optional<std::string> name;
  Value extra = Value::dict();                  // any other field, passed to the template as is
  std::vector<std::string> order;               // key order (empty: role, content, ... extras)

  Message() = default;
  Message(std::string r, std::string text) : role(std::move(r)), content(Content(std::move(text))) {}
  // The message's own text: the string content, or its text parts joined (none when it has none).
  std::vector<std::string> texts() const;
};

// A function tool: {"type": "function", "function": {"name", "description", "parameters"}}.
struct Tool {
  std::optional<std::string> type = "function";
  std::string name;
  std::optional<std::string> description;
  std::optional<Value> parameters;               // a JSON schema object
  Value extra = Value::dict();                   // other fields of "function"
  Value outer_extra = Value::dict();             // other fields beside "type" and "function"
  std::vector<std::string> order, function_order;
};

struct Conversation {
  std::vector<Message> messages;
  std::optional<std::vector<Tool>> tools;        // nullopt: tools=None (no tool_use selection)
  std::optional<std::vector<Value>> documents;
  Value kwargs = Value::dict();                  // extra template variables (enable_thinking, ...)
  Value special_tokens = Value::dict();          // overrides the model's special tokens
  bool add_generation_prompt = false;
  bool continue_final_message = false;
};

// ---- OpenAI JSON shapes ----
// A request / oracle context object {"messages", "tools", "documents", "add_generation_prompt",
// "continue_final_message", "chat_template_kwargs", "special_tokens", other keys -> kwargs},
// or a bare list of messages. Throws Error(ValueError) naming the JSON path, e.g.
// "messages[2].tool_calls[0].function.arguments: expected object or string".
Conversation from_openai_json(const Value& json);
// The oracle context form of a conversation (the inverse of from_openai_json, key order kept).
Value to_openai_json(const Conversation& conv);
Value message_to_json(const Message& m);
Message message_from_json(const Value& json, const std::string& path = "message");
Value tool_to_json(const Tool& t);
Tool tool_from_json(const Value& json, const std::string& path = "tool");

// ---- Rendering ----
struct RenderOptions {
  std::optional<std::string> template_name;  // a named template; else tool_use / default
  jinja::RenderOptions clock;                // strftime_now: fixed instant (default) or real
  // Fill Rendered::message_spans (a search of the text per message); off when only the text is
  // wanted (the Python module's apply: transformers returns the text alone).
  bool locate_messages = true;
};

// A byte range [begin, end) of the output, and the same range in code points.
struct TextSpan {
  size_t begin = 0, end = 0;
  size_t cp_begin = 0, cp_end = 0;
};

struct Rendered {
  std::string text;
  std::vector<std::pair<size_t, size_t>> generation_spans;  // code points, as transformers
  // For every message, where its own text lands in `text` (searched in message order; a
  // text the template changed or dropped is absent). Multi-part: first to last text part.
  std::vector<std::optional<TextSpan>> message_spans;
  std::string template_name;                // the template that was used
};

// apply_chat_template's arguments as values (ModelTemplate::apply); render_json reads its context
// form into one.
struct ChatCall {
  Value messages;
  Value tools = Value::none();      // not None: the tool_use template is chosen when there is one
  Value documents = Value::none();
  Value add_generation_prompt = Value::boolean(false);  // passed to the template as given
  bool continue_final_message = false;
  Value special_tokens;             // a dict: this call's special tokens, over the model's
  std::vector<std::pair<Value, Value>> kwargs;  // other template variables, over the special tokens
};

class ModelTemplate {
 public:
  // Loads every template a path offers (see chat/template_source.hpp) and compiles each once.
  // Throws Error on a missing file, bad JSON/GGUF, or no template.
  static ModelTemplate load(const std::string& path, const jinja::EngineLimits& limits = {});
  // From sources in memory: (name, source) pairs, "default" for the unnamed one.
  static ModelTemplate from_sources(std::vector<std::pair<std::string, std::string>> templates,
                                    Value special_tokens = Value::dict(),
                                    const jinja::EngineLimits& limits = {});

  std::vector<std::string> names() const;
  const std::string& source(const std::string& name) const;  // throws ValueError if missing
  const Value& special_tokens() const;
  // The error compiling template `name` raised (nullopt: it compiled, or there is no such
  // template). A template that does not compile fails only when render selects it, as in
  // transformers; this lets a caller check up front.
  std::optional<Error> compile_error(const std::string& name) const;
  // The name apply_chat_template would pick (named, tool_use when tools are given, default).
  std::string select(const std::optional<std::string>& name, bool has_tools) const;

  // Renders; throws Error exactly where transformers raises (template syntax errors of the
  // selected template included), with its exception kind and message.
  Rendered render(const Conversation& conv, const RenderOptions& opts = {}) const;
  // Renders a context already in the oracle's JSON form.
  Rendered render_json(const Value& context, const RenderOptions& opts = {}) const;
  // Renders apply_chat_template's arguments (what render_json does after reading its context).
  Rendered apply(const ChatCall& call, const RenderOptions& opts = {}) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
  static std::shared_ptr<const Impl> compile_all(TemplateSet set, const jinja::EngineLimits& limits);
};

// Polyfills: a conversation rewritten so that a template shows everything the caller gave (tools,
// parallel calls, tool results, system text ...), each applied only where the template's probed
// capabilities say it is needed. Used by the training-data converter (convert.hpp) and the
// gateway; every switch is on by default. The texts default to toolchat's generic forms.
struct PolyfillOptions {
  bool inject_tools = true;
  bool one_call_per_message = true;
  bool content_with_calls = true;
  bool tool_calls_as_text = true;
  bool tool_responses_as_text = true;
  bool argument_form = true;
  bool system_to_user = true;
  bool non_null_content = true;
  bool content_form = true;
  bool call_ids_with_names = true;
  std::function<std::string(const Value& tools)> tools_text;                // default_tools_text
  std::function<std::string(const Value& tool_calls)> calls_text;           // default_calls_text
  // A tool message, and the name of the call it answers ("" when unknown).
  std::function<std::string(const Value& tool_message, const std::string& name)> response_text;
};

// For `--polyfill LIST` (and convert_rows' polyfill=): "all", "none", or comma-separated names of
// the switches above (others off); "-name" turns one off from "all" ("all,-system_to_user").
// Throws Error(ValueError) on an unknown name.
PolyfillOptions polyfill_options_from_list(std::string_view list);

// Spans of each message's text in `text`, searched in order (see Rendered::message_spans).
std::vector<std::optional<TextSpan>> locate_messages(const std::string& text, const std::vector<Message>& messages);

}  // namespace toolchat::chat
