// Capabilities: goldens for every corpus template (tests/chat/caps_goldens.json), each flag
// re-derived here from probe renders with needles and checks of this file's own (so a golden
// cannot just mirror caps.cpp), and the DeepSeek-V3 content+calls drop: detected, then fixed.
// Regenerate the goldens: TOOLCHAT_UPDATE_GOLDENS=1 unit_tests --gtest_filter='caps.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "chat/caps.hpp"
#include "chat/polyfill.hpp"
#include "chat/render_case.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::chat;

namespace {

const char* const kCorpus = "tests/corpus/templates";
const char* const kGoldens = "tests/chat/caps_goldens.json";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> corpus_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kCorpus))
    if (e.path().extension() == ".jinja") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Same rule as test_polyfill.cpp: corpus tokens, else "<s>" / "</s>".
Value tokens_of(const std::string& name) {
  fs::path p = fs::path(kCorpus) / (name + ".tokens.json");
  if (fs::exists(p)) return json::parse_file(p.string());
  return json::parse(R"({"bos_token": "<s>", "eos_token": "</s>"})");
}

bool contains(const std::optional<std::string>& s, const std::string& n) { return s && s->find(n) != std::string::npos; }

// ---- The independent re-derivation: JSON-text probes, needles unlike caps.cpp's ----
struct Oracle {
  std::string src;
  Value tokens;
  bool typed = false;
  std::string decl;  // extra tools JSON for templates that fail without tools ("" = none)

  std::string c(const std::string& s) const {
    return typed ? R"([{"type": "text", "text": ")" + s + R"("}])" : "\"" + s + "\"";
  }
  std::optional<std::string> run(const std::string& msgs, const std::string& tools = "", bool gen = false,
                                 const std::string& extra = "") const {
    std::string t = !tools.empty() ? tools : decl;
    std::string ctx = "{\"messages\": [" + msgs + "]" + (t.empty() ? "" : ", \"tools\": " + t) +
                      ", \"add_generation_prompt\": " + (gen ? "true" : "false") + extra + "}";
    CaseResult r = render_case(src, json::parse(ctx), tokens, {});
    if (!r.ok) return std::nullopt;
    return r.text;
  }
};

const std::string kTools =
    R"([{"type": "function", "function": {"name": "lookup_mark", "description": "DescMarkAlpha",
        "parameters": {"type": "object", "properties": {"pkey": {"type": "string"}}}}}])";

// A call whose arguments read ARGKEY_MARK = "argval mark N", as an object or a JSON string.
std::string call(int n, bool obj) {
  std::string args = "{\"argkeymark" + std::to_string(n) + "\": \"ArgValMark" + std::to_string(n) + "\"}";
  if (!obj) {
    std::string esc;
    json::dump_string(esc, args);
    args = esc;
  }
  return R"({"id": "idMarkQ0)" + std::to_string(n) + R"(", "type": "function", "function": {"name": "callfn_mark)" +
         std::to_string(n) + R"(", "arguments": )" + args + "}}";
}

// Arguments shown as the model would read them: an allow-list of the forms the corpus uses.
bool args_shown(const std::optional<std::string>& out, int n) {
  if (!out) return false;
  std::string k = "argkeymark" + std::to_string(n), v = "ArgValMark" + std::to_string(n);
  // JSON: the whole object, not wrapped in a second pair of braces.
  for (const std::string& js : {"{\"" + k + "\": \"" + v + "\"}", "{\"" + k + "\":\"" + v + "\"}"}) {
    size_t at = out->find(js);
    if (at != std::string::npos && (at == 0 || (*out)[at - 1] != '{')) return true;
  }
  // Python call syntax, XML parameters, GLM key/value tags, Gemma 4 quoting.
  for (const std::string& form : {k + "=\"" + v + "\"", k + "='" + v + "'", k + "=" + v, "<parameter=" + k + ">\n" + v,
                                  "\"" + k + "\" string=\"true\">" + v, "name=\"" + k + "\">" + v,
                                  "<arg_key>" + k + "</arg_key>", k + ":<|\"|>" + v})
    if (out->find(form) != std::string::npos) return true;
  return false;
}

