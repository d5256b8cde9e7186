#include "gateway/gateway.hpp"

#include <algorithm>
#include <optional>
#include <random>
#include <set>

#include "chat/conv_util.hpp"
#include "gateway/api_error.hpp"
#include "gateway/as_written.hpp"
#include "gateway/json_schema.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

using chat::conv::get;

uint64_t random_seed() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

// The tool policy between the dialect's parser and the output (see gateway.hpp).
class Policy final : public dialects::Sink {
 public:
  Policy(dialects::Sink& out, const ChatRequest& req) : out_(out), req_(req) {}

  void on(dialects::Event&& e) override {
    if (stopped_) return;
    if (auto* r = std::get_if<dialects::ReasoningDelta>(&e); r && req_.reasoning_as_content) {
      out_.on(dialects::ContentDelta{std::move(r->text)});
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
    } else if (auto* w = std::get_if<dialects::Warning>(&e)) {
      // A call cut short (output ended inside it): its events stand, but it is not a call the
      // answer makes (the whole answer gives its text as content: dialects::collect reads this
      // warning).
      if (w->cut_call) {
        if (!names_.empty()) names_.pop_back();
        ++cut_;
      }
    }
    out_.on(std::move(e));  // warnings too: the client and the access log see them
  }

  bool stop_wanted() const { return stopped_; }
  size_t cut_calls() const { return cut_; }
  const std::vector<std::string>& call_names() const { return names_; }

 private:
  dialects::Sink& out_;
  const ChatRequest& req_;
  std::vector<std::string> names_;
  bool args_seen_ = false, stopped_ = false;
  size_t cut_ = 0;
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
      if (const Value* n = get(*fn, "name"); n && n->is_str()) names += (names.empty() ? "`" : ", `") + std::string(n->str()) + "`";
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

// The calls as one JSON object in the generic_json dialect's shape, {"tool_calls": [{"name": N,
// "arguments": {…}}, …]}, each call's arguments under its tool's schema: what tool_choice asks of a
// backend that constrains output to a JSON schema but takes no grammar (Ollama's `format`).
Value calls_schema(const Value& tools, size_t max_calls) {
  const auto put = chat::conv::set;
  std::vector<Value> alts;
  for (const Value& t : tools.items()) {
    const Value* fn = get(t, "function");
    const Value* name = fn ? get(*fn, "name") : nullptr;
    if (!name || !name->is_str()) continue;
    const Value* params = get(*fn, "parameters");
    Value props = Value::dict();
    Value name_schema = Value::dict();
    put(name_schema, "type", Value::string("string"));
    put(name_schema, "enum", Value::list({*name}));
    put(props, "name", name_schema);
    put(props, "arguments", params && params->is_dict() ? *params : json::parse(R"({"type": "object"})"));
    Value call = json::parse(R"({"type": "object", "required": ["name", "arguments"], "additionalProperties": false})");
    put(call, "properties", props);
    alts.push_back(std::move(call));
  }
  Value items = Value::dict();
  if (alts.size() == 1) items = alts[0];
  else put(items, "anyOf", Value::list(std::move(alts)));
  Value list = json::parse(R"({"type": "array", "minItems": 1})");
  put(list, "items", items);
  put(list, "maxItems", Value::integer(static_cast<int64_t>(max_calls)));
  Value root = json::parse(R"({"type": "object", "required": ["tool_calls"], "additionalProperties": false})");
  Value props = Value::dict();
  put(props, "tool_calls", list);
  put(root, "properties", props);
  return root;
}

// What the prompt says when the answer is constrained to calls_schema (the template shows the
// tools in the family's own format, which the schema does not allow).
std::string json_calls_instruction(const ChatRequest& req) {
  std::string which = req.tool_choice.kind == ToolChoice::Named ? "the tool `" + req.tool_choice.name + "`" : "one of the tools";
  return "Answer now with a call to " + which +
         " as one JSON object, {\"tool_calls\": [{\"name\": \"TOOL\", \"arguments\": {...}}]}, and write nothing else.";
}

// "--- prompt chatcmpl-...\n<text>\n--- end" (--log-prompts): the text exactly, between marker lines.
std::string log_block(const std::string& id, const char* what, const std::string& text) {
  return "--- " + std::string(what) + (id.empty() ? "" : " " + id) + "\n" + text + "\n--- end " + what;
}

// A structured answer (response_format) is checked even though the backend was asked to enforce
// it: a backend that ignored the request must not reach the client as a 200.
void check_json_answer(const ChatRequest& req, const std::string& content) {
  auto refuse = [](const std::string& why) {
    throw ApiError(502, "the model's answer does not satisfy response_format: " + why, "server_error", "response_format",
                   "response_format_not_honoured");
  };
  Value v;
  try {
    v = json::parse(content);
  } catch (const Error& e) {
    refuse("not JSON (" + e.message() + ")");
  }
  if (req.response_format.kind == ResponseFormat::JsonObject) {
    if (!v.is_dict()) refuse("not a JSON object");
  } else if (auto why = schema_violation(v, req.response_format.schema)) {
    refuse(*why);
  }
}

// A token's entry with at most k alternatives (the backend may send more: llama-server is asked for
// at least one so that the token's own log probability comes at all).
Value with_top_logprobs(const Value& entry, size_t k) {
  Value e = Value::dict();
  for (const auto& [key, v] : entry.dict_obj().entries) {
    if (key.is_str() && key.str() == "top_logprobs" && v.is_list() && v.items().size() > k) {
      std::vector<Value> top(v.items().begin(), v.items().begin() + static_cast<std::ptrdiff_t>(k));
      e.dict_obj().set(key, Value::list(std::move(top)));
    } else {
      e.dict_obj().set(key, v);
    }
  }
  return e;
}

}  // namespace

