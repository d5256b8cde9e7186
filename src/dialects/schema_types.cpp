#include "dialects/schema_types.hpp"

#include <cmath>

namespace toolchat::dialects::schema {
namespace {

constexpr const char* kNames[] = {"string", "integer", "number", "boolean", "null", "object", "array"};

std::string folded(std::string_view name) {
  size_t a = name.find_first_not_of(" \t\r\n"), b = name.find_last_not_of(" \t\r\n");
  std::string out(a == std::string_view::npos ? std::string_view() : name.substr(a, b - a + 1));
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

}  // namespace

uint8_t type_name_bit(std::string_view name, Names names) {
  if (names == Names::Strict) {
    for (size_t i = 0; i < 7; ++i)
      if (name == kNames[i]) return static_cast<uint8_t>(1u << i);
    return 0;
  }
  // vLLM qwen3_coder's _convert_param_value list.
  std::string n = folded(name);
  auto starts = [&](std::string_view p) { return n.rfind(p, 0) == 0; };
  if (n == "string" || n == "str" || n == "text" || n == "varchar" || n == "char" || n == "enum") return kString;
  if (starts("int") || starts("uint") || starts("long") || starts("short") || starts("unsigned")) return kInteger;
  if (starts("num") || starts("float") || n == "double") return kNumber;
  if (n == "boolean" || n == "bool" || n == "binary") return kBoolean;
  if (n == "null" || n == "none") return kNull;
  if (n == "object" || starts("dict")) return kObject;
  if (n == "array" || n == "arr" || starts("list")) return kArray;
  return 0;
}

uint8_t type_keyword_bits(const Value* type, Names names) {
  if (!type) return 0;
  if (type->is_str()) return type_name_bit(type->str(), names);
  uint8_t bits = 0;
  if (type->is_list())
    for (const Value& x : type->items())
      if (x.is_str()) bits |= type_name_bit(x.str(), names);
  return bits;
}

namespace {
// The one kind a value is written as (an integer: kInteger only).
uint8_t kind_bit(const Value& v) {
  if (v.is_float()) return kNumber;
  if (v.is_number() && !v.is_bool()) return kInteger;
  return instance_types(v);
}

uint8_t declared(const Value& s, Names names, int depth) {
  if (!s.is_dict() || depth > 8) return 0;
  const DictObj& d = s.dict_obj();
  uint8_t bits = type_keyword_bits(d.find("type"), names);
  for (const char* k : {"anyOf", "oneOf", "allOf"})
    if (const Value* alts = d.find(k); alts && alts->is_list())
      for (const Value& a : alts->items()) bits |= declared(a, names, depth + 1);
  if (bits == 0) {
    if (const Value* e = d.find("enum"); e && e->is_list())
      for (const Value& x : e->items()) bits |= kind_bit(x);
    if (const Value* c = d.find("const")) bits |= kind_bit(*c);
  }
  return bits;
}
}  // namespace

uint8_t declared_types(const Value& s, Names names) { return declared(s, names, 0); }

uint8_t instance_types(const Value& v) {
  if (v.is_none()) return kNull;
  if (v.is_bool()) return kBoolean;
  if (v.is_str()) return kString;
  if (v.is_list()) return kArray;
  if (v.is_dict()) return kObject;
  if (v.is_float()) {
    double d = v.as_float();
    return std::isfinite(d) && std::floor(d) == d ? kNumber | kInteger : kNumber;
  }
  if (v.is_number()) return kInteger | kNumber;
  return 0;
}

std::string type_names(uint8_t bits) {
  std::string out;
  for (size_t i = 0; i < 7; ++i)
    if (bits & (1u << i)) out += (out.empty() ? "" : " or ") + std::string(kNames[i]);
  return out;
}

}  // namespace toolchat::dialects::schema