Value derive(const std::string& src, const Value& tokens) {
  Oracle o{src, tokens, false, ""};
  const std::string user_s = R"({"role": "user", "content": "UserMarkQ"})";
  if (!o.run(user_s) && !o.run(R"({"role": "user", "content": [{"type": "text", "text": "UserMarkQ"}]})"))
    o.decl = R"([{"type": "function", "function": {"name": "declared_mark", "description": "DeclMark",
               "parameters": {"type": "object", "properties": {"dkey": {"type": "string"}}}}}])";
  auto plain = o.run(user_s);
  o.typed = true;
  bool typed_ok = contains(o.run(R"({"role": "user", "content": )" + o.c("UserMarkQ") + "}"), "UserMarkQ");
  bool need_typed = !contains(plain, "UserMarkQ") && typed_ok;
  o.typed = need_typed;
  auto m = [&](const char* role, const std::string& text) {
    return std::string("{\"role\": \"") + role + "\", \"content\": " + o.c(text) + "}";
  };
  const std::string u = m("user", "UserMarkQ");
  Value f = Value::dict();
  auto put = [&](const char* k, bool v) { f.dict_obj().set(Value::string(k), Value::boolean(v)); };
  put("requires_typed_content", need_typed);
  put("supports_typed_content", typed_ok);
  bool sys = contains(o.run(m("system", "SysMarkQ") + ", " + u), "SysMarkQ");
  put("supports_system_role", sys);
  bool tools = contains(o.run(u, kTools, true), "lookup_mark") ||
               (sys && contains(o.run(m("system", "SysMarkQ") + ", " + u, kTools, true), "lookup_mark"));
  put("supports_tools", tools);

  auto calls_msg = [&](const std::string& calls, const std::string& content) {
    return R"({"role": "assistant", "content": )" + content + R"(, "tool_calls": [)" + calls + "]}";
  };
  auto call_shown = [&](const std::optional<std::string>& out, int n) {
    return contains(out, "callfn_mark" + std::to_string(n)) && args_shown(out, n);
  };
  bool obj = false, str = false, nn = false;
  for (const char* content : {"null", "\"\""}) {
    bool o1 = call_shown(o.run(u + ", " + calls_msg(call(1, true), content)), 1);
    bool s1 = call_shown(o.run(u + ", " + calls_msg(call(1, false), content)), 1);
    if (o1 || s1) {
      obj = o1, str = s1, nn = std::string(content) == "\"\"";
      break;
    }
  }
  bool calls = obj || str, as_obj = obj || !str;
  // No call shows with a plain id, one does with the id "functions.NAME:0" (the corpus has no such
  // template: Kimi K2 Thinking is an extra, tested below).
  bool named = false;
  for (const char* content : {"null", "\"\""})
    for (bool as_object : {true, false}) {
      std::string c = call(1, as_object);
      c.replace(c.find("idMarkQ01"), 9, "functions.callfn_mark1:0");
      named = named || (!calls && call_shown(o.run(u + ", " + calls_msg(c, content)), 1));
    }
  put("names_in_call_ids", named);
  put("supports_tool_calls", calls);
  put("requires_object_arguments", obj && !str);
  put("requires_string_arguments", str && !obj);
  std::string empty = nn ? "\"\"" : "null";
  if (calls && !nn) {
    auto later = [&](const char* content) {
      std::string cm = calls_msg(call(1, as_obj), content);
      return o.run(u + ", " + cm + ", " + m("user", "MoreMarkQ")).has_value() ||
             o.run(u + ", " + cm + R"(, {"role": "tool", "tool_call_id": "idMarkQ01", "name": "callfn_mark1", "content": )" +
                   o.c("x") + "}, " + m("assistant", "y")).has_value();
    };
    nn = !later("null") && later("\"\"");
    if (nn) empty = "\"\"";
  }
  put("requires_non_null_content", nn);
  auto two = o.run(u + ", " + calls_msg(call(1, as_obj) + ", " + call(2, as_obj), empty));
  put("supports_parallel_tool_calls", calls && call_shown(two, 1) && call_shown(two, 2));
  std::string resp = R"({"role": "tool", "tool_call_id": "idMarkQ01", "name": "callfn_mark1", "content": )" +
                     o.c("ResultMarkQ") + "}";
  auto r = o.run(u + ", " + calls_msg(call(1, as_obj), empty) + ", " + resp);
  if (!r && !calls) r = o.run(u + ", " + m("assistant", "AnsMarkQ") + ", " + resp);
  put("supports_tool_responses", contains(r, "ResultMarkQ"));
  auto one = o.run(u + ", " + calls_msg(call(1, as_obj), empty));
  put("supports_tool_call_id", contains(r, "idMarkQ01") || (obj || str ? contains(one, "idMarkQ01") : false) ||
                                   contains(o.run(u + ", " + calls_msg(call(1, !as_obj), empty)), "idMarkQ01"));
  put("renders_reasoning_content",
      contains(o.run(u + R"(, {"role": "assistant", "content": )" + o.c("AnsMarkQ") + R"(, "reasoning_content": "ThinkMarkQ"})"),
               "ThinkMarkQ"));
  auto on = o.run(u, "", true, ", \"enable_thinking\": true"), off = o.run(u, "", true, ", \"enable_thinking\": false");
  put("thinking_switch", on && off && *on != *off);
  auto multi = o.run((sys ? m("system", "SysMarkQ") + ", " : "") + u + ", " + m("assistant", "AnsMarkQ") + ", " +
                         m("user", "MoreMarkQ") + ", " + m("assistant", "AnsMarkQ"),
                     tools ? kTools : "");
  put("system_in_multi_turn", sys && contains(multi, "SysMarkQ"));
  put("tools_in_multi_turn", tools && contains(multi, "lookup_mark") && contains(multi, "DescMarkAlpha"));
  auto both = o.run(u + ", " + calls_msg(call(1, as_obj), o.c("AnsMarkQ")));
  bool cwc = calls && contains(both, "AnsMarkQ") && call_shown(both, 1);
  put("content_with_tool_calls", cwc);
  auto split = o.run(u + ", " + m("assistant", "AnsMarkQ") + ", " + calls_msg(call(1, as_obj), empty));
  put("split_content_calls", calls && !cwc && contains(split, "AnsMarkQ") && call_shown(split, 1));
  return f;
}

