#include "chat/caps.hpp"

#include <functional>
#include <optional>

#include "chat/conv_util.hpp"
#include "chat/render_case.hpp"
#include "value/json.hpp"
#include "value/pystr.hpp"

namespace toolchat::chat {

namespace {

// Needles: short ASCII words that no template or tokenizer text contains. Ids are 9
// alphanumerics because Mistral templates raise on any other id shape.
constexpr const char* kUser = "zqUserNeedle";
constexpr const char* kSystem = "zqSystemNeedle";
constexpr const char* kAnswer = "zqAnswerNeedle";
constexpr const char* kAnswer2 = "zqFinalNeedle";
constexpr const char* kThink = "zqThinkNeedle";
constexpr const char* kTool1 = "zq_tool_one";
constexpr const char* kTool2 = "zq_tool_two";
constexpr const char* kDesc1 = "zqDescOne";
constexpr const char* kDesc2 = "zqDescTwo";
constexpr const char* kKey1 = "zqkeyone";
constexpr const char* kKey2 = "zqkeytwo";
constexpr const char* kVal1 = "zqValueOne";
constexpr const char* kVal2 = "zqValueTwo";
constexpr const char* kId1 = "zqid00001";
constexpr const char* kId2 = "zqid00002";
constexpr const char* kResult1 = "zqResultOne";
constexpr const char* kResult2 = "zqResultTwo";

bool has(const std::string& hay, std::string_view needle) { return hay.find(needle) != std::string::npos; }

Value str(const char* s) { return Value::string(s); }

Value make_dict(std::initializer_list<std::pair<const char*, Value>> kv) {
  Value d = Value::dict();
  for (const auto& [k, v] : kv) conv::set(d, k, v);
  return d;
}

Value tool_def(const char* name, const char* desc, const char* key) {
  Value params = conv::parse_json(std::string(R"({"type": "object", "properties": {")") + key +
                                  R"(": {"type": "string", "description": "a value"}}, "required": [")" +
                                  key + "\"]}");
  Value fn = make_dict({{"name", str(name)}, {"description", str(desc)}, {"parameters", params}});
  return make_dict({{"type", str("function")}, {"function", fn}});
}

// Arguments rendered cleanly: key and value visible, not double-encoded (\"key) and not a
// Python dict repr ('key').
bool args_clean(const std::string& out, const char* key, const char* val) {
  std::string k(key);
  return has(out, k) && has(out, val) && !has(out, "\\\"" + k) && !has(out, "'" + k + "'");
}

struct Prober {
  const jinja::Template& t;
  Value special;
  jinja::RenderOptions opts;
  bool typed = false;             // give content as text parts
  bool object_args = true;        // give arguments as an object
  bool null_content = true;       // a calls-only assistant message has content null
  Value base_tools = Value::none();  // tools given to every probe (templates that need tools)
  bool named_ids = false;         // ids carry the call's name (names_in_call_ids)

  std::string id_of(const char* name, const char* id) const {
    return named_ids ? conv::named_call_id(name, std::string_view(id) == kId2 ? 1 : 0) : id;
  }

