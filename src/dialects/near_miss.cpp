#include "dialects/near_miss.hpp"

#include <vector>

#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/schema_args.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr size_t kMaxHeld = 256 * 1024;    // a tag form longer than this is not a near miss
constexpr size_t kMaxWhole = 1024 * 1024;  // nor a whole output
constexpr uint64_t kIdOffset = 1u << 20;   // recovered calls' ids: apart from the family's own

struct Opener {
  std::string_view open, close;
  bool named;  // <function=NAME> / <function name="NAME">: the JSON is the arguments
};
constexpr Opener kOpeners[] = {
    {"<function=", "</function>", true},  {"<function name=", "</function>", true},
    {"<tool_call>", "</tool_call>", false}, {"<function_call>", "</function_call>", false},
    {"<tools>", "</tools>", false},        {"<tool>", "</tool>", false},
    {"<response>", "</response>", false},  {"<json>", "</json>", false},
};
const std::vector<std::string_view>& opener_marks() {
  static const std::vector<std::string_view> v = [] {
    std::vector<std::string_view> m;
    for (const Opener& o : kOpeners) m.push_back(o.open);
    return m;
  }();
  return v;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && scan::is_json_ws(v.front())) v.remove_prefix(1);
  while (!v.empty() && scan::is_json_ws(v.back())) v.remove_suffix(1);
  return v;
}

// The JSON inside a ```json … ``` (or ``` … ```) fence, or the text itself when it has no fence;
// nullopt when a fence is opened and not closed at the end.
std::optional<std::string_view> unfenced(std::string_view t) {
  t = trim(t);
  if (!t.starts_with("```")) return t;
  t.remove_prefix(3);
  if (t.starts_with("json")) t.remove_prefix(4);
  if (!t.ends_with("```")) return std::nullopt;
  t.remove_suffix(3);
  return trim(t);
}

struct Call {
  std::string name, args;
};

class Recovering final : public StreamParser, private Sink {
 public:
  Recovering(std::unique_ptr<StreamParser> inner, const ParseOptions& o, NearMissForms forms)
      : inner_(std::move(inner)), opts_(o), on_(names_checked(o.tools)),
        tags_(forms == NearMissForms::All) {}

  void feed(std::string_view chunk, Sink& sink) override {
    out_ = &sink;
    inner_->feed(chunk, *this);
  }
  void finish(Sink& sink) override {
    out_ = &sink;
    inner_->finish(*this);
    if (whole_) {
      whole_ = false;
      std::optional<std::vector<Call>> calls;
      if (auto body = unfenced(held_)) calls = calls_of(*body);
      if (calls) recover(*calls, held_.size());
    }
    flush(held_.size());
  }

 private:
  void on(Event&& e) override {
    if (!on_) return out_->on(std::move(e));
    bool just_recovered = just_recovered_;
    just_recovered_ = false;
    if (auto* c = std::get_if<ContentDelta>(&e)) {
      // The common case: nothing held and no tag can start in the text.
      if (held_.empty() && seen_text_ && !whole_ && (!tags_ || c->text.find('<') == std::string::npos))
        return out_->on(std::move(e));
      return content(c->text);
    }
    if (auto* w = std::get_if<Warning>(&e)) {
      // The family's parser says "not a call" right after giving back text recovered as one.
      if (just_recovered && w->kind == WarningKind::MalformedCall) return;
      if (!held_.empty()) {
        // Decided with the text it is about, and sent where it came in that text: the held text
        // is sent in pieces that depend on the chunking, the warning's place must not.
        held_warnings_.push_back({held_.size(), std::move(*w)});
        return;
      }
    }
    // A call or reasoning: what is held cannot be one near miss that goes on past it.
    whole_ = false;
    flush(held_.size());
    if (auto* b = std::get_if<ToolCallBegin>(&e)) {
      if (map_.size() <= b->index) map_.resize(b->index + 1, 0);
      map_[b->index] = next_++;
      b->index = map_[b->index];
    } else if (auto* a = std::get_if<ToolArgsDelta>(&e)) {
      a->index = map_[a->index];
    } else if (auto* end = std::get_if<ToolCallEnd>(&e)) {
      end->index = map_[end->index];
    }
    seen_text_ = true;
    out_->on(std::move(e));
  }