struct Gateway::Attempt {
  GenResult gen;
  std::vector<std::string> names;
  size_t cut_calls = 0;
  bool client_gone = false;
  std::vector<Value> logprobs;
  // A call cut short answers with the backend's reason (max_tokens: "length"), never "tool_calls".
  std::string finish_reason() const { return cut_calls || names.empty() ? gen.finish_reason : "tool_calls"; }
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
  const std::string& m = cfg_.model_path;
  const bool gguf_model = m.size() > 5 && m.compare(m.size() - 5, 5, ".gguf") == 0;
  if (!cfg_.tokenizer.empty()) {
    tokenizer_.emplace(tokenize::Tokenizer::load(cfg_.tokenizer));
  } else if (gguf_model && !backend_->wants_messages()) {
    try {  // the model's own tokenizer, when toolchat can read it
      tokenizer_.emplace(tokenize::Tokenizer::load(m));
    } catch (const Error& e) {
      if (cfg_.log) cfg_.log("toolchat serve: prompts are sent as text, the GGUF's tokenizer is not used: " + e.message());
    }
  }
  if (tokenizer_) {
    std::vector<uint32_t> with = tokenizer_->encode_ids("x", true), without = tokenizer_->encode_ids("x", false);
    auto at = std::search(with.begin(), with.end(), without.begin(), without.end());
    if (!without.empty() && at != with.end()) added_prefix_.assign(with.begin(), at);
  }
  prompts_ = std::make_unique<PromptBuilder>(cfg_, backend_->wants_messages(), tokenizer_.has_value());
}

