// GBNF (llama.cpp's grammar format) for tool calls: JSON values constrained by a tool's JSON schema,
// and the call object {"name": "<one of the tools>", "arguments": <its schema>} that JSON-in-marker
// dialects wrap in their own markers. Dialects build their `grammar` from these pieces.
//
// Schemas: type (string, integer, number, boolean, null, array, object, or a list of them), enum,
// const, properties + required (required properties first, then the optional ones, each in the
// schema's order; additional properties are not allowed when properties are given), items, anyOf /
// oneOf, minLength / maxLength of strings, minItems / maxItems of arrays. Anything else ($ref,
// patterns, formats, numeric bounds) is accepted as any JSON value of the stated type (or any JSON
// value). Beyond the schema, a grammar fixes the key order (required keys first, then the optional
// ones, as llama.cpp's json-schema-to-grammar does) and otherwise may allow more than the schema.
//
// Everything outside the schema's own freedom is bounded, because a model constrained by the
// grammar writes whatever it admits (a random-weight model eventually does): whitespace between
// tokens is llama.cpp's json-schema-to-grammar `space` (nothing, one space, or one or two newlines
// and up to 20 spaces or tabs), integer and fraction digits at most 16 as there, the number of
// calls GrammarOptions::max_calls, reasoning text GrammarOptions::max_reasoning_chars.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dialects/dialect.hpp"
#include "dialects/schema_args.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects::gbnf {

// A GBNF string literal ("..." with \" \\ \n \r \t escapes; other bytes as they are).
std::string literal(std::string_view text);

// A GBNF literal of `text` written as a JSON string ("\"name\"").
std::string json_literal(std::string_view text);

// Whether `tools` (OpenAI list) names at least one function: a call grammar needs one.
bool has_named_tool(const Value& tools);

// How an element-per-argument format writes a value (arg_elements), as its parser reads it back:
// what ends a value there (the close tag first, then any other tag the parser also stops at; a raw
// text value contains none of them), how the parser trims the text, and the prefixes that mark a
// text or a JSON value (empty when the format has none; DeepSeek V3.2's `true">` / `false">`).
struct ValueText {
  std::vector<std::string> ends;
  schema::Trim trim = schema::Trim::OneNewline;
  std::string text_prefix, json_prefix;
};

class Builder;
// A dialect's grammar: nullopt when `tools` names no function, else the rules `root_body` defines
// with `root ::= <what it returns>`.
std::optional<std::string> build(const Value& tools, const GrammarOptions& opts,
                                 const std::function<std::string(Builder& b)>& root_body);

