// toolchat completion bash: a bash completion script made from the command line's own definition
// (its verbs, their long options and the choices CLI11 checks), so it cannot drift from the program.
// CLI11 2.1 (Debian 12) has no generator of its own.
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "value/pystr.hpp"

namespace toolchat::cli {

namespace {

// The choices of an option checked by CLI::IsMember: CLI11 writes them into the type name as
// "TEXT:{a,b,c}".
std::vector<std::string> choices_of(const CLI::Option& o) {
  std::string type = o.get_type_name();
  size_t open = type.find(":{"), close = type.rfind('}');
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos || close < open) return out;
  std::string list = type.substr(open + 2, close - open - 2);
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    if (comma > start) out.push_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string bash_script(const CLI::App& root) {
  std::vector<std::string> verbs = {"--help", "--version"};
  std::string option_cases, choice_cases;
  for (const CLI::App* verb : root.get_subcommands({})) {
    verbs.push_back(verb->get_name());
    std::vector<std::string> options, positional_choices;
    for (const CLI::Option* o : verb->get_options()) {
      for (const auto& n : o->get_lnames()) options.push_back("--" + n);
      std::vector<std::string> choices = choices_of(*o);
      if (choices.empty()) continue;
      if (o->get_lnames().empty()) positional_choices.insert(positional_choices.end(), choices.begin(), choices.end());
      for (const auto& n : o->get_lnames())
        choice_cases += "    " + verb->get_name() + ":--" + n + ") COMPREPLY=($(compgen -W '" + pystr::join(" ", choices) +
                        "' -- \"$cur\")); return ;;\n";
    }
    option_cases += "    " + verb->get_name() + ") options='" + pystr::join(" ", options) + "'" +
                    (positional_choices.empty() ? "" : " values='" + pystr::join(" ", positional_choices) + "'") + " ;;\n";
  }
  return "# bash completion for toolchat, made by `toolchat completion bash`:\n"
         "#   source <(toolchat completion bash)     (or save it in ~/.local/share/bash-completion/completions/toolchat)\n"
         "_toolchat() {\n"
         "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" prev=\"${COMP_WORDS[COMP_CWORD-1]}\" options='' values=''\n"
         "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
         "    COMPREPLY=($(compgen -W '" + pystr::join(" ", verbs) + "' -- \"$cur\")); return\n"
         "  fi\n"
         "  case \"${COMP_WORDS[1]}:$prev\" in\n" + choice_cases +
         "  esac\n"
         "  case \"${COMP_WORDS[1]}\" in\n" + option_cases +
         "  esac\n"
         "  if [[ \"$cur\" == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "  elif [ -n \"$values\" ]; then\n"
         "    COMPREPLY=($(compgen -W \"$values\" -- \"$cur\"))\n"
         "  else\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -o filenames -o bashdefault -F _toolchat toolchat\n";
}

}  // namespace

Verb add_completion(CLI::App& root) {
  auto shell = std::make_shared<std::string>();
  CLI::App* app = root.add_subcommand("completion", "print a shell completion script (bash)");
  app->add_option("SHELL", *shell, "the shell")->required()->check(CLI::IsMember({"bash"}));
  app->footer(
      "Prints a completion script for the verbs, their options and the values options take from a list.\n\n"
      "Example:\n"
      "  source <(toolchat completion bash)");
  return {app, [&root, shell] {
            write_stdout(bash_script(root));
            return kOk;
          }};
}

}  // namespace toolchat::cli
