// toolchat: one binary, one verb per file (cmd_*.cpp). This file builds the command line (CLI11),
// turns its parse errors into messages with a suggestion, and runs the chosen verb.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "cli/app.hpp"

#ifndef TOOLCHAT_VERSION
#define TOOLCHAT_VERSION "unknown"
#endif

namespace toolchat::cli {
namespace {

std::vector<std::string> long_options(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* o : app.get_options())
    for (const auto& n : o->get_lnames()) out.push_back("--" + n);
  return out;
}

// CLI11 2.1 reports "The following arguments were not expected: ..." without saying which option
// was meant; the first stray argument is worded here, with the nearest option or verb.
int extras_error(const CLI::App& root, const CLI::App* verb, const std::vector<std::string>& extras) {
  std::string who = verb ? "toolchat " + verb->get_name() : "toolchat";
  std::string help = verb ? "toolchat " + verb->get_name() + " --help" : "toolchat --help";
  const std::string& arg = extras.empty() ? std::string() : extras.front();
  std::string msg;
  if (arg.size() > 1 && arg[0] == '-') {
    std::string name = arg.substr(0, arg.find('='));
    msg = "unknown option " + name;
    std::string near = nearest(name, long_options(verb ? *verb : root));
    if (!near.empty()) msg += "; did you mean " + near + "?";
  } else if (!verb) {
    msg = "unknown verb '" + arg + "'";
    std::vector<std::string> verbs;
    for (const CLI::App* s : root.get_subcommands({})) verbs.push_back(s->get_name());
    std::string near = nearest(arg, verbs);
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
  } else {
    msg = "unexpected argument '" + arg + "'";
  }
  std::fprintf(stderr, "%s: %s\nRun '%s' for the options.\n", who.c_str(), msg.c_str(), help.c_str());
  return kUsage;
}

}  // namespace

int main_impl(int argc, char** argv) {
  CLI::App root("toolchat: chat templates rendered as transformers does, tool calls parsed out of model "
                "output, training data converted, and an OpenAI-compatible gateway.",
                "toolchat");
  // An option given twice: the last one wins (as argparse and llama-server do), so a wrapper's
  // defaults can be overridden by appending.
  root.option_defaults()->always_capture_default()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  root.set_version_flag("--version", TOOLCHAT_VERSION, "print the version and exit");
  root.require_subcommand(1);
  root.fallthrough(false);
  root.footer(
      "Every option can also come from the environment: TOOLCHAT_<OPTION> for serve (--port: TOOLCHAT_PORT),\n"
      "TOOLCHAT_<VERB>_<OPTION> for the other verbs (parse --seed: TOOLCHAT_PARSE_SEED); the command line wins.\n"
      "Exit codes: 0 done, 1 the work failed, 2 bad command line, 3 the chat template failed.\n"
      "Example:\n  toolchat render --model examples/qwen2.5 --messages examples/tool_use.json\n"
      "Run 'toolchat VERB --help' for a verb's options.");
  std::map<const CLI::App*, Verb> verbs;
  for (auto add : {add_render, add_detect, add_parse, add_check, add_convert, add_serve, add_tokenize, add_completion}) {
    Verb v = add(root);
    add_env_names(*v.app);
    verbs[v.app] = std::move(v);
  }
  if (argc < 2) {
    std::fputs(root.help().c_str(), stderr);
    return kUsage;
  }
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    // On stdout, exit 0, the verb's help when a verb was given.
    auto chosen = root.get_subcommands();
    return output_written(chosen.empty() ? "toolchat" : "toolchat " + chosen.front()->get_name(), root.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return output_written("toolchat", root.exit(e));
  } catch (const CLI::ExtrasError&) {
    auto chosen = root.get_subcommands();
    const CLI::App* verb = chosen.empty() ? nullptr : chosen.front();
    std::vector<std::string> extras = verb ? verb->remaining(false) : std::vector<std::string>{};
    if (extras.empty()) extras = root.remaining(false);
    return extras_error(root, verb, extras);
  } catch (const CLI::ParseError& e) {
    auto chosen = root.get_subcommands();
    if (chosen.empty() && argv[1][0] != '-') return extras_error(root, nullptr, {argv[1]});  // not a verb
    // An unknown option explains a missing one ("--prot 1": --port is not missing, it is misspelt).
    if (!chosen.empty())
      for (const std::string& x : chosen.front()->remaining(false))
        if (x.size() > 1 && x[0] == '-') return extras_error(root, chosen.front(), {x});
    std::string verb = chosen.empty() ? "" : chosen.front()->get_name();
    std::string who = verb.empty() ? "toolchat" : "toolchat " + verb;
    std::fprintf(stderr, "%s: %s\nRun '%s --help' for the options.\n", who.c_str(), e.what(), who.c_str());
    return kUsage;
  }
  const CLI::App* chosen = root.get_subcommands().front();
  return run_verb(chosen->get_name(), verbs.at(chosen).run);
}

}  // namespace toolchat::cli

int main(int argc, char** argv) { return toolchat::cli::main_impl(argc, argv); }
