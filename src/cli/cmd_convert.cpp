// toolchat convert --from sharegpt|chatglm3|openai|qwen-agent --model PATH IN.jsonl OUT.jsonl [options]
// Dataset rows -> {"text", "spans"} rows with loss spans (src/convert/). IN/OUT may be "-".
// OUT is written beside itself and renamed at the end; OUT the same file as IN is refused. Exit 1
// when no row converted, or with --strict at the first bad row (OUT untouched in both cases).
// The progress line is drawn here, only when stderr is a terminal.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <streambuf>
#include <string>
#include <vector>

#include "chat/template_source.hpp"
#include "cli/app.hpp"
#include "convert/pipeline.hpp"
#include "toolchat/jinja.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {

struct ConvertArgs {
  std::string from, model, input, output;
  std::optional<std::string> name, polyfill, kwargs, special_tokens;
  std::string now = kFixedNow;
  std::string tokenizer;
  size_t max_length = 0;
  int threads = 2;
  bool train_on_prompt = false, last_turn_only = false, split = false, check = false, no_progress = false,
       no_render_reuse = false,
       strict = false;
};

// The progress line on a terminal: "convert: [####----]  40%  1200 rows  5300 rows/s  ETA 3s", redrawn
// at most 5 times a second. Row errors pass through sink(), which clears the line before each write.
class ProgressLine : public std::streambuf {
 public:
  void update(const convert::ConvertProgress& p) {
    auto now = std::chrono::steady_clock::now();
    if (!p.done && drawn_ && now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    if (p.done) {
      clear();
      return;
    }
    double rate = p.seconds > 0 ? static_cast<double>(p.rows) / p.seconds : 0.0;
    char buf[200];
    if (p.total_bytes > 0) {
      double frac = static_cast<double>(p.bytes) / static_cast<double>(p.total_bytes);
      if (frac > 1) frac = 1;
      int pct = static_cast<int>(100 * frac), bars = pct / 5;
      double eta = frac > 0 ? p.seconds * (1 - frac) / frac : 0;
      std::snprintf(buf, sizeof buf, "\rconvert: [%.*s%.*s] %3d%%  %zu rows  %.0f rows/s  ETA %.0fs\033[K", bars,
                    "####################", 20 - bars, "--------------------", pct, p.rows, rate, eta);
    } else {
      std::snprintf(buf, sizeof buf, "\rconvert: %zu rows  %.0f rows/s\033[K", p.rows, rate);
    }
    std::fputs(buf, stderr);
    std::fflush(stderr);
    drawn_ = true;
  }
  void clear() {
    if (drawn_) std::fputs("\r\033[K", stderr);
    drawn_ = false;
  }

 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;
    clear();
    return std::fputc(c, stderr);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    clear();
    return static_cast<std::streamsize>(std::fwrite(s, 1, static_cast<size_t>(n), stderr));
  }

 private:
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

// A syntax error in every template the rows could use (--name's, else default and tool_use) would
// make every row bad: it is reported once, with its FILE:LINE:COL and a caret, before the run.
void check_templates_compile(const ConvertArgs& a) {
  chat::TemplateSet set = chat::load_templates(a.model);
  std::vector<std::string> names;
  if (a.name) names.push_back(*a.name);
  else if (set.templates.size() == 1) names.push_back(set.templates.front().first);
  else names = {"default", "tool_use"};
  std::optional<Error> first;
  for (const auto& n : names) {
    const std::string* src = set.find(n);
    if (!src) continue;
    try {
      jinja::Template::compile(*src, set.origin(n));
      return;
    } catch (const Error& e) {
      if (!first) first = e;
    }
  }
  if (first) throw *first;
}

int run_convert(const ConvertArgs& a) {
  check_templates_compile(a);
  convert::ConvertConfig cfg;
  cfg.format = *convert::format_from_name(a.from);  // checked by the option's validator
  cfg.model = a.model;
  cfg.input = a.input;
  cfg.output = a.output;
  cfg.threads = a.threads;
  cfg.label.template_name = a.name;
  cfg.label.train_on_prompt = a.train_on_prompt;
  cfg.label.last_turn_only = a.last_turn_only;
  cfg.label.split_rewritten = a.split;
  cfg.list_mismatches = a.check;
  cfg.stop_at_first_bad = a.strict;
  cfg.tokenizer = a.tokenizer;
  cfg.max_length = a.max_length;
  if (a.max_length && a.tokenizer.empty()) throw UsageError("--max-length counts tokens: give --tokenizer too");
  if (a.polyfill) {
    try {
      cfg.label.polyfills = chat::polyfill_options_from_list(*a.polyfill);
    } catch (const Error& e) {
      throw UsageError("--polyfill: " + e.message());
    }
  }
  if (a.kwargs) cfg.label.kwargs = parse_kwargs(*a.kwargs);
  cfg.label.clock = parse_now(a.now);
  cfg.label.reuse_renders = !a.no_render_reuse;
  if (a.special_tokens) {
    Value v = json::parse_file(*a.special_tokens);
    if (!v.is_dict()) throw Failure(*a.special_tokens + ": expected a JSON object of special tokens");
    cfg.label.special_tokens = v;
  }
  ProgressLine progress;
  std::ostream err(&progress);
  if (!a.no_progress && isatty(STDERR_FILENO)) cfg.on_progress = [&](const convert::ConvertProgress& p) { progress.update(p); };
  convert::ConvertStats s;
  try {
    s = convert::run_convert(cfg, err);
  } catch (...) {
    progress.clear();
    throw;
  }
  err << convert::summary_text(s);
  err.flush();
  if (s.converted == 0)
    throw Failure(s.rows == 0 ? "no row converted: the input has no rows" +
                                    std::string(a.output == "-" ? "" : " (" + a.output + " left untouched)")
                              : "no row converted: all " + std::to_string(s.rows) + " rows are bad" +
                                    std::string(a.output == "-" ? "" : " (" + a.output + " left untouched)"));
  return kOk;
}

}  // namespace

