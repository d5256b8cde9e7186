// The registry (list.def, one DIALECT(name) line per family), events, collect() and ids.
#include <algorithm>

#include "dialects/dialect.hpp"
#include "dialects/output_guard.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {

#define DIALECT(n) const Dialect& dialect_##n();
#include "dialects/list.def"
#undef DIALECT

namespace {
// Every family's parser runs inside the output guard (output_guard.hpp): the registry hands out
// copies of the families' Dialects whose make_parser wraps the family's own.
#define DIALECT(n) \
  std::unique_ptr<StreamParser> guarded_##n(const ParseOptions& o) { return guard_output(dialect_##n().make_parser(o), o); }
#include "dialects/list.def"
#undef DIALECT

Dialect guarded(const Dialect& d, std::unique_ptr<StreamParser> (*make)(const ParseOptions&)) {
  Dialect g = d;
  g.make_parser = make;
  return g;
}
}  // namespace

const std::vector<const Dialect*>& all() {
  static const std::vector<Dialect> dialects{
#define DIALECT(n) guarded(dialect_##n(), &guarded_##n),
#include "dialects/list.def"
#undef DIALECT
  };
  static const std::vector<const Dialect*> table = [] {
    std::vector<const Dialect*> t;
    for (const Dialect& d : dialects) t.push_back(&d);
    return t;
  }();
  return table;
}

std::string known_names() {
  std::string names;
  for (const Dialect* d : all()) names += (names.empty() ? "" : ", ") + std::string(d->name);
  return names;
}

const Dialect* find(std::string_view name) {
  for (const Dialect* d : all()) {
    if (d->name == name) return d;
    for (auto a : d->aliases)
      if (a == name) return d;
  }
  return nullptr;
}

Detection detect(const std::string& src, const chat::Capabilities* caps) {
  Detection best;
  for (const Dialect* d : all()) {
    int s = d->detect_score ? d->detect_score(src, caps) : 0;
    if (s > best.score || (s == best.score && s > 0 && best.dialect && d->name < best.dialect->name))
      best = {d, s};
  }
  return best;
}

const char* warning_kind_name(WarningKind k) {
  switch (k) {
    case WarningKind::MalformedCall: return "malformed_call";
    case WarningKind::TruncatedCall: return "truncated_call";
    case WarningKind::MissingCloseMarker: return "missing_close_marker";
    case WarningKind::UnclosedReasoning: return "unclosed_reasoning";
    case WarningKind::UnknownTool: return "unknown_tool";
    case WarningKind::InvalidArguments: return "invalid_arguments";
    case WarningKind::BackendError: return "backend_error_after_output";
  }
  return "?";
}

std::vector<Event> coalesce(const std::vector<Event>& events) {
  std::vector<Event> out;
  for (const Event& e : events) {
    if (auto* c = std::get_if<ContentDelta>(&e)) {
      if (c->text.empty()) continue;
      if (!out.empty())
        if (auto* p = std::get_if<ContentDelta>(&out.back())) { p->text += c->text; continue; }
    } else if (auto* r = std::get_if<ReasoningDelta>(&e)) {
      if (r->text.empty()) continue;
      if (!out.empty())
        if (auto* p = std::get_if<ReasoningDelta>(&out.back())) { p->text += r->text; continue; }
    } else if (auto* a = std::get_if<ToolArgsDelta>(&e)) {
      if (a->fragment.empty()) continue;
      if (!out.empty())
        if (auto* p = std::get_if<ToolArgsDelta>(&out.back()); p && p->index == a->index) {
          p->fragment += a->fragment;
          continue;
        }
    }
    out.push_back(e);
  }
  return out;
}

Value event_json(const Event& e) {
  Value o = Value::dict();
  auto& d = o.dict_obj();
  auto idx = [](size_t i) { return Value::integer(static_cast<int64_t>(i)); };
  std::visit(
      [&](const auto& ev) {
        using T = std::decay_t<decltype(ev)>;
        if constexpr (std::is_same_v<T, ContentDelta>) {
          d.set(Value::string("type"), Value::string("content"));
          d.set(Value::string("text"), Value::string(ev.text));
        } else if constexpr (std::is_same_v<T, ReasoningDelta>) {
          d.set(Value::string("type"), Value::string("reasoning"));
          d.set(Value::string("text"), Value::string(ev.text));
        } else if constexpr (std::is_same_v<T, ToolCallBegin>) {
          d.set(Value::string("type"), Value::string("tool_call_begin"));
          d.set(Value::string("index"), idx(ev.index));
          d.set(Value::string("id"), Value::string(ev.id));
          d.set(Value::string("name"), Value::string(ev.name));
        } else if constexpr (std::is_same_v<T, ToolArgsDelta>) {
          d.set(Value::string("type"), Value::string("tool_args"));
          d.set(Value::string("index"), idx(ev.index));
          d.set(Value::string("fragment"), Value::string(ev.fragment));
        } else if constexpr (std::is_same_v<T, ToolCallEnd>) {
          d.set(Value::string("type"), Value::string("tool_call_end"));
          d.set(Value::string("index"), idx(ev.index));
        } else {
          d.set(Value::string("type"), Value::string("warning"));
          d.set(Value::string("kind"), Value::string(warning_kind_name(ev.kind)));
          d.set(Value::string("detail"), Value::string(ev.detail));
          if (ev.cut_call) {
            d.set(Value::string("cut_call"), idx(*ev.cut_call));
            d.set(Value::string("cut_text"), Value::string(ev.cut_text));
          }
        }
      },
      e);
  return o;
}

