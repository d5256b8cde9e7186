// ctest gbnf_crosscheck: every dialect's tool-call grammar must load in llama.cpp's own GBNF parser
// (tests/tools/gbnf_check.mjs, node-llama-cpp's prebuilt binding), since `toolchat serve` sends it
// to llama.cpp for tool_choice required / named. Grammars are built for the tools each fixture file
// implies or carries, for a toolset with every schema construct we translate
// (tests/crosscheck/gbnf_tools.json: enums with quotes and non-ASCII, nested objects, arrays, type
// lists, anyOf/oneOf/const, tool names with dots, dashes and non-ASCII), and for each tool of it
// alone (the grammar of a named tool_choice). Our own matcher (tests/unit/gbnf_matcher.hpp) checks
// what the grammars accept; this checks that llama.cpp reads them the same way we wrote them.
// Exit 77 (ctest: skipped) when node or node-llama-cpp cannot be had.
//
//   gbnf_crosscheck SOURCE_DIR WORK_DIR
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <sys/wait.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "dialects/dialect.hpp"
#include "implied_tools.hpp"
#include "shell_quote.hpp"
#include "value/json.hpp"

using namespace toolchat;
namespace fs = std::filesystem;

namespace {

using toolchat::testing::shell_quote;

// Every tool set a dialect's grammar is built for, by label.
std::map<std::string, Value> tool_sets(const fs::path& src, const dialects::Dialect& d, const Value& rich) {
  std::map<std::string, Value> sets;
  sets["rich"] = rich;
  for (size_t i = 0; i < rich.items().size(); ++i) sets["one" + std::to_string(i)] = Value::list({rich.items()[i]});
  fs::path fixture = src / "tests/dialects/fixtures" / (std::string(d.name) + ".json");
  if (!fs::exists(fixture)) return sets;
  Value f = json::parse_file(fixture.string());
  std::vector<Value> calls;
  size_t k = 0;
  for (const Value& c : f.dict_obj().find("cases")->items()) {
    if (const Value* t = c.dict_obj().find("tools"); t && t->is_list() && !t->items().empty())
      sets["case" + std::to_string(k++)] = *t;
    if (const Value* tc = c.dict_obj().find("tool_calls"); tc && tc->is_list())
      for (const Value& call : tc->items()) calls.push_back(call);
  }
  if (!calls.empty()) sets["implied"] = toolchat::testing::implied_tools(Value::list(calls));
  return sets;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gbnf_crosscheck SOURCE_DIR WORK_DIR\n";
    return 2;
  }
  fs::path src = argv[1], work = argv[2];
  std::string install = "bash " + shell_quote((src / "tests/tools/install_node_deps.sh").string()) + " 1>&2";
  if (std::system(install.c_str()) != 0) {
    std::cout << "SKIPPED: gbnf_crosscheck needs node and node-llama-cpp "
                 "(tests/tools/install_node_deps.sh could not install them)\n";
    return 77;
  }
  fs::remove_all(work);
  fs::create_directories(work);
  Value rich = json::parse_file((src / "tests/crosscheck/gbnf_tools.json").string());
  size_t written = 0;
  for (const dialects::Dialect* d : dialects::all()) {
    for (const auto& [label, tools] : tool_sets(src, *d, rich)) {
      // What the gateway asks for: one call, or several with thinking on (every bounded form).
      dialects::GrammarOptions one, many;
      many.max_calls = 8;
      many.reasoning = dialects::GrammarOptions::Reasoning::Optional;
      for (const auto& [suffix, opts] : {std::pair{"", one}, std::pair{".parallel", many}}) {
        std::optional<std::string> g = d->grammar(tools, opts);
        if (!g) continue;
        std::ofstream(work / (std::string(d->name) + "." + label + suffix + ".gbnf"), std::ios::binary) << *g;
        ++written;
      }
    }
  }
  std::string cmd = "node " + shell_quote((src / "tests/tools/gbnf_check.mjs").string()) + " " + shell_quote(work.string());
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return 77;
  std::string out;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = pclose(p);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  if (code == 77) {
    std::cerr << "gbnf_crosscheck: skipped (node-llama-cpp not available; tests/tools/install_node_deps.sh installs it)\n";
    return 77;
  }
  size_t ok = 0, refused = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    Value r = json::parse(line);
    if (r.dict_obj().find("ok")->as_bool()) {
      ++ok;
    } else {
      ++refused;
      std::string file(r.dict_obj().find("file")->str());
      std::cerr << "REFUSED by llama.cpp: " << file << ": " << r.dict_obj().find("error")->str() << "\n";
    }
  }
  std::cout << "gbnf_crosscheck: " << written << " grammars written, llama.cpp loaded " << ok << ", refused " << refused << "\n";
  if (code != 0 || ok + refused != written) {
    std::cerr << "gbnf_crosscheck: the checker exited " << code << " after " << ok + refused << " of " << written << " files\n";
    return 1;
  }
  return refused == 0 ? 0 : 1;
}
