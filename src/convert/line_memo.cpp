// Rows of a known shape written straight from their JSON lines (see line_memo.hpp).
#include "convert/line_memo.hpp"

#include <algorithm>
#include <cstring>

#include "chat/content_marks.hpp"
#include "convert/format_util.hpp"
#include "toolchat/json.hpp"
#include "value/escape_scan.hpp"
#include "value/json.hpp"
#include "value/unicode.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::convert {

namespace {

constexpr int kMaxDepth = 128;       // deeper lines take the value path
constexpr size_t kMaxSkeletons = 256;  // past this, the known skeletons are forgotten
constexpr size_t kTrialLines = 1024;   // the path turns itself off when fewer than a quarter of these take it

void append_tail_number(std::string& key, uint32_t n) {
  key += '\x02';
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
}

// The scan: just enough JSON to tell strings from structure and to know which strings are the
// message texts. It never decides a line is valid JSON: a line is written on this path only
// when its skeleton equals that of a line the value path read.
class Scanner {
 public:
  Scanner(std::string_view s, LineScan& out, const KnownTails* tails) : s_(s), out_(out), tails_(tails) {}

  bool run() {
    out_.key.clear();
    out_.strings.clear();
    out_.texts.clear();
    out_.tail_at = std::string_view::npos;
    ws();
    if (!members(0, [&](std::string_view key) {
          if (key != "messages") return skip(1);
          if (!messages()) return false;
          return out_.tail_at != std::string_view::npos || !tail();
        }))
      return tail_known_;
    ws();
    if (i_ != s_.size()) return false;
    out_.key.append(s_.substr(copied_));
    return true;
  }

 private:
  enum Kind { content, reasoning, calls };

  // After the first messages value: its end, and with known tails the rest of the line as its
  // number (true: the scan stops here).
  bool tail() {
    out_.tail_at = i_;
    out_.head_key = out_.key.size() + (i_ - copied_);
    if (!tails_) return false;
    auto it = tails_->numbers.find(s_.substr(i_));
    if (it == tails_->numbers.end()) return true;  // not known: the line is not scanned further
    out_.key.append(s_.substr(copied_, i_ - copied_));
    append_tail_number(out_.key, it->second);
    tail_known_ = true;
    return true;
  }

