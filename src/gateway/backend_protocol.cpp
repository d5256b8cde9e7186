#include "gateway/backend_protocol.hpp"

#include <algorithm>

#include "chat/conv_util.hpp"
#include "gateway/api_error.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

const auto put = chat::conv::set;

Value stop_list(const std::vector<std::string>& stop) {
  std::vector<Value> out;
  for (const auto& s : stop) out.push_back(Value::string(s));
  return Value::list(std::move(out));
}

const auto at = chat::conv::get;

int64_t int_or(const Value* v, int64_t dflt) { return v && v->is_int() ? v->as_int() : dflt; }

// llama-server (b10587 and later) runs its own chat parser on every generation, /completion and
// /v1/completions too (the llamacpp and openai kinds in front of it),
// and fails the request with HTTP 500 "The model produced output that does not match the expected
// Content-only format" when the final text is not valid UTF-8: a generation cut by n_predict in the
// middle of a character (a real model's byte tokens). Its partial records, every complete character,
// came before; the gateway reads the output itself, so nothing of the answer is lost but that
// unfinished character, and a cut generation's finish reason is "length".
bool after_generation(const Value& err) {
  const Value* m = err.is_dict() ? at(err, "message") : nullptr;
  return m && m->is_str() && m->str().find("does not match the expected Content-only format") != std::string::npos;
}

[[noreturn]] void invalid(BackendKind k, const std::string& what) {
  throw ApiError(502, std::string("backend (") + backend_kind_name(k) + ") sent an invalid response: " + what,
                 "server_error", "", "backend_invalid_response");
}

// Common sampling fields under the names llama.cpp, OpenAI-style servers and Ollama's options use;
// only repetition_penalty is named differently (vLLM/SGLang vs llama.cpp/Ollama).
void sampling(Value& b, const GenRequest& r, BackendKind kind) {
  if (r.temperature) put(b, "temperature", Value::floating(*r.temperature));
  if (r.top_p) put(b, "top_p", Value::floating(*r.top_p));
  if (r.seed) put(b, "seed", Value::integer(*r.seed));
  if (r.frequency_penalty) put(b, "frequency_penalty", Value::floating(*r.frequency_penalty));
  if (r.presence_penalty) put(b, "presence_penalty", Value::floating(*r.presence_penalty));
  if (r.top_k) put(b, "top_k", Value::integer(*r.top_k));
  if (r.min_p) put(b, "min_p", Value::floating(*r.min_p));
  if (r.repetition_penalty)
    put(b, kind == BackendKind::OpenAI ? "repetition_penalty" : "repeat_penalty", Value::floating(*r.repetition_penalty));
}

// response_format for backends: llama.cpp's json_schema (json_object: any object), and the OpenAI
// shape as the client sent it.
Value structured_schema(const ResponseFormat& rf) {
  if (rf.kind == ResponseFormat::JsonSchema) return rf.schema;
  Value s = Value::dict();
  put(s, "type", Value::string("object"));
  return s;
}

Value openai_response_format(const ResponseFormat& rf) {
  Value f = Value::dict();
  if (rf.kind == ResponseFormat::JsonObject) {
    put(f, "type", Value::string("json_object"));
    return f;
  }
  Value js = Value::dict();
  put(js, "name", Value::string(rf.name));
  put(js, "schema", rf.schema);
  put(f, "type", Value::string("json_schema"));
  put(f, "json_schema", js);
  return f;
}

// The grammar in the field the backend reads it from.
void grammar_field(Value& b, const GenRequest& r, GrammarForm form) {
  if (r.grammar.empty()) return;
  switch (form) {
    case GrammarForm::LlamaCpp: put(b, "grammar", Value::string(r.grammar)); break;
    case GrammarForm::Vllm: {
      Value so = Value::dict();
      put(so, "grammar", Value::string(r.grammar));
      put(b, "structured_outputs", so);
      break;
    }
    case GrammarForm::Sglang: put(b, "ebnf", Value::string(r.grammar)); break;
    case GrammarForm::Auto:
    case GrammarForm::None: break;
  }
}

