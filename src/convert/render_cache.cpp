// Renders reused across conversations of one shape (see render_cache.hpp).
#include "convert/render_cache.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>

#include "chat/content_marks.hpp"
#include "convert/text_cuts.hpp"
#include "convert/value_key.hpp"
#include "toolchat/json.hpp"
#include "value/pystr.hpp"
#include "value/text_watch.hpp"

namespace toolchat::convert {

bool repr_single_quoted(std::string_view t) {
  return t.find('\'') == std::string_view::npos || t.find('"') != std::string_view::npos;
}

bool append_shown(std::string& out, std::string_view t, chat::MarkerAt::Shown shown) {
  switch (shown) {
    case chat::MarkerAt::Shown::raw: out += t; return true;
    case chat::MarkerAt::Shown::json:  // json.dumps(ensure_ascii=False), as the probe shows (its "<"
                                       // and marker characters raw), without the quotes
      json::append_escaped(out, t, false);
      return true;
    case chat::MarkerAt::Shown::repr: {  // Python's repr, the quotes (single ones) left out
      if (!repr_single_quoted(t)) return false;
      const size_t at = out.size();
      pystr::repr_append(out, t);
      out.erase(at, 1);
      out.pop_back();
      return true;
    }
  }
  return false;
}

namespace {

// Past these, the cache forgets everything (memory stays bounded) ...
constexpr size_t kMaxBytes = size_t{16} << 20;
// ... and after this many shapes seen, it stays on only where a shape is reused
// more often than not.
constexpr size_t kTrialShapes = 128;

void escape_pieces(MarkedRender& r) {
  r.json.clear();
  for (Piece& p : r.pieces) {
    p.json_begin = r.json.size();
    json::append_escaped(r.json, std::string_view(r.marked).substr(p.begin, p.end - p.begin), false);
    p.json_end = r.json.size();
  }
}

// put_back's text escaped as a JSON string's contents, from the escaped pieces.
void put_back_json(const MarkedRender& r, const std::vector<std::string_view>& texts, std::string& out) {
  std::string shown;
  for (const Piece& p : r.pieces) {
    out.append(r.json, p.json_begin, p.json_end - p.json_begin);
    if (p.text < 0) continue;
    if (p.shown == chat::MarkerAt::Shown::raw) {
      json::append_escaped(out, texts[p.text], false);
    } else {
      shown.clear();
      append_shown(shown, texts[p.text], p.shown);
      json::append_escaped(out, shown, false);
    }
  }
}

// A marker as Python's repr shows it (a list or dict of texts printed): its private-use
// characters spelled \ue0xx, the probe's newline \n, in single quotes.
constexpr std::string_view kReprOpen = "\\ue000\\nqQ<\"";

// The repr-shown marker at `at` (kReprOpen there), or false.
bool read_repr_marker_at(std::string_view s, size_t at, chat::MarkerAt& out) {
  if (at == 0 || s[at - 1] != '\'') return false;
  size_t p = at + kReprOpen.size(), i = 0, digits = 0;
  while (p + 6 <= s.size() && s.compare(p, 4, "\\ue0") == 0) {  // \ue01d: digit d; \ue001: the end
    const char a = s[p + 4], d = s[p + 5];
    if (a == '0' && d == '1' && digits > 0) {
      if (p + 6 >= s.size() || s[p + 6] != '\'') return false;
      out = {i, p + 6 - at, true, chat::MarkerAt::Shown::repr};
      return true;
    }
    if (a != '1' || d < '0' || d > '9' || digits > 9) return false;
    i = i * 10 + static_cast<size_t>(d - '0');
    ++digits;
    p += 6;
  }
  return false;
}

// False when the render holds a marker character (or a repr-shown marker's opening) that is not
// a whole marker of a known text.
bool cut(MarkedRender& r, size_t texts) {
  const std::string& s = r.marked;
  size_t at = 0;
  for (;;) {
    const size_t raw = s.find(chat::kMarkerOpen, at), repr = s.find(kReprOpen, at);
    const size_t next = std::min(raw, repr);
    if (next == std::string::npos) {
      r.pieces.push_back({at, s.size(), -1, chat::MarkerAt::Shown::raw});
      return true;
    }
    chat::MarkerAt m;
    const bool read = next == raw ? chat::read_marker_at(s, next, m) : read_repr_marker_at(s, next, m);
    if (!read || !m.probed || m.index >= texts) return false;
    r.pieces.push_back({at, next, static_cast<long>(m.index), m.shown});
    at = next + m.length;
  }
}

// The render with the texts in place of the markers, into `out` (its buffer reused); with
// `where`, the byte ranges the texts took in it (sorted, adjacent ones merged: chat::merge_ranges).
void put_back_into(std::string& out, const MarkedRender& r, const std::vector<std::string_view>& texts,
                   TextRanges* where = nullptr, std::vector<size_t>* starts = nullptr) {
  size_t size = 0;
  for (const Piece& p : r.pieces) size += p.end - p.begin + (p.text >= 0 ? texts[p.text].size() + 8 : 0);
  out.clear();
  out.reserve(size);
  if (where) where->clear();
  if (starts) starts->clear();
  for (const Piece& p : r.pieces) {
    if (starts) starts->push_back(out.size());
    out.append(r.marked, p.begin, p.end - p.begin);
    if (p.text < 0) continue;
    const size_t at = out.size();
    append_shown(out, texts[p.text], p.shown);
    if (where && out.size() > at) where->push_back({at, out.size()});
  }
  if (where) chat::merge_ranges(*where);
}

std::string put_back(const MarkedRender& r, const std::vector<std::string_view>& texts, TextRanges* where = nullptr) {
  std::string out;
  put_back_into(out, r, texts, where);
  return out;
}

struct Shape {
  bool usable = false;
  std::vector<RenderKey> keys;
  std::vector<MarkedRender> renders;
  size_t bytes = 0;
  std::unique_ptr<ShapeMemo> memo;  // the labeler's, once it tried (RenderHit)
  bool memo_tried = false;
  // Texts some render shows inside a Python repr: put back only where repr quotes them as the
  // marker (single quotes), and their places not given (`ranges`: the texts' places are found
  // in the real render as before, escapes and all).
  std::vector<size_t> repr_texts;
};

// The texts shown inside a repr in r, added to `out` (sorted, once each).
void add_repr_texts(const MarkedRender& r, std::vector<size_t>& out) {
  for (const Piece& p : r.pieces)
    if (p.text >= 0 && p.shown == chat::MarkerAt::Shown::repr) out.push_back(static_cast<size_t>(p.text));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
}

bool repr_texts_fit(const std::vector<size_t>& repr_texts, const std::vector<std::string_view>& texts) {
  for (size_t k : repr_texts)
    if (!repr_single_quoted(texts[k])) return false;
  return true;
}

bool same_keys(const std::vector<RenderKey>& a, const std::vector<RenderKey>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const RenderKey& x, const RenderKey& y) {
           return x.count == y.count && x.generation_prompt == y.generation_prompt;
         });
}