  Value content(const char* s) const {
    if (!typed) return str(s);
    return Value::list({make_dict({{"type", str("text")}, {"text", str(s)}})});
  }
  Value msg(const char* role, const char* text) const {
    return make_dict({{"role", str(role)}, {"content", content(text)}});
  }
  Value call(const char* name, const char* id, const char* key, const char* val) const {
    Value args = make_dict({{key, str(val)}});
    if (!object_args) args = Value::string(json::dumps(args));
    Value fn = make_dict({{"name", str(name)}, {"arguments", args}});
    return make_dict({{"id", Value::string(id_of(name, id))}, {"type", str("function")}, {"function", fn}});
  }
  Value calls_msg(std::vector<Value> calls, const char* text = nullptr) const {
    Value c = text ? content(text) : (null_content ? Value::none() : Value::string(""));
    return make_dict({{"role", str("assistant")}, {"content", c}, {"tool_calls", Value::list(std::move(calls))}});
  }
  Value tool_msg(const char* id, const char* name, const char* result) const {
    return make_dict({{"role", str("tool")}, {"tool_call_id", Value::string(id_of(name, id))}, {"name", str(name)},
                      {"content", content(result)}});
  }
  Value tools() const {
    return Value::list({tool_def(kTool1, kDesc1, kKey1), tool_def(kTool2, kDesc2, kKey2)});
  }
  Value context(std::vector<Value> messages, Value tools = Value::none(), bool gen = false) const {
    Value ctx = make_dict({{"messages", Value::list(std::move(messages))}, {"add_generation_prompt", Value::boolean(gen)}});
    if (tools.is_none()) tools = base_tools;
    if (!tools.is_none()) conv::set(ctx, "tools", tools);
    return ctx;
  }
  CaseResult run(const Value& ctx) const {
    try {
      return render_prepared(t, prepare_case(ctx, special), opts);
    } catch (const Error& e) {
      CaseResult r;
      r.error = error_kind_name(e.kind());
      r.message = e.message();
      return r;
    }
  }
  std::optional<std::string> render(const Value& ctx) const {
    CaseResult r = run(ctx);
    if (!r.ok) return std::nullopt;
    return std::move(r.text);
  }
};

void add_dropped(Capabilities& caps, const Prober& p, const char* probe, const Value& ctx) {
  CaseResult r = p.run(ctx);
  if (!r.ok) {
    caps.warnings.push_back({probe, -1, "", "the probe fails: " + r.error + ": " + r.message});
    return;
  }
  const char* what = std::string_view(probe) == "content_with_tool_calls" ? "an assistant message with content and a tool call"
                     : std::string_view(probe) == "system_with_tools"     ? "a system message and tools"
                                                                          : "system, tools, calls, tool results and an answer";
  for (auto& w : find_dropped(ctx, r.text)) {
    w.probe = probe;
    w.detail += std::string(" (probe: ") + what + ")";
    caps.warnings.push_back(std::move(w));
  }
}

// Content form: string vs text parts. A template that fails on a plain conversation but renders
// one with tools gets tools (with other needles) in every probe.
void probe_content_form(Capabilities& caps, Prober& p) {
  auto plain = p.render(p.context({p.msg("user", kUser)}));
  p.typed = true;
  auto parts = p.render(p.context({p.msg("user", kUser)}));
  if (!plain && !parts) {
    p.base_tools = Value::list({tool_def("zq_declared_tool", "zqDeclaredDesc", "zqdeclaredkey")});
    p.typed = false;
    plain = p.render(p.context({p.msg("user", kUser)}));
    p.typed = true;
    parts = p.render(p.context({p.msg("user", kUser)}));
    if (!plain && !parts) p.base_tools = Value::none();
  }
  bool plain_ok = plain && has(*plain, kUser);
  caps.supports_typed_content = parts && has(*parts, kUser);
  caps.requires_typed_content = !plain_ok && caps.supports_typed_content;
  p.typed = caps.requires_typed_content;
}

// System role; tools, shown with or without a system message.
void probe_system_and_tools(Capabilities& caps, const Prober& p, const Value& user) {
  auto sys = p.render(p.context({p.msg("system", kSystem), user}));
  caps.supports_system_role = sys && has(*sys, kSystem);
  auto tl = p.render(p.context({user}, p.tools(), true));
  caps.supports_tools = tl && has(*tl, kTool1);
  if (!caps.supports_tools && caps.supports_system_role) {
    tl = p.render(p.context({p.msg("system", kSystem), user}, p.tools(), true));
    caps.supports_tools = tl && has(*tl, kTool1);
  }
}

// Tool calls: arguments as object and as string; content null, else ""; plain ids, else ids that
// carry the name. Leaves `p` giving calls in the form found. True when a call's id showed.
bool probe_call_forms(Capabilities& caps, Prober& p, const Value& user) {
  bool obj_ok = false, str_ok = false, id_seen = false;
  std::string obj_out, str_out;
  auto try_calls = [&] {
    for (bool obj : {true, false}) {
      p.object_args = obj;
      auto out = p.render(p.context({user, p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)})}));
      bool ok = out && has(*out, kTool1) && args_clean(*out, kKey1, kVal1);
      (obj ? obj_ok : str_ok) = ok;
      (obj ? obj_out : str_out) = out ? *out : std::string();
      if (ok && has(*out, p.id_of(kTool1, kId1))) id_seen = true;
    }
  };
  auto try_contents = [&] {
    p.null_content = true;
    try_calls();
    if (!obj_ok && !str_ok) {
      p.null_content = false;
      try_calls();
      caps.requires_non_null_content = obj_ok || str_ok;
      if (!caps.requires_non_null_content) p.null_content = true;
    }
  };
  try_contents();
  // No call shows: perhaps its name shows only through its id (Kimi K2 Thinking writes the id alone).
  if (!obj_ok && !str_ok) {
    p.named_ids = true;
    try_contents();
    caps.names_in_call_ids = p.named_ids = obj_ok || str_ok;
  }
  // Both clean but different: the template formats an object its own way (XML, pythonic, Gemma 4
  // <|"|> quoting) and shows a string some other way (verbatim JSON, wrapped in more braces):
  // the object form is the native one. (Templates that treat both alike render the same text.)
  if (obj_ok && str_ok && obj_out != str_out) str_ok = false;
  caps.supports_tool_calls = obj_ok || str_ok;
  caps.requires_object_arguments = obj_ok && !str_ok;
  caps.requires_string_arguments = str_ok && !obj_ok;
  p.object_args = obj_ok || !str_ok;
  return id_seen;
}

