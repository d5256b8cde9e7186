// The HTTP side of the backends (cpp-httplib client): one keep-alive connection per worker thread,
// streamed bodies split into records, timeouts and cancellation mapped to ApiError.
#include "gateway/backend.hpp"

#include <httplib.h>

#include <atomic>
#include <cmath>

#include "gateway/api_error.hpp"
#include "gateway/backend_protocol.hpp"
#include "gateway/reachability.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

BackendKind backend_kind_from_name(const std::string& n) {
  if (n == "llamacpp" || n == "llama.cpp") return BackendKind::LlamaCpp;
  if (n == "openai") return BackendKind::OpenAI;
  if (n == "ollama") return BackendKind::OllamaGenerate;
  if (n == "ollama-chat") return BackendKind::OllamaChat;
  throw Error(ErrorKind::ConfigError, "unknown backend kind '" + n + "' (llamacpp, openai, ollama, ollama-chat)");
}

GrammarForm grammar_form_from_name(const std::string& n) {
  if (n == "auto") return GrammarForm::Auto;
  if (n == "none") return GrammarForm::None;
  if (n == "llamacpp" || n == "llama.cpp") return GrammarForm::LlamaCpp;
  if (n == "vllm") return GrammarForm::Vllm;
  if (n == "sglang") return GrammarForm::Sglang;
  throw Error(ErrorKind::ConfigError, "unknown backend grammar form '" + n + "' (auto, none, llamacpp, vllm, sglang)");
}

const char* backend_kind_name(BackendKind k) {
  switch (k) {
    case BackendKind::LlamaCpp: return "llamacpp";
    case BackendKind::OpenAI: return "openai";
    case BackendKind::OllamaGenerate: return "ollama";
    case BackendKind::OllamaChat: return "ollama-chat";
  }
  return "?";
}

bool LineSplitter::feed(std::string_view chunk, const std::function<bool(std::string_view)>& on_line) {
  size_t start = 0;
  while (start < chunk.size()) {
    size_t nl = chunk.find('\n', start);
    if (nl == std::string_view::npos) {
      buf_.append(chunk.substr(start));
      if (buf_.size() > max_line_) { overflowed_ = true; return false; }
      return true;
    }
    std::string_view piece = chunk.substr(start, nl - start);
    start = nl + 1;
    std::string_view line = piece;
    if (!buf_.empty()) {
      buf_.append(piece);
      line = buf_;
    }
    if (line.size() > max_line_) { overflowed_ = true; return false; }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    bool ok = on_line(line);
    buf_.clear();
    if (!ok) return false;
  }
  return true;
}

namespace {

std::atomic<uint64_t> g_backend_serial{0};

struct Url {
  std::string scheme_host_port, prefix;
};

Url split_url(const std::string& url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos || !(url.compare(0, scheme, "http") == 0 || url.compare(0, scheme, "https") == 0))
    throw Error(ErrorKind::ConfigError, "backend URL must start with http:// or https:// (got '" + url + "')");
  size_t slash = url.find('/', scheme + 3);
  Url u;
  u.scheme_host_port = url.substr(0, slash);
  if (slash != std::string::npos) u.prefix = url.substr(slash);
  while (!u.prefix.empty() && u.prefix.back() == '/') u.prefix.pop_back();
  return u;
}

}  // namespace

void check_backend_url(const std::string& url) { split_url(url); }

namespace {

class HttpBackend final : public Backend {
 public:
  explicit HttpBackend(const Config& cfg)
      : url_(split_url(cfg.backend_url)),
        proto_(protocol_for(cfg.backend_kind, url_.prefix, cfg.backend_grammar)),
        model_(cfg.backend_model.empty() ? cfg.model_name : cfg.backend_model),
        limits_(cfg.limits),
        api_key_(cfg.backend_api_key),
        ca_file_(cfg.backend_ca_file),
        retry_after_(cfg.retry_after_s),
        serial_(++g_backend_serial) {}
  std::atomic<int64_t> context_{0};

