// From a validated request to what the backend gets: the conversation made showable by the model's
// template (polyfills from its probed capabilities; tools through the dialect's tool prompt when
// the template cannot show them, or always with --inject), rendered once. Templates are compiled
// once per worker (a compiled template renders on one thread at a time) and leased per request.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "chat/caps.hpp"
#include "chat/template_source.hpp"
#include "dialects/dialect.hpp"
#include "gateway/config.hpp"
#include "gateway/request.hpp"
#include "toolchat/jinja.hpp"

namespace toolchat::gateway {

struct Prompt {
  std::string text;                 // completion backends
  Value chat_messages;              // ollama-chat: [{role, content}] (tools injected as text)
  bool reasoning_open = false;      // the prompt ends inside a reasoning block (<think>)
  // The model may think before answering: the template switches thinking (enable_thinking) and
  // it is not switched off, or it has no switch but renders reasoning (a thinking family).
  bool thinking = false;
  std::vector<std::string> stop;    // the request's stop strings + the dialect's
  // With locate_texts: byte ranges of the message texts in `text` (chat/content_marks.hpp), to be
  // tokenized as plain text.
  std::vector<std::pair<size_t, size_t>> message_texts;
};

class PromptBuilder {
 public:
  // Loads the templates (unless the backend takes messages and a dialect is named), probes the
  // template's capabilities and picks the dialect. Throws Error with what went wrong.
  // locate_texts: fill Prompt::message_texts (one more render per prompt).
  explicit PromptBuilder(const Config& cfg, bool backend_takes_messages, bool locate_texts = false);
  ~PromptBuilder();

  const dialects::Dialect& dialect() const { return *dialect_; }
  const chat::Capabilities& capabilities() const { return caps_; }
  bool has_template() const { return !sources_.templates.empty(); }

  // `tools` are the tools to show (undefined: none); `extra_instruction`, when not empty, is added
  // to the last user message (the stricter retry of tool_choice enforcement). Throws ApiError(400)
  // when the template refuses the conversation (raise_exception and friends).
  Prompt build(const ChatRequest& req, const Value& tools, const std::string& extra_instruction) const;

 private:
  struct Compiled;  // one set of compiled templates + special tokens (one thread at a time)
  std::unique_ptr<Compiled> lease() const;
  void give_back(std::unique_ptr<Compiled> c) const;

  bool messages_only_;
  bool locate_texts_ = false;
  chat::TemplateSet sources_;          // read-only after construction (strings only are touched)
  std::string special_tokens_json_;
  jinja::EngineLimits engine_limits_;
  chat::Capabilities caps_;            // as probed, with --inject / ReAct adjustments
  const dialects::Dialect* dialect_ = nullptr;
  bool developer_native_ = false;      // a template names the developer role: it is passed as is
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<Compiled>> pool_;
};

// Stop strings a dialect needs beyond the model's end of turn (ReAct stops at "Observation:").
std::vector<std::string> dialect_stops(const dialects::Dialect& d);
// Whether a dialect is the ReAct text protocol (calls and results written as Action/Observation).
bool is_react(const dialects::Dialect& d);

}  // namespace toolchat::gateway
