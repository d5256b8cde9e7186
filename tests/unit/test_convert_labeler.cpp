// Loss spans: equal to the oracle's {% generation %} spans (corpus goldens) for the corpus
// templates that have the tag; for the others, every train span holds exactly one assistant
// message's content and calls; Qwen3's rewritten turns (left untrained, or rows of their own with
// --split); loss overrides and the train-on-prompt / last-turn-only options; code point offsets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "chat/render_case.hpp"
#include "convert/formats.hpp"
#include "convert/labeler.hpp"
#include "value/json.hpp"
#include "value/pystr.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::convert;

namespace {

const std::string kTemplates = "tests/corpus/templates/";

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Value tokens_of(const std::string& name) {
  std::string p = kTemplates + name + ".tokens.json";
  return fs::exists(p) ? json::parse_file(p) : Value::dict();
}

LabelOptions opts_for(const std::string& name) {
  LabelOptions o;
  o.special_tokens = tokens_of(name);
  return o;
}

// A corpus context as an openai-format training row: its messages (followed by an assistant
// answer when it does not end with one), tools, documents, other keys as template kwargs.
Sample training_sample(const Value& ctx) {
  Value row = Value::dict();
  std::vector<Value> msgs = ctx.dict_obj().find("messages")->items();
  const Value* last_role = msgs.empty() ? nullptr : msgs.back().dict_obj().find("role");
  if (!last_role || last_role->str() != "assistant") {
    Value a = Value::dict();
    a.dict_obj().set(Value::string("role"), Value::string("assistant"));
    a.dict_obj().set(Value::string("content"), Value::string("Here is the final answer."));
    msgs.push_back(a);
  }
  row.dict_obj().set(Value::string("messages"), Value::list(msgs));
  Value kwargs = Value::dict();
  for (const auto& [k, v] : ctx.dict_obj().entries) {
    std::string_view key = k.str();
    if (key == "tools" || key == "documents") row.dict_obj().set(k, v);
    else if (key != "messages" && key != "add_generation_prompt" && key != "continue_final_message" && key != "special_tokens")
      kwargs.dict_obj().set(k, v);
  }
  if (kwargs.dict_obj().size()) row.dict_obj().set(Value::string("chat_template_kwargs"), kwargs);
  return read_openai(row);
}

std::vector<std::pair<std::string, Value>> corpus_contexts() {
  std::vector<std::pair<std::string, Value>> out;
  for (const auto& e : fs::directory_iterator("tests/corpus/contexts")) {
    Value ctx = json::parse_file(e.path().string());
    const Value* cont = ctx.dict_obj().find("continue_final_message");
    if (cont && truthy(*cont)) continue;
    out.emplace_back(e.path().stem().string(), ctx);
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

std::vector<std::pair<size_t, size_t>> train_cp(const Row& r) {
  std::vector<std::pair<size_t, size_t>> out;
  Value row = json::parse(row_json(r));
  for (const auto& s : row.dict_obj().find("spans")->items())
    if (s.dict_obj().find("train")->as_bool())
      out.emplace_back(s.dict_obj().find("start")->as_int(), s.dict_obj().find("end")->as_int());
  return out;
}

std::string text_of(const Value* content) {
  if (!content || content->is_none()) return "";
  if (content->is_str()) return std::string(content->str());
  std::string out;
  for (const auto& p : content->items())
    if (const Value* t = p.dict_obj().find("text")) out += t->str();
  return out;
}

}  // namespace

// Golden generation spans (the oracle's, tests/corpus/expected) for every corpus template with
// {% generation %}, on every corpus context whose golden renders.
TEST(ConvertLabeler, GenerationSpansEqualOracle) {
  size_t templates = 0, compared = 0;
  for (const auto& e : fs::directory_iterator(kTemplates)) {
    if (e.path().extension() != ".jinja") continue;
    std::string name = e.path().stem().string();
    if (!has_generation_tag(slurp(e.path().string()))) continue;
    ++templates;
    Labeler labeler(e.path().string(), opts_for(name));
    for (const auto& [cname, ctx] : corpus_contexts()) {
      SCOPED_TRACE(name + " / " + cname);
      Value golden = json::parse_file("tests/corpus/expected/" + name + "__" + cname + ".json");
      if (golden.dict_obj().find("error")) continue;
      // The golden's own conversation (its assistant turns as given; add_generation_prompt
      // only appends the next header, which holds no span).
      Value row = Value::dict();
      for (const auto& [k, v] : ctx.dict_obj().entries)
        if (k.str() == "messages" || k.str() == "tools" || k.str() == "documents") row.dict_obj().set(k, v);
      Labeled l = labeler.label(read_openai(row));
      std::string_view gtext = golden.dict_obj().find("text")->str();
      ASSERT_EQ(gtext.compare(0, l.rows[0].text.size(), l.rows[0].text), 0) << "text is not a prefix of the golden";
      std::vector<std::pair<size_t, size_t>> want;
      for (const auto& s : golden.dict_obj().find("generation_spans")->items())
        want.emplace_back(s.items()[0].as_int(), s.items()[1].as_int());
      EXPECT_EQ(train_cp(l.rows[0]), want);
      for (const auto& t : l.turns) EXPECT_TRUE(t.served) << "messages[" << t.message << "]: " << t.reason;
      ++compared;
    }
  }
  EXPECT_GE(templates, 2u);
  EXPECT_GE(compared, 10u);
}

// Without the tag: each train span is one served assistant turn, and holds that message's
// content and call names and no other message's text.
TEST(ConvertLabeler, TrainSpansHoldOneAssistantTurn) {
  size_t spans = 0;
  for (const auto& e : fs::directory_iterator(kTemplates)) {
    if (e.path().extension() != ".jinja") continue;
    std::string name = e.path().stem().string();
    if (has_generation_tag(slurp(e.path().string()))) continue;
    Labeler labeler(e.path().string(), opts_for(name));
    for (const auto& [cname, ctx] : corpus_contexts()) {
      SCOPED_TRACE(name + " / " + cname);
      Sample s = training_sample(ctx);
      Labeled l;
      try {
        l = labeler.label(s);
      } catch (const Error&) {
        continue;  // the template refuses this conversation (as transformers does)
      }
      const Row& row = l.rows[0];
      std::vector<const Span*> trained;
      for (const auto& sp : row.spans)
        if (sp.train) trained.push_back(&sp);
      std::vector<size_t> served;
      for (const auto& t : l.turns)
        if (t.served) served.push_back(t.message);
      ASSERT_EQ(trained.size(), served.size());
      const auto& msgs = s.context.dict_obj().find("messages")->items();
      for (size_t k = 0; k < trained.size(); ++k) {
        std::string span = row.text.substr(trained[k]->begin, trained[k]->end - trained[k]->begin);
        const Value& m = msgs[served[k]];
        EXPECT_EQ(trained[k]->role, "assistant");
        std::string content = pystr::strip(text_of(m.dict_obj().find("content")));
        if (!content.empty()) { EXPECT_NE(span.find(content), std::string::npos) << "content missing from " << span; }
        if (const Value* calls = m.dict_obj().find("tool_calls"))
          for (const auto& c : calls->items()) {
            std::string fn(c.dict_obj().find("function")->dict_obj().find("name")->str());
            EXPECT_NE(span.find(fn), std::string::npos) << fn << " missing from " << span;
          }
        for (size_t j = 0; j < msgs.size(); ++j) {
          if (j == served[k]) continue;
          std::string other = pystr::strip(text_of(msgs[j].dict_obj().find("content")));
          if (other.size() >= 8 && other != content && content.find(other) == std::string::npos) {
            EXPECT_EQ(span.find(other), std::string::npos) << "messages[" << j << "] text inside " << span;
          }
        }
        ++spans;
      }
    }
  }
  EXPECT_GT(spans, 500u);
}

namespace {

Sample qwen3_two_turns() {
  Value row = json::parse(R"({"messages": [
    {"role": "user", "content": "What is 2+2?"},
    {"role": "assistant", "reasoning_content": "Two plus two.", "content": "4."},
    {"role": "user", "content": "And 3+3?"},
    {"role": "assistant", "reasoning_content": "Three plus three.", "content": "6."}]})");
  return read_openai(row);
}

std::string span_text(const Row& r, const Span& s) { return r.text.substr(s.begin, s.end - s.begin); }

}  // namespace

