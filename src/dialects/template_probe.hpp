// Renders assistant tool calls through a chat template and takes out the assistant's part (what a
// model would write after the generation prompt), and the round trip built on it: render 1 and 2
// calls, parse the part back with a dialect, compare names and arguments (docs/design.md §3.2). Shared by
// dialect inference (infer.hpp), `toolchat check` and the corpus round-trip test.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/caps.hpp"
#include "dialects/dialect.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects {

// {"id", "type": "function", "function": {"name", "arguments"}}
Value probe_call(std::string_view id, std::string_view name, const Value& args);
// {"type": "function", "function": {"name", "description", "parameters"}} with `properties`
// (a dict of JSON-schema properties), all of them required.
Value probe_tool(std::string_view name, std::string_view description, const Value& properties);

// Does a prompt (a generation prompt's end) leave the model inside its reasoning block? Openers:
// <think> (whitespace after it allowed), MiniMax-M3's <mm:think>, Kimi K3's <|open|>think<|sep|>, Apriel 1.6's
// "Here are my reasoning steps:\n".
bool prompt_opens_reasoning(std::string_view prompt);

struct AssistantPart {
  std::string text;             // the assistant's output as the model writes it
  bool reasoning_open = false;  // the generation prompt leaves the model inside <think>
  bool shows_calls = false;     // every call's name and argument values appear in text
  size_t calls_shown = 0;       // how many of the calls, from the first, appear in text
  // Rendered with ids "functions.NAME:N": the template shows a call's name only through its id
  // (Kimi K2 Thinking; Capabilities::names_in_call_ids).
  bool names_in_ids = false;
};

// What the template accepts (content as a string or as text parts, arguments as an object or a
// JSON string, a calls-only message's content null or "", ids that carry the call's name) is the
// capability probe's finding (chat/caps.hpp): the probe renders every conversation in that form.
class TemplateProbe {
 public:
  // Compiles `source` and probes its capabilities; throws Error when it does not compile.
  // special_tokens: bos_token, ...
  TemplateProbe(std::string_view source, Value special_tokens);

  // The template's capabilities, found once by the constructor.
  const chat::Capabilities& capabilities() const { return caps_; }
  const Value& special_tokens() const { return special_; }

  // The assistant part of [user, assistant with `calls`] with `tools` declared, in the form the
  // capabilities name (object arguments unless the template requires strings; content null unless
  // it requires ""; ids rewritten to "functions.NAME:N" when names_in_call_ids).
  // nullopt (and *error) when the template raises.
  std::optional<AssistantPart> calls(const std::vector<Value>& calls, const Value& tools,
                                     std::string* error = nullptr) const;
  // The assistant part of [user, assistant with text content].
  std::optional<AssistantPart> content(std::string_view text, std::string* error = nullptr) const;

 private:
  std::optional<std::string> render(std::vector<Value> messages, const Value& tools, bool gen,
                                    std::string* error) const;
  AssistantPart cut(const std::string& full, const Value& tools) const;
  Value content_value(std::string_view text) const;

  std::shared_ptr<const jinja::Template> t_;
  Value special_;
  chat::Capabilities caps_;
};

using ParserFactory = std::function<std::unique_ptr<StreamParser>(const ParseOptions&)>;
ParserFactory parser_factory(const Dialect& d);

// One round trip: `calls` tool calls rendered and parsed back.
struct RoundTripCase {
  size_t calls = 0;
  // Refused: the template raises. Limited: the template shows only the first calls of the message
  // (one call per message, as gpt-oss's and GigaChat 3's do) and those parse back right: a limit of
  // the template, not a parser fault.
  enum class Outcome { Ok, Failed, Refused, Limited } outcome = Outcome::Failed;
  std::string detail;    // why it failed or was refused
  std::string rendered;  // the assistant part
  bool names_in_ids = false;  // rendered with ids "functions.NAME:N" (AssistantPart::names_in_ids)
  ParsedMessage parsed;
};
// Renders get_weather calls (1, then 2: ASCII and non-ASCII strings, an integer) and parses each
// assistant part with `make`, fed whole. A template that raises on 2 calls is "refused" (it may
// not allow parallel calls); raising on 1 call is a failure.
std::vector<RoundTripCase> round_trip(const TemplateProbe& probe, const ParserFactory& make);
bool round_trip_ok(const std::vector<RoundTripCase>& cases);
// [{"calls", "outcome": "ok"|"failed"|"refused"|"template_limit", "detail"?, "names_in_call_ids"?,
//   "rendered"?, "parsed"?}]
Value round_trip_json(const std::vector<RoundTripCase>& cases);

}  // namespace toolchat::dialects
