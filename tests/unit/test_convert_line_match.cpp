// The line path's skeleton tree and its pass over a line's texts (convert/line_match.hpp): a line
// matches a known skeleton exactly when the scan would cut it into that skeleton, and the pass
// ends a text where the scan does.
#include <gtest/gtest.h>

#include <pthread.h>

#include <map>
#include <string>
#include <vector>

#include "convert/line_match.hpp"
#include "convert/line_memo.hpp"

using namespace toolchat::convert;

namespace {

// The scan's strings of `line` as the pass gives them (false: the scan or the pass refuses it).
bool strings_of(const std::string& line, LineScan& scan, std::vector<TextAt>& out) {
  out.clear();
  if (!scan_line(line, scan)) return false;
  for (const LineScan::Text& t : scan.strings) {
    TextAt at;
    at.open = t.open;
    if (!scan_text(line, at)) return false;
    EXPECT_EQ(at.close, t.close) << line;
    out.push_back(at);
  }
  return true;
}

std::string row(const std::string& user, const std::string& assistant, const std::string& tail = "") {
  return R"({"messages": [{"role": "user", "content": ")" + user + R"("}, {"role": "assistant", "content": ")" +
         assistant + R"("}])" + tail + "}";
}

}  // namespace

TEST(ConvertLineMatch, TheTextPassEndsAStringAsTheScanDoes) {
  struct Case {
    std::string line;
    bool ok, escaped, non_ascii;
    size_t close;
  };
  const std::vector<Case> cases = {
      {R"("plain text")", true, false, false, 11},
      {R"("say \"hi\"")", true, true, false, 11},
      {R"("ends in a slash \\")", true, true, false, 19},
      {R"("\\\"")", true, true, false, 5},
      {"\"caf\xC3\xA9\"", true, false, true, 6},
      {"\"del \x7F\"", true, false, true, 6},
      {"\"a long run of plain text before it \xE2\x80\x94 then \\\" and more\"", true, true, true, 56},
      {"\"raw\ttab\"", false, false, false, 0},
      {"\"after \xC3\xA9 a raw \x01\"", false, false, false, 0},
      {R"("no end)", false, false, false, 0},
      {R"("a backslash at the end \)", false, false, false, 0},
  };
  for (const Case& c : cases) {
    TextAt at;
    at.open = 0;
    ASSERT_EQ(scan_text(c.line, at), c.ok) << c.line;
    if (!c.ok) continue;
    EXPECT_EQ(at.close, c.close) << c.line;
    EXPECT_EQ(at.escaped, c.escaped) << c.line;
    EXPECT_EQ(at.non_ascii, c.non_ascii) << c.line;
  }
}

// Every line is matched to the skeleton the scan cuts it into, or to none when that skeleton is
// not known: texts of any content and length (quotes and brackets escaped inside), an empty text
// where a known one was not, a byte changed outside the texts, the rest of the line longer,
// shorter or changed at its very end.
TEST(ConvertLineMatch, ALineMatchesTheSkeletonTheScanCutsItInto) {
  const std::string tools = R"(, "tools": [{"name": "get_weather", "description": "Weather."}])";
  const std::vector<std::string> known = {row("Hi", "Sure."), row("Hi", ""), row("Hi", "Sure.", tools),
                                          R"({"tools": [], "messages": [{"role": "user", "content": "Hi"}]})",
                                          R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}]})"};
  SkeletonTree tree;
  std::map<std::string, size_t> leaves;  // skeleton -> its index in `known`
  LineScan scan;
  std::vector<TextAt> strings;
  for (size_t i = 0; i < known.size(); ++i) {
    ASSERT_TRUE(strings_of(known[i], scan, strings)) << known[i];
    leaves.emplace(scan.key, i);
    tree.add(known[i], strings, &known[i]);
  }
  std::vector<std::string> lines = known;
  for (const char* text : {"Hello there", R"(say \"}, {\"role\": \"user\", \"content\": \"x)", R"(\\)", "", "\xC3\xA9t\xC3\xA9",
                                  R"(a\"b\\)", "[{\\\"a\\\": 1}]"}) {
    lines.push_back(row(text, "Fine."));
    lines.push_back(row("Hi", text));
    lines.push_back(row(text, text, tools));
    lines.push_back(R"({"tools": [], "messages": [{"role": "user", "content": ")" + std::string(text) + R"("}]})");
  }
  std::string other_tools = tools;
  other_tools.back() = ' ';
  for (const std::string& tail : {other_tools, tools + " ", tools.substr(0, tools.size() - 1), std::string(", \"x\": 1")})
    lines.push_back(row("Hi", "Sure.", tail));
  lines.push_back(R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant",  "content": "Sure."}]})");
  lines.push_back(R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Sure."}]} )");
  lines.push_back(R"({"messages": [{"role": "user", "content": [{"type": "text", "text": "b"}, {"type": "text", "text": "c"}]}]})");
  std::vector<TextAt> matched;
  size_t hits = 0;
  for (const std::string& line : lines) {
    const void* leaf = tree.match(line, matched);
    const void* expected = nullptr;
    if (strings_of(line, scan, strings)) {
      auto it = leaves.find(scan.key);
      if (it != leaves.end()) expected = &known[it->second];
    }
    EXPECT_EQ(leaf, expected) << line;
    if (!leaf || leaf != expected) continue;
    ++hits;
    ASSERT_EQ(matched.size(), strings.size()) << line;
    for (size_t i = 0; i < strings.size(); ++i) {
      EXPECT_EQ(matched[i].open, strings[i].open) << line;
      EXPECT_EQ(matched[i].close, strings[i].close) << line;
    }
  }
  EXPECT_GE(hits, 25u);
}

// A skeleton of very many texts (a call's arguments may be a list of 200,000 strings) is one
// long path of the tree: matched and freed without recursion, so without running out of stack
// (here a thread's 256 KB, which a recursive free of the path overflows).
TEST(ConvertLineMatch, ASkeletonOfManyTextsIsMatchedAndFreed) {
  struct Run {
    size_t matched = 0;
    const void* same = nullptr;
    const void* other = &matched;
    static void* body(void* arg) {
      Run& run = *static_cast<Run*>(arg);
      constexpr size_t kTexts = 200000;
      std::string line = "[";
      std::vector<TextAt> strings;
      for (size_t i = 0; i < kTexts; ++i) {
        if (i) line += ", ";
        TextAt t;
        t.open = line.size();
        line += i % 3 ? "\"x\"" : "\"\"";
        t.close = line.size() - 1;
        strings.push_back(t);
      }
      line += "]";
      std::vector<TextAt> matched;
      {
        SkeletonTree tree;
        tree.add(line, strings, &line);
        if (tree.match(line, matched) == &line) run.matched = matched.size();
        line[line.size() - 3] = 'y';  // the last text's contents: the same skeleton
        run.same = tree.match(line, matched) == &line ? &run : nullptr;
        line[line.size() - 4] = ' ';  // its opening quote: another
        run.other = tree.match(line, matched);
      }  // freed here
      return nullptr;
    }
  } run;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 * 1024);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, &Run::body, &run), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  EXPECT_EQ(run.matched, 200000u);
  EXPECT_EQ(run.same, &run);
  EXPECT_EQ(run.other, nullptr);
}
