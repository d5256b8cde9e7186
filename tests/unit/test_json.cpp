// JSON reader/writer against CPython: generated tables (tools/gen_json_cases.py) plus
// hand-written error paths and limits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>

#include "value/json.hpp"

using namespace toolchat;
using toolchat::json::DumpOptions;

namespace {

#define SV(lit) std::string_view(lit, sizeof(lit) - 1)

const double NAN_V = std::numeric_limits<double>::quiet_NaN();
const double INF_V = std::numeric_limits<double>::infinity();

Value L(std::initializer_list<Value> v) { return Value::list(std::vector<Value>(v)); }
Value S(std::string_view s) { return Value::string(s); }
Value I(int64_t i) { return Value::integer(i); }

struct FnObj : Obj {
  FnObj() : Obj(ObjKind::Function) {}
};

// Decodes the compact value encoding written by tools/gen_json_cases.py (enc()).
Value build(std::string_view& p) {
  auto number_until = [&](char end) {
    size_t e = p.find(end);
    std::string num(p.substr(0, e));
    p.remove_prefix(e + 1);
    return num;
  };
  char tag = p[0];
  p.remove_prefix(1);
  switch (tag) {
    case 'n': return Value::none();
    case 't': return Value::boolean(true);
    case 'f': return Value::boolean(false);
    case 'i': return Value::integer(std::stoll(number_until(';')));
    case 'd': {
      std::string num = number_until(';');
      if (num == "nan") return Value::floating(NAN_V);
      if (num == "inf") return Value::floating(INF_V);
      if (num == "-inf") return Value::floating(-INF_V);
      return Value::floating(std::strtod(num.c_str(), nullptr));
    }
    case 's':
    case 'm': {
      size_t len = std::stoull(number_until(':'));
      std::string s(p.substr(0, len));
      p.remove_prefix(len);
      return tag == 'm' ? Value::markup(std::move(s)) : Value::string(std::move(s));
    }
    case 'D': {
      size_t n = std::stoull(number_until(':'));
      Value d = Value::dict();
      for (size_t i = 0; i < n; ++i) {
        Value k = build(p);
        Value v = build(p);
        d.dict_obj().set(std::move(k), std::move(v));
      }
      return d;
    }
    case 'r': {
      int64_t a = std::stoll(number_until(','));
      int64_t b = std::stoll(number_until(','));
      int64_t c = std::stoll(number_until(';'));
      Value r = Value::list({}, ListKind::Range);
      r.list_obj().range_start = a;
      r.list_obj().range_stop = b;
      r.list_obj().range_step = c;
      for (int64_t i = a; c > 0 ? i < b : i > b; i += c) r.list_obj().items.push_back(I(i));
      return r;
    }
    case 'u': return Value::undefined_var("x");
    case 'F': return Value(new FnObj());
    default: {
      ListKind k = tag == 'l'   ? ListKind::List
                   : tag == 'T' ? ListKind::Tuple
                   : tag == 'K' ? ListKind::DictKeys
                   : tag == 'V' ? ListKind::DictValues
                                : ListKind::DictItems;
      size_t n = std::stoull(number_until(':'));
      std::vector<Value> items;
      for (size_t i = 0; i < n; ++i) items.push_back(build(p));
      return Value::list(std::move(items), k);
    }
  }
}

#define IND_NONE std::optional<std::string>()
#define IND(s) std::optional<std::string>(std::string(s))
#define SEP_NONE std::optional<std::pair<std::string, std::string>>()

DumpOptions opts(bool ea, std::optional<std::string> ind, std::optional<std::pair<std::string, std::string>> sep,
                 bool sk) {
  DumpOptions o;
  o.ensure_ascii = ea;
  o.indent = std::move(ind);
  o.separators = std::move(sep);
  o.sort_keys = sk;
  return o;
}

DumpOptions opts(bool ea, bool has_ind, std::string_view ind, bool has_sep, std::string_view s1,
                 std::string_view s2, bool sk) {
  return opts(ea, has_ind ? IND(ind) : IND_NONE,
              has_sep ? std::optional<std::pair<std::string, std::string>>({std::string(s1), std::string(s2)})
                      : SEP_NONE,
              sk);
}

std::string kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::TypeError: return "TypeError";
    case ErrorKind::ValueError: return "ValueError";
    case ErrorKind::JSONDecodeError: return "JSONDecodeError";
    case ErrorKind::OverflowError: return "OverflowError";
    case ErrorKind::RecursionError: return "RecursionError";
    case ErrorKind::LimitError: return "LimitError";
    default: return "Other";
  }
}

