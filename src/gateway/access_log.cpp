#include "gateway/access_log.hpp"

#include <cstdio>
#include <ctime>

#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

std::string utc(int64_t t) {
  std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Request paths and ids come from the client: quoted when they could break the line apart.
std::string word(const std::string& s) {
  if (s.empty()) return "-";
  for (unsigned char c : s)
    if (c <= ' ' || c == '"' || c == '\\' || c >= 0x7f) {
      std::string q;
      json::dump_string(q, s, true);
      return q;
    }
  return s;
}

}  // namespace

std::string access_line(const AccessRecord& r, LogFormat format, int64_t now) {
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.3f", r.seconds);
  if (format == LogFormat::Json) {
    std::string o = "{\"time\":\"" + utc(now) + "\",\"id\":";
    json::dump_string(o, r.id, true);
    o += ",\"method\":";
    json::dump_string(o, r.method, true);
    o += ",\"path\":";
    json::dump_string(o, r.path, true);
    o += ",\"status\":" + std::to_string(r.status) + ",\"seconds\":" + secs;
    if (!r.model.empty()) {
      o += ",\"model\":";
      json::dump_string(o, r.model, true);
      o += std::string(",\"stream\":") + (r.stream ? "true" : "false");
    }
    if (r.prompt_tokens >= 0) o += ",\"prompt_tokens\":" + std::to_string(r.prompt_tokens);
    if (r.completion_tokens >= 0) o += ",\"completion_tokens\":" + std::to_string(r.completion_tokens);
    if (!r.finish_reason.empty()) o += ",\"finish_reason\":\"" + r.finish_reason + "\"";
    if (!r.warnings.empty()) {
      o += ",\"warnings\":[";
      for (size_t i = 0; i < r.warnings.size(); ++i) {
        if (i) o += ",";
        json::dump_string(o, r.warnings[i], true);
      }
      o += "]";
    }
    if (!r.error.empty()) {
      o += ",\"error\":";
      json::dump_string(o, r.error, true);
    }
    return o + "}";
  }
  std::string o = utc(now) + " " + word(r.id) + " " + word(r.method) + " " + word(r.path) + " " + std::to_string(r.status) +
                  " " + secs + "s";
  if (!r.model.empty()) o += " model=" + word(r.model) + " stream=" + (r.stream ? "1" : "0");
  if (r.prompt_tokens >= 0) o += " prompt_tokens=" + std::to_string(r.prompt_tokens);
  if (r.completion_tokens >= 0) o += " completion_tokens=" + std::to_string(r.completion_tokens);
  if (!r.finish_reason.empty()) o += " finish=" + r.finish_reason;
  if (!r.warnings.empty()) {
    std::string w;
    for (const auto& x : r.warnings) w += (w.empty() ? "" : ",") + x;
    o += " warnings=" + word(w);
  }
  if (!r.error.empty()) o += " error=" + word(r.error);
  return o;
}

}  // namespace toolchat::gateway
