// Format dispatch, the shared helpers, and the two message-list formats closest to OpenAI's:
// openai (validated by chat::from_openai_json) and LLaMA-Factory's sharegpt.
#include "convert/formats.hpp"

#include <unordered_set>

#include "convert/format_util.hpp"
#include "convert/value_key.hpp"
#include "toolchat/chat.hpp"
#include "value/json.hpp"

namespace toolchat::convert {

namespace detail {

void bad(const std::string& path, const std::string& what) { throw Error(ErrorKind::ValueError, path + ": " + what); }

const Value* field(const Value& d, std::string_view key) { return d.is_dict() ? d.dict_obj().find(key) : nullptr; }

const Value& object(const Value& v, const std::string& path) {
  if (!v.is_dict()) bad(path, std::string("expected object, got ") + type_name(v));
  return v;
}

const Value& list(const Value& v, const std::string& path) {
  if (!v.is_list()) bad(path, std::string("expected list, got ") + type_name(v));
  return v;
}

std::string_view string(const Value& v, const std::string& path) {
  if (!v.is_str()) bad(path, std::string("expected string, got ") + type_name(v));
  return v.str();
}

const Value& required_list(const Value& row, const char* key) {
  const Value* v = field(row, key);
  if (!v) bad(key, "missing");
  return list(*v, key);
}

std::string_view required_string(const Value& m, const char* key, const std::string& path) {
  const Value* v = field(m, key);
  if (!v) bad(path, std::string("missing ") + key);
  return string(*v, path + "." + key);
}

Value make_dict(std::initializer_list<std::pair<const char*, Value>> entries) {
  Value d = Value::dict();
  for (const auto& [k, v] : entries) d.dict_obj().set(Value::string(k), v);
  return d;
}

void put(Value& dict, const char* key, Value v) { dict.dict_obj().set(Value::string(key), std::move(v)); }

Value tool_definition(const Value& t, const std::string& path) {
  object(t, path);
  const Value* type = field(t, "type");
  const Value* fn = field(t, "function");
  if (type && type->is_str() && type->str() == "function" && fn) {
    object(*fn, path + ".function");
    if (!field(*fn, "name")) bad(path + ".function", "missing name");
    return t;
  }
  const Value* name = field(t, "name");
  if (!name) bad(path, "missing name (expected a function definition)");
  string(*name, path + ".name");
  return make_dict({{"type", Value::string("function")}, {"function", t}});
}

Value tool_definitions(const Value& v, const std::string& path) {
  Value parsed = v;
  if (v.is_none()) return Value::none();
  if (v.is_str()) {
    if (v.str().find_first_not_of(" \t\r\n") == std::string::npos) return Value::none();
    try {
      parsed = json::parse(v.str());
    } catch (const Error& e) {
      bad(path, "not JSON: " + e.message());
    }
  }
  if (parsed.is_dict()) parsed = Value::list({parsed});  // a single definition
  list(parsed, path);
  if (parsed.items().empty()) return Value::none();
  std::vector<Value> out;
  for (size_t i = 0; i < parsed.items().size(); ++i)
    out.push_back(tool_definition(parsed.items()[i], path + "[" + std::to_string(i) + "]"));
  return Value::list(std::move(out));
}

Value call_arguments(const Value& a, const std::string& path) {
  if (a.is_dict()) return a;
  if (!a.is_str()) bad(path, std::string("expected object or JSON text, got ") + type_name(a));
  try {
    Value v = json::parse(a.str());
    if (v.is_dict()) return v;
  } catch (const Error&) {
  }
  return a;
}

Value tool_call(const std::string& name, Value arguments, const Value* id) {
  Value call = Value::dict();
  if (id && !id->is_none()) put(call, "id", *id);
  put(call, "type", Value::string("function"));
  put(call, "function", make_dict({{"name", Value::string(name)}, {"arguments", std::move(arguments)}}));
  return call;
}

std::string result_text(const Value& v) {
  if (v.is_str()) return std::string(v.str());
  json::DumpOptions o;
  o.ensure_ascii = false;
  return json::dumps(v, o);
}

Value context_of(Value messages, Value tools) {
  Value ctx = make_dict({{"messages", std::move(messages)}});
  if (!tools.is_none() && !tools.is_undefined()) put(ctx, "tools", std::move(tools));
  return ctx;
}

}  // namespace detail

using namespace detail;

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "sharegpt") return Format::sharegpt;
  if (name == "chatglm3") return Format::chatglm3;
  if (name == "openai") return Format::openai;
  if (name == "qwen-agent" || name == "qwen_agent") return Format::qwen_agent;
  return std::nullopt;
}

