#include "gateway/server.hpp"

#include <httplib.h>
#include <signal.h>

#include <thread>

#include "gateway/api_error.hpp"
#include "gateway/client_watch.hpp"
#include "gateway/completion.hpp"
#include "gateway/http_server.hpp"
#include "gateway/stream_job.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

void send_error(httplib::Response& res, Metrics& m, const ApiError& e) {
  m.error(e.kind(), e.status);
  res.status = e.status;
  res.set_content(e.body(), "application/json");
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void chat_completions(Gateway& gw, const httplib::Request& hreq, httplib::Response& res) {
  Metrics& m = gw.metrics();
  auto t0 = Clock::now();
  auto deadline = t0 + std::chrono::microseconds(static_cast<int64_t>(gw.config().limits.request_timeout_s * 1e6));
  std::shared_ptr<ChatRequest> req;
  try {
    req = std::make_shared<ChatRequest>(parse_chat_request(hreq.body, gw.config().limits));
    (req->stream ? m.requests_chat_stream : m.requests_chat)++;
    ResponseMeta meta = new_response_meta(req->model.empty() ? gw.config().model_name : req->model);
    if (!req->stream) {
      ClientWatch watch(hreq);
      Outcome o = gw.run_whole(*req, deadline, [&] { return watch.alive(); });
      res.set_content(completion_json(meta, dialects::collect(o.events), o.finish_reason, o.usage), "application/json");
      m.latency_chat.observe(since(t0));
      return;
    }
    // Streaming. Answers that must be checked first (tool_choice) are produced whole; the others
    // stream from a StreamJob as the backend generates. Either way a failure before the first chunk
    // still gets its HTTP status.
    std::shared_ptr<Outcome> whole;
    std::shared_ptr<StreamJob> job;
    if (gw.needs_whole_answer(*req)) {
      ClientWatch watch(hreq);
      whole = std::make_shared<Outcome>(gw.run_whole(*req, deadline, [&] { return watch.alive(); }));
    } else {
      job = std::make_shared<StreamJob>([&gw, req, meta, t0, deadline](const std::function<bool(std::string_view)>& write) {
        Metrics& m = gw.metrics();
        bool first = true;
        ChunkWriter w(meta, [&](std::string_view s) {
          if (first) { m.first_chunk_latency.observe(since(t0)); first = false; }
          return write(s);
        });
        try {
          gw.run_streaming(*req, w, deadline);
        } catch (const ApiError& e) {
          if (!w.started()) throw;  // the handler answers with the status
          m.error(e.kind(), e.status);
          w.fail(e);
        }
        if (w.client_gone()) m.error("client_disconnected", 499);
      });
      if (auto early = job->wait_first()) throw *early;
    }
    ++m.active_streams;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [req = whole ? req : nullptr, whole, job, meta](size_t, httplib::DataSink& sink) {
          auto write = [&](std::string_view s) { return sink.write(s.data(), s.size()); };
          if (whole) {
            ChunkWriter w(meta, write);
            for (auto& e : whole->events) w.on(dialects::Event(e));
            w.finish(whole->finish_reason, req->include_usage ? &whole->usage : nullptr);
          } else {
            job->drain([&](const std::string& e) { return write(e); });
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

std::string models_json(const Gateway& gw) {
  std::string o = "{\"object\":\"list\",\"data\":[{\"id\":";
  json::dump_string(o, gw.config().model_name, false);
  o += ",\"object\":\"model\",\"created\":0,\"owned_by\":\"toolchat\"}]}";
  return o;
}

std::string health_json(const Gateway& gw) {
  std::string o = "{\"status\":\"ok\",\"model\":";
  json::dump_string(o, gw.config().model_name, false);
  o += ",\"dialect\":";
  json::dump_string(o, gw.prompts().dialect().name, false);
  o += ",\"backend\":";
  json::dump_string(o, backend_kind_name(gw.config().backend_kind), false);
  o += "}";
  return o;
}

}  // namespace

int serve(const Config& cfg, const std::function<void(int, const std::string&)>& on_listening) {
  // SIGINT/SIGTERM are waited for by one thread (sigwait) rather than handled asynchronously; SIGPIPE
  // (a client gone mid-write) is ignored, the write fails instead.
  sigset_t sigs;
  sigemptyset(&sigs);
  sigaddset(&sigs, SIGINT);
  sigaddset(&sigs, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
  signal(SIGPIPE, SIG_IGN);

  Gateway gw(cfg);
  HttpServer svr;
  int threads = cfg.threads > 0 ? cfg.threads : 8;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  svr.set_tcp_nodelay(true);
  svr.set_keep_alive_max_count(100000);
  svr.set_keep_alive_timeout(30);
  svr.set_read_timeout(30);
  svr.set_write_timeout(30);
  svr.set_payload_max_length(cfg.limits.max_body_bytes);

  svr.Post("/v1/chat/completions", [&](const httplib::Request& q, httplib::Response& r) { chat_completions(gw, q, r); });
  svr.Post("/chat/completions", [&](const httplib::Request& q, httplib::Response& r) { chat_completions(gw, q, r); });
  svr.Get("/v1/models", [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content(models_json(gw), "application/json");
  });
  svr.Get("/health", [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content(health_json(gw), "application/json");
  });
  svr.Get("/metrics", [&](const httplib::Request&, httplib::Response& r) {
    ++gw.metrics().requests_other;
    r.set_content(gw.metrics().text(), "text/plain; version=0.0.4");
  });
  svr.set_error_handler([&](const httplib::Request& q, httplib::Response& r) {
    if (!r.body.empty()) return;  // our own error object is already there
    ApiError e(r.status, "", "invalid_request_error");
    if (r.status == 404) {
      e.message = "no route for " + q.method + " " + q.path;
      e.code = "not_found";
    } else if (r.status == 413) {
      e.message = "request body over the limit of " + std::to_string(cfg.limits.max_body_bytes) + " bytes";
      e.code = "request_too_large";
    } else {
      e.message = "HTTP " + std::to_string(r.status);
      e.code = "http_" + std::to_string(r.status);
    }
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

  int port = cfg.port;
  if (port == 0) port = svr.bind_to_any_port(cfg.host);
  else if (!svr.bind_to_port(cfg.host, port)) port = -1;
  if (port <= 0) throw Error(ErrorKind::RuntimeError, "cannot listen on " + cfg.host + ":" + std::to_string(cfg.port));
  svr.widen_backlog(1024);

  std::thread waiter([&] {
    int sig = 0;
    sigwait(&sigs, &sig);
    svr.stop();
  });
  std::string summary = "dialect " + std::string(gw.prompts().dialect().name) + ", backend " +
                        backend_kind_name(cfg.backend_kind) + " at " + cfg.backend_url;
  on_listening(port, summary);
  svr.listen_after_bind();
  // listen_after_bind returned: stopped by a signal, or failed; wake the waiter either way.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  return 0;
}

}  // namespace toolchat::gateway
