// Message texts located through a marker render (see content_marks.hpp).
#include "chat/content_marks.hpp"

#include <algorithm>
#include <charconv>

#include "chat/conv_util.hpp"
#include "toolchat/json.hpp"

namespace toolchat::chat {

namespace {

// U+E000, digits as U+E010..U+E019, U+E001 (UTF-8: EE 80 80 / EE 80 9x / EE 80 81).
constexpr std::string_view kOpen = kMarkerOpen, kClose = "\xEE\x80\x81";
// The escape probe: a newline and a double quote (escaped inside a JSON string, as tojson
// shows a text), letters of both cases and "<" (a template that changes case or escapes HTML
// turns the marker into something unreadable; a Python repr spells out the private-use
// characters, so texts shown that way are not located by markers).
constexpr std::string_view kProbe = "\nqQ<\"", kProbeJson = "\\nqQ<\\\"";

}  // namespace

void make_marker(std::string& out, size_t i, bool escape_probe) {
  char digits[24];
  const size_t n = static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, i).ptr - digits);
  out.assign(kOpen);
  if (escape_probe) out += kProbe;
  for (size_t k = 0; k < n; ++k) {
    out += "\xEE\x80";
    out += static_cast<char>(0x90 + (digits[k] - '0'));
  }
  out += kClose;
}

namespace {

// The marker at `at` (its index and length), or false.
bool read_marker(std::string_view s, size_t at, size_t& index, size_t& len) {
  MarkerAt m;
  if (!read_marker_at(s, at, m) || m.probed) return false;
  index = m.index;
  len = m.length;
  return true;
}

}  // namespace

bool read_marker_at(std::string_view s, size_t at, MarkerAt& out) {
  if (s.compare(at, 3, kOpen) != 0) return false;
  size_t p = at + 3, i = 0, digits = 0;
  out.probed = false;
  out.shown = MarkerAt::Shown::raw;
  for (auto [probe, shown] : {std::pair{kProbe, MarkerAt::Shown::raw}, std::pair{kProbeJson, MarkerAt::Shown::json}})
    if (s.compare(p, probe.size(), probe) == 0) {
      out.probed = true;
      out.shown = shown;
      p += probe.size();
      break;
    }
  while (p + 3 <= s.size() && s.compare(p, 2, "\xEE\x80") == 0) {
    const unsigned char c = static_cast<unsigned char>(s[p + 2]);
    if (c == 0x81 && digits > 0) {
      out.index = i;
      out.length = p + 3 - at;
      return true;
    }
    if (c < 0x90 || c > 0x99 || digits > 9) return false;
    i = i * 10 + (c - 0x90);
    ++digits;
    p += 3;
  }
  return false;
}

namespace {

// The walk of the marked copy, told to a visitor: the copy's entries come in the message's
// order, the texts are numbered a message's content, then its reasoning, then its calls'
// arguments (strings at any depth; keys stay, they are the schema's names).
class MarkedWalk {
 public:
  MarkedWalk(MarkedVisitor& v, bool escape_probe) : v_(v), probe_(escape_probe) {}

  bool messages(const Value& ms) {
    if (!ms.is_list()) return v_.keep(ms);
    v_.list(ms.items().size());
    size_t next = 0;
    for (const auto& m : ms.items()) {
      if (!m.is_dict()) {
        if (!v_.keep(m)) return false;
        continue;
      }
      const Value* c = conv::get(m, "content");
      const Value* r = conv::get(m, "reasoning_content");
      size_t content_at = next, reasoning_at = next + (c ? count_content(*c) : 0);
      size_t calls_at = reasoning_at + (r ? count_text(*r) : 0);
      const auto& entries = m.dict_obj().entries;
      v_.dict(entries.size());
      for (const auto& [k, x] : entries) {
        if (!v_.key(k)) return false;
        const bool named = k.is_str();
        bool ok;
        if (named && k.str() == "content" && (x.is_str() || x.is_list())) ok = content(x, content_at);
        else if (named && k.str() == "reasoning_content") ok = text(x, reasoning_at);
        else if (named && k.str() == "tool_calls" && x.is_list()) ok = calls(x, calls_at);
        else ok = v_.keep(x);
        if (!ok) return false;
      }
      next = calls_at;  // past the calls' texts, when the message has calls
    }
    return true;
  }

 private:
  static size_t count_text(const Value& x) { return x.is_str() && !x.str().empty() ? 1 : 0; }
  static size_t count_content(const Value& x) {
    if (x.is_str()) return count_text(x);
    if (!x.is_list()) return 0;
    size_t n = 0;
    for (const auto& part : x.items())
      if (const Value* t = conv::get(part, "text"); t && t->is_str()) n += count_text(*t);
    return n;
  }

