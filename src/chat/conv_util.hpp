// Small helpers over oracle-style conversation Values (dicts of messages, tools, tool calls),
// shared by capability probing, polyfills and special-token checks. Header-only, internal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"
#include "value/json.hpp"

namespace toolchat::chat::conv {

// d[key] or nullptr (d may be any Value).
inline const Value* get(const Value& d, std::string_view key) {
  return d.is_dict() ? d.dict_obj().find(key) : nullptr;
}

inline std::string get_str(const Value& d, std::string_view key) {
  const Value* v = get(d, key);
  return v && v->is_str() ? std::string(v->str()) : std::string();
}

// A shallow copy of a dict (new entries vector sharing the values).
inline Value copy_dict(const Value& d) {
  Value out = Value::dict();
  if (d.is_dict()) out.dict_obj().entries = d.dict_obj().entries;
  return out;
}

inline void set(Value& d, std::string_view key, Value v) {
  d.dict_obj().set(Value::string(key), std::move(v));
}

// Removes key (rebuilds the dict: the lookup index is private to DictObj).
inline void erase(Value& d, std::string_view key) {
  Value out = Value::dict();
  for (const auto& [k, v] : d.dict_obj().entries)
    if (!(k.is_str() && k.str() == key)) out.dict_obj().set(k, v);
  d = out;
}

// The text of a message content: a string, or the "text" of every text part joined by "\n".
inline std::string content_text(const Value* content) {
  if (!content) return {};
  if (content->is_str()) return std::string(content->str());
  std::string out;
  if (content->is_list()) {
    for (const auto& part : content->items()) {
      const Value* t = get(part, "text");
      if (t && t->is_str()) {
        if (!out.empty()) out += "\n";
        out += t->str();
      }
    }
  }
  return out;
}

inline bool has_text(const Value* content) { return !content_text(content).empty(); }

// The function object of a tool call ({"function": {...}} or a flat {"name", "arguments"}).
inline const Value& call_function(const Value& call) {
  const Value* f = get(call, "function");
  return f && f->is_dict() ? *f : call;
}

// Arguments as a Value: objects stay, JSON strings are parsed when they hold an object.
inline Value arguments_object(const Value& args) {
  if (args.is_str()) {
    try {
      Value v = json::parse(args.str());
      if (v.is_dict()) return v;
    } catch (const Error&) {
    }
  }
  return args;
}

inline std::string dumps_compact_unicode(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  return json::dumps(v, o);
}

inline Value parse_json(std::string_view text) { return json::parse(text); }

// A call id that carries the call's name, "functions.NAME:INDEX": the form Kimi K2 models write
// and their templates show as the only trace of the name (Capabilities::names_in_call_ids).
inline std::string named_call_id(std::string_view name, size_t index) {
  return "functions." + std::string(name) + ":" + std::to_string(index);
}
// INDEX when `id` is named_call_id(name, INDEX), else -1.
inline long named_call_index(std::string_view id, std::string_view name) {
  std::string head = "functions." + std::string(name) + ":";
  if (!id.starts_with(head) || id.size() == head.size() || id.size() - head.size() > 9) return -1;
  long n = 0;
  for (char c : id.substr(head.size())) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

}  // namespace toolchat::chat::conv
