// MiniMax-M2 and M1 (docs/dialects.md §7.7):
//   M2: <minimax:tool_call>\n<invoke name="N">\n<parameter name="k">v</parameter>\n</invoke>\n</minimax:tool_call>
//       (several <invoke> per block; values trimmed and typed by the tool schema, "null" is null)
//   M1: <tool_calls>\n{"name": "N", "arguments": {…}}\n…\n</tool_calls> (one JSON object per line)
// <think>…</think> reasoning; the M2 generation prompt opens it (]~b]ai\n<think>\n: reasoning_open).
#include "dialects/gbnf.hpp"
#include "dialects/xml_calls.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

const XmlSyntax& syntax() {
  static const XmlSyntax s = [] {
    XmlSyntax x;
    x.block_open = {"<minimax:tool_call>"};
    x.block_close = "</minimax:tool_call>";
    x.call_open = "<invoke name=";
    x.name_end = {">"};
    x.call_close = "</invoke>";
    x.param_open = "<parameter name=";
    x.param_name_end = ">";
    x.param_close = "</parameter>";
    x.quoted_names = true;
    x.trim = schema::Trim::Whitespace;
    x.json_block_open = "<tool_calls>";
    x.json_block_close = "</tool_calls>";
    return x;
  }();
  return s;
}

int score(const std::string& src, const chat::Capabilities*) {
  if (scan::has(src, "<minimax:tool_call>")) return scan::has(src, "<invoke name=") ? 90 : 80;
  // M1: JSON lines in <tool_calls>, MiniMax's turn markers.
  if (scan::has(src, "<tool_calls>") && (scan::has(src, "MiniMax") || scan::has(src, "<beginning_of_sentence>")))
    return 75;
  return 0;
}

std::string prompt(const Value& tools) {
  // As the M2 template shows them: each tool's function object, json.dumps-style, in <tool>.
  std::string t;
  json::DumpOptions o;
  o.ensure_ascii = false;
  if (tools.is_list())
    for (const Value& x : tools.items()) {
      const Value* f = x.is_dict() ? x.dict_obj().find("function") : nullptr;
      try {
        t += "<tool>" + json::dumps(f ? *f : x, o) + "</tool>\n";
      } catch (const std::exception&) {
      }
    }
  return "# Tools\nYou may call one or more tools to assist with the user query.\n"
         "Here are the tools available in JSONSchema format:\n\n<tools>\n" + t +
         "</tools>\n\nWhen making tool calls, use XML format to invoke tools and pass parameters:\n\n"
         "<minimax:tool_call>\n<invoke name=\"tool-name-1\">\n<parameter name=\"param-key-1\">param-value-1</parameter>\n"
         "<parameter name=\"param-key-2\">param-value-2</parameter>\n...\n</invoke>\n</minimax:tool_call>";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return std::make_unique<XmlCallParser>(o, syntax()); }

// MiniMax-M3: the M2 calls, reasoning in <mm:think>…</mm:think> (its generation prompt opens it).
const XmlSyntax& syntax_m3() {
  static const XmlSyntax s = [] {
    XmlSyntax x = syntax();
    x.think_open = "<mm:think>";
    x.think_close = "</mm:think>";
    return x;
  }();
  return s;
}
std::unique_ptr<StreamParser> make_m3(const ParseOptions& o) { return std::make_unique<XmlCallParser>(o, syntax_m3()); }
int score_m3(const std::string& src, const chat::Capabilities*) {
  return scan::has(src, "<minimax:tool_call>") && scan::has(src, "<mm:think>") ? 95 : 0;
}

// <minimax:tool_call><invoke name="NAME"><parameter name="KEY">value</parameter>…</invoke>…
// </minimax:tool_call>, after an optional reasoning block.
std::optional<std::string> grammar_with(const Value& tools, const GrammarOptions& opts, std::string_view think_open,
                                        std::string_view think_close) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    using gbnf::literal;
    std::string ws = b.ws();
    auto param = [&](const std::string& key, const std::string& value) {
      return literal("<parameter name=\"") + " " + key + " " + literal("\">") + " " + value + " " + literal("</parameter>");
    };
    // A value ends at its close tag, or where the next parameter, the call or the block begins or ends.
    gbnf::ValueText form{{"</parameter>", "<parameter name=", "</invoke>", "</minimax:tool_call>"}, schema::Trim::Whitespace, "", ""};
    std::string invoke = b.per_tool_params(tools, "invoke", [&](const std::string& name, const Value& params) {
      return literal("<invoke name=\"" + name + "\">") + " " + ws + " " +
             b.arg_elements(params, name + "-params", form, param) + " " + ws + " " + literal("</invoke>");
    });
    return b.reasoning(think_open, think_close) + " " + literal("<minimax:tool_call>") + " " + ws + " " + b.calls(invoke, ws) + " " +
           ws + " " + literal("</minimax:tool_call>");
  });
}

std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return grammar_with(tools, opts, "<think>", "</think>");
}
std::optional<std::string> grammar_m3(const Value& tools, const GrammarOptions& opts) {
  return grammar_with(tools, opts, "<mm:think>", "</mm:think>");
}

}  // namespace

const Dialect& dialect_minimax_m3() {
  static const Dialect d{"minimax_m3", {"minimax-m3"}, "MiniMax-M3: the M2 <minimax:tool_call> calls, <mm:think> reasoning",
                         &score_m3, &prompt, &make_m3, &grammar_m3};
  return d;
}

const Dialect& dialect_minimax_m2() {
  static const Dialect d{"minimax_m2", {"minimax", "minimax-m2", "minimax_m1", "minimax-m1"},
                         "MiniMax-M2 <minimax:tool_call><invoke name=…><parameter name=…>, M1 <tool_calls> JSON lines",
                         &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
