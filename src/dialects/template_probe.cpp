#include "dialects/template_probe.hpp"

#include <algorithm>

#include "chat/conv_util.hpp"
#include "chat/render_case.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {

namespace {

void put(Value& d, std::string_view k, Value v) { d.dict_obj().set(Value::string(k), std::move(v)); }

Value message(std::string_view role, Value content) {
  Value m = Value::dict();
  put(m, "role", Value::string(role));
  put(m, "content", std::move(content));
  return m;
}

// A string shows when it appears as is or JSON-escaped (templates that tojson the arguments).
bool shows_text(const std::string& text, const std::string& s) {
  if (text.find(s) != std::string::npos) return true;
  std::string esc = json::dumps(Value::string(s));
  return text.find(esc.substr(1, esc.size() - 2)) != std::string::npos;
}

bool shows_value(const std::string& text, const Value& v) {
  if (v.is_str()) return shows_text(text, std::string(v.str()));
  if (v.is_dict()) {
    for (const auto& [k, x] : v.dict_obj().entries)
      if (!shows_value(text, x)) return false;
    return true;
  }
  if (v.is_list()) {
    for (const Value& x : v.items())
      if (!shows_value(text, x)) return false;
    return true;
  }
  return text.find(json::dumps(v)) != std::string::npos;
}

constexpr std::string_view kUserText = "Weather?";

const Value& function_of(const Value& call) { return *call.dict_obj().find("function"); }

}  // namespace

Value probe_call(std::string_view id, std::string_view name, const Value& args) {
  Value f = Value::dict();
  put(f, "name", Value::string(name));
  put(f, "arguments", args);
  Value c = Value::dict();
  put(c, "id", Value::string(id));
  put(c, "type", Value::string("function"));
  put(c, "function", f);
  return c;
}

Value probe_tool(std::string_view name, std::string_view description, const Value& properties) {
  Value params = Value::dict();
  put(params, "type", Value::string("object"));
  put(params, "properties", properties);
  std::vector<Value> req;
  for (const auto& [k, v] : properties.dict_obj().entries) req.push_back(k);
  put(params, "required", Value::list(std::move(req)));
  Value f = Value::dict();
  put(f, "name", Value::string(name));
  put(f, "description", Value::string(description));
  put(f, "parameters", params);
  Value t = Value::dict();
  put(t, "type", Value::string("function"));
  put(t, "function", f);
  return t;
}

TemplateProbe::TemplateProbe(std::string_view source, Value special_tokens)
    : t_(std::make_shared<jinja::Template>(jinja::Template::compile(source))), special_(std::move(special_tokens)) {
  if (!special_.is_dict()) special_ = Value::dict();
  caps_ = chat::detect_capabilities(*t_, special_);
}

Value TemplateProbe::content_value(std::string_view text) const {
  if (!caps_.requires_typed_content) return Value::string(text);
  Value part = Value::dict();
  put(part, "type", Value::string("text"));
  put(part, "text", Value::string(text));
  return Value::list({part});
}

std::optional<std::string> TemplateProbe::render(std::vector<Value> messages, const Value& tools, bool gen,
                                                 std::string* error) const {
  Value ctx = Value::dict();
  put(ctx, "messages", Value::list(std::move(messages)));
  if (tools.is_list()) put(ctx, "tools", tools);
  put(ctx, "add_generation_prompt", Value::boolean(gen));
  chat::CaseResult r;
  try {
    r = chat::render_prepared(*t_, chat::prepare_case(ctx, special_), jinja::RenderOptions{});
  } catch (const Error& e) {
    r.ok = false;
    r.error = error_kind_name(e.kind());
    r.message = e.message();
  }
  if (r.ok) return std::move(r.text);
  if (error && error->empty()) *error = r.error + ": " + r.message;
  return std::nullopt;
}

