// Rendering prefixes of a conversation and diffing them into message runs and train spans
// (see labeler.hpp for the rules).
#include "convert/labeler.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "chat/caps.hpp"
#include "chat/content_marks.hpp"
#include "chat/render_case.hpp"
#include "chat/template_source.hpp"
#include "convert/format_util.hpp"
#include "convert/label_audit.hpp"
#include "convert/label_decide.hpp"
#include "convert/label_memo.hpp"
#include "convert/line_memo.hpp"
#include "convert/render_cache.hpp"
#include "value/json.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::convert {

using detail::field;

// "{%", an optional "-" or "+", spaces, "generation", spaces, an optional "-" or "+", "%}" (spaces
// as the regex \s of std::regex reads them in ASCII). Scanned by hand: compiling the regex cost
// about 1.3 million instructions per process, as much as converting sixty rows of a known shape.
bool has_generation_tag(const std::string& source) {
  const std::string_view s = source;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  for (size_t at = s.find("{%"); at != std::string_view::npos; at = s.find("{%", at + 1)) {
    size_t p = at + 2;
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) ++p;
    while (p < s.size() && space(s[p])) ++p;
    if (s.compare(p, 10, "generation") != 0) continue;
    p += 10;
    while (p < s.size() && space(s[p])) ++p;
    if (p < s.size() && (s[p] == '-' || s[p] == '+')) ++p;
    if (s.compare(p, 2, "%}") == 0) return true;
  }
  return false;
}

namespace {

struct Compiled {
  std::unique_ptr<jinja::Template> t;
  std::optional<Error> error;
  bool generation = false;
  std::optional<chat::Capabilities> caps;
  std::unique_ptr<RenderCache> cache;  // none: every render is made (render_cache.hpp says when)
};

// Length of the common prefix, backed off to a UTF-8 character boundary.
size_t common_prefix(std::string_view a, std::string_view b, Audit* au = nullptr) {
  size_t n = std::min(a.size(), b.size()), i = 0;
#if defined(__SSE2__)
  while (i + 16 <= n) {  // sixteen bytes at a time: the texts share most of their length
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.data() + i));
    const __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.data() + i));
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) != 0xFFFF) break;
    i += 16;
  }
#endif
  while (i + 8 <= n) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) break;
    i += 8;
  }
  while (i < n && a[i] == b[i]) ++i;
  if (au && i < n) au->differ_at(a, i, b, i);
  auto continuation = [](std::string_view s, size_t at) {
    return at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80;
  };
  while (i > 0 && (continuation(a, i) || continuation(b, i))) --i;
  return i;
}

size_t cp_count(std::string_view s) { return uni::count_code_points(s); }

// A short quote of text around a byte offset, for mismatch reasons.
std::string quote_at(std::string_view s, size_t at) {
  size_t end = std::min(s.size(), at + 24);
  while (end < s.size() && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) ++end;
  return string_repr(s.substr(at, end - at));
}

std::string where(std::string_view a, std::string_view b) {
  size_t at = common_prefix(a, b);
  return "at char " + std::to_string(cp_count(std::string_view(a).substr(0, at))) + ": " + quote_at(a, at) + " vs " +
         quote_at(b, at);
}

// where(a, b) when the reason carries its details (LabelOptions::reason_details), else nothing.
std::string where_if(bool details, std::string_view a, std::string_view b) { return details ? where(a, b) : ""; }