  void ws() {  // mostly none or one space (json.dumps' separators)
    while (i_ < s_.size() && static_cast<unsigned char>(s_[i_]) <= ' ' &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool eat(char c) {
    if (!at(c)) return false;
    ++i_;
    return true;
  }

  // A string at i_: the places of its quotes; i_ goes past it.
  bool string(size_t& open, size_t& close) {
    if (!at('"')) return false;
    open = i_;
    size_t from = i_ + 1;
    for (;;) {
      const void* q = std::memchr(s_.data() + from, '"', s_.size() - from);
      if (!q) return false;
      const size_t quote = static_cast<size_t>(static_cast<const char*>(q) - s_.data());
      size_t slashes = 0;
      while (quote - slashes > open + 1 && s_[quote - slashes - 1] == '\\') ++slashes;
      if (slashes % 2 == 0) {
        close = quote;
        i_ = quote + 1;
        return true;
      }
      from = quote + 1;
    }
  }

  // A container at i_ from `open` to `close`, its elements read by `each`, separated by commas.
  template <class F>
  bool sequence(int depth, char open, char close, F each) {
    if (depth > kMaxDepth || !eat(open)) return false;
    ws();
    if (eat(close)) return true;
    for (;;) {
      if (!each()) return false;
      ws();
      if (!eat(',')) return eat(close);
      ws();
    }
  }

  // An object's members at i_, each value read by `value(key)` (the key as written).
  template <class F>
  bool members(int depth, F value) {
    return sequence(depth, '{', '}', [&] {
      size_t open, close;
      if (!string(open, close)) return false;
      ws();
      if (!eat(':')) return false;
      ws();
      return value(s_.substr(open + 1, close - open - 1));
    });
  }

  template <class F>
  bool items(int depth, F item) {
    return sequence(depth, '[', ']', item);
  }

  // Any value, not looked into: containers are passed by counting brackets, strings jumped over
  // whole (the skeleton keeps it as written, and a line is known only when its skeleton equals
  // that of a line json::parse read, so no more than its end is needed).
  bool skip(int depth) {
    if (at('"')) {
      size_t open, close;
      return string(open, close);
    }
    if (!at('{') && !at('[')) {
      const size_t start = i_;
      while (i_ < s_.size() && std::strchr(",]} \t\n\r\"{[:", s_[i_]) == nullptr) ++i_;
      return i_ > start;
    }
    int open_brackets = 0;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (c == '"') {
        size_t open, close;
        if (!string(open, close)) return false;
        continue;
      }
      if (c == '{' || c == '[') {
        if (++open_brackets + depth > kMaxDepth) return false;
      } else if ((c == '}' || c == ']') && --open_brackets == 0) {
        ++i_;
        return true;
      }
      ++i_;
    }
    return false;
  }

  // A message text's string: cut out of the skeleton, which keeps whether it was empty.
  bool text(Kind kind) {
    size_t open, close;
    if (!string(open, close)) return false;
    out_.key.append(s_.substr(copied_, open + 1 - copied_));
    out_.key += close > open + 1 ? '\x01' : '\x00';
    copied_ = close;
    out_.kinds[kind].push_back(out_.strings.size());
    out_.strings.push_back({open, close, -1});
    return true;
  }

  // Every string under a call's arguments (keys stay in the skeleton).
  bool tree(int depth) {
    if (at('"')) return text(calls);
    if (at('{')) return members(depth, [&](std::string_view) { return tree(depth + 1); });
    if (at('[')) return items(depth, [&] { return tree(depth + 1); });
    return skip(depth);
  }

  bool messages() {
    if (!at('[')) return skip(1);
    return items(1, [&] { return at('{') ? message() : skip(2); });
  }

  // A message's texts, numbered as the walk numbers them: content, reasoning, then the calls'.
  bool message() {
    for (auto& k : out_.kinds) k.clear();
    const bool ok = members(2, [&](std::string_view key) {
      if (key == "content") {
        if (at('"')) return text(content);
        if (at('['))
          return items(3, [&] {
            if (!at('{')) return skip(4);
            return members(4, [&](std::string_view k) { return k == "text" && at('"') ? text(content) : skip(5); });
          });
        return skip(3);
      }
      if (key == "reasoning_content") return at('"') ? text(reasoning) : skip(3);
      if (key == "tool_calls" && at('['))
        return items(3, [&] {
          if (!at('{')) return skip(4);
          return members(4, [&](std::string_view k) {
            if (k != "function" || !at('{')) return skip(5);
            return members(5, [&](std::string_view f) { return f == "arguments" ? tree(6) : skip(6); });
          });
        });
      return skip(3);
    });
    if (!ok) return false;
    for (const auto& k : out_.kinds)
      for (size_t e : k) {
        LineScan::Text& t = out_.strings[e];
        if (t.close == t.open + 1) continue;
        t.index = static_cast<long>(out_.texts.size());
        out_.texts.push_back(s_.substr(t.open + 1, t.close - t.open - 1));
      }
    return true;
  }

  std::string_view s_;
  LineScan& out_;
  const KnownTails* tails_;
  bool tail_known_ = false;
  size_t i_ = 0, copied_ = 0;
};

// Four hex digits at `at` of s (json::hex4, within bounds).
bool hex4(std::string_view s, size_t at, uint32_t& cp) {
  if (at + 4 > s.size()) return false;
  const int32_t v = json::hex4(s.data() + at);
  if (v < 0) return false;
  cp = static_cast<uint32_t>(v);
  return true;
}

// The contents of a JSON string as json::parse reads them, or false for anything it might read
// otherwise or refuse (control characters, bad escapes, a surrogate without its pair, bad UTF-8).
bool decode_text(std::string_view raw, std::string& buf, std::string_view& out) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  // The first quote, backslash or control character (a quote cannot be there: the scan ended
  // the string at it).
  const size_t first = json::next_escape(bytes, 0, raw.size(), false);
  if (utf8::find_invalid(raw) != std::string_view::npos) return false;
  if (first >= raw.size()) {
    out = raw;
    return true;
  }
  for (size_t i = first; i < raw.size(); ++i)
    if (bytes[i] < 0x20) return false;
  buf.clear();
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      buf += raw[i];
      continue;
    }
    if (++i == raw.size()) return false;
    if (const int c = json::unescape_letter(static_cast<unsigned char>(raw[i])); c >= 0) {
      buf += static_cast<char>(c);
      continue;
    }
    if (raw[i] != 'u') return false;
    uint32_t cp, low;
    if (!hex4(raw, i + 1, cp)) return false;
    i += 4;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 6 >= raw.size() || raw[i + 1] != '\\' || raw[i + 2] != 'u' || !hex4(raw, i + 3, low) || low < 0xDC00 ||
          low > 0xDFFF)
        return false;
      cp = 0x10000 + (((cp - 0xD800) << 10) | (low - 0xDC00));
      i += 6;
    }
    uni::append_utf8(buf, cp);
  }
  out = buf;
  return true;
}