// (kind, text): "OK" with the output, or the error kind with its message.
std::pair<std::string, std::string> try_dumps(const Value& v, const DumpOptions& o) {
  try {
    return {"OK", json::dumps(v, o)};
  } catch (const Error& e) {
    return {kind_name(e.kind()), e.message()};
  }
}

std::pair<std::string, std::string> try_loads(std::string_view s) {
  try {
    return {"OK", json::dumps(json::parse(s))};
  } catch (const Error& e) {
    return {kind_name(e.kind()), e.message()};
  }
}

std::string data_dir() {
  // ctest runs from the source directory; __FILE__ may be relative to the build directory
  if (std::ifstream("tests/unit/data/json_ctx_simple.json")) return "tests/unit/data/";
  std::string f = __FILE__;
  return f.substr(0, f.find_last_of('/') + 1) + "data/";
}

struct DumpCase {
  std::string_view in;
  bool ea, has_ind;
  std::string_view ind;
  bool has_sep;
  std::string_view s1, s2;
  bool sort;
  const char* kind;
  std::string_view expected;
};
struct LoadCase {
  std::string_view in;
  const char* kind;
  std::string_view expected;
};
struct CtxCase {
  std::string_view name;
  bool ea, has_ind;
  std::string_view ind;
  bool has_sep;
  std::string_view s1, s2;
  bool sort;
  std::string_view expected;
};

#define LOAD(...)
#define CTX(...)
#define DUMP(...) DumpCase{__VA_ARGS__},
constexpr DumpCase kDumpCases[] = {
#include "data/json_cases.inc"
};
#undef DUMP
#define DUMP(...)
#undef LOAD
#define LOAD(...) LoadCase{__VA_ARGS__},
constexpr LoadCase kLoadCases[] = {
#include "data/json_cases.inc"
};
#undef LOAD
#define LOAD(...)
#undef CTX
#define CTX(...) CtxCase{__VA_ARGS__},
constexpr CtxCase kCtxCases[] = {
#include "data/json_cases.inc"
};
#undef CTX
#undef DUMP
#undef LOAD

void expect_decode_error(std::string_view text, const std::string& msg, ErrorKind kind = ErrorKind::JSONDecodeError,
                         const json::ReadLimits& lim = {}) {
  try {
    json::parse(text, lim);
    ADD_FAILURE() << "no error for " << text.substr(0, 60);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.message();
    EXPECT_EQ(e.message(), msg);
  }
}

}  // namespace

TEST(json, DumpsMatchPython) {
  EXPECT_GE(std::size(kDumpCases), 150u);
  for (size_t i = 0; i < std::size(kDumpCases); ++i) {
    const DumpCase& c = kDumpCases[i];
    std::string_view p = c.in;
    Value v = build(p);
    ASSERT_TRUE(p.empty()) << "case " << i;
    auto got = try_dumps(v, opts(c.ea, c.has_ind, c.ind, c.has_sep, c.s1, c.s2, c.sort));
    EXPECT_EQ(got.first, c.kind) << "dump case " << i << ": " << c.in;
    EXPECT_EQ(got.second, c.expected) << "dump case " << i << ": " << c.in;
  }
}

TEST(json, LoadsMatchPython) {
  EXPECT_GE(std::size(kLoadCases), 100u);
  for (size_t i = 0; i < std::size(kLoadCases); ++i) {
    const LoadCase& c = kLoadCases[i];
    auto got = try_loads(c.in);
    EXPECT_EQ(got.first, c.kind) << "load case " << i << ": " << c.in;
    EXPECT_EQ(got.second, c.expected) << "load case " << i << ": " << c.in;
  }
}

TEST(json, CorpusContextsMatchPython) {
  EXPECT_GE(std::size(kCtxCases), 11u);
  for (const CtxCase& c : kCtxCases) {
    Value v = json::parse_file(data_dir() + std::string(c.name));
    EXPECT_EQ(json::dumps(v, opts(c.ea, c.has_ind, c.ind, c.has_sep, c.s1, c.s2, c.sort)), c.expected) << c.name;
  }
}

