// `toolchat render`: the contract of tests/oracle/hf_render.py (single and --batch modes: the same
// stdout JSON and exit codes), plus --repeat for timing; and the friendly form (--model/--messages,
// chat/render_files.hpp), whose errors go to stderr with the template's FILE:LINE:COL.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <unordered_map>

#include "chat/render_case.hpp"
#include "chat/render_files.hpp"
#include "chat/template_source.hpp"
#include "cli/app.hpp"
#include "value/files.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::string dumps(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  return json::dumps(v, o);
}

bool has_tools(const Value& ctx) {
  if (!ctx.is_dict()) return false;
  const Value* t = ctx.dict_obj().find("tools");
  return t && !t->is_none();
}

template <class F> double median_us(int n, F&& f) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto a = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t.empty() ? 0 : t[t.size() / 2];
}

// Compiled templates by source: a batch renders each template with many contexts.
struct CompileCache {
  struct Entry { std::shared_ptr<jinja::Template> t; std::string error, message; };
  std::unordered_map<std::string, Entry> map;
  const Entry& get(const std::string& src) {
    auto it = map.find(src);
    if (it != map.end()) return it->second;
    Entry e;
    try {
      e.t = std::make_shared<jinja::Template>(jinja::Template::compile(src));
    } catch (const Error& err) {
      e.error = error_kind_name(err.kind());
      e.message = err.message();
    }
    return map.emplace(src, std::move(e)).first->second;
  }
};

chat::CaseResult run_case(CompileCache& cache, const std::string& src, const Value& ctx, const Value& special,
                          const jinja::RenderOptions& opts, int repeat, double* render_us, double* compile_us) {
  chat::CaseResult r;
  try {
    chat::PreparedCase pc = chat::prepare_case(ctx, special);
    const auto& entry = cache.get(src);
    if (!entry.t) {
      r.error = entry.error;
      r.message = entry.message;
      return r;
    }
    r = chat::render_prepared(*entry.t, pc, opts);
    if (repeat > 0 && r.ok) {
      *render_us = median_us(repeat, [&] { chat::render_prepared(*entry.t, pc, opts); });
      *compile_us = median_us(5, [&] { jinja::Template::compile(src); });
    }
  } catch (const Error& e) {
    r.error = error_kind_name(e.kind());
    r.message = e.message();
  }
  return r;
}