bool same_stats(const ConvertStats& a, const ConvertStats& b) {
  return a.rows == b.rows && a.converted == b.converted && a.extra_rows == b.extra_rows && a.bad == b.bad &&
         a.turns == b.turns && a.served == b.served && a.trained_spans == b.trained_spans && a.reused == b.reused &&
         a.tokens == b.tokens && a.straddling == b.straddling && a.cut_rows == b.cut_rows &&
         a.dropped_long == b.dropped_long && a.injection_rows == b.injection_rows &&
         a.texts_not_found == b.texts_not_found && a.mismatches == b.mismatches;
}

}  // namespace

bool scan_line(std::string_view line, LineScan& out, const KnownTails* tails) {
  return Scanner(line, out, tails).run();
}

bool line_path_applies(const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const LabelOptions& opts) {
  return cfg.format == Format::openai && !tok && !cfg.list_mismatches && !cfg.rows_as_parts && opts.reuse_renders &&
         !opts.polyfills && !opts.locate_texts && !opts.split_rewritten && opts.clock.fixed_now &&
         !(opts.kwargs.is_dict() && opts.kwargs.dict_obj().find("messages"));
}

struct LinePath::Shape {
  MarkedRender first;             // the row's text, marked (its pieces escaped in `json`)
  std::vector<size_t> piece_cps;  // code points of each piece's template text
  struct SpanAt {
    size_t role;
    bool train;
    MemoPos begin, end;
    size_t begin_cp, end_cp;  // code points of the piece's template text before begin.at / end.at
  };
  std::vector<SpanAt> spans;
  std::vector<std::string> role_json;
  struct Check {  // string `arguments` texts find_dropped parses: looked at per line
    MemoPos begin, end;
    std::vector<size_t> texts;
  };
  std::vector<Check> checks;
  std::vector<size_t> repr_found;  // texts find_dropped finds only if repr_found (label_memo.hpp)
  std::vector<LabelMemo::Condition> conditions;  // the memo's
  ConvertStats stats;  // one row's counts
  std::optional<Error> error;  // a shape the template refuses: the row's error and reason
  std::string reason;
  const RenderCache* cache = nullptr;
  size_t texts = 0;
};

LinePath::LinePath() = default;
LinePath::~LinePath() = default;
size_t LinePath::known() const { return shapes_.size(); }

bool LinePath::convert(const ConvertConfig& cfg, std::string_view line, RowResult& r) {
  if (off_ || shapes_.empty()) return false;
  if (++tried_ == kTrialLines && written_ * 4 < tried_) {  // it rarely applies here: lines are not scanned
    off_ = true;
    shapes_.clear();
    tails_.numbers.clear();
    return false;
  }
  if (!scan_line(line, scan_, &tails_)) return false;
  auto it = shapes_.find(scan_.key);
  if (it == shapes_.end() || !write(*it->second, cfg, r)) return false;
  ++written_;
  return true;
}

