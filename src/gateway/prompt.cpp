#include "gateway/prompt.hpp"
#include "dialects/template_probe.hpp"

#include "chat/conv_util.hpp"
#include "chat/polyfill.hpp"
#include "chat/content_marks.hpp"
#include "chat/render_case.hpp"
#include "gateway/api_error.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

struct PromptBuilder::Compiled {
  std::vector<std::pair<std::string, std::shared_ptr<jinja::Template>>> templates;  // null: did not compile
  std::vector<std::optional<Error>> errors;
  Value special_tokens;
};

namespace {

using chat::conv::get;
const auto put = chat::conv::set;
const auto text_of = chat::conv::content_text;
const auto compact = chat::conv::dumps_compact_unicode;

// ReAct text for past calls and results (docs/dialects.md §3.4): "Action: NAME\nAction Input: ARGS"
// and "Observation: RESULT".
std::string react_calls(const Value& calls) {
  std::string out;
  if (!calls.is_list()) return out;
  for (const Value& c : calls.items()) {
    const Value* fn = get(c, "function");
    const Value& f = fn ? *fn : c;
    const Value* name = get(f, "name");
    const Value* args = get(f, "arguments");
    if (!out.empty()) out += "\n";
    out += "Action: " + (name && name->is_str() ? std::string(name->str()) : std::string()) + "\nAction Input: ";
    out += args ? (args->is_str() ? args->str() : compact(*args)) : "{}";
  }
  return out;
}

std::string react_response(const Value& msg, const std::string&) { return "Observation: " + text_of(get(msg, "content")); }

}  // namespace

bool is_react(const dialects::Dialect& d) { return d.name == "react"; }

std::vector<std::string> dialect_stops(const dialects::Dialect& d) {
  if (is_react(d)) return {"Observation:"};
  return {};
}

PromptBuilder::PromptBuilder(const Config& cfg, bool backend_takes_messages, bool locate_texts)
    : messages_only_(backend_takes_messages), locate_texts_(locate_texts) {
  if (!cfg.model_path.empty()) {
    sources_ = chat::load_templates(cfg.model_path);
    json::DumpOptions o;
    o.ensure_ascii = false;
    special_tokens_json_ = json::dumps(sources_.special_tokens, o);
    const std::string& src = chat::select_template(sources_, std::nullopt, true);
    caps_ = chat::detect_capabilities(src, sources_.special_tokens);
    for (const auto& [name, text] : sources_.templates) developer_native_ = developer_native_ || text.find("developer") != std::string::npos;
  } else if (!backend_takes_messages) {
    throw Error(ErrorKind::ConfigError, "--model is needed with a completion backend (the prompt is rendered from its template)");
  }
  if (!cfg.dialect.empty()) {
    dialect_ = dialects::find(cfg.dialect);
    if (!dialect_)
      throw Error(ErrorKind::ConfigError, "unknown dialect '" + cfg.dialect + "' (known: " + dialects::known_names() + ")");
  } else if (has_template()) {
    dialect_ = dialects::detect(chat::select_template(sources_, std::nullopt, true), &caps_).dialect;
  } else {
    throw Error(ErrorKind::ConfigError, "--dialect is needed when no --model template is given");
  }
  if (!dialect_) dialect_ = dialects::find("generic_json");  // a template with no tool format of its own
  // A chat backend (ollama-chat) gets plain text messages: every piece is text. --inject and ReAct
  // put tools in the system message; ReAct also writes past calls and results as Action /
  // Observation text.
  if (messages_only_) {
    caps_ = chat::Capabilities{};
    caps_.system_in_multi_turn = caps_.supports_system_role = true;
  }
  if (cfg.inject || is_react(*dialect_)) caps_.tools_in_multi_turn = caps_.supports_tools = false;
  if (is_react(*dialect_)) {
    caps_.supports_tool_calls = caps_.supports_tool_responses = false;
    caps_.supports_parallel_tool_calls = false;
  }
  for (int i = 0; i < 2 && has_template() && !messages_only_; ++i) give_back(lease());  // compile up front: errors at startup
}

PromptBuilder::~PromptBuilder() = default;

std::unique_ptr<PromptBuilder::Compiled> PromptBuilder::lease() const {
  {
    std::lock_guard<std::mutex> g(pool_mu_);
    if (!pool_.empty()) {
      auto c = std::move(pool_.back());
      pool_.pop_back();
      return c;
    }
  }
  auto c = std::make_unique<Compiled>();
  for (const auto& [name, src] : sources_.templates) {
    try {
      c->templates.emplace_back(name, std::make_shared<jinja::Template>(jinja::Template::compile(src, name, engine_limits_)));
      c->errors.emplace_back();
    } catch (const Error& e) {
      c->templates.emplace_back(name, nullptr);
      c->errors.emplace_back(e);
    }
  }
  c->special_tokens = json::parse(special_tokens_json_);
  return c;
}

void PromptBuilder::give_back(std::unique_ptr<Compiled> c) const {
  std::lock_guard<std::mutex> g(pool_mu_);
  pool_.push_back(std::move(c));
}

