#include "dialects/gbnf.hpp"

#include "dialects/schema_args.hpp"
#include "dialects/schema_types.hpp"
#include "chat/conv_util.hpp"
#include "value/json.hpp"

namespace toolchat::dialects::gbnf {

namespace {

using chat::conv::get;

// Rule names: letters, digits and '-' only.
std::string clean(const std::string& hint) {
  std::string out;
  for (char c : hint) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  while (out.find("--") != std::string::npos) out.erase(out.find("--"), 1);
  while (!out.empty() && out.back() == '-') out.pop_back();
  while (!out.empty() && out.front() == '-') out.erase(0, 1);
  return out.empty() ? "r" : out;
}

// `item` repeated min to max times (GBNF's {m,n}; `item` is one element: a rule name, literal,
// class or group).
std::string repeat(const std::string& item, size_t min, size_t max) {
  if (max == 0) return "";
  if (min == max) return min == 1 ? item : item + "{" + std::to_string(min) + "}";
  if (min == 0 && max == 1) return item + "?";
  return item + "{" + std::to_string(min) + "," + std::to_string(max) + "}";
}

// A non-negative integer keyword of a schema (minLength, maxItems, ...), when present.
std::optional<size_t> size_keyword(const Value& schema, const char* key) {
  const Value* v = chat::conv::get(schema, key);
  if (v && v->is_int() && v->as_int() >= 0) return static_cast<size_t>(v->as_int());
  if (v && v->is_float() && v->as_float() >= 0 && v->as_float() < 1e9) return static_cast<size_t>(v->as_float());
  return std::nullopt;
}

std::string compact_json(const Value& v) {
  json::DumpOptions o;
  o.ensure_ascii = false;
  o.separators = std::make_pair(",", ":");
  return json::dumps(v, o);
}

}  // namespace

std::string literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string Builder::rule(const std::string& name, const std::string& body) {
  if (auto it = by_body_.find(body); it != by_body_.end() && name != "root") return it->second;
  std::string n = name == "root" ? name : clean(name);
  auto taken = [&](const std::string& x) {
    for (const auto& r : rules_)
      if (r.first == x) return true;
    return false;
  };
  if (taken(n)) {
    int i = 2;
    while (taken(n + "-" + std::to_string(i))) ++i;
    n += "-" + std::to_string(i);
  }
  rules_.emplace_back(n, body);
  by_body_.emplace(body, n);
  return n;
}

std::string Builder::primitive(const std::string& kind) {
  // llama.cpp's json-schema-to-grammar `space`, integral and decimal parts.
  if (kind == "ws") return rule("ws", "( \" \" | \"\\n\"{1,2} [ \\t]{0,20} )?");
  if (kind == "char") {
    // A \\u escape of a character: a surrogate only as the first of a pair followed by the second
    // (a lone one is no character, and the arguments would not be valid UTF-8).
    std::string hex4 = rule("json-hex4", "[0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} | "
                                         "[dD] [89abAB] [0-9a-fA-F]{2} \"\\\\u\" [dD] [c-fC-F] [0-9a-fA-F]{2}");
    return rule("json-char", "[^\"\\\\\\x7F\\x00-\\x1F] | \"\\\\\" ( [\"\\\\/bfnrt] | \"u\" " + hex4 + " )");
  }
  if (kind == "string") return rule("string", "\"\\\"\" " + primitive("char") + "* \"\\\"\"");
  if (kind == "integer") return rule("integer", "\"-\"? ( \"0\" | [1-9] [0-9]{0,15} )");
  if (kind == "number")
    return rule("number", "\"-\"? ( \"0\" | [1-9] [0-9]{0,15} ) ( \".\" [0-9]{1,16} )? ( [eE] [-+]? [0-9]{1,2} )?");
  if (kind == "boolean") return rule("boolean", "\"true\" | \"false\"");
  if (kind == "null") return rule("null", "\"null\"");
  // Any JSON value (recursive: the names are fixed so the rules can refer to each other).
  std::string ws = primitive("ws"), str = primitive("string"), num = primitive("number");
  for (const auto& r : rules_)
    if (r.first == "json-value") return "json-value";
  rules_.emplace_back("json-value", "json-object | json-array | " + str + " | " + num + " | \"true\" | \"false\" | \"null\"");
  rules_.emplace_back("json-object", "\"{\" " + ws + " ( " + str + " " + ws + " \":\" " + ws + " json-value ( " + ws + " \",\" " + ws +
                                         " " + str + " " + ws + " \":\" " + ws + " json-value )* )? " + ws + " \"}\"");
  rules_.emplace_back("json-array", "\"[\" " + ws + " ( json-value ( " + ws + " \",\" " + ws + " json-value )* )? " + ws + " \"]\"");
  return "json-value";
}

// "[" item ("," item)* "]" within the schema's minItems / maxItems (a maxItems below minItems reads
// as minItems), for JSON and Python lists alike.
std::string Builder::bounded_list(const Value& schema, const std::string& item, const std::string& hint) {
  std::string ws = primitive("ws");
  std::string more = "( " + ws + " \",\" " + ws + " " + item + " )";
  size_t lo = size_keyword(schema, "minItems").value_or(0);
  std::optional<size_t> hi = size_keyword(schema, "maxItems");
  if (hi && *hi < lo) hi = lo;
  std::string body;
  if (hi && *hi == 0) body = "";
  else if (!hi) body = item + " " + more + (lo > 1 ? "{" + std::to_string(lo - 1) + ",}" : "*");
  else body = item + " " + repeat(more, lo > 0 ? lo - 1 : 0, *hi - 1);
  if (lo == 0 && !body.empty()) body = "( " + body + " )?";
  return rule(hint, "\"[\" " + ws + " " + body + " " + ws + " \"]\"");
}

std::optional<std::string> Builder::alternatives(const Value& schema, const std::string& hint,
                                                 std::string (Builder::*of)(const Value&, const std::string&)) {
  for (const char* key : {"anyOf", "oneOf"})
    if (const Value* alts = get(schema, key); alts && alts->is_list() && !alts->items().empty()) {
      std::string body;
      for (size_t i = 0; i < alts->items().size(); ++i)
        body += (i ? " | " : "") + (this->*of)(alts->items()[i], hint + "-" + std::to_string(i));
      return rule(hint, body);
    }
  const Value* type = get(schema, "type");
  if (!type || !type->is_list()) return std::nullopt;
  std::string body;
  for (const Value& t : type->items()) {  // a type list: one alternative per type, the rest shared
    Value one = DictBuilder(schema).add("type", t).build();
    body += (body.empty() ? "" : " | ") + (this->*of)(one, hint + "-" + (t.is_str() ? std::string(t.str()) : "t"));
  }
  return body.empty() ? std::string() : rule(hint, body);
}

std::string Builder::value(const Value& schema, const std::string& hint) {
  if (!schema.is_dict()) return primitive("json");
  if (const Value* c = get(schema, "const")) return rule(hint, literal(compact_json(*c)));
  if (const Value* e = get(schema, "enum"); e && e->is_list() && !e->items().empty()) {
    std::string body;
    for (const Value& v : e->items()) body += (body.empty() ? "" : " | ") + literal(compact_json(v));
    return rule(hint, body);
  }
  if (auto alts = alternatives(schema, hint, &Builder::value)) return alts->empty() ? primitive("json") : *alts;
  const Value* type = get(schema, "type");
  std::string t = type && type->is_str() ? std::string(type->str()) : (get(schema, "properties") ? "object" : "");
  if (t == "string") {
    auto min = size_keyword(schema, "minLength"), max = size_keyword(schema, "maxLength");
    if (!min && !max) return primitive(t);
    size_t lo = min.value_or(0);
    std::string chars = max ? repeat(primitive("char"), lo, std::max(lo, *max))
                            : primitive("char") + "{" + std::to_string(lo) + ",}";
    return rule(hint, "\"\\\"\" " + chars + " \"\\\"\"");
  }
  if (t == "integer" || t == "number" || t == "boolean" || t == "null") return primitive(t);
  if (t == "object") return object(schema, hint);
  if (t == "array") {
    const Value* items = get(schema, "items");
    std::string item = items && items->is_dict() ? value(*items, hint + "-item") : primitive("json");
    return bounded_list(schema, item, hint);
  }
  return primitive("json");
}

std::string Builder::ordered(const std::vector<std::string>& req, const std::vector<std::string>& opt,
                             const std::string& sep, const std::string& hint) {
  // Optional items after at least one item: each may appear, in order.
  if (!req.empty()) {
    std::string inner;
    for (size_t i = 0; i < req.size(); ++i) inner += (i ? sep : "") + req[i];
    for (const auto& o : opt) inner += " ( " + sep + o + " )?";
    return inner;
  }
  if (opt.empty()) return "";
  // None required: any in-order subset, possibly empty. start_i = item_i rest_{i+1} | start_{i+1}.
  std::string next;  // start_{i+1}
  for (size_t i = opt.size(); i-- > 0;) {
    std::string tail;
    for (size_t j = i + 1; j < opt.size(); ++j) tail += " ( " + sep + opt[j] + " )?";
    next = rule(hint + "-from-" + std::to_string(i), opt[i] + tail + (next.empty() ? "" : " | " + next));
  }
  return "( " + next + " )?";
}

namespace {

std::vector<std::string> required_of(const Value& schema) {
  std::vector<std::string> out;
  if (const Value* req = get(schema, "required"); req && req->is_list())
    for (const Value& r : req->items())
      if (r.is_str()) out.emplace_back(r.str());
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& x) {
  for (const auto& s : v)
    if (s == x) return true;
  return false;
}

// Code points of UTF-8 text, each kept as its bytes (invalid bytes stand alone).
std::vector<std::string> code_points(std::string_view s) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + n > s.size()) n = 1;
    out.emplace_back(s.substr(i, n));
    i += n;
  }
  return out;
}