size_t trimmed_end(const std::string& s, size_t begin, size_t end) {
  size_t e = end;
  while (e > begin && (s[e - 1] == ' ' || s[e - 1] == '\n' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return e > begin ? e : end;
}

// The common prefix, not ending inside a marker both texts begin differently ("<|user|>" and
// "<|assistant|>" share "<|"): backed off over trailing marker-opening characters.
size_t agreed_prefix(std::string_view a, std::string_view b, Audit* au = nullptr) {
  size_t i = common_prefix(a, b, au);
  if (i == a.size() || i == b.size()) return i;
  while (i > 0 && std::string_view("<[{|").find(a[i - 1]) != std::string_view::npos) --i;
  if (au)  // a text's last character, when it is one of these, would be backed off over too
    if (const Audit::MarkerAt* m = au->ending(a, i)) au->conditions.push_back({m->text, m->shown, "", "<[{|"});
  return i;
}

// Where turn i's target ends in `upto` (the conversation ending with it; p = the prompt's
// length): trailing whitespace is left out, and so is text the template adds after the last
// message whatever it is (phi-4-mini's "<|assistant|>"): the full text shows the turn without
// it and ends with it. Returns the end to compare with the full text.
// With an audit, only where the text starts as `upto` does up to p (else the offset p means
// different places in the two).
size_t target_end(const std::string& upto, const std::string& text, size_t p, Audit* au = nullptr) {
  size_t e = trimmed_end(upto, p, upto.size());
  audit_compare(au, text, p, upto, p, e - p);
  if (text.size() >= e && text.compare(p, e - p, upto, p, e - p) == 0) return e;
  if (text.size() <= p) return e;
  size_t l = p + agreed_prefix(std::string_view(upto).substr(p, e - p), std::string_view(text).substr(p), au);
  std::string_view tail = std::string_view(upto).substr(l, e - l);
  size_t te = trimmed_end(text, 0, text.size());
  if (au && l > p && !tail.empty()) audit_suffix(au, std::string_view(text).substr(0, te), tail);
  if (l > p && !tail.empty() && te >= tail.size() && std::string_view(text).substr(te - tail.size(), tail.size()) == tail)
    return l;
  return e;
}

// Byte offsets of code point offsets (sorted or not) in s.
size_t byte_of_cp(const std::string& s, size_t cp) {
  size_t count = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (count == cp) return i;
      ++count;
    }
  }
  return s.size();
}

}  // namespace

std::string dropped_from_turn(const Value& message, std::string_view target) {
  Value one = detail::make_dict({{"messages", Value::list({message})}});
  for (const auto& w : chat::find_dropped(one, target))
    if (w.field.rfind("reasoning", 0) != 0) return w.field;
  return "";
}