// The assistant part starts where the prompt with a generation prompt stops matching. When the
// generation prompt is not a prefix of the render (Mistral templates move the tools to the last
// user turn; a forced "<think>\n" that history turns do not repeat), the two are aligned after the
// user's message instead, and the cut goes back to the last '\n' or '>' both share, so that a
// marker is never cut in half.
AssistantPart TemplateProbe::cut(const std::string& full, const Value& tools) const {
  std::string gen = render({message("user", content_value(kUserText))}, tools, true, nullptr).value_or("");
  size_t g = 0, f = 0;
  if (!full.starts_with(gen)) {
    size_t ug = gen.rfind(kUserText), uf = full.rfind(kUserText);
    if (ug != std::string::npos && uf != std::string::npos) {
      g = ug + kUserText.size();
      f = uf + kUserText.size();
    }
  }
  size_t common = 0;
  while (g + common < gen.size() && f + common < full.size() && gen[g + common] == full[f + common]) ++common;
  bool whole_gen = g + common == gen.size();
  if (!whole_gen)
    while (common > 0 && gen[g + common - 1] != '\n' && gen[g + common - 1] != '>') --common;
  AssistantPart p;
  p.text = full.substr(f + common);
  std::string_view gv = std::string_view(gen).substr(0, g + common);
  p.reasoning_open = whole_gen && prompt_opens_reasoning(gv);
  return p;
}

namespace {
// JSON with every object's keys sorted: templates that sort arguments (Gemma 4's dictsort) show the
// same object in another key order, which is not a parse error.
std::string sorted_json(const Value& v) {
  if (v.is_dict()) {
    std::vector<std::pair<std::string, const Value*>> kv;
    for (const auto& [k, x] : v.dict_obj().entries) kv.emplace_back(k.is_str() ? k.str() : scan::compact_json(k), &x);
    std::sort(kv.begin(), kv.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string out = "{";
    for (const auto& [k, x] : kv) {
      if (out.size() > 1) out += ',';
      out += scan::compact_json(Value::string(k)) + ":" + sorted_json(*x);
    }
    return out + "}";
  }
  if (v.is_list()) {
    std::string out = "[";
    for (const Value& x : v.items()) {
      if (out.size() > 1) out += ',';
      out += sorted_json(x);
    }
    return out + "]";
  }
  return scan::compact_json(v);
}
bool same_object(const std::string& parsed, const Value& rendered) {
  auto v = json_value(parsed);
  return v && sorted_json(*v) == sorted_json(rendered);
}
}  // namespace

bool prompt_opens_reasoning(std::string_view prompt) {
  size_t end = prompt.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return false;
  std::string_view t = prompt.substr(0, end + 1);
  for (std::string_view opener : {"<think>", "<mm:think>", "<|open|>think<|sep|>", "Here are my reasoning steps:"})
    if (t.ends_with(opener)) return true;
  return false;
}

std::optional<AssistantPart> TemplateProbe::calls(const std::vector<Value>& calls, const Value& tools,
                                                  std::string* error) const {
  std::vector<Value> given;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Value& f = function_of(calls[i]);
    std::string_view name = f.dict_obj().find("name")->str();
    Value args = *f.dict_obj().find("arguments");
    if (caps_.requires_string_arguments) {
      json::DumpOptions o;
      o.ensure_ascii = false;
      args = Value::string(json::dumps(args, o));
    }
    std::string id = caps_.names_in_call_ids ? chat::conv::named_call_id(name, i)
                                             : std::string(calls[i].dict_obj().find("id")->str());
    given.push_back(probe_call(id, name, args));
  }
  // Content null where the capability probe saw calls render with it; else "" (a template that
  // showed no call there may still show calls with tools declared, and "" raises in fewer templates).
  bool null_content = caps_.supports_tool_calls && !caps_.requires_non_null_content;
  Value a = message("assistant", null_content ? Value::none() : Value::string(""));
  put(a, "tool_calls", Value::list(std::move(given)));
  auto full = render({message("user", content_value(kUserText)), a}, tools, false, error);
  if (!full) return std::nullopt;
  AssistantPart p = cut(*full, tools);
  p.names_in_ids = caps_.names_in_call_ids;
  p.shows_calls = true;
  for (const Value& c : calls) {
    const Value& f = function_of(c);
    if (!shows_text(p.text, std::string(f.dict_obj().find("name")->str())) ||
        !shows_value(p.text, *f.dict_obj().find("arguments")))
      p.shows_calls = false;
    if (p.shows_calls) ++p.calls_shown;
  }
  return p;
}

std::optional<AssistantPart> TemplateProbe::content(std::string_view text, std::string* error) const {
  auto full = render({message("user", Value::string(kUserText)), message("assistant", content_value(text))},
                     Value::none(), false, error);
  if (!full) return std::nullopt;
  return cut(*full, Value::none());
}

ParserFactory parser_factory(const Dialect& d) {
  auto make = d.make_parser;
  return [make](const ParseOptions& o) { return make(o); };
}