// The shape key of a conversation: its messages as mark_message_texts marks them (texts as
// markers), written straight from the messages (chat::walk_marked_messages), with its texts.
class ShapeKeyOf : public chat::MarkedVisitor {
 public:
  ShapeKeyOf(ValueKey& key, std::vector<std::string_view>& texts) : key_(key), texts_(texts) { texts_.clear(); }
  bool keep(const Value& v) override { return key_.add(v); }
  void list(size_t n) override { key_.open_list(n); }
  void dict(size_t n) override { key_.open_dict(n); }
  bool key(const Value& k) override { return key_.add_key(k); }
  void text(size_t index, std::string_view text, std::string_view marker) override {
    if (texts_.size() <= index) texts_.resize(index + 1);
    texts_[index] = text;
    key_.add_string(marker);
  }

 private:
  ValueKey& key_;
  std::vector<std::string_view>& texts_;
};

}  // namespace

bool marked_messages_key(const Value& messages, ValueKey& key, std::vector<std::string_view>& texts) {
  ShapeKeyOf walk(key, texts);
  return chat::walk_marked_messages(messages, true, walk);
}

// A proof render (a shape's, a cut's or a prefix's, with markers for the texts), watched:
// `inspected` set when the template looked into a marker in a way the screen of texts does not
// account for (value/text_watch.hpp); such a render proves nothing for other texts.
chat::CaseResult watched_render(const RenderFn& render, const Value& marked, const RenderKey& k,
                                const text_watch::Screened& screened, bool& inspected) {
  const text_watch::Scope watch(screened);
  chat::CaseResult m = render(marked, k.count, k.generation_prompt);
  inspected = watch.inspected();
  return m;
}

