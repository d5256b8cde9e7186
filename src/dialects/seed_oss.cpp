// ByteDance Seed-OSS (docs/dialects.md §3.2, vLLM seed_oss parser):
//   <seed:tool_call>\n<function=NAME>\n<parameter=k>v</parameter>\n</function>\n</seed:tool_call>
// the Qwen3-Coder layout under seed: tags, values typed by the tool schema the same way; reasoning in
// <seed:think>…</seed:think> (budget notes <seed:cot_budget_reflect>… stay in the reasoning text).
#include "dialects/gbnf.hpp"
#include "dialects/xml_calls.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

const XmlSyntax& syntax() {
  static const XmlSyntax s = [] {
    XmlSyntax x = function_parameter_syntax("<seed:tool_call>", "</seed:tool_call>");
    x.think_open = "<seed:think>";
    x.think_close = "</seed:think>";
    return x;
  }();
  return s;
}

int score(const std::string& src, const chat::Capabilities*) {
  int s = 0;
  if (scan::has(src, "<seed:tool_call>")) s += 70;
  if (scan::has(src, "<seed:think>")) s += 20;
  return s;
}

// The template's use_json_tooldef form (the JSON tool list) and its call-format instruction.
std::string prompt(const Value& tools) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  std::string list;
  try {
    list = json::dumps(tools.is_list() ? tools : Value::list(), o);
  } catch (const std::exception&) {
    list = "[]";
  }
  return "Tool List:\nYou are authorized to use the following tools (described in JSON Schema format). Before "
         "performing any task, you must decide how to call them based on the descriptions and parameters of these "
         "tools.\n" + list +
         "\n工具调用请遵循如下格式:\n<seed:tool_call>\n<function=example_function_name>\n"
         "<parameter=example_parameter_1>value_1</parameter>\n<parameter=example_parameter_2>This is the value for "
         "the second parameter\nthat can span\nmultiple lines</parameter>\n</function>\n</seed:tool_call>\n";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<XmlCallParser>(o, syntax()); }

// <seed:tool_call><function=NAME><parameter=KEY>value</parameter>…</function></seed:tool_call>, after an
// optional <seed:think> block.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    std::string ws = b.ws();
    std::string call = b.function_parameter_call(tools, "<seed:tool_call>", "</seed:tool_call>");
    return b.reasoning("<seed:think>", "</seed:think>") + " " + b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_seed_oss() {
  static const Dialect d{"seed_oss", {"seed-oss", "seedoss", "seed"},
                         "ByteDance Seed-OSS <seed:tool_call><function=N><parameter=k>, <seed:think>", &score, &prompt,
                         &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
