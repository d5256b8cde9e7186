// json.dumps exactly like CPython 3.11 (Lib/json/encoder.py and Modules/_json.c).
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "value/bigint.hpp"
#include "value/escape_scan.hpp"
#include "value/json.hpp"
#include "value/json_value.hpp"

namespace toolchat::json {

namespace {

constexpr int kMaxDepth = 1000;
constexpr char kHex[] = "0123456789abcdef";

// Writes \uXXXX at d; returns the end.
char* put_u(char* d, uint32_t c) {
  *d++ = '\\';
  *d++ = 'u';
  *d++ = kHex[(c >> 12) & 15];
  *d++ = kHex[(c >> 8) & 15];
  *d++ = kHex[(c >> 4) & 15];
  *d++ = kHex[c & 15];
  return d;
}

// Short escape for the characters Python writes with one letter, else 0.
inline char short_escape(unsigned char c) {
  switch (c) {
    case '"': return '"';
    case '\\': return '\\';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    default: return 0;
  }
}

// Decodes one WTF-8 sequence at p[i] (surrogates allowed); returns its length, or 0 if the
// bytes are not well formed (then cp is U+FFFD).
size_t decode_wtf8(const unsigned char* p, size_t n, size_t i, uint32_t& cp) {
  unsigned char c = p[i];
  size_t len;
  uint32_t v;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) { len = 2; v = c & 0x1F; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; v = c & 0x0F; if (c == 0xE0) lo = 0xA0; }
  else if (c >= 0xF0 && c <= 0xF4) {
    len = 4; v = c & 0x07;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    cp = 0xFFFD;
    return 0;
  }
  if (i + len > n || p[i + 1] < lo || p[i + 1] > hi) { cp = 0xFFFD; return 0; }
  for (size_t k = 1; k < len; ++k) {
    if ((p[i + k] & 0xC0) != 0x80) { cp = 0xFFFD; return 0; }
    v = (v << 6) | (p[i + k] & 0x3F);
  }
  cp = v;
  return len;
}

// The escaped text of p[i..stop) written at d, which has room for six bytes per input byte plus
// 24 (a character that starts before `stop` is read whole, up to n); i ends at or just past stop.
char* escape_run(char* d, const unsigned char* p, size_t& i, size_t stop, size_t n, bool ensure_ascii) {
  for (;;) {
    const size_t plain = next_escape(p, i, stop, ensure_ascii);
    std::memcpy(d, p + i, plain - i);
    d += plain - i;
    i = plain;
    if (i >= stop) return d;
    const unsigned char c = p[i];
    if (c < 0x80) {
      if (char e = short_escape(c)) {
        *d++ = '\\';
        *d++ = e;
      } else {
        d = put_u(d, c);  // other controls, and DEL with ensure_ascii
      }
      ++i;
    } else {
      uint32_t cp;
      size_t len = decode_wtf8(p, n, i, cp);
      if (len == 0) len = 1;  // invalid byte: written as U+FFFD
      if (cp >= 0x10000) {
        cp -= 0x10000;
        d = put_u(d, 0xD800 | (cp >> 10));
        d = put_u(d, 0xDC00 | (cp & 0x3FF));
      } else {
        d = put_u(d, cp);
      }
      i += len;
    }
    if (i >= stop) return d;
  }
}

// Escapes are written a slice of the input at a time, so that the room a slice needs stays small.
constexpr size_t kSlice = size_t{1} << 15;

// The writer's output buffer: the thread's, reused from one dump to the next (a dump is tens of
// small pieces, and std::string's per-append bookkeeping and growth cost more than the bytes).
// A dump inside a dump (none today) gets a buffer of its own.
struct WriteBuffer {
  std::unique_ptr<char[]> data;
  size_t size = 0;
  bool busy = false;
};
thread_local WriteBuffer write_buffer;

class Writer {
 public:
  // `base`: bytes already in the output, which the size limit counts.
  Writer(size_t base, const DumpOptions& o) : o_(o), base_(base) {
    if (o.separators) {
      item_sep_ = o.separators->first;
      key_sep_ = o.separators->second;
    } else {
      item_sep_ = o.indent ? "," : ", ";
      key_sep_ = ": ";
    }
    if (!write_buffer.busy) {
      buf_ = &write_buffer;
      buf_->busy = true;
    } else {
      buf_ = &own_;
    }
    if (!buf_->data) {
      buf_->size = 4096;
      buf_->data.reset(new char[buf_->size]);
    }
    b_ = p_ = buf_->data.get();
    e_ = b_ + buf_->size;
  }
  ~Writer() {
    buf_->busy = false;
    if (buf_->size > (size_t{1} << 20)) {  // not kept for the thread's next dump
      buf_->data.reset();
      buf_->size = 0;
    }
  }
  void value(const Value& v, int depth);
  // What was written (valid until the writer is gone).
  std::string_view text() const { return {b_, static_cast<size_t>(p_ - b_)}; }

