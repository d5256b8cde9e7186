#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {

namespace {

// The function object of a tools-list entry ({"type": "function", "function": {…}} or bare).
const Value* function_of(const Value& entry) {
  if (!entry.is_dict()) return nullptr;
  const Value* f = entry.dict_obj().find("function");
  return f && f->is_dict() ? f : &entry;
}

const Value* name_of(const Value& fn) {
  const Value* n = fn.dict_obj().find("name");
  return n && n->is_str() ? n : nullptr;
}

}  // namespace

const Value* tool_function(const Value& tools, std::string_view name) {
  if (!tools.is_list()) return nullptr;
  for (const Value& t : tools.items())
    if (const Value* fn = function_of(t))
      if (const Value* n = name_of(*fn); n && n->str() == name) return fn;
  return nullptr;
}

bool names_checked(const Value& tools) { return tools.is_list() && !tools.items().empty(); }

bool call_kept_as_content(const Value& tools, std::string_view name) {
  return names_checked(tools) && tool_function(tools, name) == nullptr;
}

Value function_objects(const Value& tools) {
  std::vector<Value> fns;
  for (const ToolFields& t : tool_fields(tools)) fns.push_back(t.function_json());
  return Value::list(std::move(fns));
}

std::vector<ToolFields> tool_fields(const Value& tools) {
  std::vector<ToolFields> out;
  if (!tools.is_list()) return out;
  for (const Value& t : tools.items()) {
    const Value* fnp = function_of(t);
    if (!fnp) continue;
    const Value& fn = *fnp;
    const Value* name = name_of(fn);
    if (!name) continue;
    ToolFields tf;
    tf.name = name->str();
    if (const Value* d = fn.dict_obj().find("description"); d && d->is_str()) {
      tf.description = d->str();
      tf.has_description = true;
    }
    if (const Value* p = fn.dict_obj().find("parameters")) tf.parameters = *p;
    out.push_back(std::move(tf));
  }
  return out;
}

Value ToolFields::function_json() const {
  DictBuilder f;
  f.add("name", name).add("description", description);
  if (!parameters.is_undefined()) f.add("parameters", parameters);
  return f.build();
}

}  // namespace toolchat::dialects
