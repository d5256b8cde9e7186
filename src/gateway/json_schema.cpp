#include "gateway/json_schema.hpp"

#include <cctype>
#include <cmath>
#include <regex>
#include <string_view>

#include "dialects/schema_types.hpp"
#include "gateway/api_error.hpp"
#include "value/json.hpp"

namespace toolchat::gateway {

namespace {

constexpr size_t kMaxPattern = 1000;    // std::regex compiles recursively: keep patterns modest
constexpr size_t kMaxRegexInput = 16384;  // longer strings are not matched against a pattern
constexpr int kMaxDepth = 128;          // schema nesting / $ref chains

const Value* get(const Value& d, std::string_view k) { return d.is_dict() ? d.dict_obj().find(k) : nullptr; }

const char* kind_of(const Value& v) {
  if (v.is_none()) return "null";
  if (v.is_bool()) return "boolean";
  if (v.is_integer()) return "integer";
  if (v.is_float()) return "number";
  if (v.is_str()) return "string";
  if (v.is_list()) return "array";
  if (v.is_dict()) return "object";
  return "value";
}

bool is_num(const Value& v) { return (v.is_int() || v.is_float() || v.is_bigint()) && !v.is_bool(); }

[[noreturn]] void bad(const std::string& path, const std::string& what) { throw bad_request(path, path + ": " + what); }

// libstdc++'s __polynomial flag selects its breadth-first matcher: time linear in the input for a
// given pattern, where the default backtracking one is exponential on patterns such as "^(a+)+$"
// (a client's schema must not be able to hang a worker). It refuses backreferences.
constexpr auto kRegexFlags = std::regex::ECMAScript | std::regex_constants::__polynomial;

std::optional<std::regex> compile(const std::string& pattern) {
  if (pattern.size() > kMaxPattern) return std::nullopt;
  try {
    return std::regex(pattern, kRegexFlags);
  } catch (const std::regex_error&) {
    return std::nullopt;
  }
}

// JSON Schema's pattern is a search; as a whole-input match of [\s\S]*(?:P)[\s\S]* it is one
// linear pass of the breadth-first matcher (regex_search would restart it at every position).
bool pattern_found(const std::string& pattern, const std::string& text) {
  try {
    std::regex re("[\\s\\S]*(?:" + pattern + ")[\\s\\S]*", kRegexFlags);
    return std::regex_match(text, re);
  } catch (const std::regex_error&) {
    return true;  // checked by check_schema; a pattern std::regex cannot run decides nothing
  }
}

// A reference inside the schema: "#" or a JSON pointer "#/a/b~1c" (~1 is '/', ~0 is '~', %XX
// escapes decoded). Other documents are not fetched.
const Value* resolve(const Value& root, const std::string& ref) {
  if (ref.empty() || ref[0] != '#') return nullptr;
  const Value* at = &root;
  size_t i = 1;
  while (i < ref.size()) {
    if (ref[i] != '/') return nullptr;
    size_t end = ref.find('/', i + 1);
    std::string raw = ref.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1), seg;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '~' && k + 1 < raw.size() && (raw[k + 1] == '0' || raw[k + 1] == '1')) seg += raw[++k] == '0' ? '~' : '/';
      else if (raw[k] == '%' && k + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[k + 1])) &&
               std::isxdigit(static_cast<unsigned char>(raw[k + 2]))) {
        seg += static_cast<char>(std::stoi(raw.substr(k + 1, 2), nullptr, 16));
        k += 2;
      } else seg += raw[k];
    }
    if (at->is_dict()) at = at->dict_obj().find(seg);
    else if (at->is_list() && !seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos && seg.size() < 10 &&
             std::stoul(seg) < at->items().size()) at = &at->items()[std::stoul(seg)];
    else return nullptr;
    if (!at) return nullptr;
    i = end == std::string::npos ? ref.size() : end;
  }
  return at;
}