namespace {
// to += from, taking from's buffer when to is empty and from may be moved.
template <class S>
void append_text(std::string& to, S&& from) {
  if (to.empty()) to = std::forward<S>(from);
  else to += from;
}

// Folds events, in order, into the whole-message result: collect() over a list, and parse_all()
// as the parser emits them (their texts moved, not copied: a long argument is one string).
class MessageFold final : public Sink {
 public:
  void on(Event&& e) override { add(std::move(e)); }
  template <class E>  // const Event& or Event&&
  void add(E&& e) {
    using Ev = std::remove_reference_t<E>;
    if (auto* c = std::get_if<ContentDelta>(&e)) append_text(m_.content, fwd<Ev>(c->text));
    else if (auto* r = std::get_if<ReasoningDelta>(&e)) append_text(m_.reasoning_content, fwd<Ev>(r->text));
    else if (auto* b = std::get_if<ToolCallBegin>(&e)) {
      if (slot_.size() <= b->index) slot_.resize(b->index + 1, SIZE_MAX);
      slot_[b->index] = m_.tool_calls.size();
      m_.tool_calls.push_back({fwd<Ev>(b->id), fwd<Ev>(b->name), ""});
    } else if (auto* a = std::get_if<ToolArgsDelta>(&e)) {
      if (a->index < slot_.size() && slot_[a->index] != SIZE_MAX)
        append_text(m_.tool_calls[slot_[a->index]].arguments, fwd<Ev>(a->fragment));
    } else if (auto* w = std::get_if<Warning>(&e)) {
      // A streamed call cut short: its source text is content, in its place in the text.
      if (w->cut_call && *w->cut_call < slot_.size() && slot_[*w->cut_call] != SIZE_MAX) {
        dropped_.resize(m_.tool_calls.size(), false);
        dropped_[slot_[*w->cut_call]] = true;
        m_.content += w->cut_text;
      }
      m_.warnings.push_back(fwd<Ev>(*w));
    }
  }
  ParsedMessage finish() {
    if (!dropped_.empty()) {
      std::vector<ParsedCall> kept;
      for (size_t i = 0; i < m_.tool_calls.size(); ++i)
        if (i >= dropped_.size() || !dropped_[i]) kept.push_back(std::move(m_.tool_calls[i]));
      m_.tool_calls = std::move(kept);
    }
    for (size_t i = 0; i < m_.tool_calls.size(); ++i)
      if (m_.tool_calls[i].id.empty()) m_.tool_calls[i].id = make_call_id(0, i);
    return std::move(m_);
  }

 private:
  // A member of the event: moved when the event is.
  template <class Ev, class T>
  static decltype(auto) fwd(T& member) {
    if constexpr (std::is_const_v<Ev>) return static_cast<const T&>(member);
    else return std::move(member);
  }
  ParsedMessage m_;
  std::vector<size_t> slot_;   // call index -> position in m_.tool_calls
  std::vector<bool> dropped_;  // positions of calls cut short
};
}  // namespace

ParsedMessage collect(const std::vector<Event>& events) {
  MessageFold fold;
  for (const Event& e : events) fold.add(e);
  return fold.finish();
}

ParsedMessage parse_all(const Dialect& d, std::string_view text, const ParseOptions& opts) {
  MessageFold fold;
  auto p = d.make_parser(opts);
  p->feed(text, fold);
  p->finish(fold);
  return fold.finish();
}

Value ParsedMessage::to_json(bool with_warnings) const {
  Value o = Value::dict();
  auto& d = o.dict_obj();
  d.set(Value::string("content"), content.empty() && !tool_calls.empty() ? Value::none() : Value::string(content));
  d.set(Value::string("reasoning_content"), reasoning_content.empty() ? Value::none() : Value::string(reasoning_content));
  std::vector<Value> calls;
  for (const ParsedCall& c : tool_calls) {
    Value f = DictBuilder().add("name", c.name).add("arguments", c.arguments).build();
    calls.push_back(DictBuilder().add("id", c.id).add("type", "function").add("function", f).build());
  }
  d.set(Value::string("tool_calls"), Value::list(std::move(calls)));
  if (with_warnings) {
    std::vector<Value> ws;
    for (const Warning& w : warnings) {
      ws.push_back(DictBuilder().add("kind", warning_kind_name(w.kind)).add("detail", w.detail).build());
    }
    d.set(Value::string("warnings"), Value::list(std::move(ws)));
  }
  return o;
}

void EventLog::on(Event&& e) { events.push_back(std::move(e)); }

namespace {
uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
}  // namespace

namespace {
// Writes len alphanumerics to out. One SplitMix64 output is read as a binary fraction and yields 8
// base-62 digits (48 of its 64 bits), each by one widening multiply: an id per call is on the
// parse hot path of JSON-call families, and a mix per character cost 6% of a llama3_json parse.
void fill_alnum(char* out, uint64_t seed, size_t n, size_t len) {
  static constexpr char kAlnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const uint64_t base = splitmix(seed ^ splitmix(static_cast<uint64_t>(n) + 1));
  for (size_t i = 0; i < len; i += 8) {
    uint64_t frac = splitmix(base + i * 0x9E3779B97F4A7C15ull);
    for (size_t k = i; k < len && k < i + 8; ++k) {
      unsigned __int128 m = static_cast<unsigned __int128>(frac) * 62u;
      out[k] = kAlnum[static_cast<uint64_t>(m >> 64)];
      frac = static_cast<uint64_t>(m);
    }
  }
}
}  // namespace

std::string make_alnum_id(uint64_t seed, size_t n, size_t len) {
  std::string out(len, '\0');
  fill_alnum(out.data(), seed, n, len);
  return out;
}

std::string make_call_id(uint64_t seed, size_t n) {
  std::string out = "call_________________________";  // "call_" + 24, filled in place
  fill_alnum(out.data() + 5, seed, n, 24);
  return out;
}

}  // namespace toolchat::dialects