Value goldens() {
  static Value g = fs::exists(kGoldens) ? json::parse_file(kGoldens) : Value::dict();
  return g;
}

}  // namespace

TEST(caps, goldens_match_every_corpus_template) {
  Value now = Value::dict();
  for (const auto& name : corpus_names()) {
    Value entry = Value::dict();
    try {
      Capabilities caps = detect_capabilities(slurp(fs::path(kCorpus) / (name + ".jinja")), tokens_of(name));
      entry = detect_report(caps);
    } catch (const Error& e) {
      entry.dict_obj().set(Value::string("error"), Value::string(std::string(error_kind_name(e.kind())) + ": " + e.message()));
    }
    now.dict_obj().set(Value::string(name), entry);
  }
  json::DumpOptions o;
  o.ensure_ascii = false;
  o.indent = "  ";
  o.sort_keys = true;
  std::string text = json::dumps(now, o) + "\n";
  if (std::getenv("TOOLCHAT_UPDATE_GOLDENS")) {
    std::ofstream(kGoldens, std::ios::binary) << text;
    GTEST_SKIP() << "wrote " << kGoldens;
  }
  Value g = goldens();
  ASSERT_TRUE(g.is_dict() && g.dict_obj().size() > 0) << "no goldens at " << kGoldens;
  for (const auto& [k, v] : now.dict_obj().entries) {
    const Value* want = g.dict_obj().find(k);
    ASSERT_TRUE(want) << "no golden for " << py_str(k);
    EXPECT_EQ(json::dumps(*want, o), json::dumps(v, o)) << py_str(k);
  }
  EXPECT_EQ(g.dict_obj().size(), now.dict_obj().size());
}

// Every golden flag equals what this file's own probes show.
TEST(caps, goldens_agree_with_independent_probes) {
  Value g = goldens();
  ASSERT_TRUE(g.is_dict() && g.dict_obj().size() > 0);
  for (const auto& name : corpus_names()) {
    const Value* entry = g.dict_obj().find(name);
    ASSERT_TRUE(entry) << name;
    const Value* flags = entry->dict_obj().find("capabilities");
    if (!flags) continue;  // does not compile (recorded as an error)
    Value mine = derive(slurp(fs::path(kCorpus) / (name + ".jinja")), tokens_of(name));
    for (const auto& [k, v] : flags->dict_obj().entries) {
      const Value* d = mine.dict_obj().find(k);
      ASSERT_TRUE(d) << name << ": no independent check for " << py_str(k);
      EXPECT_EQ(truthy(v), truthy(*d)) << name << " " << py_str(k);
    }
  }
}

