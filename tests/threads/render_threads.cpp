// One compiled Template rendered from several threads at once gives, on every thread, what
// one thread gives alone: every corpus template against every corpus context (failures
// included, by class and message). Built normally it is the ctest `render_threads`; built
// with -fsanitize=thread (`make test-tsan`) ThreadSanitizer checks that renders share nothing
// they write.
//
//   render_threads [--corpus DIR] [--threads N] [--rounds R] [--only SUBSTRING]
//
// Each thread parses its own copy of the contexts (a value graph belongs to one thread) and
// renders the pairs in its own order, so that threads meet on the same template at different
// points of it. Exit 0 when every render matched, 1 otherwise.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "chat/render_case.hpp"
#include "toolchat/chat.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/json.hpp"
#include "value/files.hpp"

namespace fs = std::filesystem;
using namespace toolchat;

namespace {

struct Pair {
  size_t tmpl;
  size_t ctx;
  chat::CaseResult expected;
};

struct Corpus {
  std::vector<std::string> template_names;
  std::vector<std::string> sources;
  std::vector<jinja::Template> templates;
  std::vector<std::string> special_tokens;  // JSON text per template ("{}" when none)
  std::vector<std::string> context_names;
  std::vector<std::string> contexts;        // JSON text
};

chat::CaseResult render_one(const jinja::Template& t, const Value& context, const Value& tokens) {
  chat::CaseResult r;
  try {
    chat::PreparedCase pc = chat::prepare_case(context, tokens);
    return chat::render_prepared(t, pc, jinja::RenderOptions{});
  } catch (const Error& e) {
    r.error = error_kind_name(e.kind());
    r.message = e.message();
  }
  return r;
}

bool same(const chat::CaseResult& a, const chat::CaseResult& b) {
  return a.ok == b.ok && a.text == b.text && a.spans == b.spans && a.error == b.error && a.message == b.message;
}

// The contexts and special tokens as this thread's own value graphs.
struct ThreadValues {
  std::vector<Value> contexts, tokens;
  explicit ThreadValues(const Corpus& c) {
    for (const auto& s : c.contexts) contexts.push_back(json::parse(s));
    for (const auto& s : c.special_tokens) tokens.push_back(json::parse(s));
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = "tests/corpus", only;
  unsigned threads = 4, rounds = 2;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "render_threads: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--corpus") dir = next();
    else if (a == "--threads") threads = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--rounds") rounds = static_cast<unsigned>(std::stoul(next()));
    else if (a == "--only") only = next();
    else {
      std::fprintf(stderr, "render_threads: unknown argument %s\n", a.c_str());
      return 2;
    }
  }

  Corpus c;
  std::vector<fs::path> tpaths;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "templates"))
    if (e.path().extension() == ".jinja" && e.path().stem().string().find(only) != std::string::npos)
      tpaths.push_back(e.path());
  std::sort(tpaths.begin(), tpaths.end());
  for (const auto& p : tpaths) {
    try {
      c.templates.push_back(jinja::Template::compile(files::read_file(p.string()), p.filename().string()));
    } catch (const Error&) {
      continue;  // a template that does not compile has no render to share
    }
    c.template_names.push_back(p.stem().string());
    c.sources.push_back(files::read_file(p.string()));
    fs::path tok = p;
    tok.replace_extension(".tokens.json");
    c.special_tokens.push_back(fs::exists(tok) ? files::read_file(tok.string()) : "{}");
  }
  std::vector<fs::path> cpaths;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "contexts"))
    if (e.path().extension() == ".json") cpaths.push_back(e.path());
  std::sort(cpaths.begin(), cpaths.end());
  for (const auto& p : cpaths) {
    c.context_names.push_back(p.stem().string());
    c.contexts.push_back(files::read_file(p.string()));
  }
  if (c.templates.empty() || c.contexts.empty()) {
    std::fprintf(stderr, "render_threads: no templates or contexts under %s\n", dir.c_str());
    return 2;
  }

  // What one thread alone renders.
  std::vector<Pair> pairs;
  {
    ThreadValues tv(c);
    for (size_t t = 0; t < c.templates.size(); ++t)
      for (size_t x = 0; x < c.contexts.size(); ++x)
        pairs.push_back({t, x, render_one(c.templates[t], tv.contexts[x], tv.tokens[t])});
  }

  std::atomic<size_t> mismatches{0}, renders{0};
  std::vector<std::thread> pool;
  for (unsigned th = 0; th < threads; ++th) {
    pool.emplace_back([&, th] {
      ThreadValues tv(c);
      for (unsigned round = 0; round < rounds; ++round) {
        // Thread th starts at its own offset and half the threads walk backwards.
        size_t n = pairs.size();
        size_t start = (n * th) / threads;
        for (size_t k = 0; k < n; ++k) {
          size_t i = (th % 2 == 0) ? (start + k) % n : (start + n - k) % n;
          const Pair& p = pairs[i];
          chat::CaseResult got = render_one(c.templates[p.tmpl], tv.contexts[p.ctx], tv.tokens[p.tmpl]);
          renders.fetch_add(1, std::memory_order_relaxed);
          if (!same(got, p.expected) && mismatches.fetch_add(1) < 10)
            std::fprintf(stderr, "render_threads: thread %u: %s with %s differs from the single-threaded render\n",
                         th, c.template_names[p.tmpl].c_str(), c.context_names[p.ctx].c_str());
        }
      }
    });
  }
  for (auto& t : pool) t.join();

  // The same through chat::ModelTemplate, whose special tokens every render's variables share.
  std::vector<chat::ModelTemplate> models;
  for (size_t t = 0; t < c.templates.size(); ++t)
    models.push_back(chat::ModelTemplate::from_sources({{"default", c.sources[t]}}, json::parse(c.special_tokens[t])));
  auto model_text = [&](size_t t, const Value& ctx) -> std::string {
    try {
      return models[t].render_json(ctx, chat::RenderOptions{}).text;
    } catch (const Error& e) {
      return std::string("error: ") + e.message();
    }
  };
  std::vector<std::string> model_expected;
  {
    ThreadValues tv(c);
    for (const Pair& p : pairs) model_expected.push_back(model_text(p.tmpl, tv.contexts[p.ctx]));
  }
  std::atomic<size_t> model_mismatches{0};
  pool.clear();
  for (unsigned th = 0; th < threads; ++th) {
    pool.emplace_back([&, th] {
      ThreadValues tv(c);
      size_t n = pairs.size();
      for (size_t k = 0; k < n; ++k) {
        size_t i = (k + (n * th) / threads) % n;
        if (model_text(pairs[i].tmpl, tv.contexts[pairs[i].ctx]) != model_expected[i] && model_mismatches.fetch_add(1) < 10)
          std::fprintf(stderr, "render_threads: thread %u: model template %s with %s differs\n", th,
                       c.template_names[pairs[i].tmpl].c_str(), c.context_names[pairs[i].ctx].c_str());
      }
    });
  }
  for (auto& t : pool) t.join();
  mismatches += model_mismatches.load();

  size_t ok = 0;
  for (const auto& p : pairs) ok += p.expected.ok;
  std::printf("render_threads: %zu templates x %zu contexts (%zu rendered, %zu errors), %u threads x %u rounds: "
              "%zu renders, %zu mismatches\n",
              c.templates.size(), c.contexts.size(), ok, pairs.size() - ok, threads, rounds, renders.load(),
              mismatches.load());
  return mismatches.load() == 0 ? 0 : 1;
}
