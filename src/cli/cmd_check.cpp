// toolchat check --template PATH [--name NAME] [--tokens FILE] [--infer]
// Prints the detect report plus a round-trip report as JSON (sorted keys, indent 2): assistant
// messages with one and with two tool calls rendered through the template and parsed back with
// the dialect (dialects/resolve.hpp). --infer ignores the registered families and checks the
// dialect inferred from the template alone. Exit 1 when a round trip fails.
#include <memory>

#include "cli/app.hpp"
#include "dialects/resolve.hpp"

namespace toolchat::cli {

namespace {
struct CheckArgs {
  TemplateOptions t;
  bool infer = false;
};
}  // namespace

Verb add_check(CLI::App& root) {
  auto a = std::make_shared<CheckArgs>();
  CLI::App* app = root.add_subcommand(
      "check", "detect + round trip: render 1 and 2 tool calls, parse them back (exit 1 when one fails)");
  a->t.add_to(*app, true);
  app->add_flag("--infer", a->infer, "ignore the registered families: check the dialect inferred from the template");
  app->footer("Example:\n  toolchat check --template tests/corpus/templates/vllm-internlm2_tool.jinja --infer");
  return {app, [a] {
            LoadedTemplate lt = load_template(a->t);
            bool ok = false;
            Value report = dialects::check_report(lt.source, lt.special_tokens, &ok, a->infer);
            write_stdout(pretty_json(report));
            if (!ok) throw Failure("a round trip failed (see \"round_trip\")");
            return kOk;
          }};
}

}  // namespace toolchat::cli