// Qwen3 drops past reasoning: the first turn, as the last turn, is "<think>...</think>\n\n4."
// but the full text shows "4." alone, so train = serve cannot hold for it in that text.
TEST(ConvertLabeler, Qwen3RewrittenTurn) {
  const std::string name = "ollama-qwen3-0.6b";
  Labeler labeler(kTemplates + name + ".jinja", opts_for(name));
  Labeled l = labeler.label(qwen3_two_turns());
  ASSERT_EQ(l.turns.size(), 2u);
  EXPECT_FALSE(l.turns[0].served);
  EXPECT_NE(l.turns[0].reason.find("later turns"), std::string::npos) << l.turns[0].reason;
  EXPECT_TRUE(l.turns[1].served) << l.turns[1].reason;
  ASSERT_EQ(l.rows.size(), 1u);
  std::vector<std::string> trained;
  for (const auto& s : l.rows[0].spans)
    if (s.train) trained.push_back(span_text(l.rows[0], s));
  EXPECT_EQ(trained, std::vector<std::string>{"<think>\nThree plus three.\n</think>\n\n6.<|im_end|>"});

  LabelOptions o = opts_for(name);
  o.split_rewritten = true;
  Labeler split(kTemplates + name + ".jinja", o);
  Labeled ls = split.label(qwen3_two_turns());
  ASSERT_EQ(ls.rows.size(), 2u);
  const Row& own = ls.rows[1];
  std::vector<std::string> own_trained;
  for (const auto& s : own.spans)
    if (s.train) own_trained.push_back(span_text(own, s));
  EXPECT_EQ(own_trained, std::vector<std::string>{"<think>\nTwo plus two.\n</think>\n\n4.<|im_end|>"});
  // The split row is the prompt a gateway sends for that turn, then the target.
  Value ctx = json::parse(R"({"messages": [{"role": "user", "content": "What is 2+2?"}], "add_generation_prompt": true})");
  chat::CaseResult prompt = chat::render_case(slurp(kTemplates + name + ".jinja"), ctx, tokens_of(name), {});
  ASSERT_TRUE(prompt.ok);
  EXPECT_EQ(own.text.rfind(prompt.text + own_trained[0], 0), 0u);
}