void check(const Value& s, const std::string& path, const Value& root, int depth, bool strict) {
  if (depth > kMaxDepth) bad(path, "schema nested too deeply");
  if (s.is_bool()) return;  // true / false schemas
  if (!s.is_dict()) bad(path, std::string("a schema must be an object or a boolean, got ") + kind_of(s));
  auto sub = [&](const char* k) { return path + "." + k; };
  if (const Value* t = get(s, "type")) {
    if (t->is_str()) {
      if (strict && !dialects::schema::type_name_bit(t->str(), dialects::schema::Names::Strict)) bad(sub("type"), "'" + std::string(t->str()) + "' is not a JSON Schema type");
    } else if (t->is_list() && !t->items().empty()) {
      for (size_t i = 0; i < t->items().size(); ++i) {
        const Value& e = t->items()[i];
        std::string p = sub("type") + "[" + std::to_string(i) + "]";
        if (!e.is_str()) bad(p, std::string("expected a type name, got ") + kind_of(e));
        if (strict && !dialects::schema::type_name_bit(e.str(), dialects::schema::Names::Strict)) bad(p, "'" + std::string(e.str()) + "' is not a JSON Schema type");
      }
    } else {
      bad(sub("type"), std::string("expected a type name or a non-empty array of them, got ") + kind_of(*t));
    }
  }
  if (const Value* p = get(s, "pattern")) {
    if (!p->is_str()) bad(sub("pattern"), std::string("expected a string, got ") + kind_of(*p));
    if (!compile(std::string(p->str()))) bad(sub("pattern"), "not a valid regular expression (ECMAScript, at most 1000 characters)");
  }
  if (const Value* props = get(s, "properties")) {
    if (!props->is_dict()) bad(sub("properties"), std::string("expected an object, got ") + kind_of(*props));
    for (const auto& [k, v] : props->dict_obj().entries) check(v, sub("properties") + "." + std::string(k.str()), root, depth + 1, strict);
  }
  for (const char* k : {"$defs", "definitions", "patternProperties", "dependentSchemas"}) {
    if (const Value* defs = get(s, k)) {
      if (!defs->is_dict()) bad(sub(k), std::string("expected an object, got ") + kind_of(*defs));
      for (const auto& [name, v] : defs->dict_obj().entries) check(v, sub(k) + "." + std::string(name.str()), root, depth + 1, strict);
    }
  }
  if (const Value* req = get(s, "required")) {
    if (!req->is_list()) bad(sub("required"), std::string("expected an array of property names, got ") + kind_of(*req));
    for (size_t i = 0; i < req->items().size(); ++i)
      if (!req->items()[i].is_str()) bad(sub("required") + "[" + std::to_string(i) + "]", "expected a string");
  }
  for (const char* k : {"additionalProperties", "items", "not", "contains", "propertyNames", "if", "then", "else"}) {
    const Value* v = get(s, k);
    if (!v) continue;
    if (std::string_view(k) == "items" && v->is_list()) {  // draft-07 tuple form
      for (size_t i = 0; i < v->items().size(); ++i) check(v->items()[i], sub(k) + "[" + std::to_string(i) + "]", root, depth + 1, strict);
    } else {
      check(*v, sub(k), root, depth + 1, strict);
    }
  }
  for (const char* k : {"anyOf", "oneOf", "allOf", "prefixItems"}) {
    const Value* v = get(s, k);
    if (!v) continue;
    if (!v->is_list() || v->items().empty()) bad(sub(k), "expected a non-empty array of schemas");
    for (size_t i = 0; i < v->items().size(); ++i) check(v->items()[i], sub(k) + "[" + std::to_string(i) + "]", root, depth + 1, strict);
  }
  if (const Value* e = get(s, "enum"); e && !e->is_list()) bad(sub("enum"), std::string("expected an array, got ") + kind_of(*e));
  for (const char* k : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"})
    if (const Value* v = get(s, k); v && !is_num(*v)) bad(sub(k), std::string("expected a number, got ") + kind_of(*v));
  for (const char* k : {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"})
    if (const Value* v = get(s, k); v && !(v->is_int() && v->as_int() >= 0))
      bad(sub(k), "expected a non-negative integer");
  if (const Value* r = get(s, "$ref")) {
    if (!r->is_str()) bad(sub("$ref"), std::string("expected a string, got ") + kind_of(*r));
    if (!resolve(root, std::string(r->str()))) bad(sub("$ref"), "'" + std::string(r->str()) + "' points nowhere in this schema (references to other documents are not followed)");
  }
}

// JSON equality: numbers by value (1 equals 1.0), objects whatever their key order.
bool equal(const Value& a, const Value& b) {
  if (is_num(a) && is_num(b)) {
    if (a.is_int() && b.is_int()) return a.as_int() == b.as_int();
    if (a.is_bigint() || b.is_bigint()) return json::dumps(a) == json::dumps(b) || a.to_double() == b.to_double();
    return a.to_double() == b.to_double();
  }
  if (a.is_list() && b.is_list()) {
    if (a.items().size() != b.items().size()) return false;
    for (size_t i = 0; i < a.items().size(); ++i)
      if (!equal(a.items()[i], b.items()[i])) return false;
    return true;
  }
  if (a.is_dict() && b.is_dict()) {
    if (a.dict_obj().entries.size() != b.dict_obj().entries.size()) return false;
    for (const auto& [k, v] : a.dict_obj().entries) {
      const Value* w = b.dict_obj().find(k.str());
      if (!w || !equal(v, *w)) return false;
    }
    return true;
  }
  if (a.is_bool() || b.is_bool()) return a.is_bool() && b.is_bool() && a.as_bool() == b.as_bool();
  if (a.is_none() || b.is_none()) return a.is_none() && b.is_none();
  return a.is_str() && b.is_str() && a.str() == b.str();
}

std::optional<std::string> violation(const Value& v, const Value& s, const std::string& at, const Value& root, int depth) {
  if (depth > kMaxDepth) return at + ": schema nested too deeply to check";
  if (s.is_bool()) return s.as_bool() ? std::nullopt : std::optional<std::string>(at + ": no value is allowed here");
  if (!s.is_dict()) return std::nullopt;
  auto fail = [&](const std::string& what) { return std::optional<std::string>(at + ": " + what); };
  if (const Value* r = get(s, "$ref"); r && r->is_str())
    if (const Value* target = resolve(root, std::string(r->str())))
      if (auto why = violation(v, *target, at, root, depth + 1)) return why;
  if (const Value* t = get(s, "type")) {
    uint8_t want = dialects::schema::type_keyword_bits(t, dialects::schema::Names::Strict);
    if (!(want & dialects::schema::instance_types(v)))
      return fail("expected " + (want ? dialects::schema::type_names(want) : "a known type") + ", got " + kind_of(v));
  }
  if (const Value* e = get(s, "enum")) {
    bool found = false;
    for (const Value& x : e->items()) found = found || equal(x, v);
    if (!found) return fail("not one of the enum values");
  }
  if (const Value* c = get(s, "const"); c && !equal(*c, v)) return fail("not the const value");
  if (v.is_str()) {
    size_t n = 0;  // code points
    for (unsigned char ch : v.str()) n += (ch & 0xC0) != 0x80;
    if (const Value* m = get(s, "minLength"); m && m->is_int() && n < static_cast<size_t>(m->as_int())) return fail("shorter than minLength");
    if (const Value* m = get(s, "maxLength"); m && m->is_int() && n > static_cast<size_t>(m->as_int())) return fail("longer than maxLength");
    if (const Value* p = get(s, "pattern"); p && p->is_str() && v.str().size() <= kMaxRegexInput)
      if (!pattern_found(std::string(p->str()), std::string(v.str()))) return fail("does not match the pattern");
  }
  if (is_num(v) && !v.is_bool()) {
    double d = v.to_double();
    auto num = [&](const char* k) -> std::optional<double> {
      const Value* x = get(s, k);
      return x && is_num(*x) ? std::optional<double>(x->to_double()) : std::nullopt;
    };
    if (auto m = num("minimum"); m && d < *m) return fail("below the minimum");
    if (auto m = num("maximum"); m && d > *m) return fail("above the maximum");
    if (auto m = num("exclusiveMinimum"); m && d <= *m) return fail("not above exclusiveMinimum");
    if (auto m = num("exclusiveMaximum"); m && d >= *m) return fail("not below exclusiveMaximum");
  }
  if (v.is_list()) {
    const auto& items = v.items();
    if (const Value* m = get(s, "minItems"); m && m->is_int() && items.size() < static_cast<size_t>(m->as_int())) return fail("fewer items than minItems");
    if (const Value* m = get(s, "maxItems"); m && m->is_int() && items.size() > static_cast<size_t>(m->as_int())) return fail("more items than maxItems");
    size_t first = 0;
    if (const Value* pre = get(s, "prefixItems"); pre && pre->is_list())
      for (; first < pre->items().size() && first < items.size(); ++first)
        if (auto why = violation(items[first], pre->items()[first], at + "[" + std::to_string(first) + "]", root, depth + 1)) return why;
    if (const Value* it = get(s, "items"); it && !it->is_list())
      for (size_t i = first; i < items.size(); ++i)
        if (auto why = violation(items[i], *it, at + "[" + std::to_string(i) + "]", root, depth + 1)) return why;
  }
  if (v.is_dict()) {
    const Value* props = get(s, "properties");
    if (const Value* req = get(s, "required"); req && req->is_list())
      for (const Value& k : req->items())
        if (k.is_str() && !v.dict_obj().find(k.str())) return fail("missing required property '" + std::string(k.str()) + "'");
    const Value* extra = get(s, "additionalProperties");
    for (const auto& [k, x] : v.dict_obj().entries) {
      const Value* ps = props && props->is_dict() ? props->dict_obj().find(k.str()) : nullptr;
      std::string kat(at + "." + std::string(k.str()));
      if (ps) {
        if (auto why = violation(x, *ps, kat, root, depth + 1)) return why;
      } else if (extra) {
        if (auto why = violation(x, *extra, kat, root, depth + 1)) return why;
      }
    }
  }
  if (const Value* all = get(s, "allOf"); all && all->is_list())
    for (const Value& sub : all->items())
      if (auto why = violation(v, sub, at, root, depth + 1)) return why;
  if (const Value* any = get(s, "anyOf"); any && any->is_list()) {
    bool ok = false;
    for (const Value& sub : any->items()) ok = ok || !violation(v, sub, at, root, depth + 1);
    if (!ok) return fail("matches none of anyOf");
  }
  if (const Value* one = get(s, "oneOf"); one && one->is_list()) {
    int n = 0;
    for (const Value& sub : one->items()) n += !violation(v, sub, at, root, depth + 1);
    if (n != 1) return fail(n ? "matches more than one of oneOf" : "matches none of oneOf");
  }
  if (const Value* no = get(s, "not"); no && !violation(v, *no, at, root, depth + 1)) return fail("matches the schema under not");
  return std::nullopt;
}

}  // namespace

void check_schema(const Value& schema, const std::string& path, bool strict_types) {
  check(schema, path, schema, 0, strict_types);
}

std::optional<std::string> schema_violation(const Value& instance, const Value& schema) {
  return violation(instance, schema, "$", schema, 0);
}

}  // namespace toolchat::gateway