namespace {

struct TurnOutcome {
  TurnCheck check;
  Interval target{0, 0};
  bool rewritten = false;  // served as the last turn, but later turns change how it renders
};

// With {% generation %}: the turn's spans (starting in its run [lo, hi)) must start where the
// prompt ends, the prompt being a prefix of the text.
TurnOutcome check_generation_turn(const std::string& text, const std::string& prompt, const std::vector<Interval>& gen,
                                  size_t lo, size_t hi, bool details) {
  TurnOutcome t;
  std::vector<Interval> mine;
  for (const auto& g : gen)
    if (g.begin >= lo && g.begin < hi && g.end > g.begin) mine.push_back(g);
  if (mine.empty()) {
    t.check.reason = "no {% generation %} span in this turn";
  } else if (text.compare(0, prompt.size(), prompt) != 0) {
    t.check.reason = "the prompt for this turn is not a prefix of the text, " + where_if(details, prompt, text);
  } else if (prompt.size() != mine.front().begin) {
    t.check.reason = "the generation span starts at char " +
                     std::to_string(cp_count(std::string_view(text).substr(0, mine.front().begin))) +
                     " but the prompt ends at char " + std::to_string(cp_count(prompt));
  } else {
    t.target = {mine.front().begin, mine.back().end};
    t.check.served = true;
  }
  return t;
}

// Without: the target is what `upto` (the conversation ending with the turn) adds to the prompt;
// prompt + target must be a prefix of the text and the target must show the message.
TurnOutcome check_diff_turn(const std::string& text, const std::string& prompt, const std::string& upto,
                            const Value& message, bool details, Audit* au = nullptr, std::string* dropped_out = nullptr) {
  TurnOutcome t;
  std::string& reason = t.check.reason;
  audit_compare(au, upto, 0, prompt, 0, prompt.size());
  if (upto.compare(0, prompt.size(), prompt) != 0) {
    reason = "the generation prompt is not how this turn starts, " + where_if(details, prompt, upto);
    return t;
  }
  size_t p = prompt.size();
  audit_compare(au, text, 0, prompt, 0, p);
  const bool text_starts = text.compare(0, p, prompt) == 0;
  // Without the text starting as the prompt, e only picks whether the turn counts as rewritten
  // (split rows, which a memo never has): not audited there.
  size_t e = target_end(upto, text, p, text_starts ? au : nullptr);
  if (e == p) {
    reason = "the turn renders no text after the generation prompt (nothing of it shown; see --polyfill)";
    return t;
  }
  std::string dropped = dropped_from_turn(message, std::string_view(upto).substr(p, e - p));
  if (!text_starts) {
    reason = "later turns change how earlier ones render (the prompt for this turn is not a prefix of the text, " +
             where_if(details, prompt, text) + ")";
    t.rewritten = dropped.empty();
  } else if (text.compare(p, e - p, upto, p, e - p) != 0) {
    reason = "the turn renders differently once later turns follow, " +
             where_if(details, std::string_view(upto).substr(0, e), std::string_view(text).substr(0, std::min(text.size(), e)));
    t.rewritten = dropped.empty();
  } else {
    t.target = {p, e};  // where `dropped` was looked for (the memo looks again per conversation)
    if (dropped_out) *dropped_out = dropped;
    if (!dropped.empty()) {
      reason = "the template does not show this turn's " + dropped + " (see --polyfill)";
    } else {
      t.check.served = true;
    }
  }
  return t;
}

// Message runs [bounds[k], bounds[k+1]) cut at the train intervals.
std::vector<Span> build_spans(const std::vector<std::string>& roles,
                              const std::vector<size_t>& bounds, std::vector<Interval> train) {
  std::sort(train.begin(), train.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Span> out;
  size_t first = 0;  // runs of one message merge; runs of different messages do not
  auto emit = [&](const std::string& role, bool tr, size_t a, size_t b) {
    if (a >= b) return;
    if (out.size() > first && out.back().train == tr && out.back().end == a) {
      out.back().end = b;
      return;
    }
    out.push_back(Span{role, tr, a, b});
  };
  size_t ti = 0;
  for (size_t k = 0; k + 1 < bounds.size(); ++k) {
    size_t pos = bounds[k], stop = bounds[k + 1];
    const std::string& role = k < roles.size() ? roles[k] : roles.back();
    first = out.size();
    while (pos < stop) {
      while (ti < train.size() && train[ti].end <= pos) ++ti;
      if (ti < train.size() && train[ti].begin <= pos) {
        size_t e = std::min(stop, train[ti].end);
        emit(role, true, pos, e);
        pos = e;
      } else {
        size_t e = ti < train.size() ? std::min(stop, train[ti].begin) : stop;
        emit(role, false, pos, e);
        pos = e;
      }
    }
  }
  return out;
}

// The row of a turn the full text cannot train: the conversation ending with turn i (`upto`),
// trained on what follows its prompt; none when nothing does. prefix[k]: the first k messages'
// render (k = 1..i).
std::optional<Row> split_row(const std::vector<std::string>& roles, const std::vector<chat::CaseResult>& prefix,
                             const std::string& prompt, const std::string& upto, size_t i) {
  size_t p = prompt.size(), e = trimmed_end(upto, p, upto.size());
  if (e <= p) return std::nullopt;
  std::vector<size_t> b(i + 2, 0);
  for (size_t k = 1; k <= i; ++k)
    b[k] = prefix[k].ok ? std::max(b[k - 1], agreed_prefix(prefix[k].text, upto)) : b[k - 1];
  b[i] = std::min(b[i], p);
  b[i + 1] = upto.size();
  return Row{upto, build_spans(roles, b, {{p, e}}), {}, 0, {}};
}

}  // namespace

struct Labeler::Impl {
  chat::TemplateSet set;
  LabelOptions opts;
  std::map<std::string, Compiled> compiled;

  Compiled& get(const std::string& name) {
    auto it = compiled.find(name);
    if (it != compiled.end()) return it->second;
    Compiled c;
    const std::string& src = *set.find(name);
    try {
      c.t = std::make_unique<jinja::Template>(jinja::Template::compile(src, set.origin(name)));
      c.generation = has_generation_tag(src);
      if (opts.polyfills) c.caps = chat::detect_capabilities(*c.t, set.special_tokens, opts.clock);
      if (opts.reuse_renders && !c.generation && opts.clock.fixed_now) c.cache = std::make_unique<RenderCache>(*c.t);
    } catch (const Error& e) {
      c.error = e;
    }
    return compiled.emplace(name, std::move(c)).first->second;
  }

