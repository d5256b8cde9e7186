// What every verb of the toolchat program shares: the CLI11 setup (help with defaults, an
// environment variable for every flag), the one place where an exception becomes a message and
// an exit code, and the readers of options several verbs take (--template, --kwargs).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "toolchat/error.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::dialects {
struct Dialect;
}

namespace toolchat::cli {

// The exit codes of every verb (README, "Exit codes").
enum Exit : int {
  kOk = 0,
  kFailed = 1,    // the work failed: a file cannot be read, a backend is down, nothing converted, ...
  kUsage = 2,     // the command line is wrong: unknown option, bad or missing value, stray argument
  kTemplate = 3,  // the chat template failed: a syntax error, or it raised while rendering
};

// A wrong command line found after CLI11 has parsed it (a value it cannot check alone).
class UsageError : public std::exception {
 public:
  explicit UsageError(std::string message) : message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Work that failed for a reason already worded for the user, with its exit code.
class Failure : public std::exception {
 public:
  explicit Failure(std::string message, int code = kFailed) : message_(std::move(message)), code_(code) {}
  const char* what() const noexcept override { return message_.c_str(); }
  int code() const { return code_; }

 private:
  std::string message_;
  int code_;
};

// A verb: its CLI11 subcommand and what runs once its options are parsed. `run` may throw
// UsageError, Failure, toolchat::Error; run_verb turns them into a message and an exit code.
struct Verb {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

Verb add_render(CLI::App& root);
Verb add_detect(CLI::App& root);
Verb add_check(CLI::App& root);
Verb add_parse(CLI::App& root);
Verb add_convert(CLI::App& root);
Verb add_serve(CLI::App& root);
Verb add_tokenize(CLI::App& root);
Verb add_completion(CLI::App& root);

// An environment variable for every long option of a verb, --help excepted, called once its
// options are all declared. `serve`, the long-running service, reads TOOLCHAT_<OPTION> as
// llama-server reads LLAMA_ARG_* ("--max-body-bytes" -> TOOLCHAT_MAX_BODY_BYTES); the one-shot verbs
// read TOOLCHAT_<VERB>_<OPTION> (TOOLCHAT_PARSE_SEED), so that a service's settings exported in a
// shell (TOOLCHAT_MODEL) never change what `render` or `convert` do.
void add_env_names(CLI::App& app);
std::string env_prefix(const std::string& verb);

// Runs a verb's body: the one place where exceptions become "toolchat VERB: ..." on stderr and an
// exit code. A template error prints FILE:LINE:COL, the line and a caret.
int run_verb(const std::string& verb, const std::function<int()>& body);

// `code`, or kFailed after "WHO: cannot write the output: REASON" on stderr when standard output
// (stdio or std::cout) did not take everything written to it.
int output_written(const std::string& who, int code);

// The exit code for a library error: kTemplate when the template failed, else kFailed.
int exit_code_of(const Error& e);

// Checks of numeric option values, in place of CLI11's NonNegativeNumber, PositiveNumber and
// Range: those read any value as a double, so an unsigned option took "-1" (wrapped to 2^64 - 1),
// a float option took "nan" and 1e300, and their message printed the double range
// ("0.000000 to 1797693134862315708..."). Help shows the same names CLI11's did.
// A whole number written in decimal digits, from min to max.
CLI::Validator whole_number(uint64_t min, uint64_t max = UINT64_MAX);
// Seconds: a finite number, above 0 (or from 0 with Zero::Allowed), at most 1e9 (a duration in
// nanoseconds must fit in 64 bits).
enum class Zero : bool { Refused, Allowed };
CLI::Validator seconds(Zero zero = Zero::Refused);
// "Kind: message", or for a template position "FILE:LINE:COL: Kind: message\n  line\n  ^".
std::string describe_error(const Error& e);

// The nearest candidate to `word` by edit distance when it is close enough to be a typo, else "".
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

// The registered dialect called `name` (--dialect of parse and serve); UsageError naming the
// nearest name and all of them when there is none.
const dialects::Dialect& dialect_named(const std::string& name);

// --template PATH [--name NAME] [--tokens FILE], shared by detect, check and parse.
struct TemplateOptions {
  std::string path;
  std::optional<std::string> name;
  std::optional<std::string> tokens;
  void add_to(CLI::App& app, bool required);
};
// The selected template's source, compiled once to report a syntax error at its FILE:LINE:COL,
// and its special tokens (those beside the template, then the --tokens file's).
struct LoadedTemplate {
  std::string source;
  toolchat::Value special_tokens;
};
LoadedTemplate load_template(const TemplateOptions& t);

// --kwargs JSON: a JSON object, else UsageError.
Value parse_kwargs(const std::string& text);

// --now: the instant strftime_now reports, "YYYY-MM-DD[THH:MM:SS[.ffffff]]", or "real" for the
// clock; else UsageError. kFixedNow is the reproducible default of the oracle forms of render and
// of convert: the instant tests/oracle/hf_render.py gives (and jinja::RenderOptions' default).
constexpr const char* kFixedNow = "2026-01-15T09:30:00";
jinja::RenderOptions parse_now(const std::string& text);

// Writes to stdout in one call.
void write_stdout(const std::string& s);
// JSON with sorted keys and an indent of 2 (detect, check).
std::string pretty_json(const Value& v);

}  // namespace toolchat::cli