class Builder {
 public:
  explicit Builder(const GrammarOptions& opts = {}) : opts_(opts) {}
  // Defines `name ::= body` (a name already taken by another body gets a numeric suffix); returns
  // the name used. Identical bodies share one rule.
  std::string rule(const std::string& name, const std::string& body);
  // The rule for a JSON value that matches `schema` (named after `hint`).
  std::string value(const Value& schema, const std::string& hint);
  // {"name": "<tool name>", "arguments": <parameters schema>}, one alternative per tool in `tools`
  // (OpenAI list); key order name, arguments as the Hermes-style formats write it.
  std::string call_object(const Value& tools);
  // Generalised call object: {"<name_key>": "<tool name>", "<args_key>": <its schema><tail>}, where
  // `tail` (GBNF, may be empty) follows the arguments inside the object (e.g. an optional "id").
  std::string call_object(const Value& tools, std::string_view name_key, std::string_view args_key,
                          const std::string& tail = "");
  // One alternative per tool in `tools`: body(name, args) with the tool's raw name and the rule for
  // its arguments object (any JSON object when it has no parameters schema). Named `hint`.
  using ToolBody = std::function<std::string(const std::string& name, const std::string& args)>;
  std::string per_tool(const Value& tools, const std::string& hint, const ToolBody& body);
  // before NAME after <arguments object> end, one alternative per tool (the many formats that write
  // the name between fixed markers and the JSON arguments after it).
  std::string name_then_args(const Value& tools, std::string_view before, std::string_view after, std::string_view end = "");
  // The same with the tool's parameters schema (undefined when it has none) instead of a JSON rule,
  // for formats that write one element per argument.
  using ParamsBody = std::function<std::string(const std::string& name, const Value& params)>;
  std::string per_tool_params(const Value& tools, const std::string& hint, const ParamsBody& body);
  // Qwen3-Coder style calls, one alternative per tool:
  //   open <function=NAME> <parameter=KEY>value</parameter>… </function> close
  std::string function_parameter_call(const Value& tools, std::string_view open, std::string_view close);
  // Element-per-argument formats (XML-like tags): element(key, value) for each property of a tool's
  // parameters schema, required ones first then optional ones, each in schema order, separated by
  // bounded whitespace. No properties: any number of elements with any key.
  // Values are written so that the parser's reading (form.trim, then the tool's schema typing,
  // schema_args.hpp) is valid for the property's schema: an enum or const is one of its values; a
  // value whose type allows a string (or has no type) is raw text, at most maxLength and at least
  // minLength code points after the trim (bounded text cannot contain the first code point of any
  // of form.ends; unbounded text contains none of form.ends); other values are JSON of their schema.
  // Not expressed: length bounds inside anyOf alternatives, and a non-string const or enum without a
  // declared type in a format without a JSON prefix (its parser keeps such text as a string).
  using ArgElement = std::function<std::string(const std::string& key, const std::string& value)>;
  std::string arg_elements(const Value& params, const std::string& hint, const ValueText& form, const ArgElement& element);
  // Python keyword arguments `key=value, …` (pythonic calls), ordered as arg_elements; values are
  // Python literals of the property's schema (py_value).
  std::string py_kwargs(const Value& params, const std::string& hint);
  // A Python literal matching `schema`: 'str' or "str", ints, floats, True/False/None, lists, dicts.
  std::string py_value(const Value& schema, const std::string& hint);
  // A JSON or Python list of `item` rules within the schema's minItems / maxItems.
  std::string bounded_list(const Value& schema, const std::string& item, const std::string& hint);
  // anyOf / oneOf, or a list of types: a rule of alternatives, each made by `of` ("" for an empty
  // type list); nullopt when the schema is neither.
  std::optional<std::string> alternatives(const Value& schema, const std::string& hint,
                                          std::string (Builder::*of)(const Value&, const std::string&));
  // Any text (possibly empty) that does not contain `stop`, byte for byte.
  std::string until(std::string_view stop) { return until_any({std::string(stop)}); }
  // Any text (possibly empty) that contains none of `stops`: an Aho-Corasick automaton over their
  // code points, one right-recursive rule per state.
  std::string until_any(const std::vector<std::string>& stops);
  // The reasoning block the options allow, as a rule reference to put before the calls (empty when
  // none): `open` text `close` whitespace, optional (Reasoning::Optional), or text `close`
  // whitespace (Reasoning::Open). The text never contains `close` and is at most
  // max_reasoning_chars pieces (piece_not_containing: a code point, or a prefix of `close` + one).
  std::string reasoning(std::string_view open, std::string_view close);
  // `call`, then up to max_calls - 1 more, each after `sep`.
  std::string calls(const std::string& call, const std::string& sep);
  // "[" call ("," call){0, max_calls - 1} "]" with bounded whitespace (a list of calls).
  std::string json_list(const std::string& item, const std::string& hint);
  // A call id the format lets the model write: a JSON string of 1 to 40 letters, digits, '_' or '-'.
  std::string json_call_id();
  // Whitespace between tokens, bounded as llama.cpp's `space`.
  std::string ws() { return primitive("ws"); }
  const GrammarOptions& options() const { return opts_; }
  std::string json_string() { return primitive("string"); }
  // The grammar text: `root` first, then the other rules in definition order.
  std::string str() const;

 private:
  // One code point other than the first of each of `stops` (bounded raw text: exactly one code
  // point per repetition, so maxLength holds; such text cannot contain any of `stops`), and, with
  // no_space, other than ASCII whitespace as well.
  std::string char_not_starting(const std::vector<std::string>& stops, bool no_space = false);
  // Raw text of lo to hi code points (hi nullopt: no upper bound) as the parser reads it after
  // form.trim, with what that trim removes around it.
  std::string bounded_text(const ValueText& form, size_t lo, std::optional<size_t> hi);
  // A piece of text (one code point, or a proper prefix of `stop` and one more) such that no run of
  // pieces contains `stop` (bounded reasoning).
  std::string piece_not_containing(std::string_view stop, const std::string& hint);
  std::string primitive(const std::string& kind);  // ws, string, number, integer, boolean, null, json value
  std::string object(const Value& schema, const std::string& hint);
  // required items joined by sep, then each optional one; none required: any in-order subset.
  // One element per property (element(key literal, value_of(property schema))), joined by sep in
  // ordered(); no properties: any number of element(any_key, any_value).
  using ArgValue = std::function<std::string(const Value& schema, const std::string& hint)>;
  std::string keyed(const Value& params, const std::string& hint, const ArgElement& element, const ArgValue& value_of,
                    const std::string& sep, const std::string& any_key, const std::string& any_value);
  std::string ordered(const std::vector<std::string>& req, const std::vector<std::string>& opt,
                      const std::string& sep, const std::string& hint);
  GrammarOptions opts_;
  std::vector<std::pair<std::string, std::string>> rules_;
  std::map<std::string, std::string> by_body_;
  std::map<std::string, std::string, std::less<>> until_;  // stop text -> its state-0 rule
};

}  // namespace toolchat::dialects::gbnf