  // The context without the messages and the flags each render sets.
  static DictBuilder variables_of(const Value& ctx) {
    DictBuilder v;
    for (const auto& [k, val] : ctx.dict_obj().entries)
      if (!(k.is_str() && (k.str() == "messages" || k.str() == "add_generation_prompt" || k.str() == "continue_final_message")))
        v.add(k, val);
    return v;
  }

  chat::CaseResult render(const Compiled& c, const Value& ctx, const Value& messages, size_t count, bool agp) {
    DictBuilder v = variables_of(ctx);
    const auto& all = messages.items();
    std::vector<Value> part(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(std::min(count, all.size())));
    v.add("messages", Value::list(std::move(part))).add("add_generation_prompt", agp);
    chat::PreparedCase pc = chat::prepare_case(v.build(), set.special_tokens);
    chat::CaseResult r = chat::render_prepared(*c.t, pc, opts.clock);
    // Out of memory says nothing about this conversation (another machine renders it): no verdict.
    if (!r.ok && r.error == "MemoryError") throw Error(ErrorKind::MemoryError, "out of memory");
    return r;
  }

  // The renders labeling needs, in the order of `keys`; the first one (the whole conversation)
  // failing leaves the rest out.
  // Into `out` (the renders of the row before: their buffers are reused).
  void renders(std::vector<chat::CaseResult>& out, Compiled& c, const Value& ctx, const Value& messages,
               const std::vector<RenderKey>& keys, std::vector<TextRanges>* ranges, std::string* first_json,
               RenderHit* hit = nullptr) {
    RenderFn fn = [&](const Value& m, size_t count, bool agp) { return render(c, ctx, m, count, agp); };
    if (c.cache) return c.cache->renders(out, messages, variables_of(ctx).build(), keys, fn, ranges, first_json, hit);
    out.clear();
    for (const RenderKey& k : keys) {
      out.push_back(fn(messages, k.count, k.generation_prompt));
      if (out.size() == 1 && !out.front().ok) break;
    }
  }
  std::vector<chat::CaseResult> rendered;  // label's renders, kept from row to row for their buffers
  KnownRow last_known;                     // the last conversation labelled from a memo (LabelerAccess)
  const RenderCache* last_failed_hit = nullptr;  // ... or refused by its shape's kept failure
  std::unique_ptr<LinePath> line_path;     // rows of known shapes read from their lines (line_memo.hpp)

