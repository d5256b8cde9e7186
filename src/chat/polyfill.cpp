#include "chat/polyfill.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "chat/conv_util.hpp"
#include "value/json.hpp"
#include "value/pystr.hpp"

namespace toolchat::chat {

namespace {

using Msgs = std::vector<Value>;

std::string role_of(const Value& m) { return conv::get_str(m, "role"); }

const Value* calls_of(const Value& m) {
  const Value* c = conv::get(m, "tool_calls");
  return c && c->is_list() && !c->items().empty() ? c : nullptr;
}

Value with(const Value& m, std::string_view key, Value v) {
  Value out = conv::copy_dict(m);
  conv::set(out, key, std::move(v));
  return out;
}

Value without(const Value& m, std::string_view key) {
  Value out = conv::copy_dict(m);
  conv::erase(out, key);
  return out;
}

std::string join_text(const std::string& a, const std::string& b, const char* sep) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return a + sep + b;
}

std::string dumps_line(const Value& v) { return conv::dumps_compact_unicode(v); }

// tool_call_id -> function name, over every call in the conversation.
std::map<std::string, std::string> call_names(const Msgs& msgs) {
  std::map<std::string, std::string> out;
  for (const auto& m : msgs)
    if (const Value* calls = calls_of(m))
      for (const auto& c : calls->items()) {
        std::string id = conv::get_str(c, "id");
        if (!id.empty()) out[id] = conv::get_str(conv::call_function(c), "name");
      }
  return out;
}

void inject_tools(Value& ctx, Msgs& msgs, const PolyfillOptions& o) {
  const Value* tools = conv::get(ctx, "tools");
  if (!tools || !tools->is_list() || tools->items().empty()) return;
  std::string text = o.tools_text ? o.tools_text(*tools) : default_tools_text(*tools);
  if (!msgs.empty() && role_of(msgs[0]) == "system") {
    std::string sys = conv::content_text(conv::get(msgs[0], "content"));
    msgs[0] = with(msgs[0], "content", Value::string(join_text(text, sys, "\n\n")));
  } else {
    Value sys = Value::dict();
    conv::set(sys, "role", Value::string("system"));
    conv::set(sys, "content", Value::string(text));
    msgs.insert(msgs.begin(), sys);
  }
  conv::erase(ctx, "tools");
}

// N calls in one message -> N (call, its responses) pairs.
Msgs one_call_per_message(const Msgs& in) {
  Msgs out;
  for (size_t i = 0; i < in.size(); ++i) {
    const Value* calls = calls_of(in[i]);
    if (!calls || calls->items().size() < 2) {
      out.push_back(in[i]);
      continue;
    }
    std::vector<Value> responses;
    size_t j = i + 1;
    for (; j < in.size() && role_of(in[j]) == "tool"; ++j) responses.push_back(in[j]);
    std::vector<bool> used(responses.size(), false);
    const auto& items = calls->items();
    for (size_t k = 0; k < items.size(); ++k) {
      Value m = with(in[i], "tool_calls", Value::list({items[k]}));
      if (k > 0) {
        m = with(m, "content", Value::none());
        m = without(m, "reasoning_content");
      }
      out.push_back(m);
      std::string id = conv::get_str(items[k], "id");
      int pick = -1;
      for (size_t r = 0; r < responses.size() && pick < 0; ++r)
        if (!used[r] && !id.empty() && conv::get_str(responses[r], "tool_call_id") == id) pick = static_cast<int>(r);
      if (pick < 0 && k < responses.size() && !used[k] && (id.empty() || conv::get_str(responses[k], "tool_call_id").empty()))
        pick = static_cast<int>(k);
      if (pick >= 0) {
        used[pick] = true;
        out.push_back(responses[pick]);
      }
    }
    for (size_t r = 0; r < responses.size(); ++r)
      if (!used[r]) out.push_back(responses[r]);
    i = j - 1;
  }
  return out;
}

Value calls_only_content(const Capabilities& caps) {
  return caps.requires_non_null_content ? Value::string("") : Value::none();
}

std::string calls_text(const Value& calls, const PolyfillOptions& o) {
  return o.calls_text ? o.calls_text(calls) : default_calls_text(calls);
}

// The calls appended to the content as text; tool_calls removed.
Value calls_into_content(const Value& m, const PolyfillOptions& o) {
  std::string text = join_text(conv::content_text(conv::get(m, "content")), calls_text(*calls_of(m), o), "\n");
  return without(with(m, "content", Value::string(text)), "tool_calls");
}

Msgs content_with_calls(const Msgs& in, const Capabilities& caps, const PolyfillOptions& o) {
  Msgs out;
  for (const auto& m : in) {
    if (role_of(m) != "assistant" || !calls_of(m) || !conv::has_text(conv::get(m, "content"))) {
      out.push_back(m);
      continue;
    }
    if (caps.split_content_calls) {
      out.push_back(without(m, "tool_calls"));
      out.push_back(without(with(m, "content", calls_only_content(caps)), "reasoning_content"));
    } else {
      out.push_back(calls_into_content(m, o));
    }
  }
  return out;
}

Msgs responses_as_text(const Msgs& in, const PolyfillOptions& o) {
  auto names = call_names(in);
  Msgs out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (role_of(in[i]) != "tool") {
      out.push_back(in[i]);
      continue;
    }
    std::string text;
    for (; i < in.size() && role_of(in[i]) == "tool"; ++i) {
      std::string name = conv::get_str(in[i], "name");
      if (name.empty()) {
        auto it = names.find(conv::get_str(in[i], "tool_call_id"));
        if (it != names.end()) name = it->second;
      }
      text = join_text(text, o.response_text ? o.response_text(in[i], name) : default_response_text(in[i], name), "\n\n");
    }
    --i;
    Value u = Value::dict();
    conv::set(u, "role", Value::string("user"));
    conv::set(u, "content", Value::string(text));
    out.push_back(u);
  }
  return out;
}