// A conversation of a known shape: its renders are the shape's with its texts put back.
void renders_from_shape(Shape& s, std::vector<chat::CaseResult>& out, const std::vector<std::string_view>& texts,
                        std::vector<TextRanges>* ranges, std::string* first_json, RenderHit* hit) {
  if (first_json && s.renders.front().ok) put_back_json(s.renders.front(), texts, *first_json);
  out.resize(s.renders.size());  // the strings of the renders before keep their buffers
  if (ranges) ranges->resize(out.size());
  size_t count = out.size();
  if (hit) {
    hit->memo = &s.memo;
    hit->memo_tried = &s.memo_tried;
    hit->shape = &s.renders;
    hit->texts = texts;
    hit->first_only = hit->first_only_if_memo && s.memo && s.renders.front().ok;
    if (hit->first_only) count = 1;
    if (s.renders.front().ok) put_back_into(out[0].text, s.renders.front(), texts, nullptr, &hit->starts);
  }
  for (size_t i = 0; i < count; ++i) {
    const MarkedRender& r = s.renders[i];
    chat::CaseResult& o = out[i];
    o.ok = r.ok;
    o.spans.clear();
    if (r.ok) {
      if (!(hit && i == 0)) put_back_into(o.text, r, texts, ranges ? &(*ranges)[i] : nullptr);
      else if (ranges) put_back_into(o.text, r, texts, &(*ranges)[i]);
      o.error.clear();
      o.message.clear();
    } else {
      o.text.clear();
      o.error = r.error;
      o.message = r.message;
    }
  }
}