  Conversation prepare(const Sample& sample) {
    const LabelOptions& o = opts;
    Conversation cv;
    cv.ctx = detail::make_dict({});
    for (const auto& [k, v] : sample.context.dict_obj().entries) cv.ctx.dict_obj().set(k, v);
    for (const auto& [k, v] : o.kwargs.dict_obj().entries) cv.ctx.dict_obj().set(k, v);
    const Value* tools = field(cv.ctx, "tools");
    {  // the selected template's name (select_template returns its source)
      const std::string& src = chat::select_template(set, o.template_name, tools && !tools->is_none());
      for (const auto& [n, s] : set.templates)
        if (&s == &src) cv.template_name = n;
    }
    Compiled& c = get(cv.template_name);
    if (!c.t) throw *c.error;
    cv.loss = sample.loss;
    if (c.caps) {
      size_t before = field(cv.ctx, "messages")->items().size();
      cv.ctx = chat::apply_polyfills(cv.ctx, *c.caps, *o.polyfills);
      // Polyfills that merge or split messages leave no message-by-message correspondence.
      if (field(cv.ctx, "messages")->items().size() != before)
        cv.loss.assign(field(cv.ctx, "messages")->items().size(), std::nullopt);
    }
    cv.messages = *field(cv.ctx, "messages");
    const size_t n = cv.messages.items().size();
    if (n == 0) throw Error(ErrorKind::ValueError, "messages: empty conversation");
    cv.loss.resize(n);
    for (const auto& m : cv.messages.items()) {
      const Value* r = field(m, "role");
      cv.roles.push_back(r && r->is_str() ? std::string(r->str()) : "?");
    }
    return cv;
  }
};

Labeler::Labeler(const std::string& model_path, LabelOptions opts) : impl_(std::make_unique<Impl>()) {
  impl_->set = chat::load_templates(model_path);
  impl_->opts = std::move(opts);
  // Values are reference-counted without atomics: a labeler owns its own copies, so that
  // labelers on different threads share nothing.
  impl_->opts.kwargs = json::parse(json::dumps(impl_->opts.kwargs));
  impl_->opts.special_tokens = json::parse(json::dumps(impl_->opts.special_tokens));
  if (impl_->opts.template_name && !impl_->set.find(*impl_->opts.template_name))
    chat::select_template(impl_->set, impl_->opts.template_name, false);  // throws, naming the templates there are
  if (impl_->opts.special_tokens.is_dict())
    for (const auto& [k, v] : impl_->opts.special_tokens.dict_obj().entries) impl_->set.special_tokens.dict_obj().set(k, v);
}

Labeler::~Labeler() = default;

namespace {

std::string failure(const chat::CaseResult& r) { return r.error + ": " + r.message; }

}  // namespace

Labeled Labeler::label(const Sample& sample) {
  Labeled out;
  std::optional<Error> failed;
  if (!label(sample, out, failed)) throw *failed;
  return out;
}

namespace {

// The renders a conversation's labeling needs: the whole conversation, every prefix R_k
// (k = 1..n-1), every assistant turn's prompt; prompt_of[i]: turn i's prompt's place.
std::vector<RenderKey> label_keys(const std::vector<std::string>& roles, std::vector<size_t>& prompt_of) {
  const size_t n = roles.size();
  std::vector<RenderKey> keys{{n, false}};
  for (size_t k = 1; k < n; ++k) keys.push_back({k, false});
  prompt_of.assign(n, 0);
  for (size_t i = 0; i < n; ++i)
    if (roles[i] == "assistant") {
      prompt_of[i] = keys.size();
      keys.push_back({i, true});
    }
  return keys;
}

}  // namespace

void decide(std::vector<chat::CaseResult>& rendered, const std::vector<size_t>& prompt_of, const Conversation& cv,
            bool generation, const LabelOptions& o, Labeled& out, std::string&& text_json,
            const std::function<void(Row&, size_t, size_t)>& locate, Audit* au, std::vector<DroppedCheck>* drops) {
  const Value& messages = cv.messages;
  const std::vector<std::string>& roles = cv.roles;
  const size_t n = roles.size();
  chat::CaseResult& full = rendered.front();
  const std::string& text = full.text;
  // The conversation's first k messages: rendered[k] (keys[k] = {k, false}) for k < n, the text for n.
  auto prefix = [&](size_t k) -> const chat::CaseResult& { return k < n ? rendered[k] : full; };
  std::vector<size_t> bounds(n + 1, 0);
  bounds[n] = text.size();
  for (size_t k = 1; k < n; ++k)
    bounds[k] = rendered[k].ok ? std::max(bounds[k - 1], agreed_prefix(rendered[k].text, text, au)) : bounds[k - 1];

  std::vector<Interval> gen;
  if (generation)
    for (auto [a, b] : full.spans) gen.push_back({byte_of_cp(text, a), byte_of_cp(text, b)});

  size_t last_assistant = n;
  for (size_t i = 0; i < n; ++i)
    if (roles[i] == "assistant") last_assistant = i;

  std::vector<Interval> train;
  for (size_t i = 0; i < n; ++i) {
    if (roles[i] != "assistant") {
      if (cv.loss[i].value_or(false) || o.train_on_prompt) train.push_back({bounds[i], bounds[i + 1]});
      continue;
    }
    const chat::CaseResult& prompt = rendered[prompt_of[i]];
    const chat::CaseResult& upto = prefix(i + 1);
    TurnOutcome t;
    std::string dropped = "-";  // "-": find_dropped did not decide
    if (!prompt.ok) t.check.reason = "the prompt for this turn does not render (" + failure(prompt) + ")";
    else if (generation) t = check_generation_turn(text, prompt.text, gen, bounds[i], bounds[i + 1], o.reason_details);
    else if (!upto.ok) t.check.reason = "the conversation ending with this turn does not render (" + failure(upto) + ")";
    else t = check_diff_turn(text, prompt.text, upto.text, messages.items()[i], o.reason_details, au, &dropped);
    if (drops && dropped != "-") drops->push_back({i, t.target, dropped});
    TurnCheck& tc = t.check;
    tc.message = i;
    const Interval target = t.target;
    bool wanted = cv.loss[i].value_or(true) && (!o.last_turn_only || i == last_assistant);
    if (o.train_on_prompt) {
      train.push_back({bounds[i], bounds[i + 1]});
    } else if (tc.served && wanted) {
      train.push_back(target);
    }
    // A row of its own: the conversation ending with this turn, where it is the last turn.
    if (!tc.served && wanted && o.split_rewritten && t.rewritten) {
      if (au) au->ok = false;  // split rows are not memoised
      if (std::optional<Row> row = split_row(roles, rendered, prompt.text, upto.text, i)) {
        out.rows.push_back(std::move(*row));
        if (locate) locate(out.rows.back(), i + 1, i + 1 < n ? i + 1 : 0);  // keys[k] = {k, false}
      }
    }
    out.turns.push_back(std::move(t.check));
  }
  std::vector<Span> spans = build_spans(roles, bounds, std::move(train));
  out.rows.insert(out.rows.begin(), Row{std::move(full.text), std::move(spans), {}, 0, std::move(text_json)});
  if (locate) locate(out.rows.front(), n, 0);
}

const RenderCache* LabelerAccess::last_failed_hit(const Labeler& l) { return l.impl_->last_failed_hit; }

void LabelerAccess::forget_last(Labeler& l) {
  l.impl_->last_known = KnownRow{};
  l.impl_->last_failed_hit = nullptr;
}

bool LabelerAccess::last_known_row(const Labeler& l, KnownRow& out) {
  if (!l.impl_->last_known.memo) return false;
  out = l.impl_->last_known;
  return true;
}

LinePath* LabelerAccess::line_path(Labeler& l, const ConvertConfig& cfg, const tokenize::Tokenizer* tok) {
  Labeler::Impl& im = *l.impl_;
  if (!line_path_applies(cfg, tok, im.opts)) return nullptr;
  if (!im.line_path) im.line_path = std::make_unique<LinePath>();
  return im.line_path.get();
}

bool Labeler::label(const Sample& sample, Labeled& out, std::optional<Error>& failed) {
  Impl& im = *impl_;
  im.last_failed_hit = nullptr;  // before anything that may throw
  const LabelOptions& o = im.opts;
  Conversation cv = im.prepare(sample);
  const Value& ctx = cv.ctx;
  const Value& messages = cv.messages;
  out = Labeled{};
  out.template_name = cv.template_name;
  Compiled& c = im.get(cv.template_name);

  // Where the texts stand in the renders, when they were put together from marker renders.
  std::vector<TextRanges> text_ranges;
  std::optional<chat::MarkedMessages> marked;
  // The texts of the row holding the first `count` messages (render `key`): from the renders'
  // own markers when the cache put them together, else from a marker render of their own.
  std::function<void(Row&, size_t, size_t)> locate_texts;
  if (o.locate_texts)
    locate_texts = [&](Row& row, size_t count, size_t key) {
      if (key < text_ranges.size()) {
        row.plain = text_ranges[key];
        row.texts_not_found = 0;
        return;
      }
      if (!marked) marked = chat::mark_message_texts(messages);
      chat::ContentRanges r = chat::locate_message_texts(*marked, row.text, [&](const Value& mm) {
        chat::CaseResult res = im.render(c, ctx, mm, count, false);
        if (!res.ok) throw Error(error_kind_from_name(res.error), res.message);
        return res.text;
      });
      row.plain = std::move(r.bytes);
      row.texts_not_found = r.not_found;
    };

  std::vector<size_t> prompt_of;
  const std::vector<RenderKey> keys = label_keys(cv.roles, prompt_of);
  const size_t hits_before = c.cache ? c.cache->stats().hits : 0;
  std::string text_json;  // the text escaped for row_json, when the cache put it together
  std::vector<chat::CaseResult>& rendered = im.rendered;
  // A known shape's memo (LabelMemo): not with the texts' places (tokens) or split rows.
  RenderHit hit;
  hit.first_only_if_memo = true;
  RenderHit* with_memo = o.locate_texts || o.split_rewritten ? nullptr : &hit;
  im.renders(rendered, c, ctx, messages, keys, o.locate_texts ? &text_ranges : nullptr, &text_json, with_memo);
  im.last_known = KnownRow{};
  if (hit.first_only) {
    const LabelMemo& memo = static_cast<const LabelMemo&>(**hit.memo);
    if (apply_memo(memo, cv, hit.texts, hit.starts, rendered.front().text, text_json, out)) {
      im.last_known = KnownRow{&memo, &hit.shape->front(), c.cache.get(), cv.template_name};
      return true;
    }
    with_memo = nullptr;  // not covered: every render, and the labeling as below
    im.renders(rendered, c, ctx, messages, keys, nullptr, &text_json);
  }
  out.reused_renders = c.cache && c.cache->stats().hits > hits_before;
  if (!rendered.front().ok) {  // returned, not thrown: datasets hold many such rows, and a throw costs more than the row
    if (out.reused_renders) im.last_failed_hit = c.cache.get();  // the shape's failure, whatever the texts
    failed.emplace(error_kind_from_name(rendered.front().error), "template: " + rendered.front().message);
    return false;
  }
  decide(rendered, prompt_of, cv, c.generation, o, out, std::move(text_json), locate_texts);
  // A known shape seen again: its memo is made once, kept only when it labels this conversation
  // as the labeling above did.
  if (with_memo && hit.memo && !*hit.memo_tried) {
    *hit.memo_tried = true;
    if (std::unique_ptr<LabelMemo> m = make_memo(*hit.shape, prompt_of, cv, o)) {
      Labeled again;
      std::string text = out.rows.front().text, json = out.rows.front().text_json;
      if (apply_memo(*m, cv, hit.texts, hit.starts, text, json, again) && same_labeled(again, out))
        *hit.memo = std::move(m);
    }
  }
  return true;
}

namespace {

// Code point offsets (as Python indexes a str) of byte offsets into a text, counted on from the
// last one asked (spans come in order).
class CodePoints {
 public:
  explicit CodePoints(const std::string& text) : text_(text) {}
  size_t at(size_t byte) {
    if (byte < at_) {
      at_ = 0;
      cp_ = 0;
    }
    cp_ += uni::count_code_points(std::string_view(text_).substr(at_, byte - at_));
    at_ = byte;
    return cp_;
  }

