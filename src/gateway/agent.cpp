// The in-process client and the agent loop (include/toolchat/agent.hpp).
#include "toolchat/agent.hpp"

#include "chat/conv_util.hpp"
#include "gateway/api_error.hpp"
#include "gateway/gateway.hpp"
#include "value/json.hpp"

namespace toolchat::agent {

namespace {
using chat::conv::get;
const auto put = chat::conv::set;
}  // namespace

std::string detail::result_text(const Value& v) {
  return v.is_str() ? std::string(v.str()) : chat::conv::dumps_compact_unicode(v);
}

Value Tool::openai_json() const {
  Value fn = Value::dict();
  put(fn, "name", Value::string(name));
  if (!description.empty()) put(fn, "description", Value::string(description));
  put(fn, "parameters", parameters);
  Value t = Value::dict();
  put(t, "type", Value::string("function"));
  put(t, "function", fn);
  return t;
}

Value user(const std::string& text) {
  Value m = Value::dict();
  put(m, "role", Value::string("user"));
  put(m, "content", Value::string(text));
  return Value::list({m});
}

Client::Client(const gateway::Config& cfg) : gw_(std::make_unique<gateway::Gateway>(cfg)) {}
Client::~Client() = default;

Reply Client::chat(const Value& messages, const std::vector<Tool>& tools, const ChatOptions& opts) {
  // Through the same validation as an HTTP request, so errors name the same JSON paths.
  Value body = Value::dict();
  put(body, "messages", messages);
  if (!tools.empty()) {
    std::vector<Value> ts;
    for (const Tool& t : tools) ts.push_back(t.openai_json());
    put(body, "tools", Value::list(std::move(ts)));
  }
  if (!opts.tool_choice.is_undefined()) put(body, "tool_choice", opts.tool_choice);
  put(body, "parallel_tool_calls", Value::boolean(opts.parallel_tool_calls));
  if (opts.max_tokens) put(body, "max_tokens", Value::integer(*opts.max_tokens));
  if (opts.temperature) put(body, "temperature", Value::floating(*opts.temperature));
  gateway::ChatRequest req = gateway::parse_chat_request(json::dumps(body), gw_->config().limits);
  auto deadline = gateway::Clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(gw_->config().limits.request_timeout_s * 1e6));
  gateway::Outcome o = gw_->run_whole(req, deadline);
  dialects::ParsedMessage pm = dialects::collect(o.events);
  Value msg = Value::dict();
  put(msg, "role", Value::string("assistant"));
  put(msg, "content", pm.content.empty() && !pm.tool_calls.empty() ? Value::none() : Value::string(pm.content));
  if (!pm.reasoning_content.empty()) put(msg, "reasoning_content", Value::string(pm.reasoning_content));
  if (!pm.tool_calls.empty()) {
    std::vector<Value> calls;
    for (const auto& c : pm.tool_calls) {
      Value fn = Value::dict();
      put(fn, "name", Value::string(c.name));
      put(fn, "arguments", Value::string(c.arguments.empty() ? "{}" : c.arguments));
      Value call = Value::dict();
      put(call, "id", Value::string(c.id));
      put(call, "type", Value::string("function"));
      put(call, "function", fn);
      calls.push_back(call);
    }
    put(msg, "tool_calls", Value::list(std::move(calls)));
  }
  return {msg, o.finish_reason};
}

Result run(Client& client, Value messages, const std::vector<Tool>& tools, int max_steps, const ChatOptions& opts) {
  Result r;
  std::vector<Value> conv = messages.is_list() ? messages.items() : std::vector<Value>{};
  for (r.steps = 0; r.steps < max_steps;) {
    Reply reply = client.chat(Value::list(conv), tools, opts);
    ++r.steps;
    conv.push_back(reply.message);
    const Value* calls = get(reply.message, "tool_calls");
    if (!calls) {
      const Value* c = get(reply.message, "content");
      r.answer = c && c->is_str() ? c->str() : "";
      r.messages = Value::list(std::move(conv));
      return r;
    }
    for (const Value& call : calls->items()) {
      const Value& fn = *get(call, "function");
      std::string name(get(fn, "name")->str());
      std::string result;
      const Tool* t = nullptr;
      for (const Tool& x : tools)
        if (x.name == name) t = &x;
      if (!t) {
        result = "error: there is no tool named '" + name + "'";
      } else {
        try {
          result = t->call(json::parse(get(fn, "arguments")->str()));
        } catch (const Error& e) {
          result = "error: " + e.message();
        } catch (const std::exception& e) {
          result = std::string("error: ") + e.what();
        }
      }
      Value m = Value::dict();
      put(m, "role", Value::string("tool"));
      put(m, "tool_call_id", *get(call, "id"));
      put(m, "name", Value::string(name));
      put(m, "content", Value::string(result));
      conv.push_back(m);
    }
  }
  r.step_limit = true;
  r.messages = Value::list(std::move(conv));
  return r;
}

}  // namespace toolchat::agent
