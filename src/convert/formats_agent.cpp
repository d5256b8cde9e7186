// The two agent formats whose tool calls are not OpenAI-shaped: ChatGLM3's finetune_demo rows
// (a "tool" message holds the call and its observation) and Qwen-Agent's messages
// (function_call / function role, one call per assistant message).
#include "convert/format_util.hpp"

namespace toolchat::convert {

using namespace detail;

namespace {

bool is_assistant_without_calls(const Value& m) {
  const Value* role = field(m, "role");
  return role && role->is_str() && role->str() == "assistant" && !field(m, "tool_calls");
}

// Adds calls to the last message when it is an assistant message without calls (the thought
// before a call, as both formats write it) and the loss flags agree; else starts a new message.
void push_calls(std::vector<Value>& msgs, std::vector<std::optional<bool>>& loss, Value calls,
                std::optional<bool> call_loss, bool may_extend_calls) {
  if (!msgs.empty()) {
    Value& last = msgs.back();
    bool same_loss = loss.back() == call_loss;
    if (same_loss && is_assistant_without_calls(last)) {
      put(last, "tool_calls", std::move(calls));
      return;
    }
    const Value* role = field(last, "role");
    const Value* existing = field(last, "tool_calls");
    if (same_loss && may_extend_calls && existing && role && role->is_str() && role->str() == "assistant") {
      std::vector<Value> all = existing->items();
      for (const auto& c : calls.items()) all.push_back(c);
      put(last, "tool_calls", Value::list(std::move(all)));
      return;
    }
  }
  msgs.push_back(make_dict({{"role", Value::string("assistant")}, {"content", Value::string("")}, {"tool_calls", std::move(calls)}}));
  loss.push_back(call_loss);
}

std::optional<bool> loss_flag(const Value& m, const std::string& path) {
  const Value* l = field(m, "loss");
  if (!l || l->is_none()) return std::nullopt;
  if (!l->is_bool()) bad(path + ".loss", std::string("expected true or false, got ") + type_name(*l));
  return l->as_bool();
}

}  // namespace

// ---- chatglm3 ----

Sample read_chatglm3(const Value& row) {
  const Value* conv = &required_list(row, "conversations");
  Sample s;
  std::vector<Value> msgs;
  for (size_t i = 0; i < conv->items().size(); ++i) {
    std::string path = "conversations[" + std::to_string(i) + "]";
    const Value& m = object(conv->items()[i], path);
    const std::string role(required_string(m, "role", path));
    std::optional<bool> loss = loss_flag(m, path);
    if (role == "tool") {
      const Value* name = field(m, "name");
      if (!name) bad(path, "missing name");
      const std::string n(string(*name, path + ".name"));
      const Value* params = field(m, "parameters");
      Value args = params ? call_arguments(*params, path + ".parameters") : Value::dict();
      push_calls(msgs, s.loss, Value::list({tool_call(n, args)}), loss, false);
      const Value* obs = field(m, "observation");
      if (!obs) bad(path, "missing observation");
      msgs.push_back(make_dict({{"role", Value::string("tool")}, {"name", *name}, {"content", Value::string(result_text(*obs))}}));
      s.loss.emplace_back(false);  // the observation is never a target
      continue;
    }
    if (role != "system" && role != "user" && role != "assistant" && role != "observation")
      bad(path + ".role", "unknown role '" + role + "' (expected system, user, assistant or tool)");
    const Value* content = field(m, "content");
    if (!content) bad(path, "missing content");
    Value text = Value::string(role == "observation" ? result_text(*content) : string(*content, path + ".content"));
    msgs.push_back(make_dict({{"role", Value::string(role == "observation" ? "tool" : role)}, {"content", text}}));
    // The demo trains every role but system and user unless told otherwise.
    if (!loss && (role == "system" || role == "user" || role == "observation")) loss = false;
    s.loss.push_back(loss);
  }
  Value tools = Value::none();
  if (const Value* t = field(row, "tools")) tools = tool_definitions(*t, "tools");
  s.context = context_of(Value::list(std::move(msgs)), tools);
  return s;
}

// ---- qwen-agent ----

namespace {

// Qwen-Agent content: a string, null, or [{"text"}|{"image"}|{"file"}|{"audio"}|{"video"}].
// One text item becomes a string; otherwise typed parts ({"type": "text", "text": ...},
// {"type": "image", "image": ...}) as Hugging Face templates read them.
Value qwen_content(const Value& c, const std::string& path) {
  if (c.is_none()) return Value::string("");
  if (c.is_str()) return c;
  list(c, path);
  std::vector<Value> parts;
  for (size_t i = 0; i < c.items().size(); ++i) {
    std::string ip = path + "[" + std::to_string(i) + "]";
    const Value& item = object(c.items()[i], ip);
    const char* kind = nullptr;
    for (const char* k : {"text", "image", "file", "audio", "video"})
      if (const Value* v = field(item, k); v && !v->is_none()) {
        if (kind) bad(ip, std::string("has both ") + kind + " and " + k);
        kind = k;
      }
    if (!kind) bad(ip, "expected one of text, image, file, audio, video");
    if (std::string_view(kind) == "text") string(*field(item, "text"), ip + ".text");
    parts.push_back(make_dict({{"type", Value::string(kind)}, {kind, *field(item, kind)}}));
  }
  if (parts.size() == 1 && field(parts[0], "text")) return *field(parts[0], "text");
  return Value::list(std::move(parts));
}

// A function_id in the message's "extra" (Qwen-Agent's parallel-call bookkeeping), if any.
const Value* qwen_call_id(const Value& m) {
  const Value* extra = field(m, "extra");
  return extra && extra->is_dict() ? field(*extra, "function_id") : nullptr;
}

}  // namespace

Sample read_qwen_agent(const Value& row) {
  const Value* messages = &required_list(row, "messages");
  Sample s;
  std::vector<Value> msgs;
  for (size_t i = 0; i < messages->items().size(); ++i) {
    std::string path = "messages[" + std::to_string(i) + "]";
    const Value& m = object(messages->items()[i], path);
    const std::string role(required_string(m, "role", path));
    if (role != "system" && role != "user" && role != "assistant" && role != "function")
      bad(path + ".role", "unknown role '" + role + "' (expected system, user, assistant or function)");
    std::optional<bool> loss = loss_flag(m, path);
    const Value* content = field(m, "content");
    Value text = content ? qwen_content(*content, path + ".content") : Value::string("");
    if (role == "function") {
      const Value* name = field(m, "name");
      if (!name) bad(path, "missing name (the function that answered)");
      Value msg = make_dict({{"role", Value::string("tool")}, {"name", Value::string(string(*name, path + ".name"))}, {"content", text}});
      if (const Value* id = qwen_call_id(m)) put(msg, "tool_call_id", *id);
      msgs.push_back(msg);
      s.loss.push_back(loss);
      continue;
    }
    const Value* fc = field(m, "function_call");
    if (role == "assistant" && fc && !fc->is_none()) {
      std::string fp = path + ".function_call";
      object(*fc, fp);
      const Value* name = field(*fc, "name");
      if (!name) bad(fp, "missing name");
      const Value* args = field(*fc, "arguments");
      if (!args) bad(fp, "missing arguments");
      Value call = tool_call(std::string(string(*name, fp + ".name")), call_arguments(*args, fp + ".arguments"), qwen_call_id(m));
      bool has_text = text.is_list() || !text.str().empty();
      const Value* reasoning = field(m, "reasoning_content");
      bool has_reasoning = reasoning && !reasoning->is_none();
      if (has_text || has_reasoning) {  // text and a call in one message: the text first, as the model wrote it
        Value msg = make_dict({{"role", Value::string("assistant")}, {"content", text}});
        if (has_reasoning) put(msg, "reasoning_content", Value::string(string(*reasoning, path + ".reasoning_content")));
        msgs.push_back(msg);
        s.loss.push_back(loss);
      }
      push_calls(msgs, s.loss, Value::list({call}), loss, true);
      continue;
    }
    Value msg = make_dict({{"role", Value::string(role)}, {"content", text}});
    if (const Value* r = field(m, "reasoning_content"); r && !r->is_none())
      put(msg, "reasoning_content", Value::string(string(*r, path + ".reasoning_content")));
    msgs.push_back(msg);
    s.loss.push_back(loss);
  }
  Value tools = Value::none();
  if (const Value* f = field(row, "functions")) tools = tool_definitions(*f, "functions");
  else if (const Value* t = field(row, "tools")) tools = tool_definitions(*t, "tools");
  s.context = context_of(Value::list(std::move(msgs)), tools);
  return s;
}

}  // namespace toolchat::convert