const char* format_name(Format f) {
  switch (f) {
    case Format::sharegpt: return "sharegpt";
    case Format::chatglm3: return "chatglm3";
    case Format::openai: return "openai";
    case Format::qwen_agent: return "qwen-agent";
  }
  return "?";
}

Sample read_sample(Format f, const Value& row) {
  object(row, "(row)");
  switch (f) {
    case Format::sharegpt: return read_sharegpt(row);
    case Format::chatglm3: return read_chatglm3(row);
    case Format::openai: return read_openai(row);
    case Format::qwen_agent: return read_qwen_agent(row);
  }
  bad("(row)", "unknown format");
}

// ---- openai ----

namespace {

// chat::from_openai_json checks a row's structure only: which keys a dict holds, the type of
// each value, the items of each list; never the characters of a string. Rows of a dataset
// repeat a few structures, so a structure that passed is remembered (per thread, bounded) and
// not checked again; one that fails is checked every time, for its error.
class CheckedStructures {
 public:
  // True when `ctx` has the structure of a row that passed.
  bool known(const Value& ctx) {
    ValueKey key(buffer_, ValueKey::Strings::type_only);
    if (!key.add_with_known(ctx)) return false;
    last_ = key.view();
    return seen_.count(last_) > 0;
  }
  void remember() {
    if (seen_.size() >= 4096) seen_.clear();
    seen_.emplace(last_);
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
  };
  std::string buffer_;
  std::string_view last_;
  std::unordered_set<std::string, Hash, std::equal_to<>> seen_;
};

// "weight" (OpenAI fine-tuning: 0 or 1) or "loss" (bool) on a message; removed from what the
// template sees.
std::optional<bool> take_loss(Value& message, size_t index) {
  const DictObj& d = message.dict_obj();
  if (!d.find("weight") && !d.find("loss")) return std::nullopt;  // most messages: nothing to take
  const std::string path = "messages[" + std::to_string(index) + "]";
  std::optional<bool> out;
  Value kept = Value::dict();
  for (const auto& [k, v] : d.entries) {
    if (k.is_str() && k.str() == "weight") {
      if (!v.is_integer() || (v.int_like() != 0 && v.int_like() != 1)) bad(path + ".weight", "expected 0 or 1");
      out = v.int_like() == 1;
    } else if (k.is_str() && k.str() == "loss") {
      if (!v.is_bool()) bad(path + ".loss", "expected true or false");
      out = v.as_bool();
    } else {
      kept.dict_obj().set(k, v);
    }
  }
  message = kept;
  return out;
}

}  // namespace

Sample read_openai(const Value& row) {
  const Value* messages = &required_list(row, "messages");
  Sample s;
  std::vector<Value> msgs;
  msgs.reserve(messages->items().size());
  for (size_t i = 0; i < messages->items().size(); ++i) {
    Value m = messages->items()[i];
    if (!m.is_dict()) object(m, "messages[" + std::to_string(i) + "]");  // throws, naming the message
    s.loss.push_back(take_loss(m, i));
    msgs.push_back(std::move(m));
  }
  Value ctx = make_dict({{"messages", Value::list(std::move(msgs))}});
  for (const char* key : {"tools", "documents", "chat_template_kwargs"})
    if (const Value* v = field(row, key)) put(ctx, key, *v);
  // The shapes (and their JSON paths) are chat::from_openai_json's; the context keeps the
  // row's own JSON so that rendering sees exactly what the dataset holds.
  static thread_local CheckedStructures checked;
  if (!checked.known(ctx)) {
    chat::from_openai_json(ctx);
    checked.remember();
  }
  if (const Value* kw = field(ctx, "chat_template_kwargs")) {
    Value flat = make_dict({{"messages", *field(ctx, "messages")}});
    for (const char* key : {"tools", "documents"})
      if (const Value* v = field(ctx, key)) put(flat, key, *v);
    if (kw->is_dict())
      for (const auto& [k, v] : kw->dict_obj().entries) flat.dict_obj().set(k, v);
    ctx = flat;
  }
  s.context = ctx;
  return s;
}