  void content(const std::string& text) {
    held_ += text;
    if (!seen_text_) {
      // Leading whitespace waits for what follows: a whole-output form is decided with it.
      if (held_.find_first_not_of(" \t\r\n") == std::string::npos) return;
      seen_text_ = true;
      char c = held_[held_.find_first_not_of(" \t\r\n")];
      whole_ = c == '{' || c == '[' || c == '`';
    }
    if (whole_) {
      if (held_.size() <= kMaxWhole) return;
      whole_ = false;
    }
    if (tags_) scan_tags();
    else flush(held_.size());
  }

  // Sends what cannot start a near miss, recovers the tag forms that are complete, holds the rest.
  void scan_tags() {
    size_t from = 0;
    while (true) {
      std::string_view rest = std::string_view(held_).substr(from);
      scan::MarkerHit h = scan::find_marker(rest, opener_marks());
      if (h.which < 0) {
        flush(from + h.pos);
        return;
      }
      size_t at = from + h.pos;
      const Opener& op = kOpeners[h.which];
      // The close is looked for once per byte: a form held at the front remembers how far it looked.
      size_t look = at + op.open.size();
      if (at == 0 && close_from_ > look) look = close_from_;
      size_t close = held_.find(op.close, look);
      if (close == std::string::npos) {
        if (held_.size() - at > kMaxHeld) {  // too long to be one: text
          close_from_ = 0;
          from = at + op.open.size();
          continue;
        }
        flush(at);
        close_from_ = held_.size() >= op.close.size() ? held_.size() - op.close.size() + 1 : 0;
        return;
      }
      close_from_ = 0;
      size_t end = close + op.close.size();
      std::string_view inner = std::string_view(held_).substr(at + op.open.size(), close - at - op.open.size());
      std::optional<std::vector<Call>> calls = op.named ? named_call(inner, op.open) : calls_of_tagged(inner);
      if (calls) {
        flush(at);  // the text before (held_ now starts at the form)
        recover(*calls, end - at);
        from = 0;
        continue;
      }
      from = end;  // not a call: text, as written
    }
  }

  // Sends the first n held bytes as content, each held warning at its place in them.
  void flush(size_t n) {
    size_t sent = 0, k = 0;
    for (; k < held_warnings_.size() && held_warnings_[k].at <= n; ++k) {
      size_t at = held_warnings_[k].at;
      if (at > sent) out_->on(ContentDelta{held_.substr(sent, at - sent)});
      sent = at;
      out_->on(std::move(held_warnings_[k].w));
    }
    if (n > sent) out_->on(ContentDelta{held_.substr(sent, n - sent)});
    drop(n, k);
  }

  // Forgets the first n held bytes and the first k held warnings.
  void drop(size_t n, size_t k) {
    held_warnings_.erase(held_warnings_.begin(), held_warnings_.begin() + static_cast<std::ptrdiff_t>(k));
    for (HeldWarning& hw : held_warnings_) hw.at -= n;
    if (n > 0) {
      held_.erase(0, n);
      close_from_ = 0;
    }
  }

  // The first n held bytes were these calls.
  void recover(const std::vector<Call>& calls, size_t n) {
    // The warnings about this text: the family's parser said "not a call" (a <tool_call> holding an
    // array), but it is one; any other follows the calls.
    std::vector<Warning> about;
    size_t k = 0;
    for (; k < held_warnings_.size() && held_warnings_[k].at <= n; ++k)
      if (held_warnings_[k].w.kind != WarningKind::MalformedCall) about.push_back(std::move(held_warnings_[k].w));
    drop(n, k);
    just_recovered_ = true;
    for (const Call& c : calls) {
      size_t idx = next_++;
      out_->on(ToolCallBegin{idx, make_call_id(opts_.id_seed, kIdOffset + recovered_++), c.name});
      out_->on(ToolArgsDelta{idx, c.args});
      out_->on(ToolCallEnd{idx});
    }
    for (Warning& w : about) out_->on(std::move(w));
  }

