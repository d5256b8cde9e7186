// Shared pieces of the format readers (formats.hpp): JSON-path errors, field access, and the
// OpenAI shapes every reader produces (tool definitions, tool calls). Internal.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "convert/formats.hpp"
#include "toolchat/error.hpp"
#include "toolchat/value.hpp"

namespace toolchat::convert::detail {

[[noreturn]] void bad(const std::string& path, const std::string& what);

// d[key] or nullptr; d must be a dict (checked by the caller through `object`).
const Value* field(const Value& d, std::string_view key);
// The value as a dict, else "PATH: expected object".
const Value& object(const Value& v, const std::string& path);
// The value as a list, else "PATH: expected list".
const Value& list(const Value& v, const std::string& path);
// A string field, else "PATH: expected string".
std::string_view string(const Value& v, const std::string& path);

// row[key] as a list, else "KEY: missing" / "KEY: expected list".
const Value& required_list(const Value& row, const char* key);
// m[key] as a string, else "PATH: missing KEY" / "PATH.KEY: expected string".
std::string_view required_string(const Value& m, const char* key, const std::string& path);

// A dict with the entries in the given order.
Value make_dict(std::initializer_list<std::pair<const char*, Value>> entries);
void put(Value& dict, const char* key, Value v);

// A function definition: kept when already {"type": "function", "function": {...}}, wrapped when
// bare {"name", ...}; anything else is an error at PATH.
Value tool_definition(const Value& t, const std::string& path);
// A list of definitions (or JSON text of one, as LLaMA-Factory stores it). "" and [] give none.
Value tool_definitions(const Value& v, const std::string& path);

// Arguments for the template: an object stays; JSON text of an object becomes the object; other
// JSON text stays text. Not a string or object: error at PATH.
Value call_arguments(const Value& a, const std::string& path);
// {"id"?: id, "type": "function", "function": {"name": name, "arguments": args}}.
Value tool_call(const std::string& name, Value arguments, const Value* id = nullptr);

// A tool result as text: strings as they are, anything else as JSON (ensure_ascii=False).
std::string result_text(const Value& v);

// {"messages": messages, "tools": tools (when not none)}.
Value context_of(Value messages, Value tools);

}  // namespace toolchat::convert::detail
