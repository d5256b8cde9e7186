// toolchat detect --template PATH [--name NAME] [--tokens FILE]
// Prints {"dialect", "capabilities", "warnings"} as JSON (sorted keys, indent 2): the dialect that
// reads the template's tool calls (registered, inferred or the fallback) and what it can render.
#include <memory>

#include "cli/app.hpp"
#include "dialects/resolve.hpp"

namespace toolchat::cli {

Verb add_detect(CLI::App& root) {
  auto t = std::make_shared<TemplateOptions>();
  CLI::App* app = root.add_subcommand("detect", "print a template's dialect, capabilities and warnings as JSON");
  t->add_to(*app, true);
  app->footer("Example:\n  toolchat detect --template tests/corpus/templates/deepseek-ai-DeepSeek-V3.jinja");
  return {app, [t] {
            LoadedTemplate lt = load_template(*t);
            write_stdout(pretty_json(dialects::detect_report(lt.source, lt.special_tokens)));
            return kOk;
          }};
}

}  // namespace toolchat::cli
