// The engine's public API: compile once / render many, error kinds and positions, limits.
#include <gtest/gtest.h>

#include "toolchat/jinja.hpp"
#include "value/json.hpp"

using toolchat::Error;
using toolchat::ErrorKind;
using toolchat::Value;
using toolchat::jinja::EngineLimits;
using toolchat::jinja::Template;

namespace {

Value vars(const char* json) { return toolchat::json::parse(json); }

std::string render(const std::string& src, const char* json = "{}", EngineLimits lim = {}) {
  return Template::compile(src, "t.jinja", lim).render(vars(json)).text;
}

Error render_error(const std::string& src, const char* json = "{}", EngineLimits lim = {}) {
  try {
    render(src, json, lim);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for " << src;
  return Error(ErrorKind::InternalError, "");
}

}  // namespace

TEST(template_api, renders_a_chat_loop) {
  const char* ctx = R"({"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"yo"}],
                        "add_generation_prompt":true})";
  std::string src =
      "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}"
      "{% if add_generation_prompt %}<|assistant|>{% endif %}";
  EXPECT_EQ(render(src, ctx), "<|user|>hi\n<|assistant|>yo\n<|assistant|>");
}

TEST(template_api, compiled_template_renders_many_times) {
  Template t = Template::compile("{{ x }}-{% for i in items %}{{ i }}{% endfor %}");
  EXPECT_EQ(t.render(vars(R"({"x":1,"items":[1,2]})")).text, "1-12");
  EXPECT_EQ(t.render(vars(R"({"x":"a","items":[]})")).text, "a-");
}

TEST(template_api, generation_spans_count_code_points) {
  auto r = Template::compile("é{% generation %}ü{{ x }}{% endgeneration %}").render(vars(R"({"x":"ß"})"));
  EXPECT_EQ(r.text, "éüß");
  ASSERT_EQ(r.generation_spans.size(), 1u);
  EXPECT_EQ(r.generation_spans[0], std::make_pair(size_t{1}, size_t{3}));
}

TEST(template_api, syntax_error_has_kind_and_position) {
  try {
    Template::compile("line one\n  {{ foo bar }}", "chat.jinja");
    FAIL() << "expected a syntax error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::TemplateSyntaxError);
    EXPECT_EQ(e.message(), "expected token 'end of print statement', got 'bar'");
    std::string d = e.describe();
    EXPECT_NE(d.find("chat.jinja:2:10: TemplateSyntaxError"), std::string::npos) << d;
    EXPECT_NE(d.find("  {{ foo bar }}\n"), std::string::npos) << d;
    EXPECT_NE(d.find("\n           ^"), std::string::npos) << d;
  }
}

TEST(template_api, runtime_error_points_at_the_innermost_expression) {
  Error e = render_error("ok\n{{ 1 + (2 // zero) }}", R"({"zero":0})");
  EXPECT_EQ(e.kind(), ErrorKind::ZeroDivisionError);
  EXPECT_EQ(e.message(), "integer division or modulo by zero");
  EXPECT_NE(e.describe().find("t.jinja:2:"), std::string::npos) << e.describe();
}

TEST(template_api, raise_exception_message_is_kept_word_for_word) {
  Error e = render_error("{{ raise_exception('Only user and assistant roles are supported!') }}");
  EXPECT_EQ(e.kind(), ErrorKind::TemplateError);
  EXPECT_EQ(e.message(), "Only user and assistant roles are supported!");
}

TEST(template_api, undefined_errors_use_jinja_wording) {
  EXPECT_EQ(render_error("{{ foo.bar }}").message(), "'foo' is undefined");
  EXPECT_EQ(render_error("{{ d.nope.x }}", R"({"d":{}})").message(), "'dict object' has no attribute 'nope'");
  EXPECT_EQ(render_error("{{ l[5].x }}", R"({"l":[]})").message(), "list object has no element 5");
  EXPECT_EQ(render("[{{ foo }}][{{ d.nope }}]", R"({"d":{}})"), "[][]");
}

