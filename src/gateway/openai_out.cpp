#include "gateway/openai_out.hpp"

#include <chrono>
#include <random>

#include "value/json.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::gateway {

namespace {

// UTF-8 as it is; a string that is not valid UTF-8 (lone surrogates a backend sent as "\udXXX"
// escapes, read as WTF-8) is ASCII-escaped instead, so that a response body is always valid UTF-8.
void jstr(std::string& out, std::string_view s) {
  json::dump_string(out, s, utf8::find_invalid(s, false) != std::string_view::npos);
}

std::string random_alnum(size_t n) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out;
  for (size_t i = 0; i < n; ++i) out += kAlnum[rng() % 62];
  return out;
}

// The documented extension field: [{"kind": "truncated_call", "detail": "..."}].
void warnings_json(std::string& out, const std::vector<dialects::Warning>& ws) {
  out += "[";
  for (size_t i = 0; i < ws.size(); ++i) {
    if (i) out += ",";
    out += "{\"kind\":";
    jstr(out, dialects::warning_kind_name(ws[i].kind));
    out += ",\"detail\":";
    jstr(out, ws[i].detail);
    out += "}";
  }
  out += "]";
}

void usage_json(std::string& out, const Usage& u) {
  out += "{\"prompt_tokens\":" + std::to_string(u.prompt_tokens) + ",\"completion_tokens\":" +
         std::to_string(u.completion_tokens) + ",\"total_tokens\":" + std::to_string(u.prompt_tokens + u.completion_tokens);
  if (u.cached_tokens >= 0) out += ",\"prompt_tokens_details\":{\"cached_tokens\":" + std::to_string(u.cached_tokens) + "}";
  out += "}";
}

// {"content": [...], "refusal": null}, the choice's logprobs object.
void logprobs_json(std::string& out, const std::vector<Value>& entries) {
  out += "{\"content\":[";
  json::DumpOptions d;
  d.ensure_ascii = true;  // token text may be a partial UTF-8 sequence
  d.separators = std::make_pair(",", ":");
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out += ",";
    out += json::dumps(entries[i], d);
  }
  out += "],\"refusal\":null}";
}

}  // namespace

ResponseMeta new_response_meta(const std::string& model) {
  ResponseMeta m;
  m.id = "chatcmpl-" + random_alnum(24);
  m.created = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  m.model = model;
  return m;
}

std::string completion_json(const ResponseMeta& meta, const dialects::ParsedMessage& msg,
                            const std::string& finish_reason, const Usage& usage, const std::vector<Value>* logprobs) {
  std::string o = "{\"id\":";
  jstr(o, meta.id);
  o += ",\"object\":\"chat.completion\",\"created\":" + std::to_string(meta.created) + ",\"model\":";
  jstr(o, meta.model);
  o += ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":";
  if (msg.content.empty() && !msg.tool_calls.empty()) o += "null";
  else jstr(o, msg.content);
  if (!msg.reasoning_content.empty()) {
    o += ",\"reasoning_content\":";
    jstr(o, msg.reasoning_content);
  }
  if (!msg.tool_calls.empty()) {
    o += ",\"tool_calls\":[";
    for (size_t i = 0; i < msg.tool_calls.size(); ++i) {
      const auto& c = msg.tool_calls[i];
      if (i) o += ",";
      o += "{\"id\":";
      jstr(o, c.id);
      o += ",\"type\":\"function\",\"function\":{\"name\":";
      jstr(o, c.name);
      o += ",\"arguments\":";
      jstr(o, c.arguments.empty() ? std::string_view("{}") : std::string_view(c.arguments));
      o += "}}";
    }
    o += "]";
  }
  if (!msg.warnings.empty()) {
    o += ",\"toolchat_warnings\":";
    warnings_json(o, msg.warnings);
  }
  o += "},\"logprobs\":";
  if (logprobs) logprobs_json(o, *logprobs);
  else o += "null";
  o += ",\"finish_reason\":";
  jstr(o, finish_reason);
  o += "}],\"usage\":";
  usage_json(o, usage);
  o += "}";
  return o;
}

