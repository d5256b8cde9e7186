// Dialect inference (infer.hpp): where the needles of the probe calls land in the renders gives the
// call encoding; common prefixes and suffixes of the text around them give the markers.
#include "dialects/infer.hpp"

#include <cstring>

#include "dialects/scan.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {

namespace {

// Needles no template contains; ids are 9 alphanumerics (Mistral templates insist).
constexpr const char* kName[2] = {"zq_tool_one", "zq_tool_two"};
constexpr const char* kKey[2] = {"zqkeyone", "zqkeytwo"};
constexpr const char* kVal[2] = {"zqValueOne", "zqValueTwo"};
constexpr const char* kId[2] = {"zqid00001", "zqid00002"};
constexpr const char* kAnswer = "zqAnswerNeedle";
constexpr int64_t kNumber = 7321;  // an integer argument (the two-argument probe)

Value args_of(int i) {
  Value a = Value::dict();
  a.dict_obj().set(Value::string(kKey[i]), Value::string(kVal[i]));
  return a;
}

// Tool one takes both keys (the two-argument probe: a string and an integer), tool two its own.
Value probe_tools() {
  std::vector<Value> tools;
  auto prop = [](int i) {
    return std::string("\"") + kKey[i] + "\": {\"type\": \"string\", \"description\": \"a value\"}";
  };
  tools.push_back(probe_tool(kName[0], "zqDescription",
                             json::parse("{" + prop(0) + ", \"" + kKey[1] + "\": {\"type\": \"integer\"}}")));
  tools.push_back(probe_tool(kName[1], "zqDescription", json::parse("{" + prop(1) + "}")));
  return Value::list(std::move(tools));
}

bool is_args(const Value& v, int i) {
  if (v.is_str()) {  // arguments kept as a JSON string inside the call object
    try {
      return is_args(json::parse(v.str()), i);
    } catch (const std::exception&) {
      return false;
    }
  }
  if (!v.is_dict()) return false;
  const Value* x = v.dict_obj().find(kKey[i]);
  return x && x->is_str() && x->str() == kVal[i];
}

// Depth-first through dicts: the keys leading to the first value that satisfies pred.
template <class Pred>
bool find_path(const Value& v, const Pred& pred, std::vector<std::string>& path) {
  if (!v.is_dict()) return false;
  for (const auto& [k, x] : v.dict_obj().entries) {
    if (!k.is_str()) continue;
    path.emplace_back(k.str());
    if (pred(x) || find_path(x, pred, path)) return true;
    path.pop_back();
  }
  return false;
}

// Where one probe call is in a render.
struct Core {
  size_t begin = 0, end = 0;
  InferredSpec::Form form = InferredSpec::Form::CallObject;
  std::vector<std::string> name_path, args_path, id_path;
  std::string name_sep;
  std::string kv_sep;  // KeyValue
};

// A JSON object starting at s[q], or nullopt; *end is one past it.
std::optional<Value> json_object_at(const std::string& s, size_t q, size_t* end) {
  scan::JsonScanner js;
  size_t n = js.feed(std::string_view(s).substr(q));
  if (js.state() != scan::JsonScanner::State::Done) return std::nullopt;
  try {
    Value v = json::parse(js.text());
    if (!v.is_dict()) return std::nullopt;
    *end = q + n;
    return v;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::optional<Core> locate_at(const std::string& s, size_t from, size_t np, int i) {
  const std::string name = kName[i];
  // A JSON object holding both the name and the arguments: the innermost one around the name.
  if (np > from && s[np - 1] == '"' && s.compare(np + name.size(), 1, "\"") == 0) {
    size_t q = np;
    for (int tries = 0; tries < 64 && q > from; ++tries) {
      q = s.rfind('{', q - 1);
      if (q == std::string::npos || q < from) break;
      size_t end = 0;
      auto v = json_object_at(s, q, &end);
      if (!v || end <= np) continue;
      Core c;
      auto is_name = [&](const Value& x) { return x.is_str() && x.str() == name; };
      auto is_a = [&](const Value& x) { return is_args(x, i); };
      auto is_id = [&](const Value& x) { return x.is_str() && x.str() == kId[i]; };
      if (!find_path(*v, is_name, c.name_path) || !find_path(*v, is_a, c.args_path)) continue;
      find_path(*v, is_id, c.id_path);
      c.begin = q;
      c.end = end;
      return c;
    }
  }
  // The name as text, then a JSON arguments object.
  size_t after = np + name.size();
  if (size_t kp = s.find(std::string("\"") + kKey[i] + "\"", after); kp != std::string::npos) {
    size_t q = s.rfind('{', kp);
    size_t end = 0;
    if (q != std::string::npos && q >= after)
      if (auto v = json_object_at(s, q, &end); v && is_args(*v, i)) {
        Core c;
        c.form = InferredSpec::Form::NameThenArgs;
        c.begin = np;
        c.end = end;
        c.name_sep = s.substr(after, q - after);
        return c;
      }
  }
  // The name as text, then KEY kv_sep VALUE (the call ends where the value does, for now).
  size_t kp = s.find(kKey[i], after);
  if (kp == std::string::npos) return std::nullopt;
  size_t vp = s.find(kVal[i], kp + std::strlen(kKey[i]));
  if (vp == std::string::npos) return std::nullopt;
  Core c;
  c.form = InferredSpec::Form::KeyValue;
  c.begin = np;
  c.end = vp + std::strlen(kVal[i]);
  c.name_sep = s.substr(after, kp - after);
  c.kv_sep = s.substr(kp + std::strlen(kKey[i]), vp - kp - std::strlen(kKey[i]));
  return c;
}

// The first occurrence of call i's name (at or after `from`) that is followed by its arguments.
std::optional<Core> locate(const std::string& s, size_t from, int i) {
  for (size_t np = s.find(kName[i], from); np != std::string::npos; np = s.find(kName[i], np + 1))
    if (auto c = locate_at(s, from, np, i)) return c;
  return std::nullopt;
}

size_t common_prefix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}
size_t common_suffix(std::string_view a, std::string_view b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[a.size() - 1 - n] == b[b.size() - 1 - n]) ++n;
  return n;
}

// Marker edges: a common prefix/suffix found by diffing may run into the next marker by a few
// shared bytes ("<" of "<tool_call>" and "<|im_end|>"); edges are moved back to where a marker can
// end (after '>', ']', '}', '`' or whitespace) or begin (at '<', '[', '{' or after those).
bool ends_marker(char c) { return c == '>' || c == ']' || c == '}' || c == '`' || scan::is_json_ws(c); }
bool begins_marker(char c) { return c == '<' || c == '[' || c == '{' || scan::is_json_ws(c); }
bool cut_ok(std::string_view s, size_t at) {
  return at == 0 || at == s.size() || ends_marker(s[at - 1]) || begins_marker(s[at]);
}

std::string trim(std::string_view s) {
  while (!s.empty() && scan::is_json_ws(s.front())) s.remove_prefix(1);
  while (!s.empty() && scan::is_json_ws(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// s without its longest suffix shared with end_of_turn (the text every assistant turn ends with).
std::string_view drop_turn_end(std::string_view s, std::string_view end_of_turn) {
  size_t n = common_suffix(s, end_of_turn);
  while (n > 0 && !cut_ok(s, s.size() - n)) --n;
  return s.substr(0, s.size() - n);
}

// Tokens that end a turn (or a tool-call turn) in the common chat formats. Templates print them
// after the calls, but a model's output stops at them (they are stop tokens), so they are not part
// of a closing marker.
constexpr std::string_view kTurnEnds[] = {"<|eot_id|>", "<|eom_id|>", "<|im_end|>", "<|end|>", "</s>",
                                          "<|endoftext|>", "<end_of_turn>", "<｜end▁of▁sentence｜>", "<|return|>",
                                          "<|call|>", "<|END_OF_TURN_TOKEN|>", "<eos>", "<|eot|>"};

std::string strip_turn_end(std::string m, const Value& special_tokens) {
  std::vector<std::string> ends(std::begin(kTurnEnds), std::end(kTurnEnds));
  if (const Value* eos = special_tokens.is_dict() ? special_tokens.dict_obj().find("eos_token") : nullptr;
      eos && eos->is_str() && !eos->str().empty())
    ends.emplace_back(eos->str());
  for (bool again = true; again;) {
    again = false;
    for (const std::string& e : ends)
      if (m.size() >= e.size() && m.ends_with(e)) {
        m = trim(std::string_view(m).substr(0, m.size() - e.size()));
        again = true;
      }
  }
  return m;
}

bool has_alnum(std::string_view s) {
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c))) return true;
  return false;
}

// Parsed with the probe tools, as a server would: text values are typed by their schema only.
ParsedMessage parse_part(const InferredDialect& d, const AssistantPart& part) {
  ParseOptions o;
  o.reasoning_open = part.reasoning_open;
  o.tools = probe_tools();
  EventLog log;
  auto p = d.make_parser(o);
  p->feed(part.text, log);
  p->finish(log);
  return collect(log.events);
}

// The spec's own parser must read the probe renders back.
std::string self_check(const InferredDialect& d, const AssistantPart& part, int ncalls) {
  ParsedMessage m = parse_part(d, part);
  if (static_cast<int>(m.tool_calls.size()) != ncalls)
    return "the inferred parser reads " + std::to_string(m.tool_calls.size()) + " of " + std::to_string(ncalls) +
           " calls back";
  for (int i = 0; i < ncalls; ++i)
    if (m.tool_calls[i].name != kName[i] || m.tool_calls[i].arguments != scan::compact_json(args_of(i)))
      return "the inferred parser reads call " + std::to_string(i) + " back as " + m.tool_calls[i].name + " " +
             m.tool_calls[i].arguments;
  return "";
}

}  // namespace

