// Public API of the Jinja engine: compile a chat template once, render it many times,
// exactly as Hugging Face transformers' apply_chat_template renders it.
//
//   auto t = jinja::Template::compile("{{ messages[0].content }}", "inline");
//   std::string text = t.render(DictBuilder().add("messages", messages).build()).text;
//
// Ownership: a Template is a cheap handle to an immutable compiled tree (copies share it).
// Thread safety: see render(). Errors: Error (error.hpp) with the Python exception Jinja2 raises
// and, for template errors, the position (Error::describe() gives name:line:col and a caret).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolchat/error.hpp"
#include "toolchat/value.hpp"

namespace toolchat::jinja {

// Limits for untrusted templates, fixed when a template is compiled: a violation is an
// Error(LimitError), except call depth, which raises RecursionError as Python does.
struct EngineLimits {
  size_t max_template_bytes = 8u << 20;   // template source size
  size_t max_parse_depth = 256;           // nesting of statements and expressions
  size_t max_output_bytes = 64u << 20;    // rendered text
  uint64_t max_steps = 50'000'000;        // loop iterations + calls + filter work
  size_t max_call_depth = 200;            // macro / recursive-loop nesting
  size_t max_value_bytes = 64u << 20;     // one string or list built while rendering
};

// Per-render settings. strftime_now's clock: a fixed instant by default, so that a render is
// reproducible (the instant the corpus goldens use); fixed_now = false reads the real clock in
// local time, as transformers does (the gateway does; the CLI with `--now real`).
struct RenderOptions {
  bool fixed_now = true;
  int year = 2026, month = 1, day = 15, hour = 9, minute = 30, second = 0, microsecond = 0;
};

struct RenderResult {
  std::string text;
  // {% generation %} spans, in code points of `text` (as Python indexes strings).
  std::vector<std::pair<size_t, size_t>> generation_spans;
};

struct CompiledTemplate;

// What a compiled template can look at (uses.cpp), read from its tree: for callers that prepare
// only what a template can see (the Python module converts only the variables it names; the
// converter's render reuse screens texts holding a string the template tests for).
struct TemplateUses {
  // Every name the template looks up (variables, loop targets, macros, globals), sorted: a
  // render variable whose name is not here is never read.
  std::vector<std::string> names;
  // String constants tested against a value: `'x' in v`, the arguments of a str method or filter
  // that searches, splits or replaces (v.split('x'), find, startswith, replace ...).
  std::vector<std::string> contained;
  // Compared whole: `v == 'x'`, `v != 'x'`, the items of `v in ['x', 'y']`.
  std::vector<std::string> compared;
  // The characters of strip/lstrip/rstrip/trim arguments.
  std::string stripped;
};

class Template {
 public:
  // Compiles a template (trim_blocks, lstrip_blocks, loop controls, {% generation %}).
  // Throws Error (TemplateSyntaxError / TemplateAssertionError / LimitError) with a position.
  static Template compile(std::string_view source, std::string name = "",
                          const EngineLimits& limits = {});

  // Renders with the given variables (a dict: messages, tools, add_generation_prompt,
  // special tokens, kwargs). Throws Error with the Python exception class Jinja2 raises.
  // Thread safety: any number of threads may render one Template at once (its constants are
  // frozen at compile time, its lookup hints are atomic guesses). `variables` is read but its
  // reference counts are not atomic: each thread renders its own value graph.
  RenderResult render(const Value& variables, const RenderOptions& opts = {}) const;

  const std::string& source() const;
  TemplateUses uses() const;

 private:
  std::shared_ptr<const CompiledTemplate> impl_;
};

}  // namespace toolchat::jinja
