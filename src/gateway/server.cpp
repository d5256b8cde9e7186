#include "gateway/server.hpp"

#include <arpa/inet.h>
#include <httplib.h>
#include <netdb.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

#include "gateway/access_log.hpp"
#include "gateway/api_error.hpp"
#include "gateway/client_watch.hpp"
#include "gateway/gateway.hpp"
#include "gateway/http_server.hpp"
#include "gateway/stream_job.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

// Routes and their one method each; a known path asked with another method is 405.
constexpr const char* kLiveness = "/live";
bool post_route(const std::string& p) { return p == "/v1/chat/completions" || p == "/chat/completions"; }
bool get_route(const std::string& p) {
  return p == "/v1/models" || p.rfind("/v1/models/", 0) == 0 || p == "/health" || p == kLiveness || p == "/metrics";
}

// What the access log line of the request being handled on this worker thread will say. A request
// is handled on one thread from routing to its last byte (streamed bodies included), so the
// handlers fill this and the logger (called after the response is written) prints it.
thread_local AccessRecord t_log;
thread_local Clock::time_point t_start;

void send_error(httplib::Response& res, Metrics& m, const ApiError& e) {
  m.error(e.kind(), e.status);
  res.status = e.status;
  if (!e.retry_after.empty()) res.set_header("Retry-After", e.retry_after);
  res.set_content(e.body(), "application/json");
  t_log.error = e.kind();
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Equal-length comparison that reads every byte whatever differs, so a wrong key's timing says
// nothing about where it went wrong (the length is not secret: keys are compared as given).
bool same_key(const std::string& given, const std::string& key) {
  unsigned char diff = given.size() == key.size() ? 0 : 1;
  for (size_t i = 0; i < key.size(); ++i) diff |= static_cast<unsigned char>(key[i] ^ (i < given.size() ? given[i] : 0));
  return diff == 0;
}

std::vector<std::string> warning_names(const std::vector<dialects::Warning>& ws) {
  std::vector<std::string> out;
  for (const auto& w : ws) out.emplace_back(dialects::warning_kind_name(w.kind));
  return out;
}

// The served model's names: --model-name (or the path's last part) and the aliases.
bool serves(const Gateway& gw, const std::string& name) {
  if (name == gw.config().model_name) return true;
  for (const auto& a : gw.config().model_aliases)
    if (name == a) return true;
  return false;
}

void chat_completions(Gateway& gw, const httplib::Request& hreq, httplib::Response& res) {
  Metrics& m = gw.metrics();
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::microseconds(static_cast<int64_t>(gw.config().limits.request_timeout_s * 1e6));
  std::shared_ptr<ChatRequest> req;
  try {
    req = std::make_shared<ChatRequest>(parse_chat_request(hreq.body, gw.config().limits));
    (req->stream ? m.requests_chat_stream : m.requests_chat)++;
    // A missing model means the served one; any other name is not served here (OpenAI's 404).
    if (!req->model.empty() && !serves(gw, req->model))
      throw ApiError(404, "the model '" + req->model + "' does not exist here; GET /v1/models lists the served one",
                     "invalid_request_error", "model", "model_not_found");
    ResponseMeta meta = new_response_meta(req->model.empty() ? gw.config().model_name : req->model);
    req->log_id = meta.id;
    t_log.id = meta.id;
    t_log.model = meta.model;
    t_log.stream = req->stream;
    res.set_header("X-Request-Id", meta.id);
    if (!req->stream) {
      ClientWatch watch(hreq);
      Outcome o = gw.run_whole(*req, deadline, [&] { return watch.alive(); });
      dialects::ParsedMessage pm = dialects::collect(o.events);
      res.set_content(completion_json(meta, pm, o.finish_reason, o.usage, o.logprobs ? &*o.logprobs : nullptr), "application/json");
      m.latency_chat.observe(since(t0));
      t_log.prompt_tokens = o.usage.prompt_tokens;
      t_log.completion_tokens = o.usage.completion_tokens;
      t_log.finish_reason = o.finish_reason;
      t_log.warnings = warning_names(pm.warnings);
      return;
    }
    // Streaming. Answers that must be checked first (tool_choice, response_format) are produced
    // whole; the others stream from a StreamJob as the backend generates. Either way a failure
    // before the first chunk still gets its HTTP status.
    std::shared_ptr<Outcome> whole;
    std::shared_ptr<StreamJob> job;
    auto summary = std::make_shared<AccessRecord>();  // filled by the job's thread, read after it ends
    if (gw.needs_whole_answer(*req)) {
      ClientWatch watch(hreq);
      whole = std::make_shared<Outcome>(gw.run_whole(*req, deadline, [&] { return watch.alive(); }));
    } else {
      job = std::make_shared<StreamJob>([&gw, req, meta, t0, deadline, summary](const std::function<bool(std::string_view)>& write) {
        Metrics& m = gw.metrics();
        bool first = true;
        ChunkWriter w(meta, [&](std::string_view s) {
          if (first) { m.first_chunk_latency.observe(since(t0)); first = false; }
          return write(s);
        });
        try {
          Outcome o = gw.run_streaming(*req, w, deadline);
          summary->prompt_tokens = o.usage.prompt_tokens;
          summary->completion_tokens = o.usage.completion_tokens;
          summary->finish_reason = o.finish_reason;
        } catch (const ApiError& e) {
          if (!w.started()) throw;  // the handler answers with the status
          m.error(e.kind(), e.status);
          summary->error = e.kind();
          w.fail(e);
        }
        summary->warnings = warning_names(w.warnings());
        if (w.client_gone()) {
          m.error("client_disconnected", 499);
          summary->error = "client_disconnected";
        }
      });
      if (auto early = job->wait_first()) throw *early;
    }
    ++m.active_streams;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [req = whole ? req : nullptr, whole, job, meta, summary](size_t, httplib::DataSink& sink) {
          auto write = [&](std::string_view s) { return sink.write(s.data(), s.size()); };
          if (whole) {
            ChunkWriter w(meta, write);
            for (auto& e : whole->events) w.on(dialects::Event(e));
            if (whole->logprobs)
              for (auto& e : *whole->logprobs) w.add_logprob(std::move(e));
            w.finish(whole->finish_reason, req->include_usage ? &whole->usage : nullptr);
            t_log.prompt_tokens = whole->usage.prompt_tokens;
            t_log.completion_tokens = whole->usage.completion_tokens;
            t_log.finish_reason = whole->finish_reason;
            t_log.warnings = warning_names(w.warnings());
          } else {
            job->drain([&](const std::string& e) { return write(e); });
            job->wait_done();  // what the job wrote to summary is visible from here on
            t_log.prompt_tokens = summary->prompt_tokens;
            t_log.completion_tokens = summary->completion_tokens;
            t_log.finish_reason = summary->finish_reason;
            t_log.warnings = summary->warnings;
            t_log.error = summary->error;
          }
          sink.done();
          return true;
        },
        [&gw, t0](bool) {
          --gw.metrics().active_streams;
          gw.metrics().latency_chat_stream.observe(since(t0));
        });
  } catch (const ApiError& e) {
    send_error(res, m, e);
  }
}