// One code point inside a character class: ASCII punctuation that GBNF treats specially as \xHH.
std::string class_char(const std::string& cp) {
  if (cp.size() == 1 && !std::isalnum(static_cast<unsigned char>(cp[0]))) {
    static const char* hex = "0123456789ABCDEF";
    unsigned char c = cp[0];
    return std::string("\\x") + hex[c >> 4] + hex[c & 15];
  }
  return cp;
}

}  // namespace

std::string Builder::object(const Value& schema, const std::string& hint) {
  const Value* props = get(schema, "properties");
  std::string ws = primitive("ws");
  if (!props || !props->is_dict() || props->dict_obj().size() == 0) {
    primitive("json");
    return "json-object";
  }
  std::vector<std::string> required_names = required_of(schema);
  std::vector<std::string> req_kv, opt_kv;
  for (const auto& [k, v] : props->dict_obj().entries) {
    if (!k.is_str()) continue;
    std::string kv = literal(compact_json(k)) + " " + ws + " \":\" " + ws + " " + value(v, hint + "-" + std::string(k.str()));
    (contains(required_names, std::string(k.str())) ? req_kv : opt_kv).push_back(rule(hint + "-" + std::string(k.str()) + "-kv", kv));
  }
  std::string sep = " " + ws + " \",\" " + ws + " ";
  return rule(hint, "\"{\" " + ws + " " + ordered(req_kv, opt_kv, sep, hint) + " " + ws + " \"}\"");
}