 private:
  const DumpOptions& o_;
  const size_t base_;
  std::string_view item_sep_, key_sep_;
  WriteBuffer* buf_;
  WriteBuffer own_;
  char *b_, *p_, *e_;  // buffer start, write position, end

  void room(size_t n) {
    if (static_cast<size_t>(e_ - p_) < n) grow(n);
  }
  [[gnu::noinline]] void grow(size_t n) {
    const size_t used = static_cast<size_t>(p_ - b_);
    const size_t size = std::max(buf_->size * 2, used + n + 4096);
    std::unique_ptr<char[]> data(new char[size]);
    std::memcpy(data.get(), b_, used);
    buf_->data = std::move(data);
    buf_->size = size;
    b_ = buf_->data.get();
    p_ = b_ + used;
    e_ = b_ + size;
  }
  void put(char c) {
    room(1);
    *p_++ = c;
  }
  void put(std::string_view s) {
    room(s.size());
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void string(std::string_view s);
  void newline(int level) {
    const std::string& ind = *o_.indent;
    room(1 + static_cast<size_t>(level) * ind.size());
    *p_++ = '\n';
    for (int k = 0; k < level; ++k) {
      std::memcpy(p_, ind.data(), ind.size());
      p_ += ind.size();
    }
    check_size();
  }
  void check_size() {
    if (base_ + static_cast<size_t>(p_ - b_) > o_.max_bytes)
      throw Error(ErrorKind::LimitError, "JSON output exceeds the size limit (" + std::to_string(o_.max_bytes) + " bytes)");
  }
  void list(const std::vector<Value>& items, int depth);
  void dict(const DictObj& d, int depth);
  void number(double d);
  void key(const Value& k);
};

void Writer::string(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  const size_t first = next_escape(p, 0, n, o_.ensure_ascii);
  room(first + 2);
  *p_++ = '"';
  std::memcpy(p_, s.data(), first);  // the plain start as it is: most texts and names are all plain
  p_ += first;
  for (size_t i = first; i < n;) {
    const size_t stop = std::min(n, i + kSlice);
    room(6 * (stop - i) + 24 + 1);
    p_ = escape_run(p_, p, i, stop, n, o_.ensure_ascii);
  }
  put('"');
}

[[noreturn]] void not_serializable(const Value& v) {
  throw Error(ErrorKind::TypeError, std::string("Object of type ") + type_name(v) + " is not JSON serializable");
}

void Writer::number(double d) {
  if (std::isnan(d)) put("NaN");
  else if (std::isinf(d)) put(d > 0 ? "Infinity" : "-Infinity");
  else put(float_repr(d));
}

void Writer::value(const Value& v, int depth) {
  if ((v.is_list() || v.is_dict()) && depth >= kMaxDepth)
    throw Error(ErrorKind::RecursionError, "maximum recursion depth exceeded while encoding a JSON object");
  switch (v.type()) {
    case Type::None: put("null"); return;
    case Type::Bool: put(v.as_bool() ? "true" : "false"); return;
    case Type::Int: {
      room(24);
      p_ = std::to_chars(p_, p_ + 24, v.as_int()).ptr;
      return;
    }
    case Type::Float: number(v.as_float()); return;
    case Type::Str: string(v.str()); return;
    case Type::List: {
      ListKind k = v.list_obj().lkind;
      if (k != ListKind::List && k != ListKind::Tuple) not_serializable(v);
      list(v.items(), depth);
      return;
    }
    case Type::Dict: dict(v.dict_obj(), depth); return;
    default:
      if (v.is_bigint()) {  // int.__repr__, 4300-digit limit
        std::string digits;
        int_str_append(digits, bigint_of(v));
        return put(digits);
      }
      not_serializable(v);  // Undefined, engine objects
  }
}

void Writer::list(const std::vector<Value>& items, int depth) {
  if (items.empty()) { put("[]"); return; }
  put('[');
  const bool ind = o_.indent.has_value();
  if (ind) newline(depth + 1);
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) {
      put(item_sep_);
      if (ind) newline(depth + 1);
    }
    value(items[i], depth + 1);
    check_size();
  }
  if (ind) newline(depth);
  put(']');
}