TEST(json, ParseScalarsTypes) {
  Value v = json::parse("1");
  ASSERT_TRUE(v.is_int());
  EXPECT_EQ(v.as_int(), 1);
  v = json::parse("1.0");
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 1.0);
  v = json::parse("1e2");
  ASSERT_TRUE(v.is_float());
  EXPECT_EQ(v.as_float(), 100.0);
  v = json::parse("-0.0");
  ASSERT_TRUE(v.is_float());
  EXPECT_TRUE(std::signbit(v.as_float()));
  v = json::parse("-0");
  ASSERT_TRUE(v.is_int());
  EXPECT_EQ(v.as_int(), 0);
  EXPECT_TRUE(std::isnan(json::parse("NaN").as_float()));
  EXPECT_EQ(json::parse("-Infinity").as_float(), -INF_V);
  EXPECT_EQ(json::parse("1e999").as_float(), INF_V);
  EXPECT_EQ(json::parse("-1e999").as_float(), -INF_V);
  EXPECT_EQ(json::parse("1e-999").as_float(), 0.0);
  EXPECT_TRUE(std::signbit(json::parse("-1e-999").as_float()));
  EXPECT_EQ(json::parse("0.1").as_float(), 0.1);
  EXPECT_EQ(json::parse("9223372036854775807").as_int(), INT64_MAX);
  EXPECT_EQ(json::parse("-9223372036854775808").as_int(), INT64_MIN);
  EXPECT_TRUE(json::parse("null").is_none());
  EXPECT_TRUE(json::parse(" true ").as_bool());
}

TEST(json, ParseStringsAndSurrogates) {
  EXPECT_EQ(json::parse(R"("\ud83d\ude00")").str(), "\xF0\x9F\x98\x80");
  EXPECT_EQ(json::parse(R"("\ud800")").str(), "\xED\xA0\x80");  // WTF-8 lone surrogate
  EXPECT_EQ(json::parse(R"("\udc00\ud800")").str(), "\xED\xB0\x80\xED\xA0\x80");
  EXPECT_EQ(json::parse(R"("\u0000")").str(), std::string(1, '\0'));
  EXPECT_EQ(json::parse("\"\xC3\xA9\"").str(), "\xC3\xA9");
  // Lone surrogates survive a round trip in both modes.
  Value v = json::parse(R"(["\ud800", "a\udfffb"])");
  EXPECT_EQ(json::dumps(v), R"(["\ud800", "a\udfffb"])");
  EXPECT_EQ(json::dumps(v, opts(false, IND_NONE, SEP_NONE, false)), "[\"\xED\xA0\x80\", \"a\xED\xBF\xBF" "b\"]");
}

TEST(json, DuplicateKeysKeepFirstPositionLastValue) {
  Value v = json::parse(R"({"a":1,"b":2,"a":3})");
  ASSERT_EQ(v.dict_obj().size(), 2u);
  EXPECT_EQ(json::dumps(v), R"({"a": 3, "b": 2})");
}

TEST(json, LargeObjectsLookupAndDuplicates) {
  std::string doc = "{";
  for (int i = 0; i < 300; ++i) doc += "\"k" + std::to_string(i % 200) + "\":" + std::to_string(i) + ",";
  doc += "\"last\":true}";
  Value v = json::parse(doc);
  ASSERT_EQ(v.dict_obj().size(), 201u);
  EXPECT_EQ(v.dict_obj().entries[5].first.str(), "k5");
  EXPECT_EQ(v.dict_obj().find("k5")->as_int(), 205);
  EXPECT_EQ(v.dict_obj().find("k150")->as_int(), 150);
  EXPECT_TRUE(v.dict_obj().find("last")->as_bool());
  EXPECT_EQ(v.dict_obj().find("k200"), nullptr);
  EXPECT_EQ(v.dict_obj().find(S("k199"))->as_int(), 199);
}