std::string Builder::per_tool_params(const Value& tools, const std::string& hint, const ParamsBody& body) {
  std::string alts;
  if (tools.is_list())
    for (const Value& t : tools.items()) {
      const Value* fn = get(t, "function");
      const Value* name = fn ? get(*fn, "name") : nullptr;
      if (!name || !name->is_str()) continue;
      const Value* params = get(*fn, "parameters");
      alts += (alts.empty() ? "" : " | ") + rule(std::string(name->str()) + "-" + hint, body(std::string(name->str()), params ? *params : Value()));
    }
  if (alts.empty()) return rule("no-call", "\"{\" \"}\"");  // no tools: nothing valid but an empty object
  return rule(hint, alts);
}

std::string Builder::per_tool(const Value& tools, const std::string& hint, const ToolBody& body) {
  return per_tool_params(tools, hint, [&](const std::string& name, const Value& params) {
    std::string args = params.is_dict() ? value(params, name + "-args") : (primitive("json"), "json-object");
    return body(name, args);
  });
}

std::string Builder::name_then_args(const Value& tools, std::string_view before, std::string_view after, std::string_view end) {
  return per_tool(tools, "call", [&](const std::string& name, const std::string& args) {
    return literal(std::string(before) + name + std::string(after)) + " " + args + (end.empty() ? "" : " " + literal(end));
  });
}

