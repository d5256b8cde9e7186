// Tools whose JSON schemas a list of expected calls implies (for grammar tests of fixture cases
// that carry no tools of their own): shared by the GBNF unit test and the llama.cpp cross-check.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toolchat/value.hpp"
#include "value/json.hpp"

namespace toolchat::testing {

inline Value schema_of(const Value& v) {
  Value s = Value::dict();
  const char* t = v.is_str() ? "string" : v.is_bool() ? "boolean" : v.is_integer() ? "integer" : v.is_number() ? "number"
                  : v.is_none() ? "null" : v.is_list() ? "array" : "object";
  s.dict_obj().set(Value::string("type"), Value::string(t));
  return s;
}

// Tools whose schemas the expected calls imply: each argument typed as given, required when every
// call of that tool has it, in first-seen order.
inline Value implied_tools(const Value& calls) {
  std::vector<std::string> names;
  std::map<std::string, std::vector<std::pair<std::string, Value>>> props;
  std::map<std::string, std::vector<std::set<std::string>>> seen;
  for (const Value& c : calls.items()) {
    std::string name(c.dict_obj().find("name")->str());
    if (!props.count(name)) names.push_back(name);
    auto& p = props[name];
    Value args = json::parse(c.dict_obj().find("arguments")->str());
    std::set<std::string> keys;
    if (args.is_dict())
      for (const auto& [k, v] : args.dict_obj().entries) {
        keys.emplace(k.str());
        bool known = false;
        for (const auto& [pk, pv] : p) known = known || pk == k.str();
        if (!known) p.emplace_back(k.str(), schema_of(v));
      }
    seen[name].push_back(keys);
  }
  std::vector<Value> tools;
  for (const auto& name : names) {
    Value params = Value::dict(), pr = Value::dict();
    std::vector<Value> req;
    for (const auto& [k, s] : props[name]) {
      pr.dict_obj().set(Value::string(k), s);
      bool all = true;
      for (const auto& keys : seen[name]) all = all && keys.count(k);
      if (all) req.push_back(Value::string(k));
    }
    params.dict_obj().set(Value::string("type"), Value::string("object"));
    params.dict_obj().set(Value::string("properties"), pr);
    params.dict_obj().set(Value::string("required"), Value::list(req));
    Value fn = Value::dict(), tool = Value::dict();
    fn.dict_obj().set(Value::string("name"), Value::string(name));
    fn.dict_obj().set(Value::string("parameters"), params);
    tool.dict_obj().set(Value::string("type"), Value::string("function"));
    tool.dict_obj().set(Value::string("function"), fn);
    tools.push_back(tool);
  }
  return Value::list(tools);
}

}  // namespace toolchat::testing