TEST(json, BigIntegers) {
  // Beyond int64: exact big ints, as json.loads makes them (tests/unit/test_bigint.cpp has more).
  EXPECT_EQ(json::dumps(json::parse("18446744073709551616")), "18446744073709551616");
  EXPECT_EQ(json::dumps(json::parse("[1, -9223372036854775809]")), "[1, -9223372036854775809]");
  std::string big(100, '7');
  EXPECT_EQ(json::dumps(json::parse(big)), big);
  expect_decode_error("[18446744073709551616, x]", "Expecting value: line 1 column 24 (char 23)");
  // As a float it is fine.
  EXPECT_EQ(json::parse(big + ".0").as_float(), 7.777777777777778e99);
}

TEST(json, InvalidUtf8) {
  expect_decode_error("\"\xff\"", "invalid UTF-8 byte at: line 1 column 2 (char 1)");
  expect_decode_error("[\"\xC3\xA9\", \"\xC3\"]", "invalid UTF-8 byte at: line 1 column 8 (char 7)");
  // UTF-8-encoded surrogates are refused as Python's decoder refuses them; as WTF-8 (our own
  // form of a str with lone surrogates) they are accepted on request, one character each.
  expect_decode_error("\"\xED\xA0\x80\"", "invalid UTF-8 byte at: line 1 column 2 (char 1)");
  json::ReadLimits wtf8;
  wtf8.allow_surrogates = true;
  EXPECT_EQ(json::parse("\"\xED\xA0\x80\"", wtf8).str(), "\xED\xA0\x80");
  expect_decode_error("\"\xED\xA0\x80\" x", "Extra data: line 1 column 5 (char 4)", ErrorKind::JSONDecodeError, wtf8);
  expect_decode_error("\"\xC0\xAF\"", "invalid UTF-8 byte at: line 1 column 2 (char 1)");      // overlong
  expect_decode_error("\"\xF4\x90\x80\x80\"", "invalid UTF-8 byte at: line 1 column 2 (char 1)");
  expect_decode_error("\n\xE6\x97\xA5\xE6\x97", "invalid UTF-8 byte at: line 2 column 2 (char 2)");
  expect_decode_error("\xEF\xBB\xBF{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)");
}

TEST(json, PositionsCountCodePoints) {
  expect_decode_error("[\"\xE6\x97\xA5\xE6\x9C\xAC\" x]", "Expecting ',' delimiter: line 1 column 7 (char 6)");
  expect_decode_error("{\"\xF0\x9F\x98\x80\":\n  1,\n  \"\xC3\xA9\" 2}",
                      "Expecting ':' delimiter: line 3 column 7 (char 17)");
}

TEST(json, DepthLimit) {
  std::string ok(512, '[');
  ok += std::string(512, ']');
  EXPECT_NO_THROW(json::parse(ok));
  std::string deep(513, '[');
  deep += std::string(513, ']');
  expect_decode_error(deep, "nesting too deep (limit 512): line 1 column 513 (char 512)");
  json::ReadLimits lim;
  lim.max_depth = 2;
  expect_decode_error(R"({"a":[{}]})", "nesting too deep (limit 2): line 1 column 7 (char 6)",
                      ErrorKind::JSONDecodeError, lim);
  EXPECT_NO_THROW(json::parse(R"({"a":[1]})", lim));
  // Huge nesting never overflows the stack, with any limit.
  std::string huge(300000, '[');
  lim.max_depth = SIZE_MAX;
  expect_decode_error(huge, "Expecting value: line 1 column 300001 (char 300000)", ErrorKind::JSONDecodeError, lim);
}

TEST(json, SizeLimit) {
  json::ReadLimits lim;
  lim.max_bytes = 4;
  EXPECT_NO_THROW(json::parse("[12]", lim));
  expect_decode_error("[123]", "JSON input too large (5 bytes, limit 4)", ErrorKind::LimitError, lim);
}

TEST(json, ParseFile) {
  Value v = json::parse_file(data_dir() + "json_ctx_simple.json");
  ASSERT_TRUE(v.is_dict());
  EXPECT_NE(v.dict_obj().find("messages"), nullptr);
  try {
    json::parse_file("/nonexistent/x.json");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::OSError);
    EXPECT_EQ(e.message(), "/nonexistent/x.json: cannot open file: No such file or directory");
  }
  std::string path = testing::TempDir() + "toolchat_json_bad.json";
  {
    std::ofstream f(path, std::ios::binary);
    f << "{\n  \"a\": 1,\n}";
  }
  try {
    json::parse_file(path);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::JSONDecodeError);
    EXPECT_EQ(e.message(), path + ": Expecting property name enclosed in double quotes: line 3 column 1 (char 12)");
  }
  std::remove(path.c_str());
}

