// The JSON Schema subset the gateway reads: tool parameters and response_format schemas are checked
// before anything is rendered (a schema a backend or a client library would choke on is the
// request's fault: 400 with the JSON path of the bad keyword), and a structured answer is checked
// against its schema before it is returned.
//
// Checked keywords: type, enum, const, properties, required, additionalProperties, items,
// prefixItems, minItems, maxItems, minLength, maxLength, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, pattern (ECMAScript as std::regex reads it, without backreferences; strings
// over 16 KiB are not matched), anyOf, oneOf, allOf, not, $ref to a JSON pointer inside the schema
// ("#", "#/$defs/NAME", "#/definitions/NAME", ...; $ref's siblings apply as in 2019-09 and later).
// Other keywords (description, format, title, ...) pass, as annotations do in JSON Schema itself.
// Checked against the official JSON-Schema-Test-Suite (tests/unit/test_gateway_openai_rules.cpp).
#pragma once

#include <optional>
#include <string>

#include "toolchat/value.hpp"

namespace toolchat::gateway {

// Throws ApiError(400, param = path + ".KEYWORD...") when `schema` is not a usable schema:
// a keyword of the wrong JSON type (type: 123), a pattern that is not a regular expression, a $ref
// that points nowhere. With strict_types, also a type name JSON Schema does not have: response
// formats are compiled into grammars by the backend, which refuses those. Tool schemas are shown to
// the model as written, and tool-call formats (and vLLM's parsers) know the Python-style names
// ("float", "dict") people use, so there only the JSON shape of `type` is checked.
void check_schema(const Value& schema, const std::string& path, bool strict_types);

// The first place `instance` breaks `schema` ("$.city: expected string, got number"), or nullopt.
// `schema` must have passed check_schema.
std::optional<std::string> schema_violation(const Value& instance, const Value& schema);

}  // namespace toolchat::gateway