int run_batch(const std::string& path, const jinja::RenderOptions& opts, int repeat) {
  std::unique_ptr<std::ifstream> file;
  std::istream* in = &std::cin;
  if (path != "-") {
    files::check_readable(path);  // the OS's reason: missing, no permission, a directory
    file = std::make_unique<std::ifstream>(path, std::ios::binary);
    if (!*file) throw Error(ErrorKind::ValueError, path + ": cannot open file");
    in = file.get();
  }
  CompileCache cache;
  std::unordered_map<std::string, std::pair<std::string, Value>> loaded;  // template_path+name -> source
  std::string line;
  std::string out;
  size_t line_no = 0;
  while (std::getline(*in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r\n") == std::string::npos) continue;
    Value id = Value::none();
    chat::CaseResult r;
    double render_us = -1, compile_us = -1;
    try {
      Value c = json::parse(line);
      if (!c.is_dict()) throw Error(ErrorKind::TypeError, "a batch line must be a JSON object");
      if (const Value* v = c.dict_obj().find("id")) id = *v;
      const Value* ctx = c.dict_obj().find("context");
      if (!ctx) throw Error(ErrorKind::KeyError, "'context'");
      std::string src;
      Value special = Value::dict();
      if (const Value* t = c.dict_obj().find("template")) {
        if (!t->is_str()) throw Error(ErrorKind::TypeError, "template must be a string");
        src = t->str();
      } else if (const Value* tp = c.dict_obj().find("template_path"); tp && tp->is_str()) {
        std::optional<std::string> name;
        if (const Value* n = c.dict_obj().find("name"); n && n->is_str()) name = n->str();
        chat::TemplateSet set = chat::load_templates(std::string(tp->str()));
        src = chat::select_template(set, name, has_tools(*ctx));
        special = set.special_tokens;
      } else {
        throw Error(ErrorKind::KeyError, "'template_path'");
      }
      r = run_case(cache, src, *ctx, special, opts, repeat, &render_us, &compile_us);
    } catch (const Error& e) {
      r = chat::CaseResult();
      r.error = error_kind_name(e.kind());
      r.message = e.message();
    }
    DictBuilder result;
    result.add("id", id);
    Value body = chat::case_result_json(r);
    for (auto& [k, v] : body.dict_obj().entries) result.add(k, v);
    if (repeat > 0 && r.ok) result.add("render_us", render_us).add("compile_us", compile_us);
    out += dumps(result.build());
    out += '\n';
    if (out.size() > (1u << 16)) {
      std::fwrite(out.data(), 1, out.size(), stdout);
      out.clear();
    }
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  std::fflush(stdout);
  // A read that failed (an I/O error, out of memory for a line) left lines unread: not a success.
  if (in->bad())
    throw Error(ErrorKind::OSError, (path == "-" ? std::string("stdin") : path) + ": read error after line " +
                                        std::to_string(line_no) + ": the input was not read to its end");
  return 0;
}

struct RenderArgs {
  std::optional<std::string> template_path, context, batch, name, model, messages, tools, kwargs;
  std::optional<std::string> now;  // unset: see the --now help
  int repeat = 0;
  bool json = false, add_generation_prompt = false, continue_final_message = false;
};

// toolchat render --model PATH --messages FILE [--tools FILE] [--kwargs JSON] [--add-generation-prompt]
int run_friendly(const RenderArgs& a, const jinja::RenderOptions& clock) {
  chat::RenderFiles f;
  f.model = *a.model;
  f.messages = *a.messages;
  f.tools = a.tools;
  if (a.kwargs) f.kwargs = parse_kwargs(*a.kwargs);
  f.add_generation_prompt = a.add_generation_prompt;
  f.continue_final_message = a.continue_final_message;
  f.options.template_name = a.name;
  f.options.clock = clock;
  chat::Rendered r = chat::render_files(f);  // errors: run_verb (FILE:LINE:COL and a caret)
  write_stdout(a.json ? dumps(chat::rendered_json(r)) + "\n" : r.text);
  return kOk;
}

// The oracle's form: template failures are JSON on stdout with exit 3, as hf_render.py prints them.
int run_oracle_form(const RenderArgs& a, const jinja::RenderOptions& opts) {
  if (!a.template_path || !a.context) throw UsageError("--template and --context are required (or --batch, or --model)");
  Value ctx = *a.context == "-" ? json::parse(files::read_stdin(json::ReadLimits().max_bytes, "JSON input"))
                                : json::parse_file(*a.context);
  chat::TemplateSet set = chat::load_templates(*a.template_path);
  std::string src = chat::select_template(set, a.name, has_tools(ctx));
  CompileCache cache;
  double render_us = 0, compile_us = 0;
  chat::CaseResult r = run_case(cache, src, ctx, set.special_tokens, opts, a.repeat, &render_us, &compile_us);
  if (a.repeat > 0 && r.ok) std::fprintf(stderr, "%.3f\n", render_us);
  if (!r.ok) {
    write_stdout(dumps(chat::case_result_json(r)) + "\n");
    return kTemplate;
  }
  write_stdout(a.json ? dumps(chat::case_result_json(r)) + "\n" : r.text);
  return kOk;
}

}  // namespace

Verb add_render(CLI::App& root) {
  auto a = std::make_shared<RenderArgs>();
  CLI::App* app = root.add_subcommand("render", "render a chat template with a conversation");
  auto* model = app->add_option("--model", a->model,
                                "friendly form: a model folder, .jinja, tokenizer_config.json, chat_template.json or .gguf");
  auto* messages = app->add_option("--messages", a->messages,
                                   "friendly form: JSON file (or -) with a list of messages or a request object");
  // The friendly form's options need --model: given to another form they would be silently ignored.
  app->add_option("--tools", a->tools, "friendly form: JSON file, a list of tools or an object holding \"tools\"")
      ->needs(model);
  app->add_option("--kwargs", a->kwargs, "friendly form: extra template variables, a JSON object")->needs(model);
  app->add_flag("--add-generation-prompt", a->add_generation_prompt, "friendly form: end with the assistant's turn opening")
      ->needs(model);
  app->add_flag("--continue-final-message", a->continue_final_message,
                "friendly form: leave the last message open for the model to continue")
      ->needs(model);
  auto* tmpl = app->add_option("--template", a->template_path, "oracle form: the template (file, folder or .gguf)");
  auto* context = app->add_option("--context", a->context,
                                  "oracle form: JSON file (or -) with messages, tools, add_generation_prompt, ...");
  auto* batch = app->add_option("--batch", a->batch, "batch form: JSON-lines cases file, or - for stdin");
  app->add_option("--name", a->name, "use this named template (default: tool_use when tools are given, else default)");
  app->add_option("--now", a->now,
                  "the clock strftime_now sees (ISO date/time), or 'real'; default: 'real' for --model (as "
                  "apply_chat_template), 2026-01-15T09:30:00 for the oracle and batch forms (as hf_render.py)");
  app->add_flag("--json", a->json, "print {\"text\", \"generation_spans\", ...} instead of the text");
  auto* repeat = app->add_option("--repeat", a->repeat, "oracle and batch forms: time N renders, print the median microseconds on stderr")
      ->check(whole_number(0));
  repeat->excludes(model);
  model->needs(messages);
  messages->needs(model);
  model->excludes(tmpl)->excludes(context)->excludes(batch);
  batch->excludes(tmpl)->excludes(context);
  app->footer(
      "Forms:\n"
      "  friendly form: --model PATH --messages FILE [--tools FILE] [--kwargs JSON] [--add-generation-prompt]\n"
      "  oracle form:   --template PATH --context FILE|- [--json]   (the contract of hf_render.py: a template\n"
      "                 failure is {\"error\", \"message\"} on stdout, exit 3)\n"
      "  batch form:    --batch FILE|-   (one JSON case per line in, one result per line out)"
      "\n\n"
      "Example:\n"
      "  toolchat render --model examples/qwen2.5 --messages examples/tool_use.json --add-generation-prompt");
  return {app, [a] {
            // The oracle's fixed clock keeps its goldens reproducible; a model's prompt gets today's date.
            jinja::RenderOptions opts = parse_now(a->now ? *a->now : a->model ? "real" : kFixedNow);
            if (a->batch) return run_batch(*a->batch, opts, a->repeat);
            if (a->model) return run_friendly(*a, opts);
            return run_oracle_form(*a, opts);
          }};
}

}  // namespace toolchat::cli