// Python: str as is, float -> repr (NaN/Infinity), True/False -> true/false, None -> null, int.
void Writer::key(const Value& k) {
  switch (k.type()) {
    case Type::Str: string(k.str()); return;
    case Type::Float: put('"'); number(k.as_float()); put('"'); return;
    case Type::Bool: put(k.as_bool() ? "\"true\"" : "\"false\""); return;
    case Type::None: put("\"null\""); return;
    case Type::Int:
      room(26);
      *p_++ = '"';
      p_ = std::to_chars(p_, p_ + 24, k.as_int()).ptr;
      *p_++ = '"';
      return;
    default:
      if (k.is_bigint()) {
        std::string digits;
        int_str_append(digits, bigint_of(k));
        put('"');
        put(digits);
        put('"');
        return;
      }
      throw Error(ErrorKind::TypeError,
                  std::string("keys must be str, int, float, bool or None, not ") + type_name(k));
  }
}

using Entry = const std::pair<Value, Value>*;

// `a < b` for (key, value) tuples, as tuple comparison does it: first unequal element decides.
bool item_less(Entry a, Entry b) {
  if (!py_equal(a->first, b->first)) return py_less(a->first, b->first);
  if (!py_equal(a->second, b->second)) return py_less(a->second, b->second);
  return false;
}

// CPython's list.sort comparison sequence (count_run + binarysort per run, runs of minrun),
// so that the first failing comparison, and thus the TypeError text, is Python's. Runs are
// merged comparing later-run elements on the left, as merge_lo/merge_hi/gallop do.
void python_sort(std::vector<Entry>& v) {
  const size_t n = v.size();
  if (n < 2) return;
  size_t minrun;
  {
    size_t m = n, r = 0;
    while (m >= 64) { r |= m & 1; m >>= 1; }
    minrun = m + r;
  }
  std::vector<std::pair<size_t, size_t>> runs;  // [begin, end)
  size_t lo = 0;
  while (lo < n) {
    size_t remaining = n - lo;
    // count_run
    size_t len = 1;
    if (remaining > 1) {
      len = 2;
      if (item_less(v[lo + 1], v[lo])) {
        while (lo + len < n && item_less(v[lo + len], v[lo + len - 1])) ++len;
        std::reverse(v.begin() + static_cast<ptrdiff_t>(lo), v.begin() + static_cast<ptrdiff_t>(lo + len));
      } else {
        while (lo + len < n && !item_less(v[lo + len], v[lo + len - 1])) ++len;
      }
    }
    if (len < minrun) {
      size_t force = remaining <= minrun ? remaining : minrun;
      // binarysort over [lo, lo+force), [lo, lo+len) already sorted
      for (size_t start = lo + len; start < lo + force; ++start) {
        Entry pivot = v[start];
        size_t l = lo, r = start;
        do {
          size_t p = l + ((r - l) >> 1);
          if (item_less(pivot, v[p])) r = p;
          else l = p + 1;
        } while (l < r);
        for (size_t p = start; p > l; --p) v[p] = v[p - 1];
        v[l] = pivot;
      }
      len = force;
    }
    runs.emplace_back(lo, lo + len);
    lo += len;
  }
  // Merge left to right.
  std::vector<Entry> merged;
  while (runs.size() > 1) {
    auto [a0, a1] = runs[0];
    auto [b0, b1] = runs[1];
    merged.clear();
    size_t i = a0, j = b0;
    while (i < a1 && j < b1) {
      if (item_less(v[j], v[i])) merged.push_back(v[j++]);
      else merged.push_back(v[i++]);
    }
    while (i < a1) merged.push_back(v[i++]);
    while (j < b1) merged.push_back(v[j++]);
    std::copy(merged.begin(), merged.end(), v.begin() + static_cast<ptrdiff_t>(a0));
    runs[0] = {a0, b1};
    runs.erase(runs.begin() + 1);
  }
}

