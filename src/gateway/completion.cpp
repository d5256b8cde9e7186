#include "gateway/completion.hpp"

#include <random>
#include <set>

#include "chat/conv_util.hpp"
#include "gateway/api_error.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

using chat::conv::get;

uint64_t random_seed() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

// The tool policy between the dialect's parser and the output (see completion.hpp).
class Policy final : public dialects::Sink {
 public:
  Policy(dialects::Sink& out, const ChatRequest& req) : out_(out), req_(req) {}

  void on(dialects::Event&& e) override {
    if (stopped_) return;
    if (auto* r = std::get_if<dialects::ReasoningDelta>(&e); r && req_.reasoning_as_content) {
      out_.on(dialects::ContentDelta{std::move(r->text)});
      return;
    }
    if (req_.tool_choice.kind == ToolChoice::None) {
      hidden_call(e);
      return;
    }
    if (auto* b = std::get_if<dialects::ToolCallBegin>(&e)) {
      if (!req_.parallel_tool_calls && !names_.empty()) {
        stopped_ = true;  // a second call: cancel the generation, keep the first
        return;
      }
      names_.push_back(b->name);
      args_seen_ = false;
    } else if (auto* a = std::get_if<dialects::ToolArgsDelta>(&e)) {
      if (!a->fragment.empty()) args_seen_ = true;
    } else if (auto* end = std::get_if<dialects::ToolCallEnd>(&e)) {
      if (!args_seen_) out_.on(dialects::ToolArgsDelta{end->index, "{}"});  // a call always has an object
      args_seen_ = true;
    } else if (std::holds_alternative<dialects::Warning>(e)) {
      return;
    }
    out_.on(std::move(e));
  }

  bool stop_wanted() const { return stopped_; }
  const std::vector<std::string>& call_names() const { return names_; }

 private:
  // tool_choice none: a call the model writes anyway becomes content {"name": ..., "arguments": ...}.
  void hidden_call(dialects::Event& e) {
    if (auto* b = std::get_if<dialects::ToolCallBegin>(&e)) {
      hidden_ = "{\"name\": ";
      json::dump_string(hidden_, b->name, false);
      hidden_ += ", \"arguments\": ";
      hidden_args_ = false;
    } else if (auto* a = std::get_if<dialects::ToolArgsDelta>(&e)) {
      hidden_ += a->fragment;
      hidden_args_ = hidden_args_ || !a->fragment.empty();
    } else if (std::holds_alternative<dialects::ToolCallEnd>(e)) {
      if (!hidden_args_) hidden_ += "{}";
      out_.on(dialects::ContentDelta{hidden_ + "}"});
      hidden_.clear();
    } else if (!std::holds_alternative<dialects::Warning>(e)) {
      out_.on(std::move(e));
    }
  }

  dialects::Sink& out_;
  const ChatRequest& req_;
  std::vector<std::string> names_;
  bool args_seen_ = false, stopped_ = false, hidden_args_ = false;
  std::string hidden_;
};

bool complies(const ChatRequest& req, const std::vector<std::string>& names) {
  if (req.tool_choice.kind == ToolChoice::Required) return !names.empty();
  if (req.tool_choice.kind == ToolChoice::Named) {
    if (names.empty()) return false;
    for (const auto& n : names)
      if (n != req.tool_choice.name) return false;
  }
  return true;
}

std::string stricter_instruction(const ChatRequest& req) {
  if (req.tool_choice.kind == ToolChoice::Named)
    return "Answer now with a call to the tool `" + req.tool_choice.name +
           "` in the tool-call format described above, and write nothing else.";
  std::string names;
  for (const Value& t : req.tools.items())
    if (const Value* fn = get(t, "function"))
      if (const Value* n = get(*fn, "name"); n && n->is_str()) names += (names.empty() ? "`" : ", `") + n->str() + "`";
  return "Answer now with a call to one of the tools (" + names +
         ") in the tool-call format described above, and write nothing else.";
}

// The tools a grammar allows: all, or the named one.
Value grammar_tools(const ChatRequest& req) {
  if (req.tool_choice.kind != ToolChoice::Named) return req.tools;
  std::vector<Value> one;
  for (const Value& t : req.tools.items())
    if (const Value* fn = get(t, "function"))
      if (const Value* n = get(*fn, "name"); n && n->is_str() && n->str() == req.tool_choice.name) one.push_back(t);
  return Value::list(std::move(one));
}

}  // namespace

struct Gateway::Attempt {
  GenResult gen;
  std::vector<std::string> names;
  bool client_gone = false;
};

Gateway::Gateway(const Config& cfg) : cfg_(cfg) {
  if (cfg_.model_name.empty()) {
    std::string p = cfg_.model_path;
    while (!p.empty() && p.back() == '/') p.pop_back();
    size_t slash = p.find_last_of('/');
    cfg_.model_name = slash == std::string::npos ? p : p.substr(slash + 1);
    if (cfg_.model_name.empty()) cfg_.model_name = cfg_.dialect.empty() ? "toolchat" : cfg_.dialect;
  }
  backend_ = make_backend(cfg_);
  prompts_ = std::make_unique<PromptBuilder>(cfg_, backend_->wants_messages());
}