std::vector<uint32_t> Gateway::prompt_ids(const ChatRequest& req, const Prompt& p) {
  std::vector<uint32_t> ids = tokenizer_->encode_with_plain(p.text, p.message_texts, false).ids;
  // What the backend adds to a text prompt (BOS), unless the template wrote it already.
  if (!added_prefix_.empty() &&
      !(ids.size() >= added_prefix_.size() && std::equal(added_prefix_.begin(), added_prefix_.end(), ids.begin())))
    ids.insert(ids.begin(), added_prefix_.begin(), added_prefix_.end());
  const int64_t context = cfg_.context_size > 0 ? cfg_.context_size : backend_->context_size();
  const int64_t n = static_cast<int64_t>(ids.size()), asked = req.max_tokens.value_or(0);
  if (context > 0 && (n + asked > context || n >= context))
    throw ApiError(400,
                   "This model's maximum context length is " + std::to_string(context) + " tokens. However, you requested " +
                       std::to_string(n + asked) + " tokens (" + std::to_string(n) + " in the messages, " +
                       std::to_string(asked) + " in the completion). Please reduce the length of the messages or completion.",
                   "invalid_request_error", "messages", "context_length_exceeded");
  return ids;
}

Gateway::~Gateway() = default;

bool Gateway::constrained(const ChatRequest& req) {
  return req.tool_choice.kind == ToolChoice::Required || req.tool_choice.kind == ToolChoice::Named;
}

bool Gateway::grammar_guarantees(const ChatRequest& req) const {
  return constrained(req) && ((backend_->takes_grammar() && prompts_->dialect().grammar) || backend_->takes_json_schema());
}