Value convert_arguments(const Value& m, bool to_object) {
  const Value* calls = calls_of(m);
  if (!calls) return m;
  std::vector<Value> items;
  for (const auto& c : calls->items()) {
    const Value& fn = conv::call_function(c);
    const Value* a = conv::get(fn, "arguments");
    if (!a || &fn == &c) {
      items.push_back(c);
      continue;
    }
    Value args = *a;
    if (to_object) args = conv::arguments_object(args);
    else if (!args.is_str()) args = Value::string(json::dumps(args, [] { json::DumpOptions d; d.ensure_ascii = false; return d; }()));
    items.push_back(with(c, "function", with(fn, "arguments", args)));
  }
  return with(m, "tool_calls", Value::list(std::move(items)));
}

Msgs system_to_user(const Msgs& in) {
  Msgs out;
  std::string pending;
  for (const auto& m : in) {
    if (role_of(m) == "system") {
      pending = join_text(pending, conv::content_text(conv::get(m, "content")), "\n\n");
      continue;
    }
    if (!pending.empty() && role_of(m) == "user") {
      out.push_back(with(m, "content", Value::string(join_text(pending, conv::content_text(conv::get(m, "content")), "\n\n"))));
      pending.clear();
      continue;
    }
    out.push_back(m);
  }
  if (!pending.empty()) {
    Value u = Value::dict();
    conv::set(u, "role", Value::string("user"));
    conv::set(u, "content", Value::string(pending));
    out.push_back(u);
  }
  return out;
}

Msgs call_ids_with_names(const Msgs& msgs) {
  std::map<std::string, std::string> renamed;
  size_t next = 0;
  Msgs out;
  for (const Value& m : msgs) {
    if (const Value* calls = calls_of(m)) {
      std::vector<Value> cs;
      for (const Value& c : calls->items()) {
        std::string name = conv::get_str(conv::call_function(c), "name");
        std::string id = conv::get_str(c, "id");
        long kept = conv::named_call_index(id, name);
        if (kept >= 0) {  // already named (an id our kimi_k2 parser gave back): the model's own number
          next = std::max(next, static_cast<size_t>(kept) + 1);
          cs.push_back(c);
          continue;
        }
        std::string named = conv::named_call_id(name, next++);
        if (!id.empty()) renamed.emplace(id, named);
        cs.push_back(c.is_dict() ? with(c, "id", Value::string(named)) : c);
      }
      out.push_back(with(m, "tool_calls", Value::list(std::move(cs))));
      continue;
    }
    if (role_of(m) == "tool")
      if (auto it = renamed.find(conv::get_str(m, "tool_call_id")); it != renamed.end()) {
        out.push_back(with(m, "tool_call_id", Value::string(it->second)));
        continue;
      }
    out.push_back(m);
  }
  return out;
}

Value typed(const Value& content) {
  Value part = Value::dict();
  conv::set(part, "type", Value::string("text"));
  conv::set(part, "text", content);
  return Value::list({part});
}

}  // namespace

std::string default_tools_text(const Value& tools) {
  std::string out = "You can call the following tools, given as JSON schemas:\n";
  for (const auto& t : tools.items()) out += dumps_line(t) + "\n";
  out += "To call tools, reply with {\"tool_calls\": [{\"name\": \"<name>\", \"arguments\": {<arguments>}}]}.";
  return out;
}