std::string model_json(const std::string& id, int64_t created) {
  std::string o = "{\"id\":";
  json::dump_string(o, id, false);
  return o + ",\"object\":\"model\",\"created\":" + std::to_string(created) + ",\"owned_by\":\"toolchat\"}";
}

std::string models_json(const Gateway& gw, int64_t created) {
  std::string o = "{\"object\":\"list\",\"data\":[" + model_json(gw.config().model_name, created);
  for (const auto& a : gw.config().model_aliases) o += "," + model_json(a, created);
  return o + "]}";
}

std::string health_json(const Gateway& gw, const std::string& problem) {
  std::string o = std::string("{\"status\":") + (problem.empty() ? "\"ok\"" : "\"unavailable\"");
  if (!problem.empty()) {
    o += ",\"reason\":";
    json::dump_string(o, problem, true);
  }
  o += ",\"model\":";
  json::dump_string(o, gw.config().model_name, false);
  o += ",\"dialect\":";
  json::dump_string(o, gw.prompts().dialect().name, false);
  o += ",\"backend\":";
  json::dump_string(o, backend_kind_name(gw.config().backend_kind), false);
  o += "}";
  return o;
}

// Why host:port cannot be bound, in words ("port 8080 is in use"); "" when it could be.
std::string bind_problem(const std::string& host, int port) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &res); rc != 0)
    return "cannot resolve host '" + host + "': " + gai_strerror(rc);
  std::string why;
  int fd = socket(res->ai_family, res->ai_socktype, res->ai_protocol);
  if (fd < 0) why = std::string("socket: ") + std::strerror(errno);
  else {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(fd, res->ai_addr, res->ai_addrlen) != 0)
      why = errno == EADDRINUSE ? "port " + std::to_string(port) + " is in use"
                                : "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
    close(fd);
  }
  freeaddrinfo(res);
  return why;
}