  std::string probe() override {
    httplib::Client cli(url_.scheme_host_port);
    configure(cli, std::min(5.0, limits_.backend_idle_timeout_s));
    std::string path = url_.prefix;
    switch (proto_.kind) {
      case BackendKind::LlamaCpp: path += "/health"; break;
      case BackendKind::OpenAI: path += path.size() >= 3 && path.compare(path.size() - 3, 3, "/v1") == 0 ? "/models" : "/v1/models"; break;
      default: path += "/api/version"; break;
    }
    httplib::Headers headers;
    if (!api_key_.empty()) headers.emplace("Authorization", "Bearer " + api_key_);
    auto res = cli.Get(path, headers);
    if (!res) return unreachable(res.error());
    // 404 and the like: a server without that route is still up; auth failures and 5xx are not.
    if (res->status == 401 || res->status == 403 || res->status >= 500)
      return "backend at " + url_.scheme_host_port + " answered GET " + path + " with HTTP " + std::to_string(res->status) +
             (res->body.empty() ? "" : ": " + res->body.substr(0, 200));
    return "";
  }

  int64_t context_size() override {
    if (proto_.kind != BackendKind::LlamaCpp) return 0;
    if (int64_t known = context_.load()) return known;
    httplib::Client cli(url_.scheme_host_port);
    configure(cli, std::min(5.0, limits_.backend_idle_timeout_s));
    httplib::Headers headers;
    if (!api_key_.empty()) headers.emplace("Authorization", "Bearer " + api_key_);
    auto res = cli.Get(url_.prefix + "/props", headers);
    if (!res || res->status != 200) return 0;  // asked again next time (a server still loading)
    try {
      Value v = json::parse(res->body);
      const Value* s = v.is_dict() ? v.dict_obj().find("default_generation_settings") : nullptr;
      const Value* n = s && s->is_dict() ? s->dict_obj().find("n_ctx") : nullptr;
      if (n && n->is_int() && n->as_int() > 0) context_.store(n->as_int());
    } catch (const Error&) {
    }
    return context_.load();
  }

  bool takes_grammar() const override { return proto_.grammar != GrammarForm::None; }
  bool takes_json_schema() const override { return proto_.calls_as_json; }
  bool wants_messages() const override { return proto_.kind == BackendKind::OllamaChat; }

