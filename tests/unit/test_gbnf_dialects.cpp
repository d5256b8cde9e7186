// Every dialect's call grammar, checked against its fixture file (tests/dialects/fixtures/<name>.json)
// with the GBNF matcher (gbnf_matcher.hpp). For each case with tool calls, no warnings and no content
// (the whole output is call-shaped, reasoning allowed) the grammar built from the case's tools (or,
// when it has none, tools whose schemas the expected calls imply) must accept the input, and must
// reject: the input with the tools renamed, the input with a required argument added to every tool,
// and the input truncated. A grammar for one named tool (the gateway's tool_choice) accepts a case
// only when every call is to that tool.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>

#include "dialects/dialect.hpp"
#include "value/json.hpp"
#include "gbnf_matcher.hpp"
#include "implied_tools.hpp"

using namespace toolchat;
using namespace toolchat::dialects;
using toolchat::testing::implied_tools;

namespace {

const std::string kFixtures = "tests/dialects/fixtures/";

// Fixture cases that show parser leniency for variants a grammar does not generate (the grammar
// writes one canonical form of the format); each is named with the reason.
const std::map<std::string, std::set<std::string>> kNotGenerated = {
    // Wrappers and argument encodings other than <tool_call>{"name", "arguments": {…}}</tool_call>
    // (a Python dict instead of JSON, as small models write).
    {"hermes", {"arguments_as_string", "function_call_wrapper", "python_dict_call",
                // The near-miss forms of small models (near_miss.cpp), recovered, never generated.
                "near_miss_array_in_tool_call", "near_miss_bare_object_whole", "near_miss_fence_after_marker",
                "near_miss_fenced_array", "near_miss_fenced_whole_output", "near_miss_function_eq",
                "near_miss_function_name_attr", "near_miss_json_wrapper", "near_miss_response_wrapper",
                "near_miss_tool_wrapper", "near_miss_tools_wrapper", "near_miss_qwen25_coder_pretty_bare_object"}},
    // The template's own <|"|> value syntax: the grammar writes the arguments as JSON.
    {"gemma4", {"one_call", "string_holding_close_marker"}},
    // Attribute escapes and a <|open|>json block: the grammar writes typed argument elements.
    {"kimi_k3", {"escaped_attribute", "json_block"}},
    // Misspelt markers (the grammar writes the real ones).
    {"deepseek_v3", {"variant_tool_calls_marker", "variant_underscores", "variant_spaces_no_fence"}},
    {"deepseek_v31", {"fenced_args_tolerated", "underscore_variant"}},
    // {"type": "function", "arguments"}, several calls, leading text: the grammar writes one {"name", "parameters"}.
    // vLLM's cases: other separators, a property the schema does not list; a fenced near miss.
    {"llama3_json", {"type_function_and_arguments", "semicolon_parallel", "array_of_calls", "comma_parallel",
                     "vllm_parallel_newline_separated", "vllm_parallel_bare_semicolon", "vllm_three_calls_spaced_semicolons",
                     "vllm_brackets_and_escaped_quotes_in_strings", "near_miss_fenced_whole_output",
                     "llama4_scout_type_function_json"}},
    // [TOOL_CALLS]NAME{…} is what is left when the tokenizer drops [ARGS]; the grammar writes [ARGS].
    {"mistral", {"decoded_without_markers"}},
    // A call section inside unclosed thinking; ids without the "functions." prefix.
    // vLLM's pretty-printed JSON arguments (whitespace beyond the grammar's).
    {"kimi_k2", {"calls_at_end_of_unclosed_thinking", "id_without_functions_prefix_and_dotted_name",
                 "vllm_angle_brackets_and_multiline_json"}},
    // Raw code for the python tool (the grammar writes JSON arguments).
    {"functionary_v32", {"llama_cpp_raw_python"}},
    {"functionary_v31", {"python_tag_raw_code"}},
    {"firefunction_v2", {"arguments_as_json_string"}},
    // Values invalid for their schema types, calls without the <tool_call> wrapper, Hermes JSON inside
    // the block, two functions in one block, a missing </parameter>.
    // Whitespace beyond llama.cpp's json-schema-to-grammar `space` (a space then a newline).
    {"qwen3_coder", {"invalid_for_type_kept_as_text", "bare_function_without_tool_call", "two_functions_in_one_block",
                     "hermes_json_in_block", "missing_parameter_close", "multiline_object_param_vllm"}},
    // A literal "\n" between tags, arguments out of schema order, JSON with escaped quotes.
    {"glm45", {"literal_backslash_n", "schema_typed", "escaped_json_value"}},
    // Extra attributes, a value invalid for its type, the MiniMax-M1 <tool_calls> JSON-lines form.
    {"minimax_m2", {"extra_attributes_vllm", "schema_typed", "m1_single", "m1_parallel_with_reasoning"}},
    // The recipient in the role header, a call on the analysis channel: the grammar writes the
    // commentary-channel form llama.cpp generates. The builtin python / browser tools are the
    // model's own, not the request's functions the grammar constrains to.
    {"gpt_oss", {"llama_cpp_role_header_recipient", "start_header_recipient", "call_on_analysis_channel",
                 "builtin_python_call", "builtin_python_without_stop", "builtin_browser_search"}},
    // Llama 4 / Olmo 3 / LFM2 wrappers, JSON objects, raw and triple-quoted strings, tuples.
    {"pythonic", {"llama4_python_start", "olmo3_lines", "json_objects_in_wrapper", "unicode_and_escapes", "nested_json_arguments"}},
    // Free-text, fenced or empty Action Input, text after the "Observation:" stop word.
    {"react", {"langchain_free_text_input", "free_text_input_streams", "free_text_unknown_tool_schema", "stop_word_written_by_model_ends_the_call",
               "nested_json", "code_fenced_json", "free_text_multiline", "empty_input_is_no_arguments"}},
    {"llamafactory_default", {"prompt_example_in_backticks"}},
    // Raw code, text after the ✿RESULT✿ stop word, a trailing comment, a call without ✿ARGS✿.
    {"qwen_agent", {"code_interpreter_code_block", "invented_result_is_dropped", "trailing_comment_is_cut", "name_only_before_stop_word",
                    "code_block_quoting_a_fence_then_a_comment", "code_block_first_line_not_a_tag", "free_text_arguments"}},
    // The vLLM plain <tool_call> prefix, Granite 4 Hermes style, granite-20b <function_call>: the
    // grammar writes Granite 3.x <|tool_call|>[…].
    {"granite", {"plain_tool_call_prefix_vllm", "granite4_hermes_style", "granite_20b_function_call",
                 "near_miss_bare_array_whole_output", "near_miss_fenced_whole_output"}},
    {"phi4_mini", {"vllm_functools_parameters_key"}},
    // Raw code for the code interpreter, raw strings, tuples and a trailing comma.
    {"chatglm3", {"code_interpreter", "interpreter_code_quoting_a_fence", "unicode_and_escapes", "nested_python_literals"}},
    {"llama3_builtin", {"raw_code_to_end"}},
    // Untagged <function_calls> with a JSON body, mixed closing tags, parameters without string=,
    // the V4 <｜DSML｜tool_calls> block.
    {"deepseek_v32", {"plain_tags_json_body", "mixed_closing_tags", "no_string_attr_typed_by_schema", "v4_tool_calls_block"}},
};

// A copy of `tools` with f applied to each function object.
template <class F>
Value map_functions(const Value& tools, F f) {
  Value out = json::parse(json::dumps(tools));
  for (const Value& t : out.items()) f(*t.dict_obj().find("function"));
  return out;
}

std::string tool_name(const Value& tool) { return std::string(tool.dict_obj().find("function")->dict_obj().find("name")->str()); }

// Fixtures show many calls and long reasoning, opened by the model or by the prompt.
GrammarOptions fixture_options(GrammarOptions::Reasoning r) {
  GrammarOptions o;
  o.max_calls = 16;
  o.reasoning = r;
  o.max_reasoning_chars = 4096;
  return o;
}

// Whether the grammar accepts `text` with reasoning optional or forced open by the prompt.
bool accepts(const Dialect& d, const Value& tools, const std::string& text) {
  for (auto r : {GrammarOptions::Reasoning::Optional, GrammarOptions::Reasoning::Open}) {
    auto g = d.grammar(tools, fixture_options(r));
    if (g && gbnf_test::Grammar(*g).matches(text)) return true;
  }
  return false;
}

}  // namespace

