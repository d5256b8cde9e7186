// LLaMA-Factory's "default" tool format (tool_utils.py DefaultToolUtils, docs/dialects.md §8):
// "Action: NAME\nAction Input: {json}", several pairs joined by "\n". Unlike ReAct the input must be
// JSON (free text is a malformed call, kept as content) and Thought/Observation are plain text.
// Scanner shared with react.cpp (react_scan.cpp).
#include "dialects/gbnf.hpp"
#include "dialects/react_scan.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "dialects/tool_fields.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

int score(const std::string& src, const chat::Capabilities*) {
  if (!scan::has(src, "Action Input:")) return 0;
  return scan::has(src, "in a JSON format representing the kwargs") ? 75 : 10;
}

// DefaultToolUtils.tool_formatter: per parameter "  - NAME (TYPE[, required]): DESC[, should be one of
// [A, B]][, where each item should be TYPE]".
std::string prompt(const Value& tools) {
  std::string text, names;
  for (const auto& t : tool_fields(tools)) {
    std::string params;
    const Value* props = t.parameters.is_dict() ? t.parameters.dict_obj().find("properties") : nullptr;
    const Value* req = t.parameters.is_dict() ? t.parameters.dict_obj().find("required") : nullptr;
    if (props && props->is_dict())
      for (const auto& entry : props->dict_obj().entries) {
        const Value& k = entry.first;
        const Value& p = entry.second;  // a plain reference: lambdas cannot capture bindings in C++20 (clang)
        if (!k.is_str()) continue;
        auto str = [&](const char* key) {
          const Value* v = p.is_dict() ? p.dict_obj().find(key) : nullptr;
          return v && v->is_str() ? std::string(v->str()) : std::string();
        };
        bool required = false;
        if (req && req->is_list())
          for (const Value& r : req->items()) required |= r.is_str() && r.str() == k.str();
        std::string extra;
        const Value* en = p.is_dict() ? p.dict_obj().find("enum") : nullptr;
        if (en && en->is_list() && !en->items().empty()) {
          extra += ", should be one of [";
          for (size_t i = 0; i < en->items().size(); ++i) {
            const Value& e = en->items()[i];
            extra += (i ? ", " : "") + (e.is_str() ? std::string(e.str()) : python_json(e));
          }
          extra += "]";
        }
        const Value* items = p.is_dict() ? p.dict_obj().find("items") : nullptr;
        if (items && items->is_dict() && items->dict_obj().size() > 0) {
          const Value* ty = items->dict_obj().find("type");
          extra += ", where each item should be " + (ty && ty->is_str() ? std::string(ty->str()) : std::string());
        }
        params += "  - " + std::string(k.str()) + " (" + str("type") + (required ? ", required" : "") + "): " + str("description") +
                  extra + "\n";
      }
    text += "> Tool Name: " + t.name + "\nTool Description: " + t.description + "\nTool Args:\n" + params + "\n";
    names += (names.empty() ? "" : ", ") + t.name;
  }
  return "You have access to the following tools:\n" + text +
         "Use the following format if using a tool:\n```\nAction: tool name (one of [" + names +
         "])\nAction Input: the input to the tool, in a JSON format representing the kwargs "
         "(e.g. ```{\"input\": \"hello world\", \"num_beams\": 5}```)\n```\n";
}

std::unique_ptr<StreamParser> make(const ParseOptions& o) { return make_react_parser(o, ReactStyle{false, true}); }

// "Action: NAME\nAction Input: {json}", several joined by newlines.
std::optional<std::string> grammar(const Value& tools, const GrammarOptions& opts) {
  return gbnf::build(tools, opts, [&](gbnf::Builder& b) {
    // Each call on its own line (the parser reads "Action:" at a line's start).
    std::string call = b.name_then_args(tools, "Action: ", "\nAction Input: ");
    return b.calls(call, "\"\\n\"");
  });
}

}  // namespace

const Dialect& dialect_llamafactory_default() {
  static const Dialect d{"llamafactory_default", {"llamafactory", "lf_default"},
                         "LLaMA-Factory default: Action: NAME / Action Input: {json}", &score, &prompt, &make, &grammar};
  return d;
}

}  // namespace toolchat::dialects