bool LinePath::write(const Shape& s, const ConvertConfig& cfg, RowResult& r) {
  const size_t n = scan_.texts.size();
  if (n != s.texts) return false;
  if (decoded_.size() < n) decoded_.resize(n);
  texts_.resize(n);
  plain_.resize(n);
  for (size_t k = 0; k < n; ++k) {
    if (!decode_text(scan_.texts[k], decoded_[k], texts_[k])) return false;
    // No escape in the line: no quote, backslash or control character in the text either, so
    // json::append_escaped would give it back as it is.
    plain_[k] = texts_[k].data() == scan_.texts[k].data();
  }
  if (s.cache->screens(texts_) || !conditions_hold(s.conditions, texts_) || !reprs_found(s.repr_found, texts_))
    return false;
  if (s.error) {  // the shape's failure
    r.stats = s.stats;
    r.error = s.error;
    r.reason = s.reason;
    return true;
  }
  // Where each piece starts in the row's text, in bytes and code points; texts a template shows
  // through tojson are escaped once here.
  const MarkedRender& f = s.first;
  std::vector<size_t>& starts = starts_;
  std::vector<size_t>& cp_starts = cp_starts_;
  starts.resize(f.pieces.size());
  cp_starts.resize(f.pieces.size());
  shown_.resize(n);
  size_t at = 0, cp = 0;
  for (size_t j = 0; j < f.pieces.size(); ++j) {
    const Piece& p = f.pieces[j];
    starts[j] = at;
    cp_starts[j] = cp;
    at += p.end - p.begin;
    cp += s.piece_cps[j];
    if (p.text < 0) continue;
    std::string_view t = texts_[static_cast<size_t>(p.text)];
    if (p.shown != chat::MarkerAt::Shown::raw) {
      std::string& e = shown_[static_cast<size_t>(p.text)];
      e.clear();
      if (!append_shown(e, t, p.shown)) return false;  // a repr in other quotes: the value path
      t = e;
    }
    at += t.size();
    cp += uni::count_code_points(t);
  }
  if (!s.checks.empty()) {  // the row's text, for find_dropped's look into string arguments
    scratch_.clear();
    for (const Piece& p : f.pieces) {
      scratch_.append(f.marked, p.begin, p.end - p.begin);
      if (p.text >= 0)
        scratch_ += p.shown != chat::MarkerAt::Shown::raw ? std::string_view(shown_[static_cast<size_t>(p.text)])
                                                          : texts_[static_cast<size_t>(p.text)];
    }
    for (const Shape::Check& c : s.checks) {
      const size_t b = starts[c.begin.piece] + c.begin.at, e = starts[c.end.piece] + c.end.at;
      for (size_t k : c.texts)
        if (!arguments_shown(texts_[k], std::string_view(scratch_).substr(b, e - b))) return false;
    }
  }
  if (!cfg.output.empty()) {
    std::string& out = r.out;
    out += "{\"text\": \"";
    for (const Piece& p : f.pieces) {
      out.append(f.json, p.json_begin, p.json_end - p.json_begin);
      if (p.text < 0) continue;
      const size_t k = static_cast<size_t>(p.text);
      if (p.shown == chat::MarkerAt::Shown::raw && plain_[k])
        out += texts_[k];
      else
        json::append_escaped(out, p.shown != chat::MarkerAt::Shown::raw ? std::string_view(shown_[k]) : texts_[k], false);
    }
    out += "\", \"spans\": [";
    bool first = true;
    for (const Shape::SpanAt& sp : s.spans) {
      if (!first) out += ", ";
      first = false;
      out += "{\"role\": ";
      out += s.role_json[sp.role];
      append_span_rest(out, sp.train, cp_starts[sp.begin.piece] + sp.begin_cp, cp_starts[sp.end.piece] + sp.end_cp,
                       starts[sp.begin.piece] + sp.begin.at, starts[sp.end.piece] + sp.end.at);
    }
    out += "]}\n";
  }
  r.stats = s.stats;
  return true;
}