TEST(json, DumpRecursionLimit) {
  Value v = L({});
  for (int i = 0; i < 999; ++i) v = L({v});
  EXPECT_NO_THROW(json::dumps(v));  // 1000 levels
  v = L({v});
  try {
    json::dumps(v);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::RecursionError);
    EXPECT_EQ(e.message(), "maximum recursion depth exceeded while encoding a JSON object");
  }
}

TEST(json, DumpIndentHelperAndAppend) {
  EXPECT_EQ(json::indent_spaces(3), "   ");
  EXPECT_EQ(json::indent_spaces(0), "");
  EXPECT_EQ(json::indent_spaces(-2), "");
  std::string out = "x=";
  json::dump(out, L({I(1), S("a")}), {});
  EXPECT_EQ(out, R"(x=[1, "a"])");
  out.clear();
  json::dump_string(out, "\xC3\xA9\x7f", true);
  EXPECT_EQ(out, R"("\u00e9\u007f")");
  out.clear();
  json::dump_string(out, "\xC3\xA9\x7f", false);
  EXPECT_EQ(out, "\"\xC3\xA9\x7f\"");
  // Bytes that are not UTF-8 (never produced by the parser) become U+FFFD with ensure_ascii.
  EXPECT_EQ(json::dumps(S("a\xff")), R"("a\ufffd")");
}

// A long text is written a slice at a time: what it gives equals writing its pieces one by one,
// whatever character (escaped, multi-byte, four-byte) falls on a slice's edge, and the text
// parses back.
TEST(json, LongTextsDumpAsTheirPieces) {
  const std::string pieces[] = {"plain words ", "\"q\"", "\n", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x01", "\\"};
  for (bool ensure_ascii : {false, true})
    for (size_t shift = 0; shift < 12; ++shift) {
      std::string text(32768 - 6 + shift, 'a'), want;
      json::dump_string(want, text, ensure_ascii);
      want.pop_back();
      for (size_t k = 0; text.size() < 100000; ++k) {
        const std::string& p = pieces[k % 8];
        text += p;
        std::string one;
        json::dump_string(one, p, ensure_ascii);
        want.append(one, 1, one.size() - 2);
      }
      want += '"';
      std::string got;
      json::dump_string(got, text, ensure_ascii);
      ASSERT_EQ(got, want) << "shift " << shift;
      EXPECT_EQ(json::parse(got).str(), text);
    }
}

TEST(json, RoundTripIsStable) {
  const char* docs[] = {
      R"({"messages": [{"role": "user", "content": "hi \u00e9 \ud83d\ude00"}], "n": [1, 2.5, -0.0, 1e+300]})",
      R"([NaN, Infinity, -Infinity, null, true, false, "", {}, []])",
      R"({"a": {"b": {"c": [1, [2, [3]]]}}, "\ud800": "\udfff"})",
  };
  for (const char* d : docs) {
    std::string once = json::dumps(json::parse(d));
    EXPECT_EQ(once, d);
    EXPECT_EQ(json::dumps(json::parse(once)), once);
    // ensure_ascii=False writes lone surrogates as WTF-8, which parses back when allowed
    std::string raw = json::dumps(json::parse(d), opts(false, IND(" "), SEP_NONE, true));
    json::ReadLimits wtf8;
    wtf8.allow_surrogates = true;
    EXPECT_EQ(json::dumps(json::parse(raw, wtf8), opts(false, IND(" "), SEP_NONE, true)), raw);
  }
}

TEST(json, NeverCrashesOnTruncations) {
  std::string doc =
      R"({"a": [1, -2.5e-3, "x\u00e9\ud83d\ude00\n", true, false, null, NaN, -Infinity, {"k": {}}], "b": "\u12"})";
  for (size_t i = 0; i <= doc.size(); ++i) {
    for (size_t j = i; j <= doc.size() && j < i + 40; ++j) {
      try {
        json::parse(std::string_view(doc).substr(i, j - i));
      } catch (const Error&) {
      }
    }
  }
  SUCCEED();
}