// Content of a calls-only message when the conversation goes on after it: some templates call
// string methods on every assistant content before the last one.
void probe_content_after_calls(Capabilities& caps, Prober& p, const Value& user) {
  if (!caps.supports_tool_calls || caps.requires_non_null_content) return;
  auto after = [&](bool null_content) {
    p.null_content = null_content;
    Value calls = p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)});
    bool ok = false;
    for (auto& tail : {std::vector<Value>{p.msg("user", kAnswer2)},
                       std::vector<Value>{p.tool_msg(kId1, kTool1, kResult1), p.msg("assistant", kAnswer2)}}) {
      std::vector<Value> msgs = {user, calls};
      msgs.insert(msgs.end(), tail.begin(), tail.end());
      if (p.render(p.context(std::move(msgs)))) ok = true;
    }
    return ok;
  };
  bool null_ok = after(true), empty_ok = after(false);
  caps.requires_non_null_content = !null_ok && empty_ok;
  p.null_content = !caps.requires_non_null_content;
}

// Parallel calls; tool responses (after a call, or after plain content when calls cannot render
// at all); whether an id shows.
void probe_parallel_and_responses(Capabilities& caps, const Prober& p, const Value& user, bool id_seen) {
  if (caps.supports_tool_calls) {
    auto out = p.render(p.context({user, p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1),
                                                      p.call(kTool2, kId2, kKey2, kVal2)})}));
    caps.supports_parallel_tool_calls = out && has(*out, kTool1) && has(*out, kTool2) &&
                                        args_clean(*out, kKey1, kVal1) && args_clean(*out, kKey2, kVal2);
  }
  auto out = p.render(p.context({user, p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)}),
                                 p.tool_msg(kId1, kTool1, kResult1)}));
  if (!out && !caps.supports_tool_calls)
    out = p.render(p.context({user, p.msg("assistant", kAnswer), p.tool_msg(kId1, kTool1, kResult1)}));
  caps.supports_tool_responses = out && has(*out, kResult1);
  if (out && has(*out, p.id_of(kTool1, kId1))) id_seen = true;
  caps.supports_tool_call_id = id_seen;
}

// Reasoning content and the thinking switch.
void probe_reasoning(Capabilities& caps, const Prober& p, const Value& user) {
  Value a = p.msg("assistant", kAnswer);
  conv::set(a, "reasoning_content", str(kThink));
  auto out = p.render(p.context({user, a}));
  caps.renders_reasoning_content = out && has(*out, kThink);
  Value on = p.context({user}, Value::none(), true), off = p.context({user}, Value::none(), true);
  conv::set(on, "enable_thinking", Value::boolean(true));
  conv::set(off, "enable_thinking", Value::boolean(false));
  auto a_on = p.render(on), a_off = p.render(off);
  caps.thinking_switch = a_on && a_off && *a_on != *a_off;
}

// Multi-turn: a system message and tools still show when the conversation goes on past the first
// user message (Mistral templates show both only with the last user message).
void probe_multi_turn(Capabilities& caps, const Prober& p, const Value& user) {
  if (!caps.supports_system_role && !caps.supports_tools) return;
  std::vector<Value> msgs;
  if (caps.supports_system_role) msgs.push_back(p.msg("system", kSystem));
  msgs.insert(msgs.end(), {user, p.msg("assistant", kAnswer), p.msg("user", kAnswer2), p.msg("assistant", kAnswer)});
  auto out = p.render(p.context(std::move(msgs), caps.supports_tools ? p.tools() : Value::none()));
  caps.system_in_multi_turn = caps.supports_system_role && out && has(*out, kSystem);
  caps.tools_in_multi_turn = caps.supports_tools && out && has(*out, kTool1) && has(*out, kDesc1);
}

