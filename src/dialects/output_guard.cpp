#include "dialects/output_guard.hpp"

#include <vector>

#include "dialects/scan.hpp"
#include "dialects/tool_fields.hpp"

namespace toolchat::dialects {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the well-formed sequence at s[i]; 0 when ill-formed, with *sub set to the length of the
// maximal subpart (the bytes one U+FFFD replaces, at least 1); -1 (as size_t max) when s ends inside
// a sequence that is well-formed so far.
constexpr size_t kIncomplete = static_cast<size_t>(-1);
size_t sequence(std::string_view s, size_t i, size_t* sub) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) need = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    need = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    *sub = 1;
    return 0;
  }
  for (size_t k = 1; k < need; ++k) {
    if (i + k >= s.size()) return kIncomplete;
    unsigned char x = b(k);
    bool ok = k == 1 ? (x >= lo && x <= hi) : (x >= 0x80 && x <= 0xBF);
    if (!ok) {
      *sub = k;
      return 0;
    }
  }
  return need;
}

// The offset of the first byte that is not part of a well-formed, complete sequence (s.size() when
// none); ASCII runs are skipped 8 bytes at a time.
size_t valid_prefix(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      __builtin_memcpy(&w, s.data() + i, 8);
      if (!(w & 0x8080808080808080ULL)) {
        i += 8;
        continue;
      }
    }
    size_t sub = 0;
    size_t len = sequence(s, i, &sub);
    if (len == 0 || len == kIncomplete) return i;
    i += len;
  }
  return n;
}

class GuardedParser final : public StreamParser, private Sink {
 public:
  GuardedParser(std::unique_ptr<StreamParser> inner, const ParseOptions& o)
      : inner_(std::move(inner)), tools_(o.tools), check_tools_(names_checked(o.tools)) {}

  void feed(std::string_view chunk, Sink& sink) override {
    out_ = &sink;
    std::string_view text = utf8_.clean(chunk, false);
    if (!text.empty()) inner_->feed(text, *this);
  }
  void finish(Sink& sink) override {
    out_ = &sink;
    std::string_view text = utf8_.clean({}, true);
    if (!text.empty()) inner_->feed(text, *this);
    inner_->finish(*this);
    settle_ended();
  }

 private:
  struct Held {
    std::string name, args;
    bool ended = false;
  };
  void on(Event&& e) override {
    if (auto* w = std::get_if<Warning>(&e)) return warning(std::move(*w));
    if (auto* c = std::get_if<ContentDelta>(&e); c && c->text.empty()) return;
    // An unknown call's text comes (ParserBase::note_call) before anything else is written: later
    // output means it will not come.
    if (!ended_.empty()) settle_ended();
    if (auto* b = std::get_if<ToolCallBegin>(&e)) {
      if (map_.size() <= b->index) map_.resize(b->index + 1, kHeldCall);
      if (call_kept_as_content(tools_, b->name)) {
        held_.resize(map_.size());
        held_[b->index] = Held{b->name, {}, false};
        out_->on(Warning{WarningKind::UnknownTool,
                         "call to '" + b->name + "', which is not among the tools: kept as content"});
        return;
      }
      ws_.clear();  // whitespace before a call (or between calls) is not content
      map_[b->index] = next_++;
      b->index = map_[b->index];
      return out_->on(std::move(e));
    }
    if (auto* a = std::get_if<ToolArgsDelta>(&e)) {
      if (held(a->index)) {
        held_[a->index].args.append(a->fragment);
        return;
      }
      a->index = map_[a->index];
      return out_->on(std::move(e));
    }
    if (auto* end = std::get_if<ToolCallEnd>(&e)) {
      if (held(end->index)) {
        held_[end->index].ended = true;
        ended_.push_back(end->index);
        return;
      }
      end->index = map_[end->index];
      out_->on(std::move(e));
      after_call_ = true;
      return;
    }
    if (auto* c = std::get_if<ContentDelta>(&e)) return content(std::move(c->text));
    out_->on(std::move(e));
  }