// Threads, timeouts and limits of the HTTP transport.
void configure_transport(HttpServer& svr, const Config& cfg) {
  int threads = cfg.threads > 0 ? cfg.threads : 8;
  svr.new_task_queue = [threads] {
    // The pool's threads inherit the creating thread's mask: SIGPIPE blocked in them only (cpp-httplib
    // as Debian builds it sends without MSG_NOSIGNAL), the caller's own mask restored at once.
    sigset_t pipe, old;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, &old);
    auto* pool = new httplib::ThreadPool(static_cast<size_t>(threads));
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return pool;
  };
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(100000);
  svr.set_keep_alive_timeout(30);
  auto secs = [](double s) { return std::chrono::microseconds(static_cast<int64_t>(s * 1e6)); };
  // A client silent this long while sending its request is disconnected (README: --read-timeout).
  svr.set_read_timeout(secs(cfg.limits.client_read_timeout_s));
  svr.set_write_timeout(30);
  svr.set_payload_max_length(cfg.limits.max_body_bytes);
  if (!cfg.cors_origin.empty())
    svr.set_default_headers({{"Access-Control-Allow-Origin", cfg.cors_origin}, {"Vary", "Origin"}});
}

// Before any route: CORS preflight, the API key, and the method a route takes.
void install_gate(HttpServer& svr, Gateway& gw, const Config& cfg) {
  svr.set_pre_routing_handler([&](const httplib::Request& q, httplib::Response& r) {
    t_start = Clock::now();
    t_log = AccessRecord{};
    t_log.method = q.method;
    t_log.path = q.path;
    if (q.method == "OPTIONS" && !cfg.cors_origin.empty()) {  // CORS preflight: no key needed
      r.status = 204;
      r.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      r.set_header("Access-Control-Allow-Headers", "Authorization, Content-Type");
      r.set_header("Access-Control-Max-Age", "86400");
      return httplib::Server::HandlerResponse::Handled;
    }
    if (!cfg.api_key.empty() && q.path != kLiveness && q.path != "/health") {
      std::string auth = q.get_header_value("Authorization");
      bool ok = auth.rfind("Bearer ", 0) == 0 && same_key(auth.substr(7), cfg.api_key);
      if (!ok) {
        r.set_header("WWW-Authenticate", "Bearer");
        send_error(r, gw.metrics(),
                   ApiError(401, auth.empty() ? "an API key is required: send the header 'Authorization: Bearer KEY'"
                                              : "incorrect API key provided", "invalid_request_error", "", "invalid_api_key"));
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    bool is_post = post_route(q.path), is_get = get_route(q.path);
    if ((is_post && q.method != "POST") || (is_get && q.method != "GET" && q.method != "HEAD")) {
      r.set_header("Allow", is_post ? "POST" : "GET");
      send_error(r, gw.metrics(), ApiError(405, q.method + " " + q.path + " is not allowed; use " + (is_post ? "POST" : "GET"),
                                           "invalid_request_error", "", "method_not_allowed"));
      return httplib::Server::HandlerResponse::Handled;
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
}

// One access-log line per request (--log-format), when there is a log.
void install_access_log(HttpServer& svr, const Config& cfg) {
  if (cfg.log && cfg.access_log)
    svr.set_logger([&](const httplib::Request& q, const httplib::Response& r) {
      AccessRecord rec = std::move(t_log);
      t_log = AccessRecord{};
      if (rec.method.empty()) {  // refused before routing (bad request line, body too large)
        rec.method = q.method;
        rec.path = q.path;
      } else {
        rec.seconds = since(t_start);
      }
      rec.status = r.status;
      if (rec.id.empty()) rec.id = r.get_header_value("X-Request-Id");
      int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
      cfg.log(access_line(rec, cfg.log_format, now));
    });

}

// The routes (`started`, the models' `created`, is copied: the handlers outlive this call).
void install_routes(HttpServer& svr, Gateway& gw, int64_t started) {
  svr.Post("/v1/chat/completions", [&](const httplib::Request& q, httplib::Response& r) { chat_completions(gw, q, r); });
  svr.Post("/chat/completions", [&](const httplib::Request& q, httplib::Response& r) { chat_completions(gw, q, r); });
  svr.Get("/v1/models", [&gw, started](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content(models_json(gw, started), "application/json");
  });
  svr.Get(R"(/v1/models/(.+))", [&gw, started](const httplib::Request& q, httplib::Response& r) {
    ++gw.metrics().requests_other;
    std::string id = q.matches[1];
    if (!serves(gw, id)) {
      send_error(r, gw.metrics(), ApiError(404, "the model '" + id + "' does not exist here", "invalid_request_error",
                                           "model", "model_not_found"));
      return;
    }
    r.set_content(model_json(id, started), "application/json");
  });
  // /health asks the backend (503 with the reason when it cannot serve); /live only says that this
  // process answers, for supervisors that must not restart the gateway because a backend is down.
  svr.Get("/health", [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    std::string problem = gw.backend_problem();
    if (!problem.empty()) r.status = 503;
    r.set_content(health_json(gw, problem), "application/json");
  });
  svr.Get(kLiveness, [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content("{\"status\":\"alive\"}", "application/json");
  });
  svr.Get("/metrics", [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content(gw.metrics().text(), "text/plain; version=0.0.4");
  });
}

// The OpenAI error for a request cpp-httplib refused before or instead of a handler (its status
// already in `r`). `routed`: the pre-routing handler saw the request (its headers were read).
ApiError transport_error(const httplib::Request& q, httplib::Response& r, const Config& cfg, bool routed) {
    ApiError e(r.status, "", "invalid_request_error");
    if (r.status == 404) {
      e.message = "no route for " + q.method + " " + q.path;
      e.code = "not_found";
    } else if (r.status == 400) {
      // cpp-httplib could not read the request. Headers unread (routing never started: cpp-httplib
      // fails them only when a read times out, the client left, or a line is over 8 KiB) or less
      // body than announced: the client was silent for --read-timeout, a 408. Otherwise the body's
      // chunked encoding was bad.
      size_t announced = 0;
      try {
        if (q.has_header("Content-Length")) announced = std::stoull(q.get_header_value("Content-Length"));
      } catch (const std::exception&) {
      }
      if (!routed || q.body.size() < announced) {
        e.status = r.status = 408;
        char secs[32];
        std::snprintf(secs, sizeof secs, "%g", cfg.limits.client_read_timeout_s);
        e.message = std::string("the request did not arrive within the read timeout (") + secs + " s, --read-timeout)";
        e.code = "request_timeout";
      } else {
        e.message = "the request body could not be read (malformed chunked encoding)";
        e.code = "malformed_request";
      }
      r.set_header("Connection", "close");
    } else if (r.status == 413) {
      e.message = "request body over the limit of " + std::to_string(cfg.limits.max_body_bytes) + " bytes";
      e.code = "request_too_large";
    } else {
      e.message = "HTTP " + std::to_string(r.status);
      e.code = "http_" + std::to_string(r.status);
    }
  return e;
}

void install_error_handlers(HttpServer& svr, Gateway& gw, const Config& cfg) {
  svr.set_error_handler([&](const httplib::Request& q, httplib::Response& r) {
    if (!r.body.empty()) return;  // our own error object is already there
    ApiError e = transport_error(q, r, cfg, !t_log.method.empty());
    send_error(r, gw.metrics(), e);
  });
  svr.set_exception_handler([&](const httplib::Request&, httplib::Response& r, std::exception_ptr ep) {
    std::string what = "unknown";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& ex) {
      what = ex.what();
    } catch (...) {
    }
    send_error(r, gw.metrics(), ApiError(500, "internal error: " + what, "server_error", "", "internal_error"));
  });

}

}  // namespace

// The stopper runs at most once, under the lock, and never after detach(): the listening socket it
// shuts down is still the server's.
void ServeStop::request() {
  std::lock_guard<std::mutex> lk(mu_);
  requested_ = true;
  if (stopper_) stopper_();
  stopper_ = nullptr;
}

bool ServeStop::requested() const {
  std::lock_guard<std::mutex> lk(mu_);
  return requested_;
}

void ServeStop::attach(std::function<void()> stopper) {
  std::lock_guard<std::mutex> lk(mu_);
  if (requested_) stopper();
  else stopper_ = std::move(stopper);
}

void ServeStop::detach() {
  std::lock_guard<std::mutex> lk(mu_);
  stopper_ = nullptr;
}

int serve(const Config& cfg, const std::function<void(int, const std::string&)>& on_listening, ServeStop* stop) {
  Gateway gw(cfg);
  const int64_t started =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  HttpServer svr;
  configure_transport(svr, cfg);
  install_gate(svr, gw, cfg);
  install_access_log(svr, cfg);
  install_routes(svr, gw, started);
  install_error_handlers(svr, gw, cfg);
  int port = cfg.port;
  if (port == 0) port = svr.bind_to_any_port(cfg.host);
  else if (!svr.bind_to_port(cfg.host, port)) port = -1;
  if (port <= 0) {
    std::string why = cfg.port ? bind_problem(cfg.host, cfg.port) : "";
    throw Error(ErrorKind::OSError, why.empty() ? "cannot listen on " + cfg.host + ":" + std::to_string(cfg.port) : why);
  }
  svr.widen_backlog(1024);

  std::string summary = "dialect " + std::string(gw.prompts().dialect().name) + ", backend " +
                        backend_kind_name(cfg.backend_kind) + " at " + cfg.backend_url;
  on_listening(port, summary);
  // Shutting the listening socket down also ends a listen loop that has not started yet.
  if (stop) stop->attach([&svr] {
    svr.shutdown_listener();
    svr.stop();
  });
  svr.listen_after_bind();
  if (stop) stop->detach();
  return 0;
}

}  // namespace toolchat::gateway