// Combinations of supported features: whatever they drop becomes a warning.
void probe_combinations(Capabilities& caps, const Prober& p, const Value& user) {
  if (caps.supports_tool_calls) {
    Value ctx = p.context({user, p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)}, kAnswer)});
    auto out = p.render(ctx);
    caps.content_with_tool_calls = out && has(*out, kAnswer) && has(*out, kTool1) && args_clean(*out, kKey1, kVal1);
    if (!caps.content_with_tool_calls) {
      add_dropped(caps, p, "content_with_tool_calls", ctx);
      auto split = p.render(p.context({user, p.msg("assistant", kAnswer),
                                       p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)})}));
      caps.split_content_calls = split && has(*split, kAnswer) && has(*split, kTool1) &&
                                 args_clean(*split, kKey1, kVal1);
    }
  }
  if (caps.supports_system_role && caps.supports_tools)
    add_dropped(caps, p, "system_with_tools", p.context({p.msg("system", kSystem), user}, p.tools(), true));
  if (caps.supports_tool_calls && caps.supports_tool_responses) {
    std::vector<Value> msgs;
    if (caps.supports_system_role) msgs.push_back(p.msg("system", kSystem));
    msgs.push_back(user);
    if (caps.supports_parallel_tool_calls) {
      msgs.push_back(p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1), p.call(kTool2, kId2, kKey2, kVal2)}));
      msgs.push_back(p.tool_msg(kId1, kTool1, kResult1));
      msgs.push_back(p.tool_msg(kId2, kTool2, kResult2));
    } else {
      msgs.push_back(p.calls_msg({p.call(kTool1, kId1, kKey1, kVal1)}));
      msgs.push_back(p.tool_msg(kId1, kTool1, kResult1));
    }
    msgs.push_back(p.msg("assistant", kAnswer2));
    add_dropped(caps, p, "tool_round_trip",
                p.context(std::move(msgs), caps.supports_tools ? p.tools() : Value::none()));
  }
}

}  // namespace

// Each step reads the flags the earlier ones set and leaves `p` giving messages in the forms found.
Capabilities detect_capabilities(const jinja::Template& t, const Value& special_tokens,
                                 const jinja::RenderOptions& opts) {
  Capabilities caps;
  Prober p{t, special_tokens, opts};
  probe_content_form(caps, p);
  const Value user = p.msg("user", kUser);
  probe_system_and_tools(caps, p, user);
  bool id_seen = probe_call_forms(caps, p, user);
  probe_content_after_calls(caps, p, user);
  probe_parallel_and_responses(caps, p, user, id_seen);
  probe_reasoning(caps, p, user);
  probe_multi_turn(caps, p, user);
  probe_combinations(caps, p, user);
  return caps;
}

Capabilities detect_capabilities(std::string_view source, const Value& special_tokens,
                                 const jinja::RenderOptions& opts) {
  jinja::Template t = jinja::Template::compile(source);
  return detect_capabilities(t, special_tokens, opts);
}

namespace {

// A field's name, made only for a warning (most checks find what they look for).
using FieldName = std::function<std::string()>;

// Whether the prompt shows a text, stripped: as it is, or escaped as in a JSON string
// (templates that apply tojson to text). An empty text counts as shown.
bool text_shown(std::string_view rendered, std::string_view text) {
  auto plain = [](char c) { return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7F; };
  std::string stripped;
  std::string_view s = text;
  if (s.empty() || !plain(s.front()) || !plain(s.back())) {  // else strip would keep it as it is
    stripped = pystr::strip(text);
    s = stripped;
  }
  if (s.empty() || rendered.find(s) != std::string_view::npos) return true;
  std::string esc;
  json::dump_string(esc, s, false);
  return rendered.find(std::string_view(esc).substr(1, esc.size() - 2)) != std::string_view::npos;
}

void dropped(std::vector<DropWarning>& out, int64_t index, const FieldName& field) {
  std::string f = field();
  out.push_back({"", index, f, f + " is not in the prompt"});
}

void check_text(std::vector<DropWarning>& out, std::string_view rendered, int64_t index, const FieldName& field,
                std::string_view text) {
  if (!text_shown(rendered, text)) dropped(out, index, field);
}

// An argument value: strings as they are; numbers and booleans as JSON or Python literals;
// lists and dicts element by element.
void check_arg(std::vector<DropWarning>& out, std::string_view rendered, int64_t index, const FieldName& field,
               const Value& v) {
  if (v.is_str()) return check_text(out, rendered, index, field, v.str());
  if (v.is_list()) {
    for (size_t i = 0; i < v.items().size(); ++i)
      check_arg(out, rendered, index, [&] { return field() + "[" + std::to_string(i) + "]"; }, v.items()[i]);
    return;
  }
  if (v.is_dict()) {
    for (const auto& [k, val] : v.dict_obj().entries)
      check_arg(out, rendered, index, [&] { return field() + "." + py_str(k); }, val);
    return;
  }
  if (v.is_none() || v.is_undefined()) return;
  std::string as_json = json::dumps(v), as_py = py_str(v);
  if (rendered.find(as_json) == std::string_view::npos && rendered.find(as_py) == std::string_view::npos)
    dropped(out, index, field);
}

}  // namespace

