// Rows of a known shape labelled from a memo and written straight from their JSON lines
// (convert/label_memo.hpp, convert/line_memo.hpp): every row must be what the value path
// without render reuse writes, errors included, and the line path must be taken where it can.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "convert/label_memo.hpp"
#include "convert/line_memo.hpp"
#include "convert/pipeline.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::convert;

namespace {

struct Converted {
  std::string text;      // each row's output lines, or its reported reason
  size_t skeletons = 0;  // skeletons the line path knows at the end
};

// The rows converted one by one on one labeler, as run_convert's workers convert them.
Converted convert_lines(const std::string& rows, const std::string& model, bool reuse, bool line_path = true) {
  ConvertConfig cfg;
  cfg.model = model;
  cfg.output = "-";
  cfg.list_mismatches = !line_path;  // (the line path does not list them)
  LabelOptions opts;
  opts.reuse_renders = reuse;
  opts.reason_details = false;  // as run_convert sets it without --check
  Labeler labeler(model, opts);
  Converted out;
  std::istringstream in(rows);
  size_t n = 0;
  for (std::string line; std::getline(in, line);) {
    RowResult r;
    convert_line(labeler, cfg, nullptr, line, r);
    out.text += std::to_string(++n) + ": ";
    out.text += r.error ? r.reason + "\n" : r.out;
    for (const auto& [t, reasons] : r.stats.mismatches)
      for (const auto& [reason, count] : reasons)
        out.text += "  " + t + ": " + reason + " x" + std::to_string(count) + "\n";
    out.text += "  turns " + std::to_string(r.stats.turns) + " served " + std::to_string(r.stats.served) + " spans " +
                std::to_string(r.stats.trained_spans) + "\n";
  }
  if (LinePath* p = LabelerAccess::line_path(labeler, cfg, nullptr)) out.skeletons = p->known();
  return out;
}

// The same rows with render reuse (memos and the line path) and without: the same output.
// Returns the number of skeletons the line path learned.
size_t expect_same(const std::string& rows, const std::string& model) {
  const Converted with = convert_lines(rows, model, true), without = convert_lines(rows, model, false);
  EXPECT_EQ(with.text, without.text);
  EXPECT_EQ(without.skeletons, 0u);
  return with.skeletons;
}

std::string row(const std::string& user, const std::string& assistant, const std::string& more = "") {
  return R"({"messages": [{"role": "user", "content": ")" + user + R"("}, {"role": "assistant", "content": ")" +
         assistant + R"("}])" + more + "}\n";
}

const char* kQwen25 = "examples/qwen2.5/chat_template.jinja";
const char* kQwen3 = "tests/corpus/templates/ollama-qwen3-0.6b.jinja";

const std::string kTools =
    R"(, "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.", )"
    R"("parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])";

std::string model_file(const std::string& name, const std::string& source) {
  const fs::path p = fs::temp_directory_path() / name;
  std::ofstream(p, std::ios::binary) << source;
  return p.string();
}

}  // namespace

// Texts escaped every way JSON allows, non-ASCII and astral characters, through the line path.
TEST(ConvertLineMemo, KnownSkeletonsGiveTheValuePathsRows) {
  std::string rows;
  const char* texts[] = {"Hi", R"(say \"hi\")", R"(two\nlines\tand\\ a slash \/)", R"(caf\u00e9 \ud83d\ude00)",
                         "naïve 日本語 😀", R"(tab\there)", "x", R"(\u0041\u00e9)"};
  for (int round = 0; round < 3; ++round)
    for (const char* t : texts) {
      rows += row(t, std::string("Sure: ") + t);
      rows += row(t, "Weather.", kTools);
    }
  EXPECT_GE(expect_same(rows, kQwen25), 2u);
}

