// Rows that share their repeated members (convert/row_reader.hpp): read as json::parse reads
// them, errors included, and never taken for another row of the same messages when a shared
// member (the tools, the template's variables) differs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "convert/pipeline.hpp"
#include "convert/row_reader.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::convert;

namespace {

// What json::parse makes of a line: its JSON, or its error.
std::string parsed(const std::string& line, RowReader* reader) {
  try {
    return json::dumps(reader ? reader->read(line) : json::parse(line));
  } catch (const Error& e) {
    return std::string("error ") + error_kind_name(e.kind()) + ": " + e.message();
  }
}

const std::string kTools =
    R"([{"type": "function", "function": {"name": "get_weather", "description": "Weather for a city.", )"
    R"("parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}])";

std::string nested(size_t depth) {  // "messages" holding lists `depth` deep (the row's object is one more)
  return R"({"messages": )" + std::string(depth, '[') + std::string(depth, ']') + "}";
}

}  // namespace

TEST(ConvertRowReader, ReadsWhatJsonParseReads) {
  const std::vector<std::string> lines = {
      R"({"messages": [{"role": "user", "content": "Hi"}], "tools": )" + kTools + "}",
      R"({"messages": [{"role": "user", "content": "Hello"}], "tools": )" + kTools + "}",
      R"({"tools": )" + kTools + R"(, "messages": [{"role": "user", "content": "tools first"}]})",
      R"(  { "messages" : [ ] ,"tools":)" + kTools + "  }  ",
      R"({"messages": [], "tools": )" + kTools + R"(, "tools": []})",       // a repeated key: the last value
      R"({"messages": [], "tool\u0073": )" + kTools + "}",                  // an escaped key
      R"({"messages": [], "tools": )" + kTools + R"(, "n": NaN, "x": -1.5e3, "b": true, "z": null})",
      R"({})",
      R"([1, 2])",
      R"("text")",
      R"({"messages": [], "tools": )" + kTools + "} x",                    // text after the object
      R"({"messages": [}, "tools": )" + kTools + "}",                       // a bad member
      R"({"messages": ["a\qb"], "tools": )" + kTools + "}",                 // a bad escape
      R"({"messages": [], "tools": )" + kTools + R"(, "n": tru})",          // a bad literal
      R"({"messages": [], "tools": )" + kTools + ",}",                      // a trailing comma
      R"({"messages": [], "tools": )" + kTools,                             // cut short
      "{\"messages\": [\"\xff\"], \"tools\": " + kTools + "}",              // not UTF-8
      "{\"messages\": [\"a\tb\"], \"tools\": " + kTools + "}",              // a raw control character
      // Known members found from the end of the line:
      R"({"tools": )" + kTools + "}",                                       // no other member
      R"({ , "tools": )" + kTools + "}",                                    // no member before the comma
      R"({"tools": [], "tools": )" + kTools + "}",                          // the key twice
      R"({"tool\u0073": [], "tools": )" + kTools + "}",                     // ... once escaped
      R"({"a": "x", "tools": )" + kTools + R"(, "b": )" + kTools + "\t}\r\n",  // two known, spaces around
      R"({"a": "x\", \"tools\": )" + kTools + "\"}",                        // the known text inside a string
      R"({"a": {"tools": )" + kTools + "}}",                                // ... inside another member
      R"({"a": "x", "tools" )" + kTools + "}",                              // no colon
      R"({"a": "x" "tools": )" + kTools + "}",                              // no comma
      R"({"a": "x",, "tools": )" + kTools + "}",                            // two commas
      R"(["a", "tools": )" + kTools + "}",                                  // not an object before it
      nested(510),
      nested(511),  // the row is 512 deep: the limit
      nested(512),  // 513: too deep, in the line's own words
  };
  RowReader reader;
  for (int round = 0; round < 2; ++round)  // the second time, the tools are known
    for (const std::string& line : lines)
      EXPECT_EQ(parsed(line, &reader), parsed(line, nullptr)) << line.substr(0, 120);
}

// Lines a byte or a few away from rows whose tools are known (cut, doubled, dropped, replaced by
// JSON's own punctuation): the reader's value or error is json::parse's, whichever path it took.
TEST(ConvertRowReader, EditedLinesReadAsJsonParseReadsThem) {
  const std::string kwargs = R"({"enable_thinking": false, "note": "long enough to be kept as a known member"})";
  const std::vector<std::string> rows = {
      R"({"messages": [{"role": "user", "content": "Hi \"you\" \\ there"}], "tools": )" + kTools + "}",
      R"({"messages": [{"role": "user", "content": "x"}], "tools": )" + kTools + R"(, "chat_template_kwargs": )" +
          kwargs + "}",
      R"({"tools": )" + kTools + R"(, "messages": [], "chat_template_kwargs": )" + kwargs + "}",
  };
  const std::string punctuation = "{}[]\":, \\x";
  RowReader reader;
  for (const std::string& row : rows) reader.read(row);  // the members become known
  uint64_t state = 12345;
  auto next = [&](size_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>((state >> 33) % n);
  };
  size_t differing = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string line = rows[next(rows.size())];
    for (int edits = 1 + static_cast<int>(next(3)); edits > 0; --edits) {
      const size_t at = next(line.size());
      switch (next(4)) {
        case 0: line.erase(at, 1); break;
        case 1: line.insert(at, 1, line[at]); break;
        case 2: line[at] = punctuation[next(punctuation.size())]; break;
        default: line.resize(at); break;
      }
      if (line.empty()) line = "{";
    }
    const std::string ours = parsed(line, &reader), theirs = parsed(line, nullptr);
    EXPECT_EQ(ours, theirs) << line;
    differing += ours != theirs;
    if (differing > 5) break;
  }
}

