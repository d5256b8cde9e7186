// Every dialect's incremental parser, through the registry (src/dialects/list.def), so a dialect
// added there is fuzzed too. Input: "<dialect name or alias>\n" <seed byte> <model output>; an
// unknown name picks a dialect by hash. The seed byte chooses reasoning_open (bit 0), a tools
// list (bit 1) and the chunking. Checked: parsers never throw; the whole-string parse and the
// chunked parse give the same events once adjacent deltas are merged (docs/design.md §3.2); every
// event has a JSON form and the collected message dumps; no event carries invalid UTF-8, whatever
// bytes the input holds (issue 12 part 6); every call that ends without being cut short has
// arguments that are valid JSON; a call cut short (a warning with cut_call: its events stand,
// docs/design.md §3.2 "a call cut short") is not in the collected message, and its source text is
// part of the collected content; parse_all gives the message collect() gives.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <string_view>

#include "dialects/dialect.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

using namespace toolchat;
using namespace toolchat::dialects;

namespace {

const char kTools[] =
    R"([{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},)"
    R"({"type":"function","function":{"name":"f","parameters":{"type":"object"}}}])";

std::string events_text(const std::vector<Event>& ev) {
  std::string out;
  for (const Event& e : coalesce(ev)) out += json::dumps(event_json(e)) + "\n";
  return out;
}

// Runs one parse; every exception is a finding (parsers never throw).
std::vector<Event> run(const Dialect& d, const ParseOptions& o, std::string_view text, uint32_t seed, bool chunked) {
  EventLog log;
  try {
    auto p = d.make_parser(o);
    if (!chunked) {
      p->feed(text, log);
    } else {
      // chunk lengths 0..16 from a small LCG: empty chunks, single bytes and cuts inside markers
      // and multi-byte characters all occur
      uint32_t x = seed * 2654435761u + 1;
      size_t i = 0;
      while (i < text.size()) {
        x = x * 1664525u + 1013904223u;
        size_t n = (x >> 24) % 17;
        if (n > text.size() - i) n = text.size() - i;
        p->feed(text.substr(i, n), log);
        i += n;
      }
    }
    p->finish(log);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dialect %.*s threw: %s\n", static_cast<int>(d.name.size()), d.name.data(), e.what());
    std::abort();
  }
  return log.events;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  size_t nl = in.find('\n');
  if (nl == std::string_view::npos || nl + 1 >= in.size()) return 0;
  std::string_view name = in.substr(0, nl);
  uint8_t seed = static_cast<uint8_t>(in[nl + 1]);
  std::string_view text = in.substr(nl + 2);

  const auto& dialects = all();
  if (dialects.empty()) return 0;
  const Dialect* d = find(name);
  if (!d) d = dialects[std::hash<std::string_view>{}(name) % dialects.size()];

  ParseOptions o;
  o.reasoning_open = seed & 1;
  if (seed & 2) o.tools = json::parse(kTools);
  o.id_seed = 7;

  std::vector<Event> whole = run(*d, o, text, seed, false);
  std::vector<Event> pieces = run(*d, o, text, seed, true);
  std::string a = events_text(whole), b = events_text(pieces);
  if (a != b) {
    std::fprintf(stderr, "dialect %.*s: whole and chunked parses differ\n--- whole\n%s--- chunked\n%s",
                 static_cast<int>(d->name.size()), d->name.data(), a.c_str(), b.c_str());
    std::abort();
  }
  for (const Event& e : pieces) {
    std::string_view t;
    if (auto* c = std::get_if<ContentDelta>(&e)) t = c->text;
    else if (auto* r = std::get_if<ReasoningDelta>(&e)) t = r->text;
    else if (auto* a = std::get_if<ToolArgsDelta>(&e)) t = a->fragment;
    else if (auto* bg = std::get_if<ToolCallBegin>(&e)) t = bg->name;
    if (utf8::find_invalid(t, false) != std::string_view::npos) {
      std::fprintf(stderr, "dialect %.*s: an event carries invalid UTF-8\n", static_cast<int>(d->name.size()), d->name.data());
      std::abort();
    }
  }
  json::DumpOptions dump;
  dump.ensure_ascii = false;
  ParsedMessage m = collect(whole);
  const std::string collected = json::dumps(m.to_json(true), dump);
  // parse_all folds the events as they come, moving their texts: the same message.
  if (json::dumps(parse_all(*d, text, o).to_json(true), dump) != collected) {
    std::fprintf(stderr, "dialect %.*s: parse_all differs from collect()\n", static_cast<int>(d->name.size()), d->name.data());
    std::abort();
  }

  std::vector<std::string> args;
  std::vector<bool> cut;
  for (const Event& e : whole) {
    if (auto* b = std::get_if<ToolCallBegin>(&e)) {
      if (args.size() <= b->index) args.resize(b->index + 1), cut.resize(b->index + 1);
    } else if (auto* a = std::get_if<ToolArgsDelta>(&e)) {
      if (a->index < args.size()) args[a->index] += a->fragment;
    } else if (auto* w = std::get_if<Warning>(&e); w && w->cut_call) {
      if (*w->cut_call >= cut.size()) {
        std::fprintf(stderr, "dialect %.*s: cut_call names no call\n", static_cast<int>(d->name.size()), d->name.data());
        std::abort();
      }
      cut[*w->cut_call] = true;
      if (m.content.find(w->cut_text) == std::string::npos) {
        std::fprintf(stderr, "dialect %.*s: a cut call's text is not in the content\n", static_cast<int>(d->name.size()), d->name.data());
        std::abort();
      }
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (cut[i]) continue;
    ++kept;
    try {
      json::ReadLimits lim;
      lim.allow_surrogates = true;
      (void)json::parse(args[i], lim);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "dialect %.*s: call %zu has arguments that are not JSON (%s): %s\n",
                   static_cast<int>(d->name.size()), d->name.data(), i, e.what(), args[i].c_str());
      std::abort();
    }
  }
  if (kept != m.tool_calls.size()) {
    std::fprintf(stderr, "dialect %.*s: %zu calls not cut, %zu collected\n", static_cast<int>(d->name.size()),
                 d->name.data(), kept, m.tool_calls.size());
    std::abort();
  }
  return 0;
}