// The same messages with another tool description or another template variable: other skeletons,
// never the known one's row.
TEST(ConvertLineMemo, ADifferentToolOrVariableIsAnotherSkeleton) {
  std::string other = kTools;
  other.replace(other.find("Weather for"), 7, "Climate");
  std::string rows;
  for (int round = 0; round < 4; ++round) {
    rows += row("Hi", "Sure.", kTools);
    rows += row("Hello", "Yes.", other);
  }
  EXPECT_GE(expect_same(rows, kQwen25), 2u);
  // What follows the messages is matched whole (KnownTails): members before them, after them, or
  // a tools list that differs only near its end.
  std::string late = kTools;
  late.replace(late.find("\"string\""), 8, "\"number\"");
  rows.clear();
  for (int round = 0; round < 4; ++round) {
    rows += R"({"tools": [], "messages": [{"role": "user", "content": "Hi"}, )"
            R"({"role": "assistant", "content": "A"}]})" "\n";
    rows += row("Hi", "Sure.", kTools + R"(, "documents": [{"title": "T", "text": "D"}])");
    rows += row("Hi", "Sure.", late);
    rows += row("Hi", "Sure.", kTools);
  }
  EXPECT_GE(expect_same(rows, kQwen25), 3u);
  rows.clear();
  for (int round = 0; round < 4; ++round)
    for (const char* thinking : {"false", "true"})
      rows += row("Hi", "Sure.", std::string(R"(, "chat_template_kwargs": {"enable_thinking": )") + thinking + "}");
  const Converted with = convert_lines(rows, kQwen3, true);
  EXPECT_EQ(with.text, convert_lines(rows, kQwen3, false).text);
  EXPECT_NE(with.text.find("<think>\\n\\n</think>"), std::string::npos) << with.text;
}

// Texts a template looks into ("</think>", which Qwen3 splits on) or could tell from a marker
// (space at an end) take the value path on a known skeleton.
TEST(ConvertLineMemo, TextsTheTemplateInspectsTakeTheValuePath) {
  std::string rows;
  for (int round = 0; round < 3; ++round) rows += row("Hi", "Sure.");
  rows += row("Hi", R"(<think>\nplan\n</think>\n\nSure.)");
  rows += row("Hi ", "Sure.");
  rows += row("Hi", "Sure.\\n");
  rows += row("Hi", "Sure.");
  EXPECT_GE(expect_same(rows, kQwen3), 1u);
  EXPECT_GE(expect_same(rows, kQwen25), 1u);
}

// A template where a row's spans depend on its text: after the user's text and ":" the prefix
// render goes on with "END", the whole conversation with the assistant's text. A text starting with
// "END" moves where the user's run ends. The audit refuses the memo (the decision falls on a
// text's first byte); without it, the known shape's spans would be given to that row.
TEST(ConvertLineMemo, NoMemoWhereATextDecidesWhereARunEnds) {
  const std::string model = model_file("toolchat_line_memo_end.jinja",
                                       "{% for m in messages %}{{ m.content }}:{% endfor %}"
                                       "{% if not add_generation_prompt %}END{% endif %}");
  std::string rows;
  for (const char* a : {"Sure", "Fine", "Good", "ENDless", "Okay", "END"}) rows += row("Hi", a);
  expect_same(rows, model);
  const Converted with = convert_lines(rows, model, true);
  EXPECT_NE(with.text.find(R"({"role": "user", "train": true, "start": 3, "end": 6)"), std::string::npos) << with.text;
  // The prefix render and the whole one part at template bytes ("<|last" / "<|next"), and the
  // run is backed off over "<|" to the user's text: one ending in "|" is backed off into.
  const std::string model2 = model_file("toolchat_line_memo_bar.jinja",
                                        "{% for m in messages %}{{ m.content }}<|{% if loop.last %}last|>"
                                        "{% else %}next|>{% endif %}{% endfor %}");
  rows.clear();
  for (const char* u : {"Hi", "Yo", "Ok", "Bar|", "Hey", "<|"}) rows += row(u, "Sure");
  expect_same(rows, model2);
  EXPECT_NE(convert_lines(rows, model2, true).text.find(R"("end": 3, "byte_start": 0, "byte_end": 3})"),
            std::string::npos);
}