std::string Builder::function_parameter_call(const Value& tools, std::string_view open, std::string_view close) {
  std::string ws = primitive("ws");
  auto param = [&](const std::string& key, const std::string& value) {
    return literal("<parameter=") + " " + key + " " + literal(">") + " " + value + " " + literal("</parameter>");
  };
  // A value ends at its close tag, or where the next parameter, the call or the block begins or ends.
  ValueText form{{"</parameter>", "<parameter=", "</function>", std::string(close)}, schema::Trim::OneNewline, "", ""};
  return per_tool_params(tools, "call", [&](const std::string& name, const Value& params) {
    return literal(open) + " " + ws + " " + literal("<function=" + name + ">") + " " + ws + " " +
           arg_elements(params, name + "-params", form, param) + " " + ws + " " + literal("</function>") + " " + ws + " " +
           literal(close);
  });
}

std::string Builder::call_object(const Value& tools) { return call_object(tools, "name", "arguments"); }

std::string Builder::call_object(const Value& tools, std::string_view name_key, std::string_view args_key,
                                 const std::string& tail) {
  std::string ws = primitive("ws");
  return per_tool(tools, "call-object", [&](const std::string& name, const std::string& args) {
    return "\"{\" " + ws + " " + literal(compact_json(Value::string(std::string(name_key)))) + " " + ws + " \":\" " + ws + " " +
           literal(compact_json(Value::string(name))) + " " + ws + " \",\" " + ws + " " +
           literal(compact_json(Value::string(std::string(args_key)))) + " " + ws + " \":\" " + ws + " " + args +
           (tail.empty() ? "" : " " + tail) + " " + ws + " \"}\"";
  });
}

std::string Builder::keyed(const Value& params, const std::string& hint, const ArgElement& element, const ArgValue& value_of,
                           const std::string& sep, const std::string& any_key, const std::string& any_value) {
  const Value* props = params.is_dict() ? get(params, "properties") : nullptr;
  if (!props || !props->is_dict() || props->dict_obj().size() == 0) {
    std::string any = rule(hint + "-any", element(any_key, any_value));
    return "( " + any + " ( " + sep + any + " )* )?";
  }
  std::vector<std::string> required_names = required_of(params);
  std::vector<std::string> req, opt;
  for (const auto& [k, v] : props->dict_obj().entries) {
    if (!k.is_str()) continue;
    std::string val = value_of(v, hint + "-" + std::string(k.str()));
    (contains(required_names, std::string(k.str())) ? req : opt).push_back(rule(hint + "-" + std::string(k.str()) + "-arg", element(literal(std::string(k.str())), val)));
  }
  return ordered(req, opt, sep, hint);
}

std::string Builder::arg_elements(const Value& params, const std::string& hint, const ValueText& form,
                                  const ArgElement& element) {
  std::string ws = primitive("ws");
  std::string text_start = form.text_prefix.empty() ? "" : literal(form.text_prefix) + " ";
  std::string json_start = form.json_prefix.empty() ? "" : literal(form.json_prefix) + " ";
  // What the trim removes around a text value, written around `body`.
  auto text_around = [&](const std::string& body) {
    switch (form.trim) {
      case schema::Trim::OneNewline: return text_start + "\"\\n\" " + body + " \"\\n\"";
      case schema::Trim::Whitespace: return text_start + ws + " " + body + " " + ws;
      case schema::Trim::None: break;
    }
    return text_start + body;
  };
  auto json_around = [&](const std::string& body) { return json_start + ws + " " + body + " " + ws; };
  std::string raw = rule(hint + "-text", text_start + until_any(form.ends));
  auto value_of = [&](const Value& v, const std::string& h) {
    schema::ParamType type = schema::schema_type(v.is_dict() ? &v : nullptr);
    bool text = type.bits == 0 || (type.bits & schema::kString);
    std::vector<Value> choices;
    if (const Value* c = v.is_dict() ? get(v, "const") : nullptr) choices.push_back(*c);
    else if (const Value* e = v.is_dict() ? get(v, "enum") : nullptr; e && e->is_list()) choices = e->items();
    if (!choices.empty()) {
      std::string alts;
      for (const Value& x : choices)
        alts += (alts.empty() ? "" : " | ") +
                ((x.is_str() && text) ? text_around(literal(x.str())) : json_around(literal(compact_json(x))));
      return rule(h + "-enum", alts);
    }
    if (!text) return rule(h + "-json", json_around(value(v, h)));
    auto lo = size_keyword(v, "minLength"), hi = size_keyword(v, "maxLength");
    if (!lo && !hi) return raw;
    if (hi && lo && *lo > *hi) lo = hi;
    return rule(h + "-text", bounded_text(form, lo.value_or(0), hi));
  };
  return keyed(params, hint, element, value_of, " " + ws + " ", rule("arg-key", "[^<>\"=\\n]+"), raw);
}

