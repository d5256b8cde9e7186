// toolchat serve --model PATH --backend URL [--backend-kind llamacpp|openai|ollama|ollama-chat]
//                [--port N] [--host ADDR] [--dialect NAME] [--inject] [--model-name ID]
//                [--backend-model NAME] [--threads N] [limits: --max-body-bytes N --max-messages N
//                 --max-tools N --max-output-bytes N --request-timeout S --backend-timeout S
//                 --connect-timeout S] [ops: --api-key KEY --backend-api-key KEY --backend-ca FILE
//                 --cors ORIGIN --log-format text|json --quiet --log-prompts --read-timeout S
//                 --retry-after S]
// Every option can also come from the environment as TOOLCHAT_<OPTION> (--max-tools:
// TOOLCHAT_MAX_TOOLS; flags: 1/true/yes/on); the command line wins.
// An OpenAI-compatible server in front of a completion backend (src/gateway/). --port 0 picks a
// free port; the line "toolchat serve: listening on http://HOST:PORT ..." on stderr says which.
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "gateway/server.hpp"
#include "toolchat/error.hpp"

namespace toolchat::cli {

namespace {
const char* kUsage =
    "usage: toolchat serve --model PATH --backend URL [--backend-kind llamacpp|openai|ollama|ollama-chat]\n"
    "                      [--port N] [--host ADDR] [--dialect NAME] [--inject] [--model-name ID]\n"
    "                      [--backend-model NAME] [--threads N] [--max-body-bytes N] [--max-messages N]\n"
    "                      [--max-tools N] [--max-output-bytes N] [--request-timeout S]\n"
    "                      [--backend-timeout S] [--connect-timeout S]\n"
    "                      [--api-key KEY] [--backend-api-key KEY] [--backend-ca FILE] [--cors ORIGIN]\n"
    "                      [--log-format text|json] [--quiet] [--log-prompts] [--read-timeout S]\n"
    "                      [--retry-after S]\n"
    "OpenAI-compatible server: POST /v1/chat/completions, GET /v1/models[/ID], /health, /live, /metrics.\n"
    "--model-name may be repeated: the first is listed first, the others are aliases.\n"
    "Every option may be set by the environment as TOOLCHAT_<OPTION> (e.g. TOOLCHAT_PORT,\n"
    "TOOLCHAT_API_KEY, TOOLCHAT_QUIET=1); the command line wins.\n";

// ---- options added for issue 11 (ops); the lead ports these to CLI11 with the rest ----
const char* const kOpsValued[] = {"api-key", "backend-api-key", "backend-ca", "cors", "log-format", "read-timeout", "retry-after"};
const char* const kOpsFlags[] = {"quiet", "log-prompts"};

// TOOLCHAT_<NAME> environment variables for options not on the command line, appended to argv.
std::vector<std::string> with_environment(int argc, char** argv, const std::vector<std::string>& valued,
                                          const std::vector<std::string>& flags) {
  std::vector<std::string> out(argv, argv + argc);
  auto given = [&](const std::string& name) {
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--" + name || a.rfind("--" + name + "=", 0) == 0) return true;
    }
    return false;
  };
  auto env = [](const std::string& name) {
    std::string var = "TOOLCHAT_";
    for (char c : name) var += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* v = std::getenv(var.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  for (const auto& n : valued)
    if (auto v = env(n); v && !given(n)) out.push_back("--" + n + "=" + *v);
  for (const auto& n : flags)
    if (auto v = env(n); v && !given(n) && (*v == "1" || *v == "true" || *v == "yes" || *v == "on")) out.push_back("--" + n);
  return out;
}

// Every value of a repeatable option (--model-name A --model-name B), in order.
std::vector<std::string> all_values(const std::vector<std::string>& argv, const std::string& name) {
  std::vector<std::string> out;
  for (size_t i = 2; i < argv.size(); ++i) {
    if (argv[i] == "--" + name && i + 1 < argv.size()) out.push_back(argv[++i]);
    else if (argv[i].rfind("--" + name + "=", 0) == 0) out.push_back(argv[i].substr(name.size() + 3));
  }
  return out;
}
// ---- end of issue 11 options ----

double number(const std::string& opt, const std::string& v, double lo) {
  size_t used = 0;
  double d = 0;
  try {
    d = std::stod(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || !(d >= lo)) throw std::runtime_error("--" + opt + " needs a number >= " + std::to_string(lo) + ", got '" + v + "'");
  return d;
}
}  // namespace

int cmd_serve(int argc, char** argv) {
  gateway::Config cfg;
  try {
    std::set<std::string> valued = {"model", "backend", "backend-kind", "port", "host", "dialect", "model-name", "backend-model",
                                    "threads", "max-body-bytes", "max-messages", "max-tools", "max-output-bytes",
                                    "request-timeout", "backend-timeout", "connect-timeout"};
    std::set<std::string> flags = {"inject", "help"};
    valued.insert(std::begin(kOpsValued), std::end(kOpsValued));
    flags.insert(std::begin(kOpsFlags), std::end(kOpsFlags));
    std::vector<std::string> full = with_environment(argc, argv, {valued.begin(), valued.end()}, {"inject", "quiet", "log-prompts"});
    std::vector<char*> full_argv;
    for (auto& x : full) full_argv.push_back(x.data());
    Args a = parse_args(static_cast<int>(full_argv.size()), full_argv.data(), 2, valued, flags);
    if (a.has("help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    auto backend = a.get("backend");
    if (!backend) throw std::runtime_error("--backend URL is required (e.g. http://127.0.0.1:8081)");
    cfg.backend_url = *backend;
    cfg.model_path = a.get("model").value_or("");
    if (auto k = a.get("backend-kind")) cfg.backend_kind = gateway::backend_kind_from_name(*k);
    if (cfg.model_path.empty() && !(cfg.backend_kind == gateway::BackendKind::OllamaChat && a.get("dialect")))
      throw std::runtime_error("--model PATH is required (only --backend-kind ollama-chat with --dialect can do without)");
    if (auto p = a.get("port")) cfg.port = static_cast<int>(number("port", *p, 0));
    if (cfg.port > 65535) throw std::runtime_error("--port must be at most 65535");
    if (auto h = a.get("host")) cfg.host = *h;
    cfg.dialect = a.get("dialect").value_or("");
    cfg.inject = a.has("inject");
    cfg.model_name = a.get("model-name").value_or("");
    cfg.backend_model = a.get("backend-model").value_or("");
    if (auto t = a.get("threads")) cfg.threads = static_cast<int>(number("threads", *t, 1));
    auto& L = cfg.limits;
    if (auto v = a.get("max-body-bytes")) L.max_body_bytes = static_cast<size_t>(number("max-body-bytes", *v, 1));
    if (auto v = a.get("max-messages")) L.max_messages = static_cast<size_t>(number("max-messages", *v, 1));
    if (auto v = a.get("max-tools")) L.max_tools = static_cast<size_t>(number("max-tools", *v, 0));
    if (auto v = a.get("max-output-bytes")) L.max_output_bytes = static_cast<size_t>(number("max-output-bytes", *v, 1));
    if (auto v = a.get("request-timeout")) L.request_timeout_s = number("request-timeout", *v, 0.001);
    if (auto v = a.get("backend-timeout")) L.backend_idle_timeout_s = number("backend-timeout", *v, 0.001);
    if (auto v = a.get("connect-timeout")) L.backend_connect_timeout_s = number("connect-timeout", *v, 0.001);
    // issue 11 options
    auto names = all_values(full, "model-name");
    if (names.size() > 1) cfg.model_aliases.assign(names.begin() + 1, names.end());
    if (!names.empty()) cfg.model_name = names.front();
    cfg.api_key = a.get("api-key").value_or("");
    cfg.backend_api_key = a.get("backend-api-key").value_or("");
    cfg.backend_ca_file = a.get("backend-ca").value_or("");
    cfg.cors_origin = a.get("cors").value_or("");
    if (auto v = a.get("log-format")) {
      if (*v != "text" && *v != "json") throw std::runtime_error("--log-format must be text or json, got '" + *v + "'");
      cfg.log_format = *v == "json" ? gateway::LogFormat::Json : gateway::LogFormat::Text;
    }
    if (auto v = a.get("read-timeout")) L.client_read_timeout_s = number("read-timeout", *v, 0.001);
    if (auto v = a.get("retry-after")) cfg.retry_after_s = number("retry-after", *v, 0);
    cfg.access_log = !a.has("quiet");
    cfg.log_prompts = a.has("log-prompts");
    cfg.log = [](const std::string& line) {
        std::string l = line + "\n";
        std::fwrite(l.data(), 1, l.size(), stderr);  // one write per line: lines of threads never interleave
      };
  } catch (const Error& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.message().c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.what());
    return 2;
  }
  try {
    return gateway::serve(cfg, [&](int port, const std::string& summary) {
      std::fprintf(stderr, "toolchat serve: listening on http://%s:%d (%s)\n", cfg.host.c_str(), port, summary.c_str());
      std::fflush(stderr);
    });
  } catch (const Error& e) {
    std::fprintf(stderr, "toolchat serve: %s: %s\n", error_kind_name(e.kind()), e.message().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolchat serve: %s\n", e.what());
    return 1;
  }
}

}  // namespace toolchat::cli