// The turn check's search for text the template adds after the last message compares the ends of
// two renders: here the last turn shows "[last]" before its text, so whether the whole text ends
// as the conversation ending with turn 1 does depends on the two assistant texts (equal ones, or
// one ending with "[last]" and the other, move turn 1's target).
TEST(ConvertLineMemo, NoMemoWhereTwoTextsDecideATailMatch) {
  const std::string model = model_file("toolchat_line_memo_tail.jinja",
                                       "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}::"
                                       "{% if loop.last %}[last]{% endif %}{% endif %}{{ m.content }}{% endfor %}"
                                       "{% if add_generation_prompt %}<assistant>{% else %}<eot>{% endif %}");
  auto two = [](const std::string& a1, const std::string& a2) {
    return R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": ")" + a1 +
           R"("}, {"role": "user", "content": "More"}, {"role": "assistant", "content": ")" + a2 + R"("}]})" + "\n";
  };
  std::string rows;
  for (const char* a : {"One", "Two", "Three", "Four"}) rows += two(a, std::string("Not ") + a);
  rows += two("Same", "Same") + two("Tail", "x[last]Tail") + two("Five", "Six");
  expect_same(rows, model);
}

// Call arguments given as a JSON string are parsed by the turn check: a value it cannot find
// in the prompt (an escape the arguments text spells otherwise) makes the turn not served, on
// the value path and on a known skeleton alike.
TEST(ConvertLineMemo, StringArgumentsAreLookedAtPerLine) {
  auto call = [](const std::string& args) {
    return R"({"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "", )"
           R"("tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": ")" +
           args + R"("}}]}, {"role": "tool", "tool_call_id": "c1", "content": "Sunny."}, )"
           R"({"role": "assistant", "content": "It is sunny."}])" + kTools + "}\n";
  };
  std::string rows;
  for (const char* city : {"Paris", "Rome", "Oslo", "caf\\\\u00e9", "Lima", "a \\\\\\\"b\\\\\\\"", "Kyiv"})
    rows += call(std::string(R"({\"city\": \")") + city + R"(\"})");
  EXPECT_GE(expect_same(rows, kQwen25), 1u);
  const Converted with = convert_lines(rows, kQwen25, true);
  EXPECT_NE(with.text.find("does not show"), std::string::npos) << with.text;
}

// Lines of a known skeleton that json::parse refuses or reads otherwise: the value path's error.
TEST(ConvertLineMemo, BadTextsGetTheValuePathsErrors) {
  std::string rows;
  for (int round = 0; round < 3; ++round) rows += row("Hi", "Sure.");
  rows += row("Hi", R"(bad \x escape)");
  rows += row("Hi", "raw\tcontrol");
  rows += row("Hi", "bad \xff byte");
  rows += row("Hi", R"(lone \ud800 surrogate)");
  rows += row("Hi", R"(low \udc00 first)");
  rows += row("Hi", R"(short \u12)");
  rows += row("Hi", "Sure.") + "\n";
  rows += R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Sure."}]} x)" "\n";
  EXPECT_GE(expect_same(rows, kQwen25), 1u);
}