Gateway::~Gateway() = default;

bool Gateway::constrained(const ChatRequest& req) {
  return req.tool_choice.kind == ToolChoice::Required || req.tool_choice.kind == ToolChoice::Named;
}

bool Gateway::grammar_guarantees(const ChatRequest& req) const {
  return constrained(req) && backend_->takes_grammar() && prompts_->dialect().grammar;
}

Gateway::Attempt Gateway::attempt(const ChatRequest& req, const std::string& extra, dialects::Sink& out,
                                  const std::function<bool()>& client_ok, Clock::time_point deadline,
                                  bool stream_backend) {
  const dialects::Dialect& d = prompts_->dialect();
  Value tools = req.tool_choice.kind == ToolChoice::None ? Value() : req.tools;
  Prompt p = prompts_->build(req, tools, extra);

  GenRequest g;
  g.prompt = std::move(p.text);
  g.messages = p.chat_messages;
  g.stop = std::move(p.stop);
  g.max_tokens = req.max_tokens;
  g.temperature = req.temperature;
  g.top_p = req.top_p;
  g.seed = req.seed;
  g.stream = stream_backend;
  g.deadline = deadline;
  if (grammar_guarantees(req)) {
    dialects::GrammarOptions go;
    go.max_calls = req.parallel_tool_calls ? kMaxParallelCalls : 1;
    using R = dialects::GrammarOptions::Reasoning;
    go.reasoning = p.reasoning_open ? R::Open : p.thinking ? R::Optional : R::None;
    if (auto gr = d.grammar(grammar_tools(req), go)) g.grammar = *gr;
  }

  dialects::ParseOptions po;
  po.tools = tools;
  po.reasoning_open = p.reasoning_open;
  po.id_seed = random_seed();
  auto parser = d.make_parser(po);
  Policy policy(out, req);
  Attempt a;
  auto t0 = Clock::now();
  a.gen = backend_->generate(g, [&](std::string_view text) {
    parser->feed(text, policy);
    if (!client_ok()) { a.client_gone = true; return false; }
    return !policy.stop_wanted();
  });
  metrics_.backend_latency.observe(std::chrono::duration<double>(Clock::now() - t0).count());
  if (!a.client_gone) parser->finish(policy);
  a.names = policy.call_names();
  return a;
}

void Gateway::account(const Outcome& o) {
  metrics_.prompt_tokens += static_cast<uint64_t>(std::max<int64_t>(0, o.usage.prompt_tokens));
  metrics_.completion_tokens += static_cast<uint64_t>(std::max<int64_t>(0, o.usage.completion_tokens));
}

Outcome Gateway::run_whole(const ChatRequest& req, Clock::time_point deadline, const std::function<bool()>& client_ok) {
  Outcome o;
  for (int round = 0; round < 2; ++round) {
    dialects::EventLog log;
    Attempt a = attempt(req, round ? stricter_instruction(req) : std::string(), log, client_ok, deadline,
                        /*stream_backend=*/true);
    if (a.client_gone) {
      account(o);
      throw ApiError(499, "the client closed the connection before the answer was complete", "invalid_request_error", "",
                     "client_disconnected");
    }
    o.usage.prompt_tokens += a.gen.prompt_tokens;
    o.usage.completion_tokens += a.gen.completion_tokens;
    if (complies(req, a.names)) {
      o.events = std::move(log.events);
      o.finish_reason = !a.names.empty() ? "tool_calls" : a.gen.finish_reason;
      metrics_.tool_calls += a.names.size();
      account(o);
      return o;
    }
    if (round == 0) ++metrics_.retries;
  }
  account(o);
  throw ApiError(502,
                 req.tool_choice.kind == ToolChoice::Named
                     ? "the model did not call '" + req.tool_choice.name + "' as tool_choice requires, even when retried with a stricter instruction"
                     : "the model did not call a tool as tool_choice \"required\" requires, even when retried with a stricter instruction",
                 "backend_error", "tool_choice", "tool_choice_not_honoured");
}

void Gateway::run_streaming(const ChatRequest& req, ChunkWriter& out, Clock::time_point deadline) {
  Attempt a = attempt(req, "", out, [&] { return !out.client_gone(); }, deadline, /*stream_backend=*/true);
  if (a.client_gone || out.client_gone()) return;
  Outcome o;
  o.usage = {a.gen.prompt_tokens, a.gen.completion_tokens};
  o.finish_reason = !a.names.empty() ? "tool_calls" : a.gen.finish_reason;
  metrics_.tool_calls += a.names.size();
  account(o);
  out.finish(o.finish_reason, req.include_usage ? &o.usage : nullptr);
}

}  // namespace toolchat::gateway
