// Hostile JSON input (tests/hostile/json.jsonl, made by tests/hostile/make_catalogue.py): json::parse
// must give Python's json.loads value (compared through json.dumps) or Python's exact error, and
// deep nesting / invalid UTF-8 a clear error, never a crash. The template half of the catalogue
// runs through the CLI (tests/hostile/run_catalogue.py, ctest hostile_catalogue).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <vector>
#include <regex>
#include <string>

#include "toolchat/jinja.hpp"
#include "value/json.hpp"

using namespace toolchat;

namespace {

std::string b64decode(const std::string& s) {
  static const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    if (c == '=') break;
    size_t v = abc.find(c);
    if (v == std::string::npos) continue;
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

// {"$gen"} parts: [["lit", s] | ["rep", s, n], ...]
std::string expand_gen(const Value& parts) {
  std::string out;
  for (const Value& p : parts.items()) {
    const auto& it = p.items();
    if (it[0].str() == "lit") {
      out += it[1].str();
    } else {
      for (int64_t i = 0; i < it[2].as_int(); ++i) out += it[1].str();
    }
  }
  return out;
}

std::regex python_regex(std::string pat) {
  auto flags = std::regex::ECMAScript;
  if (pat.rfind("(?i)", 0) == 0) {
    pat = pat.substr(4);
    flags |= std::regex::icase;
  }
  return std::regex(pat, flags);
}

const Value* field(const Value& d, const char* k) { return d.dict_obj().find(k); }

}  // namespace

TEST(Hostile, JsonCatalogue) {
  std::ifstream in("tests/hostile/json.jsonl", std::ios::binary);
  ASSERT_TRUE(in) << "run from the source directory";
  std::string line;
  int n = 0, failed = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Value c = json::parse(line);
    ++n;
    const std::string id(field(c, "id")->str());
    std::string input;
    if (const Value* v = field(c, "input")) input = v->str();
    else if (const Value* b = field(c, "input_b64")) input = b64decode(std::string(b->str()));
    else input = expand_gen(*field(c, "input_gen"));
    const Value& e = *field(c, "expect");
    const std::string kind(field(e, "kind")->str());

    bool ok = false;
    std::string got;
    try {
      Value v = json::parse(input);
      got = "value " + json::dumps(v);
      if (kind == "value") ok = json::dumps(v) == field(e, "dumps")->str();
    } catch (const Error& err) {
      got = std::string(error_kind_name(err.kind())) + ": " + err.message();
      if (kind == "error")
        ok = error_kind_name(err.kind()) == field(e, "error")->str() && err.message() == field(e, "message")->str();
      else if (kind == "error_match")
        ok = std::regex_search(got, python_regex(std::string(field(e, "match")->str())));
    }
    if (!ok && field(c, "known_issue")) {
      std::printf("known issue %s: %s\n", id.c_str(), std::string(field(c, "known_issue")->str()).c_str());
    } else if (!ok) {
      ++failed;
      std::string want = kind == "value" ? "value " + std::string(field(e, "dumps")->str())
                         : kind == "error" ? std::string(field(e, "error")->str()) + ": " + std::string(field(e, "message")->str())
                                           : "an error matching " + std::string(field(e, "match")->str());
      ADD_FAILURE() << id << ": got " << got.substr(0, 300) << "\n  expected " << want.substr(0, 300);
    }
  }
  EXPECT_GE(n, 50);
  std::printf("json catalogue: %d cases, %d failed\n", n, failed);
}

// Regression (issue 7, found by the hostile catalogue): long chains built in a loop by the parser
// (a + b + ..., x.a.b..., x|f|g..., a if b else c if ...) nested deeper than max_parse_depth and
// overflowed the resolver's stack (SIGSEGV at 100k terms). They are limit errors now.
TEST(Hostile, LongChainsAreLimitErrors) {
  auto rep = [](const std::string& s, int n) {
    std::string o;
    for (int i = 0; i < n; ++i) o += s;
    return o;
  };
  const int n = 100000;
  const std::string chains[] = {
      "{{ 1" + rep(" + 1", n) + " }}",        "{{ 1" + rep(" ** 1", n) + " }}",
      "{{ 1" + rep(" * 1", n) + " }}",        "{{ 1" + rep(" and 1", n) + " }}",
      "{{ 1" + rep(" or 1", n) + " }}",       "{{ " + rep("1 if 1 else ", n) + "1 }}",
      "{{ 'a'" + rep("|upper", n) + " }}",    "{{ x" + rep(".y", n) + " }}",
      "{{ x" + rep("[0]", n) + " }}",         "{{ x" + rep("()", n) + " }}",
      "{{ (x" + rep("|upper", n) + ") }}",    "{{ x" + rep("|f()", n) + " }}",
  };
  for (const auto& src : chains) {
    try {
      jinja::Template::compile(src);
      ADD_FAILURE() << "compiled: " << src.substr(0, 40);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::LimitError) << src.substr(0, 40) << ": " << e.message();
    }
  }
  // Lengths Jinja2 renders (a link counts a quarter nesting level) still compile and render.
  auto t = jinja::Template::compile("{{ 1" + rep(" + 1", 400) + " }}|{{ 'a'" + rep("|upper", 300) + " }}|{{ " +
                                    rep("(", 60) + "'b'" + rep(".strip()", 100) + rep(")", 60) + " }}");
  EXPECT_EQ(t.render(Value::dict()).text, "401|A|b");
}

// The default limits are generous for real conversations: a 10,000-message chat and a single
// 10 MiB message render with corpus templates (the work budget charges per node, item and
// byte, so this guards the calibration from the other side of the resource bombs).
TEST(Hostile, DefaultLimitsRenderLargeConversations) {
  auto read = [](const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (const char* name : {"vllm-qwen3coder", "vllm-hermes", "vllm-llama3.1_json", "deepseek-ai-DeepSeek-V3"}) {
    std::string src = read(std::string("tests/corpus/templates/") + name + ".jinja");
    ASSERT_FALSE(src.empty()) << name << ": run from the source directory";
    auto t = jinja::Template::compile(src, name);
    Value many = Value::dict();
    std::vector<Value> msgs;
    for (int i = 0; i < 10000; ++i) {
      Value m = Value::dict();
      m.dict_obj().set(Value::string("role"), Value::string(i % 2 ? "assistant" : "user"));
      m.dict_obj().set(Value::string("content"), Value::string("hello there, message " + std::to_string(i)));
      msgs.push_back(m);
    }
    many.dict_obj().set(Value::string("messages"), Value::list(std::move(msgs)));
    EXPECT_GT(t.render(many).text.size(), 200000u) << name;

    Value big = Value::dict();
    Value m = Value::dict();
    m.dict_obj().set(Value::string("role"), Value::string("user"));
    m.dict_obj().set(Value::string("content"), Value::string(std::string(10u << 20, 'a')));
    big.dict_obj().set(Value::string("messages"), Value::list({m}));
    EXPECT_GT(t.render(big).text.size(), 10u << 20) << name;
  }
}