 private:
  const std::string& text_;
  size_t at_ = 0, cp_ = 0;
};

// n's decimal digits at p; returns their end. Two digits at a time from a table, written in
// place, numbers below 10,000 (most of a row's: its span offsets) without a loop: spans are most
// of a row's numbers, and std::to_chars' out-of-line call cost more than the digits.
inline char* put_decimal(char* p, size_t n) {
  static constexpr char kPairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
      "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
      "8081828384858687888990919293949596979899";
  if (n < 100) {
    if (n < 10) {
      *p = static_cast<char>('0' + n);
      return p + 1;
    }
    std::memcpy(p, kPairs + 2 * n, 2);
    return p + 2;
  }
  if (n < 10000) {
    const size_t high = n / 100, low = n % 100;
    if (high < 10) {
      *p = static_cast<char>('0' + high);
      std::memcpy(p + 1, kPairs + 2 * low, 2);
      return p + 3;
    }
    std::memcpy(p, kPairs + 2 * high, 2);
    std::memcpy(p + 2, kPairs + 2 * low, 2);
    return p + 4;
  }
  size_t digits = 5;
  for (size_t v = n / 100000; v > 0; v /= 10) ++digits;
  char* const end = p + digits;
  char* d = end;
  while (n >= 100) {
    d -= 2;
    std::memcpy(d, kPairs + 2 * (n % 100), 2);
    n /= 100;
  }
  if (n >= 10) {
    d -= 2;
    std::memcpy(d, kPairs + 2 * n, 2);
  } else {
    *--d = static_cast<char>('0' + n);
  }
  return end;
}

// A literal label (its length known where it is copied) then n.
template <size_t N>
char* put_number(char* p, const char (&label)[N], size_t n) {
  std::memcpy(p, label, N - 1);
  return put_decimal(p + N - 1, n);
}

// The same, or with `same` the number's digits copied from `digits` (`size` of them; 20 bytes
// read, none of them after the write position).
template <size_t N>
char* put_number_or_copy(char* p, const char (&label)[N], size_t n, bool same, const char* digits, size_t size) {
  if (!same) return put_number(p, label, n);
  std::memcpy(p, label, N - 1);
  std::memcpy(p + N - 1, digits, 20);
  return p + N - 1 + size;
}

}  // namespace

std::string_view span_train_member(bool train) { return train ? ", \"train\": true" : ", \"train\": false"; }

// A byte offset that equals its code point offset (an ASCII text before it, most rows) is the
// digits already written, copied: 20 bytes at a time, the most a number takes and what the caller
// has room for, advanced by their count.
char* put_span_numbers(char* p, size_t start, size_t end, size_t byte_start, size_t byte_end) {
  char* const start_digits = p + sizeof(", \"start\": ") - 1;
  p = put_number(p, ", \"start\": ", start);
  const size_t start_size = static_cast<size_t>(p - start_digits);
  char* const end_digits = p + sizeof(", \"end\": ") - 1;
  p = put_number(p, ", \"end\": ", end);
  const size_t end_size = static_cast<size_t>(p - end_digits);
  p = put_number_or_copy(p, ", \"byte_start\": ", byte_start, byte_start == start, start_digits, start_size);
  p = put_number_or_copy(p, ", \"byte_end\": ", byte_end, byte_end == end, end_digits, end_size);
  *p++ = '}';
  return p;
}

void append_span_rest(std::string& out, bool train, size_t start, size_t end, size_t byte_start, size_t byte_end) {
  char buf[kSpanNumbersMax];
  out += span_train_member(train);
  out.append(buf, static_cast<size_t>(put_span_numbers(buf, start, end, byte_start, byte_end) - buf));
}

std::string row_json(const Row& row) {
  std::string out;
  append_row_json(out, row);
  return out;
}

void append_row_json(std::string& out, const Row& row) {
  out.reserve(out.size() + row.text.size() + row.text.size() / 8 + row.spans.size() * 112 + 32);
  out += "{\"text\": ";
  if (row.text_json.empty() && !row.text.empty()) {
    json::dump_string(out, row.text, false);
  } else {
    out += '"';
    out += row.text_json;
    out += '"';
  }
  out += ", \"spans\": [";
  CodePoints cp(row.text);
  bool first = true;
  for (const auto& s : row.spans) {
    if (!first) out += ", ";
    first = false;
    out += "{\"role\": ";
    json::dump_string(out, s.role, false);
    const size_t a = cp.at(s.begin), b = cp.at(s.end);
    append_span_rest(out, s.train, a, b, s.begin, s.end);
  }
  out += "]}";
}

std::vector<std::pair<size_t, size_t>> span_chars(const Row& row) {
  CodePoints cp(row.text);
  std::vector<std::pair<size_t, size_t>> out;
  out.reserve(row.spans.size());
  for (const auto& s : row.spans) {
    const size_t a = cp.at(s.begin);
    out.emplace_back(a, cp.at(s.end));
  }
  return out;
}

Value row_value(const Row& row) {
  const auto chars = span_chars(row);
  std::vector<Value> spans;
  spans.reserve(row.spans.size());
  for (size_t i = 0; i < row.spans.size(); ++i) {
    const Span& s = row.spans[i];
    const int64_t a = static_cast<int64_t>(chars[i].first), b = static_cast<int64_t>(chars[i].second);
    spans.push_back(DictBuilder()
                        .add("role", s.role)
                        .add("train", s.train)
                        .add("start", a)
                        .add("end", b)
                        .add("byte_start", static_cast<int64_t>(s.begin))
                        .add("byte_end", static_cast<int64_t>(s.end))
                        .build());
  }
  return DictBuilder().add("text", row.text).add("spans", Value::list(std::move(spans))).build();
}

}  // namespace toolchat::convert
