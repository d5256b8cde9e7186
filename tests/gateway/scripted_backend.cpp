// A scripted model server for the gateway's tests and benchmark: speaks llama.cpp /completion,
// OpenAI /v1/completions, Ollama /api/generate and /api/chat (streaming and not) and replays model
// outputs from a scripts file instead of running a model.
//
//   scripted_backend --scripts FILE [--port N]    (port 0: any; "listening on PORT" on stderr)
//
// The script is chosen by the last "SCRIPT:<name>" in the prompt (or in the chat messages); without
// one, "default". A script: {"text": model output, "chunk": bytes per streamed piece (default 4),
//   "delay_ms": pause between pieces, "sleep_ms": pause before answering, "die_after": drop the connection after this many text bytes,
//   "hang_after": stop after this many bytes and wait (pinging) until the client goes away,
//   "status": HTTP status to fail with, "body": a raw body to send instead (garbage),
//   "finish": "stop"|"length", "when": text, "then": output used instead when the prompt holds `when`,
//   "retry_after": Retry-After header sent with "status";
//   "legacy_stop": true to answer llama.cpp's /completion with the stopped_* booleans of servers
//   before stop_type (current llama-server: stop_type "eos"/"limit" and truncated)}.
// GET /_last returns the last request body; GET /_last_auth its Authorization header; GET /_stats
// {"requests", "cancelled"}; GET /health {"status": "ok"}. With --tls-cert FILE --tls-key FILE it
// serves https; with --require-key KEY every route but /_* answers 401 without "Bearer KEY".
#include <httplib.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gateway/http_server.hpp"
#include "value/json.hpp"

using namespace toolchat;

namespace {

Value g_scripts;
std::string g_scripts_dir;  // "body_file" paths are relative to the scripts file
std::mutex g_mu;
std::string g_last, g_last_auth;
std::atomic<uint64_t> g_requests{0}, g_cancelled{0};

const Value* get(const Value& d, std::string_view k) { return d.is_dict() ? d.dict_obj().find(k) : nullptr; }
std::string str_or(const Value& d, std::string_view k, std::string dflt) {
  const Value* v = get(d, k);
  return v && v->is_str() ? std::string(v->str()) : dflt;
}
int64_t int_or(const Value& d, std::string_view k, int64_t dflt) {
  const Value* v = get(d, k);
  return v && v->is_int() ? v->as_int() : dflt;
}
std::string jstr(std::string_view s) {
  std::string o;
  json::dump_string(o, s, false);
  return o;
}

enum class Kind { LlamaCpp, OpenAI, OllamaGenerate, OllamaChat };

struct Plan {
  std::string text, finish = "stop", body, retry_after;
  bool legacy_stop = false;
  size_t chunk = 4;
  int64_t delay_ms = 0, sleep_ms = 0, die_after = -1, hang_after = -1, status = 200, prompt_tokens = 0;
};

Plan plan_for(const std::string& prompt) {
  std::string name = "default";
  size_t at = prompt.rfind("SCRIPT:");
  if (at != std::string::npos) {
    size_t b = at + 7, e = b;
    while (e < prompt.size() && (std::isalnum(static_cast<unsigned char>(prompt[e])) || prompt[e] == '_' || prompt[e] == '-')) ++e;
    name = prompt.substr(b, e - b);
  }
  Plan p;
  p.prompt_tokens = static_cast<int64_t>(prompt.size() / 4);
  const Value* s = get(g_scripts, name);
  if (!s) {
    p.text = "no script named " + name;
    return p;
  }
  p.text = str_or(*s, "text", "");
  std::string when = str_or(*s, "when", "");
  if (!when.empty() && prompt.find(when) != std::string::npos) p.text = str_or(*s, "then", p.text);
  p.finish = str_or(*s, "finish", "stop");
  p.body = str_or(*s, "body", "");
  if (std::string file = str_or(*s, "body_file", ""); !file.empty()) {  // a body recorded from a real server
    std::ifstream in(g_scripts_dir + file, std::ios::binary);
    p.body.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (!in && p.body.empty()) p.body = "scripted_backend: cannot read " + g_scripts_dir + file;
  }
  p.chunk = static_cast<size_t>(std::max<int64_t>(1, int_or(*s, "chunk", 4)));
  p.delay_ms = int_or(*s, "delay_ms", 0);
  p.sleep_ms = std::min<int64_t>(int_or(*s, "sleep_ms", 0), 30000);
  p.die_after = int_or(*s, "die_after", -1);
  p.hang_after = int_or(*s, "hang_after", -1);
  p.status = int_or(*s, "status", 200);
  p.retry_after = str_or(*s, "retry_after", "");
  const Value* legacy = get(*s, "legacy_stop");
  p.legacy_stop = legacy && legacy->is_bool() && legacy->as_bool();
  return p;
}

// Pieces of `text` of about `n` bytes, never cutting a UTF-8 sequence.
std::vector<std::string> pieces(const std::string& text, size_t n) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t e = std::min(text.size(), i + n);
    while (e < text.size() && (static_cast<unsigned char>(text[e]) & 0xC0) == 0x80) ++e;
    out.push_back(text.substr(i, e - i));
    i = e;
  }
  return out;
}