void ChunkWriter::send(std::string_view event) {
  if (gone_) return;
  if (!write_(event)) gone_ = true;
}

void ChunkWriter::send_delta(const std::string& delta, const char* finish, bool with_logprobs) {
  if (prefix_.empty()) {
    prefix_ = "data: {\"id\":";
    jstr(prefix_, meta_.id);
    prefix_ += ",\"object\":\"chat.completion.chunk\",\"created\":" + std::to_string(meta_.created) + ",\"model\":";
    jstr(prefix_, meta_.model);
    prefix_ += ",\"choices\":[{\"index\":0,\"delta\":";
  }
  std::string ev = prefix_ + delta + ",\"logprobs\":";
  if (with_logprobs && !logprobs_.empty()) {
    logprobs_json(ev, logprobs_);
    logprobs_.clear();
  } else {
    ev += "null";
  }
  ev += ",\"finish_reason\":";
  if (finish) jstr(ev, finish);
  else ev += "null";
  ev += "}]}\n\n";
  send(ev);
}

void ChunkWriter::role_once() {
  if (started_) return;
  started_ = true;
  send_delta("{\"role\":\"assistant\",\"content\":\"\"}", nullptr, /*with_logprobs=*/false);
}

void ChunkWriter::on(dialects::Event&& e) {
  role_once();
  std::string d;
  if (auto* c = std::get_if<dialects::ContentDelta>(&e)) {
    if (c->text.empty()) return;
    d = "{\"content\":";
    jstr(d, c->text);
    d += "}";
  } else if (auto* r = std::get_if<dialects::ReasoningDelta>(&e)) {
    if (r->text.empty()) return;
    d = "{\"reasoning_content\":";
    jstr(d, r->text);
    d += "}";
  } else if (auto* b = std::get_if<dialects::ToolCallBegin>(&e)) {
    d = "{\"tool_calls\":[{\"index\":" + std::to_string(b->index) + ",\"id\":";
    jstr(d, b->id);
    d += ",\"type\":\"function\",\"function\":{\"name\":";
    jstr(d, b->name);
    d += ",\"arguments\":\"\"}}]}";
  } else if (auto* a = std::get_if<dialects::ToolArgsDelta>(&e)) {
    if (a->fragment.empty()) return;
    d = "{\"tool_calls\":[{\"index\":" + std::to_string(a->index) + ",\"function\":{\"arguments\":";
    jstr(d, a->fragment);
    d += "}}]}";
  } else if (auto* w = std::get_if<dialects::Warning>(&e)) {
    warnings_.push_back(std::move(*w));  // sent with the finish chunk
    return;
  } else {
    return;  // ToolCallEnd: nothing on the wire
  }
  send_delta(d);
}

void ChunkWriter::finish(const std::string& finish_reason, const Usage* usage) {
  role_once();
  std::string last = "{}";
  if (!warnings_.empty()) {
    last = "{\"toolchat_warnings\":";
    warnings_json(last, warnings_);
    last += "}";
  }
  send_delta(last, finish_reason.c_str());
  if (usage) {
    std::string ev = "data: {\"id\":";
    jstr(ev, meta_.id);
    ev += ",\"object\":\"chat.completion.chunk\",\"created\":" + std::to_string(meta_.created) + ",\"model\":";
    jstr(ev, meta_.model);
    ev += ",\"choices\":[],\"usage\":";
    usage_json(ev, *usage);
    ev += "}\n\n";
    send(ev);
  }
  send("data: [DONE]\n\n");
}

void ChunkWriter::fail(const ApiError& e) {
  send("data: " + e.body() + "\n\n");
  send("data: [DONE]\n\n");
}

}  // namespace toolchat::gateway