Verb add_convert(CLI::App& root) {
  auto a = std::make_shared<ConvertArgs>();
  CLI::App* app = root.add_subcommand("convert", "training data (sharegpt, chatglm3, openai, qwen-agent) -> text + loss spans");
  app->add_option("--from", a->from, "the dataset's format")
      ->required()
      ->check(CLI::IsMember({"sharegpt", "chatglm3", "openai", "qwen-agent"}));
  app->add_option("--model", a->model, "the chat template: folder, .jinja, tokenizer_config.json, .gguf")->required();
  app->add_option("--name", a->name, "use this named template (default: tool_use when a row has tools, else default)");
  app->add_option("--polyfill", a->polyfill, "show what the template cannot (all, none, or a comma-separated list)");
  app->add_option("--kwargs", a->kwargs, "extra template variables, a JSON object, e.g. '{\"enable_thinking\": false}'");
  app->add_option("--special-tokens,--tokens", a->special_tokens,
                  "JSON file: an object of special tokens (bos_token, ...) over the model's");
  app->add_option("--now", a->now,
                  "the clock strftime_now sees (ISO date/time), or 'real' (today's date, as apply_chat_template); "
                  "the default instant keeps a dataset reproducible");
  app->add_flag("--train-on-prompt", a->train_on_prompt, "train on every span, not only assistant turns");
  app->add_flag("--last-turn-only", a->last_turn_only, "train only the last assistant turn");
  app->add_flag("--split", a->split, "a row of its own for each turn the full text cannot train (rewritten turns)");
  app->add_flag("--check", a->check, "list every assistant turn where train = serve does not hold (stderr)");
  app->add_flag("--strict", a->strict, "stop at the first bad row (exit 1, OUT untouched)");
  app->add_option("--tokenizer", a->tokenizer,
                  "add input_ids and labels: tokenizer.json, a folder holding one, or a .gguf (message texts as plain text)");
  app->add_option("--max-length", a->max_length, "with --tokenizer: keep the first N tokens of a longer row (dropped if nothing trained is left)")
      ->check(whole_number(1));
  app->add_option("--threads", a->threads, "worker threads")->check(whole_number(1, 256));
  app->add_flag("--no-render-reuse", a->no_render_reuse,
                "render every conversation itself, never reusing the renders of one with the same shape "
                "(slower; the reuse's own check)");
  app->add_flag("--no-progress", a->no_progress, "no progress line, even on a terminal (never drawn when stderr is not one)");
  app->add_option("IN", a->input, "input JSON lines, or - for stdin")->required();
  app->add_option("OUT", a->output, "output JSON lines, or - for stdout")->required();
  app->footer(
      "Training data -> one {\"text\", \"spans\": [{\"role\", \"train\", \"start\", \"end\", \"byte_start\", \"byte_end\"}]}\n"
      "line per row (start/end in code points), rendered by the model's own chat template. Bad rows are\n"
      "reported on stderr as IN:LINE: reason and skipped (--strict: the first one stops the run). OUT is\n"
      "written to a temporary file beside it and renamed at the end; OUT the same file as IN is refused.\n"
      "With --tokenizer each line also has \"input_ids\" and \"labels\" (-100 where no loss applies); the\n"
      "README's \"Token rows\" section gives the rules."
      "\n\n"
      "Example:\n"
      "  toolchat convert --from sharegpt --model examples/qwen2.5 examples/convert/sharegpt_tools.jsonl out.jsonl");
  return {app, [a] { return run_convert(*a); }};
}

}  // namespace toolchat::cli
