// Qwen1 / LangChain ReAct (docs/dialects.md §3.4): "Thought: …\nAction: NAME\nAction Input: ARGS", stopped
// by the stop word "Observation:"; "Final Answer: …" ends the loop. Thought goes to reasoning, the
// final answer (and any unlabelled text) to content. Action Input is JSON or free text; free text
// becomes {FIRST_PARAM: text} (LangChain's handling of a string tool input; "input" when the tool is
// unknown). Scanner: react_scan.cpp.
#include "dialects/gbnf.hpp"
#include "dialects/react_scan.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "Action Input:") || !scan::has(src, "Observation:")) return 0;
  // LLaMA-Factory's default format asks for JSON kwargs and has no Observation/Final Answer loop.
  if (scan::has(src, "in a JSON format representing the kwargs")) return 20;
  return scan::has(src, "Final Answer:") ? 70 : 55;
}

std::string prompt(const Value& tools) {
  std::string descs, names;
  for (const auto& t : tool_fields(tools)) {
    if (!descs.empty()) descs += "\n\n";
    if (!names.empty()) names += ",";
    std::string params = t.parameters.is_undefined() ? "{}" : python_json(t.parameters);
    descs += t.name + ": Call this tool to interact with the " + t.name + " API. What is the " + t.name +
             " API useful for? " + t.description + " Parameters: " + params + " Format the arguments as a JSON object.";
    names += t.name;
  }
  return "Answer the following questions as best you can. You have access to the following tools:\n\n" + descs +
         "\n\nUse the following format:\n\n"
         "Question: the input question you must answer\n"
         "Thought: you should always think about what to do\n"
         "Action: the action to take, should be one of [" + names + "]\n"
         "Action Input: the input to the action\n"
         "Observation: the result of the action\n"
         "... (this Thought/Action/Action Input/Observation can be repeated zero or more times)\n"
         "Thought: I now know the final answer\n"
         "Final Answer: the final answer to the original input question\n\nBegin!";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return make_react_parser(o, ReactStyle{true, false}); }

// ["Thought: …\n"] "Action: NAME\nAction Input: {json}", several joined by newlines (JSON input only).
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    // The Thought line is ReAct's reasoning: bounded, and only when the options allow reasoning.
    const GrammarOptions& o = b.options();
    std::string thought = o.reasoning == GrammarOptions::Reasoning::None || o.max_reasoning_chars == 0
                              ? std::string()
                              : b.rule("thought", "( " + literal("Thought:") + " [^\\n]{0," + std::to_string(o.max_reasoning_chars) +
                                                      "} \"\\n\" )?");
    std::string call = b.per_tool(tools, "call", [&](const std::string& name, const std::string& args) {
      return thought + " " + literal("Action: " + name + "\nAction Input: ") + " " + args;
    });
    return b.calls(call, ws);
  });
}

}  // namespace

const Dialect& dialect_react() {
  static const Dialect d{"react", {"qwen_react", "langchain_react", "qwen1"},
                         "ReAct: Thought / Action / Action Input / Observation / Final Answer", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