struct RenderCache::Impl {
  TestedLiterals literals;
  // What the proof renders may test texts for (value/text_watch.hpp).
  text_watch::Screened watched{&literals.contained, &literals.compared, &literals.end_chars};
  // The first and last bytes of the compared strings (an empty one matches every text).
  std::array<bool, 256> compared_first{}, compared_last{};
  std::array<bool, 256> end_char{};  // the bytes of literals.end_chars
  // The contained strings: those alone with their first byte are searched as themselves, the
  // others by that byte (Qwen3's four tags all start with '<': one search instead of four).
  std::vector<std::string> searched_alone;
  struct Searched {
    char first;
    std::vector<std::string> strings;
  };
  std::vector<Searched> searched_by_first;
  // Looked up by string_view: the key of a conversation is made in key_buffer.
  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
  };
  std::unordered_map<std::string, Shape, KeyHash, std::equal_to<>> shapes;
  // Shapes of screened conversations whose texts cut (cut_renders): keyed by the shape key and
  // the cut.
  std::unordered_map<std::string, Shape, KeyHash, std::equal_to<>> cut_shapes;
  std::unique_ptr<TextCutter> cutter;
  TextCuts cuts;
  std::string cut_key;
  bool cuts_on = true;
  // Renders of prefixes (first k messages, with or without the generation prompt), for the
  // screened conversations: keyed by the prefix's shape key, the variables and the flag.
  struct Prefix {
    bool usable = false;
    MarkedRender render;
    std::vector<size_t> repr_texts;
  };
  std::unordered_map<std::string, Prefix, KeyHash, std::equal_to<>> prefixes;
  std::string prefix_key_buffer;
  std::vector<std::string_view> prefix_texts;
  std::string key_buffer;
  std::vector<std::string_view> texts;  // the conversation's texts, views into its messages
  size_t bytes = 0;
  bool on = true;

  bool prefixes_on = true;

  // Render k of a screened conversation. When its first k.count messages hold no screened text,
  // from the prefix's marked render (a render sees only the messages it is given, so this is a
  // shape of its own, learned the way a conversation's shape is: rendered both ways, kept when
  // the marked render with the texts put back is the real one); else for real.
  // `first_screened`: the number of the conversation's first screened text (a prefix numbers its
  // texts as the conversation does, so one holding more texts than that holds it); `held_from`:
  // the fewest messages a prefix was found holding it with (more hold it too).
  void prefix_render(chat::CaseResult& out, const Value& messages, const Value& variables, const RenderKey& k,
                     const RenderFn& render, RenderCacheStats& stats, size_t first_screened, size_t& held_from) {
    auto real = [&] { out = render(messages, k.count, k.generation_prompt); };
    const auto& all = messages.items();
    if (!prefixes_on || k.count >= all.size() || k.count >= held_from) return real();
    const Value prefix = Value::list(std::vector<Value>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k.count)));
    ValueKey key(prefix_key_buffer, ValueKey::Strings::text);
    if (!marked_messages_key(prefix, key, prefix_texts) || !key.add_with_known(variables) ||
        !key.add(Value::boolean(k.generation_prompt)))
      return real();
    if (prefix_texts.size() > first_screened) {
      held_from = k.count;
      return real();
    }
    if (auto it = prefixes.find(key.view()); it != prefixes.end()) {
      const Prefix& p = it->second;
      if (!p.usable || !repr_texts_fit(p.repr_texts, prefix_texts)) return real();
      ++stats.prefix_hits;
      out.ok = p.render.ok;
      out.spans.clear();
      if (p.render.ok) {
        put_back_into(out.text, p.render, prefix_texts);
        out.error.clear();
        out.message.clear();
      } else {
        out.text.clear();
        out.error = p.render.error;
        out.message = p.render.message;
      }
      return;
    }
    real();
    const std::string prefix_key(key.view());
    Prefix p;
    try {
      const chat::MarkedMessages marked = chat::mark_message_texts(prefix, true);
      bool inspected = false;
      chat::CaseResult m = watched_render(render, marked.messages, k, watched, inspected);
      MarkedRender& r = p.render;
      r.ok = m.ok;
      if (inspected || m.ok != out.ok || !m.spans.empty() || !out.spans.empty()) {
        p.usable = false;
      } else if (!m.ok) {
        r.error = m.error;
        r.message = m.message;
        p.usable = m.error == out.error && m.message == out.message;
      } else {
        r.marked = std::move(m.text);
        p.usable = cut(r, prefix_texts.size());
        if (p.usable) add_repr_texts(r, p.repr_texts);
        if (p.usable && !repr_texts_fit(p.repr_texts, prefix_texts)) return;  // not a test of the prefix
        p.usable = p.usable && put_back(r, prefix_texts) == out.text;
      }
    } catch (const std::exception&) {
      p.usable = false;  // a template that refuses the markers
    }
    if (!p.usable) p.render = MarkedRender{};
    ++stats.prefix_learned;
    if (stats.prefix_learned >= kTrialShapes && stats.prefix_hits < stats.prefix_learned) {
      prefixes_on = false;  // prefixes do not repeat here
      prefixes.clear();
      return;
    }
    const size_t size = prefix_key.size() + p.render.marked.size() + p.render.pieces.size() * sizeof(Piece) +
                        p.render.message.size();
    if (bytes + size > kMaxBytes) {
      shapes.clear();
      cut_shapes.clear();
      prefixes.clear();
      bytes = 0;
    }
    bytes += size;
    prefixes.emplace(prefix_key, std::move(p));
  }

  // Texts a template could tell from their markers (render_cache.hpp).
  bool screened(const std::vector<std::string_view>& texts, const std::vector<char>* ascii) const {
    for (size_t k = 0; k < texts.size(); ++k)
      if (screened_text(texts[k], ascii && (*ascii)[k])) return true;
    return false;
  }
  bool screened_text(std::string_view t, bool ascii = false) const {
    const auto front = static_cast<unsigned char>(t.front()), back = static_cast<unsigned char>(t.back());
    if (ascii) {  // no marker character; whitespace is a byte up to ' ' (DEL is not ASCII here)
      if (front <= 0x20 || back <= 0x20) return true;
    } else {
      if (space_like(t, 0, t.size()) || space_like(t, last_char(t), t.size())) return true;
      if (text_watch::holds_marker(t)) return true;  // U+E000..U+E03F: marker characters
    }
    if (end_char[front] || end_char[back]) return true;
    for (const std::string& l : searched_alone)
      if (t.find(l) != std::string::npos) return true;
    for (const Searched& g : searched_by_first)
      for (size_t p = t.find(g.first); p != std::string_view::npos; p = t.find(g.first, p + 1))
        for (const std::string& l : g.strings)
          if (t.size() - p >= l.size() && t.substr(p, l.size()) == l) return true;
    if (!compared_first[static_cast<unsigned char>(t.front())] && !compared_last[static_cast<unsigned char>(t.back())])
      return false;  // no compared string starts as t does or ends as t ends
    for (const std::string& l : literals.compared)
      if (t.size() >= l.size() && (t.compare(0, l.size(), l) == 0 || t.compare(t.size() - l.size(), l.size(), l) == 0))
        return true;
    return false;
  }

  // A new shape, its real renders in `out`: rendered again with markers, kept when the marked
  // renders give the real ones back. A conversation that does not render is kept as its one
  // failed render (the rest are not made).
  // The marked renders of a new shape into `s` (`marked`: its messages with a marker per text of
  // `texts`), usable when putting the texts back gives its real renders `out`. False for a
  // repr-shown text the repr quotes otherwise: not a test of the shape.
  bool make_shape(Shape& s, const std::vector<chat::CaseResult>& out, const Value& marked,
                  const std::vector<std::string_view>& texts, const std::vector<RenderKey>& keys,
                  const RenderFn& render) const {
    s.keys = keys;
    s.usable = out.size() == keys.size() || (out.size() == 1 && !out.front().ok);
    bool unfit = false;
    try {
      for (size_t i = 0; s.usable && i < out.size(); ++i) {
        bool inspected = false;
        chat::CaseResult m = watched_render(render, marked, keys[i], watched, inspected);
        MarkedRender r;
        r.ok = m.ok;
        if (inspected || m.ok != out[i].ok || !m.spans.empty() || !out[i].spans.empty()) {
          s.usable = false;
        } else if (!m.ok) {
          r.error = m.error;
          r.message = m.message;
          s.usable = m.error == out[i].error && m.message == out[i].message;
        } else {
          r.marked = std::move(m.text);
          s.usable = cut(r, texts.size());
          if (s.usable) add_repr_texts(r, s.repr_texts);
          unfit = s.usable && !repr_texts_fit(s.repr_texts, texts);
          s.usable = s.usable && !unfit && put_back(r, texts) == out[i].text;
        }
        s.bytes += r.marked.size() + r.pieces.size() * sizeof(Piece) + r.message.size();
        s.renders.push_back(std::move(r));
      }
    } catch (const std::exception&) {
      s.usable = false;  // a template that refuses the markers
    }
    if (!s.usable) {
      s.renders.clear();  // remembered as a shape to render for real
      s.bytes = 0;
    }
    return !unfit;
  }

  // A shape kept in `table` (shapes or cut_shapes), within the memory bound.
  void remember(std::unordered_map<std::string, Shape, KeyHash, std::equal_to<>>& table, std::string_view key,
                Shape&& s) {
    s.bytes += key.size();
    if (bytes + s.bytes > kMaxBytes) {
      shapes.clear();
      cut_shapes.clear();
      prefixes.clear();
      bytes = 0;
    }
    bytes += s.bytes;
    table.emplace(std::string(key), std::move(s));
  }

  // A new shape, its real renders in `out`: rendered again with markers, kept when the marked
  // renders give the real ones back. A conversation that does not render is kept as its one
  // failed render (the rest are not made).
  void learn_shape(std::string_view key, std::vector<chat::CaseResult>& out, const Value& messages,
                   const std::vector<std::string_view>& texts, const std::vector<RenderKey>& keys, const RenderFn& render,
                   std::vector<TextRanges>* ranges, RenderCacheStats& stats) {
    // The messages to render, marked: the same walk the key was made with, so the same texts.
    const chat::MarkedMessages marked = chat::mark_message_texts(messages, true);
    Shape s;
    if (!make_shape(s, out, marked.messages, texts, keys, render)) return;  // the next one tries again
    if (s.usable) {
      ++stats.learned;
      if (s.renders.front().ok) escape_pieces(s.renders.front());
      if (ranges && s.repr_texts.empty()) {
        ranges->resize(s.renders.size());
        for (size_t i = 0; i < s.renders.size(); ++i)
          if (s.renders[i].ok) put_back(s.renders[i], texts, &(*ranges)[i]);
      }
    } else {
      ++stats.refused_shapes;
    }
    remember(shapes, key, std::move(s));
    const size_t seen = stats.learned + stats.refused_shapes;
    if ((stats.learned == 0 && stats.refused_shapes >= 8) || (seen >= kTrialShapes && stats.hits < seen)) {
      on = false;  // shapes do not repeat, or none passes: every conversation
                      // is rendered for real
      shapes.clear();
      cut_shapes.clear();
      prefixes.clear();
    }
  }

  // A screened conversation whose texts cut (text_cuts.hpp): its renders from the shape of its cut
  // (its shape key and every text's cut), learned as a shape is, its real renders made by
  // `screened_renders` (through known prefixes). False when the texts do not cut or the cut's
  // shape was refused: the caller renders it as before.
  bool cut_renders(std::vector<chat::CaseResult>& out, std::string_view shape_key, const Value& messages,
                   const std::vector<RenderKey>& keys, const RenderFn& render, RenderCacheStats& stats,
                   const std::function<void()>& screened_renders) {
    if (!cuts_on || !cutter->cut(texts, cuts)) return false;
    // The number of texts first: the cuts then end where the last text's does, the shape key follows.
    cut_key = std::to_string(texts.size());
    cut_key += ':';
    cut_key += cuts.key;
    cut_key += shape_key;
    if (auto it = cut_shapes.find(cut_key); it != cut_shapes.end()) {
      Shape& s = it->second;
      if (!s.usable || !same_keys(s.keys, keys) || !repr_texts_fit(s.repr_texts, cuts.parts)) return false;
      ++stats.cut_hits;
      renders_from_shape(s, out, cuts.parts, nullptr, nullptr, nullptr);
      return true;
    }
    screened_renders();
    const Value marked = chat::replace_message_texts(messages, TextCutter::marked_texts(cuts));
    Shape s;
    if (!make_shape(s, out, marked, cuts.parts, keys, render)) return true;  // the next one tries again
    ++(s.usable ? stats.cut_learned : stats.cut_refused);
    remember(cut_shapes, cut_key, std::move(s));
    const size_t seen = stats.cut_learned + stats.cut_refused;
    if (seen >= kTrialShapes && stats.cut_hits < seen) {
      cuts_on = false;  // cuts do not repeat here
      cut_shapes.clear();
    }
    return true;
  }
};