// A token's UTF-8 bytes as OpenAI lists them (for tokens whose text came without a "bytes" field).
Value utf8_bytes(const std::string& s) {
  std::vector<Value> out;
  for (unsigned char c : s) out.push_back(Value::integer(c));
  return Value::list(std::move(out));
}

// One token in OpenAI's chat shape: {token, logprob, bytes[, top_logprobs]}.
Value token_logprob(const Value& token, const Value& logprob, const Value* bytes) {
  Value e = Value::dict();
  std::string t = token.is_str() ? std::string(token.str()) : "";
  put(e, "token", Value::string(t));
  put(e, "logprob", logprob.is_number() ? Value::floating(logprob.to_double()) : Value::floating(-9999.0));
  put(e, "bytes", bytes && bytes->is_list() ? *bytes : utf8_bytes(t));
  return e;
}

// llama-server's completion_probabilities: [{id, token, bytes, logprob, top_logprobs: [...]}].
Value llamacpp_logprobs(const Value& probs) {
  std::vector<Value> out;
  for (const Value& p : probs.items()) {
    const Value* tok = p.is_dict() ? at(p, "token") : nullptr;
    if (!tok) continue;
    Value e = token_logprob(*tok, at(p, "logprob") ? *at(p, "logprob") : Value(), at(p, "bytes"));
    std::vector<Value> top;
    if (const Value* alts = at(p, "top_logprobs"); alts && alts->is_list())
      for (const Value& a : alts->items())
        if (a.is_dict() && at(a, "token")) top.push_back(token_logprob(*at(a, "token"), at(a, "logprob") ? *at(a, "logprob") : Value(), at(a, "bytes")));
    put(e, "top_logprobs", Value::list(std::move(top)));
    out.push_back(std::move(e));
  }
  return Value::list(std::move(out));
}

// The completions API's logprobs: {tokens: [...], token_logprobs: [...], top_logprobs: [{token: lp}]}.
Value completions_logprobs(const Value& lp) {
  std::vector<Value> out;
  const Value* tokens = at(lp, "tokens");
  const Value* lps = at(lp, "token_logprobs");
  const Value* tops = at(lp, "top_logprobs");
  if (!tokens || !tokens->is_list()) return Value::list(std::vector<Value>{});
  for (size_t i = 0; i < tokens->items().size(); ++i) {
    Value l = lps && lps->is_list() && i < lps->items().size() ? lps->items()[i] : Value();
    Value e = token_logprob(tokens->items()[i], l, nullptr);
    std::vector<Value> top;
    if (tops && tops->is_list() && i < tops->items().size() && tops->items()[i].is_dict())
      for (const auto& [k, v] : tops->items()[i].dict_obj().entries) top.push_back(token_logprob(k, v, nullptr));
    put(e, "top_logprobs", Value::list(std::move(top)));
    out.push_back(std::move(e));
  }
  return Value::list(std::move(out));
}

}  // namespace

Protocol protocol_for(BackendKind kind, const std::string& prefix, GrammarForm form) {
  Protocol p{kind, prefix, true, GrammarForm::None};
  auto join = [&](const std::string& path) {
    // An OpenAI base URL usually ends in /v1 already.
    if (prefix.size() >= 3 && prefix.compare(prefix.size() - 3, 3, "/v1") == 0 && path.rfind("/v1/", 0) == 0)
      return prefix + path.substr(3);
    return prefix + path;
  };
  switch (kind) {
    case BackendKind::LlamaCpp:
      p.path = join("/completion");
      p.grammar = form == GrammarForm::Auto ? GrammarForm::LlamaCpp : form;
      break;
    case BackendKind::OpenAI:
      p.path = join("/v1/completions");
      p.grammar = form == GrammarForm::Auto ? GrammarForm::None : form;
      break;
    case BackendKind::OllamaGenerate: p.path = join("/api/generate"); p.sse = false; p.calls_as_json = form != GrammarForm::None; break;
    case BackendKind::OllamaChat: p.path = join("/api/chat"); p.sse = false; p.calls_as_json = form != GrammarForm::None; break;
  }
  return p;
}

