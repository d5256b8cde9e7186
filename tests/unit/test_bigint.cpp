// Big integers (src/value/bigint.cpp) and the Value operators on them, against CPython:
// generated tables (tools/gen_bigint_cases.py) plus hand-written glue checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "jinja/literal.hpp"
#include "value/bigint.hpp"
#include "value/json.hpp"
#include "value/pyformat.hpp"

using namespace toolchat;

namespace {

struct OpCase { std::string_view op, a, b, expected; };
struct StrCase { std::string_view v, str, hex, oct; };
struct DblCase { std::string_view v, expected; };
struct FromDblCase { std::string_view d, expected; };
struct JsonCase { std::string_view text, expected; };

// constexpr, not const: the tables are then constant-initialised; as plain const arrays g++ 12 with
// ASan emitted their 3,583 rows as dynamic initialisation and took 4 minutes on this file.
#define OP(...) OpCase{__VA_ARGS__},
#define STR(...)
#define TODBL(...)
#define FROMDBL(...)
#define JSON(...)
constexpr OpCase kOps[] = {
#include "data/bigint_cases.inc"
};
#undef OP
#define OP(...)
#undef STR
#define STR(...) StrCase{__VA_ARGS__},
constexpr StrCase kStrs[] = {
#include "data/bigint_cases.inc"
};
#undef STR
#define STR(...)
#undef TODBL
#define TODBL(...) DblCase{__VA_ARGS__},
constexpr DblCase kToDbl[] = {
#include "data/bigint_cases.inc"
};
#undef TODBL
#define TODBL(...)
#undef FROMDBL
#define FROMDBL(...) FromDblCase{__VA_ARGS__},
constexpr FromDblCase kFromDbl[] = {
#include "data/bigint_cases.inc"
};
#undef FROMDBL
#define FROMDBL(...)
#undef JSON
#define JSON(...) JsonCase{__VA_ARGS__},
constexpr JsonCase kJson[] = {
#include "data/bigint_cases.inc"
};
#undef OP
#undef STR
#undef TODBL
#undef FROMDBL
#undef JSON

BigInt big(std::string_view digits) {
  BigInt n;
  EXPECT_TRUE(BigInt::from_decimal(digits, n)) << digits;
  return n;
}

// "i:<decimal>", "f:<repr>", "b:0|1" -> Value.
Value typed(std::string_view s) {
  std::string_view body = s.substr(2);
  switch (s[0]) {
    case 'i': return make_int(big(body));
    case 'f': return Value::floating(std::strtod(std::string(body).c_str(), nullptr));
    case 'b': return Value::boolean(body == "1");
  }
  ADD_FAILURE() << "bad typed value " << s;
  return Value();
}

std::string encode(const Value& v) {
  if (v.is_bool()) return v.as_bool() ? "b:1" : "b:0";
  if (v.is_int()) return "i:" + std::to_string(v.as_int());
  if (v.is_bigint()) {
    EXPECT_FALSE(bigint_of(v).fits_int64()) << "big int not normalised to int64";
    return "i:" + bigint_of(v).to_decimal();
  }
  if (v.is_float()) return "f:" + float_repr(v.as_float());
  return "?:" + py_repr(v);
}

template <class F>
std::string run(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    return std::string("e:") + error_kind_name(e.kind()) + ":" + e.message();
  }
}

Value apply(std::string_view op, const Value& a, const Value& b) {
  if (op == "+") return py_add(a, b);
  if (op == "-") return py_sub(a, b);
  if (op == "*") return py_mul(a, b);
  if (op == "/") return py_truediv(a, b);
  if (op == "//") return py_floordiv(a, b);
  if (op == "%") return py_mod(a, b);
  if (op == "**") return py_pow(a, b);
  if (op == "==") return Value::boolean(py_equal(a, b));
  if (op == "<") return Value::boolean(py_less(a, b));
  ADD_FAILURE() << "bad op " << op;
  return Value();
}

}  // namespace