std::vector<DropWarning> find_dropped(const Value& context, std::string_view rendered) {
  std::vector<DropWarning> out;
  const Value* tools = conv::get(context, "tools");
  if (tools && tools->is_list()) {
    for (size_t i = 0; i < tools->items().size(); ++i) {
      const Value& fn = conv::call_function(tools->items()[i]);
      auto f = [i] { return "tools[" + std::to_string(i) + "]"; };
      check_text(out, rendered, -1, [&] { return f() + ".name"; }, conv::get_str(fn, "name"));
      check_text(out, rendered, -1, [&] { return f() + ".description"; }, conv::get_str(fn, "description"));
    }
  }
  const Value* msgs = conv::get(context, "messages");
  if (!msgs || !msgs->is_list()) return out;
  for (size_t i = 0; i < msgs->items().size(); ++i) {
    const Value& m = msgs->items()[i];
    int64_t idx = static_cast<int64_t>(i);
    const Value* content = conv::get(m, "content");
    if (content && content->is_list()) {
      for (size_t j = 0; j < content->items().size(); ++j) {
        const Value* t = conv::get(content->items()[j], "text");
        if (t && t->is_str())
          check_text(out, rendered, idx, [j] { return "content[" + std::to_string(j) + "].text"; }, t->str());
      }
    } else if (content && content->is_str()) {
      check_text(out, rendered, idx, [] { return std::string("content"); }, content->str());
    }
    if (const Value* r = conv::get(m, "reasoning_content"); r && r->is_str())
      check_text(out, rendered, idx, [] { return std::string("reasoning_content"); }, r->str());
    const Value* calls = conv::get(m, "tool_calls");
    if (!calls || !calls->is_list()) continue;
    for (size_t j = 0; j < calls->items().size(); ++j) {
      const Value& fn = conv::call_function(calls->items()[j]);
      auto f = [j] { return "tool_calls[" + std::to_string(j) + "].function"; };
      check_text(out, rendered, idx, [&] { return f() + ".name"; }, conv::get_str(fn, "name"));
      if (const Value* a = conv::get(fn, "arguments")) {
        Value args = conv::arguments_object(*a);
        if (args.is_dict())
          for (const auto& [k, v] : args.dict_obj().entries)
            check_arg(out, rendered, idx, [&] { return f() + ".arguments." + py_str(k); }, v);
        else
          check_arg(out, rendered, idx, [&] { return f() + ".arguments"; }, args);
      }
    }
  }
  return out;
}

Value Capabilities::flags_json() const {
  Value d = Value::dict();
  auto put = [&](const char* k, bool v) { conv::set(d, k, Value::boolean(v)); };
  put("supports_system_role", supports_system_role);
  put("supports_tools", supports_tools);
  put("supports_tool_calls", supports_tool_calls);
  put("supports_tool_responses", supports_tool_responses);
  put("supports_parallel_tool_calls", supports_parallel_tool_calls);
  put("supports_tool_call_id", supports_tool_call_id);
  put("names_in_call_ids", names_in_call_ids);
  put("requires_object_arguments", requires_object_arguments);
  put("requires_string_arguments", requires_string_arguments);
  put("requires_typed_content", requires_typed_content);
  put("supports_typed_content", supports_typed_content);
  put("requires_non_null_content", requires_non_null_content);
  put("renders_reasoning_content", renders_reasoning_content);
  put("thinking_switch", thinking_switch);
  put("system_in_multi_turn", system_in_multi_turn);
  put("tools_in_multi_turn", tools_in_multi_turn);
  put("content_with_tool_calls", content_with_tool_calls);
  put("split_content_calls", split_content_calls);
  return d;
}

Value Capabilities::warnings_json() const {
  std::vector<Value> out;
  for (const auto& w : warnings)
    out.push_back(make_dict({{"probe", Value::string(w.probe)},
                             {"message_index", Value::integer(w.message_index)},
                             {"field", Value::string(w.field)},
                             {"detail", Value::string(w.detail)}}));
  return Value::list(std::move(out));
}

Value detect_report(const Capabilities& caps) {
  return make_dict({{"capabilities", caps.flags_json()}, {"warnings", caps.warnings_json()}});
}

}  // namespace toolchat::chat
