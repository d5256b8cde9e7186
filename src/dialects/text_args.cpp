#include "dialects/text_args.hpp"

#include <cctype>

#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"
#include "value/json.hpp"

namespace toolchat::dialects::textargs {

std::string_view trim(std::string_view s) {
  while (!s.empty() && scan::is_json_ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && scan::is_json_ws(s.back())) s.remove_suffix(1);
  return s;
}

std::string_view strip_code_fence(std::string_view s) {
  std::string_view t = trim(s);
  if (t.size() < 6 || t.substr(0, 3) != "```" || t.substr(t.size() - 3) != "```") return s;
  std::string_view body = t.substr(3, t.size() - 6);
  // A language tag runs to the end of the first line ("```json\n", "```python\n").
  size_t nl = body.find('\n');
  if (nl != std::string_view::npos) {
    bool tag = true;
    for (char c : body.substr(0, nl))
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == ' ')) tag = false;
    if (tag) body.remove_prefix(nl + 1);
  }
  return trim(body);
}

namespace {
const Value* field(const Value& v, std::string_view key) {
  return v.is_dict() ? v.dict_obj().find(key) : nullptr;
}
}  // namespace

const Value* tool_parameters(const Value& tools, std::string_view name) {
  const Value* fn = tool_function(tools, name);
  return fn ? field(*fn, "parameters") : nullptr;
}

std::string free_text_key(const Value& tools, std::string_view tool_name) {
  if (const Value* params = tool_parameters(tools, tool_name))
    if (const Value* props = field(*params, "properties"); props && props->is_dict() && props->dict_obj().size() > 0)
      if (props->dict_obj().entries[0].first.is_str()) return std::string(props->dict_obj().entries[0].first.str());
  return "input";
}

Value free_text_object(const Value& tools, std::string_view tool_name, std::string_view text) {
  Value o = Value::dict();
  o.dict_obj().set(Value::string(free_text_key(tools, tool_name)), Value::string(text));
  return o;
}

}  // namespace toolchat::dialects::textargs