TEST(bigint, OperatorsMatchPython) {
  EXPECT_GE(std::size(kOps), 1500u);
  for (const OpCase& c : kOps) {
    Value a = typed(c.a), b = typed(c.b);
    std::string got = run([&] { return encode(apply(c.op, a, b)); });
    EXPECT_EQ(got, c.expected) << c.a.substr(0, 80) << " " << c.op << " " << c.b.substr(0, 80);
    // The same through BigInt directly, for int operands.
    if (c.a[0] == 'i' && c.b[0] == 'i' && c.expected[0] == 'i' &&
        (c.op == "+" || c.op == "-" || c.op == "*" || c.op == "//" || c.op == "%")) {
      BigInt x = big(c.a.substr(2)), y = big(c.b.substr(2)), r, q, m;
      if (c.op == "+") r = x + y;
      else if (c.op == "-") r = x - y;
      else if (c.op == "*") r = x * y;
      else {
        BigInt::divmod(x, y, q, m);
        r = c.op == "//" ? q : m;
        EXPECT_EQ(BigInt::compare(q * y + m, x), 0);
      }
      EXPECT_EQ(r.to_decimal(), c.expected.substr(2)) << c.a.substr(0, 80) << " " << c.op;
    }
  }
}

TEST(bigint, StringsMatchPython) {
  EXPECT_GE(std::size(kStrs), 60u);
  for (const StrCase& c : kStrs) {
    BigInt n = big(c.v.substr(2));
    EXPECT_EQ(n.to_decimal(), c.v.substr(2));
    EXPECT_EQ(n.magnitude_digits(16), c.hex);
    EXPECT_EQ(n.magnitude_digits(8), c.oct);
    BigInt back;
    ASSERT_TRUE(BigInt::from_digits(c.hex, 16, back));
    EXPECT_EQ(back.to_decimal(), (n.is_negative() ? -n : n).to_decimal());
    std::string got = run([&] { return py_str(make_int(n)); });
    EXPECT_EQ(got, c.str) << c.v.substr(0, 60);
  }
}

TEST(bigint, FloatConversionsMatchPython) {
  for (const DblCase& c : kToDbl) {
    Value v = typed(c.v);
    EXPECT_EQ(run([&] { return "f:" + float_repr(v.to_double()); }), c.expected) << c.v.substr(0, 60);
  }
  for (const FromDblCase& c : kFromDbl) {
    double d = std::strtod(std::string(c.d).c_str(), nullptr);
    EXPECT_EQ("i:" + BigInt::from_double(d).to_decimal(), c.expected) << c.d;
  }
}

TEST(bigint, JsonRoundTripMatchesPython) {
  for (const JsonCase& c : kJson) EXPECT_EQ(json::dumps(json::parse(c.text)), c.expected);
  Value v = json::parse("[18446744073709551616, -9223372036854775808]");
  EXPECT_TRUE(v.items()[0].is_bigint());
  EXPECT_TRUE(v.items()[1].is_int());  // INT64_MIN stays an int64
  // Python's int() digit limit raises at once, before a later syntax error.
  std::string digits(4301, '7');
  try {
    json::parse("[" + digits + ", x]");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ValueError);
    EXPECT_EQ(e.message(),
              "Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; "
              "use sys.set_int_max_str_digits() to increase the limit");
  }
  BigInt huge = BigInt::pow(BigInt(10), 4300);  // 4301 digits: json.dumps refuses it too
  std::string err = run([&] { return json::dumps(make_int(huge)); });
  EXPECT_EQ(err.substr(0, 40), "e:ValueError:Exceeds the limit (4300 dig");
  Value d = json::parse("{\"k\": 1}");
  d.dict_obj().set(make_int(BigInt::pow(BigInt(2), 64)), Value::integer(2));
  EXPECT_EQ(json::dumps(d), "{\"k\": 1, \"18446744073709551616\": 2}");
}

