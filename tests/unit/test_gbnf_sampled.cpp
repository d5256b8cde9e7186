// Whatever a dialect's call grammar admits, its own parser reads back as calls whose arguments are
// valid for the tools' schemas: texts sampled at random from each grammar (gbnf_matcher.hpp's
// sample(), the adversary a random-weight model is in tests/e2e) are parsed by the dialect and
// checked with the gateway's JSON Schema validator. The schemas hold what broke against a real
// llama-server: enums and bounded strings inside raw-text argument formats, plus const, numbers,
// booleans, nullable strings, nested objects and arrays.
#include <gtest/gtest.h>

#include <random>

#include "dialects/dialect.hpp"
#include "gateway/json_schema.hpp"
#include "value/json.hpp"
#include "gbnf_matcher.hpp"

using namespace toolchat;

namespace {

const char* kSampledTools = R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string", "minLength": 2, "maxLength": 24}, "days": {"type": "integer"},
                   "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
    "required": ["city", "days"]}}},
  {"type": "function", "function": {"name": "set_alarm", "parameters": {"type": "object",
    "properties": {"hour": {"type": "integer"}, "label": {"type": "string", "maxLength": 16}, "repeat": {"type": "boolean"},
                   "kind": {"const": "alarm"}, "level": {"enum": [1, 2, 3]}, "snooze": {"type": "number"},
                   "when": {"type": "object", "properties": {"day": {"enum": ["mon", "tue"]}, "minute": {"type": "integer"}},
                            "required": ["day"]},
                   "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
                   "note": {"type": ["string", "null"], "maxLength": 12}},
    "required": ["hour"]}}}
])";

// What is wrong with a parsed answer (empty when it is a valid set of calls).
std::string problem(const dialects::ParsedMessage& m, const Value& tools, size_t max_calls) {
  if (m.tool_calls.empty() || m.tool_calls.size() > max_calls) return std::to_string(m.tool_calls.size()) + " calls";
  for (const auto& c : m.tool_calls) {
    const Value* schema = nullptr;
    for (const Value& t : tools.items())
      if (t.dict_obj().find("function")->dict_obj().find("name")->str() == c.name)
        schema = t.dict_obj().find("function")->dict_obj().find("parameters");
    if (!schema) return "unknown tool " + c.name;
    Value args;
    try {
      args = json::parse(c.arguments);
    } catch (const std::exception& e) {
      return "arguments are not JSON: " + c.arguments;
    }
    if (auto v = gateway::schema_violation(args, *schema)) return *v + " in " + c.arguments;
  }
  return "";
}

}  // namespace

TEST(GbnfSampled, EveryGrammarReadsBackAsValidCalls) {
  Value tools = json::parse(kSampledTools);
  for (size_t max_calls : {1, 3}) {
    dialects::GrammarOptions opts;
    opts.max_calls = max_calls;
    for (const dialects::Dialect* d : dialects::all()) {
      if (!d->grammar) continue;
      auto text = d->grammar(tools, opts);
      ASSERT_TRUE(text) << d->name;
      gbnf_test::Grammar g(*text);
      std::mt19937 rng(7);
      dialects::ParseOptions po;
      po.tools = tools;
      int failures = 0;
      for (int i = 0; i < 300 && failures < 3; ++i) {
        std::string out = g.sample(rng);
        std::string why = problem(dialects::parse_all(*d, out, po), tools, max_calls);
        if (!why.empty()) {
          ++failures;
          ADD_FAILURE() << d->name << " (max_calls " << max_calls << "): " << why << "\n  sampled: " << json::dumps(Value::string(out));
        }
      }
    }
  }
}

// With tools whose every value is bounded (each string has a maxLength), every grammar is bounded:
// nothing it admits runs on (a random model writes whatever it admits, to the end of the context).
TEST(GbnfSampled, EveryGrammarIsBoundedWhenTheSchemasAre) {
  Value tools = json::parse(kSampledTools);
  for (size_t max_calls : {1, 8})
    for (const dialects::Dialect* d : dialects::all()) {
      if (!d->grammar) continue;
      dialects::GrammarOptions opts;
      opts.max_calls = max_calls;
      gbnf_test::Grammar g(*d->grammar(tools, opts));
      EXPECT_NE(g.longest(), SIZE_MAX) << d->name << " (max_calls " << max_calls << ") admits outputs of any length";
    }
}