TEST(template_api, output_limit_stops_a_string_bomb) {
  EngineLimits lim;
  lim.max_output_bytes = 1000;
  Error e = render_error("{% for i in range(100) %}{{ 'x' * 50 }}{% endfor %}", "{}", lim);
  EXPECT_EQ(e.kind(), ErrorKind::LimitError);
  EXPECT_NE(e.message().find("output exceeds the limit"), std::string::npos);
}

// One rule for "the template failed" (the CLI's exit code 3): a Jinja2 kind wherever it comes
// from, any kind raised at a place in a template, and not a limit met by an input.
TEST(template_api, template_failure_rule_at_the_edges) {
  EngineLimits lim;
  lim.max_output_bytes = 1000;
  Error output = render_error("{% for i in range(100) %}{{ 'x' * 50 }}{% endfor %}", "{}", lim);
  ASSERT_EQ(output.kind(), ErrorKind::LimitError);
  EXPECT_TRUE(output.source() != nullptr);
  EXPECT_TRUE(toolchat::is_template_failure(output));  // a limit the template reached
  EngineLimits tiny;
  tiny.max_template_bytes = 4;
  try {
    Template::compile("{{ x }}", "t.jinja", tiny);
    ADD_FAILURE() << "no LimitError for a template over max_template_bytes";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::LimitError);
    EXPECT_FALSE(e.has_position());
    EXPECT_FALSE(toolchat::is_template_failure(e));  // the input is over a limit
  }
  Error json_limit(ErrorKind::LimitError, "JSON input too large");
  EXPECT_FALSE(toolchat::is_template_failure(json_limit));
  // FilterArgumentError is Jinja2's and only a filter raises it: the template's, positioned or not.
  Error filter_arg(ErrorKind::FilterArgumentError, "bad argument");
  EXPECT_TRUE(toolchat::is_template_failure(filter_arg));
  Error positioned = render_error("{{ 3.5 | round(0, 'up') }}");
  ASSERT_EQ(positioned.kind(), ErrorKind::FilterArgumentError);
  EXPECT_TRUE(toolchat::is_template_failure(positioned));
  // A builtin kind is the template's only when raised in it.
  Error type_in_template = render_error("{{ 1 + 'a' }}");
  ASSERT_EQ(type_in_template.kind(), ErrorKind::TypeError);
  EXPECT_TRUE(toolchat::is_template_failure(type_in_template));
  EXPECT_FALSE(toolchat::is_template_failure(Error(ErrorKind::TypeError, "context must be a JSON object")));
  EXPECT_FALSE(toolchat::is_template_failure(Error(ErrorKind::OSError, "x.json: No such file or directory")));
  EXPECT_TRUE(toolchat::is_jinja_error_kind(ErrorKind::UndefinedError));
  EXPECT_FALSE(toolchat::is_jinja_error_kind(ErrorKind::LimitError));
}

TEST(template_api, step_limit_stops_nested_loops) {
  EngineLimits lim;
  lim.max_steps = 10000;
  Error e = render_error("{% for i in range(1000) %}{% for j in range(1000) %}{% endfor %}{% endfor %}", "{}", lim);
  EXPECT_EQ(e.kind(), ErrorKind::LimitError);
  EXPECT_NE(e.message().find("work limit"), std::string::npos);
}

TEST(template_api, call_depth_limit_stops_runaway_macros) {
  EngineLimits lim;
  lim.max_call_depth = 50;
  Error e = render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "{}", lim);
  EXPECT_EQ(e.kind(), ErrorKind::RecursionError);
}

TEST(template_api, parser_depth_limit_rejects_deep_nesting) {
  EngineLimits lim;
  lim.max_parse_depth = 64;
  std::string src = "{{ " + std::string(200, '(') + "1" + std::string(200, ')') + " }}";
  try {
    Template::compile(src, "deep", lim);
    FAIL() << "expected a limit error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::LimitError);
  }
}

TEST(template_api, template_size_limit) {
  EngineLimits lim;
  lim.max_template_bytes = 10;
  EXPECT_THROW(Template::compile("hello world, this is long", "", lim), Error);
}

TEST(template_api, value_size_limit_stops_repetition) {
  EngineLimits lim;
  lim.max_value_bytes = 1 << 20;
  Error e = render_error("{% set x = 'a' * 100000000 %}", "{}", lim);
  EXPECT_EQ(e.kind(), ErrorKind::LimitError);
}