// Texts a template prints inside a Python repr (Llama 3.1 shows a content list as the list's
// repr): put back as repr spells them. A text holding ' and no " is quoted "..." by repr (the
// marker's quotes are '...'); ' with " is escaped \'; backslashes, newlines, control and
// non-printable characters are escaped their own way (\x01, \u200b), printable non-ASCII kept.
// The turn check finds a text there only when the repr spells it as it is or as JSON would:
// others ("it's \"so\"") are not served, on the value path and a known skeleton alike.
TEST(ConvertLineMemo, ReprShownTextsAreSpeltAsReprSpellsThem) {
  const char* kLlama31 = "tests/corpus/templates/ollama-llama3.1-8b.jinja";
  auto parts = [](const std::string& user, const std::string& assistant) {
    return R"({"messages": [{"role": "system", "content": [{"type": "text", "text": "Be brief."}]}, )"
           R"({"role": "user", "content": [{"type": "text", "text": "Look:"}, {"type": "text", "text": ")" + user +
           R"("}]}, {"role": "assistant", "content": [{"type": "text", "text": ")" + assistant +
           R"("}]}, {"role": "user", "content": "More?"}, {"role": "assistant", "content": "Done."}]})" "\n";
  };
  std::string rows;
  const char* texts[] = {"a red apple", "L'Aquila", R"(it's \"so\")", R"(back\\slash)", R"(two\nlines)",
                         "caf\u00e9 日本", R"(zero\u200bwidth)", R"(ctl\u0001x)", R"(only \"double\")", "plain"};
  for (int round = 0; round < 2; ++round)
    for (const char* t : texts) {
      rows += parts(t, "Fine.");
      rows += parts("An apple.", t);
    }
  EXPECT_GE(expect_same(rows, kLlama31), 1u);
  const Converted with = convert_lines(rows, kLlama31, true);
  EXPECT_NE(with.text.find(R"('text': \"L'Aquila\")"), std::string::npos) << with.text;
  EXPECT_NE(with.text.find("does not show"), std::string::npos) << with.text;
  // Nested: a call's arguments printed as a dict holding a list and a dict.
  const std::string model = model_file("toolchat_line_memo_repr.jinja",
                                       "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% if m.tool_calls %}"
                                       "{{ m.tool_calls[0].function.arguments }}{% endif %}{% endfor %}"
                                       "{% if add_generation_prompt %}<assistant>{% endif %}");
  auto call = [](const std::string& city) {
    return R"({"messages": [{"role": "user", "content": "Weather?"}, {"role": "assistant", "content": "", )"
           R"("tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": )"
           R"({"where": {"city": ")" + city + R"(", "tags": ["x", ")" + city + R"("]}}}}]}, )"
           R"({"role": "tool", "tool_call_id": "c1", "content": "Sunny."}, {"role": "assistant", "content": "Sunny."}]})" "\n";
  };
  rows.clear();
  for (int round = 0; round < 2; ++round)
    for (const char* t : texts) rows += call(t);
  expect_same(rows, model);
}

// A shape the template refuses: lines of its skeleton get the value path's error without being
// read, but for texts the template looks into (here "</think>" makes it render, and a space at
// an end is one a trim could remove) and texts json::parse refuses (its own error).
TEST(ConvertLineMemo, RefusedShapesGiveTheirErrorPerLine) {
  const std::string model = model_file("toolchat_line_memo_refused.jinja",
                                       "{% for m in messages %}{% if m.role == 'assistant' and '</think>' not in m.content %}"
                                       "{{ raise_exception('no thinking in ' + m.role) }}{% endif %}"
                                       "<{{ m.role }}>{{ m.content | trim }}{% endfor %}");
  std::string rows;
  for (const char* a : {"Sure", "Fine", "Good", "a</think>b", "Okay ", R"(bad \x escape)", "Yes"}) rows += row("Hi", a);
  EXPECT_GE(expect_same(rows, model), 1u);
  const Converted with = convert_lines(rows, model, true);
  EXPECT_NE(with.text.find("no thinking in assistant"), std::string::npos) << with.text;
  EXPECT_NE(with.text.find("<assistant>a</think>b"), std::string::npos) << with.text;
}

// Texts with whitespace other than ASCII's at an end (which trim removes) or a marker character
// inside take the value path on a known skeleton, as the render cache screens them: the line
// path's pass tells such texts from plain ASCII ones, which skip those two looks.
TEST(ConvertLineMemo, NonAsciiTextsAreScreenedAsTheRenderCacheScreensThem) {
  const std::string model = model_file("toolchat_line_memo_trim.jinja",
                                       "{% for m in messages %}<{{ m.role }}>[{{ m.content | trim }}]{% endfor %}"
                                       "{% if add_generation_prompt %}<assistant>{% endif %}");
  std::string rows;
  for (const char* a : {"Sure", "Fine", "Good", "Yes\u00a0", "\u3000Yes", "Yes\u2009", "Ok\\u00a0", "\u00e9t\u00e9",
                        "a\ue000b", "\u00a0", "Okay"})
    rows += row("Hi", a);
  EXPECT_GE(expect_same(rows, model), 1u);
}