RenderCache::RenderCache(const jinja::Template& t) : impl_(std::make_unique<Impl>()) {
  impl_->literals = tested_literals(t);
  for (char c : impl_->literals.end_chars) impl_->end_char[static_cast<unsigned char>(c)] = true;
  impl_->cutter = std::make_unique<TextCutter>(impl_->literals,
                                               [im = impl_.get()](std::string_view t) { return im->screened_text(t); });
  std::vector<Impl::Searched> groups;
  for (const std::string& l : impl_->literals.contained) {  // none empty (TemplateUses)
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Impl::Searched& x) { return x.first == l.front(); });
    if (g == groups.end()) g = groups.insert(groups.end(), {l.front(), {}});
    g->strings.push_back(l);
  }
  for (Impl::Searched& g : groups) {
    if (g.strings.size() == 1) impl_->searched_alone.push_back(std::move(g.strings.front()));
    else impl_->searched_by_first.push_back(std::move(g));
  }
  for (const std::string& l : impl_->literals.compared) {
    if (l.empty()) {
      impl_->compared_first.fill(true);
      break;
    }
    impl_->compared_first[static_cast<unsigned char>(l.front())] = true;
    impl_->compared_last[static_cast<unsigned char>(l.back())] = true;
  }
}

RenderCache::~RenderCache() = default;

