// Rows of a known shape written straight from their JSON lines (see line_memo.hpp).
#include "convert/line_memo.hpp"

#include <algorithm>
#include <cstring>

#include "chat/content_marks.hpp"
#include "convert/format_util.hpp"
#include "convert/json_skip.hpp"
#include "convert/labeler.hpp"
#include "toolchat/jinja.hpp"
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

// The scan: just enough JSON to tell strings from structure and to know which strings are the
// message texts. It never decides a line is valid JSON: a line is written on this path only
// when its skeleton equals that of a line the value path read.
class Scanner {
 public:
  Scanner(std::string_view s, LineScan& out) : s_(s), out_(out) {}

  bool run() {
    out_.key.clear();
    out_.strings.clear();
    out_.texts.clear();
    ws();
    if (!members(0, [&](std::string_view key) { return key == "messages" ? messages() : skip(1); })) return false;
    ws();
    if (i_ != s_.size()) return false;
    out_.key.append(s_.substr(copied_));
    return true;
  }

 private:
  enum Kind { content, reasoning, calls };

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
    const size_t end = skip::string_end(s_, i_);
    if (end == std::string_view::npos) return false;
    open = i_;
    close = end - 1;
    i_ = end;
    return true;
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
    const size_t end = skip::value_end(s_, i_, static_cast<size_t>(kMaxDepth - depth));
    if (end == std::string_view::npos || end == i_) return false;
    i_ = end;
    return true;
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
  const size_t n = raw.size();
  if (utf8::find_invalid(raw) != std::string_view::npos) return false;
  buf.clear();
  for (size_t i = 0;;) {
    // The run up to the next backslash or control character as it is (a quote cannot be there:
    // the scan ended the string at it).
    const size_t stop = json::next_escape(bytes, i, n, false);
    if (i == 0 && stop == n) {
      out = raw;
      return true;
    }
    buf.append(raw.data() + i, stop - i);
    if (stop == n) break;
    i = stop + 1;  // the escape's letter
    if (bytes[stop] < 0x20 || i == n) return false;
    if (const int c = json::unescape_letter(bytes[i]); c >= 0) {
      buf += static_cast<char>(c);
      ++i;
      continue;
    }
    if (raw[i] != 'u') return false;
    uint32_t cp, low;
    if (!hex4(raw, i + 1, cp)) return false;
    i += 5;
    if (cp >= 0xDC00 && cp <= 0xDFFF) return false;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
      if (i + 6 > n || raw[i] != '\\' || raw[i + 1] != 'u' || !hex4(raw, i + 2, low) || low < 0xDC00 || low > 0xDFFF)
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

bool scan_line(std::string_view line, LineScan& out) { return Scanner(line, out).run(); }

bool line_path_applies(const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const LabelOptions& opts) {
  return cfg.format == Format::openai && !tok && !cfg.list_mismatches && !cfg.rows_as_parts && opts.reuse_renders &&
         !opts.polyfills && !opts.locate_texts && !opts.split_rewritten && opts.clock.fixed_now &&
         !(opts.kwargs.is_dict() && opts.kwargs.dict_obj().find("messages"));
}

struct LinePath::Shape {
  std::vector<long> string_text;  // per cut string, in line order: its text's number, -1 if empty
  MarkedRender first;             // the row's text, marked (its pieces escaped in `json`)
  std::vector<size_t> piece_cps;  // code points of each piece's template text
  struct SpanAt {
    bool train;
    MemoPos begin, end;
    size_t begin_cp, end_cp;  // code points of the piece's template text before begin.at / end.at
  };
  std::vector<SpanAt> spans;
  std::vector<std::string> span_heads;  // each span's bytes before its numbers: `, {"role": ..., "train": ...`
  size_t spans_bytes = 0;               // at most the spans' bytes, with the row's end
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

void LinePath::forget() {
  shapes_.clear();
  tree_.clear();
}

bool LinePath::convert(const ConvertConfig& cfg, std::string_view line, RowResult& r) {
  if (off_ || shapes_.empty()) return false;
  // A line json::parse refuses for its size is the value path's bad row, whatever its skeleton.
  if (line.size() > json::ReadLimits{}.max_bytes) return false;
  if (++tried_ == kTrialLines && written_ * 4 < tried_) {  // it rarely applies here: lines are not scanned
    off_ = true;
    forget();
    return false;
  }
  const auto* s = static_cast<const Shape*>(tree_.match(line, found_));
  if (!s || !write(*s, line, cfg, r)) return false;
  ++written_;
  return true;
}

bool LinePath::read_texts(const Shape& s, std::string_view line) {
  const size_t n = s.texts;
  if (found_.size() != s.string_text.size()) return false;
  if (decoded_.size() < n) decoded_.resize(n);
  texts_.resize(n);
  plain_.resize(n);
  ascii_.resize(n);
  cps_.resize(n);
  size_t bytes = 0;  // too_long_to_reuse's sum: longer texts are rendered for real
  for (size_t i = 0; i < found_.size(); ++i) {
    if (s.string_text[i] < 0) continue;
    const size_t k = static_cast<size_t>(s.string_text[i]);
    const TextAt& t = found_[i];
    const std::string_view raw = line.substr(t.open + 1, t.close - t.open - 1);
    // The pass saw no control character; an escape is decoded (and checked) as json::parse reads
    // it, other bytes from 0x7F up must be UTF-8. No escape in the line: no quote, backslash or
    // control character in the text either, so json::append_escaped gives it back as it is.
    if (t.escaped) {
      if (!decode_text(raw, decoded_[k], texts_[k])) return false;
    } else if (t.non_ascii && utf8::find_invalid(raw) != std::string_view::npos) {
      return false;
    } else {
      texts_[k] = raw;
    }
    plain_[k] = !t.escaped;
    ascii_[k] = !t.escaped && !t.non_ascii;
    cps_[k] = ascii_[k] ? raw.size() : uni::count_code_points(texts_[k]);
    bytes += texts_[k].size();
  }
  return bytes <= kMaxReusedTextBytes;
}

bool LinePath::checks_hold(const Shape& s) {
  if (s.cache->screens(texts_, &ascii_) || !conditions_hold(s.conditions, texts_) || !reprs_found(s.repr_found, texts_))
    return false;
  if (s.checks.empty()) return true;
  // The row's text, for find_dropped's look into string arguments.
  const MarkedRender& f = s.first;
  scratch_.clear();
  for (const Piece& p : f.pieces) {
    scratch_.append(f.marked, p.begin, p.end - p.begin);
    if (p.text >= 0)
      scratch_ += p.shown != chat::MarkerAt::Shown::raw ? std::string_view(shown_[static_cast<size_t>(p.text)])
                                                        : texts_[static_cast<size_t>(p.text)];
  }
  for (const Shape::Check& c : s.checks) {
    const size_t b = starts_[c.begin.piece] + c.begin.at, e = starts_[c.end.piece] + c.end.at;
    for (size_t k : c.texts)
      if (!arguments_shown(texts_[k], std::string_view(scratch_).substr(b, e - b))) return false;
  }
  return true;
}

bool LinePath::write(const Shape& s, std::string_view line, const ConvertConfig& cfg, RowResult& r) {
  if (!read_texts(s, line)) return false;
  if (s.error) {  // the shape's failure
    if (!checks_hold(s)) return false;
    r.stats = s.stats;
    r.error = s.error;
    r.reason = s.reason;
    return true;
  }
  // Where each piece starts in the row's text, in bytes and code points; texts a template shows
  // through tojson are escaped once here.
  const MarkedRender& f = s.first;
  starts_.resize(f.pieces.size());
  cp_starts_.resize(f.pieces.size());
  shown_.resize(s.texts);
  size_t at = 0, cp = 0;
  for (size_t j = 0; j < f.pieces.size(); ++j) {
    const Piece& p = f.pieces[j];
    starts_[j] = at;
    cp_starts_[j] = cp;
    at += p.end - p.begin;
    cp += s.piece_cps[j];
    if (p.text < 0) continue;
    const size_t k = static_cast<size_t>(p.text);
    if (p.shown == chat::MarkerAt::Shown::raw) {
      at += texts_[k].size();
      cp += cps_[k];
      continue;
    }
    std::string& e = shown_[k];
    e.clear();
    if (!append_shown(e, texts_[k], p.shown)) return false;  // a repr in other quotes: the value path
    at += e.size();
    cp += uni::count_code_points(e);
  }
  text_bytes_ = at;
  // A render this long is the engine's LimitError (the value path renders it for real).
  if (text_bytes_ > jinja::EngineLimits{}.max_output_bytes) return false;
  if (!checks_hold(s)) return false;
  if (!cfg.output.empty()) write_row(s, r.out);
  r.stats = s.stats;
  return true;
}

void LinePath::write_row(const Shape& s, std::string& out) {
  const MarkedRender& f = s.first;
  out.reserve(out.size() + f.json.size() + 2 * text_bytes_ + s.spans_bytes + 16);
  out += "{\"text\": \"";
  for (const Piece& p : f.pieces) {
    out.append(f.json.data() + p.json_begin, p.json_end - p.json_begin);
    if (p.text < 0) continue;
    const size_t k = static_cast<size_t>(p.text);
    if (p.shown == chat::MarkerAt::Shown::raw && plain_[k])
      out += texts_[k];
    else
      json::append_escaped(out, p.shown != chat::MarkerAt::Shown::raw ? std::string_view(shown_[k]) : texts_[k], false);
  }
  out += "\", \"spans\": [";
  // The spans through a pointer (room for the longest numbers): their heads are the shape's, their
  // numbers written in place.
  if (spans_.size() < s.spans_bytes) spans_.resize(std::max(s.spans_bytes, 2 * spans_.size()));
  char* const first = spans_.data();
  char* w = first;
  for (size_t i = 0; i < s.spans.size(); ++i) {
    const Shape::SpanAt& sp = s.spans[i];
    const std::string& head = s.span_heads[i];
    std::memcpy(w, head.data(), head.size());
    w = put_span_numbers(w + head.size(), cp_starts_[sp.begin.piece] + sp.begin_cp, cp_starts_[sp.end.piece] + sp.end_cp,
                         starts_[sp.begin.piece] + sp.begin.at, starts_[sp.end.piece] + sp.end.at);
  }
  std::memcpy(w, "]}\n", 3);
  out.append(first, static_cast<size_t>(w + 3 - first));
}

namespace {

// The skeleton's strings are the walk's texts: filled with strings found nowhere in the line, the
// walk of the messages read from it gives back exactly those, in their numbers.
bool walk_gives_the_texts(std::string_view line, const LineScan& scan) {
  size_t run = 0, longest = 0;
  for (char c : line) longest = std::max(longest, run = c == 'Q' ? run + 1 : 0);
  const std::string nonce(longest + 1, 'Q');
  auto fill = [&](size_t k) { return "@" + std::to_string(k) + "@" + nonce; };
  std::string synthetic;
  size_t copied = 0;
  for (const LineScan::Text& t : scan.strings) {
    synthetic.append(line.substr(copied, t.open + 1 - copied));
    if (t.index >= 0) synthetic += fill(static_cast<size_t>(t.index));
    copied = t.close;
  }
  synthetic.append(line.substr(copied));
  try {
    const Sample sample = read_sample(Format::openai, json::parse(synthetic));
    const Value* messages = detail::field(sample.context, "messages");
    if (!messages) return false;
    const chat::MarkedMessages marked = chat::mark_message_texts(*messages);
    if (marked.texts.size() != scan.texts.size()) return false;
    for (size_t k = 0; k < marked.texts.size(); ++k)
      if (marked.texts[k] != fill(k)) return false;
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

}  // namespace

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
  if (shapes_.count(scan_.key) || refused_.count(scan_.key)) return;
  if (refused_.size() >= kMaxSkeletons) refused_.clear();
  refused_.insert(scan_.key);  // until it is learned: a skeleton is tried once
  if (!walk_gives_the_texts(line, scan_)) return;
  auto s = std::make_unique<Shape>();
  found_.clear();
  for (const LineScan::Text& t : scan_.strings) {  // the strings as a matched line gives them
    TextAt at;
    at.open = t.open;
    if (!scan_text(line, at) || at.close != t.close) return;
    found_.push_back(at);
    s->string_text.push_back(t.index);
  }
  s->texts = scan_.texts.size();
  s->stats = r.stats;
  if (failed) {
    s->cache = failed;
    s->error = r.error;
    s->reason = r.reason;
    RowResult again;
    if (!write(*s, line, cfg, again) || again.reason != r.reason || !same_stats(again.stats, r.stats)) return;
  } else {
    s->first = *kr.first;
    s->cache = kr.cache;
    s->conditions = kr.memo->conditions;
    if (!learn_row(*s, *kr.memo)) return;
    // The line written this way must be the value path's row, counts included.
    RowResult again;
    if (!write(*s, line, cfg, again) || again.out != r.out || !same_stats(again.stats, r.stats)) return;
  }
  if (shapes_.size() >= kMaxSkeletons) forget();
  refused_.erase(scan_.key);
  tree_.add(line, found_, s.get());
  shapes_.emplace(scan_.key, std::move(s));
}

bool LinePath::learn_row(Shape& shape, const LabelMemo& m) {
  Shape* const s = &shape;
  // A text's shown form is made once per line (shown_): one form other than raw per text.
  std::vector<chat::MarkerAt::Shown> form(s->texts, chat::MarkerAt::Shown::raw);
  for (const Piece& p : s->first.pieces) {
    if (p.text >= static_cast<long>(s->texts)) return false;
    if (p.text >= 0 && p.shown != chat::MarkerAt::Shown::raw) {
      chat::MarkerAt::Shown& f = form[static_cast<size_t>(p.text)];
      if (f != chat::MarkerAt::Shown::raw && f != p.shown) return false;
      f = p.shown;
    }
    s->piece_cps.push_back(uni::count_code_points(std::string_view(s->first.marked).substr(p.begin, p.end - p.begin)));
  }
  auto cps_before = [&](const MemoPos& pos) {
    return uni::count_code_points(std::string_view(s->first.marked).substr(s->first.pieces[pos.piece].begin, pos.at));
  };
  s->spans_bytes = 3;  // "]}\n"
  for (const LabelMemo::MemoSpan& sp : m.spans) {
    if (sp.role >= m.roles.size()) return false;
    s->spans.push_back({sp.train, sp.begin, sp.end, cps_before(sp.begin), cps_before(sp.end)});
    std::string head = s->span_heads.empty() ? "{\"role\": " : ", {\"role\": ";
    json::dump_string(head, m.roles[sp.role], false);
    head += span_train_member(sp.train);
    s->spans_bytes += head.size() + kSpanNumbersMax;
    s->span_heads.push_back(std::move(head));
  }
  for (const LabelMemo::MemoDropped& d : m.dropped) {
    if (!d.texts_found) return false;  // find_dropped needs the message's values
    s->repr_found.insert(s->repr_found.end(), d.repr_texts.begin(), d.repr_texts.end());
    if (!d.string_arguments.empty()) s->checks.push_back({d.begin, d.end, d.string_arguments});
  }
  return true;
}

}  // namespace toolchat::convert