void Writer::dict(const DictObj& d, int depth) {
  if (d.entries.empty()) { put("{}"); return; }
  put('{');
  const bool ind = o_.indent.has_value();
  if (ind) newline(depth + 1);
  auto emit = [&](const std::pair<Value, Value>& e, bool first) {
    if (!first) {
      put(item_sep_);
      if (ind) newline(depth + 1);
    }
    key(e.first);
    put(key_sep_);
    value(e.second, depth + 1);
    check_size();
  };
  if (o_.sort_keys) {
    std::vector<Entry> order;
    order.reserve(d.entries.size());
    for (const auto& e : d.entries) order.push_back(&e);
    python_sort(order);
    for (size_t i = 0; i < order.size(); ++i) emit(*order[i], i == 0);
  } else {
    for (size_t i = 0; i < d.entries.size(); ++i) emit(d.entries[i], i == 0);
  }
  if (ind) newline(depth);
  put('}');
}

}  // namespace

void dump_string(std::string& out, std::string_view s, bool ensure_ascii) {
  out += '"';
  append_escaped(out, s, ensure_ascii);
  out += '"';
}

void append_escaped(std::string& out, std::string_view s, bool ensure_ascii) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  // Written through a pointer into a scratch buffer with room for the worst case (a byte becomes
  // at most six), a slice of the input at a time so that the room stays small, then appended:
  // escapes are dense in some texts (JSON shown in a prompt), and appending each one to the
  // string costs more than the text.
  const size_t first = next_escape(p, 0, n, ensure_ascii);
  out.append(s.data(), first);  // the plain start as it is: most texts and names are all plain
  if (first == n) return;
  thread_local std::unique_ptr<char[]> scratch;
  thread_local size_t scratch_size = 0;
  for (size_t i = first; i < n;) {
    const size_t stop = std::min(n, i + kSlice);
    const size_t room = 6 * (stop - i) + 24;  // + 24: a character read past `stop` (up to 3 bytes)
    if (scratch_size < room) {
      scratch_size = std::max(room, size_t{4096});
      scratch.reset(new char[scratch_size]);
    }
    char* const start = scratch.get();
    char* const d = escape_run(start, p, i, stop, n, ensure_ascii);
    out.append(start, static_cast<size_t>(d - start));
  }
}

void dump(std::string& out, const Value& v, const DumpOptions& o) {
  Writer w(out.size(), o);
  try {
    w.value(v, 0);
  } catch (...) {
    out.append(w.text());  // what was written before the error, as documented
    throw;
  }
  out.append(w.text());
}

Value dumps_value(const Value& v, const DumpOptions& o) {
  Writer w(0, o);
  w.value(v, 0);
  Value out = Value::string(w.text());
  if (o.ensure_ascii) out.str_obj()->ascii = 1;  // every other byte was escaped
  return out;
}

std::string dumps(const Value& v, const DumpOptions& o) {
  std::string out;
  dump(out, v, o);
  return out;
}

}  // namespace toolchat::json