Prompt PromptBuilder::build(const ChatRequest& req, const Value& tools, const std::string& extra) const {
  Prompt p;
  p.stop = req.stop;
  for (auto& s : dialect_stops(*dialect_)) p.stop.push_back(s);

  Value messages = req.messages;
  // OpenAI's developer role is the system message of newer models; a template that does not know
  // the role would drop it or refuse the conversation, so it gets a system message instead.
  if (!developer_native_) {
    bool any = false;
    for (const Value& m : messages.items())
      if (const Value* r = get(m, "role"); r && r->is_str() && r->str() == "developer") any = true;
    if (any) {
      std::vector<Value> ms;
      for (const Value& m : messages.items()) {
        const Value* r = get(m, "role");
        if (!(r && r->is_str() && r->str() == "developer")) {
          ms.push_back(m);
          continue;
        }
        Value copy = Value::dict();
        copy.dict_obj().entries = m.dict_obj().entries;
        put(copy, "role", Value::string("system"));
        ms.push_back(copy);
      }
      messages = Value::list(std::move(ms));
    }
  }
  if (!extra.empty()) {
    std::vector<Value> ms = messages.items();
    size_t i = ms.size();
    while (i > 0 && !(get(ms[i - 1], "role") && get(ms[i - 1], "role")->str() == "user")) --i;
    Value m = Value::dict();
    if (i > 0) m.dict_obj().entries = ms[i - 1].dict_obj().entries;
    else put(m, "role", Value::string("user"));
    std::string text = text_of(get(m, "content"));
    put(m, "content", Value::string(text.empty() ? extra : text + "\n\n" + extra));
    if (i > 0) ms[i - 1] = m;
    else ms.push_back(m);
    messages = Value::list(std::move(ms));
  }

  Value ctx = Value::dict();
  put(ctx, "messages", messages);
  if (tools.is_list()) put(ctx, "tools", tools);
  put(ctx, "add_generation_prompt", Value::boolean(true));
  for (const auto& [k, v] : req.template_kwargs.dict_obj().entries) ctx.dict_obj().set(k, v);

  chat::PolyfillOptions po;
  const dialects::Dialect* d = dialect_;
  po.tools_text = [d](const Value& t) { return d->tool_prompt(t); };
  if (is_react(*d)) {
    po.calls_text = react_calls;
    po.response_text = react_response;
  }
  ctx = chat::apply_polyfills(ctx, caps_, po);

  if (messages_only_) {  // ollama-chat: the backend applies the model's template itself
    std::vector<Value> out;
    for (const Value& m : get(ctx, "messages")->items()) {
      Value o = Value::dict();
      const Value* role = get(m, "role");
      std::string r = role && role->is_str() ? std::string(role->str()) : "user";
      put(o, "role", Value::string(r == "developer" ? "system" : r));
      put(o, "content", Value::string(text_of(get(m, "content"))));
      out.push_back(o);
    }
    p.chat_messages = Value::list(std::move(out));
    return p;
  }

  auto c = lease();
  struct Return {
    const PromptBuilder* b;
    std::unique_ptr<Compiled>& c;
    ~Return() { b->give_back(std::move(c)); }
  } ret{this, c};
  bool with_tools = get(ctx, "tools") != nullptr;
  const std::string* chosen = nullptr;
  try {
    chosen = &chat::select_template(sources_, std::nullopt, with_tools);
  } catch (const Error& e) {
    throw ApiError(500, "template selection failed: " + e.message(), "server_error", "", "template_error");
  }
  size_t idx = 0;
  while (idx < sources_.templates.size() && &sources_.templates[idx].second != chosen) ++idx;
  if (idx == sources_.templates.size() || !c->templates[idx].second)
    throw ApiError(500, "the model's chat template does not compile: " +
                            (idx < c->errors.size() && c->errors[idx] ? c->errors[idx]->message() : std::string("?")),
                   "server_error", "", "template_error");
  try {
    chat::PreparedCase pc = chat::prepare_case(ctx, c->special_tokens);
    jinja::RenderOptions ro;
    ro.fixed_now = false;
    p.text = c->templates[idx].second->render(pc.variables, ro).text;
    if (locate_texts_) {
      const jinja::Template& t = *c->templates[idx].second;
      chat::MarkedMessages marked = chat::mark_message_texts(*get(ctx, "messages"));
      chat::ContentRanges r = chat::locate_message_texts(marked, p.text, [&](const Value& mm) {
        Value again = Value::dict();
        again.dict_obj().entries = ctx.dict_obj().entries;
        put(again, "messages", mm);
        return t.render(chat::prepare_case(again, c->special_tokens).variables, ro).text;
      });
      p.message_texts = std::move(r.bytes);
    }
  } catch (const Error& e) {
    // A template's raise_exception is the template refusing this conversation: the client's to fix.
    throw ApiError(400, std::string("the chat template refused the conversation: ") + error_kind_name(e.kind()) + ": " + e.message(),
                   "invalid_request_error", "messages", "template_refused");
  }
  p.reasoning_open = dialects::prompt_opens_reasoning(p.text);
  if (caps_.thinking_switch) {
    const Value* on = get(req.template_kwargs, "enable_thinking");
    p.thinking = !(on && on->is_bool() && !on->as_bool());
  } else {
    p.thinking = caps_.renders_reasoning_content;
  }
  return p;
}

}  // namespace toolchat::gateway