TEST(bigint, ValueGlue) {
  Value b = make_int(BigInt::pow(BigInt(2), 64));
  Value f = Value::floating(18446744073709551616.0);
  EXPECT_TRUE(b.is_bigint());
  EXPECT_TRUE(b.is_number());
  EXPECT_TRUE(b.is_integer());
  EXPECT_FALSE(b.is_int());
  EXPECT_STREQ(type_name(b), "int");
  EXPECT_STREQ(object_type_repr(b), "int object");
  EXPECT_TRUE(truthy(b));
  EXPECT_EQ(py_repr(b), "18446744073709551616");
  EXPECT_TRUE(py_equal(b, f));
  EXPECT_EQ(py_hash(b), py_hash(f));
  EXPECT_EQ(py_num_compare(b, Value::floating(std::nan(""))), 2);
  // int64 vs float compares exactly too: 2**53 + 1 != 2.0**53.
  EXPECT_FALSE(py_equal(Value::integer(9007199254740993), Value::floating(9007199254740992.0)));
  EXPECT_TRUE(py_less(Value::floating(9007199254740992.0), Value::integer(9007199254740993)));
  // Dict keys by Python equality.
  Value d = Value::dict();
  d.dict_obj().set(b, Value::string("big"));
  ASSERT_NE(d.dict_obj().find(f), nullptr);
  EXPECT_EQ(d.dict_obj().find(make_int(BigInt::pow(BigInt(2), 64)))->str(), "big");
  // Unary minus across the int64 edge, both ways.
  Value m = py_neg(Value::integer(INT64_MIN));
  EXPECT_TRUE(m.is_bigint());
  EXPECT_EQ(py_str(m), "9223372036854775808");
  Value back = py_neg(m);
  EXPECT_TRUE(back.is_int());
  EXPECT_EQ(back.as_int(), INT64_MIN);
  EXPECT_TRUE(py_pos(b).is_bigint());
  // Index-sized uses.
  EXPECT_EQ(run([&] { return encode(Value::integer(b.int_like())); }),
            "e:OverflowError:Python int too large to convert to C ssize_t");
  EXPECT_EQ(run([&] { return encode(py_mul(Value::string("ab"), b)); }),
            "e:OverflowError:cannot fit 'int' into an index-sized integer");
  EXPECT_EQ(run([&] { return encode(py_mul(Value::list({}), py_neg(b))); }),
            "e:OverflowError:cannot fit 'int' into an index-sized integer");
  EXPECT_EQ(run([&] { return encode(py_add(make_int(BigInt::pow(BigInt(2), 1100)), Value::floating(1.0))); }),
            "e:OverflowError:int too large to convert to float");
}

TEST(bigint, Formatting) {
  Value b = make_int(big("-123456789012345678901234567890"));
  EXPECT_EQ(pyformat::percent("%d|%x|%#o|%40d", Value::tuple({b, b, b, b})),
            "-123456789012345678901234567890|-18ee90ff6c373e0ee4e3f0ad2|-0o143564417755415637016711617605322|"
            "         -123456789012345678901234567890");
  EXPECT_EQ(pyformat::format_value(b, ","), "-123,456,789,012,345,678,901,234,567,890");
  EXPECT_EQ(pyformat::format_value(b, "X"), "-18EE90FF6C373E0EE4E3F0AD2");
  EXPECT_EQ(pyformat::format_value(b, ".3e"), "-1.235e+29");
  EXPECT_EQ(pyformat::percent("%.2f", b), "-123456789012345677877719597056.00");  // via float(b)
  EXPECT_EQ(run([] { return pyformat::format_value(make_int(BigInt::pow(BigInt(10), 20)), "c"); }),
            "e:OverflowError:Python int too large to convert to C long");
}

TEST(bigint, Literals) {
  Value v = jinja::parse_int_literal("123_456_789_012_345_678_901_234_567_890", 10, 0);
  EXPECT_EQ(py_str(v), "123456789012345678901234567890");
  EXPECT_EQ(py_str(jinja::parse_int_literal("0xffff_ffff_ffff_ffff_ff", 16, 0)), "4722366482869645213695");
  EXPECT_EQ(py_str(jinja::parse_int_literal("0b" + std::string(64, '1'), 2, 0)), "18446744073709551615");
  EXPECT_TRUE(jinja::parse_int_literal("9223372036854775807", 10, 0).is_int());
  try {
    jinja::parse_int_literal(std::string(4301, '1'), 10, 0);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::ValueError);
    EXPECT_NE(e.message().find("value has 4301 digits"), std::string::npos);
  }
}

TEST(bigint, Limits) {
  EXPECT_EQ(run([] { return BigInt::pow(BigInt(3), 700000).to_decimal().substr(0, 0); }),
            "e:LimitError:integer result exceeds the size limit");
  EXPECT_EQ(BigInt::pow(BigInt(-1), 1000001).to_decimal(), "-1");
  EXPECT_EQ(BigInt::pow(BigInt(2), 100000).bit_length(), 100001u);
  // 4300 digits print; 4301 do not.
  BigInt n = BigInt::pow(BigInt(10), 4300) - BigInt(1);
  EXPECT_EQ(py_str(make_int(n)).size(), 4300u);
  EXPECT_EQ(run([&] { return py_str(make_int(n + BigInt(1))); }).substr(0, 13), "e:ValueError:");
  EXPECT_EQ(run([&] { return py_str(make_int(BigInt::pow(BigInt(7), 100000))); }).substr(0, 13), "e:ValueError:");
}