TEST(caps, deepseek_v3_drops_calls_with_content_and_the_polyfill_fixes_it) {
  const std::string name = "deepseek-ai-DeepSeek-V3";
  std::string src = slurp(fs::path(kCorpus) / (name + ".jinja"));
  Value tokens = tokens_of(name);
  Capabilities caps = detect_capabilities(src, tokens);
  EXPECT_TRUE(caps.supports_tool_calls);
  EXPECT_FALSE(caps.content_with_tool_calls);
  EXPECT_TRUE(caps.split_content_calls);
  bool reported = false;
  for (const auto& w : caps.warnings)
    if (w.probe == "content_with_tool_calls" && w.message_index == 1 && w.field == "tool_calls[0].function.name")
      reported = true;
  EXPECT_TRUE(reported);

  Value ctx = json::parse(R"({"messages": [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": "Let me check.", "tool_calls": [{"id": "c1", "type": "function",
      "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "-3 C"}]})");
  CaseResult raw = render_case(src, ctx, tokens, {});
  ASSERT_TRUE(raw.ok) << raw.message;
  EXPECT_EQ(raw.text.find("get_weather"), std::string::npos);  // the call is gone
  auto lost = find_dropped(ctx, raw.text);
  ASSERT_FALSE(lost.empty());
  EXPECT_EQ(lost[0].message_index, 1);
  EXPECT_EQ(lost[0].field, "tool_calls[0].function.name");

  Value fixed = apply_polyfills(ctx, caps);
  CaseResult r = render_case(src, fixed, tokens, {});
  ASSERT_TRUE(r.ok) << r.message;
  EXPECT_NE(r.text.find("Let me check."), std::string::npos);
  EXPECT_NE(r.text.find("<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Oslo\"}\n```"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("-3 C"), std::string::npos);
  EXPECT_TRUE(find_dropped(fixed, r.text).empty());
}

// Kimi K2 Thinking writes a call as its id alone (the name only inside "functions.NAME:N"): the
// probe finds that, and the polyfill gives a client's plain ids that form, so that the rendered
// history shows the call's name and the tool result names the same id.
TEST(caps, kimi_k2_thinking_shows_names_only_through_ids_and_the_polyfill_names_them) {
  std::string src = slurp("tests/dialects/templates/moonshotai-Kimi-K2-Thinking.jinja");
  Value tokens = Value::dict();
  Capabilities caps = detect_capabilities(src, tokens);
  EXPECT_TRUE(caps.names_in_call_ids);
  EXPECT_TRUE(caps.supports_tool_calls);
  EXPECT_TRUE(caps.supports_parallel_tool_calls);
  EXPECT_TRUE(caps.supports_tool_call_id);

  Value ctx = json::parse(R"({"messages": [
    {"role": "user", "content": "Weather in Oslo and Rome?"},
    {"role": "assistant", "content": "", "tool_calls": [
      {"id": "call_abc", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}},
      {"id": "functions.get_time:4", "type": "function", "function": {"name": "get_time", "arguments": {"city": "Rome"}}}]},
    {"role": "tool", "tool_call_id": "call_abc", "content": "-3 C"},
    {"role": "tool", "tool_call_id": "functions.get_time:4", "content": "10:00"},
    {"role": "assistant", "content": "", "tool_calls": [
      {"id": "call_xyz", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Rome"}}}]},
    {"role": "tool", "tool_call_id": "call_xyz", "content": "12 C"}]})");
  CaseResult raw = render_case(src, ctx, tokens, {});
  ASSERT_TRUE(raw.ok) << raw.message;
  EXPECT_EQ(raw.text.find("get_weather"), std::string::npos);  // plain ids: the name is lost

  Value fixed = apply_polyfills(ctx, caps);
  CaseResult r = render_case(src, fixed, tokens, {});
  ASSERT_TRUE(r.ok) << r.message;
  // call_abc is the first call: index 0; the client's own functions.get_time:4 is kept, and the
  // next plain id is numbered after it.
  for (const char* want : {"<|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Oslo\"}",
                           "<|tool_call_begin|>functions.get_time:4<|tool_call_argument_begin|>",
                           "<|tool_call_begin|>functions.get_weather:5<|tool_call_argument_begin|>{\"city\": \"Rome\"}",
                           "## Return of functions.get_weather:0\n-3 C", "## Return of functions.get_time:4\n10:00",
                           "## Return of functions.get_weather:5\n12 C"})
    EXPECT_NE(r.text.find(want), std::string::npos) << want << "\n" << r.text;
  EXPECT_EQ(r.text.find("call_abc"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("call_xyz"), std::string::npos) << r.text;
  EXPECT_TRUE(find_dropped(fixed, r.text).empty());
  // The input is not modified.
  EXPECT_EQ(ctx.dict_obj().find("messages")->items()[2].dict_obj().find("tool_call_id")->str(), "call_abc");

  chat::PolyfillOptions off;
  off.call_ids_with_names = false;
  CaseResult plain = render_case(src, apply_polyfills(ctx, caps, off), tokens, {});
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.text.find("get_weather"), std::string::npos) << plain.text;
}