std::string Builder::bounded_text(const ValueText& form, size_t lo, std::optional<size_t> hi) {
  std::string start = form.text_prefix.empty() ? "" : literal(form.text_prefix) + " ";
  std::string c = char_not_starting(form.ends);
  auto run = [&](size_t min, std::optional<size_t> max) {
    if (!max) return c + (min ? "{" + std::to_string(min) + ",}" : "*");
    std::string r = repeat(c, min, *max);
    return r.empty() ? std::string("\"\"") : r;
  };
  if (form.trim == schema::Trim::None) return start + run(lo, hi);
  // One newline each side is removed: write them, so the text between is read whole.
  if (form.trim == schema::Trim::OneNewline) return start + "\"\\n\" " + run(lo, hi) + " \"\\n\"";
  // Whitespace around is removed: the text starts and ends with another code point (n), and may
  // have whitespace around it.
  std::string n = char_not_starting(form.ends, true), ws = primitive("ws");
  auto minus2 = [](std::optional<size_t> x) { return x ? std::optional<size_t>(*x >= 2 ? *x - 2 : 0) : std::nullopt; };
  std::string body;
  if (hi && *hi == 0) body = "\"\"";
  else if (hi && *hi == 1) body = lo ? n : n + "?";
  else if (lo >= 2) body = n + " " + run(lo - 2, minus2(hi)) + " " + n;
  else body = (lo ? "" : "( ") + n + " ( " + run(0, minus2(hi)) + " " + n + " )?" + (lo ? "" : " )?");
  return start + ws + " " + body + " " + ws;
}

std::string Builder::py_kwargs(const Value& params, const std::string& hint) {
  std::string ws = primitive("ws");
  // At most a space between the name and '=' (the parsers read a keyword argument on one line).
  auto element = [&](const std::string& key, const std::string& val) { return key + " \" \"? \"=\" " + ws + " " + val; };
  return keyed(params, hint, element, [&](const Value& v, const std::string& h) { return py_value(v, h); },
               " " + ws + " \",\" " + ws + " ", rule("py-name", "[a-zA-Z_] [a-zA-Z0-9_]*"), py_value(Value(), "py-any"));
}

