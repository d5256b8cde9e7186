// toolchat parse (--dialect NAME | --template PATH) [--tools FILE] [--reasoning-open] [--chunk N]
//                [--events] [--seed N] [--name NAME] [FILE|-]
// Parses model output with a dialect (named, or detected from the template) and prints
// {"content", "reasoning_content", "tool_calls": [{"id", "type", "function": {"name", "arguments"}}]}
// (+ "warnings" when there are any). --chunk N feeds N bytes at a time; --events prints the event
// stream as JSON lines instead. Call ids are random on each run (ids from several runs stitched into
// one conversation must not collide); --seed N makes them reproducible.
#include <memory>
#include <random>
#include <string>

#include "chat/render_files.hpp"
#include "chat/template_source.hpp"
#include "cli/app.hpp"
#include "dialects/dialect.hpp"
#include "dialects/resolve.hpp"
#include "value/files.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {

struct ParseArgs {
  std::optional<std::string> dialect, template_path, name, tools;
  std::optional<uint64_t> seed;
  std::string input = "-";
  size_t chunk = 0;
  bool reasoning_open = false, events = false;
};

std::string line(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  return json::dumps(v, o) + "\n";
}

uint64_t random_seed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

int run_parse(const ParseArgs& a) {
  if (!a.dialect == !a.template_path) throw UsageError("give exactly one of --dialect NAME or --template PATH");
  dialects::ParserFactory make;
  if (a.dialect) {
    make = dialects::parser_factory(dialect_named(*a.dialect));
  } else {
    // A registered family, else a dialect inferred from the template, else generic_json.
    chat::TemplateSet set = chat::load_templates(*a.template_path);
    make = dialects::resolve(chat::select_template(set, a.name, false), set.special_tokens).factory();
  }
  dialects::ParseOptions opts;
  opts.reasoning_open = a.reasoning_open;
  opts.id_seed = a.seed ? *a.seed : random_seed();
  if (a.tools) opts.tools = chat::read_tools_file(*a.tools);
  std::string input = a.input == "-" ? files::read_stdin() : files::read_file(a.input);
  dialects::EventLog log;
  auto p = make(opts);
  std::string_view in(input);
  size_t chunk = a.chunk == 0 ? (in.size() ? in.size() : 1) : a.chunk;
  for (size_t i = 0; i < in.size(); i += chunk) p->feed(in.substr(i, chunk), log);
  p->finish(log);
  std::string out;
  if (a.events) {
    for (const auto& e : log.events) out += line(dialects::event_json(e));
  } else {
    dialects::ParsedMessage m = dialects::collect(log.events);
    out = line(m.to_json(!m.warnings.empty()));
  }
  write_stdout(out);
  return kOk;
}

}  // namespace

Verb add_parse(CLI::App& root) {
  auto a = std::make_shared<ParseArgs>();
  CLI::App* app = root.add_subcommand("parse", "parse model output with a dialect: content, reasoning, tool calls");
  auto* dialect = app->add_option("--dialect", a->dialect, "the dialect by name (hermes, llama3_json, mistral, ...)");
  auto* tmpl = app->add_option("--template", a->template_path,
                               "detect the dialect from this template (file, folder or .gguf)");
  dialect->excludes(tmpl);
  app->add_option("--name", a->name, "with --template: use this named template")->needs(tmpl);
  app->add_option("--tools", a->tools, "JSON file: a list of tools or an object holding \"tools\" (checks call names)");
  app->add_flag("--reasoning-open", a->reasoning_open, "the prompt left the model inside its reasoning block");
  app->add_option("--chunk", a->chunk, "feed N bytes at a time, as a stream would (0: all at once)")
      ->check(whole_number(0));
  app->add_flag("--events", a->events, "print the event stream as JSON lines instead of the message");
  app->add_option("--seed", a->seed, "seed of the generated call ids, for reproducible output (default: random)");
  app->add_option("FILE", a->input, "the model output (default: standard input)");
  app->footer(
      "Example:\n"
      "  printf '<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>' | toolchat parse --dialect hermes --seed 1");
  return {app, [a] { return run_parse(*a); }};
}

}  // namespace toolchat::cli