std::optional<InferredDialect> infer(const TemplateProbe& probe, std::string* why) {
  auto fail = [&](std::string reason) -> std::optional<InferredDialect> {
    if (why) *why = std::move(reason);
    return std::nullopt;
  };
  Value tools = probe_tools();
  std::string err;
  auto one = probe.calls({probe_call(kId[0], kName[0], args_of(0))}, tools, &err);
  if (!one) return fail("the template raises on a tool call: " + err);
  if (!one->shows_calls) return fail("the template does not show tool calls");
  auto two = probe.calls({probe_call(kId[0], kName[0], args_of(0)), probe_call(kId[1], kName[1], args_of(1))}, tools);
  if (two && !two->shows_calls) two.reset();
  auto answer = probe.content(kAnswer);
  std::string_view turn_end, lead;
  if (answer) {
    size_t a = answer->text.find(kAnswer);
    if (a != std::string::npos) {
      turn_end = std::string_view(answer->text).substr(a + std::strlen(kAnswer));
      // Text every assistant turn starts with (a header the generation prompt did not hold): not
      // model output, so not part of a marker.
      size_t n = common_prefix(std::string_view(answer->text).substr(0, a), one->text);
      while (n > 0 && !cut_ok(one->text, n)) --n;
      lead = std::string_view(answer->text).substr(0, n);
    }
  }

  const std::string& s1 = one->text;
  auto c1 = locate(s1, 0, 0);
  if (!c1) return fail("tool call arguments are not rendered as a JSON object");
  InferredSpec spec;
  std::optional<AssistantPart> two_args_part;
  spec.form = c1->form;
  spec.name_path = c1->name_path;
  spec.args_path = c1->args_path;
  spec.id_path = c1->id_path;
  spec.name_sep = trim(c1->name_sep);
  if (spec.form == InferredSpec::Form::KeyValue) {
    // What separates two arguments: a call with both keys.
    Value both = args_of(0);
    both.dict_obj().set(Value::string(kKey[1]), Value::integer(kNumber));
    auto two_args = probe.calls({probe_call(kId[0], kName[0], both)}, tools);
    if (!two_args || !two_args->shows_calls) return fail("the template does not show a call with two arguments");
    const std::string& t = two_args->text;
    auto a = locate(t, 0, 0);
    size_t k2 = a ? t.find(kKey[1], a->end) : std::string::npos;
    if (!a || a->form != spec.form || k2 == std::string::npos || trim(a->kv_sep) != trim(c1->kv_sep))
      return fail("arguments are neither JSON nor KEY/VALUE text the same way every time");
    spec.kv_sep = trim(c1->kv_sep);
    spec.arg_sep = trim(std::string_view(t).substr(a->end, k2 - a->end));
    if (spec.name_sep.empty() || spec.kv_sep.empty() || spec.arg_sep.empty())
      return fail("KEY/VALUE arguments without markers around them");
    if (spec.kv_sep.back() == '\'' || spec.kv_sep.back() == '"')
      return fail("quoted argument values (Python call syntax or similar) are not inferred");
    two_args_part = std::move(*two_args);
  }
  std::string_view x1 = std::string_view(s1).substr(0, c1->begin), y1 = std::string_view(s1).substr(c1->end);
  if (x1.starts_with(lead)) x1.remove_prefix(lead.size());
  // An (empty) reasoning block before the calls is the reasoning parser's business.
  if (size_t t = x1.rfind("</think>"); t != std::string_view::npos) {
    x1.remove_prefix(t + 8);
    while (!x1.empty() && scan::is_json_ws(x1.front())) x1.remove_prefix(1);
  }

  std::optional<Core> d1, d2;
  if (two) {
    d1 = locate(two->text, 0, 0);
    if (d1) d2 = locate(two->text, d1->end, 1);
    if (!d1 || !d2 || d1->form != c1->form || d2->form != c1->form) two.reset();
  }
  if (two) {
    std::string_view s2 = two->text;
    std::string_view mid = s2.substr(d1->end, d2->begin - d1->end), y2 = s2.substr(d2->end);
    // mid = call_close + separator + call_open; y2 = call_close + block_close + turn end.
    size_t cc = common_prefix(mid, y2);
    while (cc > 0 && !cut_ok(mid, cc)) --cc;
    size_t co = std::min(common_suffix(mid, x1), mid.size() - cc);
    while (co > 0 && !cut_ok(mid, mid.size() - co)) --co;
    spec.call_close = trim(mid.substr(0, cc));
    spec.call_open = trim(mid.substr(mid.size() - co));
    spec.separator = trim(mid.substr(cc, mid.size() - co - cc));
    spec.block_open = trim(x1.substr(0, x1.size() - co));
    spec.block_close = trim(drop_turn_end(y2.substr(cc), turn_end));
    spec.parallel = true;
  } else {
    spec.call_open = trim(x1);
    spec.call_close = trim(drop_turn_end(y1, turn_end));
  }
  spec.block_close = strip_turn_end(spec.block_close, probe.special_tokens());
  if (spec.block_close.empty()) spec.call_close = strip_turn_end(spec.call_close, probe.special_tokens());
  std::string_view trigger = !spec.block_open.empty() ? spec.block_open : spec.call_open;
  if (spec.form == InferredSpec::Form::KeyValue && spec.call_close.empty())
    return fail("nothing marks the end of the last argument value");
  if (spec.form != InferredSpec::Form::CallObject && trigger.empty())
    return fail("nothing marks the start of a call (the tool name comes first, unmarked)");
  spec.start_only = !has_alnum(trigger) && trigger.size() <= 2;

  InferredDialect d(std::move(spec));
  if (std::string e = self_check(d, *one, 1); !e.empty()) return fail(e + " (1 call)");
  if (two_args_part) {  // a string and an integer argument, typed by the probe tools' schema
    Value both = args_of(0);
    both.dict_obj().set(Value::string(kKey[1]), Value::integer(kNumber));
    ParsedMessage m = parse_part(d, *two_args_part);
    if (m.tool_calls.size() != 1 || m.tool_calls[0].arguments != scan::compact_json(both))
      return fail("the inferred parser does not read a call with two arguments back");
  }
  if (two)
    if (std::string e = self_check(d, *two, 2); !e.empty()) return fail(e + " (2 calls)");
  return d;
}

std::optional<InferredDialect> infer(const std::string& template_source, const Value& special_tokens, std::string* why) {
  try {
    TemplateProbe probe(template_source, special_tokens);
    return infer(probe, why);
  } catch (const Error& e) {
    if (why) *why = std::string("the template does not compile: ") + e.message();
    return std::nullopt;
  }
}

}  // namespace toolchat::dialects