TEST(ConvertLabeler, LossOverridesAndOptions) {
  const std::string model = "examples/qwen2.5/chat_template.jinja";
  // ChatGLM3's loss flags: the user turn trained, the first answer not.
  Value row = json::parse(R"({"conversations": [{"role": "user", "content": "Say hi", "loss": true},
    {"role": "assistant", "content": "hi", "loss": false}, {"role": "user", "content": "Again"},
    {"role": "assistant", "content": "hi again"}]})");
  Sample s = read_chatglm3(row);
  auto trained = [](const Labeled& l) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& sp : l.rows[0].spans)
      if (sp.train) out.emplace_back(sp.role, span_text(l.rows[0], sp));
    return out;
  };
  using P = std::pair<std::string, std::string>;
  {
    Labeler lab(model, {});
    auto t = trained(lab.label(s));
    ASSERT_EQ(t.size(), 2u);
    EXPECT_EQ(t[0].first, "user");
    EXPECT_NE(t[0].second.find("Say hi"), std::string::npos);
    EXPECT_EQ(t[1], P("assistant", "hi again<|im_end|>"));
  }
  {
    LabelOptions o;
    o.last_turn_only = true;
    Labeler lab(model, o);
    Sample plain = read_openai(json::parse(R"({"messages": [{"role": "user", "content": "a"},
      {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}]})"));
    auto t = trained(lab.label(plain));
    EXPECT_EQ(t, std::vector<P>{P("assistant", "d<|im_end|>")});
  }
  {
    LabelOptions o;
    o.train_on_prompt = true;
    Labeler lab(model, o);
    Labeled l = lab.label(s);
    for (const auto& sp : l.rows[0].spans) EXPECT_TRUE(sp.train);
  }
}

// start/end count code points (Python's str indexes), byte_start/byte_end UTF-8 bytes.
TEST(ConvertLabeler, RowJsonOffsets) {
  Row r;
  r.text = "\xC3\xA9\xF0\x9F\x98\x80x";  // "é😀x": 3 code points, 7 bytes
  r.spans = {{"user", false, 0, 2}, {"assistant", true, 2, 7}};
  Value v = json::parse(row_json(r));
  EXPECT_EQ(v.dict_obj().find("text")->str(), r.text);
  const auto& sp = v.dict_obj().find("spans")->items();
  ASSERT_EQ(sp.size(), 2u);
  auto num = [&](size_t i, const char* k) { return sp[i].dict_obj().find(k)->as_int(); };
  EXPECT_EQ(num(0, "start"), 0);
  EXPECT_EQ(num(0, "end"), 1);
  EXPECT_EQ(num(1, "start"), 1);
  EXPECT_EQ(num(1, "end"), 3);
  EXPECT_EQ(num(1, "byte_start"), 2);
  EXPECT_EQ(num(1, "byte_end"), 7);
  EXPECT_EQ(sp[1].dict_obj().find("role")->str(), "assistant");
  EXPECT_TRUE(sp[1].dict_obj().find("train")->as_bool());
}

