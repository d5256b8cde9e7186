// Builtin filters and tests, called directly through find_filter / find_test with a
// small mock Renderer. Expected strings come from the Python oracle (Jinja2 3.1.6 +
// transformers' tojson): `{{ expr }}` rendered there, str() of the result here.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "jinja/builtins.hpp"
#include "toolchat/value.hpp"

using namespace toolchat;
using namespace toolchat::jinja;

namespace {

using KW = std::vector<std::pair<std::string, Value>>;

// Attribute / item access as Jinja2's sandboxed getattr / getitem on plain data.
class MockRenderer final : public Renderer {
 public:
  Value getattr(const Value& obj, std::string_view name) override {
    if (obj.is_undefined()) raise_undefined(obj);
    if (obj.is_list() && obj.list_obj().lkind == ListKind::Tuple && obj.items().size() == 2 &&
        obj.list_obj().range_start == 0x47524f5550) {
      if (name == "grouper") return obj.items()[0];
      if (name == "list") return obj.items()[1];
    }
    if (obj.is_dict()) {
      if (const Value* v = obj.dict_obj().find(name)) return *v;
    }
    return Value::undefined_attr(obj, std::string(name));
  }
  Value getitem(const Value& obj, const Value& key) override {
    if (obj.is_undefined()) raise_undefined(obj);
    if (obj.is_dict()) {
      if (const Value* v = obj.dict_obj().find(key)) return *v;
      if (key.is_str()) return getattr(obj, key.str());
      return Value::undefined_item(obj, key);
    }
    if (obj.is_list() && (key.is_int() || key.is_bool())) {
      int64_t i = key.int_like(), n = static_cast<int64_t>(obj.items().size());
      if (i < 0) i += n;
      if (i >= 0 && i < n) return obj.items()[static_cast<size_t>(i)];
      return Value::undefined_item(obj, key);
    }
    if (key.is_str()) return getattr(obj, key.str());
    return Value::undefined_item(obj, key);
  }
  Value call(const Value&, CallArgs&) override {
    throw Error(ErrorKind::TypeError, "not callable in the mock");
  }
  Value call_filter(std::string_view name, const Value& v, CallArgs& args) override {
    FilterFn fn = find_filter(name);
    if (!fn) throw Error(ErrorKind::TemplateRuntimeError, "No filter named '" + std::string(name) + "'.");
    return fn(*this, v, args);
  }
  bool call_test(std::string_view name, const Value& v, CallArgs& args) override {
    TestFn fn = find_test(name);
    if (!fn) throw Error(ErrorKind::TemplateRuntimeError, "No test named '" + std::string(name) + "'.");
    return fn(*this, v, args);
  }
  void charge(uint64_t n) override { steps += n; }
  const EngineLimits& limits() const override { return lim; }
  uint64_t steps = 0;
  EngineLimits lim;
};

MockRenderer R;

Value S(const char* s) { return Value::string(s); }
Value I(int64_t i) { return Value::integer(i); }
Value F(double d) { return Value::floating(d); }
Value B(bool b) { return Value::boolean(b); }
Value N() { return Value::none(); }
Value U() { return Value::undefined_var("nothing"); }
Value L(std::vector<Value> v) { return Value::list(std::move(v)); }
Value T(std::vector<Value> v) { return Value::tuple(std::move(v)); }
Value D(std::vector<std::pair<Value, Value>> kv) {
  Value d = Value::dict();
  for (auto& [k, v] : kv) d.dict_obj().set(k, v);
  return d;
}
Value range_list(int64_t n) {
  std::vector<Value> out;
  for (int64_t i = 0; i < n; ++i) out.push_back(I(i));
  return L(std::move(out));
}
Value user(const char* name, int64_t age, const char* city) {
  return D({{S("name"), S(name)}, {S("age"), I(age)}, {S("city"), S(city)}});
}
Value users() { return L({user("bob", 30, "Paris"), user("alice", 25, "Berlin"), user("carol", 30, "paris")}); }

Value f(const char* name, const Value& v, std::vector<Value> pos = {}, KW kw = {}) {
  FilterFn fn = find_filter(name);
  if (!fn) throw Error(ErrorKind::TemplateAssertionError, std::string("No filter named '") + name + "'.");
  CallArgs a{std::move(pos), std::move(kw)};
  return fn(R, v, a);
}
Value t(const char* name, const Value& v, std::vector<Value> pos = {}, KW kw = {}) {
  TestFn fn = find_test(name);
  if (!fn) throw Error(ErrorKind::TemplateAssertionError, std::string("No test named '") + name + "'.");
  CallArgs a{std::move(pos), std::move(kw)};
  return B(fn(R, v, a));
}

// str() of the result, or "ERR Kind: message".
// Generator results (map, select, ...) are shown as `|list` would: the oracle's expected
// strings were taken that way.
std::string run(const std::function<Value()>& fn) {
  try {
    Value v = fn();
    if (v.is_obj(ObjKind::Generator)) v = Value::list(iterate(v));
    return py_str(v);
  } catch (const Error& e) {
    return std::string("ERR ") + error_kind_name(e.kind()) + ": " + e.message();
  }
}

}  // namespace

TEST(Builtins, EveryFilterAndTestIsRegistered) {
  for (const char* name : {"abs", "attr", "batch", "capitalize", "center", "count", "d", "default", "dictsort", "e",
                           "escape", "filesizeformat", "first", "float", "forceescape", "format", "groupby",
                           "indent", "int", "items", "join", "last", "length", "list", "lower", "map", "max", "min",
                           "pprint", "random", "reject", "rejectattr", "replace", "reverse", "round", "safe",
                           "select", "selectattr", "slice", "sort", "string", "striptags", "sum", "title", "tojson",
                           "trim", "truncate", "unique", "upper", "urlencode", "urlize", "wordcount", "wordwrap",
                           "xmlattr"})
    EXPECT_NE(find_filter(name), nullptr) << name;
  EXPECT_EQ(find_filter("tojsonx"), nullptr);
  for (const char* name : {"boolean", "callable", "defined", "divisibleby", "eq", "equalto", "escaped", "even",
                           "false", "filter", "float", "ge", "greaterthan", "gt", "in", "integer", "iterable", "le",
                           "lessthan", "lower", "lt", "mapping", "ne", "none", "number", "odd", "sameas", "sequence",
                           "string", "test", "true", "undefined", "upper", "==", "!=", "<", "<=", ">", ">="})
    EXPECT_NE(find_test(name), nullptr) << name;
  EXPECT_EQ(find_test("nope"), nullptr);
}

TEST(Builtins, MarkupFlag) {
  EXPECT_TRUE(f("e", S("<")).is_markup());
  EXPECT_TRUE(f("safe", S("<")).is_markup());
  EXPECT_TRUE(f("upper", f("e", S("<a>"))).is_markup());
  EXPECT_TRUE(f("string", f("e", S("<a>"))).is_markup());
  EXPECT_FALSE(f("replace", f("e", S("<a>")), {S("a"), S("b")}).is_markup());
  EXPECT_FALSE(f("join", L({f("e", S("<"))})).is_markup());
  EXPECT_TRUE(f("indent", f("e", S("<a>\nb")), {I(1)}).is_markup());
  EXPECT_EQ(f("indent", f("e", S("<a>\nb")), {I(1)}).str(), "&lt;a&gt;\n b");
  EXPECT_FALSE(f("title", f("e", S("<a>"))).is_markup());
  EXPECT_EQ(f("length", f("string", f("e", S("<x>")))).as_int(), 9);
}

TEST(Builtins, UndefinedResultsCarryMessages) {
  Value v = f("first", L({}));
  ASSERT_TRUE(v.is_undefined());
  EXPECT_EQ(run([&] { raise_undefined(v); return Value(); }), "ERR UndefinedError: No first item, sequence was empty.");
  v = f("random", L({}));
  EXPECT_EQ(run([&] { raise_undefined(v); return Value(); }), "ERR UndefinedError: No random item, sequence was empty.");
  v = f("max", L({}));
  EXPECT_EQ(run([&] { raise_undefined(v); return Value(); }), "ERR UndefinedError: No aggregated item, sequence was empty.");
}

TEST(Builtins, ResultKinds) {
  Value g = f("groupby", users(), {S("age")});
  ASSERT_TRUE(g.is_list());
  EXPECT_EQ(g.items()[0].list_obj().lkind, ListKind::Tuple);
  EXPECT_EQ(R.getattr(g.items()[1], "grouper").as_int(), 30);
  Value items = f("items", D({{S("a"), I(1)}}));
  EXPECT_STREQ(type_name(items), "generator");
  EXPECT_EQ(iterate(items)[0].list_obj().lkind, ListKind::Tuple);
  EXPECT_STREQ(type_name(f("select", L({I(1)}))), "generator");
  EXPECT_TRUE(f("round", F(2.0)).is_float());
  EXPECT_TRUE(f("round", I(2)).is_int());
  EXPECT_TRUE(f("int", S("3")).is_int());
  EXPECT_TRUE(f("sum", L({F(0.5), F(0.5)})).is_float());
}

TEST(Builtins, ValueSizeLimit) {
  MockRenderer small;
  small.lim.max_value_bytes = 100;
  CallArgs a{{I(1000)}, {}};
  EXPECT_THROW(find_filter("center")(small, S("x"), a), Error);
  CallArgs b{{S("a"), S("0123456789")}, {}};
  try {
    find_filter("replace")(small, S("aaaaaaaaaaaaaaaaaaaa"), b);
    ADD_FAILURE() << "no limit error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::LimitError);
  }
  std::vector<Value> many(50, S("abc"));
  CallArgs c{{S(", ")}, {}};
  EXPECT_THROW(find_filter("join")(small, L(many), c), Error);
}