std::string Builder::py_value(const Value& schema, const std::string& hint) {
  std::string ws = primitive("ws");
  // One code point of a quoted Python string: a plain character or a one-character escape.
  std::string sq = rule("py-char-sq", "[^'\\\\\\n\\r] | \"\\\\\" [nrt'\"\\\\]");
  std::string dq = rule("py-char-dq", "[^\"\\\\\\n\\r] | \"\\\\\" [nrt'\"\\\\]");
  auto quoted = [&](size_t lo, std::optional<size_t> hi) {
    auto run = [&](const std::string& c) { return hi ? repeat(c, lo, *hi) : c + (lo ? "{" + std::to_string(lo) + ",}" : "*"); };
    return "\"'\" " + run(sq) + " \"'\" | \"\\\"\" " + run(dq) + " \"\\\"\"";
  };
  std::string str = rule("py-string", quoted(0, std::nullopt));
  auto any = [&]() -> std::string {
    for (const auto& r : rules_)
      if (r.first == "py-any") return "py-any";
    std::string num = primitive("number");
    rules_.emplace_back("py-any", str + " | " + num + " | \"True\" | \"False\" | \"None\" | py-list | py-dict");
    rules_.emplace_back("py-list", "\"[\" " + ws + " ( py-any ( " + ws + " \",\" " + ws + " py-any )* )? " + ws + " \"]\"");
    // String keys: a dict becomes a JSON object.
    rules_.emplace_back("py-dict", "\"{\" " + ws + " ( " + str + " " + ws + " \":\" " + ws + " py-any ( " + ws + " \",\" " + ws + " " +
                                       str + " " + ws + " \":\" " + ws + " py-any )* )? " + ws + " \"}\"");
    return "py-any";
  };
  if (!schema.is_dict()) return any();
  auto literal_of = [&](const Value& x) {
    if (x.is_str()) return literal("'" + std::string(x.str()) + "'") + " | " + literal(compact_json(x));
    if (x.is_bool()) return literal(x.as_bool() ? "True" : "False");
    if (x.is_none()) return literal("None");
    return literal(compact_json(x));
  };
  if (const Value* c = get(schema, "const")) return rule(hint, literal_of(*c));
  if (const Value* e = get(schema, "enum"); e && e->is_list() && !e->items().empty()) {
    std::string alts;
    for (const Value& x : e->items()) alts += (alts.empty() ? "" : " | ") + literal_of(x);
    return rule(hint, alts);
  }
  if (auto alts = alternatives(schema, hint, &Builder::py_value)) return alts->empty() ? any() : *alts;
  const Value* type = get(schema, "type");
  std::string t = type && type->is_str() ? std::string(type->str()) : (get(schema, "properties") ? "object" : "");
  if (t == "string") {
    auto lo = size_keyword(schema, "minLength"), hi = size_keyword(schema, "maxLength");
    if (!lo && !hi) return str;
    if (lo && hi && *lo > *hi) lo = hi;
    return rule(hint, quoted(lo.value_or(0), hi));
  }
  if (t == "integer" || t == "number") return primitive(t);
  if (t == "boolean") return rule("py-bool", "\"True\" | \"False\"");
  if (t == "null") return rule("py-none", "\"None\"");
  if (t == "array") {
    const Value* items = get(schema, "items");
    std::string item = items && items->is_dict() ? py_value(*items, hint + "-item") : any();
    return bounded_list(schema, item, hint);
  }
  if (t == "object") {
    const Value* props = get(schema, "properties");
    if (!props || !props->is_dict() || props->dict_obj().size() == 0) return (any(), "py-dict");
    std::vector<std::string> required_names = required_of(schema);
    std::vector<std::string> req_kv, opt_kv;
    for (const auto& [k, v] : props->dict_obj().entries) {
      if (!k.is_str()) continue;
      std::string key = "( " + literal("'" + std::string(k.str()) + "'") + " | " + literal(compact_json(k)) + " )";
      std::string kv = key + " " + ws + " \":\" " + ws + " " + py_value(v, hint + "-" + std::string(k.str()));
      (contains(required_names, std::string(k.str())) ? req_kv : opt_kv).push_back(rule(hint + "-" + std::string(k.str()) + "-kv", kv));
    }
    std::string sep = " " + ws + " \",\" " + ws + " ";
    return rule(hint, "\"{\" " + ws + " " + ordered(req_kv, opt_kv, sep, hint) + " " + ws + " \"}\"");
  }
  return any();
}

std::string Builder::until_any(const std::vector<std::string>& stops) {
  std::string key;
  for (const auto& st : stops) key += st + '\0';
  if (auto it = until_.find(key); it != until_.end()) return it->second;
  // The trie of the stops' code points; state 0 is the root. `done`: a stop ends here or at a
  // suffix of here (the text would contain it).
  struct Node {
    std::map<std::string, size_t> next;
    size_t fail = 0;
    bool done = false;
  };
  std::vector<Node> nodes(1);
  std::vector<std::string> distinct;
  for (const auto& st : stops) {
    size_t at = 0;
    for (const auto& c : code_points(st)) {
      if (!contains(distinct, c)) distinct.push_back(c);
      auto it = nodes[at].next.find(c);
      if (it == nodes[at].next.end()) {
        nodes.emplace_back();
        it = nodes[at].next.emplace(c, nodes.size() - 1).first;
      }
      at = it->second;
    }
    nodes[at].done = true;
  }
  // Failure links, breadth first (a node's link is the longest proper suffix that is in the trie).
  std::vector<size_t> order{0};
  for (size_t i = 0; i < order.size(); ++i)
    for (const auto& [c, child] : nodes[order[i]].next) {
      size_t f = order[i] == 0 ? 0 : nodes[order[i]].fail;
      while (f && !nodes[f].next.count(c)) f = nodes[f].fail;
      if (order[i] != 0 && nodes[f].next.count(c)) f = nodes[f].next.at(c);
      nodes[child].fail = f;
      nodes[child].done = nodes[child].done || nodes[f].done;
      order.push_back(child);
    }
  auto step = [&](size_t s, const std::string& c) {
    while (s && !nodes[s].next.count(c)) s = nodes[s].fail;
    auto it = nodes[s].next.find(c);
    return it == nodes[s].next.end() ? size_t{0} : it->second;
  };
  std::string others = "[^";
  for (const auto& c : distinct) others += class_char(c);
  others += "]";
  std::string base = clean("until-" + (stops.empty() ? std::string() : stops[0]));
  auto taken = [&](const std::string& x) {
    for (const auto& r : rules_)
      if (r.first == x + "-0") return true;
    return false;
  };
  if (taken(base)) {
    int i = 2;
    while (taken(base + "-" + std::to_string(i))) ++i;
    base += "-" + std::to_string(i);
  }
  for (size_t s = 0; s < nodes.size(); ++s) {
    if (nodes[s].done) continue;
    std::string body = others + " " + base + "-0";
    for (const auto& c : distinct)
      if (size_t to = step(s, c); !nodes[to].done) body += " | " + literal(c) + " " + base + "-" + std::to_string(to);
    rules_.emplace_back(base + "-" + std::to_string(s), "( " + body + " )?");
  }
  until_.emplace(key, base + "-0");
  return base + "-0";
}