  // <function=NAME>{args}</function> or <function name="NAME">{args}</function>: inner is what
  // follows the opener.
  std::optional<std::vector<Call>> named_call(std::string_view inner, std::string_view opener) const {
    size_t gt = inner.find('>');
    if (gt == std::string_view::npos) return std::nullopt;
    std::string name(trim(inner.substr(0, gt)));
    if (opener == "<function name=") {
      if (name.size() < 2 || (name.front() != '"' && name.front() != '\'') || name.back() != name.front())
        return std::nullopt;
      name = name.substr(1, name.size() - 2);
    }
    auto v = json_value(trim(inner.substr(gt + 1)));
    if (!v || !v->is_dict() || name.empty() || !tool_function(opts_.tools, name)) return std::nullopt;
    return std::vector<Call>{{name, scan::compact_json(*v)}};
  }

  // A wrapper's content: a call object, an array of them, or either in a ```json fence.
  std::optional<std::vector<Call>> calls_of_tagged(std::string_view inner) const {
    auto body = unfenced(inner);
    if (!body) return std::nullopt;
    return calls_of(*body);
  }

  std::optional<std::vector<Call>> calls_of(std::string_view text) const {
    auto v = json_value(trim(text));
    if (!v) return std::nullopt;
    std::vector<Call> out;
    auto one = [&](const Value& c) {
      if (!c.is_dict()) return false;
      const Value* fn = c.dict_obj().find("function");
      const Value& obj = fn && fn->is_dict() ? *fn : c;
      const Value* name = obj.dict_obj().find("name");
      if (!name || !name->is_str() || !tool_function(opts_.tools, name->str())) return false;
      const Value* args = obj.dict_obj().find("arguments");
      if (!args) args = obj.dict_obj().find("parameters");
      std::string a = "{}";
      if (args && args->is_dict()) {
        a = scan::compact_json(*args);
      } else if (args && args->is_str()) {
        auto inner = json_value(args->str());
        if (!inner || !inner->is_dict()) return false;
        a = scan::compact_json(*inner);
      } else if (args && !args->is_none()) {
        return false;
      }
      out.push_back({std::string(name->str()), std::move(a)});
      return true;
    };
    if (v->is_list()) {
      if (v->items().empty()) return std::nullopt;
      for (const Value& c : v->items())
        if (!one(c)) return std::nullopt;
    } else if (!one(*v)) {
      return std::nullopt;
    }
    return out;
  }

  std::unique_ptr<StreamParser> inner_;
  ParseOptions opts_;
  bool on_;
  bool tags_;  // the tag forms too (NearMissForms::All)
  Sink* out_ = nullptr;
  std::string held_;                    // content not sent yet
  struct HeldWarning {
    size_t at;  // the held text before it
    Warning w;
  };
  std::vector<HeldWarning> held_warnings_;  // warnings that came while text was held
  bool seen_text_ = false;              // anything but whitespace has come
  bool whole_ = false;                  // the output started with {, [ or ```: held to the end
  size_t close_from_ = 0;               // where the close of the form held at the front is looked for next
  std::vector<size_t> map_;             // the family parser's call index -> ours
  size_t next_ = 0, recovered_ = 0;
  bool just_recovered_ = false;  // the last event sent was a recovered call
};

}  // namespace

std::unique_ptr<StreamParser> with_near_miss_recovery(std::unique_ptr<StreamParser> inner, const ParseOptions& opts,
                                                      NearMissForms forms) {
  return std::make_unique<Recovering>(std::move(inner), opts, forms);
}

}  // namespace toolchat::dialects