  GenResult generate(const GenRequest& gr, const std::function<bool(std::string_view)>& on_text) override {
    using clock = std::chrono::steady_clock;
    httplib::Client& cli = client();
    httplib::Request req;
    req.method = "POST";
    req.path = proto_.path;
    req.body = proto_.body(gr, model_);
    req.set_header("Content-Type", "application/json");
    if (!api_key_.empty()) req.set_header("Authorization", "Bearer " + api_key_);
    req.set_header("Accept", gr.stream ? (proto_.sse ? "text/event-stream" : "application/x-ndjson") : "application/json");

    int status = 0;
    std::string error_body;   // a non-2xx response's body (bounded)
    std::string whole;        // a non-streamed body
    GenResult result;
    bool done = false, deadline_hit = false, too_long = false, not_sse = false;
    std::optional<ApiError> failure;  // thrown from inside the receiver, rethrown here
    size_t output_bytes = 0;
    LineSplitter lines(limits_.max_output_bytes + 4096);

    auto take = [&](const Record& r) -> bool {
      if (r.prompt_tokens >= 0) result.prompt_tokens = r.prompt_tokens;
      if (r.completion_tokens >= 0) result.completion_tokens = r.completion_tokens;
      if (r.cached_tokens >= 0) result.cached_tokens = r.cached_tokens;
      if (!r.finish_reason.empty()) result.finish_reason = r.finish_reason;
      if (!r.warning.empty()) result.warning = r.warning;
      if (gr.on_logprobs && r.logprobs.is_list() && !r.logprobs.items().empty()) gr.on_logprobs(r.logprobs);
      if (!r.text.empty()) {
        std::string_view text = r.text;
        bool over = output_bytes + text.size() > limits_.max_output_bytes;
        if (over) {  // keep what fits, never half a UTF-8 sequence
          size_t cut = limits_.max_output_bytes - output_bytes;
          while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
          text = text.substr(0, cut);
        }
        output_bytes += text.size();
        if (!text.empty() && !on_text(text)) { result.cancelled = true; return false; }
        if (over) { too_long = true; return false; }
      }
      if (r.done) done = true;  // OpenAI streams may still send a usage record
      return true;
    };
    auto on_line = [&](std::string_view line) -> bool {
      std::string_view payload = line;
      if (proto_.sse) {
        if (line.rfind("data:", 0) != 0) {  // event:, id:, comments, blank lines; anything else is not SSE
          if (!line.empty() && line[0] != ':' && line.rfind("event:", 0) != 0 && line.rfind("id:", 0) != 0 &&
              line.rfind("retry:", 0) != 0)
            not_sse = true;
          return true;
        }
        payload = line.substr(5);
        if (!payload.empty() && payload[0] == ' ') payload.remove_prefix(1);
        if (payload == "[DONE]") { done = true; return true; }
      } else if (line.find_first_not_of(" \t") == std::string_view::npos) {
        return true;
      }
      return take(proto_.read(payload));
    };

    std::string retry_after;
    req.response_handler = [&](const httplib::Response& res) {
      status = res.status;
      retry_after = res.get_header_value("Retry-After");
      return true;
    };
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) -> bool {
      if (clock::now() > gr.deadline) { deadline_hit = true; return false; }
      std::string_view chunk(data, n);
      if (status < 200 || status >= 300) {
        if (error_body.size() < 2048) error_body.append(chunk.substr(0, 2048 - error_body.size()));
        return true;
      }
      try {
        if (!gr.stream) {
          whole.append(chunk);
          if (whole.size() > limits_.max_output_bytes * 2 + 65536) { too_long = true; return false; }
          return true;
        }
        return lines.feed(chunk, on_line);
      } catch (const ApiError& e) {
        failure = e;
        return false;
      }
    };

    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    auto started = clock::now();
    bool ok = cli.send(req, res, err);
    // A kept-alive connection the backend has closed meanwhile fails before any response byte:
    // send once more on a new connection (nothing was generated, so nothing is repeated).
    if (!ok && status == 0 && (err == httplib::Error::Read || err == httplib::Error::Write) &&
        std::chrono::duration<double>(clock::now() - started).count() < limits_.backend_idle_timeout_s * 0.5) {
      httplib::Client& fresh = client(/*renew=*/true);
      res = httplib::Response();
      err = httplib::Error::Success;
      ok = fresh.send(req, res, err);
    }
    if (failure) throw *failure;
    if (deadline_hit) throw timeout("the request's time limit passed while the backend was generating");
    if (too_long && !result.cancelled) {
      result.finish_reason = "length";
      return result;
    }
    if (result.cancelled) return result;
    if (!ok) transport_failure(err, status, std::chrono::duration<double>(clock::now() - started).count(), lines.overflowed());
    if (status < 200 || status >= 300) status_failure(status, error_body, retry_after);
    if (!gr.stream) {
      take(proto_.read(whole));
      if (too_long && !result.cancelled) result.finish_reason = "length";
      return result;
    }
    if (!lines.rest().empty()) on_line(lines.rest());  // a last record without its newline
    if (!done && not_sse && output_bytes == 0)
      invalid_stream();
    if (!done)
      throw ApiError(502, "backend stream ended before the generation finished", "server_error", "", "backend_connection_lost");
    return result;
  }

 private:
  // The ApiError for a request that failed below HTTP: TLS, connect, silence, a dropped connection.
  [[noreturn]] void transport_failure(httplib::Error err, int status, double waited_s, bool line_overflow) const {
    if (err == httplib::Error::SSLServerVerification || err == httplib::Error::SSLLoadingCerts || err == httplib::Error::SSLConnection)
      throw ApiError(502, "TLS with the backend at " + url_.scheme_host_port + " failed (" + httplib::to_string(err) +
                              "): " + (err == httplib::Error::SSLServerVerification ? "its certificate is not trusted; --backend-ca FILE names the CA to trust"
                                       : err == httplib::Error::SSLLoadingCerts ? "the CA file (--backend-ca) could not be loaded"
                                                                                : "no TLS connection could be made"),
                     "server_error", "", "backend_tls_failed");
    if (err == httplib::Error::Connection || err == httplib::Error::ConnectionTimeout)
      throw ApiError(502, unreachable(err), "server_error", "", "backend_unreachable");
    if (err == httplib::Error::Read && status == 0 && waited_s >= limits_.backend_idle_timeout_s * 0.9)
      throw timeout("no response from the backend within " + std::to_string(int(limits_.backend_idle_timeout_s)) + " s");
    if (line_overflow) throw ApiError(502, "backend sent an over-long line", "server_error", "", "backend_invalid_response");
    throw ApiError(502, std::string("backend connection failed") + (status ? " mid-response" : "") + " (" +
                            httplib::to_string(err) + ")", "server_error", "", "backend_connection_lost");
  }

