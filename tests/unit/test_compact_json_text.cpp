// The fast path past json::parse + compact_json (src/dialects/compact_json_text.*): whenever it
// takes a text as canonical, parsing and dumping the text must give it back byte for byte, and a
// call object it reads must give the name, arguments and id the slow path (the parsed Value) gives.
// Texts: every fixture's expected arguments and inputs' JSON, run through the streaming scanner as
// the parsers do, plus edge cases each way.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "dialects/compact_json_text.hpp"
#include "dialects/scan.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;

namespace {

// The minified text the parsers hand over: the JSON scanner's, fed in one piece.
std::string scanned(const std::string& json) {
  scan::JsonScanner s;
  s.feed(json);
  return s.state() == scan::JsonScanner::State::Done ? s.text() : std::string();
}

std::string slow_compact(const std::string& text) { return scan::compact_json(json::parse(text)); }

std::vector<std::string> fixture_jsons() {
  std::vector<std::string> out;
  for (const auto& f : std::filesystem::directory_iterator("tests/dialects/fixtures")) {
    Value fx = json::parse_file(f.path().string());
    for (const Value& c : fx.dict_obj().find("cases")->items()) {
      if (const Value* calls = c.dict_obj().find("tool_calls"); calls && calls->is_list())
        for (const Value& call : calls->items()) {
          const std::string args(call.dict_obj().find("arguments")->str());
          out.push_back(args);
          out.push_back("{\"name\": " + json::dumps(*call.dict_obj().find("name")) + ", \"arguments\": " + args + "}");
        }
      // Every '{' of an input starts a candidate (most are not JSON; they are skipped).
      std::string_view in = c.dict_obj().find("input")->str();
      for (size_t p = in.find('{'); p != std::string::npos; p = in.find('{', p + 1)) out.emplace_back(in.substr(p));
    }
  }
  return out;
}

}  // namespace

TEST(CompactJsonText, CanonicalMeansParseAndDumpGiveItBack) {
  size_t canonical = 0, checked = 0;
  for (const std::string& raw : fixture_jsons()) {
    std::string t = scanned(raw);
    if (t.empty()) continue;
    ++checked;
    if (!compact_json_text::is_canonical_object(t)) continue;
    ++canonical;
    EXPECT_EQ(slow_compact(t), t);
  }
  EXPECT_GT(checked, 500u);
  EXPECT_GT(canonical, 200u);  // the fast path is taken for the common shapes
}

TEST(CompactJsonText, EdgeCases) {
  const char* yes[] = {R"({})", R"({"a":1})", R"({"a":-12,"b":[1,2,{"c":null}],"d":true,"e":false})",
                       R"({"s":"Zürich 東京 🌍"})", R"({"a":[]})", R"({"a":{"b":{}}})", R"({"n":123456789012345678})",
                       R"({"a":0})", R"({"a":"x","b":"x"})", "{\"del\":\"\x7f\"}"};
  for (const char* t : yes) {
    EXPECT_TRUE(compact_json_text::is_canonical_object(t)) << t;
    EXPECT_EQ(slow_compact(t), t) << t;
  }
  // Each would change when parsed and dumped again, or is not JSON: the slow path decides.
  const char* no[] = {R"({"a":1.0})", R"({"a":1e5})", R"({"a":1E5})", R"({"a":-0})", R"({"a":"\u00e9"})",
                      R"({"a":"\/"})", R"({"a":"\n"})", R"({"a":1,"a":2})", R"({"a":NaN})", R"({"a":Infinity})",
                      R"({"a":1234567890123456789})", R"({"a": 1})", R"([1])", R"("s")", R"({"a":01})",
                      R"({"a":tru})", R"({"a":1,})", R"({"a"})", R"({"a":1)", "{\"a\":\"\xff\"}",
                      "{\"a\":\"\xed\xa0\x80\"}", R"({"a":[1,]})", R"({,})"};
  for (const char* t : no) EXPECT_FALSE(compact_json_text::is_canonical_object(t)) << t;
  std::string deep = "{\"a\":" + std::string(600, '[') + std::string(600, ']') + "}";
  EXPECT_FALSE(compact_json_text::is_canonical_object(deep));
}

TEST(CompactJsonText, CallObjectsReadAsTheParsedValue) {
  struct Case { const char* text; bool fast; const char* name; const char* args; const char* id; };
  const Case cases[] = {
      {R"({"name":"f","arguments":{"a":1}})", true, "f", R"({"a":1})", ""},
      {R"({"arguments":{"a":1},"name":"f","id":"c1"})", true, "f", R"({"a":1})", "c1"},
      {R"({"name":"f","parameters":{"x":[1]},"arguments":{"a":1}})", true, "f", R"({"x":[1]})", ""},
      {R"({"name":"f","arguments":{"a":1},"id":7})", true, "f", R"({"a":1})", ""},
      {R"({"name":"f","arguments":"{\"a\":1}"})", false, "", "", ""},   // a string: parsed by the slow path
      {R"({"name":"","arguments":{}})", false, "", "", ""},
      {R"({"function":{"name":"f","arguments":{}}})", false, "", "", ""},
      {R"({"name":"f"})", false, "", "", ""},
      {R"({"name":1,"arguments":{}})", false, "", "", ""},
  };
  for (const Case& c : cases) {
    compact_json_text::CallText ct;
    bool fast = compact_json_text::read_call_object(c.text, {"parameters", "arguments"}, true, &ct);
    EXPECT_EQ(fast, c.fast) << c.text;
    if (!fast) continue;
    EXPECT_EQ(ct.name, c.name);
    EXPECT_EQ(ct.args, c.args);
    EXPECT_EQ(ct.id, c.id);
    Value v = json::parse(c.text);
    EXPECT_EQ(v.dict_obj().find("name")->str(), std::string(ct.name));
  }
  compact_json_text::CallText ct;
  ASSERT_TRUE(compact_json_text::read_call_object(R"({"name":"f","arguments":{},"id":"x"})", {"arguments"}, false, &ct));
  EXPECT_EQ(ct.id, "");  // ids only when asked for
}

TEST(CompactJsonText, CallListsAllOrNothing) {
  std::vector<compact_json_text::CallText> calls;
  ASSERT_TRUE(compact_json_text::read_call_list(R"([{"name":"a","arguments":{"x":1}},{"name":"b","arguments":{},"id":"i"}])",
                                       {"arguments"}, true, &calls));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "a");
  EXPECT_EQ(calls[0].args, R"({"x":1})");
  EXPECT_EQ(calls[1].id, "i");
  for (const char* t : {"[]", R"([{"name":"a","arguments":{}},1])", R"([{"name":"a","arguments":{"x":1.5}}])",
                        R"([{"name":"a","arguments":{}}]x)", R"([{"name":"a","arguments":{}},])", R"({"name":"a"})"})
    EXPECT_FALSE(compact_json_text::read_call_list(t, {"arguments"}, true, &calls)) << t;
}