Gateway::Attempt Gateway::attempt(const ChatRequest& req, const std::string& extra, dialects::Sink& out,
                                  const std::function<bool()>& client_ok, Clock::time_point deadline,
                                  bool stream_backend, const std::function<void(Value&&)>& on_logprob) {
  const dialects::Dialect& d = prompts_->dialect();
  Value tools = req.shows_tools() ? req.tools : Value();
  // A backend without grammars that takes a JSON schema: the calls come as generic_json's object.
  const dialects::Dialect* generic = dialects::find("generic_json");
  bool json_calls = generic && constrained(req) && !(backend_->takes_grammar() && d.grammar) && backend_->takes_json_schema();
  const dialects::Dialect& reader = json_calls ? *generic : d;
  std::string instruction = json_calls ? json_calls_instruction(req) + (extra.empty() ? "" : "\n" + extra) : extra;
  Prompt p = prompts_->build(req, tools, instruction);
  if (cfg_.log_prompts && cfg_.log) cfg_.log(log_block(req.log_id, "prompt", p.text.empty() ? json::dumps(p.chat_messages) : p.text));

  GenRequest g;
  int64_t counted = 0;  // the prompt's tokens, with a tokenizer
  if (tokenizer_ && !p.text.empty()) {
    std::vector<uint32_t> ids = prompt_ids(req, p);
    counted = static_cast<int64_t>(ids.size());
    if (cfg_.backend_kind == BackendKind::LlamaCpp) g.prompt_ids = std::move(ids);
  }
  g.prompt = std::move(p.text);
  g.messages = p.chat_messages;
  g.stop = std::move(p.stop);
  g.max_tokens = req.max_tokens;
  g.temperature = req.temperature;
  g.top_p = req.top_p;
  g.seed = req.seed;
  g.frequency_penalty = req.frequency_penalty;
  g.presence_penalty = req.presence_penalty;
  g.top_k = req.top_k;
  g.min_p = req.min_p;
  g.repetition_penalty = req.repetition_penalty;
  g.logit_bias = req.logit_bias;
  g.stream = stream_backend;
  g.deadline = deadline;
  g.response_format = req.response_format;
  Attempt a;
  if (req.top_logprobs) {
    g.top_logprobs = req.top_logprobs;
    g.on_logprobs = [&a, &on_logprob, k = static_cast<size_t>(*req.top_logprobs)](const Value& entries) {
      for (const Value& e : entries.items()) {
        Value entry = with_top_logprobs(e, k);
        if (on_logprob) on_logprob(std::move(entry));
        else a.logprobs.push_back(std::move(entry));
      }
    };
  }
  if (json_calls) {
    g.response_format.kind = ResponseFormat::JsonSchema;
    g.response_format.name = "tool_calls";
    g.response_format.schema = calls_schema(grammar_tools(req), req.parallel_tool_calls ? kMaxParallelCalls : 1);
  } else if (grammar_guarantees(req)) {
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
  auto parser = reader.make_parser(po);
  Policy policy(out, req);
  // No tools shown: whatever the model wrote is its answer (as_written.hpp), never a call.
  std::optional<AsWritten> as_written;
  if (!tools.is_list()) as_written.emplace(policy);
  dialects::Sink& parsed = as_written ? static_cast<dialects::Sink&>(*as_written) : policy;
  std::string raw_output;  // --log-prompts only
  auto t0 = Clock::now();
  a.gen = backend_->generate(g, [&](std::string_view text) {
    if (cfg_.log_prompts) raw_output.append(text);
    if (as_written) as_written->raw(text);
    parser->feed(text, parsed);
    if (!client_ok()) { a.client_gone = true; return false; }
    return !policy.stop_wanted();
  });
  if (a.gen.prompt_tokens == 0) a.gen.prompt_tokens = counted;  // a backend that does not count them
  metrics_.backend_latency.observe(std::chrono::duration<double>(Clock::now() - t0).count());
  if (cfg_.log_prompts && cfg_.log) cfg_.log(log_block(req.log_id, "output", raw_output));
  if (!a.gen.warning.empty()) parsed.on(dialects::Warning{dialects::WarningKind::BackendError, a.gen.warning});
  if (!a.client_gone) parser->finish(parsed);
  a.names = policy.call_names();
  a.cut_calls = policy.cut_calls();
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
    if (a.gen.cached_tokens >= 0) o.usage.cached_tokens = std::max<int64_t>(0, o.usage.cached_tokens) + a.gen.cached_tokens;
    // An answer the request's own max_tokens (or the context) cut short is the answer asked for,
    // not a model fault: 200 with finish_reason "length", never a retry (it would be cut the same
    // way, at twice the cost). Also when the cut came before the call was recognised as one (a
    // grammar-bound answer cut inside `{"name": ...`).
    bool cut_by_limit = a.gen.finish_reason == "length";
    if (complies(req, a.names) || cut_by_limit) {
      o.events = std::move(log.events);
      if (req.top_logprobs) o.logprobs = std::move(a.logprobs);
      o.finish_reason = a.finish_reason();
      metrics_.tool_calls += a.names.size();
      account(o);
      if (req.wants_json() && o.finish_reason != "length") check_json_answer(req, dialects::collect(o.events).content);
      return o;
    }
    if (round == 0) ++metrics_.retries;
  }
  account(o);
  throw ApiError(502,
                 req.tool_choice.kind == ToolChoice::Named
                     ? "the model did not call '" + req.tool_choice.name + "' as tool_choice requires, even when retried with a stricter instruction"
                     : "the model did not call a tool as tool_choice \"required\" requires, even when retried with a stricter instruction",
                 "server_error", "tool_choice", "tool_choice_not_honoured");
}

Outcome Gateway::run_streaming(const ChatRequest& req, ChunkWriter& out, Clock::time_point deadline) {
  std::function<void(Value&&)> on_logprob;
  if (req.top_logprobs) on_logprob = [&out](Value&& e) { out.add_logprob(std::move(e)); };
  Attempt a = attempt(req, "", out, [&] { return !out.client_gone(); }, deadline, /*stream_backend=*/true, on_logprob);
  Outcome o;
  o.usage = {a.gen.prompt_tokens, a.gen.completion_tokens, a.gen.cached_tokens};
  o.finish_reason = a.finish_reason();
  metrics_.tool_calls += a.names.size();
  account(o);
  out.finish(o.finish_reason, req.include_usage ? &o.usage : nullptr);
  return o;
}

}  // namespace toolchat::gateway
