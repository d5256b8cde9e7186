// Tool calls out of model text: one Dialect per model family's wire format (docs/design.md §3.2),
// found by name or detected from a chat template, parsing whole or streamed output.
//
//   const dialects::Dialect* d = dialects::find("hermes");            // or detect(template_source)
//   dialects::ParsedMessage m = dialects::parse_all(*d, model_output);  // content + tool_calls
//
//   auto parser = d->make_parser({});                                   // streaming
//   dialects::EventLog log;
//   for (auto chunk : chunks) parser->feed(chunk, log);
//   parser->finish(log);                                                // log.events
//
// A Dialect is plain data (name, aliases, function pointers) with static storage: the pointers
// find(), detect() and all() return stay valid for the life of the program. Parsing is incremental:
// a StreamParser gets the model output in chunks through feed() and emits events to a Sink;
// finish() flushes what was held back. The events of a whole-string parse equal those of any
// chunking once adjacent deltas of the same kind are merged (tests/unit/test_dialects.cpp checks
// every split point). Parsers never throw: malformed or truncated calls end as content plus a
// Warning.
// Thread safety: the registry and the Dialect objects are immutable; a StreamParser (and the Value
// graphs it holds, such as ParseOptions::tools) belongs to one thread at a time. Parsers on
// different threads are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::chat {
struct Capabilities;
}

namespace toolchat::dialects {

// ---- events ------------------------------------------------------------------------------------
struct ContentDelta { std::string text; };
struct ReasoningDelta { std::string text; };
// A call starts; id is the format's own id or a generated one (ParseOptions::id_seed).
struct ToolCallBegin { size_t index; std::string id; std::string name; };
// A piece of the call's arguments (JSON text; the pieces of one call concatenate to one object).
struct ToolArgsDelta { size_t index; std::string fragment; };
struct ToolCallEnd { size_t index; };

enum class WarningKind : uint8_t {
  MalformedCall,      // a call marker not followed by a valid call: the text is kept as content
  TruncatedCall,      // output ended inside a call: the text is kept as content
  MissingCloseMarker, // a complete call without its closing marker: the call is kept
  UnclosedReasoning,  // output ended inside a reasoning block
  UnknownTool,        // a call to a tool that is not in ParseOptions::tools (the call is kept)
  InvalidArguments,   // arguments were not a JSON object (the call is kept with what was given)
  BackendError,       // the gateway's, not a parser's: the backend failed after it had generated the
                      // answer, which is what it streamed before the failure
};
const char* warning_kind_name(WarningKind k);
struct Warning {
  WarningKind kind;
  std::string detail;
  // Set on the TruncatedCall / MalformedCall warning that follows the ToolCallEnd of a call that was
  // streamed and then cut off (output ended) or broken (its text stopped being a call): that call's
  // index and source text. Its streamed events stand (bytes sent cannot be taken back), but the
  // whole-message result (collect) gives the source text as content instead of the call
  // (docs/design.md §3.2, "a call cut short").
  std::optional<size_t> cut_call = std::nullopt;
  std::string cut_text = {};
};

using Event = std::variant<ContentDelta, ReasoningDelta, ToolCallBegin, ToolArgsDelta, ToolCallEnd, Warning>;

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void on(Event&& e) = 0;
};

// A Sink that keeps every event.
class EventLog final : public Sink {
 public:
  std::vector<Event> events;
  // Out of line: inlined (devirtualized) into the parsers, g++ 12 warned -Wmaybe-uninitialized
  // about the strings of the variant alternatives not being moved, a known false positive.
  void on(Event&& e) override;
};

// Merges adjacent ContentDelta, ReasoningDelta and same-index ToolArgsDelta events (the form in
// which chunkings are compared) and drops empty deltas.
std::vector<Event> coalesce(const std::vector<Event>& events);
// One JSON object per event: {"type": "content", "text": ...}, {"type": "tool_call_begin", ...}.
Value event_json(const Event& e);

// ---- parsing -----------------------------------------------------------------------------------
struct ParseOptions {
  Value tools;                 // the request's tools (OpenAI list), for validation; may be undefined
  bool reasoning_open = false; // the prompt left the model inside its reasoning block
  uint64_t id_seed = 0;        // generated ids: make_call_id(id_seed, n)
};