  bool text(const Value& x, size_t& at) {
    if (!x.is_str() || x.str().empty()) return v_.keep(x);
    make_marker(marker_, at, probe_);
    v_.text(at++, x.str(), marker_);
    return true;
  }
  bool tree(const Value& x, size_t& at) {
    if (x.is_str()) return text(x, at);
    if (x.is_list()) {
      v_.list(x.items().size());
      for (const auto& i : x.items())
        if (!tree(i, at)) return false;
      return true;
    }
    if (x.is_dict()) {
      v_.dict(x.dict_obj().entries.size());
      for (const auto& [k, i] : x.dict_obj().entries)
        if (!v_.key(k) || !tree(i, at)) return false;
      return true;
    }
    return v_.keep(x);
  }
  // Entries of a dict, with `field`'s value walked by `f`.
  template <class F>
  bool dict_with(const Value& d, std::string_view field, F f) {
    v_.dict(d.dict_obj().entries.size());
    for (const auto& [k, x] : d.dict_obj().entries) {
      if (!v_.key(k)) return false;
      if (!(k.is_str() && k.str() == field ? f(x) : v_.keep(x))) return false;
    }
    return true;
  }
  bool content(const Value& x, size_t& at) {
    if (x.is_str()) return text(x, at);
    v_.list(x.items().size());
    for (const auto& part : x.items()) {
      const Value* t = conv::get(part, "text");
      if (!(t && t->is_str() ? dict_with(part, "text", [&](const Value& v) { return text(v, at); }) : v_.keep(part)))
        return false;
    }
    return true;
  }
  bool calls(const Value& x, size_t& at) {
    v_.list(x.items().size());
    for (const auto& call : x.items()) {
      const Value* fn = conv::get(call, "function");
      const Value* args = fn ? conv::get(*fn, "arguments") : nullptr;
      bool ok = !args ? v_.keep(call) : dict_with(call, "function", [&](const Value& f) {
        return dict_with(f, "arguments", [&](const Value& a) { return tree(a, at); });
      });
      if (!ok) return false;
    }
    return true;
  }

  MarkedVisitor& v_;
  const bool probe_;
  std::string marker_;
};

}  // namespace

bool walk_marked_messages(const Value& messages, bool escape_probe, MarkedVisitor& visit) {
  return MarkedWalk(visit, escape_probe).messages(messages);
}

namespace {

// The marked copy built from the walk: a container is filled as its items arrive; values the
// copy keeps as they are stay shared with the messages.
class MarkedCopy final : public MarkedVisitor {
 public:
  // blank: texts empty; `replace`: text i is (*replace)[i]; else the markers.
  explicit MarkedCopy(MarkedMessages& out, bool blank = false, const std::vector<std::string>* replace = nullptr)
      : out_(out), blank_(blank), replace_(replace) {}
  bool keep(const Value& v) override {
    put(v);
    return true;
  }
  void list(size_t n) override { open(Value::list({}), n); }
  void dict(size_t n) override { open(Value::dict(), n); }
  bool key(const Value& k) override {
    open_.back().key = k;
    return true;
  }
  void text(size_t index, std::string_view text, std::string_view marker) override {
    if (out_.texts.size() <= index) out_.texts.resize(index + 1);
    out_.texts[index] = std::string(text);
    put(Value::string(blank_ ? std::string_view() : replace_ ? std::string_view((*replace_)[index]) : marker));
  }

 private:
  struct Open {
    Value container;
    size_t left;  // items still to come
    Value key;    // a dict's key waiting for its value
  };
  void open(Value c, size_t n) {
    if (n == 0) put(std::move(c));
    else open_.push_back({std::move(c), n, Value()});
  }
  void put(Value v) {
    for (;;) {
      if (open_.empty()) {
        out_.messages = std::move(v);
        return;
      }
      Open& o = open_.back();
      if (o.container.is_list()) o.container.list_obj().items.push_back(std::move(v));
      else o.container.dict_obj().set(o.key, std::move(v));
      if (--o.left > 0) return;
      v = std::move(o.container);
      open_.pop_back();
    }
  }

  MarkedMessages& out_;
  const bool blank_;
  const std::vector<std::string>* replace_;
  std::vector<Open> open_;
};

}  // namespace

MarkedMessages mark_message_texts(const Value& messages, bool escape_probe) {
  MarkedMessages out;
  MarkedCopy copy(out);
  walk_marked_messages(messages, escape_probe, copy);
  return out;
}