  // The ApiError for a backend's non-2xx answer: its fault (502), our credentials (502), the
  // request it refused (400), or busy (503 with a Retry-After).
  [[noreturn]] void status_failure(int status, const std::string& error_body, const std::string& retry_after) const {
    std::string msg = "backend returned HTTP " + std::to_string(status) + (error_body.empty() ? "" : ": " + error_body);
    if (status == 401 || status == 403)  // our credentials, not the client's request
      throw ApiError(502, msg + " (check --backend-api-key)", "server_error", "", "backend_auth_failed");
    if (status >= 400 && status < 500)
      throw ApiError(400, msg, "invalid_request_error", "", "backend_rejected");
    if (status == 503) {  // overloaded or loading: the client may come back, when the backend says
      ApiError e(503, msg, "server_error", "", "backend_unavailable");
      e.retry_after = !retry_after.empty() ? retry_after : std::to_string(static_cast<int64_t>(std::ceil(retry_after_)));
      throw e;
    }
    throw ApiError(502, msg, "server_error", "", "backend_error");
  }

  // "backend unreachable: connection refused at URL": the OS's reason from a fresh connect, since
  // cpp-httplib names every failed connect "Connection"; its word when the connect now succeeds.
  std::string unreachable(httplib::Error err) const {
    std::string why = connect_problem(url_.scheme_host_port, std::min(1.0, limits_.backend_connect_timeout_s));
    return "backend unreachable: " + (why.empty() ? httplib::to_string(err) + " at " + url_.scheme_host_port : why);
  }
  ApiError timeout(const std::string& msg) const { return ApiError(504, msg, "server_error", "", "backend_timeout"); }
  [[noreturn]] void invalid_stream() const {
    throw ApiError(502, std::string("backend (") + backend_kind_name(proto_.kind) + ") sent an invalid response: not an SSE stream",
                   "server_error", "", "backend_invalid_response");
  }

  // One client per worker thread (cpp-httplib clients are not thread-safe), kept alive between
  // requests; a new Backend (serial) replaces the old one.
  httplib::Client& client(bool renew = false) {
    struct Slot { uint64_t serial = 0; std::unique_ptr<httplib::Client> cli; };
    thread_local Slot slot;
    if (renew || slot.serial != serial_ || !slot.cli) {
      slot.cli = std::make_unique<httplib::Client>(url_.scheme_host_port);
      slot.cli->set_keep_alive(true);
      configure(*slot.cli, limits_.backend_idle_timeout_s);
      slot.serial = serial_;
    }
    return *slot.cli;
  }

  void configure(httplib::Client& cli, double idle_s) const {
    auto secs = [](double s) { return std::chrono::microseconds(static_cast<int64_t>(s * 1e6)); };
    cli.set_tcp_nodelay(true);
    cli.set_connection_timeout(secs(limits_.backend_connect_timeout_s));
    cli.set_read_timeout(secs(idle_s));
    cli.set_write_timeout(secs(idle_s));
    cli.enable_server_certificate_verification(true);  // https: never talk to an unverified backend
    if (!ca_file_.empty()) cli.set_ca_cert_path(ca_file_);
  }

  Url url_;
  Protocol proto_;
  std::string model_;
  Limits limits_;
  std::string api_key_, ca_file_;
  double retry_after_;
  uint64_t serial_;
};

}  // namespace

std::unique_ptr<Backend> make_backend(const Config& cfg) { return std::make_unique<HttpBackend>(cfg); }

}  // namespace toolchat::gateway
