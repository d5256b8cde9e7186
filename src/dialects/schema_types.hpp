// The types a JSON Schema declares, read one way for the three places that need them: the gateway's
// validation of arguments and responses (gateway/json_schema.*), the typing of XML-style argument
// values (schema_args.*) and the call grammars (gbnf*). A declared type set is a bit set: the `type`
// keyword (a name or a list of them), the union over anyOf / oneOf / allOf alternatives, and, when
// neither says anything, the kinds of the enum / const values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "toolchat/value.hpp"

namespace toolchat::dialects::schema {

enum TypeBit : uint8_t {
  kString = 1, kInteger = 2, kNumber = 4, kBoolean = 8, kNull = 16, kObject = 32, kArray = 64,
};

// How type names are read. Strict: JSON Schema's seven names only (validation refuses others).
// Lenient: also the names models' tool definitions use and vLLM's parsers accept ("str", "int",
// "float", "dict", "list", "bool", ...), case and surrounding spaces ignored.
enum class Names { Strict, Lenient };

// The bit of one type name; 0 when it names no type.
uint8_t type_name_bit(std::string_view name, Names names);
// The bits of a `type` keyword's value (a name, or a list of names); 0 for none or an unknown one.
uint8_t type_keyword_bits(const Value* type, Names names);
// The types schema `s` declares (see the top); 0 when it declares none (any value).
uint8_t declared_types(const Value& s, Names names);
// The types a JSON value is an instance of (an integer is also a number; an integral finite float
// is also an integer, as JSON Schema counts 1.0 an integer).
uint8_t instance_types(const Value& v);
// "string or null": the names of the bits, in kTypeBit order.
std::string type_names(uint8_t bits);

}  // namespace toolchat::dialects::schema