std::string default_calls_text(const Value& tool_calls) {
  std::vector<Value> calls;
  for (const auto& c : tool_calls.items()) {
    const Value& fn = conv::call_function(c);
    Value d = Value::dict();
    conv::set(d, "name", Value::string(conv::get_str(fn, "name")));
    const Value* a = conv::get(fn, "arguments");
    conv::set(d, "arguments", a ? conv::arguments_object(*a) : Value::dict());
    if (std::string id = conv::get_str(c, "id"); !id.empty()) conv::set(d, "id", Value::string(id));
    calls.push_back(d);
  }
  Value wrap = Value::dict();
  conv::set(wrap, "tool_calls", Value::list(std::move(calls)));
  return dumps_line(wrap);
}

std::string default_response_text(const Value& tool_message, const std::string& name) {
  std::string head = "Tool result";
  std::string id = conv::get_str(tool_message, "tool_call_id");
  if (!name.empty()) head += " for " + name;
  if (!id.empty()) head += " (id " + id + ")";
  return head + ":\n" + conv::content_text(conv::get(tool_message, "content"));
}

Value apply_polyfills(const Value& context, const Capabilities& caps, const PolyfillOptions& o) {
  Value ctx = conv::copy_dict(context);
  const Value* mv = conv::get(ctx, "messages");
  if (!mv || !mv->is_list()) return ctx;
  Msgs msgs = mv->items();

  if (o.inject_tools && !caps.tools_in_multi_turn) inject_tools(ctx, msgs, o);
  if (o.call_ids_with_names && caps.names_in_call_ids) msgs = call_ids_with_names(msgs);
  if (o.one_call_per_message && caps.supports_tool_calls && !caps.supports_parallel_tool_calls)
    msgs = one_call_per_message(msgs);
  if (o.content_with_calls && caps.supports_tool_calls && !caps.content_with_tool_calls)
    msgs = content_with_calls(msgs, caps, o);
  if (o.tool_calls_as_text && !caps.supports_tool_calls)
    for (auto& m : msgs)
      if (calls_of(m)) m = calls_into_content(m, o);
  if (o.tool_responses_as_text && !caps.supports_tool_responses) msgs = responses_as_text(msgs, o);
  if (o.argument_form && (caps.requires_object_arguments || caps.requires_string_arguments))
    for (auto& m : msgs) m = convert_arguments(m, caps.requires_object_arguments);
  if (o.system_to_user && !caps.system_in_multi_turn) msgs = system_to_user(msgs);
  for (auto& m : msgs) {
    const Value* c = conv::get(m, "content");
    if (o.non_null_content && caps.requires_non_null_content && (!c || c->is_none()))
      m = with(m, "content", Value::string(""));
    c = conv::get(m, "content");
    if (o.content_form && c) {
      if (caps.requires_typed_content && c->is_str()) m = with(m, "content", typed(*c));
      else if (!caps.requires_typed_content && !caps.supports_typed_content && c->is_list())
        m = with(m, "content", Value::string(conv::content_text(c)));
    }
  }
  conv::set(ctx, "messages", Value::list(std::move(msgs)));
  return ctx;
}

PolyfillOptions polyfill_options_from_list(std::string_view list) {
  PolyfillOptions o;
  std::vector<std::pair<const char*, bool*>> names = {
      {"inject_tools", &o.inject_tools},           {"one_call_per_message", &o.one_call_per_message},
      {"content_with_calls", &o.content_with_calls}, {"tool_calls_as_text", &o.tool_calls_as_text},
      {"tool_responses_as_text", &o.tool_responses_as_text}, {"argument_form", &o.argument_form},
      {"system_to_user", &o.system_to_user},       {"non_null_content", &o.non_null_content},
      {"content_form", &o.content_form},           {"call_ids_with_names", &o.call_ids_with_names}};
  auto set_all = [&](bool v) { for (auto& [n, p] : names) *p = v; };
  set_all(false);
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(',', pos);
    if (end == std::string_view::npos) end = list.size();
    std::string item = pystr::strip(std::string(list.substr(pos, end - pos)));
    pos = end + 1;
    if (item.empty()) continue;
    bool on = item[0] != '-';
    if (!on) item.erase(0, 1);
    if (item == "all") { set_all(on); continue; }
    if (item == "none") { set_all(false); continue; }
    bool found = false;
    for (auto& [n, p] : names)
      if (item == n) { *p = on; found = true; }
    if (!found) throw Error(ErrorKind::ConfigError, "unknown polyfill '" + item + "'");
  }
  return o;
}

}  // namespace toolchat::chat
