// Typed conversations <-> the OpenAI JSON shapes (the oracle's context form), with errors that
// name the JSON path, and key order kept so a round trip renders byte for byte the same.
#include <algorithm>
#include <string_view>

#include "toolchat/chat.hpp"

namespace toolchat::chat {

namespace {

using Fields = std::vector<std::pair<std::string, Value>>;

[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw Error(ErrorKind::ValueError, path + ": " + what);
}

const DictObj& as_object(const Value& v, const std::string& path) {
  if (!v.is_dict()) bad(path, "expected object");
  return v.dict_obj();
}

std::vector<std::string> keys_of(const DictObj& d) {
  std::vector<std::string> k;
  for (const auto& e : d.entries)
    if (e.first.is_str()) k.emplace_back(e.first.str());
  return k;
}

std::string str_field(const Value& v, const std::string& path) {
  if (!v.is_str()) bad(path, "expected string");
  return std::string(v.str());
}

// Known fields first, extras after; then reordered by `order` when the source gave one.
Value ordered(Fields fields, const Value& extra, const std::vector<std::string>& order) {
  if (extra.is_dict())
    for (const auto& [k, v] : extra.dict_obj().entries)
      if (k.is_str()) fields.emplace_back(k.str(), v);
  if (!order.empty()) {
    auto rank = [&](const std::string& k) {
      auto it = std::find(order.begin(), order.end(), k);
      return static_cast<size_t>(it - order.begin());
    };
    std::stable_sort(fields.begin(), fields.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  }
  Value out = Value::dict();
  for (auto& [k, v] : fields) out.dict_obj().set(Value::string(k), std::move(v));
  return out;
}

void put_extra(Value& extra, std::string_view k, const Value& v) { extra.dict_obj().set(Value::string(k), v); }

// An optional string field: a string, or null kept as is among the extras.
void opt_str(std::optional<std::string>& dst, Value& extra, const std::string& key, const Value& v,
             const std::string& path) {
  if (v.is_none()) put_extra(extra, key, v);
  else dst = str_field(v, path + "." + key);
}

ContentPart part_from_json(const Value& json, const std::string& path) {
  const DictObj& d = as_object(json, path);
  ContentPart p;
  p.order = keys_of(d);
  const Value* type = d.find("type");
  if (!type) bad(path, "missing type");
  p.type = str_field(*type, path + ".type");
  for (const auto& [k, v] : d.entries) {
    if (!k.is_str() || k.str() == "type") continue;
    if (k.str() == "text") p.text = str_field(v, path + ".text");
    else put_extra(p.extra, k.str(), v);
  }
  return p;
}

Value part_to_json(const ContentPart& p) {
  Fields f{{"type", Value::string(p.type)}};
  if (p.text) f.emplace_back("text", Value::string(*p.text));
  return ordered(std::move(f), p.extra, p.order);
}

ToolCall call_from_json(const Value& json, const std::string& path) {
  const DictObj& d = as_object(json, path);
  ToolCall c;
  c.order = keys_of(d);
  c.type.reset();
  bool have_function = false;
  for (const auto& [k, v] : d.entries) {
    if (!k.is_str()) continue;
    const std::string key(k.str());  // short: kept inline by std::string
    if (key == "id") opt_str(c.id, c.extra, key, v, path);
    else if (key == "type") opt_str(c.type, c.extra, key, v, path);
    else if (key == "function") {
      have_function = true;
      std::string fp = path + ".function";
      const DictObj& f = as_object(v, fp);
      c.function_order = keys_of(f);
      const Value* name = f.find("name");
      if (!name) bad(fp, "missing name");
      c.name = str_field(*name, fp + ".name");
      const Value* args = f.find("arguments");
      if (!args) bad(fp, "missing arguments");
      if (!args->is_dict() && !args->is_str()) bad(fp + ".arguments", "expected object or string");
      c.arguments = *args;
      for (const auto& [fk, fv] : f.entries)
        if (fk.is_str() && fk.str() != "name" && fk.str() != "arguments") put_extra(c.function_extra, fk.str(), fv);
    } else {
      put_extra(c.extra, key, v);
    }
  }
  if (!have_function) bad(path, "missing function");
  return c;
}

Value call_to_json(const ToolCall& c) {
  Fields f;
  if (c.id) f.emplace_back("id", Value::string(*c.id));
  if (c.type) f.emplace_back("type", Value::string(*c.type));
  Value fn = ordered({{"name", Value::string(c.name)}, {"arguments", c.arguments}}, c.function_extra, c.function_order);
  f.emplace_back("function", fn);
  return ordered(std::move(f), c.extra, c.order);
}

bool flag(const Value& v, const std::string& path) {
  if (!v.is_bool()) bad(path, "expected boolean");
  return v.as_bool();
}

}  // namespace

std::vector<std::string> Message::texts() const {
  std::vector<std::string> out;
  if (!content) return out;
  if (const auto* s = std::get_if<std::string>(&*content)) {
    out.push_back(*s);
  } else if (const auto* parts = std::get_if<std::vector<ContentPart>>(&*content)) {
    for (const auto& p : *parts)
      if (p.type == "text" && p.text) out.push_back(*p.text);
  }
  return out;
}

Message message_from_json(const Value& json, const std::string& path) {
  const DictObj& d = as_object(json, path);
  Message m;
  m.order = keys_of(d);
  const Value* role = d.find("role");
  if (!role) bad(path, "missing role");
  m.role = str_field(*role, path + ".role");
  for (const auto& [k, v] : d.entries) {
    if (!k.is_str()) continue;
    const std::string key(k.str());  // short: kept inline by std::string
    if (key == "role") continue;
    if (key == "content") {
      if (v.is_none()) m.content = Content(std::monostate{});
      else if (v.is_str()) m.content = Content(std::string(v.str()));
      else if (v.is_list()) {
        std::vector<ContentPart> parts;
        for (size_t i = 0; i < v.items().size(); ++i)
          parts.push_back(part_from_json(v.items()[i], path + ".content[" + std::to_string(i) + "]"));
        m.content = Content(std::move(parts));
      } else {
        bad(path + ".content", "expected string, list or null");
      }
    } else if (key == "reasoning_content") {
      opt_str(m.reasoning_content, m.extra, key, v, path);
    } else if (key == "tool_call_id") {
      opt_str(m.tool_call_id, m.extra, key, v, path);
    } else if (key == "name") {
      opt_str(m.name, m.extra, key, v, path);
    } else if (key == "tool_calls") {
      if (v.is_none()) {
        put_extra(m.extra, key, v);
        continue;
      }
      if (!v.is_list()) bad(path + ".tool_calls", "expected list");
      std::vector<ToolCall> calls;
      for (size_t i = 0; i < v.items().size(); ++i)
        calls.push_back(call_from_json(v.items()[i], path + ".tool_calls[" + std::to_string(i) + "]"));
      m.tool_calls = std::move(calls);
    } else {
      put_extra(m.extra, key, v);
    }
  }
  return m;
}

Value message_to_json(const Message& m) {
  Fields f{{"role", Value::string(m.role)}};
  if (m.content) {
    if (std::holds_alternative<std::monostate>(*m.content)) f.emplace_back("content", Value::none());
    else if (const auto* s = std::get_if<std::string>(&*m.content)) f.emplace_back("content", Value::string(*s));
    else {
      std::vector<Value> parts;
      for (const auto& p : std::get<std::vector<ContentPart>>(*m.content)) parts.push_back(part_to_json(p));
      f.emplace_back("content", Value::list(std::move(parts)));
    }
  }
  if (m.reasoning_content) f.emplace_back("reasoning_content", Value::string(*m.reasoning_content));
  if (m.tool_calls) {
    std::vector<Value> calls;
    for (const auto& c : *m.tool_calls) calls.push_back(call_to_json(c));
    f.emplace_back("tool_calls", Value::list(std::move(calls)));
  }
  if (m.tool_call_id) f.emplace_back("tool_call_id", Value::string(*m.tool_call_id));
  if (m.name) f.emplace_back("name", Value::string(*m.name));
  return ordered(std::move(f), m.extra, m.order);
}

Tool tool_from_json(const Value& json, const std::string& path) {
  const DictObj& d = as_object(json, path);
  Tool t;
  t.order = keys_of(d);
  t.type.reset();
  const Value* fn = d.find("function");
  if (!fn) bad(path, "missing function");
  for (const auto& [k, v] : d.entries) {
    if (!k.is_str()) continue;
    if (k.str() == "type") t.type = str_field(v, path + ".type");
    else if (k.str() != "function") put_extra(t.outer_extra, k.str(), v);
  }
  std::string fp = path + ".function";
  const DictObj& f = as_object(*fn, fp);
  t.function_order = keys_of(f);
  const Value* name = f.find("name");
  if (!name) bad(fp, "missing name");
  t.name = str_field(*name, fp + ".name");
  for (const auto& [k, v] : f.entries) {
    if (!k.is_str() || k.str() == "name") continue;
    if (k.str() == "description" && v.is_str()) t.description = v.str();
    else if (k.str() == "parameters") {
      if (!v.is_dict()) bad(fp + ".parameters", "expected object");
      t.parameters = v;
    } else {
      put_extra(t.extra, k.str(), v);
    }
  }
  return t;
}

Value tool_to_json(const Tool& t) {
  Fields fn{{"name", Value::string(t.name)}};
  if (t.description) fn.emplace_back("description", Value::string(*t.description));
  if (t.parameters) fn.emplace_back("parameters", *t.parameters);
  Fields f;
  if (t.type) f.emplace_back("type", Value::string(*t.type));
  f.emplace_back("function", ordered(std::move(fn), t.extra, t.function_order));
  return ordered(std::move(f), t.outer_extra, t.order);
}

namespace {

bool is_request_field(std::string_view key) {
  return key == "messages" || key == "tools" || key == "documents" || key == "add_generation_prompt" ||
         key == "continue_final_message" || key == "special_tokens" || key == "chat_template_kwargs";
}

}  // namespace

Conversation from_openai_json(const Value& json) {
  Conversation c;
  const Value* messages = &json;
  if (json.is_dict()) {
    const DictObj& d = json.dict_obj();
    messages = d.find("messages");
    if (!messages) bad("messages", "missing");
    for (const auto& [k, v] : d.entries) {
      if (!k.is_str()) continue;
      const std::string key(k.str());  // short: kept inline by std::string
      if (key == "messages") continue;
      if (key == "tools") {
        if (v.is_none()) continue;
        if (!v.is_list()) bad("tools", "expected list or null");
        std::vector<Tool> tools;
        for (size_t i = 0; i < v.items().size(); ++i)
          tools.push_back(tool_from_json(v.items()[i], "tools[" + std::to_string(i) + "]"));
        c.tools = std::move(tools);
      } else if (key == "documents") {
        if (v.is_none()) continue;
        if (!v.is_list()) bad("documents", "expected list or null");
        c.documents = v.items();
      } else if (key == "add_generation_prompt") {
        c.add_generation_prompt = flag(v, key);
      } else if (key == "continue_final_message") {
        c.continue_final_message = flag(v, key);
      } else if (key == "special_tokens") {
        as_object(v, key);
        c.special_tokens = v;
      } else if (key == "chat_template_kwargs") {
        for (const auto& [kk, kv] : as_object(v, key).entries) c.kwargs.dict_obj().set(kk, kv);
      } else {
        c.kwargs.dict_obj().set(k, v);
      }
    }
  } else if (!json.is_list()) {
    bad("(top level)", "expected object or list of messages");
  }
  if (!messages->is_list()) bad("messages", "expected list");
  for (size_t i = 0; i < messages->items().size(); ++i)
    c.messages.push_back(message_from_json(messages->items()[i], "messages[" + std::to_string(i) + "]"));
  return c;
}

Value to_openai_json(const Conversation& conv) {
  Value out = Value::dict();
  auto& d = out.dict_obj();
  std::vector<Value> msgs;
  for (const auto& m : conv.messages) msgs.push_back(message_to_json(m));
  d.set(Value::string("messages"), Value::list(std::move(msgs)));
  if (conv.tools) {
    std::vector<Value> tools;
    for (const auto& t : *conv.tools) tools.push_back(tool_to_json(t));
    d.set(Value::string("tools"), Value::list(std::move(tools)));
  }
  if (conv.documents) d.set(Value::string("documents"), Value::list(*conv.documents));
  d.set(Value::string("add_generation_prompt"), Value::boolean(conv.add_generation_prompt));
  if (conv.continue_final_message) d.set(Value::string("continue_final_message"), Value::boolean(true));
  if (conv.special_tokens.is_dict() && conv.special_tokens.dict_obj().size())
    d.set(Value::string("special_tokens"), conv.special_tokens);
  // A kwarg named like a request field must not land at the top level, where reading the JSON
  // back would take it for that field; it travels inside chat_template_kwargs instead.
  if (conv.kwargs.is_dict()) {
    Value nested = Value::dict();
    for (const auto& [k, v] : conv.kwargs.dict_obj().entries) {
      if (k.is_str() && is_request_field(k.str()))
        nested.dict_obj().set(k, v);
      else
        d.set(k, v);
    }
    if (nested.dict_obj().size()) d.set(Value::string("chat_template_kwargs"), nested);
  }
  return out;
}

}  // namespace toolchat::chat