// A template that cannot show tool calls (Qwen 1.5's): the call turn is reported, not trained
// on an empty target; with the polyfills the calls are shown as text and the turn is trained.
TEST(ConvertLabeler, PolyfillsMakeCallTurnsTrainable) {
  const std::string name = "ollama-qwen-0.5b";
  Value row = json::parse(R"({"messages": [{"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
    {"role": "tool", "content": "3 degrees"}, {"role": "assistant", "content": "It is 3 degrees."}],
    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]})");
  Sample s = read_openai(row);
  Labeler plain(kTemplates + name + ".jinja", opts_for(name));
  Labeled l = plain.label(s);
  ASSERT_EQ(l.turns.size(), 2u);
  EXPECT_FALSE(l.turns[0].served);
  EXPECT_TRUE(l.turns[0].reason.find("does not show") != std::string::npos || l.turns[0].reason.find("no text") != std::string::npos) << l.turns[0].reason;
  EXPECT_TRUE(l.turns[1].served) << l.turns[1].reason;

  LabelOptions o = opts_for(name);
  o.polyfills = chat::polyfill_options_from_list("all");
  Labeler filled(kTemplates + name + ".jinja", o);
  Labeled f = filled.label(s);
  for (const auto& t : f.turns) EXPECT_TRUE(t.served) << "messages[" << t.message << "]: " << t.reason;
  std::string trained;
  for (const auto& sp : f.rows[0].spans)
    if (sp.train) trained += span_text(f.rows[0], sp);
  EXPECT_NE(trained.find("get_weather"), std::string::npos) << trained;
  EXPECT_NE(trained.find("Oslo"), std::string::npos) << trained;
}

// The {% generation %} tag is found as the regex {%[-+]?\s*generation\s*[-+]?%} finds it.
TEST(ConvertLabeler, GenerationTagIsFoundAsTheRegexFindsIt) {
  const std::regex tag(R"(\{%[-+]?\s*generation\s*[-+]?%\})");
  for (const char* s : {"{%generation%}", "{%- generation -%}", "{% generation%}", "{%+generation+%}",
                        "{%  \n generation\t\v\f\r%}", "a {% if x %}{%- generation %}b", "{% generation_x %}",
                        "{% endgeneration %}", "{% -generation %}", "{%- generation --%}", "{{% generation %}",
                        "{%% generation %}", "{% generation %", "{% generation", "{%", "", "{% GENERATION %}",
                        "{% gen %}{% generation -%}", "{%\xC2\xA0generation %}"}) {
    SCOPED_TRACE(s);
    EXPECT_EQ(has_generation_tag(s), std::regex_search(std::string(s), tag));
  }
}

// A span's members as row_json writes them, numbers of every length (std::to_string as reference).
TEST(ConvertLabeler, SpanMembersSpellNumbersAsToString) {
  for (size_t n : {size_t{0}, size_t{7}, size_t{10}, size_t{99}, size_t{100}, size_t{101}, size_t{999}, size_t{1000},
                   size_t{1009}, size_t{9999}, size_t{10000}, size_t{99999}, size_t{100000}, size_t{999999},
                   size_t{65536}, size_t{1234567}, size_t{4294967296}, size_t{18446744073709551615u}}) {
    std::string out = "{";
    append_span_rest(out, n % 2 == 0, n, n / 3, n / 7, n ? n - 1 : 0);
    EXPECT_EQ(out, std::string("{, \"train\": ") + (n % 2 == 0 ? "true" : "false") + ", \"start\": " + std::to_string(n) +
                       ", \"end\": " + std::to_string(n / 3) + ", \"byte_start\": " + std::to_string(n / 7) +
                       ", \"byte_end\": " + std::to_string(n ? n - 1 : 0) + "}");
    // Byte offsets equal to the code-point ones (their digits copied), next to longer and shorter
    // numbers.
    for (size_t other : {size_t{0}, n / 10, n, size_t{18446744073709551615u}}) {
      out.clear();
      append_span_rest(out, true, n, other, n, other);
      EXPECT_EQ(out, ", \"train\": true, \"start\": " + std::to_string(n) + ", \"end\": " + std::to_string(other) +
                         ", \"byte_start\": " + std::to_string(n) + ", \"byte_end\": " + std::to_string(other) + "}");
    }
  }
}