// A line of a known skeleton larger than json::parse reads (ReadLimits::max_bytes) is the value
// path's bad row ("JSON input too large"), not a row written from the line.
TEST(ConvertLineMemo, ALineTooLargeForJsonParseTakesTheValuePath) {
  ConvertConfig cfg;
  cfg.model = kQwen25;
  cfg.output = "-";
  LabelOptions opts;
  opts.reason_details = false;
  Labeler labeler(kQwen25, opts);
  for (int round = 0; round < 3; ++round) {
    RowResult r;
    std::string line = row("Hi", "Sure.");
    line.pop_back();
    convert_line(labeler, cfg, nullptr, line, r);
    ASSERT_FALSE(r.error) << r.reason;
  }
  LinePath* path = LabelerAccess::line_path(labeler, cfg, nullptr);
  ASSERT_TRUE(path);
  ASSERT_GE(path->known(), 1u);
  std::string line = R"({"messages": [{"role": "user", "content": ")";
  line.append(json::ReadLimits{}.max_bytes, 'a');
  line += R"("}, {"role": "assistant", "content": "Sure."}]})";
  RowResult r;
  convert_line(labeler, cfg, nullptr, line, r);
  ASSERT_TRUE(r.error);
  EXPECT_NE(r.reason.find("too large"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.out.empty());
}

namespace {

// Rows around a long user text, converted with render reuse (the line path on and off) and
// without: the same, the long ones the engine's LimitError. The second is the first line of its
// skeleton (no spaces) on a known shape: its error is no failure of the shape's to learn.
void expect_engine_limit(const std::string& model, size_t text_bytes) {
  auto compact = [](const std::string& user) {
    return R"({"messages":[{"role":"user","content":")" + user + R"("},{"role":"assistant","content":"Sure."}]})" "\n";
  };
  const std::string long_text(text_bytes, 'a');
  std::string rows;
  for (int round = 0; round < 3; ++round) rows += row("Hi", "Sure.");
  rows += row(long_text, "Sure.") + compact(long_text) + compact("Hi") + compact("Hello");
  const Converted without = convert_lines(rows, model, false);
  ASSERT_NE(without.text.find("4: LimitError"), std::string::npos) << without.text.substr(0, 300);
  ASSERT_NE(without.text.find("5: LimitError"), std::string::npos) << without.text.substr(0, 300);
  for (bool line_path : {true, false}) {
    const Converted with = convert_lines(rows, model, true, line_path);
    EXPECT_TRUE(with.text == without.text) << "line path " << line_path << ": " << with.text.substr(0, 300);
  }
}

}  // namespace

// A render longer than the engine's output limit (a text under 1 MiB shown 70 times) is its
// LimitError with render reuse too: on the line path and from the render cache's shapes.
TEST(ConvertLineMemo, ARenderOverTheOutputLimitIsTheEnginesError) {
  const std::string model = model_file("toolchat_line_memo_output_limit.jinja",
                                       "{%- for m in messages %}<|{{ m.role }}|>{%- for i in range(70) %}{{ m.content }}"
                                       "{%- endfor %}<|end|>{%- endfor %}");
  expect_engine_limit(model, 1000000);
}

// A string built past the engine's value limit (content + content) but not shown whole: the real
// render's LimitError, which a render with markers does not meet.
TEST(ConvertLineMemo, LongTextsAreRenderedForRealForTheValueLimit) {
  const std::string model = model_file("toolchat_line_memo_value_limit.jinja",
                                       "{%- for m in messages %}{%- set doubled = m.content + m.content %}"
                                       "<|{{ m.role }}|>{{ m.content }}<|end|>{%- endfor %}");
  expect_engine_limit(model, (jinja::EngineLimits{}.max_value_bytes / 2) + 1);
}