class StreamParser {
 public:
  virtual ~StreamParser() = default;
  virtual void feed(std::string_view chunk, Sink& sink) = 0;
  virtual void finish(Sink& sink) = 0;
};

// "call_" + 24 alphanumerics, a pure function of (seed, n): the n-th generated id of a parse.
std::string make_call_id(uint64_t seed, size_t n);
// `len` alphanumerics only (Mistral wants exactly 9).
std::string make_alnum_id(uint64_t seed, size_t n, size_t len);

struct ParsedCall {
  std::string id;
  std::string name;
  std::string arguments;
  bool operator==(const ParsedCall&) const = default;
};
struct ParsedMessage {
  std::string content;
  std::string reasoning_content;
  std::vector<ParsedCall> tool_calls;
  std::vector<Warning> warnings;
  // {"content", "reasoning_content", "tool_calls":[{"id","type","function":{"name","arguments"}}]}
  // (content / reasoning_content are null when empty and, for content, calls exist).
  Value to_json(bool with_warnings = false) const;
};
ParsedMessage collect(const std::vector<Event>& events);

// ---- grammars ----------------------------------------------------------------------------------
// What a call grammar admits besides the calls (the gateway's tool_choice enforcement). A grammar
// is the model's whole answer: no free text before the call, whitespace bounded as llama.cpp's
// json-schema-to-grammar bounds it, a bounded number of calls, and a reasoning block only where
// the family has one and the prompt lets the model think.
struct GrammarOptions {
  enum class Reasoning : uint8_t {
    None,      // no reasoning block (the template has no thinking, or it is switched off)
    Optional,  // thinking is on: an optional block, opened and closed by the model
    Open,      // the prompt ends inside the block: its text and the close marker come first
  };
  size_t max_calls = 1;               // 1 when parallel_tool_calls is false
  Reasoning reasoning = Reasoning::None;
  size_t max_reasoning_chars = 1024;  // bound on the reasoning text (code points)
};

// ---- the dialect -------------------------------------------------------------------------------
struct Dialect {
  std::string_view name;
  std::vector<std::string_view> aliases;
  std::string_view summary;
  // How strongly a template's source (and, when known, its probed capabilities) says "this family":
  // 0 = not at all. registry detect() takes the best score; ties are broken by name.
  int (*detect_score)(const std::string& template_source, const chat::Capabilities* caps);
  // Text that shows `tools` (OpenAI list) to a model whose template cannot: appended to the system
  // message by the caller.
  std::string (*tool_prompt)(const Value& tools);
  std::unique_ptr<StreamParser> (*make_parser)(const ParseOptions& opts);
  // A GBNF grammar for the calls, where the format allows one; null when not provided.
  std::optional<std::string> (*grammar)(const Value& tools, const GrammarOptions& opts) = nullptr;
};

// Registry (registry.cpp, list.def).
const std::vector<const Dialect*>& all();
const Dialect* find(std::string_view name_or_alias);
// Every registered name, ", "-joined: what an "unknown dialect" message lists.
std::string known_names();
struct Detection { const Dialect* dialect = nullptr; int score = 0; };
Detection detect(const std::string& template_source, const chat::Capabilities* caps = nullptr);

// Convenience: one whole string.
ParsedMessage parse_all(const Dialect& d, std::string_view text, const ParseOptions& opts = {});

// ---- a template's dialect (resolve.cpp) ----------------------------------------------------------
// The dialect that reads a template's calls, as `toolchat detect` and `toolchat parse --template`
// choose it: the best-scoring registered family, else one inferred from the template itself, else
// the generic_json fallback. `name` is the registered name or "inferred"; make_parser is
// thread-safe to call and its parsers are independent.
struct TemplateDialect {
  std::string name;
  std::function<std::unique_ptr<StreamParser>(const ParseOptions&)> make_parser;
};
TemplateDialect dialect_for_template(const std::string& template_source, const Value& special_tokens);

// `toolchat detect`'s report: {"dialect", "capabilities", "warnings"} (special_tokens: a dict,
// bos_token and the like, as the template will see them).
Value detect_report(const std::string& template_source, const Value& special_tokens);

}  // namespace toolchat::dialects