// ---- sharegpt ----

namespace {

// LLaMA-Factory's tag names (and the OpenAI role names its "openai" formatting uses).
const char* sharegpt_role(const std::string& tag) {
  if (tag == "human" || tag == "user") return "user";
  if (tag == "gpt" || tag == "assistant") return "assistant";
  if (tag == "system") return "system";
  if (tag == "function_call") return "function_call";
  if (tag == "observation" || tag == "tool") return "tool";
  return nullptr;
}

// function_call value: JSON text of {"name", "arguments"} or of a list of them.
Value sharegpt_calls(const Value& value, const std::string& path, std::vector<std::string>& names) {
  Value parsed = value;
  if (value.is_str()) {
    try {
      parsed = json::parse(value.str());
    } catch (const Error& e) {
      bad(path, "function_call is not JSON: " + e.message());
    }
  }
  bool single = parsed.is_dict();
  if (single) parsed = Value::list({parsed});
  if (!parsed.is_list() || parsed.items().empty()) bad(path, "function_call must be a call object or a list of them");
  std::vector<Value> calls;
  for (size_t i = 0; i < parsed.items().size(); ++i) {
    std::string cp = single ? path : path + "[" + std::to_string(i) + "]";
    const Value& c = object(parsed.items()[i], cp);
    const Value* name = field(c, "name");
    if (!name) bad(cp, "missing name");
    const Value* args = field(c, "arguments");
    if (!args) bad(cp, "missing arguments");
    names.emplace_back(string(*name, cp + ".name"));
    calls.push_back(tool_call(names.back(), call_arguments(*args, cp + ".arguments")));
  }
  return Value::list(std::move(calls));
}

}  // namespace

Sample read_sharegpt(const Value& row) {
  const char* key = field(row, "conversations") ? "conversations" : "messages";
  const Value* conv = field(row, key);
  if (!conv) bad("conversations", "missing");
  list(*conv, key);
  Sample s;
  std::vector<Value> msgs;
  if (const Value* sys = field(row, "system"); sys && !sys->is_none()) {
    if (!string(*sys, "system").empty()) {
      msgs.push_back(make_dict({{"role", Value::string("system")}, {"content", *sys}}));
      s.loss.emplace_back();
    }
  }
  std::vector<std::string> last_call_names;
  for (size_t i = 0; i < conv->items().size(); ++i) {
    std::string path = std::string(key) + "[" + std::to_string(i) + "]";
    const Value& m = object(conv->items()[i], path);
    const char* tag_key = field(m, "from") ? "from" : "role";
    const char* val_key = field(m, "value") ? "value" : "content";
    const Value* tag = field(m, tag_key);
    if (!tag) bad(path, "missing from");
    const Value* value = field(m, val_key);
    if (!value) bad(path, "missing value");
    const std::string t(string(*tag, path + "." + tag_key));
    const char* role = sharegpt_role(t);
    if (!role) bad(path + "." + tag_key, "unknown role '" + t + "' (expected human, gpt, system, function_call or observation)");
    std::string vpath = path + "." + val_key;
    if (std::string_view(role) == "function_call") {
      last_call_names.clear();
      Value calls = sharegpt_calls(*value, vpath, last_call_names);
      msgs.push_back(make_dict({{"role", Value::string("assistant")}, {"content", Value::string("")}, {"tool_calls", calls}}));
    } else if (std::string_view(role) == "tool") {
      Value msg = make_dict({{"role", Value::string("tool")}, {"content", Value::string(result_text(*value))}});
      if (last_call_names.size() == 1) put(msg, "name", Value::string(last_call_names[0]));
      msgs.push_back(msg);
    } else {
      msgs.push_back(make_dict({{"role", Value::string(role)}, {"content", Value::string(string(*value, vpath))}}));
    }
    s.loss.emplace_back();
  }
  Value tools = Value::none();
  if (const Value* t = field(row, "tools")) tools = tool_definitions(*t, "tools");
  s.context = context_of(Value::list(std::move(msgs)), tools);
  return s;
}

}  // namespace toolchat::convert