  void warning(Warning&& w) {
    if (w.kind == WarningKind::UnknownTool && check_tools_) {
      // The parser's own notice is replaced by ours (at the call's begin); one with cut_text is
      // the call's source text, which becomes the content in place of the call.
      if (w.cut_call && held(*w.cut_call) && held_[*w.cut_call].ended) {
        std::erase(ended_, *w.cut_call);
        held_[*w.cut_call] = Held{};
        content(std::move(w.cut_text));
      }
      return;
    }
    if (w.cut_call && *w.cut_call < map_.size()) {
      if (held(*w.cut_call)) {
        // An unknown call cut short: nothing of it was streamed, so its text is plain content.
        std::erase(ended_, *w.cut_call);
        held_[*w.cut_call] = Held{};
        content(std::move(w.cut_text));
        w.cut_call.reset();
        w.cut_text.clear();
      } else {
        w.cut_call = map_[*w.cut_call];
      }
    }
    out_->on(std::move(w));
  }

  // Unknown calls that ended without their source text: content as {"name","arguments"} JSON.
  void settle_ended() {
    for (size_t i : ended_) {
      Held& h = held_[i];
      std::string text = "{\"name\":";
      text += scan::compact_json(Value::string(h.name));
      text += ",\"arguments\":";
      text += h.args.empty() ? "{}" : h.args;
      text += '}';
      h = Held{};
      content(std::move(text));
    }
    ended_.clear();
  }

  // Whitespace that follows a call is held: text after it gets it back (the separator between the
  // texts around a call block), another call or the end of the output drops it.
  void content(std::string text) {
    if (text.empty()) return;
    if (after_call_) {
      if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
        ws_ += text;
        return;
      }
      after_call_ = false;
      if (!ws_.empty()) {
        text.insert(0, ws_);
        ws_.clear();
      }
    }
    out_->on(ContentDelta{std::move(text)});
  }
  bool held(size_t index) const { return index < map_.size() && map_[index] == kHeldCall; }

  static constexpr size_t kHeldCall = static_cast<size_t>(-1);
  std::unique_ptr<StreamParser> inner_;
  Value tools_;
  bool check_tools_;
  Utf8Repair utf8_;
  Sink* out_ = nullptr;
  std::vector<size_t> map_;  // the parser's call index -> ours (kHeldCall: an unknown tool's)
  std::vector<Held> held_;
  std::vector<size_t> ended_;  // held calls whose end has come, their text not yet
  size_t next_ = 0;
  bool after_call_ = false;  // since the last call's end, only whitespace content has come
  std::string ws_;           // that whitespace
};

}  // namespace

std::string_view Utf8Repair::clean(std::string_view chunk, bool eof) {
  if (held_.empty()) {
    size_t ok = valid_prefix(chunk);
    if (ok == chunk.size()) return chunk;
  }
  std::string_view s;
  if (!held_.empty()) {
    held_.append(chunk);
    s = held_;
  } else {
    s = chunk;
  }
  out_.clear();
  size_t i = 0;
  while (i < s.size()) {
    size_t ok = valid_prefix(s.substr(i));
    out_.append(s.substr(i, ok));
    i += ok;
    if (i >= s.size()) break;
    size_t sub = 0;
    size_t len = sequence(s, i, &sub);
    if (len == kIncomplete) {
      if (!eof) break;
      sub = s.size() - i;  // cut off by the end: one replacement
    }
    out_.append(kReplacement);
    i += sub;
  }
  std::string rest(s.substr(i));
  held_ = std::move(rest);
  return out_;
}

std::unique_ptr<StreamParser> guard_output(std::unique_ptr<StreamParser> inner, const ParseOptions& opts) {
  return std::make_unique<GuardedParser>(std::move(inner), opts);
}

}  // namespace toolchat::dialects