bool RenderCache::screens(const std::vector<std::string_view>& texts, const std::vector<char>* ascii) const {
  return impl_->screened(texts, ascii);
}

std::vector<chat::CaseResult> RenderCache::renders(const Value& messages, const Value& variables,
                                                   const std::vector<RenderKey>& keys, const RenderFn& render,
                                                   std::vector<TextRanges>* ranges, std::string* first_json) {
  std::vector<chat::CaseResult> out;
  renders(out, messages, variables, keys, render, ranges, first_json);
  return out;
}

void RenderCache::renders(std::vector<chat::CaseResult>& out, const Value& messages, const Value& variables,
                          const std::vector<RenderKey>& keys, const RenderFn& render, std::vector<TextRanges>* ranges,
                          std::string* first_json, RenderHit* hit) {
  const size_t hits = stats_.hits, prefix_hits = stats_.prefix_hits, cut_hits = stats_.cut_hits;
  reused_or_real(out, messages, variables, keys, render, ranges, first_json, hit);
  // A render put together from a shape or a prefix is not held to the engine's output limit, which
  // the real render of the conversation exceeds (the labeler compiles with the default limits):
  // such a conversation is rendered for real, for the engine's error, and is no reuse (the labeler
  // would take that error for the shape's).
  const size_t put_together = hit && hit->first_only ? std::min<size_t>(out.size(), 1) : out.size();
  for (size_t i = 0; i < put_together; ++i)
    if (out[i].ok && out[i].text.size() > jinja::EngineLimits{}.max_output_bytes) {
      stats_.hits = hits;
      stats_.prefix_hits = prefix_hits;
      stats_.cut_hits = cut_hits;
      impl_->on = false;  // the real path below, not another reuse
      reused_or_real(out, messages, variables, keys, render, ranges, first_json, hit);
      impl_->on = true;
      return;
    }
}