TEST(Builtins, OracleFilters) {
  EXPECT_EQ(run([&] { return f("abs", I(-3)); }), "3") << "-3|abs";
  EXPECT_EQ(run([&] { return f("abs", F(-2.5)); }), "2.5") << "2.5|abs";
  EXPECT_EQ(run([&] { return f("abs", S("x")); }), "ERR TypeError: bad operand type for abs(): 'str'") << "'x'|abs";
  EXPECT_EQ(run([&] { return f("abs", I(1), {I(1)}); }), "ERR TypeError: abs() takes exactly one argument (2 given)") << "1|abs(1)";
  EXPECT_EQ(run([&] { return f("abs", I(1), {}, {{"x", I(1)}}); }), "ERR TypeError: abs() takes no keyword arguments") << "1|abs(x=1)";
  EXPECT_EQ(run([&] { return f("abs", U()); }), "ERR TypeError: bad operand type for abs(): 'Undefined'") << "nothing|abs";
  EXPECT_EQ(run([&] { return f("attr", D({{S("a"), I(1)}}), {S("a")}); }), "") << "{'a': 1}|attr('a')";
  EXPECT_EQ(run([&] { return f("attr", U(), {S("a")}); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing|attr('a')";
  EXPECT_EQ(run([&] { return f("attr", I(1)); }), "ERR TypeError: do_attr() missing 1 required positional argument: 'name'") << "1|attr";
  EXPECT_EQ(run([&] { return f("batch", L({I(1), I(2), I(3), I(4), I(5)}), {I(2)}); }), "[[1, 2], [3, 4], [5]]") << "[1, 2, 3, 4, 5]|batch(2)|list";
  EXPECT_EQ(run([&] { return f("batch", L({I(1), I(2), I(3), I(4), I(5)}), {I(2), S("x")}); }), "[[1, 2], [3, 4], [5, 'x']]") << "[1, 2, 3, 4, 5]|batch(2, 'x')|list";
  EXPECT_EQ(run([&] { return f("batch", L({I(1), I(2)}), {I(0)}); }), "[[], [1, 2]]") << "[1, 2]|batch(0)|list";
  EXPECT_EQ(run([&] { return f("batch", S("abcd"), {I(3)}); }), "[['a', 'b', 'c'], ['d']]") << "'abcd'|batch(3)|list";
  EXPECT_EQ(run([&] { return f("batch", L({I(1)})); }), "ERR TypeError: do_batch() missing 1 required positional argument: 'linecount'") << "[1]|batch|list";
  EXPECT_EQ(run([&] { return f("batch", I(5), {I(2)}); }), "ERR TypeError: 'int' object is not iterable") << "5|batch(2)|list";
  EXPECT_EQ(run([&] { return f("batch", U(), {I(2)}); }), "[]") << "nothing|batch(2)|list";
  EXPECT_EQ(run([&] { return f("capitalize", S("hELLO wORLD")); }), "Hello world") << "'hELLO wORLD'|capitalize";
  EXPECT_EQ(run([&] { return f("capitalize", S("ßa")); }), "Ssa") << "'ßa'|capitalize";
  EXPECT_EQ(run([&] { return f("capitalize", I(123)); }), "123") << "123|capitalize";
  EXPECT_EQ(run([&] { return f("title", S("hello wORLD")); }), "Hello World") << "'hello wORLD'|title";
  EXPECT_EQ(run([&] { return f("title", S("it's a test")); }), "It's A Test") << "\"it's a test\"|title";
  EXPECT_EQ(run([&] { return f("title", S("x-y_z (ab) [cd] <ef> {gh}")); }), "X-Y_z (Ab) [Cd] <Ef> {Gh}") << "'x-y_z (ab) [cd] <ef> {gh}'|title";
  EXPECT_EQ(run([&] { return f("title", N()); }), "None") << "none|title";
  EXPECT_EQ(run([&] { return f("lower", S("HeLLo ÉÀ")); }), "hello éà") << "'HeLLo ÉÀ'|lower";
  EXPECT_EQ(run([&] { return f("upper", S("straße ﬁ")); }), "STRASSE FI") << "'straße ﬁ'|upper";
  EXPECT_EQ(run([&] { return f("upper", S("abc"), {I(1)}); }), "ERR TypeError: do_upper() takes 1 positional argument but 2 were given") << "'abc'|upper(1)";
  EXPECT_EQ(run([&] { return f("upper", U()); }), "") << "nothing|upper";
  EXPECT_EQ(run([&] { return f("center", S("ab"), {I(7)}); }), "   ab  ") << "'ab'|center(7)";
  EXPECT_EQ(run([&] { return f("center", S("abc"), {I(6)}); }), " abc  ") << "'abc'|center(6)";
  EXPECT_EQ(run([&] { return f("center", S("x")); }), "                                       x                                        ") << "'x'|center";
  EXPECT_EQ(run([&] { return f("center", S("a"), {S("5")}); }), "ERR TypeError: 'str' object cannot be interpreted as an integer") << "'a'|center('5')";
  EXPECT_EQ(run([&] { return f("center", S("a"), {F(3.0)}); }), "ERR TypeError: 'float' object cannot be interpreted as an integer") << "'a'|center(3.0)";
  EXPECT_EQ(run([&] { return f("center", S("abc"), {}, {{"width", I(5)}, {"foo", I(1)}}); }), "ERR TypeError: do_center() got an unexpected keyword argument 'foo'") << "'abc'|center(width=5, foo=1)";
  EXPECT_EQ(run([&] { return f("center", S("a"), {}, {{"value", I(1)}}); }), "ERR TypeError: do_center() got multiple values for argument 'value'") << "'a'|center(value=1)";
  EXPECT_EQ(run([&] { return f("center", S("a"), {I(1)}, {{"width", I(2)}}); }), "ERR TypeError: do_center() got multiple values for argument 'width'") << "'a'|center(1, width=2)";
  EXPECT_EQ(run([&] { return f("center", S("a"), {I(1), I(2)}); }), "ERR TypeError: do_center() takes from 1 to 2 positional arguments but 3 were given") << "'a'|center(1, 2)";
  EXPECT_EQ(run([&] { return f("count", L({I(1), I(2), I(3)})); }), "3") << "[1, 2, 3]|count";
  EXPECT_EQ(run([&] { return f("length", S("héllo😀")); }), "6") << "'héllo😀'|length";
  EXPECT_EQ(run([&] { return f("length", D({{S("a"), I(1)}, {S("b"), I(2)}})); }), "2") << "{'a': 1, 'b': 2}|length";
  EXPECT_EQ(run([&] { return f("length", U()); }), "0") << "nothing|length";
  EXPECT_EQ(run([&] { return f("length", I(5)); }), "ERR TypeError: object of type 'int' has no len()") << "5|length";
  EXPECT_EQ(run([&] { return f("length", L({I(1)}), {I(1)}); }), "ERR TypeError: len() takes exactly one argument (2 given)") << "[1]|length(1)";
  EXPECT_EQ(run([&] { return f("default", U(), {S("dflt")}); }), "dflt") << "nothing|default('dflt')";
  EXPECT_EQ(run([&] { return f("default", S(""), {S("dflt")}); }), "") << "''|default('dflt')";
  EXPECT_EQ(run([&] { return f("default", S(""), {S("dflt"), B(true)}); }), "dflt") << "''|default('dflt', true)";
  EXPECT_EQ(run([&] { return f("default", I(0), {S("z")}, {{"boolean", B(true)}}); }), "z") << "0|default('z', boolean=true)";
  EXPECT_EQ(run([&] { return f("default", B(false), {S("x")}); }), "False") << "false|default('x')";
  EXPECT_EQ(run([&] { return f("d", U()); }), "") << "nothing|d";
  EXPECT_EQ(run([&] { return f("default", I(1), {I(1), I(2), I(3)}); }), "ERR TypeError: do_default() takes from 1 to 3 positional arguments but 4 were given") << "1|default(1, 2, 3)";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("b"), I(1)}, {S("A"), I(2)}, {S("c"), I(0)}})); }), "[('A', 2), ('b', 1), ('c', 0)]") << "{'b': 1, 'A': 2, 'c': 0}|dictsort";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("b"), I(1)}, {S("A"), I(2)}, {S("c"), I(0)}}), {B(true)}); }), "[('A', 2), ('b', 1), ('c', 0)]") << "{'b': 1, 'A': 2, 'c': 0}|dictsort(true)";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("b"), I(1)}, {S("A"), I(2)}, {S("c"), I(0)}}), {}, {{"by", S("value")}}); }), "[('c', 0), ('b', 1), ('A', 2)]") << "{'b': 1, 'A': 2, 'c': 0}|dictsort(by='value')";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("b"), I(1)}, {S("a"), I(2)}}), {}, {{"reverse", B(true)}}); }), "[('b', 1), ('a', 2)]") << "{'b': 1, 'a': 2}|dictsort(reverse=true)";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("a"), I(1)}}), {}, {{"by", S("nope")}}); }), "ERR FilterArgumentError: You can only sort by either \"key\" or \"value\"") << "{'a': 1}|dictsort(by='nope')";
  EXPECT_EQ(run([&] { return f("dictsort", D({{S("a"), I(1)}, {S("b"), S("x")}}), {}, {{"by", S("value")}}); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "{'a': 1, 'b': 'x'}|dictsort(by='value')";
  EXPECT_EQ(run([&] { return f("dictsort", L({I(1)})); }), "ERR AttributeError: 'list' object has no attribute 'items'") << "[1]|dictsort";
  EXPECT_EQ(run([&] { return f("dictsort", U()); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing|dictsort";
  EXPECT_EQ(run([&] { return f("escape", S("<a href=\"x\">&'</a>")); }), "&lt;a href=&#34;x&#34;&gt;&amp;&#39;&lt;/a&gt;") << "'<a href=\"x\">&\\'</a>'|escape";
  EXPECT_EQ(run([&] { return f("e", I(5)); }), "5") << "5|e";
  EXPECT_EQ(run([&] { return f("e", N()); }), "None") << "none|e";
  EXPECT_EQ(run([&] { return f("e", f("e", S("<"))); }), "&lt;") << "'<'|e|e";
  EXPECT_EQ(run([&] { return f("e", S("a"), {I(1)}); }), "ERR TypeError: escape() takes 1 positional argument but 2 were given") << "'a'|e(1)";
  EXPECT_EQ(run([&] { return f("forceescape", S("<x>")); }), "&lt;x&gt;") << "'<x>'|forceescape";
  EXPECT_EQ(run([&] { return f("forceescape", f("e", S("<x>"))); }), "&amp;lt;x&amp;gt;") << "('<x>'|e)|forceescape";
  EXPECT_EQ(run([&] { return f("safe", S("<b>")); }), "<b>") << "'<b>'|safe";
  EXPECT_EQ(run([&] { return f("safe", I(5)); }), "5") << "5|safe";
  EXPECT_EQ(run([&] { return f("string", L({I(1), S("a")})); }), "[1, 'a']") << "[1, 'a']|string";
  EXPECT_EQ(run([&] { return f("string", F(1.0)); }), "1.0") << "1.0|string";
  EXPECT_EQ(run([&] { return f("string", U()); }), "") << "nothing|string";
  EXPECT_EQ(run([&] { return f("string", S("a"), {}, {{"x", I(1)}}); }), "ERR TypeError: soft_str() got an unexpected keyword argument 'x'") << "'a'|string(x=1)";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(100)); }), "100 Bytes") << "100|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1000)); }), "1.0 kB") << "1000|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1500000)); }), "1.5 MB") << "1500000|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1)); }), "1 Byte") << "1|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1024), {B(true)}); }), "1.0 KiB") << "1024|filesizeformat(true)";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1536000), {}, {{"binary", B(true)}}); }), "1.5 MiB") << "1536000|filesizeformat(binary=true)";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(1000000000000000)); }), "1.0 PB") << "(10**15)|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", S("x")); }), "ERR ValueError: could not convert string to float: 'x'") << "'x'|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", S("2000")); }), "2.0 kB") << "'2000'|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", F(1.5)); }), "1 Bytes") << "1.5|filesizeformat";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(-5)); }), "-5 Bytes") << "-5|filesizeformat";
  EXPECT_EQ(run([&] { return f("first", L({I(3), I(4)})); }), "3") << "[3, 4]|first";
  EXPECT_EQ(run([&] { return f("first", S("xyz")); }), "x") << "'xyz'|first";
  EXPECT_EQ(run([&] { return f("first", L({})); }), "") << "[]|first";
  EXPECT_EQ(run([&] { return f("first", D({{S("k"), I(1)}, {S("j"), I(2)}})); }), "k") << "{'k': 1, 'j': 2}|first";
  EXPECT_EQ(run([&] { return f("first", I(5)); }), "ERR TypeError: 'int' object is not iterable") << "5|first";
  EXPECT_EQ(run([&] { return f("first", L({I(1)}), {I(1)}); }), "ERR TypeError: sync_do_first() takes 2 positional arguments but 3 were given") << "[1]|first(1)";
  EXPECT_EQ(run([&] { return f("last", L({I(1), I(2), I(3)})); }), "3") << "[1, 2, 3]|last";
  EXPECT_EQ(run([&] { return f("last", S("xyz")); }), "z") << "'xyz'|last";
  EXPECT_EQ(run([&] { return f("last", D({{S("a"), I(1)}})); }), "a") << "{'a': 1}|last";
  EXPECT_EQ(run([&] { return f("last", I(5)); }), "ERR TypeError: 'int' object is not reversible") << "5|last";
  EXPECT_EQ(run([&] { return f("random", L({I(7)})); }), "7") << "[7]|random";
  EXPECT_EQ(run([&] { return f("random", S("x")); }), "x") << "'x'|random";
  EXPECT_EQ(run([&] { return f("random", L({})); }), "") << "[]|random";
  EXPECT_EQ(run([&] { return f("random", D({{S("a"), I(1)}})); }), "ERR KeyError: 0") << "{'a': 1}|random";
  EXPECT_EQ(run([&] { return f("float", S("3.5")); }), "3.5") << "'3.5'|float";
  EXPECT_EQ(run([&] { return f("float", S("x")); }), "0.0") << "'x'|float";
  EXPECT_EQ(run([&] { return f("float", S("x"), {F(1.5)}); }), "1.5") << "'x'|float(1.5)";
  EXPECT_EQ(run([&] { return f("float", I(2)); }), "2.0") << "2|float";
  EXPECT_EQ(run([&] { return f("float", S("1e3")); }), "1000.0") << "'1e3'|float";
  EXPECT_EQ(run([&] { return f("float", S(" 2 ")); }), "2.0") << "' 2 '|float";
  EXPECT_EQ(run([&] { return f("float", S("1_0.5")); }), "10.5") << "'1_0.5'|float";
  EXPECT_EQ(run([&] { return f("float", S("-inf")); }), "-inf") << "'-inf'|float";
  EXPECT_EQ(run([&] { return f("float", N()); }), "0.0") << "none|float";
  EXPECT_EQ(run([&] { return f("float", U()); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing|float";
  EXPECT_EQ(run([&] { return f("int", S("42")); }), "42") << "'42'|int";
  EXPECT_EQ(run([&] { return f("int", S("abc")); }), "0") << "'abc'|int";
  EXPECT_EQ(run([&] { return f("int", S("abc"), {I(7)}); }), "7") << "'abc'|int(7)";
  EXPECT_EQ(run([&] { return f("int", F(3.99)); }), "3") << "3.99|int";
  EXPECT_EQ(run([&] { return f("int", F(-3.99)); }), "-3") << "-3.99|int";
  EXPECT_EQ(run([&] { return f("int", S("3.7")); }), "3") << "'3.7'|int";
  EXPECT_EQ(run([&] { return f("int", S("0x1A"), {I(0), I(16)}); }), "26") << "'0x1A'|int(0, 16)";
  EXPECT_EQ(run([&] { return f("int", S("ff"), {}, {{"base", I(16)}}); }), "255") << "'ff'|int(base=16)";
  EXPECT_EQ(run([&] { return f("int", S("0b101"), {I(0), I(2)}); }), "5") << "'0b101'|int(0, 2)";
  EXPECT_EQ(run([&] { return f("int", S("0o17"), {}, {{"base", I(8)}}); }), "15") << "'0o17'|int(base=8)";
  EXPECT_EQ(run([&] { return f("int", S("12"), {}, {{"base", I(3)}}); }), "5") << "'12'|int(base=3)";
  EXPECT_EQ(run([&] { return f("int", S("1e3")); }), "1000") << "'1e3'|int";
  EXPECT_EQ(run([&] { return f("int", S("12abc"), {I(-1)}); }), "-1") << "'12abc'|int(-1)";
  EXPECT_EQ(run([&] { return f("int", S("z"), {}, {{"base", I(36)}}); }), "35") << "'z'|int(base=36)";
  EXPECT_EQ(run([&] { return f("int", S("1_000")); }), "1000") << "'1_000'|int";
  EXPECT_EQ(run([&] { return f("int", S(" 12 ")); }), "12") << "' 12 '|int";
  EXPECT_EQ(run([&] { return f("int", B(true)); }), "1") << "true|int";
  EXPECT_EQ(run([&] { return f("int", N()); }), "0") << "none|int";
  EXPECT_EQ(run([&] { return f("int", S("1__0")); }), "0") << "'1__0'|int";
  EXPECT_EQ(run([&] { return f("int", S("0x10")); }), "0") << "'0x10'|int";
  EXPECT_EQ(run([&] { return f("int", S("010"), {I(0), I(0)}); }), "10") << "'010'|int(0, 0)";
  EXPECT_EQ(run([&] { return f("int", S("0x_1f"), {I(0), I(16)}); }), "31") << "'0x_1f'|int(0, 16)";
  EXPECT_EQ(run([&] { return f("int", S("١٢")); }), "12") << "'١٢'|int";
  EXPECT_EQ(run([&] { return f("int", L({I(1)})); }), "0") << "[1]|int";
  EXPECT_EQ(run([&] { return f("int", S("1e400"), {I(5)}); }), "5") << "'1e400'|int(5)";
  EXPECT_EQ(run([&] { return f("int", U()); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing|int";
  EXPECT_EQ(run([&] { return f("int", I(1), {I(1), I(2), I(3)}); }), "ERR TypeError: do_int() takes from 1 to 3 positional arguments but 4 were given") << "1|int(1, 2, 3)";
  EXPECT_EQ(run([&] { return f("format", S("%s-%d-%.2f"), {S("a"), I(7), F(3.14159)}); }), "a-7-3.14") << "'%s-%d-%.2f'|format('a', 7, 3.14159)";
  EXPECT_EQ(run([&] { return f("format", S("%(a)s/%(b)s"), {}, {{"a", I(1)}, {"b", S("two")}}); }), "1/two") << "'%(a)s/%(b)s'|format(a=1, b='two')";
  EXPECT_EQ(run([&] { return f("format", S("%s"), {I(1)}, {{"a", I(2)}}); }), "ERR FilterArgumentError: can't handle positional and keyword arguments at the same time") << "'%s'|format(1, a=2)";
  EXPECT_EQ(run([&] { return f("format", S("%s %s"), {I(1)}); }), "ERR TypeError: not enough arguments for format string") << "'%s %s'|format(1)";
  EXPECT_EQ(run([&] { return f("format", I(1), {I(1)}); }), "ERR TypeError: not all arguments converted during string formatting") << "1|format(1)";
  EXPECT_EQ(run([&] { return f("map", f("groupby", users(), {S("age")}), {}, {{"attribute", S("grouper")}}); }), "[25, 30]") << "users|groupby('age')|map(attribute='grouper')|list";
  EXPECT_EQ(run([&] { return f("groupby", users(), {S("age")}).items()[0]; }), "(25, [{'name': 'alice', 'age': 25, 'city': 'Berlin'}])") << "(users|groupby('age'))[0]";
  EXPECT_EQ(run([&] { return f("map", f("groupby", users(), {S("city")}), {}, {{"attribute", S("grouper")}}); }), "['Berlin', 'Paris']") << "users|groupby('city')|map(attribute='grouper')|list";
  EXPECT_EQ(run([&] { return f("map", f("groupby", users(), {S("city")}, {{"case_sensitive", B(true)}}), {}, {{"attribute", S("grouper")}}); }), "['Berlin', 'Paris', 'paris']") << "users|groupby('city', case_sensitive=true)|map(attribute='grouper')|list";
  EXPECT_EQ(run([&] { return f("groupby", L({D({{S("k"), S("a")}}), D({}), D({{S("k"), S("a")}})}), {S("k")}, {{"default", S("none")}}); }), "[('a', [{'k': 'a'}, {'k': 'a'}]), ('none', [{}])]") << "[{'k': 'a'}, {}, {'k': 'a'}]|groupby('k', default='none')|list";
  EXPECT_EQ(run([&] { return f("groupby", L({D({{S("k"), S("a")}}), D({})}), {S("k")}); }), "ERR UndefinedError: 'dict object' has no attribute 'k'") << "[{'k': 'a'}, {}]|groupby('k')|list";
  EXPECT_EQ(run([&] { return f("groupby", L({I(1)})); }), "ERR TypeError: sync_do_groupby() missing 1 required positional argument: 'attribute'") << "[1]|groupby";
  EXPECT_EQ(run([&] { return f("indent", S("a\nb\nc")); }), "a\n    b\n    c") << "'a\\nb\\nc'|indent";
  EXPECT_EQ(run([&] { return f("indent", S("a\nb"), {S("> ")}, {{"first", B(true)}}); }), "> a\n> b") << "'a\\nb'|indent('> ', first=true)";
  EXPECT_EQ(run([&] { return f("indent", S("a\nb\n"), {I(2)}); }), "a\n  b\n") << "'a\\nb\\n'|indent(2)";
  EXPECT_EQ(run([&] { return f("indent", S("a\n\nb"), {I(2)}); }), "a\n\n  b") << "'a\\n\\nb'|indent(2)";
  EXPECT_EQ(run([&] { return f("indent", S("a\n\nb"), {I(2)}, {{"blank", B(true)}}); }), "a\n  \n  b") << "'a\\n\\nb'|indent(2, blank=true)";
  EXPECT_EQ(run([&] { return f("indent", S("a\u2028b"), {I(1)}); }), "a\n b") << "'a\\u2028b'|indent(1)";
  EXPECT_EQ(run([&] { return f("indent", I(5)); }), "ERR TypeError: unsupported operand type(s) for +=: 'int' and 'str'") << "5|indent";
  EXPECT_EQ(run([&] { return f("indent", U()); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing|indent";
  EXPECT_EQ(run([&] { return f("indent", S("a"), {F(1.5)}); }), "ERR TypeError: can't multiply sequence by non-int of type 'float'") << "'a'|indent(1.5)";
  EXPECT_EQ(run([&] { return f("items", D({{S("a"), I(1)}, {S("b"), L({I(2)})}})); }), "[('a', 1), ('b', [2])]") << "{'a': 1, 'b': [2]}|items|list";
  EXPECT_EQ(run([&] { return f("items", L({I(1)})); }), "ERR TypeError: Can only get item pairs from a mapping.") << "[1]|items|list";
  EXPECT_EQ(run([&] { return f("items", U()); }), "[]") << "nothing|items|list";
  EXPECT_EQ(run([&] { return f("join", L({I(1), I(2), I(3)})); }), "123") << "[1, 2, 3]|join";
  EXPECT_EQ(run([&] { return f("join", L({S("a"), S("b")}), {S(", ")}); }), "a, b") << "['a', 'b']|join(', ')";
  EXPECT_EQ(run([&] { return f("join", S("abc"), {S("-")}); }), "a-b-c") << "'abc'|join('-')";
  EXPECT_EQ(run([&] { return f("join", users(), {S("/")}, {{"attribute", S("name")}}); }), "bob/alice/carol") << "users|join('/', attribute='name')";
  EXPECT_EQ(run([&] { return f("join", L({I(1), N(), B(true), S("x"), F(2.0)}), {S(",")}); }), "1,None,True,x,2.0") << "[1, none, true, 'x', 2.0]|join(',')";
  EXPECT_EQ(run([&] { return f("join", L({L({I(1), I(2)}), S("x")}), {S(";")}); }), "[1, 2];x") << "[[1, 2], 'x']|join(';')";
  EXPECT_EQ(run([&] { return f("join", U(), {S(",")}); }), "") << "nothing|join(',')";
  EXPECT_EQ(run([&] { return f("join", L({I(1)}), {}, {{"x", I(1)}}); }), "ERR TypeError: sync_do_join() got an unexpected keyword argument 'x'") << "[1]|join(x=1)";
  EXPECT_EQ(run([&] { return f("join", L({I(1)}), {I(1), I(2), I(3)}); }), "ERR TypeError: sync_do_join() takes from 2 to 4 positional arguments but 5 were given") << "[1]|join(1, 2, 3)";
  EXPECT_EQ(run([&] { return f("list", S("abc")); }), "['a', 'b', 'c']") << "'abc'|list";
  EXPECT_EQ(run([&] { return f("list", D({{S("a"), I(1)}, {S("b"), I(2)}})); }), "['a', 'b']") << "{'a': 1, 'b': 2}|list";
  EXPECT_EQ(run([&] { return f("list", T({I(1), I(2)})); }), "[1, 2]") << "(1, 2)|list";
  EXPECT_EQ(run([&] { return f("list", I(5)); }), "ERR TypeError: 'int' object is not iterable") << "5|list";
  EXPECT_EQ(run([&] { return f("list", L({I(1)}), {I(1)}); }), "ERR TypeError: sync_do_list() takes 1 positional argument but 2 were given") << "[1]|list(1)";
  EXPECT_EQ(run([&] { return f("map", users(), {}, {{"attribute", S("name")}}); }), "['bob', 'alice', 'carol']") << "users|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("map", L({D({{S("k"), I(1)}}), D({})}), {}, {{"attribute", S("k")}, {"default", S("?")}}); }), "[1, '?']") << "[{'k': 1}, {}]|map(attribute='k', default='?')|list";
  EXPECT_EQ(run([&] { return f("map", L({D({{S("a"), L({I(1), D({{S("b"), I(2)}})})}})}), {}, {{"attribute", S("a.1.b")}}); }), "[2]") << "[{'a': [1, {'b': 2}]}]|map(attribute='a.1.b')|list";
  EXPECT_EQ(run([&] { return f("map", L({S("a"), S("b")}), {S("upper")}); }), "['A', 'B']") << "['a', 'b']|map('upper')|list";
  EXPECT_EQ(run([&] { return f("map", L({S("a-b"), S("c-d")}), {S("replace"), S("-"), S("+")}); }), "['a+b', 'c+d']") << "['a-b', 'c-d']|map('replace', '-', '+')|list";
  EXPECT_EQ(run([&] { return f("map", L({I(1)})); }), "ERR FilterArgumentError: map requires a filter argument") << "[1]|map|list";
  EXPECT_EQ(run([&] { return f("map", L({I(1)}), {S("nosuchfilter")}); }), "ERR TemplateRuntimeError: No filter named 'nosuchfilter'.") << "[1]|map('nosuchfilter')|list";
  EXPECT_EQ(run([&] { return f("map", L({I(1)}), {}, {{"attribute", S("a")}, {"x", I(1)}}); }), "ERR FilterArgumentError: Unexpected keyword argument 'x'") << "[1]|map(attribute='a', x=1)|list";
  EXPECT_EQ(run([&] { return f("map", L({})); }), "[]") << "[]|map|list";
  EXPECT_EQ(run([&] { return f("map", L({I(1)}), {S("upper")}, {{"x", I(1)}}); }), "ERR TypeError: do_upper() got an unexpected keyword argument 'x'") << "[1]|map('upper', x=1)|list";
  EXPECT_EQ(run([&] { return f("max", L({I(3), I(1), I(2)})); }), "3") << "[3, 1, 2]|max";
  EXPECT_EQ(run([&] { return f("min", L({I(3), I(1), I(2)})); }), "1") << "[3, 1, 2]|min";
  EXPECT_EQ(run([&] { return f("max", S("bCa")); }), "C") << "'bCa'|max";
  EXPECT_EQ(run([&] { return f("min", L({S("b"), S("A"), S("c")})); }), "A") << "['b', 'A', 'c']|min";
  EXPECT_EQ(run([&] { return f("min", L({S("b"), S("A"), S("c")}), {}, {{"case_sensitive", B(true)}}); }), "A") << "['b', 'A', 'c']|min(case_sensitive=true)";
  EXPECT_EQ(run([&] { return f("max", users(), {}, {{"attribute", S("age")}}).dict_obj().find("name")[0]; }), "bob") << "(users|max(attribute='age')).name";
  EXPECT_EQ(run([&] { return f("min", users(), {}, {{"attribute", S("age")}}).dict_obj().find("name")[0]; }), "alice") << "(users|min(attribute='age')).name";
  EXPECT_EQ(run([&] { return f("max", L({I(1), S("a")})); }), "ERR TypeError: '>' not supported between instances of 'str' and 'int'") << "[1, 'a']|max";
  EXPECT_EQ(run([&] { return f("min", L({I(1), S("a")})); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "[1, 'a']|min";
  EXPECT_EQ(run([&] { return f("max", L({})); }), "") << "[]|max";
  EXPECT_EQ(run([&] { return f("max", L({L({I(1)}), L({S("a")})})); }), "ERR TypeError: '>' not supported between instances of 'str' and 'int'") << "[[1], ['a']]|max";
  EXPECT_EQ(run([&] { return f("pprint", D({{S("b"), L({I(1), I(2)})}, {S("a"), S("x")}})); }), "{'a': 'x', 'b': [1, 2]}") << "{'b': [1, 2], 'a': 'x'}|pprint";
  EXPECT_EQ(run([&] { return f("pprint", S("str")); }), "'str'") << "'str'|pprint";
  EXPECT_EQ(run([&] { return f("pprint", N()); }), "None") << "none|pprint";
  EXPECT_EQ(run([&] { return f("pprint", range_list(40)); }), "[0,\n 1,\n 2,\n 3,\n 4,\n 5,\n 6,\n 7,\n 8,\n 9,\n 10,\n 11,\n 12,\n 13,\n 14,\n 15,\n 16,\n 17,\n 18,\n 19,\n 20,\n 21,\n 22,\n 23,\n 24,\n 25,\n 26,\n 27,\n 28,\n 29,\n 30,\n 31,\n 32,\n 33,\n 34,\n 35,\n 36,\n 37,\n 38,\n 39]") << "range(40)|list|pprint";
  EXPECT_EQ(run([&] { return f("pprint", L({L({S("abcdefghij"), S("klmnopqrst"), S("uvwxyzabcd")}), D({{S("x"), S("abcdefghijklmnopqrstuvwxyz")}, {S("y"), T({I(1), I(2)})}, {S("z"), S("the quick brown fox jumps over the lazy dog again and again and again")}})})); }), "[['abcdefghij', 'klmnopqrst', 'uvwxyzabcd'],\n {'x': 'abcdefghijklmnopqrstuvwxyz',\n  'y': (1, 2),\n  'z': 'the quick brown fox jumps over the lazy dog again and again and again'}]") << "[['abcdefghij', 'klmnopqrst', 'uvwxyzabcd'], {'x': 'abcdefghijklmnopqrstuvwxyz', 'y': (1, 2), 'z': 'the quick brown fox jumps over the lazy dog again and again and again'}]|pprint";
  EXPECT_EQ(run([&] { return f("pprint", D({{I(2), S("a")}, {S("b"), I(1)}, {I(1), S("c")}})); }), "{1: 'c', 2: 'a', 'b': 1}") << "{2: 'a', 'b': 1, 1: 'c'}|pprint";
  EXPECT_EQ(run([&] { return f("reject", L({I(1), I(2), I(3), I(4)}), {S("odd")}); }), "[2, 4]") << "[1, 2, 3, 4]|reject('odd')|list";
  EXPECT_EQ(run([&] { return f("reject", L({I(0), I(1), S(""), S("a")})); }), "[0, '']") << "[0, 1, '', 'a']|reject|list";
  EXPECT_EQ(run([&] { return f("reject", L({I(1), I(5), I(10)}), {S("gt"), I(4)}); }), "[1]") << "[1, 5, 10]|reject('gt', 4)|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2), I(3), I(4)}), {S("even")}); }), "[2, 4]") << "[1, 2, 3, 4]|select('even')|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(5), I(10)}), {S(">"), I(4)}); }), "[5, 10]") << "[1, 5, 10]|select('>', 4)|list";
  EXPECT_EQ(run([&] { return f("select", L({S("a"), S("b")}), {S("in"), S("abc")}); }), "['a', 'b']") << "['a', 'b']|select('in', 'abc')|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1)}), {S("nope")}); }), "ERR TemplateRuntimeError: No test named 'nope'.") << "[1]|select('nope')|list";
  EXPECT_EQ(run([&] { return f("map", f("selectattr", users(), {S("age"), S("equalto"), I(30)}), {}, {{"attribute", S("name")}}); }), "['bob', 'carol']") << "users|selectattr('age', 'equalto', 30)|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("map", f("rejectattr", users(), {S("age"), S("eq"), I(30)}), {}, {{"attribute", S("name")}}); }), "['alice']") << "users|rejectattr('age', 'eq', 30)|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("selectattr", L({D({{S("a"), I(1)}}), D({{S("a"), I(0)}})}), {S("a")}); }), "[{'a': 1}]") << "[{'a': 1}, {'a': 0}]|selectattr('a')|list";
  EXPECT_EQ(run([&] { return f("selectattr", L({I(1)})); }), "ERR FilterArgumentError: Missing parameter for attribute name") << "[1]|selectattr|list";
  EXPECT_EQ(run([&] { return f("selectattr", L({D({{S("n"), S("x")}}), D({})}), {S("n"), S("defined")}); }), "[{'n': 'x'}]") << "[{'n': 'x'}, {}]|selectattr('n', 'defined')|list";
  EXPECT_EQ(run([&] { return f("replace", S("aaa"), {S("a"), S("b")}); }), "bbb") << "'aaa'|replace('a', 'b')";
  EXPECT_EQ(run([&] { return f("replace", S("aaa"), {S("a"), S("b"), I(2)}); }), "bba") << "'aaa'|replace('a', 'b', 2)";
  EXPECT_EQ(run([&] { return f("replace", S("abc"), {S(""), S("-")}); }), "-a-b-c-") << "'abc'|replace('', '-')";
  EXPECT_EQ(run([&] { return f("replace", S("aaaa"), {S("a"), S("x")}, {{"count", I(1)}}); }), "xaaa") << "'aaaa'|replace('a', 'x', count=1)";
  EXPECT_EQ(run([&] { return f("replace", I(12321), {S("2"), S("x")}); }), "1x3x1") << "12321|replace('2', 'x')";
  EXPECT_EQ(run([&] { return f("replace", S("ab"), {S("a"), S("x"), S("1")}); }), "ERR TypeError: 'str' object cannot be interpreted as an integer") << "'ab'|replace('a', 'x', '1')";
  EXPECT_EQ(run([&] { return f("replace", S("a")); }), "ERR TypeError: do_replace() missing 2 required positional arguments: 'old' and 'new'") << "'a'|replace";
  EXPECT_EQ(run([&] { return f("replace", S("a"), {S("a")}); }), "ERR TypeError: do_replace() missing 1 required positional argument: 'new'") << "'a'|replace('a')";
  EXPECT_EQ(run([&] { return f("reverse", S("abc")); }), "cba") << "'abc'|reverse";
  EXPECT_EQ(run([&] { return f("reverse", L({I(1), I(2), I(3)})); }), "[3, 2, 1]") << "[1, 2, 3]|reverse|list";
  EXPECT_EQ(run([&] { return f("reverse", I(5)); }), "ERR FilterArgumentError: argument must be iterable") << "5|reverse";
  EXPECT_EQ(run([&] { return f("round", F(2.5)); }), "2.0") << "2.5|round";
  EXPECT_EQ(run([&] { return f("round", F(3.5)); }), "4.0") << "3.5|round";
  EXPECT_EQ(run([&] { return f("round", F(2.675), {I(2)}); }), "2.67") << "2.675|round(2)";
  EXPECT_EQ(run([&] { return f("round", I(42)); }), "42") << "42|round";
  EXPECT_EQ(run([&] { return f("round", F(-1.5)); }), "-2.0") << "-1.5|round";
  EXPECT_EQ(run([&] { return f("round", I(1234), {I(-2)}); }), "1200") << "1234|round(-2)";
  EXPECT_EQ(run([&] { return f("round", I(1250), {I(-2)}); }), "1200") << "1250|round(-2)";
  EXPECT_EQ(run([&] { return f("round", I(15), {I(-1)}); }), "20") << "15|round(-1)";
  EXPECT_EQ(run([&] { return f("round", F(2.1), {}, {{"method", S("ceil")}}); }), "3.0") << "2.1|round(method='ceil')";
  EXPECT_EQ(run([&] { return f("round", F(2.9), {}, {{"method", S("floor")}}); }), "2.0") << "2.9|round(method='floor')";
  EXPECT_EQ(run([&] { return f("round", F(2.15), {I(1), S("ceil")}); }), "2.2") << "2.15|round(1, 'ceil')";
  EXPECT_EQ(run([&] { return f("round", I(7), {I(-1), S("ceil")}); }), "10.0") << "7|round(-1, 'ceil')";
  EXPECT_EQ(run([&] { return f("round", F(2.5), {}, {{"method", S("up")}}); }), "ERR FilterArgumentError: method must be common, ceil or floor") << "2.5|round(method='up')";
  EXPECT_EQ(run([&] { return f("round", S("x")); }), "ERR TypeError: type str doesn't define __round__ method") << "'x'|round";
  EXPECT_EQ(run([&] { return f("round", S("a"), {I(0), S("ceil")}); }), "ERR TypeError: must be real number, not str") << "'a'|round(0, 'ceil')";
  EXPECT_EQ(run([&] { return f("round", F(1.5), {F(1.0)}); }), "ERR TypeError: 'float' object cannot be interpreted as an integer") << "1.5|round(1.0)";
  EXPECT_EQ(run([&] { return f("round", F(1234.5678), {I(-2)}); }), "1200.0") << "1234.5678|round(-2)";
  EXPECT_EQ(run([&] { return f("round", F(1250.0), {I(-2)}); }), "1200.0") << "1250.0|round(-2)";
  EXPECT_EQ(run([&] { return f("round", B(true)); }), "1") << "true|round";
  EXPECT_EQ(run([&] { return f("slice", L({I(1), I(2), I(3), I(4), I(5)}), {I(2)}); }), "[[1, 2, 3], [4, 5]]") << "[1, 2, 3, 4, 5]|slice(2)|list";
  EXPECT_EQ(run([&] { return f("slice", L({I(1), I(2), I(3), I(4), I(5)}), {I(3), S("x")}); }), "[[1, 2], [3, 4], [5, 'x']]") << "[1, 2, 3, 4, 5]|slice(3, 'x')|list";
  EXPECT_EQ(run([&] { return f("slice", L({I(1), I(2)}), {I(4)}); }), "[[1], [2], [], []]") << "[1, 2]|slice(4)|list";
  EXPECT_EQ(run([&] { return f("slice", L({I(1)}), {I(0)}); }), "ERR ZeroDivisionError: integer division or modulo by zero") << "[1]|slice(0)|list";
  EXPECT_EQ(run([&] { return f("slice", L({I(1)})); }), "ERR TypeError: sync_do_slice() missing 1 required positional argument: 'slices'") << "[1]|slice|list";
  EXPECT_EQ(run([&] { return f("sort", L({I(3), I(1), I(2)})); }), "[1, 2, 3]") << "[3, 1, 2]|sort";
  EXPECT_EQ(run([&] { return f("sort", L({S("b"), S("A"), S("c")})); }), "['A', 'b', 'c']") << "['b', 'A', 'c']|sort";
  EXPECT_EQ(run([&] { return f("sort", L({S("b"), S("a"), S("B")}), {}, {{"case_sensitive", B(true)}}); }), "['B', 'a', 'b']") << "['b', 'a', 'B']|sort(case_sensitive=true)";
  EXPECT_EQ(run([&] { return f("sort", L({I(3), I(1), I(2)}), {B(true)}); }), "[3, 2, 1]") << "[3, 1, 2]|sort(true)";
  EXPECT_EQ(run([&] { return f("map", f("sort", users(), {}, {{"attribute", S("age,name")}}), {}, {{"attribute", S("name")}}); }), "['alice', 'bob', 'carol']") << "users|sort(attribute='age,name')|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("map", f("sort", users(), {}, {{"attribute", S("name")}, {"reverse", B(true)}}), {}, {{"attribute", S("name")}}); }), "['carol', 'bob', 'alice']") << "users|sort(attribute='name', reverse=true)|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("sort", D({{S("b"), I(1)}, {S("a"), I(2)}})); }), "['a', 'b']") << "{'b': 1, 'a': 2}|sort";
  EXPECT_EQ(run([&] { return f("sort", L({I(1), S("a")})); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "[1, 'a']|sort";
  EXPECT_EQ(run([&] { return f("sort", L({I(1), I(2), S("a"), I(3)})); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "[1, 2, 'a', 3]|sort";
  EXPECT_EQ(run([&] { return f("sort", L({S("a"), I(1)}), {}, {{"reverse", B(true)}}); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "['a', 1]|sort(reverse=true)";
  EXPECT_EQ(run([&] { return f("sort", L({I(3), I(2), I(1), S("x")})); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "[3, 2, 1, 'x']|sort";
  EXPECT_EQ(run([&] { return f("sort", L({I(1)}), {I(1), I(2), I(3), I(4)}); }), "ERR TypeError: do_sort() takes from 2 to 5 positional arguments but 6 were given") << "[1]|sort(1, 2, 3, 4)";
  EXPECT_EQ(run([&] { return f("striptags", S("<p>Hello   <b>World</b></p>\n<br/>x")); }), "Hello World x") << "'<p>Hello   <b>World</b></p>\\n<br/>x'|striptags";
  EXPECT_EQ(run([&] { return f("striptags", S("a &amp; b &lt; &#65;&#x42;")); }), "a & b < AB") << "'a &amp; b &lt; &#65;&#x42;'|striptags";
  EXPECT_EQ(run([&] { return f("striptags", S("a<!-- c -->b   c")); }), "ab c") << "'a<!-- c -->b   c'|striptags";
  EXPECT_EQ(run([&] { return f("sum", L({I(1), I(2), I(3)})); }), "6") << "[1, 2, 3]|sum";
  EXPECT_EQ(run([&] { return f("sum", L({I(1), I(2)}), {}, {{"start", I(10)}}); }), "13") << "[1, 2]|sum(start=10)";
  EXPECT_EQ(run([&] { return f("sum", L({F(0.1), F(0.2)})); }), "0.30000000000000004") << "[0.1, 0.2]|sum";
  EXPECT_EQ(run([&] { return f("sum", L({})); }), "0") << "[]|sum";
  EXPECT_EQ(run([&] { return f("sum", users(), {}, {{"attribute", S("age")}}); }), "85") << "users|sum(attribute='age')";
  EXPECT_EQ(run([&] { return f("sum", L({S("a"), S("b")})); }), "ERR TypeError: unsupported operand type(s) for +: 'int' and 'str'") << "['a', 'b']|sum";
  EXPECT_EQ(run([&] { return f("sum", L({L({I(1)}), L({I(2)})}), {}, {{"start", L({})}}); }), "[1, 2]") << "[[1], [2]]|sum(start=[])";
  EXPECT_EQ(run([&] { return f("sum", L({S("a")}), {}, {{"start", S("")}}); }), "ERR TypeError: sum() can't sum strings [use ''.join(seq) instead]") << "['a']|sum(start='')";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("b"), I(1)}, {S("a"), L({I(1), F(2.5), N(), B(true), S("x")})}})); }), "{\"b\": 1, \"a\": [1, 2.5, null, true, \"x\"]}") << "{'b': 1, 'a': [1, 2.5, none, true, 'x']}|tojson";
  EXPECT_EQ(run([&] { return f("tojson", S("héllo <&>")); }), "\"héllo <&>\"") << "'héllo <&>'|tojson";
  EXPECT_EQ(run([&] { return f("tojson", S("é"), {B(true)}); }), "\"\\u00e9\"") << "'é'|tojson(true)";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("a"), L({I(1), I(2)})}}), {}, {{"indent", I(2)}}); }), "{\n  \"a\": [\n    1,\n    2\n  ]\n}") << "{'a': [1, 2]}|tojson(indent=2)";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("a"), L({I(1), I(2)})}}), {}, {{"indent", S("\t")}}); }), "{\n\t\"a\": [\n\t\t1,\n\t\t2\n\t]\n}") << "{'a': [1, 2]}|tojson(indent='\\t')";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("a"), L({I(1), I(2)})}}), {}, {{"separators", T({S(","), S(":")})}}); }), "{\"a\":[1,2]}") << "{'a': [1, 2]}|tojson(separators=(',', ':'))";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("z"), I(1)}, {S("a"), I(2)}}), {}, {{"sort_keys", B(true)}}); }), "{\"a\": 2, \"z\": 1}") << "{'z': 1, 'a': 2}|tojson(sort_keys=true)";
  EXPECT_EQ(run([&] { return f("tojson", U()); }), "ERR TypeError: Object of type Undefined is not JSON serializable") << "nothing|tojson";
  EXPECT_EQ(run([&] { return f("tojson", L({I(1)}), {}, {{"x", I(1)}}); }), "ERR TypeError: make_environment.<locals>.tojson() got multiple values for argument 'x'") << "[1]|tojson(x=1)";
  EXPECT_EQ(run([&] { return f("tojson", L({I(1)}), {I(1), I(2), I(3), I(4), I(5)}); }), "ERR TypeError: make_environment.<locals>.tojson() takes from 1 to 5 positional arguments but 6 were given") << "[1]|tojson(1, 2, 3, 4, 5)";
  EXPECT_EQ(run([&] { return f("tojson", L({I(1)}), {}, {{"separators", L({S(",")})}}); }), "ERR ValueError: not enough values to unpack (expected 2, got 1)") << "[1]|tojson(separators=[','])";
  EXPECT_EQ(run([&] { return f("trim", S("  a b  ")); }), "a b") << "'  a b  '|trim";
  EXPECT_EQ(run([&] { return f("trim", S("xxaxx"), {S("x")}); }), "a") << "'xxaxx'|trim('x')";
  EXPECT_EQ(run([&] { return f("trim", S("\u00a0\u3000a\n\t")); }), "a") << "'\\u00a0\\u3000a\\n\\t'|trim";
  EXPECT_EQ(run([&] { return f("trim", S("xax"), {I(1)}); }), "ERR TypeError: strip arg must be None or str") << "'xax'|trim(1)";
  EXPECT_EQ(run([&] { return f("trim", I(5)); }), "5") << "5|trim";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello wonderful world"), {I(12)}); }), "Hello...") << "'Hello wonderful world'|truncate(12)";
  EXPECT_EQ(run([&] { return f("truncate", S("short"), {I(12)}); }), "short") << "'short'|truncate(12)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello wonderful world"), {I(12), B(true)}); }), "Hello won...") << "'Hello wonderful world'|truncate(12, true)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello wonderful world"), {I(12)}, {{"killwords", B(true)}, {"end", S("!")}}); }), "Hello wonde!") << "'Hello wonderful world'|truncate(12, killwords=true, end='!')";
  EXPECT_EQ(run([&] { return f("truncate", S("abcdefghijklmnop"), {I(10), B(true), S(".."), I(0)}); }), "abcdefgh..") << "'abcdefghijklmnop'|truncate(10, true, '..', 0)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello world!"), {I(10)}); }), "Hello world!") << "'Hello world!'|truncate(10)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello world!"), {I(9)}, {{"leeway", I(0)}}); }), "Hello...") << "'Hello world!'|truncate(9, leeway=0)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello world"), {I(2)}); }), "ERR AssertionError: expected length >= 3, got 2") << "'Hello world'|truncate(2)";
  EXPECT_EQ(run([&] { return f("truncate", S("Hello world"), {I(5)}, {{"leeway", I(-1)}}); }), "ERR AssertionError: expected leeway >= 0, got -1") << "'Hello world'|truncate(5, leeway=-1)";
  EXPECT_EQ(run([&] { return f("truncate", I(5)); }), "ERR TypeError: object of type 'int' has no len()") << "5|truncate";
  EXPECT_EQ(run([&] { return f("truncate", S("a"), {}, {{"x", I(1)}}); }), "ERR TypeError: do_truncate() got an unexpected keyword argument 'x'") << "'a'|truncate(x=1)";
  EXPECT_EQ(run([&] { return f("truncate", S("a"), {I(1), I(2), I(3), I(4), I(5)}); }), "ERR TypeError: do_truncate() takes from 2 to 6 positional arguments but 7 were given") << "'a'|truncate(1, 2, 3, 4, 5)";
  EXPECT_EQ(run([&] { return f("unique", L({I(1), I(2), I(1), I(3), I(2)})); }), "[1, 2, 3]") << "[1, 2, 1, 3, 2]|unique|list";
  EXPECT_EQ(run([&] { return f("unique", L({S("a"), S("A"), S("b")})); }), "['a', 'b']") << "['a', 'A', 'b']|unique|list";
  EXPECT_EQ(run([&] { return f("unique", L({S("a"), S("A")}), {B(true)}); }), "['a', 'A']") << "['a', 'A']|unique(true)|list";
  EXPECT_EQ(run([&] { return f("map", f("unique", users(), {}, {{"attribute", S("age")}}), {}, {{"attribute", S("name")}}); }), "['bob', 'alice']") << "users|unique(attribute='age')|map(attribute='name')|list";
  EXPECT_EQ(run([&] { return f("unique", L({L({I(1)}), L({I(1)})})); }), "ERR TypeError: unhashable type: 'list'") << "[[1], [1]]|unique|list";
  EXPECT_EQ(run([&] { return f("unique", L({I(1), F(1.0), B(true)})); }), "[1]") << "[1, 1.0, true]|unique|list";
  EXPECT_EQ(run([&] { return f("urlencode", S("a b&c/d?é")); }), "a%20b%26c/d%3F%C3%A9") << "'a b&c/d?é'|urlencode";
  EXPECT_EQ(run([&] { return f("urlencode", D({{S("q"), S("a b")}, {S("n"), I(1)}})); }), "q=a+b&n=1") << "{'q': 'a b', 'n': 1}|urlencode";
  EXPECT_EQ(run([&] { return f("urlencode", L({T({S("k"), S("v w")})})); }), "k=v+w") << "[('k', 'v w')]|urlencode";
  EXPECT_EQ(run([&] { return f("urlencode", I(42)); }), "42") << "42|urlencode";
  EXPECT_EQ(run([&] { return f("urlencode", L({I(1)})); }), "ERR TypeError: cannot unpack non-iterable int object") << "[1]|urlencode";
  EXPECT_EQ(run([&] { return f("urlize", S("see http://example.com now")); }), "see <a href=\"http://example.com\" rel=\"noopener\">http://example.com</a> now") << "'see http://example.com now'|urlize";
  EXPECT_EQ(run([&] { return f("urlize", S("mail me@example.com.")); }), "mail <a href=\"mailto:me@example.com\">me@example.com</a>.") << "'mail me@example.com.'|urlize";
  EXPECT_EQ(run([&] { return f("urlize", S("go www.example.org/very/long/path"), {I(15), B(true), S("_blank")}); }), "go <a href=\"https://www.example.org/very/long/path\" rel=\"nofollow noopener\" target=\"_blank\">www.example.org...</a>") << "'go www.example.org/very/long/path'|urlize(15, true, '_blank')";
  EXPECT_EQ(run([&] { return f("urlize", S("(see http://x.com/a_(b)) <www.foo.com>")); }), "(see <a href=\"http://x.com/a_(b)\" rel=\"noopener\">http://x.com/a_(b)</a>) &lt;<a href=\"https://www.foo.com\" rel=\"noopener\">www.foo.com</a>&gt;") << "'(see http://x.com/a_(b)) <www.foo.com>'|urlize";
  EXPECT_EQ(run([&] { return f("urlize", S("example.com and foo.bar and mailto:a@b.cd")); }), "<a href=\"https://example.com\" rel=\"noopener\">example.com</a> and foo.bar and <a href=\"mailto:a@b.cd\">a@b.cd</a>") << "'example.com and foo.bar and mailto:a@b.cd'|urlize";
  EXPECT_EQ(run([&] { return f("wordcount", S("one two  three\nfour")); }), "4") << "'one two  three\\nfour'|wordcount";
  EXPECT_EQ(run([&] { return f("wordcount", S("a-b c.d")); }), "4") << "'a-b c.d'|wordcount";
  EXPECT_EQ(run([&] { return f("wordcount", S("héllo wörld 日本")); }), "3") << "'héllo wörld 日本'|wordcount";
  EXPECT_EQ(run([&] { return f("wordwrap", S("The quick brown fox jumps over the lazy dog"), {I(10)}); }), "The quick\nbrown fox\njumps over\nthe lazy\ndog") << "'The quick brown fox jumps over the lazy dog'|wordwrap(10)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("abcdefghijklmnopqrstuvwxyz"), {I(10)}); }), "abcdefghij\nklmnopqrst\nuvwxyz") << "'abcdefghijklmnopqrstuvwxyz'|wordwrap(10)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("abcdefghijklmno xyz"), {I(5), B(false)}); }), "abcdefghijklmno\nxyz") << "'abcdefghijklmno xyz'|wordwrap(5, false)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("line one is long\nline two"), {I(8)}); }), "line one\nis long\nline two") << "'line one is long\\nline two'|wordwrap(8)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("aaa bbb ccc"), {I(4)}, {{"wrapstring", S("<br>")}}); }), "aaa<br>bbb<br>ccc") << "'aaa bbb ccc'|wordwrap(4, wrapstring='<br>')";
  EXPECT_EQ(run([&] { return f("wordwrap", S("well-known state-of-the-art long-hyphenated-words here"), {I(12)}); }), "well-known\nstate-of-\nthe-art\nlong-\nhyphenated-\nwords here") << "'well-known state-of-the-art long-hyphenated-words here'|wordwrap(12)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("well-known state-of-the-art"), {I(12)}, {{"break_on_hyphens", B(false)}}); }), "well-known s\ntate-of-the-\nart") << "'well-known state-of-the-art'|wordwrap(12, break_on_hyphens=false)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("x -- y and a--b  c\t\td"), {I(5)}); }), "x --\ny and\na--b\nc\t\td") << "'x -- y and a--b  c\\t\\td'|wordwrap(5)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("abc"), {I(0)}); }), "ERR ValueError: invalid width 0 (must be > 0)") << "'abc'|wordwrap(0)";
  EXPECT_EQ(run([&] { return f("wordwrap", I(5)); }), "ERR AttributeError: 'int' object has no attribute 'splitlines'") << "5|wordwrap";
  EXPECT_EQ(run([&] { return f("xmlattr", D({{S("class"), S("x")}, {S("id"), I(5)}, {S("skip"), N()}, {S("u"), U()}})); }), " class=\"x\" id=\"5\"") << "{'class': 'x', 'id': 5, 'skip': none, 'u': nothing}|xmlattr";
  EXPECT_EQ(run([&] { return f("xmlattr", D({{S("t"), S("<\"&>")}}), {B(false)}); }), "t=\"&lt;&#34;&amp;&gt;\"") << "{'t': '<\"&>'}|xmlattr(false)";
  EXPECT_EQ(run([&] { return f("xmlattr", D({{S("a b"), I(1)}})); }), "ERR ValueError: Invalid character in attribute name: 'a b'") << "{'a b': 1}|xmlattr";
  EXPECT_EQ(run([&] { return f("xmlattr", D({{S("a="), I(1)}})); }), "ERR ValueError: Invalid character in attribute name: 'a='") << "{'a=': 1}|xmlattr";
  EXPECT_EQ(run([&] { return f("xmlattr", L({I(1)})); }), "ERR AttributeError: 'list' object has no attribute 'items'") << "[1]|xmlattr";
  EXPECT_EQ(run([&] { return f("truncate", f("e", S("<b>")), {I(4), B(true), S("<")}); }), "&lt;b&gt;") << "('<b>'|e)|truncate(4, true, '<')";
  EXPECT_EQ(run([&] { return f("format", f("safe", S("%s<")), {S("<i>")}); }), "&lt;i&gt;<") << "('%s<'|safe)|format('<i>')";
  EXPECT_EQ(run([&] { return f("title", S("ǆemal title ÿx")); }), "Ǆemal Title Ÿx") << "'ǆemal title ÿx'|title";
  EXPECT_EQ(run([&] { return f("center", S("日本"), {I(6)}); }), "  日本  ") << "'日本'|center(6, )";
  EXPECT_EQ(run([&] { return f("slice", S("abc"), {I(2)}); }), "[['a', 'b'], ['c']]") << "'abc'|slice(2)|list";
  EXPECT_EQ(run([&] { return f("slice", L({I(1)}), {S("a")}); }), "ERR TypeError: unsupported operand type(s) for //: 'int' and 'str'") << "[1]|slice('a')|list";
  EXPECT_EQ(run([&] { return f("batch", S("x"), {S("a")}); }), "[['x']]") << "'x'|batch('a')|list";
  EXPECT_EQ(run([&] { return f("batch", S("x"), {S("a"), I(1)}); }), "ERR TypeError: '<' not supported between instances of 'int' and 'str'") << "'x'|batch('a', 1)|list";
  EXPECT_EQ(run([&] { return f("unique", L({D({{S("a"), I(1)}}), D({{S("a"), I(1)}})})); }), "ERR TypeError: unhashable type: 'dict'") << "[{'a': 1}, {'a': 1}]|unique|list";
  EXPECT_EQ(run([&] { return f("round", F(-2.5), {I(0), S("floor")}); }), "-3.0") << "-2.5|round(0, 'floor')";
  EXPECT_EQ(run([&] { return f("round", F(-1234.5678), {I(-2)}); }), "-1200.0") << "-1234.5678|round(-2)";
  EXPECT_EQ(run([&] { return f("round", F(0.125), {I(2)}); }), "0.12") << "0.125|round(2)";
  EXPECT_EQ(run([&] { return f("round", F(1e300), {I(2)}); }), "1e+300") << "1e300|round(2)";
  EXPECT_EQ(run([&] { return f("round", F(5.5), {I(-1)}); }), "10.0") << "5.5|round(-1)";
  EXPECT_EQ(run([&] { return f("filesizeformat", I(123456789), {B(true)}); }), "117.7 MiB") << "123456789|filesizeformat(true)";
  EXPECT_EQ(run([&] { return f("truncate", S("abc"), {I(3)}); }), "abc") << "'abc'|truncate(3)";
  EXPECT_EQ(run([&] { return f("truncate", S("a b c d e f g h"), {I(5)}, {{"leeway", I(0)}}); }), "a...") << "'a b c d e f g h'|truncate(5, leeway=0)";
  EXPECT_EQ(run([&] { return f("truncate", S("abcdefgh"), {I(5)}, {{"leeway", I(0)}}); }), "ab...") << "'abcdefgh'|truncate(5, leeway=0)";
  EXPECT_EQ(run([&] { return f("truncate", range_list(9), {I(3)}, {{"leeway", I(0)}}); }), "ERR AttributeError: 'list' object has no attribute 'rsplit'") << "[1,2,3,4,5,6,7,8,9]|truncate(3, leeway=0)";
  EXPECT_EQ(run([&] { return f("pprint", D({{S("aaaaaaaaaaaaaaaaaaaaaaaa"), D({{S("bbbbbbbbbbbbbbbbbbbbbbbbbb"), L({I(1), I(2), I(3), I(4), I(5), I(6), I(7), I(8), I(9), I(10), I(11), I(12)})}, {S("c"), S("dddddddddddddddddddddddddddddddddddddddddd eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee ffffffffff")}})}, {S("z"), T({I(1)})}})); }), "{'aaaaaaaaaaaaaaaaaaaaaaaa': {'bbbbbbbbbbbbbbbbbbbbbbbbbb': [1,\n                                                             2,\n                                                             3,\n                                                             4,\n                                                             5,\n                                                             6,\n                                                             7,\n                                                             8,\n                                                             9,\n                                                             10,\n                                                             11,\n                                                             12],\n                              'c': 'dddddddddddddddddddddddddddddddddddddddddd '\n                                   'eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee '\n                                   'ffffffffff'},\n 'z': (1,)}") << "{'aaaaaaaaaaaaaaaaaaaaaaaa': {'bbbbbbbbbbbbbbbbbbbbbbbbbb': [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], 'c': 'dddddddddddddddddddddddddddddddddddddddddd eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee ffffffffff'}, 'z': (1,)}|pprint";
  EXPECT_EQ(run([&] { return f("pprint", S("the quick brown fox jumps over the lazy dog again and again and again and again and again\nsecond line here")); }), "('the quick brown fox jumps over the lazy dog again and again and again and '\n 'again and again\\n'\n 'second line here')") << "'the quick brown fox jumps over the lazy dog again and again and again and again and again\nsecond line here'|pprint";
  EXPECT_EQ(run([&] { return f("pprint", L({T({S("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), S("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")}), N(), F(1.5)})); }), "[('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n  'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'),\n None,\n 1.5]") << "[('aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'), none, 1.5]|pprint";
  EXPECT_EQ(run([&] { return f("wordwrap", S("Supercalifragilisticexpialidocious-is-a-word, and so-is this"), {I(12)}); }), "Supercalifra\ngilisticexpi\nalidocious-\nis-a-word,\nand so-is\nthis") << "'Supercalifragilisticexpialidocious-is-a-word, and so-is this'|wordwrap(12)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("a1-b2 x-y-z abc--def 12-34 ab-cd-ef-gh"), {I(4)}); }), "a1-\nb2 x\n-y-z\nabc\n--\ndef \n12-\n34\nab-\ncd-\nef-\ngh") << "'a1-b2 x-y-z abc--def 12-34 ab-cd-ef-gh'|wordwrap(4)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("   leading spaces and trailing   "), {I(7)}); }), "leading\nspaces\nand tra\niling") << "'   leading spaces and trailing   '|wordwrap(7)";
  EXPECT_EQ(run([&] { return f("wordwrap", S("\n\npara\n\n"), {I(3)}); }), "\n\npar\na\n") << "'\n\npara\n\n'|wordwrap(3)";
  EXPECT_EQ(run([&] { return f("urlize", S("visit https://example.com/path?q=1, or (www.python.org). email: a.b@c.io; foo@bar")); }), "visit <a href=\"https://example.com/path?q=1\" rel=\"noopener\">https://example.com/path?q=1</a>, or (<a href=\"https://www.python.org\" rel=\"noopener\">www.python.org</a>). email: a.b@c.io; foo@bar") << "'visit https://example.com/path?q=1, or (www.python.org). email: a.b@c.io; foo@bar'|urlize";
  EXPECT_EQ(run([&] { return f("urlize", S("http://127.0.0.1:8080/x and http://[::1]/ and <b>x</b>"), {}, {{"rel", S("me")}, {"target", S("t")}}); }), "<a href=\"http://127.0.0.1:8080/x\" rel=\"me noopener\" target=\"t\">http://127.0.0.1:8080/x</a> and <a href=\"http://[::1]/\" rel=\"me noopener\" target=\"t\">http://[::1]/</a> and &lt;b&gt;x&lt;/b&gt;") << "'http://127.0.0.1:8080/x and http://[::1]/ and <b>x</b>'|urlize(rel='me', target='t')";
  EXPECT_EQ(run([&] { return f("urlize", S("ftp://x.y tel:123"), {}, {{"extra_schemes", L({S("ftp://"), S("tel:")})}}); }), "<a href=\"ftp://x.y\" rel=\"noopener\">ftp://x.y</a> <a href=\"tel:123\" rel=\"noopener\">tel:123</a>") << "'ftp://x.y tel:123'|urlize(extra_schemes=['ftp://', 'tel:'])";
  EXPECT_EQ(run([&] { return f("urlize", S("x"), {}, {{"extra_schemes", L({S("x")})}}); }), "ERR FilterArgumentError: 'x' is not a valid URI scheme prefix.") << "'x'|urlize(extra_schemes=['x'])";
  EXPECT_EQ(run([&] { return f("striptags", S("&lt;tag&gt; &unknown; &#0; &#x110000; &#150; &eacute;")); }), "<tag> &unknown; � � – é") << "'&lt;tag&gt; &unknown; &#0; &#x110000; &#150; &eacute;'|striptags";
  EXPECT_EQ(run([&] { return f("striptags", S("a < b > c <unclosed")); }), "a c <unclosed") << "'a < b > c <unclosed'|striptags";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("a"), I(1)}}), {}, {{"indent", B(true)}}); }), "{\n \"a\": 1\n}") << "{'a': 1}|tojson(indent=true)";
  EXPECT_EQ(run([&] { return f("tojson", D({{S("a"), I(1)}}), {}, {{"indent", F(1.5)}}); }), "ERR TypeError: can't multiply sequence by non-int of type 'float'") << "{'a': 1}|tojson(indent=1.5)";
  EXPECT_EQ(run([&] { return f("tojson", L({I(1)}), {}, {{"separators", T({I(1), I(2)})}}); }), "ERR TypeError: make_encoder() argument 5 must be str, not int") << "[1]|tojson(separators=(1, 2))";
  EXPECT_EQ(run([&] { return f("sort", L({L({I(1), I(2)}), L({I(1)})})); }), "[[1], [1, 2]]") << "[[1, 2], [1]]|sort";
  EXPECT_EQ(run([&] { return f("sort", L({N(), I(1)})); }), "ERR TypeError: '<' not supported between instances of 'int' and 'NoneType'") << "[none, 1]|sort";
  EXPECT_EQ(run([&] { return f("sort", L({D({{S("a"), I(1)}}), D({{S("a"), S("x")}})}), {}, {{"attribute", S("a")}}); }), "ERR TypeError: '<' not supported between instances of 'str' and 'int'") << "[{'a': 1}, {'a': 'x'}]|sort(attribute='a')";
  EXPECT_EQ(run([&] { return f("map", L({I(1), I(2)}), {S("nope")}); }), "ERR TemplateRuntimeError: No filter named 'nope'.") << "[1, 2]|map('nope')|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2)}), {I(5)}); }), "ERR TemplateRuntimeError: No test named 5.") << "[1, 2]|select(5)|list";
  EXPECT_EQ(run([&] { return f("int", S("ab"), {}, {{"base", S("16")}}); }), "0") << "'ab'|int(base='16')";
  EXPECT_EQ(run([&] { return f("int", S("  -0x1f "), {}, {{"base", I(0)}}); }), "-31") << "'  -0x1f '|int(base=0)";
  EXPECT_EQ(run([&] { return f("int", S("1_")); }), "0") << "'1_'|int";
  EXPECT_EQ(run([&] { return f("int", S("+5")); }), "5") << "'+5'|int";
  EXPECT_EQ(run([&] { return f("float", S("1.")); }), "1.0") << "'1.'|float";
  EXPECT_EQ(run([&] { return f("float", S(".5e-2")); }), "0.005") << "'.5e-2'|float";
  EXPECT_EQ(run([&] { return f("float", S("e5")); }), "0.0") << "'e5'|float";
  EXPECT_EQ(run([&] { return f("float", S("0x10")); }), "0.0") << "'0x10'|float";
  EXPECT_EQ(run([&] { return f("float", S("Infinity")); }), "inf") << "'Infinity'|float";
  EXPECT_EQ(run([&] { return f("int", S("nan"), {I(3)}); }), "3") << "'nan'|int(3)";
  EXPECT_EQ(run([&] { return f("int", F(1e18)); }), "1000000000000000000") << "1.0e18|int";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2)}), {S("=="), I(2)}); }), "[2]") << "[1, 2]|select('==', 2)|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2)}), {S("!="), I(1)}); }), "[2]") << "[1, 2]|select('!=', 1)|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2), I(3)}), {S(">"), I(2)}); }), "[3]") << "[1, 2, 3]|select('>', 2)|list";
  EXPECT_EQ(run([&] { return f("select", L({I(1), I(2), I(3)}), {S(">="), I(2)}); }), "[2, 3]") << "[1, 2, 3]|select('>=', 2)|list";
  EXPECT_EQ(run([&] { return f("select", L({S("a"), S("c")}), {S("<"), S("b")}); }), "['a']") << "['a', 'c']|select('<', 'b')|list";
  EXPECT_EQ(run([&] { return f("select", L({L({I(1)}), L({I(2)})}), {S("<="), L({I(1), S("a")})}); }), "[[1]]") << "[[1], [2]]|select('<=', [1, 'a'])|list";
}