std::string record(Kind k, const std::string& piece, bool done, const Plan& p, size_t npieces) {
  std::string usage_p = std::to_string(p.prompt_tokens), usage_c = std::to_string(npieces);
  switch (k) {
    case Kind::LlamaCpp:
    {
      std::string why = !done ? ""
                        : p.legacy_stop ? ",\"stopped_eos\":" + std::string(p.finish == "length" ? "false" : "true") +
                                              ",\"stopped_limit\":" + std::string(p.finish == "length" ? "true" : "false")
                                        : ",\"stop_type\":" + std::string(p.finish == "length" ? "\"limit\"" : "\"eos\"") +
                                              ",\"truncated\":false";
      return "{\"content\":" + jstr(piece) + ",\"stop\":" + (done ? "true" : "false") + why +
             (done ? ",\"tokens_evaluated\":" + usage_p + ",\"tokens_predicted\":" + usage_c : "") + "}";
    }
    case Kind::OpenAI:
      return "{\"id\":\"cmpl-scripted\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":" + jstr(piece) +
             ",\"finish_reason\":" + (done ? jstr(p.finish) : "null") + "}]" +
             (done ? ",\"usage\":{\"prompt_tokens\":" + usage_p + ",\"completion_tokens\":" + usage_c + "}" : "") + "}";
    case Kind::OllamaGenerate:
    case Kind::OllamaChat: {
      std::string o = "{\"model\":\"scripted\",";
      o += k == Kind::OllamaGenerate ? "\"response\":" + jstr(piece) : "\"message\":{\"role\":\"assistant\",\"content\":" + jstr(piece) + "}";
      o += std::string(",\"done\":") + (done ? "true" : "false");
      if (done) o += ",\"done_reason\":" + jstr(p.finish) + ",\"prompt_eval_count\":" + usage_p + ",\"eval_count\":" + usage_c;
      return o + "}";
    }
  }
  return "{}";
}

std::string frame_ping(Kind k) { return k == Kind::LlamaCpp || k == Kind::OpenAI ? ": ping\n\n" : "\n"; }