TEST(ConvertRowReader, EqualMembersAreOneValue) {
  RowReader reader;
  const std::string a = R"({"messages": [{"role": "user", "content": "Hi"}], "tools": )" + kTools + "}";
  const std::string b = R"({"messages": [{"role": "user", "content": "Yo"}], "tools": )" + kTools + "}";
  std::string other = kTools;
  other.replace(other.find("Weather"), 7, "Climate");
  const std::string c = R"({"messages": [{"role": "user", "content": "Hi"}], "tools": )" + other + "}";
  Value ra = reader.read(a), rb = reader.read(b), rc = reader.read(c);
  const Value &ta = *ra.dict_obj().find("tools"), &tb = *rb.dict_obj().find("tools"), &tc = *rc.dict_obj().find("tools");
  EXPECT_EQ(ta.obj(), tb.obj());  // shared
  EXPECT_NE(ta.obj(), tc.obj());  // a different text is a different value
  const KnownValues& known = KnownValues::this_thread();
  EXPECT_NE(known.id_of(ta), 0u);
  EXPECT_NE(known.id_of(tc), known.id_of(ta));
  EXPECT_EQ(known.id_of(json::parse(kTools)), 0u);  // an equal value read elsewhere is not the known one
}

namespace {

std::string converted(const std::string& rows, const std::string& model, bool reuse) {
  const fs::path in = fs::temp_directory_path() / "toolchat_row_reader_in.jsonl";
  const fs::path out = fs::temp_directory_path() / "toolchat_row_reader_out.jsonl";
  std::ofstream(in, std::ios::binary) << rows;
  ConvertConfig cfg;
  cfg.model = model;
  cfg.input = in.string();
  cfg.output = out.string();
  cfg.threads = 1;
  cfg.label.reuse_renders = reuse;
  std::ostringstream err;
  run_convert(cfg, err);
  std::ifstream f(out, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  fs::remove(in);
  fs::remove(out);
  return ss.str() + err.str();
}

}  // namespace

// Rows of one shape (the same messages but for their texts) whose shared members differ in what
// the template shows: a tool's description, a variable the template reads. A cache hit taken
// on the shape alone would give the second row the first one's text.
TEST(ConvertRowReader, ADifferentSharedMemberIsADifferentShape) {
  std::string other = kTools;
  other.replace(other.find("Weather"), 7, "Climate");
  std::string rows;
  for (const std::string& tools : {kTools, other, kTools, other})
    for (const char* text : {"Hi", "Hello"})
      rows += R"({"messages": [{"role": "user", "content": ")" + std::string(text) +
              R"("}, {"role": "assistant", "content": "Sure."}], "tools": )" + tools + "}\n";
  const std::string reused = converted(rows, "examples/qwen2.5/chat_template.jinja", true);
  EXPECT_EQ(reused, converted(rows, "examples/qwen2.5/chat_template.jinja", false));
  std::istringstream lines(reused);
  std::vector<std::string> out;
  for (std::string l; std::getline(lines, l);) out.push_back(l);
  ASSERT_GE(out.size(), 8u) << reused;
  EXPECT_NE(out[2].find("Climate for a city."), std::string::npos) << out[2];
  EXPECT_NE(out[5].find("Weather for a city."), std::string::npos) << out[5];

  // A template variable: Qwen3 writes an empty think block when enable_thinking is false.
  const std::string pad = R"(, "note": "a kwargs object long enough to be shared between rows")";
  rows.clear();
  for (const char* thinking : {"false", "true", "false", "true"})
    rows += R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Sure."}], )"
            R"("chat_template_kwargs": {"enable_thinking": )" + std::string(thinking) + pad + "}}\n";
  const std::string model = "tests/corpus/templates/ollama-qwen3-0.6b.jinja";
  const std::string with = converted(rows, model, true);
  EXPECT_EQ(with, converted(rows, model, false));
  std::istringstream l2(with);
  std::vector<std::string> out2;
  for (std::string l; std::getline(l2, l);) out2.push_back(l);
  ASSERT_GE(out2.size(), 4u) << with;
  EXPECT_NE(out2[0], out2[1]);
  EXPECT_EQ(out2[0], out2[2]);
  EXPECT_EQ(out2[1], out2[3]);
}