TEST(Builtins, OracleTests) {
  EXPECT_EQ(run([&] { return t("odd", I(1)); }), "True") << "1 is odd";
  EXPECT_EQ(run([&] { return t("odd", I(2)); }), "False") << "2 is odd";
  EXPECT_EQ(run([&] { return t("even", I(2)); }), "True") << "2 is even";
  EXPECT_EQ(run([&] { return t("odd", S("a")); }), "ERR TypeError: not all arguments converted during string formatting") << "'a' is odd";
  EXPECT_EQ(run([&] { return t("odd", I(1), {I(2)}); }), "ERR TypeError: test_odd() takes 1 positional argument but 2 were given") << "1 is odd(2)";
  EXPECT_EQ(run([&] { return t("odd", I(1), {}, {{"x", I(1)}}); }), "ERR TypeError: test_odd() got an unexpected keyword argument 'x'") << "1 is odd(x=1)";
  EXPECT_EQ(run([&] { return t("odd", U()); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing is odd";
  EXPECT_EQ(run([&] { return t("divisibleby", I(9), {I(3)}); }), "True") << "9 is divisibleby 3";
  EXPECT_EQ(run([&] { return t("divisibleby", F(1.5), {F(0.5)}); }), "True") << "1.5 is divisibleby 0.5";
  EXPECT_EQ(run([&] { return t("divisibleby", I(1), {I(0)}); }), "ERR ZeroDivisionError: integer modulo by zero") << "1 is divisibleby 0";
  EXPECT_EQ(run([&] { return t("divisibleby", I(1)); }), "ERR TypeError: test_divisibleby() missing 1 required positional argument: 'num'") << "1 is divisibleby";
  EXPECT_EQ(run([&] { return t("divisibleby", I(1), {}, {{"value", I(1)}}); }), "ERR TypeError: test_divisibleby() got multiple values for argument 'value'") << "1 is divisibleby(value=1)";
  EXPECT_EQ(run([&] { return t("defined", U()); }), "False") << "nothing is defined";
  EXPECT_EQ(run([&] { return t("defined", I(1)); }), "True") << "1 is defined";
  EXPECT_EQ(run([&] { return t("undefined", U()); }), "True") << "nothing is undefined";
  EXPECT_EQ(run([&] { return t("undefined", N()); }), "False") << "none is undefined";
  EXPECT_EQ(run([&] { return t("filter", S("upper")); }), "True") << "'upper' is filter";
  EXPECT_EQ(run([&] { return t("filter", S("nope")); }), "False") << "'nope' is filter";
  EXPECT_EQ(run([&] { return t("filter", I(1)); }), "False") << "1 is filter";
  EXPECT_EQ(run([&] { return t("filter", L({I(1)})); }), "ERR TypeError: unhashable type: 'list'") << "[1] is filter";
  EXPECT_EQ(run([&] { return t("test", S("odd")); }), "True") << "'odd' is test";
  EXPECT_EQ(run([&] { return t("test", S("==")); }), "True") << "'==' is test";
  EXPECT_EQ(run([&] { return t("none", N()); }), "True") << "none is none";
  EXPECT_EQ(run([&] { return t("none", I(0)); }), "False") << "0 is none";
  EXPECT_EQ(run([&] { return t("boolean", B(true)); }), "True") << "true is boolean";
  EXPECT_EQ(run([&] { return t("boolean", I(1)); }), "False") << "1 is boolean";
  EXPECT_EQ(run([&] { return t("false", B(false)); }), "True") << "false is false";
  EXPECT_EQ(run([&] { return t("false", I(0)); }), "False") << "0 is false";
  EXPECT_EQ(run([&] { return t("true", B(true)); }), "True") << "true is true";
  EXPECT_EQ(run([&] { return t("true", I(1)); }), "False") << "1 is true";
  EXPECT_EQ(run([&] { return t("integer", I(1)); }), "True") << "1 is integer";
  EXPECT_EQ(run([&] { return t("integer", B(true)); }), "False") << "true is integer";
  EXPECT_EQ(run([&] { return t("integer", F(1.0)); }), "False") << "1.0 is integer";
  EXPECT_EQ(run([&] { return t("float", F(1.0)); }), "True") << "1.0 is float";
  EXPECT_EQ(run([&] { return t("float", I(1)); }), "False") << "1 is float";
  EXPECT_EQ(run([&] { return t("lower", S("abc")); }), "True") << "'abc' is lower";
  EXPECT_EQ(run([&] { return t("lower", S("aBc")); }), "False") << "'aBc' is lower";
  EXPECT_EQ(run([&] { return t("lower", I(5)); }), "False") << "5 is lower";
  EXPECT_EQ(run([&] { return t("lower", U()); }), "False") << "nothing is lower";
  EXPECT_EQ(run([&] { return t("upper", S("ABC")); }), "True") << "'ABC' is upper";
  EXPECT_EQ(run([&] { return t("upper", S("A1")); }), "True") << "'A1' is upper";
  EXPECT_EQ(run([&] { return t("string", S("a")); }), "True") << "'a' is string";
  EXPECT_EQ(run([&] { return t("string", I(1)); }), "False") << "1 is string";
  EXPECT_EQ(run([&] { return t("mapping", D({})); }), "True") << "{} is mapping";
  EXPECT_EQ(run([&] { return t("mapping", L({})); }), "False") << "[] is mapping";
  EXPECT_EQ(run([&] { return t("number", I(1)); }), "True") << "1 is number";
  EXPECT_EQ(run([&] { return t("number", B(true)); }), "True") << "true is number";
  EXPECT_EQ(run([&] { return t("number", F(1.5)); }), "True") << "1.5 is number";
  EXPECT_EQ(run([&] { return t("number", S("1")); }), "False") << "'1' is number";
  EXPECT_EQ(run([&] { return t("sequence", L({I(1)})); }), "True") << "[1] is sequence";
  EXPECT_EQ(run([&] { return t("sequence", S("a")); }), "True") << "'a' is sequence";
  EXPECT_EQ(run([&] { return t("sequence", D({})); }), "True") << "{} is sequence";
  EXPECT_EQ(run([&] { return t("sequence", I(1)); }), "False") << "1 is sequence";
  EXPECT_EQ(run([&] { return t("sequence", U()); }), "True") << "nothing is sequence";
  EXPECT_EQ(run([&] { return t("sequence", Value::list({}, ListKind::DictKeys)); }), "False") << "{}.keys() is sequence";
  EXPECT_EQ(run([&] { return t("iterable", L({I(1)})); }), "True") << "[1] is iterable";
  EXPECT_EQ(run([&] { return t("iterable", I(1)); }), "False") << "1 is iterable";
  EXPECT_EQ(run([&] { return t("iterable", U()); }), "True") << "nothing is iterable";
  EXPECT_EQ(run([&] { return t("callable", I(1)); }), "False") << "1 is callable";
  EXPECT_EQ(run([&] { return t("callable", U()); }), "True") << "nothing is callable";
  EXPECT_EQ(run([&] { return t("callable", I(1), {I(1)}); }), "ERR TypeError: callable() takes exactly one argument (2 given)") << "1 is callable(1)";
  EXPECT_EQ(run([&] { return t("sameas", I(1), {I(1)}); }), "True") << "1 is sameas 1";
  EXPECT_EQ(run([&] { return t("sameas", I(1000), {I(1000)}); }), "False") << "1000 is sameas 1000";
  EXPECT_EQ(run([&] { return t("sameas", N(), {N()}); }), "True") << "none is sameas none";
  EXPECT_EQ(run([&] { return t("sameas", B(false), {B(false)}); }), "True") << "false is sameas false";
  EXPECT_EQ(run([&] { return t("sameas", I(0), {B(false)}); }), "False") << "0 is sameas false";
  EXPECT_EQ(run([&] { return t("sameas", L({}), {L({})}); }), "False") << "[] is sameas []";
  EXPECT_EQ(run([&] { return t("escaped", S("a")); }), "False") << "'a' is escaped";
  EXPECT_EQ(run([&] { return t("escaped", f("e", S("a"))); }), "True") << "('a'|e) is escaped";
  EXPECT_EQ(run([&] { return t("in", I(1), {L({I(1)})}); }), "True") << "1 is in [1]";
  EXPECT_EQ(run([&] { return t("in", S("b"), {S("abc")}); }), "True") << "'b' is in 'abc'";
  EXPECT_EQ(run([&] { return t("in", I(1), {I(1)}); }), "ERR TypeError: argument of type 'int' is not iterable") << "1 is in 1";
  EXPECT_EQ(run([&] { return t("in", S("a"), {D({{S("a"), I(1)}})}); }), "True") << "'a' is in {'a': 1}";
  EXPECT_EQ(run([&] { return t("eq", I(1), {F(1.0)}); }), "True") << "1 is eq 1.0";
  EXPECT_EQ(run([&] { return t("equalto", I(1), {I(1)}); }), "True") << "1 is equalto 1";
  EXPECT_EQ(run([&] { return t("ne", I(1), {I(2)}); }), "True") << "1 is ne 2";
  EXPECT_EQ(run([&] { return t("gt", I(2), {I(1)}); }), "True") << "2 is gt 1";
  EXPECT_EQ(run([&] { return t("greaterthan", I(2), {F(1.5)}); }), "True") << "2 is greaterthan 1.5";
  EXPECT_EQ(run([&] { return t("ge", I(2), {I(2)}); }), "True") << "2 is ge 2";
  EXPECT_EQ(run([&] { return t("lt", I(1), {I(2)}); }), "True") << "1 is lt 2";
  EXPECT_EQ(run([&] { return t("lessthan", I(1), {I(1)}); }), "False") << "1 is lessthan 1";
  EXPECT_EQ(run([&] { return t("le", I(1), {I(1)}); }), "True") << "1 is le 1";
  EXPECT_EQ(run([&] { return t("ge", I(1), {S("a")}); }), "ERR TypeError: '>=' not supported between instances of 'int' and 'str'") << "1 is ge 'a'";
  EXPECT_EQ(run([&] { return t("lt", I(1), {N()}); }), "ERR TypeError: '<' not supported between instances of 'int' and 'NoneType'") << "1 is lt none";
  EXPECT_EQ(run([&] { return t("eq", I(1)); }), "ERR TypeError: eq expected 2 arguments, got 1") << "1 is eq";
  EXPECT_EQ(run([&] { return t("eq", I(1), {I(1), I(2)}); }), "ERR TypeError: eq expected 2 arguments, got 3") << "1 is eq(1, 2)";
  EXPECT_EQ(run([&] { return t("eq", I(1), {}, {{"b", I(1)}}); }), "ERR TypeError: _operator.eq() takes no keyword arguments") << "1 is eq(b=1)";
  EXPECT_EQ(run([&] { return t("lt", U(), {I(1)}); }), "ERR UndefinedError: 'nothing' is undefined") << "nothing is lt 1";
  EXPECT_EQ(run([&] { return t("eq", I(1), {U()}); }), "False") << "1 is eq nothing";
}