Value blank_message_texts(const Value& messages) {
  MarkedMessages out;
  MarkedCopy copy(out, true);
  walk_marked_messages(messages, false, copy);
  return out.messages;
}

Value replace_message_texts(const Value& messages, const std::vector<std::string>& texts) {
  MarkedMessages out;
  MarkedCopy copy(out, false, &texts);
  walk_marked_messages(messages, false, copy);
  return out.messages;
}

namespace {

enum class Ends { Both, Left, Right };
std::string_view strip(std::string_view t, Ends ends) {
  constexpr std::string_view ws = " \t\n\r\v\f";
  size_t b = ends != Ends::Right ? t.find_first_not_of(ws) : 0;
  if (b == std::string_view::npos) return {};
  size_t e = ends != Ends::Left ? t.find_last_not_of(ws) + 1 : t.size();
  return t.substr(b, e - b);
}

// Walks the marked render and the real one together: the template's text must be equal, and
// each marker must stand for its text as is, stripped (templates that trim the contents) or
// escaped as inside a JSON string (templates that show it through tojson).
// Records where each text went; false when the two do not line up.
bool line_up(const std::string& marked, const std::vector<std::string>& texts, const std::string& real,
             std::vector<std::pair<size_t, size_t>>& ranges) {
  size_t at = 0, pos = 0;
  while (at < marked.size()) {
    size_t next = marked.find(kOpen, at);
    if (next == std::string::npos) next = marked.size();
    if (real.compare(pos, next - at, marked, at, next - at) != 0) return false;
    pos += next - at;
    if (next == marked.size()) break;
    size_t index = 0, len = 0;
    if (!read_marker(marked, next, index, len) || index >= texts.size()) return false;
    bool placed = false;
    std::string quoted;  // the text inside a JSON string (a template showing it through tojson)
    json::dump_string(quoted, texts[index], false);
    const std::string_view forms[] = {texts[index], strip(texts[index], Ends::Both), strip(texts[index], Ends::Left),
                                      strip(texts[index], Ends::Right),
                                      std::string_view(quoted).substr(1, quoted.size() - 2)};
    for (std::string_view t : forms) {
      if (real.compare(pos, t.size(), t) != 0) continue;
      if (!t.empty()) ranges.push_back({pos, pos + t.size()});
      pos += t.size();
      placed = true;
      break;
    }
    if (!placed) return false;
    at = next + len;
  }
  return pos == real.size();
}

bool has_non_space(const std::string& s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return c != ' ' && c != '\n' && c != '\t' && c != '\r'; });
}

}  // namespace

void merge_ranges(std::vector<std::pair<size_t, size_t>>& r) {
  std::sort(r.begin(), r.end());
  std::vector<std::pair<size_t, size_t>> out;
  for (const auto& x : r) {
    if (x.second <= x.first) continue;
    if (!out.empty() && x.first <= out.back().second) out.back().second = std::max(out.back().second, x.second);
    else out.push_back(x);
  }
  r.swap(out);
}

ContentRanges locate_message_texts(const MarkedMessages& marked, const std::string& real,
                                   const std::function<std::string(const Value&)>& render_marked) {
  ContentRanges out;
  if (marked.texts.empty()) {
    out.by_markers = true;
    return out;
  }
  try {
    std::vector<std::pair<size_t, size_t>> ranges;
    if (line_up(render_marked(marked.messages), marked.texts, real, ranges)) {
      merge_ranges(ranges);
      out.bytes = std::move(ranges);
      out.by_markers = true;
      return out;
    }
  } catch (const std::exception&) {
    // a template that refuses the markers: search instead
  }
  size_t pos = 0;
  for (const std::string& t : marked.texts) {
    std::string_view s = t;
    size_t at = real.find(s, pos);
    if (at == std::string::npos) at = real.find(s);
    if (at == std::string::npos) {  // a template that trims the texts
      s = strip(t, Ends::Both);
      at = s.empty() ? std::string::npos : real.find(s, pos);
    }
    std::string quoted;
    if (at == std::string::npos) {  // or shows them through tojson
      json::dump_string(quoted, t, false);
      s = std::string_view(quoted).substr(1, quoted.size() - 2);
      at = real.find(s, pos);
    }
    if (at == std::string::npos) {
      out.not_found += has_non_space(t);
      continue;
    }
    out.bytes.push_back({at, at + s.size()});
    pos = at + s.size();
  }
  merge_ranges(out.bytes);
  return out;
}

}  // namespace toolchat::chat
