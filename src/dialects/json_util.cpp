#include "dialects/json_util.hpp"

#include "value/json.hpp"

namespace toolchat::dialects {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// False only for text json.loads certainly refuses, judged by its first and last characters: an
// exception per refused text cost 20 times the parse (XML-argument families try every parameter
// value as JSON first, and most are plain words).
bool may_be_json(std::string_view t) {
  while (!t.empty() && is_ws(t.front())) t.remove_prefix(1);
  while (!t.empty() && is_ws(t.back())) t.remove_suffix(1);
  if (t.empty()) return false;
  const char a = t.front(), z = t.back();
  switch (a) {
    case '{': return z == '}';
    case '[': return z == ']';
    case '"': return t.size() >= 2 && z == '"';
    case 't': return t == "true";
    case 'f': return t == "false";
    case 'n': return t == "null";
    case 'N': return t == "NaN";
    case 'I': return t == "Infinity";
    case '-':
      if (t == "-Infinity") return true;
      [[fallthrough]];
    default:
      if (a != '-' && (a < '0' || a > '9')) return false;
      if (z < '0' || z > '9') return false;
      for (char c : t)
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) return false;
      return true;
  }
}

}  // namespace

std::optional<Value> json_value(std::string_view raw) {
  if (!may_be_json(raw)) return std::nullopt;
  try {
    return json::parse(raw);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string python_json(const Value& v, std::optional<std::string> indent, bool ensure_ascii) {
  json::DumpOptions o;
  o.ensure_ascii = ensure_ascii;
  o.indent = std::move(indent);
  try {
    return json::dumps(v, o);
  } catch (const std::exception&) {
    return "{}";
  }
}

}  // namespace toolchat::dialects