std::string Builder::reasoning(std::string_view open, std::string_view close) {
  using R = GrammarOptions::Reasoning;
  if (opts_.reasoning == R::None || opts_.max_reasoning_chars == 0) return "";
  // Text that cannot contain `close`: its first code point only when not followed by the second
  // (nor by itself, which could start `close` one code point later).
  std::string text = repeat(piece_not_containing(close, "reasoning-piece"), 0, opts_.max_reasoning_chars);
  std::string block = text + " " + literal(close) + " " + ws();
  if (opts_.reasoning == R::Open) return rule("reasoning", block);
  return rule("reasoning", "( " + literal(open) + " " + block + " )?");
}

std::string Builder::char_not_starting(const std::vector<std::string>& stops, bool no_space) {
  std::string cls, name = no_space ? "text-edge-char" : "text-char";
  std::vector<std::string> firsts;
  for (const auto& st : stops)
    if (auto cps = code_points(st); !cps.empty() && !contains(firsts, cps[0])) firsts.push_back(cps[0]);
  for (const auto& f : firsts) cls += class_char(f);
  if (no_space) cls += "\\x20\\t\\n\\r";
  return rule(name, cls.empty() ? "[^\\x00]" : "[^" + cls + "]");
}

std::string Builder::piece_not_containing(std::string_view stop, const std::string& hint) {
  // A code point other than the first of `stop`, or a proper prefix of `stop` followed by a code
  // point that neither continues it nor starts it again. The first code point of every marker we
  // close with appears in it only at its start, so no run of pieces contains `stop`.
  std::vector<std::string> cps = code_points(stop);
  if (cps.empty()) return rule(hint, "[^\\x00]");
  std::string c0 = class_char(cps[0]), body = "[^" + c0 + "]", prefix;
  for (size_t k = 1; k < cps.size(); ++k) {
    prefix += cps[k - 1];
    body += " | " + literal(prefix) + " [^" + c0 + (cps[k] == cps[0] ? "" : class_char(cps[k])) + "]";
  }
  return rule(hint, body);
}

std::string Builder::calls(const std::string& call, const std::string& sep) {
  size_t n = std::max<size_t>(opts_.max_calls, 1);
  if (n == 1) return call;
  return call + " " + repeat("( " + sep + " " + call + " )", 0, n - 1);
}

std::string Builder::json_list(const std::string& item, const std::string& hint) {
  std::string ws = primitive("ws");
  return rule(hint, "\"[\" " + ws + " " + calls(item, ws + " \",\" " + ws) + " " + ws + " \"]\"");
}

std::string Builder::json_call_id() { return rule("call-id", "\"\\\"\" [a-zA-Z0-9_-]{1,40} \"\\\"\""); }

std::string json_literal(std::string_view text) { return literal(compact_json(Value::string(text))); }

std::optional<std::string> build(const Value& tools, const GrammarOptions& opts,
                                 const std::function<std::string(Builder& b)>& root_body) {
  if (!has_named_tool(tools)) return std::nullopt;
  Builder b(opts);
  b.rule("root", root_body(b));
  return b.str();
}

bool has_named_tool(const Value& tools) {
  if (tools.is_list())
    for (const Value& t : tools.items())
      if (const Value* fn = get(t, "function"))
        if (const Value* n = get(*fn, "name"); n && n->is_str()) return true;
  return false;
}

std::string Builder::str() const {
  std::string out;
  for (const auto& r : rules_)
    if (r.first == "root") out += r.first + " ::= " + r.second + "\n";
  for (const auto& r : rules_)
    if (r.first != "root") out += r.first + " ::= " + r.second + "\n";
  return out;
}

}  // namespace toolchat::dialects::gbnf
