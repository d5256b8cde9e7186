#include "dialects/resolve.hpp"

namespace toolchat::dialects {

namespace {
void put(Value& d, std::string_view k, Value v) { d.dict_obj().set(Value::string(k), std::move(v)); }
}  // namespace

std::string Resolution::name() const { return inferred ? "inferred" : registered ? std::string(registered->name) : ""; }

ParserFactory Resolution::factory() const {
  if (inferred) return inferred->factory();
  return parser_factory(*registered);
}

Value Resolution::to_json() const {
  Value o = Value::dict();
  put(o, "name", Value::string(name()));
  bool fallback = !inferred && registered && registered->name == "generic_json";
  put(o, "source", Value::string(inferred ? "inferred" : fallback ? "fallback" : "registered"));
  if (!inferred) put(o, "score", Value::integer(score));
  if (inferred) put(o, "spec", inferred->spec().to_json());
  if (!not_inferred.empty()) put(o, "not_inferred", Value::string(not_inferred));
  return o;
}

namespace {

// A registered family claims the template when it scores above the generic_json fallback.
bool claimed(const Detection& d) { return d.dialect && d.dialect->name != "generic_json"; }

Resolution registered(const Detection& d) {
  Resolution r;
  r.registered = d.dialect;
  r.score = d.score;
  return r;
}

// Inferred from the probe's renders, else the generic_json fallback.
Resolution inferred_or_fallback(const Detection& d, const TemplateProbe& probe) {
  Resolution r;
  r.inferred = infer(probe, &r.not_inferred);
  if (r.inferred) return r;
  r.registered = find("generic_json");
  r.score = d.dialect ? d.score : 0;
  return r;
}

}  // namespace

Resolution resolve(const std::string& src, const TemplateProbe& probe, const chat::Capabilities* caps,
                   bool infer_only) {
  Detection d = detect(src, caps);
  if (!infer_only && claimed(d)) return registered(d);
  return inferred_or_fallback(d, probe);
}

Resolution resolve(const std::string& src, const Value& special_tokens) {
  // The probe (its capability probe is some twenty renders) only when no family claims the
  // template; compiled either way, so that a template that does not compile is an error here.
  Detection d = detect(src, nullptr);
  if (claimed(d)) {
    jinja::Template::compile(src);
    return registered(d);
  }
  TemplateProbe probe(src, special_tokens);
  return inferred_or_fallback(d, probe);
}

namespace {
Value report(const chat::Capabilities& caps, const Resolution& r) {
  Value out = chat::detect_report(caps);
  put(out, "dialect", r.to_json());
  return out;
}
}  // namespace

TemplateDialect dialect_for_template(const std::string& src, const Value& special_tokens) {
  Resolution r = resolve(src, special_tokens);
  return {r.name(), r.factory()};
}

Value detect_report(const std::string& src, const Value& special_tokens) {
  TemplateProbe probe(src, special_tokens);
  return report(probe.capabilities(), resolve(src, probe, &probe.capabilities()));
}

Value check_report(const std::string& src, const Value& special_tokens, bool* ok, bool infer_only) {
  TemplateProbe probe(src, special_tokens);
  const chat::Capabilities& caps = probe.capabilities();
  Resolution r = resolve(src, probe, &caps, infer_only);
  Value out = report(caps, r);
  *ok = true;
  if (!caps.supports_tool_calls) {
    put(out, "round_trip_skipped",
        Value::string("the template does not render tool calls (polyfills show them as JSON text)"));
  } else {
    auto cases = round_trip(probe, r.factory());
    *ok = round_trip_ok(cases);
    put(out, "round_trip", round_trip_json(cases));
  }
  put(out, "ok", Value::boolean(*ok));
  return out;
}

}  // namespace toolchat::dialects