std::string Protocol::body(const GenRequest& r, const std::string& model) const {
  Value b = Value::dict();
  switch (kind) {
    case BackendKind::LlamaCpp:
      if (!r.prompt_ids.empty()) {
        std::vector<Value> ids;
        ids.reserve(r.prompt_ids.size());
        for (uint32_t id : r.prompt_ids) ids.push_back(Value::integer(id));
        put(b, "prompt", Value::list(std::move(ids)));
      } else {
        put(b, "prompt", Value::string(r.prompt));
      }
      put(b, "n_predict", Value::integer(r.max_tokens.value_or(-1)));
      if (!r.stop.empty()) put(b, "stop", stop_list(r.stop));
      put(b, "stream", Value::boolean(r.stream));
      put(b, "cache_prompt", Value::boolean(true));
      sampling(b, r, kind);
      if (r.logit_bias.is_dict()) put(b, "logit_bias", r.logit_bias);  // llama-server takes OpenAI's object form
      // n_probs 0 sends none; the sampled token's own log probability comes with its alternatives.
      if (r.top_logprobs) put(b, "n_probs", Value::integer(std::max(1, *r.top_logprobs)));
      grammar_field(b, r, grammar);
      if (r.response_format.kind != ResponseFormat::Text) put(b, "json_schema", structured_schema(r.response_format));
      break;
    case BackendKind::OpenAI:
      put(b, "model", Value::string(model));
      put(b, "prompt", Value::string(r.prompt));
      if (r.max_tokens) put(b, "max_tokens", Value::integer(*r.max_tokens));
      if (!r.stop.empty()) put(b, "stop", stop_list(r.stop));
      put(b, "stream", Value::boolean(r.stream));
      if (r.stream) {
        Value so = Value::dict();
        put(so, "include_usage", Value::boolean(true));
        put(b, "stream_options", so);
      }
      sampling(b, r, kind);
      if (r.logit_bias.is_dict()) put(b, "logit_bias", r.logit_bias);
      if (r.top_logprobs) put(b, "logprobs", Value::integer(*r.top_logprobs));
      grammar_field(b, r, grammar);
      if (r.response_format.kind != ResponseFormat::Text) put(b, "response_format", openai_response_format(r.response_format));
      break;
    case BackendKind::OllamaGenerate:
    case BackendKind::OllamaChat: {
      if (r.logit_bias.is_dict()) throw unsupported_parameter("logit_bias", "the ollama backend has no token biases");
      if (r.top_logprobs) throw unsupported_parameter("logprobs", "the ollama backend does not report token log probabilities");
      put(b, "model", Value::string(model));
      if (kind == BackendKind::OllamaGenerate) {
        put(b, "prompt", Value::string(r.prompt));
        put(b, "raw", Value::boolean(true));
      } else {
        put(b, "messages", r.messages);
      }
      put(b, "stream", Value::boolean(r.stream));
      Value o = Value::dict();
      if (r.max_tokens) put(o, "num_predict", Value::integer(*r.max_tokens));
      if (!r.stop.empty()) put(o, "stop", stop_list(r.stop));
      sampling(o, r, kind);
      put(b, "options", o);
      if (r.response_format.kind == ResponseFormat::JsonObject) put(b, "format", Value::string("json"));
      if (r.response_format.kind == ResponseFormat::JsonSchema) put(b, "format", r.response_format.schema);
      break;
    }
  }
  json::DumpOptions d;
  d.ensure_ascii = false;
  d.separators = std::make_pair(",", ":");
  return json::dumps(b, d);
}