std::vector<RoundTripCase> round_trip(const TemplateProbe& probe, const ParserFactory& make) {
  Value paris = Value::dict();
  put(paris, "location", Value::string("Paris, France"));
  Value tokyo = Value::dict();
  put(tokyo, "location", Value::string("Tōkyō"));
  put(tokyo, "days", Value::integer(3));
  Value props = json::parse(R"({"location": {"type": "string"}, "days": {"type": "integer"}})");
  Value tools = Value::list({probe_tool("get_weather", "Weather", props)});
  std::vector<RoundTripCase> out;
  for (size_t n = 1; n <= 2; ++n) {
    std::vector<Value> calls{probe_call("abcDEF123", "get_weather", paris)};
    if (n == 2) calls.push_back(probe_call("xyzXYZ789", "get_weather", tokyo));
    RoundTripCase rc;
    rc.calls = n;
    std::string err;
    auto part = probe.calls(calls, tools, &err);
    if (!part) {
      rc.outcome = n == 1 ? RoundTripCase::Outcome::Failed : RoundTripCase::Outcome::Refused;
      rc.detail = "the template raises: " + err;
      out.push_back(std::move(rc));
      continue;
    }
    rc.rendered = part->text;
    rc.names_in_ids = part->names_in_ids;
    ParseOptions o;
    o.reasoning_open = part->reasoning_open;
    o.tools = tools;  // as a server would: formats with untyped argument text need the schema
    EventLog log;
    auto p = make(o);
    p->feed(part->text, log);
    p->finish(log);
    rc.parsed = collect(log.events);
    // A template that shows only the first calls of a message: the shown ones must parse back.
    size_t shown = part->shows_calls ? n : part->calls_shown;
    if (shown == 0) {
      rc.detail = "the template renders no calls for this conversation";
    } else if (rc.parsed.tool_calls.size() != shown) {
      rc.detail = "parsed " + std::to_string(rc.parsed.tool_calls.size()) + " calls, rendered " + std::to_string(shown);
    } else {
      for (size_t i = 0; i < shown && rc.detail.empty(); ++i) {
        const Value& f = function_of(calls[i]);
        const ParsedCall& got = rc.parsed.tool_calls[i];
        std::string want = scan::compact_json(*f.dict_obj().find("arguments"));
        if (got.name != "get_weather") rc.detail = "call " + std::to_string(i) + ": name '" + got.name + "'";
        else if (got.arguments != want && !same_object(got.arguments, *f.dict_obj().find("arguments")))
          rc.detail = "call " + std::to_string(i) + ": arguments " + got.arguments + ", rendered " + want;
      }
    }
    rc.outcome = rc.detail.empty() ? RoundTripCase::Outcome::Ok : RoundTripCase::Outcome::Failed;
    if (rc.outcome == RoundTripCase::Outcome::Ok && shown < n) {
      rc.outcome = RoundTripCase::Outcome::Limited;
      rc.detail = "the template shows only the first " + std::to_string(shown) + " of " + std::to_string(n) +
                  " calls of a message (a limit of the template; the calls it shows parse back)";
    }
    out.push_back(std::move(rc));
  }
  return out;
}

bool round_trip_ok(const std::vector<RoundTripCase>& cases) {
  for (const auto& c : cases)
    if (c.outcome == RoundTripCase::Outcome::Failed) return false;
  return true;
}

Value round_trip_json(const std::vector<RoundTripCase>& cases) {
  std::vector<Value> out;
  for (const auto& c : cases) {
    Value o = Value::dict();
    put(o, "calls", Value::integer(static_cast<int64_t>(c.calls)));
    const char* outcome = c.outcome == RoundTripCase::Outcome::Ok        ? "ok"
                          : c.outcome == RoundTripCase::Outcome::Failed  ? "failed"
                          : c.outcome == RoundTripCase::Outcome::Limited ? "template_limit"
                                                                         : "refused";
    put(o, "outcome", Value::string(outcome));
    if (!c.detail.empty()) put(o, "detail", Value::string(c.detail));
    if (c.names_in_ids) put(o, "names_in_call_ids", Value::boolean(true));
    if (c.outcome != RoundTripCase::Outcome::Refused) {
      put(o, "rendered", Value::string(c.rendered));
      put(o, "parsed", c.parsed.to_json(!c.parsed.warnings.empty()));
    }
    out.push_back(std::move(o));
  }
  return Value::list(std::move(out));
}

}  // namespace toolchat::dialects
