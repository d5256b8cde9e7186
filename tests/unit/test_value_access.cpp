// Value's checked accessors and the dict / list builders (include/toolchat/value.hpp), used by
// embedding programs through the public headers only.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <toolchat/json.hpp>
#include <toolchat/value.hpp>

using namespace toolchat;

namespace {

ErrorKind kind_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.message();
    return e.kind();
  }
  ADD_FAILURE() << "no Error thrown";
  return ErrorKind::InternalError;
}

}  // namespace

TEST(ValueBuilder, DictKeepsInsertionOrderAndLastValueOfARepeatedKey) {
  Value v = DictBuilder().add("b", 1).add("a", "x").add("b", true).add("c", 2.5).build();
  // Python: d = {"b": 1, "a": "x"}; d["b"] = True; d["c"] = 2.5 -> json.dumps(d)
  EXPECT_EQ(json::dumps(v), R"({"b": true, "a": "x", "c": 2.5})");
}

TEST(ValueBuilder, NestedListsAndDicts) {
  Value v = DictBuilder()
                .add("required", ListBuilder().add("city").add(int64_t{3}).add(Value::none()).build())
                .add("empty", ListBuilder().build())
                .build();
  EXPECT_EQ(json::dumps(v), R"({"required": ["city", 3, null], "empty": []})");
}

TEST(ValueBuilder, FromABaseDictCopiesItAndLeavesTheBaseAlone) {
  Value base = DictBuilder().add("a", 1).add("b", 2).build();
  Value v = DictBuilder(base).add("b", 3).add("c", 4).build();
  // Python: d = dict(base); d["b"] = 3; d["c"] = 4
  EXPECT_EQ(json::dumps(v), R"({"a": 1, "b": 3, "c": 4})");
  EXPECT_EQ(json::dumps(base), R"({"a": 1, "b": 2})");
  Value key = Value::string("k");
  Value w = DictBuilder().add(key, Value::integer(1)).add("k", 2).build();
  EXPECT_EQ(json::dumps(w), R"({"k": 2})");
  std::string msg;
  EXPECT_EQ(kind_of([&] { DictBuilder(ListBuilder().build()); }, &msg), ErrorKind::TypeError);
  EXPECT_EQ(msg, "expected dict, got list");
}

TEST(ValueAccess, CheckedAccessorsReturnTheValue) {
  Value v = json::parse(R"({"s": "x", "i": 7, "f": 0.5, "b": false, "l": [1, 2]})");
  EXPECT_EQ(v.at("s").get_str(), "x");
  EXPECT_EQ(v.at("i").get_int(), 7);
  EXPECT_EQ(v.at("i").get_number(), 7.0);
  EXPECT_EQ(v.at("f").get_number(), 0.5);
  EXPECT_FALSE(v.at("b").get_bool());
  EXPECT_EQ(v.at("l").get_items().size(), 2u);
  EXPECT_EQ(v.at("l").at(1).get_int(), 2);
  ASSERT_NE(v.find("s"), nullptr);
  EXPECT_EQ(v.find("missing"), nullptr);
  EXPECT_EQ(v.at("s").find("s"), nullptr);  // not a dict: nothing found, no error
}

TEST(ValueAccess, WrongTypeIsATypeErrorNamingBothTypes) {
  Value v = json::parse(R"({"i": 7, "b": true, "s": "x"})");
  std::string msg;
  EXPECT_EQ(kind_of([&] { v.at("i").get_str(); }, &msg), ErrorKind::TypeError);
  EXPECT_EQ(msg, "expected str, got int");
  // bool is not accepted as an int (Python's isinstance(True, int) notwithstanding: JSON true).
  EXPECT_EQ(kind_of([&] { v.at("b").get_int(); }, &msg), ErrorKind::TypeError);
  EXPECT_EQ(msg, "expected int, got bool");
  EXPECT_EQ(kind_of([&] { v.at("s").get_number(); }), ErrorKind::TypeError);
  EXPECT_EQ(kind_of([&] { v.at("s").at("k"); }, &msg), ErrorKind::TypeError);
  EXPECT_EQ(msg, "expected dict, got str");
  EXPECT_EQ(kind_of([&] { v.at(size_t{0}); }, &msg), ErrorKind::TypeError);
  EXPECT_EQ(msg, "expected list, got dict");
}

TEST(ValueAccess, MissingKeyAndIndexRaiseLikePython) {
  Value v = json::parse(R"({"l": [1]})");
  std::string msg;
  EXPECT_EQ(kind_of([&] { v.at("it's"); }, &msg), ErrorKind::KeyError);
  EXPECT_EQ(msg, R"("it's")");  // Python: KeyError("it's") prints repr of the key
  EXPECT_EQ(kind_of([&] { v.at("l").at(1); }, &msg), ErrorKind::IndexError);
  EXPECT_EQ(msg, "list index out of range");
}

// same_bytes (dict keys, str ==) reads short strings as overlapping words: every length up to
// past the word sizes, with one byte changed at each position, must agree with memcmp.
TEST(SameBytes, AgreesWithMemcmpAtEveryLengthAndPosition) {
  for (size_t n = 0; n <= 40; ++n) {
    std::string a(n, 'x');
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<char>('a' + i % 26);
    std::string b = a;
    EXPECT_TRUE(same_bytes(a.data(), b.data(), n)) << n;
    for (size_t i = 0; i < n; ++i) {
      std::string c = a;
      c[i] = static_cast<char>(c[i] ^ 0x20);
      EXPECT_FALSE(same_bytes(a.data(), c.data(), n)) << "length " << n << ", byte " << i;
    }
  }
}