Record Protocol::read(std::string_view text) const {
  Value v;
  try {
    v = json::parse(text);
  } catch (const Error& e) {
    invalid(kind, "not JSON (" + e.message() + ")");
  }
  if (!v.is_dict()) invalid(kind, "expected a JSON object");
  if (const Value* err = at(v, "error")) {
    std::string msg = err->is_str() ? std::string(err->str()) : json::dumps(*err);
    if ((kind == BackendKind::LlamaCpp || kind == BackendKind::OpenAI) && after_generation(*err)) {
      Record r;
      r.done = true;
      r.finish_reason = "length";
      r.warning = "llama-server failed after generating the answer (" + msg +
                  "): its output ended inside a UTF-8 character, which it holds back and then cannot read; "
                  "the answer is the text it sent before, cut by its token limit";
      return r;
    }
    throw ApiError(502, std::string("backend (") + backend_kind_name(kind) + ") reported an error: " + msg,
                   "server_error", "", "backend_error");
  }
  Record r;
  switch (kind) {
    case BackendKind::LlamaCpp: {
      const Value* c = at(v, "content");
      if (!c || !c->is_str()) invalid(kind, "no \"content\" string");
      r.text = c->str();
      const Value* stop = at(v, "stop");
      r.done = stop && stop->is_bool() && stop->as_bool();
      // Every record counts (so far), not only the last: a generation that fails after its last
      // partial record (after_generation) keeps the count that record gave.
      r.prompt_tokens = int_or(at(v, "tokens_evaluated"), -1);
      r.completion_tokens = int_or(at(v, "tokens_predicted"), -1);
      if (r.done) {
        // llama-server names why it stopped in stop_type ("eos", "word", "limit": n_predict or the
        // context's end; "none" when it did not stop by itself); servers before it (b4xxx) had
        // the stopped_eos / stopped_word / stopped_limit booleans.
        const Value* type = at(v, "stop_type");
        const Value* lim = at(v, "stopped_limit");
        if (type && type->is_str() && (type->str() == "eos" || type->str() == "word"))
          r.finish_reason = "stop";
        else if (type && type->is_str() && type->str() == "limit")
          r.finish_reason = "length";
        else
          r.finish_reason = lim && lim->is_bool() && lim->as_bool() ? "length" : "stop";
        // What llama-server's own chat endpoint reports as prompt_tokens_details.cached_tokens.
        if (const Value* t = at(v, "timings"); t && t->is_dict()) r.cached_tokens = int_or(at(*t, "cache_n"), -1);
      }
      if (const Value* p = at(v, "completion_probabilities"); p && p->is_list()) r.logprobs = llamacpp_logprobs(*p);
      break;
    }
    case BackendKind::OpenAI: {
      if (const Value* u = at(v, "usage"); u && u->is_dict()) {
        r.prompt_tokens = int_or(at(*u, "prompt_tokens"), -1);
        r.completion_tokens = int_or(at(*u, "completion_tokens"), -1);
        if (const Value* d = at(*u, "prompt_tokens_details"); d && d->is_dict()) r.cached_tokens = int_or(at(*d, "cached_tokens"), -1);
      }
      const Value* ch = at(v, "choices");
      if (!ch || !ch->is_list()) invalid(kind, "no \"choices\" array");
      if (ch->items().empty()) break;  // the usage-only chunk of a stream
      const Value& c0 = ch->items()[0];
      const Value* t = at(c0, "text");
      if (!t || !t->is_str()) invalid(kind, "choices[0] has no \"text\" string");
      r.text = t->str();
      if (const Value* lp = at(c0, "logprobs"); lp && lp->is_dict()) r.logprobs = completions_logprobs(*lp);
      if (const Value* f = at(c0, "finish_reason"); f && f->is_str()) {
        r.finish_reason = f->str() == "length" ? "length" : "stop";
        r.done = true;
      }
      break;
    }
    case BackendKind::OllamaGenerate:
    case BackendKind::OllamaChat: {
      const Value* t = nullptr;
      if (kind == BackendKind::OllamaGenerate) t = at(v, "response");
      else if (const Value* m = at(v, "message")) t = at(*m, "content");
      if (t && t->is_str()) r.text = t->str();
      else if (t || !at(v, "done")) invalid(kind, kind == BackendKind::OllamaGenerate ? "no \"response\" string" : "no \"message.content\" string");
      const Value* done = at(v, "done");
      r.done = done && done->is_bool() && done->as_bool();
      if (r.done) {
        const Value* why = at(v, "done_reason");
        r.finish_reason = why && why->is_str() && why->str() == "length" ? "length" : "stop";
        r.prompt_tokens = int_or(at(v, "prompt_eval_count"), -1);
        r.completion_tokens = int_or(at(v, "eval_count"), -1);
      }
      break;
    }
  }
  return r;
}

}  // namespace toolchat::gateway