TEST(GbnfDialects, FixtureCallsMatchAndNearMissesDoNot) {
  size_t with_grammar = 0;
  std::vector<std::string> failures;  // "dialect / case: what", reported together
  auto fail = [&](const Dialect& d, const std::string& c, const std::string& what) {
    failures.push_back(std::string(d.name) + " / " + c + ": " + what);
  };
  for (const Dialect* d : all()) {
    if (!d->grammar) continue;
    ++with_grammar;
    Value f = json::parse_file(kFixtures + std::string(d->name) + ".json");
    auto skip = kNotGenerated.find(std::string(d->name));
    size_t checked = 0;
    for (const Value& c : f.dict_obj().find("cases")->items()) {
      const DictObj& cd = c.dict_obj();
      const Value* calls = cd.find("tool_calls");
      const Value* content = cd.find("content");
      if (!calls || calls->items().empty() || cd.find("warnings") || (content && content->is_str() && !content->str().empty()))
        continue;
      std::string name(cd.find("name")->str());
      if (skip != kNotGenerated.end() && skip->second.count(name)) continue;
      ++checked;
      std::string input(cd.find("input")->str());
      Value tools = cd.find("tools") ? *cd.find("tools") : implied_tools(*calls);

      // The grammar text parses and every rule it uses is defined.
      auto text = d->grammar(tools, fixture_options(GrammarOptions::Reasoning::Optional));
      ASSERT_TRUE(text.has_value());
      gbnf_test::Grammar g(*text);
      EXPECT_EQ(g.undefined(), std::vector<std::string>{}) << *text;
      if (!accepts(*d, tools, input)) fail(*d, name, "rejected: " + input);

      Value renamed = map_functions(tools, [](const Value& fn) {
        fn.dict_obj().set(Value::string("name"), Value::string("zz_" + std::string(fn.dict_obj().find("name")->str())));
      });
      if (accepts(*d, renamed, input)) fail(*d, name, "accepted with the tools renamed");

      Value stricter = map_functions(tools, [](const Value& fn) {
        const Value* p = fn.dict_obj().find("parameters");
        Value params = p && p->is_dict() ? *p : json::parse(R"({"type": "object"})");
        if (!params.dict_obj().find("properties")) params.dict_obj().set(Value::string("properties"), Value::dict());
        params.dict_obj().find("properties")->dict_obj().set(Value::string("zz_needed"), json::parse(R"({"type": "string"})"));
        if (!params.dict_obj().find("required")) params.dict_obj().set(Value::string("required"), Value::list());
        std::vector<Value> req = params.dict_obj().find("required")->items();
        req.push_back(Value::string("zz_needed"));
        params.dict_obj().set(Value::string("required"), Value::list(req));
        fn.dict_obj().set(Value::string("parameters"), params);
      });
      if (accepts(*d, stricter, input)) fail(*d, name, "accepted without a required argument");

      std::string trimmed = input;
      while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.pop_back();
      // Cut inside the last call (a cut between two calls leaves a valid output).
      std::vector<size_t> cuts = {trimmed.size() - 1, trimmed.size() > 5 ? trimmed.size() - 5 : 0};
      if (calls->items().size() == 1) cuts.push_back(trimmed.size() / 2);
      for (size_t cut : cuts)
        if (accepts(*d, tools, trimmed.substr(0, cut))) fail(*d, name, "accepted truncated: " + trimmed.substr(0, cut));

      // Named tool: only that tool's calls.
      std::set<std::string> called;
      for (const Value& call : calls->items()) called.emplace(call.dict_obj().find("name")->str());
      for (const Value& t : tools.items()) {
        std::string n = tool_name(t);
        bool only = called.size() == 1 && called.count(n);
        if (accepts(*d, Value::list({t}), input) != only)
          fail(*d, name, "a grammar for the one tool " + n + (only ? " rejected it" : " accepted other tools"));
      }
    }
    if (!checked) fail(*d, "-", "no call-shaped fixture case checks the grammar");
  }
  EXPECT_GE(with_grammar, 1u);
  std::string report;
  for (const auto& f : failures) report += f + "\n";
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures:\n" << report;
}