void handle(Kind kind, const httplib::Request& req, httplib::Response& res) {
  ++g_requests;
  {
    std::lock_guard<std::mutex> g(g_mu);
    g_last = req.body;
    g_last_auth = req.get_header_value("Authorization");
  }
  Value body;
  try {
    body = json::parse(req.body);
  } catch (const Error& e) {
    res.status = 400;
    res.set_content("{\"error\":" + jstr(e.message()) + "}", "application/json");
    return;
  }
  std::string prompt = str_or(body, "prompt", "");
  if (kind == Kind::OllamaChat)
    if (const Value* ms = get(body, "messages"); ms && ms->is_list())
      for (const Value& m : ms->items()) prompt += str_or(m, "content", "") + "\n";
  Plan p = plan_for(prompt);
  if (p.sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(p.sleep_ms));
  if (p.status != 200) {
    res.status = static_cast<int>(p.status);
    if (!p.retry_after.empty()) res.set_header("Retry-After", p.retry_after);
    res.set_content("{\"error\":\"scripted failure\"}", "application/json");
    return;
  }
  const Value* sv = get(body, "stream");
  bool stream = kind == Kind::OllamaGenerate || kind == Kind::OllamaChat ? !(sv && sv->is_bool() && !sv->as_bool())
                                                                        : sv && sv->is_bool() && sv->as_bool();
  bool sse = kind == Kind::LlamaCpp || kind == Kind::OpenAI;
  if (!p.body.empty()) {
    res.set_content(p.body, stream && sse ? "text/event-stream" : "application/json");
    return;
  }
  auto parts = pieces(p.text, p.chunk);
  if (!stream) {
    res.set_content(record(kind, p.text, true, p, parts.size()), "application/json");
    return;
  }
  auto frame = [sse](const std::string& rec) { return sse ? "data: " + rec + "\n\n" : rec + "\n"; };
  res.set_chunked_content_provider(sse ? "text/event-stream" : "application/x-ndjson",
                                   [kind, p, parts, frame](size_t, httplib::DataSink& sink) {
    auto write = [&](const std::string& s) {
      if (sink.write(s.data(), s.size())) return true;
      ++g_cancelled;
      return false;
    };
    size_t sent = 0;
    for (const auto& piece : parts) {
      if (p.die_after >= 0 && sent >= static_cast<size_t>(p.die_after)) return false;  // drop the connection
      if (p.hang_after >= 0 && sent >= static_cast<size_t>(p.hang_after)) {
        for (int i = 0; i < 600; ++i) {  // at most 30 s
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
          if (!write(frame_ping(kind))) return false;
        }
        return false;
      }
      if (!write(frame(record(kind, piece, false, p, parts.size())))) return false;
      sent += piece.size();
      if (p.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(p.delay_ms));
    }
    if (!write(frame(record(kind, "", true, p, parts.size())))) return false;
    if (kind == Kind::OpenAI && !write("data: [DONE]\n\n")) return false;
    sink.done();
    return true;
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::string scripts, host = "127.0.0.1", tls_cert, tls_key, require_key;
  int port = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--scripts") scripts = argv[i + 1];
    else if (a == "--port") port = std::atoi(argv[i + 1]);
    else if (a == "--tls-cert") tls_cert = argv[i + 1];
    else if (a == "--tls-key") tls_key = argv[i + 1];
    else if (a == "--require-key") require_key = argv[i + 1];
    else {
      std::fprintf(stderr, "scripted_backend: unknown option %s\n", a.c_str());
      return 2;
    }
  }
  try {
    g_scripts = scripts.empty() ? Value::dict() : json::parse_file(scripts);
    if (size_t slash = scripts.rfind('/'); slash != std::string::npos) g_scripts_dir = scripts.substr(0, slash + 1);
  } catch (const Error& e) {
    std::fprintf(stderr, "scripted_backend: %s\n", e.message().c_str());
    return 2;
  }
  if (!get(g_scripts, "default")) g_scripts.dict_obj().set(Value::string("default"), json::parse("{\"text\": \"Hello! How can I help?\"}"));
  signal(SIGPIPE, SIG_IGN);
  std::unique_ptr<httplib::Server> server;
  if (!tls_cert.empty()) server = std::make_unique<httplib::SSLServer>(tls_cert.c_str(), tls_key.c_str());
  else server = std::make_unique<toolchat::gateway::HttpServer>();
  httplib::Server& svr = *server;
  svr.new_task_queue = [] { return new httplib::ThreadPool(320); };
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(100000);
  if (!require_key.empty())
    svr.set_pre_routing_handler([require_key](const httplib::Request& q, httplib::Response& r) {
      if (q.path.rfind("/_", 0) == 0 || q.get_header_value("Authorization") == "Bearer " + require_key)
        return httplib::Server::HandlerResponse::Unhandled;
      r.status = 401;
      r.set_content("{\"error\":\"Invalid API Key\"}", "application/json");
      return httplib::Server::HandlerResponse::Handled;
    });
  svr.Post("/completion", [](const httplib::Request& q, httplib::Response& r) { handle(Kind::LlamaCpp, q, r); });
  svr.Post("/v1/completions", [](const httplib::Request& q, httplib::Response& r) { handle(Kind::OpenAI, q, r); });
  svr.Post("/api/generate", [](const httplib::Request& q, httplib::Response& r) { handle(Kind::OllamaGenerate, q, r); });
  svr.Post("/api/chat", [](const httplib::Request& q, httplib::Response& r) { handle(Kind::OllamaChat, q, r); });
  svr.Get("/_last", [](const httplib::Request&, httplib::Response& r) {
    std::lock_guard<std::mutex> g(g_mu);
    r.set_content(g_last, "application/json");
  });
  svr.Get("/_last_auth", [](const httplib::Request&, httplib::Response& r) {
    std::lock_guard<std::mutex> g(g_mu);
    r.set_content(g_last_auth, "text/plain");
  });
  svr.Get("/health", [](const httplib::Request&, httplib::Response& r) { r.set_content("{\"status\":\"ok\"}", "application/json"); });
  svr.Get("/_stats", [](const httplib::Request&, httplib::Response& r) {
    r.set_content("{\"requests\":" + std::to_string(g_requests.load()) + ",\"cancelled\":" + std::to_string(g_cancelled.load()) + "}",
                  "application/json");
  });
  if (port == 0) port = svr.bind_to_any_port(host);
  else if (!svr.bind_to_port(host, port)) port = -1;
  if (port <= 0) {
    std::fprintf(stderr, "scripted_backend: cannot listen\n");
    return 1;
  }
  if (tls_cert.empty()) static_cast<toolchat::gateway::HttpServer&>(svr).widen_backlog(1024);
  std::fprintf(stderr, "scripted_backend: listening on %d\n", port);
  std::fflush(stderr);
  svr.listen_after_bind();
  return 0;
}
