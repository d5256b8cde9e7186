#include "cli/app.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>

#include "chat/template_source.hpp"
#include "toolchat/dialects.hpp"
#include "toolchat/jinja.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {
std::string env_word(const std::string& name) {
  std::string out;
  for (char c : name) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

std::string env_prefix(const std::string& verb) {
  return verb == "serve" ? "TOOLCHAT_" : "TOOLCHAT_" + env_word(verb) + "_";
}

void add_env_names(CLI::App& app) {
  const std::string prefix = env_prefix(app.get_name());
  for (CLI::Option* o : app.get_options()) {
    if (o->get_lnames().empty() || o->get_lnames().front() == "help") continue;
    o->envname(prefix + env_word(o->get_lnames().front()));
  }
}

std::string describe_error(const Error& e) {
  if (e.source()) return e.describe();
  // File, input and setting errors read as "PATH: cannot open file: REASON"; Python's class name
  // helps only for the others (JSONDecodeError, KeyError, ...).
  if (e.kind() == ErrorKind::ValueError || e.kind() == ErrorKind::OSError || e.kind() == ErrorKind::ConfigError)
    return e.message();
  return std::string(error_kind_name(e.kind())) + ": " + e.message();
}

int exit_code_of(const Error& e) { return is_template_failure(e) ? kTemplate : kFailed; }

CLI::Validator whole_number(uint64_t min, uint64_t max) {
  std::string range = max == UINT64_MAX ? "of at least " + std::to_string(min)
                                        : "from " + std::to_string(min) + " to " + std::to_string(max);
  std::string desc = max != UINT64_MAX ? "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]"
                     : min == 0        ? "NONNEGATIVE"
                                       : "POSITIVE";
  return CLI::Validator(
      [min, max, range](std::string& text) -> std::string {
        uint64_t v = 0;
        bool ok = !text.empty() && text.size() <= 20;
        for (char c : text) {
          if (!ok) break;
          unsigned d = static_cast<unsigned char>(c) - '0';
          ok = d <= 9 && v <= (UINT64_MAX - d) / 10;
          v = v * 10 + d;
        }
        if (ok && v >= min && v <= max) return "";
        return "expected a whole number " + range + ", got '" + text + "'";
      },
      desc);
}

CLI::Validator seconds(Zero zero) {
  constexpr double kMax = 1e9;
  std::string range = std::string(zero == Zero::Allowed ? "from 0" : "above 0") + " to 1000000000";
  return CLI::Validator(
      [zero, range](std::string& text) -> std::string {
        double v = 0;
        size_t used = 0;
        bool ok = !text.empty();
        try {
          v = std::stod(text, &used);
        } catch (const std::exception&) {
          ok = false;
        }
        ok = ok && used == text.size() && std::isfinite(v) && v <= kMax && (v > 0 || (v == 0 && zero == Zero::Allowed));
        return ok ? "" : "expected a number of seconds " + range + ", got '" + text + "'";
      },
      zero == Zero::Allowed ? "NONNEGATIVE" : "POSITIVE");
}

int output_written(const std::string& who, int code) {
  // Output that did not reach its file or pipe (disk full, a closed pipe) is work that failed,
  // whoever wrote it: the verbs write through stdio, CLI11's help and version through std::cout.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "%s: cannot write the output: %s\n", who.c_str(),
                 errno ? std::strerror(errno) : "write error");
    return kFailed;
  }
  return code;
}

int run_verb(const std::string& verb, const std::function<int()>& body) {
  const std::string who = "toolchat " + verb + ": ";
  try {
    return output_written("toolchat " + verb, body());
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s%s\nRun 'toolchat %s --help' for the options.\n", who.c_str(), e.what(), verb.c_str());
    return kUsage;
  } catch (const Failure& e) {
    std::fprintf(stderr, "%s%s\n", who.c_str(), e.what());
    return e.code();
  } catch (const Error& e) {
    std::fprintf(stderr, "%s%s\n", who.c_str(), describe_error(e).c_str());
    return exit_code_of(e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%sout of memory\n", who.c_str());
    return kFailed;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%sinternal error: %s\n", who.c_str(), e.what());
    return kFailed;
  }
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}
}  // namespace

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& c : candidates) {
    // A prefix ("--temp") is as good as a one-letter typo.
    size_t d = c.compare(0, word.size(), word) == 0 && !word.empty() ? 1 : edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best_d <= std::max<size_t>(2, word.size() / 3) ? best : "";
}

void TemplateOptions::add_to(CLI::App& app, bool required) {
  auto* t = app.add_option("--template", path,
                           "the chat template: a .jinja file, tokenizer_config.json, chat_template.json, "
                           "a model folder or a .gguf file");
  if (required) t->required();
  app.add_option("--name", name, "use this named template (default: tool_use when tools are given, else default)");
  app.add_option("--tokens,--special-tokens", tokens,
                 "JSON file: an object of special tokens (bos_token, ...) over the template's own");
}

LoadedTemplate load_template(const TemplateOptions& t) {
  chat::TemplateSet set = chat::load_templates(t.path);
  const std::string& src = chat::select_template(set, t.name, false);
  std::string selected_name;
  for (const auto& [n, s] : set.templates)
    if (&s == &src) selected_name = n;
  jinja::Template::compile(src, set.origin(selected_name));  // a syntax error, with its position
  LoadedTemplate out;
  out.source = src;
  out.special_tokens = set.special_tokens;
  if (t.tokens) {
    Value extra = json::parse_file(*t.tokens);
    if (!extra.is_dict()) throw Failure(*t.tokens + ": expected a JSON object of special tokens");
    for (const auto& [k, v] : extra.dict_obj().entries) out.special_tokens.dict_obj().set(k, chat::token_text(v));
  }
  return out;
}

Value parse_kwargs(const std::string& text) {
  Value v;
  try {
    v = json::parse(text);
  } catch (const Error& e) {
    throw UsageError("--kwargs: " + e.message());
  }
  if (!v.is_dict()) throw UsageError("--kwargs: expected a JSON object, e.g. '{\"enable_thinking\": false}'");
  return v;
}

jinja::RenderOptions parse_now(const std::string& text) {
  jinja::RenderOptions o;
  if (text == "real") {
    o.fixed_now = false;
    return o;
  }
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  char sep = 'T';
  double frac = 0;
  int n = std::sscanf(text.c_str(), "%d-%d-%d%c%d:%d:%d", &y, &mo, &d, &sep, &h, &mi, &s);
  if (n < 3) throw UsageError("--now: invalid isoformat string: " + string_repr(text));
  if (auto dot = text.find('.'); dot != std::string::npos) frac = std::stod("0" + text.substr(dot));
  o.year = y; o.month = mo; o.day = d; o.hour = h; o.minute = mi; o.second = s;
  o.microsecond = static_cast<int>(frac * 1e6 + 0.5);
  return o;
}

void write_stdout(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
}

std::string pretty_json(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  o.indent = "  ";
  o.sort_keys = true;
  return json::dumps(v, o) + "\n";
}

const dialects::Dialect& dialect_named(const std::string& name) {
  if (const dialects::Dialect* d = dialects::find(name)) return *d;
  std::vector<std::string> all;
  for (const auto* x : dialects::all()) all.emplace_back(x->name);
  std::string near = nearest(name, all);
  throw UsageError("unknown dialect '" + name + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?") +
                   " (known: " + dialects::known_names() + ")");
}

}  // namespace toolchat::cli
