// Dialect conformance (docs/dialects.md §1.3): every registered dialect has tests/dialects/fixtures/<name>.json;
// every fixture case parses to its expected result, and the parse fed byte by byte, split at every
// single point, and in seeded random chunkings (splits inside UTF-8 sequences included) gives the
// same events (adjacent deltas merged). Content and reasoning deltas never cut a code point.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;
using namespace dialect_test;

namespace {

const std::string kFixtures = "tests/dialects/fixtures/";

std::string str_or(const Value& d, const char* key, std::string def = "") {
  const Value* v = d.dict_obj().find(key);
  return v && v->is_str() ? std::string(v->str()) : def;
}

struct Case {
  std::string dialect, name;
  Value v;
};

std::vector<Case> all_cases() {
  std::vector<Case> out;
  for (const Dialect* d : all()) {
    std::string path = kFixtures + std::string(d->name) + ".json";
    if (!std::filesystem::exists(path)) continue;
    Value f = json::parse_file(path);
    for (const Value& c : f.dict_obj().find("cases")->items()) out.push_back({std::string(d->name), str_or(c, "name"), c});
  }
  return out;
}

}  // namespace

TEST(DialectRegistry, EveryDialectHasAFixtureAndUniqueNames) {
  std::set<std::string_view> seen;
  ASSERT_FALSE(all().empty());
  for (const Dialect* d : all()) {
    EXPECT_TRUE(std::filesystem::exists(kFixtures + std::string(d->name) + ".json"))
        << "dialect " << d->name << " has no fixture file " << kFixtures << d->name << ".json";
    EXPECT_TRUE(seen.insert(d->name).second) << d->name;
    for (auto a : d->aliases) EXPECT_TRUE(seen.insert(a).second) << "alias " << a << " used twice";
    EXPECT_EQ(find(d->name), d);
    ASSERT_NE(d->make_parser, nullptr);
    ASSERT_NE(d->tool_prompt, nullptr);
  }
  EXPECT_EQ(find("no-such-dialect"), nullptr);
}

TEST(DialectConformance, Fixtures) {
  auto cases = all_cases();
  ASSERT_FALSE(cases.empty());
  size_t checked = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect + " / " + c.name);
    const Dialect& d = *find(c.dialect);
    const DictObj& cd = c.v.dict_obj();
    ParseOptions o;
    if (const Value* r = cd.find("reasoning_open")) o.reasoning_open = r->is_bool() && r->as_bool();
    if (const Value* t = cd.find("tools")) o.tools = *t;
    std::string input = str_or(c.v, "input");

    // 1. expected result
    auto whole = feed_cut(d, o, input, {});
    ParsedMessage m = collect(whole);
    EXPECT_EQ(m.content, str_or(c.v, "content"));
    EXPECT_EQ(m.reasoning_content, str_or(c.v, "reasoning_content"));
    std::vector<Value> want_calls;
    if (const Value* tc = cd.find("tool_calls")) want_calls = tc->items();
    EXPECT_EQ(m.tool_calls.size(), want_calls.size());
    for (size_t i = 0; i < std::min(m.tool_calls.size(), want_calls.size()); ++i) {
      EXPECT_EQ(m.tool_calls[i].name, str_or(want_calls[i], "name"));
      EXPECT_EQ(m.tool_calls[i].arguments, str_or(want_calls[i], "arguments"));
      std::string id = str_or(want_calls[i], "id");
      if (!id.empty()) { EXPECT_EQ(m.tool_calls[i].id, id); }
      EXPECT_FALSE(m.tool_calls[i].id.empty());
    }
    std::vector<std::string> want_w, got_w;
    if (const Value* w = cd.find("warnings"))
      for (const Value& x : w->items()) want_w.emplace_back(x.str());
    for (const Warning& w : m.warnings) got_w.push_back(warning_kind_name(w.kind));
    EXPECT_EQ(got_w, want_w);

    // 2. chunkings
    std::string ref = events_text(whole);
    auto check = [&](const std::vector<size_t>& cuts, const char* what) {
      auto ev = feed_cut(d, o, input, cuts);
      if (valid_utf8(input))
        for (const Event& e : ev) {
          if (auto* t = std::get_if<ContentDelta>(&e)) { EXPECT_TRUE(valid_utf8(t->text)) << what; }
          if (auto* t = std::get_if<ReasoningDelta>(&e)) { EXPECT_TRUE(valid_utf8(t->text)) << what; }
        }
      std::string got = events_text(ev);
      if (got != ref) ADD_FAILURE() << what << " differs; cuts=" << cuts.size() << "\nwant:\n" << ref << "got:\n" << got;
      return got == ref;
    };
    std::vector<size_t> bytes;
    for (size_t i = 1; i < input.size(); ++i) bytes.push_back(i);
    check(bytes, "byte by byte");
    for (size_t i = 1; i < input.size(); ++i)
      if (!check({i}, "single split")) break;
    std::mt19937_64 rng(0xC0FFEE ^ std::hash<std::string>{}(c.name));
    for (int r = 0; r < 30; ++r) {
      std::vector<size_t> cuts;
      for (size_t i = 1; i < input.size(); ++i)
        if (rng() % 5 == 0) cuts.push_back(i);
      if (!check(cuts, "random chunking")) break;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(DialectScan, GeneratedIdsAreDeterministic) {
  EXPECT_EQ(make_call_id(1, 0), make_call_id(1, 0));
  EXPECT_NE(make_call_id(1, 0), make_call_id(1, 1));
  EXPECT_EQ(make_call_id(0, 3).size(), 29u);
  EXPECT_EQ(make_call_id(0, 3).rfind("call_", 0), 0u);
  EXPECT_EQ(make_alnum_id(0, 0, 9).size(), 9u);
}

TEST(DialectScan, LinearOnALongCallFedInSmallChunks) {
  const Dialect& d = *find("hermes");
  std::string big = "<tool_call>\n{\"name\": \"w\", \"arguments\": {\"s\": \"";
  big += std::string(1 << 20, 'x');
  big += "\"}}\n</tool_call>";
  EventLog log;
  auto p = d.make_parser({});
  for (size_t i = 0; i < big.size(); i += 4) p->feed(std::string_view(big).substr(i, 4), log);
  p->finish(log);
  ParsedMessage m = collect(log.events);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments.size(), (1u << 20) + 8);
}

TEST(DialectDetect, PicksByScore) {
  EXPECT_EQ(detect("{{ '<tool_call>' }}<tools>").dialect->name, "hermes");
  EXPECT_EQ(detect("no tools here").dialect == nullptr || detect("no tools here").dialect->name == "generic_json", true);
}