void RenderCache::reused_or_real(std::vector<chat::CaseResult>& out, const Value& messages, const Value& variables,
                                 const std::vector<RenderKey>& keys, const RenderFn& render,
                                 std::vector<TextRanges>* ranges, std::string* first_json, RenderHit* hit) {
  if (hit) {
    const bool first_only_if_memo = hit->first_only_if_memo;
    *hit = RenderHit{};
    hit->first_only_if_memo = first_only_if_memo;
  }
  if (ranges) ranges->clear();
  if (first_json) first_json->clear();
  auto real = [&] {
    out.clear();
    for (const RenderKey& k : keys) {
      out.push_back(render(messages, k.count, k.generation_prompt));
      if (&k == &keys.front() && !out.back().ok) break;  // the conversation does not render: no use going on
    }
  };
  Impl& im = *impl_;
  if (!im.on) return real();
  ValueKey shape_key(im.key_buffer, ValueKey::Strings::text);
  std::vector<std::string_view>& texts = im.texts;
  const bool keyed = marked_messages_key(messages, shape_key, texts) && shape_key.add_with_known(variables);
  if (!keyed) {  // not cached (a value JSON cannot hold); the texts, whole, for the count
    chat::MarkedMessages marked = chat::mark_message_texts(messages, true);
    texts.assign(marked.texts.begin(), marked.texts.end());
    if (im.screened(texts, nullptr)) ++stats_.screened;
    texts.clear();  // views into `marked`
    return real();
  }
  if (too_long_to_reuse(texts)) return real();
  if (im.screened(texts, nullptr)) {
    ++stats_.screened;
    if (ranges) return real();  // the texts' places are found in the real renders
    auto screened_renders = [&] {
      size_t first_screened = 0, held_from = SIZE_MAX;
      while (first_screened < texts.size() && !im.screened_text(texts[first_screened])) ++first_screened;
      out.clear();
      for (const RenderKey& k : keys) {
        out.emplace_back();
        im.prefix_render(out.back(), messages, variables, k, render, stats_, first_screened, held_from);
        if (&k == &keys.front() && !out.back().ok) break;  // the conversation does not render
      }
    };
    if (!im.cut_renders(out, shape_key.view(), messages, keys, render, stats_, screened_renders)) screened_renders();
    return;
  }
  const std::string_view key = shape_key.view();
  if (auto it = im.shapes.find(key); it != im.shapes.end()) {
    Shape& s = it->second;
    if (!s.usable || !same_keys(s.keys, keys)) return real();
    if (!s.repr_texts.empty() && (ranges || !repr_texts_fit(s.repr_texts, texts))) return real();
    ++stats_.hits;
    renders_from_shape(s, out, texts, ranges, first_json, hit);
    return;
  }
  real();
  im.learn_shape(key, out, messages, texts, keys, render, ranges, stats_);
}

// ---- the strings a template tests contents against ----

TestedLiterals tested_literals(const jinja::Template& t) {
  jinja::TemplateUses uses = t.uses();
  return {std::move(uses.contained), std::move(uses.compared), std::move(uses.stripped)};
}

}  // namespace toolchat::convert