void LinePath::learn(const Labeler& labeler, const ConvertConfig& cfg, std::string_view line, const RowResult& r) {
  if (off_ || r.stats.rows != 1) return;
  // A row the template refuses for its shape (the cache's kept failure, its texts put in): the
  // skeleton is learned with that error, given to every line of it whose texts pass the screens.
  const RenderCache* failed = r.error ? LabelerAccess::last_failed_hit(labeler) : nullptr;
  KnownRow kr;
  if (failed) {
    if (r.stats.bad != 1 || !r.out.empty() || !r.notes.empty() || !r.mismatches.empty()) return;
  } else {
    if (r.error || r.stats.converted != 1 || r.stats.extra_rows != 0) return;
    if (!LabelerAccess::last_known_row(labeler, kr) || !kr.first->ok || !kr.cache) return;
  }
  if (!scan_line(line, scan_)) return;
  if (scan_.tail_at != std::string_view::npos) {  // the skeleton's rest as its number, as convert reads it
    std::string_view rest = line.substr(scan_.tail_at);
    auto t = tails_.numbers.find(rest);
    if (t == tails_.numbers.end()) {
      if (tails_.numbers.size() >= kMaxSkeletons) {  // forgotten together: keys hold tail numbers
        shapes_.clear();
        refused_.clear();
        tails_.numbers.clear();
      }
      t = tails_.numbers.emplace(std::string(rest), static_cast<uint32_t>(tails_.numbers.size())).first;
    }
    scan_.key.resize(scan_.head_key);
    append_tail_number(scan_.key, t->second);
  }
  if (shapes_.count(scan_.key) || refused_.count(scan_.key)) return;
  if (refused_.size() >= kMaxSkeletons) refused_.clear();
  refused_.insert(scan_.key);  // until it is learned: a skeleton is tried once
  // The skeleton's strings are the walk's texts: filled with strings found nowhere in the line,
  // the walk of the messages read from it gives back exactly those, in their numbers.
  size_t run = 0, longest = 0;
  for (char c : line) longest = std::max(longest, run = c == 'Q' ? run + 1 : 0);
  const std::string nonce(longest + 1, 'Q');
  auto fill = [&](size_t k) { return "@" + std::to_string(k) + "@" + nonce; };
  std::string synthetic;
  size_t copied = 0;
  for (const LineScan::Text& t : scan_.strings) {
    synthetic.append(line.substr(copied, t.open + 1 - copied));
    if (t.index >= 0) synthetic += fill(static_cast<size_t>(t.index));
    copied = t.close;
  }
  synthetic.append(line.substr(copied));
  try {
    const Sample sample = read_sample(Format::openai, json::parse(synthetic));
    const Value* messages = detail::field(sample.context, "messages");
    if (!messages) return;
    const chat::MarkedMessages marked = chat::mark_message_texts(*messages);
    if (marked.texts.size() != scan_.texts.size()) return;
    for (size_t k = 0; k < marked.texts.size(); ++k)
      if (marked.texts[k] != fill(k)) return;
  } catch (const std::exception&) {
    return;
  }
  auto s = std::make_unique<Shape>();
  if (failed) {
    s->cache = failed;
    s->texts = scan_.texts.size();
    s->stats = r.stats;
    s->error = r.error;
    s->reason = r.reason;
    RowResult again;
    if (!write(*s, cfg, again) || again.reason != r.reason || !same_stats(again.stats, r.stats)) return;
    if (shapes_.size() >= kMaxSkeletons) shapes_.clear();
    refused_.erase(scan_.key);
    shapes_.emplace(scan_.key, std::move(s));
    return;
  }
  s->first = *kr.first;
  s->cache = kr.cache;
  s->texts = scan_.texts.size();
  s->stats = r.stats;
  s->conditions = kr.memo->conditions;
  // A text's shown form is made once per line (shown_): one form other than raw per text.
  std::vector<chat::MarkerAt::Shown> form(s->texts, chat::MarkerAt::Shown::raw);
  for (const Piece& p : s->first.pieces) {
    if (p.text >= static_cast<long>(s->texts)) return;
    if (p.text >= 0 && p.shown != chat::MarkerAt::Shown::raw) {
      chat::MarkerAt::Shown& f = form[static_cast<size_t>(p.text)];
      if (f != chat::MarkerAt::Shown::raw && f != p.shown) return;
      f = p.shown;
    }
    s->piece_cps.push_back(uni::count_code_points(std::string_view(s->first.marked).substr(p.begin, p.end - p.begin)));
  }
  const LabelMemo& m = *kr.memo;
  auto cps_before = [&](const MemoPos& pos) {
    return uni::count_code_points(std::string_view(s->first.marked).substr(s->first.pieces[pos.piece].begin, pos.at));
  };
  for (const LabelMemo::MemoSpan& sp : m.spans)
    s->spans.push_back({sp.role, sp.train, sp.begin, sp.end, cps_before(sp.begin), cps_before(sp.end)});
  for (const std::string& role : m.roles) {
    std::string j;
    json::dump_string(j, role, false);
    s->role_json.push_back(std::move(j));
  }
  for (const LabelMemo::MemoDropped& d : m.dropped) {
    if (!d.texts_found) return;  // find_dropped needs the message's values
    s->repr_found.insert(s->repr_found.end(), d.repr_texts.begin(), d.repr_texts.end());
    if (!d.string_arguments.empty()) s->checks.push_back({d.begin, d.end, d.string_arguments});
  }
  // The line written this way must be the value path's row, counts included.
  RowResult again;
  if (!write(*s, cfg, again) || again.out != r.out || !same_stats(again.stats, r.stats)) return;
  if (shapes_.size() >= kMaxSkeletons) shapes_.clear();
  refused_.erase(scan_.key);
  shapes_.emplace(scan_.key, std::move(s));
}

}  // namespace toolchat::convert
