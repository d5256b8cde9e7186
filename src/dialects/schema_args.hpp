// Arguments of the XML-style formats (Qwen3-Coder, Seed-OSS, GLM-4.5, MiniMax-M2): each value is
// text, typed by the tool's JSON schema (ParseOptions::tools), and the call's arguments are streamed
// as one JSON object built piece by piece.
//
// Typing (after vLLM's qwen3_coder / glm4_moe / minimax_m2 parsers and SGLang's detectors, which
// agree on the main lines): a value is converted only where the tool's schema says so. A string-typed
// parameter keeps its text; integer / number / boolean / null / object / array parameters are parsed
// when the text is valid for that type (objects and arrays as JSON, then as a Python literal) and
// otherwise kept as text; with several declared types (a type list, anyOf / oneOf / allOf, an enum's
// values) the order is integer, number, boolean, null, object, array, then string. A parameter whose
// type is unknown (no tools, an unknown tool or parameter, a schema without a type) keeps its text,
// as vLLM does: `{"n": "3"}` is what the model wrote, `{"n": 3}` would be a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dialects/dialect.hpp"
#include "dialects/schema_types.hpp"

namespace toolchat::dialects::schema {

struct ParamType {
  uint8_t bits = 0;  // 0 = unknown: kept as text
  bool only_string() const { return bits == kString; }
  // The value is text whatever it reads as (a string type, or no type known).
  bool always_text() const { return bits == 0 || bits == kString; }
  // A string, or a string or null (DSML keeps such values as text).
  bool string_or_null() const { return (bits & ~kNull) == kString; }
};

// The JSON schema of parameter `param` of tool `tool` in an OpenAI tools list; null when unknown.
const Value* param_schema(const Value& tools, std::string_view tool, std::string_view param);

// The type a parameter's schema declares (0 bits for a null schema).
ParamType schema_type(const Value* schema);

// The declared type of parameter `param` of tool `tool` in an OpenAI tools list.
ParamType param_type(const Value& tools, std::string_view tool, std::string_view param);

// The value of attribute `key` in the text of a tag (`name="x" string="true"`; double or single
// quotes); nullopt when absent or unterminated.
std::optional<std::string> xml_attr(std::string_view tag, std::string_view key);

struct Rules {
  // The text "null" (any case) is null for a parameter whose type is known and excludes string (an
  // integer parameter: vLLM qwen3_coder, seed_oss, minimax_m2 give null there); GLM keeps it as
  // text. A type that allows null (a type list, anyOf) takes null / none / nil in every family; a
  // string parameter keeps the text "null".
  bool null_text_is_null = true;
};

// The JSON text of a value given as text.
std::string typed_json(std::string_view text, ParamType t, const Rules& r);

// How a value's text is trimmed: exactly one '\n' each side (Qwen3-Coder, Seed-OSS), all ASCII
// whitespace each side (GLM, MiniMax) or not at all (Kimi K3, whose values sit between tokens).
enum class Trim { OneNewline, Whitespace, None };

// Streams one call's arguments as JSON: begin() emits "{", each parameter emits its key, then its
// value as text arrives (strings escaped piece by piece; other types once the value is complete),
// end() emits "}" and the ToolCallEnd. Fragments go to the sink as ToolArgsDelta of `index`.
class ArgsWriter {
 public:
  void begin(Sink& sink, size_t index, const Value* tools, std::string tool, Rules rules, Trim trim);
  // `type`: what the format itself says the value is (Kimi K3's type attribute); by default the
  // tool's schema decides.
  void param(Sink& sink, std::string_view name, std::optional<ParamType> type = std::nullopt);
  // A piece of the value's text (the value ends with end_param).
  void text(Sink& sink, std::string_view piece);
  void end_param(Sink& sink);
  // Members already written as canonical JSON (`"k":v,...`, Kimi K3's json block read by a
  // JsonStream), sent as they come; `first_piece`: a comma goes before it when the object has
  // members already.
  void raw_members(Sink& sink, std::string_view text, bool first_piece);
  void end(Sink& sink);
  bool in_param() const { return in_param_; }
  bool open() const { return open_; }

 private:
  void out(Sink& sink, std::string s);
  size_t index_ = 0;
  const Value* tools_ = nullptr;
  std::string tool_;
  Rules rules_;
  Trim trim_ = Trim::OneNewline;
  ParamType type_;
  bool open_ = false, in_param_ = false, first_ = true;
  bool streaming_ = false;  // a string value whose opening quote was sent
  bool leading_ = true;     // still at the value's start (leading trim pending)
  std::string pending_;     // text not sent yet (trailing whitespace, or the whole value)
  size_t ws_tail_ = 0;      // length of the whitespace run that ends pending_
};

}  // namespace toolchat::dialects::schema
