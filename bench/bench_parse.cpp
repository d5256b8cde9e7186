// Streaming parse throughput of every registered dialect (docs/design.md §3.2: linear cost). For each
// dialect, the first fixture case with two or more tool calls (else the first with one) is repeated,
// with its text, into a ~1 MiB model output and into one 10 times longer; both are fed in 4-byte
// chunks, as a server relays tokens, and the 1 MiB one also whole (one finished output, as
// `toolchat parse` and a non-streaming request read it). After the runs a table gives MB/s at
// 1 MiB, streamed and whole, and the cost ratio 10 MiB / 1 MiB, which is about 10 for a linear parser
// (over 12 is flagged), each from the fastest of 3 repetitions.
// Fixtures load at run time from TOOLCHAT_FIXTURE_DIR (tests/dialects/fixtures).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dialects/dialect.hpp"
#include "value/json.hpp"

#ifndef TOOLCHAT_FIXTURE_DIR
#define TOOLCHAT_FIXTURE_DIR "tests/dialects/fixtures"
#endif

namespace {

using namespace toolchat;

constexpr size_t kChunk = 4;
constexpr size_t kMiB = size_t{1} << 20;

// Counts what a parse emits without keeping it (the events of 10 MiB would not fit the point).
class CountingSink final : public dialects::Sink {
 public:
  size_t calls = 0, events = 0;
  void on(dialects::Event&& e) override {
    ++events;
    if (std::holds_alternative<dialects::ToolCallBegin>(e)) ++calls;
  }
};

struct Input {
  std::string unit;  // the fixture case's input + "\n"
  dialects::ParseOptions opts;
  std::string case_name;
};

std::optional<Input> load_case(const dialects::Dialect& d) {
  std::string path = std::string(TOOLCHAT_FIXTURE_DIR) + "/" + std::string(d.name) + ".json";
  if (!std::filesystem::exists(path)) return std::nullopt;
  Value f = json::parse_file(path);
  const Value* cases = f.dict_obj().find("cases");
  if (!cases || !cases->is_list()) return std::nullopt;
  const Value* pick = nullptr;
  for (int want : {2, 1}) {
    for (const Value& c : cases->items()) {
      const Value* calls = c.dict_obj().find("tool_calls");
      size_t n = calls && calls->is_list() ? calls->items().size() : 0;
      if ((want == 2 && n >= 2) || (want == 1 && n == 1)) { pick = &c; break; }
    }
    if (pick) break;
  }
  if (!pick) return std::nullopt;
  Input in;
  in.unit = std::string(pick->dict_obj().find("input")->str()) + "\n";
  in.case_name = pick->dict_obj().find("name")->str();
  if (const Value* r = pick->dict_obj().find("reasoning_open")) in.opts.reasoning_open = r->is_bool() && r->as_bool();
  if (const Value* t = pick->dict_obj().find("tools")) in.opts.tools = *t;
  return in;
}

std::string repeat_to(const std::string& unit, size_t units) {
  std::string out;
  out.reserve(unit.size() * units);
  for (size_t i = 0; i < units; ++i) out += unit;
  return out;
}

// chunk 0: the text fed whole.
void run_parse(benchmark::State& st, const dialects::Dialect* d, const Input* in, size_t units, size_t chunk) {
  std::string text = repeat_to(in->unit, units);
  size_t calls = 0;
  for (auto _ : st) {
    CountingSink sink;
    auto p = d->make_parser(in->opts);
    std::string_view v(text);
    const size_t step = chunk ? chunk : v.size();
    for (size_t i = 0; i < v.size(); i += step) p->feed(v.substr(i, step), sink);
    p->finish(sink);
    calls = sink.calls;
    benchmark::DoNotOptimize(sink.events);
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations() * text.size()));
  st.counters["calls"] = static_cast<double>(calls);
  st.SetLabel(in->case_name);
}

// Keeps each run's time per iteration and bytes/s, by benchmark name, for the table.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  std::map<std::string, std::pair<double, double>> results;  // name -> (CPU seconds/iteration, bytes/s)
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred || r.iterations == 0 || r.run_type == Run::RT_Aggregate) continue;
      // CPU time: the machine may be shared, and the parse is single-threaded. Of the repetitions,
      // the fastest: what other load on the machine adds is noise, not the parser's cost.
      double secs = r.cpu_accumulated_time / static_cast<double>(r.iterations);
      auto it = r.counters.find("bytes_per_second");
      std::string name = r.run_name.function_name;
      auto old = results.find(name);
      if (old != results.end() && old->second.first <= secs) continue;
      results[name] = {secs, it == r.counters.end() ? 0.0 : static_cast<double>(it->second)};
    }
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> names;
  static std::vector<std::unique_ptr<Input>> inputs;  // outlive the registered benchmarks
  for (const dialects::Dialect* d : dialects::all()) {
    auto in = load_case(*d);
    if (!in) {
      std::fprintf(stderr, "bench_parse: %s: no fixture case with a tool call, skipped\n", std::string(d->name).c_str());
      continue;
    }
    inputs.push_back(std::make_unique<Input>(std::move(*in)));
    const Input* ip = inputs.back().get();
    size_t units = (kMiB + ip->unit.size() - 1) / ip->unit.size();
    std::string name(d->name);
    names.push_back(name);
    benchmark::RegisterBenchmark(("BM_Parse/" + name + "/1MiB").c_str(), run_parse, d, ip, units, kChunk)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.2)
        ->Repetitions(3);
    benchmark::RegisterBenchmark(("BM_ParseWhole/" + name + "/1MiB").c_str(), run_parse, d, ip, units, size_t{0})
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.2)
        ->Repetitions(3);
    benchmark::RegisterBenchmark(("BM_Parse/" + name + "/10MiB").c_str(), run_parse, d, ip, units * 10, kChunk)
        ->Unit(benchmark::kMillisecond)
        ->MinTime(0.2)
        ->Repetitions(3);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  bool all_linear = true;
  std::printf("\n| dialect | MB/s at 1 MiB (4-byte chunks) | MB/s at 1 MiB (whole) | time 10 MiB / 1 MiB |\n|---|---:|---:|---:|\n");
  auto cell = [&](const std::string& name) -> std::string {
    auto r = reporter.results.find(name);
    if (r == reporter.results.end()) return "-";  // filtered out
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", r->second.second / 1e6);
    return b;
  };
  for (const std::string& n : names) {
    auto one = reporter.results.find("BM_Parse/" + n + "/1MiB");
    auto ten = reporter.results.find("BM_Parse/" + n + "/10MiB");
    std::string ratio = "-";
    if (one != reporter.results.end() && ten != reporter.results.end()) {
      double r = ten->second.first / one->second.first;
      bool linear = r <= 12.0;
      all_linear = all_linear && linear;
      char b[48];
      std::snprintf(b, sizeof b, "%.2f%s", r, linear ? "" : " (NOT LINEAR)");
      ratio = b;
    }
    std::printf("| %s | %s | %s | %s |\n", n.c_str(), cell("BM_Parse/" + n + "/1MiB").c_str(),
                cell("BM_ParseWhole/" + n + "/1MiB").c_str(), ratio.c_str());
  }
  std::fflush(stdout);
  return all_linear ? 0 : 1;
}
