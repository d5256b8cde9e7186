// json.loads with CPython 3.11's C scanner semantics (Modules/_json.c), iterative.
// Positions are tracked in bytes and converted to code points only when an error is raised.
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "value/bigint.hpp"
#include "value/escape_scan.hpp"
#include "value/files.hpp"
#include "value/json.hpp"
#include "value/unicode.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::json {

namespace {

inline bool is_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Byte length of a UTF-8 sequence starting with lead byte c (input is validated first).
inline size_t seq_len(unsigned char c) { return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4; }

class Reader {
 public:
  Reader(std::string_view s, const ReadLimits& lim) : s_(s), n_(s.size()), lim_(lim) {}

  Value run();

 private:
  std::string_view s_;
  size_t n_;
  const ReadLimits& lim_;
  std::string buf_;  // scratch for strings with escapes
  static constexpr size_t npos = std::string_view::npos;

  unsigned char at(size_t i) const { return static_cast<unsigned char>(s_[i]); }
  size_t skip_ws(size_t i) const {
    while (i < n_ && is_ws(at(i))) ++i;
    return i;
  }
  // True when at least k code points start at byte offset i.
  bool has_chars(size_t i, size_t k) const {
    for (; k > 0; --k) {
      if (i >= n_) return false;
      i += seq_len(at(i));
    }
    return true;
  }

  [[noreturn]] void fail(const char* msg, size_t pos, ErrorKind kind = ErrorKind::JSONDecodeError) const;
  // i: just after the opening quote; sets sv to the text (into the input, or into buf_).
  size_t scan_string(size_t i, std::string_view& sv);
  Value scan_number(size_t& i);
  bool scan_hex4(size_t i, uint32_t& cp) const;

  struct Frame {
    bool obj = false;
    std::vector<Value> items;                     // arrays
    DictEntries entries;                          // objects, first position of each key
    std::unique_ptr<std::unordered_map<std::string_view, size_t>> index;  // large objects
    Value key;                                    // pending key of an object
    void add(Value&& v);
  };

  // Keys repeat a lot (Python's scanner memoizes them too): a small direct-mapped cache. Made on
  // first use and only for inputs big enough to repeat keys: building and freeing 256 slots cost
  // more than the whole parse of a small object (a streamed tool call, parsed once per call).
  static constexpr size_t kKeyCache = 256;
  static constexpr size_t kKeyCacheMinInput = 4096;
  std::unique_ptr<Value[]> key_cache_;
  Value make_key(std::string_view k);
};

// Python's JSONDecodeError: "%s: line %d column %d (char %d)", counting code points.
void Reader::fail(const char* msg, size_t pos, ErrorKind kind) const {
  if (pos > n_) pos = n_;
  size_t chars = 0, line = 1, last_nl_char = 0;
  bool seen_nl = false;
  for (size_t i = 0; i < pos; ++i) {
    unsigned char c = at(i);
    if ((c & 0xC0) == 0x80) continue;
    if (c == '\n') { ++line; last_nl_char = chars; seen_nl = true; }
    ++chars;
  }
  size_t col = seen_nl ? chars - last_nl_char : chars + 1;
  std::string m = msg;
  m += ": line " + std::to_string(line) + " column " + std::to_string(col) + " (char " +
       std::to_string(chars) + ")";
  throw Error(kind, std::move(m));
}

bool Reader::scan_hex4(size_t i, uint32_t& cp) const {
  const int32_t v = i + 4 <= n_ ? hex4(s_.data() + i) : -1;
  cp = static_cast<uint32_t>(v);
  return v >= 0;
}

// scanstring_unicode (strict=True). Returns the offset just past the closing quote.
size_t Reader::scan_string(size_t i, std::string_view& sv) {
  const size_t begin = i - 1;
  std::string& out = buf_;
  out.clear();
  size_t end = i;
  for (;;) {
    // The next quote, backslash or control character (16 bytes at a time): a string's plain runs
    // are most of a JSON line.
    size_t next = next_escape(reinterpret_cast<const unsigned char*>(s_.data()), end, n_, false);
    if (next == n_) fail("Unterminated string starting at", begin);
    unsigned char c = at(next);
    if (c <= 0x1F) fail("Invalid control character at", next);
    if (c == '"') {
      if (end == i) {  // no escapes: a view into the input
        sv = s_.substr(i, next - i);
      } else {
        out.append(s_.data() + end, next - end);
        sv = out;
      }
      return next + 1;
    }
    out.append(s_.data() + end, next - end);
    ++next;  // past the backslash
    if (next == n_) fail("Unterminated string starting at", begin);
    c = at(next);
    if (c != 'u') {
      end = next + 1;
      const int unescaped = unescape_letter(c);
      if (unescaped < 0) fail("Invalid \\escape", end - 2);
      out += static_cast<char>(unescaped);
      continue;
    }
    ++next;  // past 'u'
    // Python: four hex digits and at least one more character must follow.
    if (!has_chars(next, 5)) fail("Invalid \\uXXXX escape", next - 1);
    uint32_t cp;
    if (!scan_hex4(next, cp)) fail("Invalid \\uXXXX escape", next - 1);
    end = next + 4;
    if (cp >= 0xD800 && cp <= 0xDBFF && has_chars(end, 7) && at(end) == '\\' && at(end + 1) == 'u') {
      uint32_t c2;
      if (!scan_hex4(end + 2, c2)) fail("Invalid \\uXXXX escape", end + 1);
      if (c2 >= 0xDC00 && c2 <= 0xDFFF) {
        cp = 0x10000 + (((cp - 0xD800) << 10) | (c2 - 0xDC00));
        end += 6;
      }
    }
    uni::append_utf8(out, cp);
  }
}

// _match_number_unicode. On "no number here" raises Expecting value at the start.
Value Reader::scan_number(size_t& idx) {
  const size_t start = idx;
  size_t i = idx;
  if (i < n_ && at(i) == '-') ++i;
  if (i < n_ && at(i) >= '1' && at(i) <= '9') {
    ++i;
    while (i < n_ && is_digit(at(i))) ++i;
  } else if (i < n_ && at(i) == '0') {
    ++i;
  } else {
    fail("Expecting value", start);
  }
  bool is_float = false;
  if (i + 1 < n_ && at(i) == '.' && is_digit(at(i + 1))) {
    is_float = true;
    i += 2;
    while (i < n_ && is_digit(at(i))) ++i;
  }
  if (i + 1 < n_ && (at(i) == 'e' || at(i) == 'E')) {
    size_t e_start = i++;
    if (i + 1 < n_ && (at(i) == '-' || at(i) == '+')) ++i;
    while (i < n_ && is_digit(at(i))) ++i;
    if (is_digit(at(i - 1))) is_float = true;
    else i = e_start;
  }
  idx = i;
  const char* b = s_.data() + start;
  const char* e = s_.data() + i;
  if (!is_float) {
    int64_t v = 0;
    auto r = std::from_chars(b, e, v);
    if (r.ec == std::errc() && r.ptr == e) return Value::integer(v);
    // Beyond int64: a big int, as Python's int() makes it (its 4300-digit limit raises
    // ValueError right here, before any later syntax error).
    check_int_str_digits(static_cast<size_t>(e - b) - (*b == '-' ? 1 : 0));
    BigInt big;
    BigInt::from_decimal(std::string_view(b, static_cast<size_t>(e - b)), big);
    return make_int(big);
  }
  double d = 0;
  auto r = std::from_chars(b, e, d);
  if (r.ec == std::errc::result_out_of_range) {
    // Decide overflow vs underflow from the decimal magnitude, like float() would round.
    const char* p = b;
    bool neg = *p == '-';
    if (neg) ++p;
    int64_t mag = 0;  // position of the first significant digit relative to the point
    bool found = false;
    const char* q = p;
    int64_t int_digits = 0;
    while (q < e && is_digit(static_cast<unsigned char>(*q))) { ++q; ++int_digits; }
    // leading zeros
    const char* z = p;
    while (z < q && *z == '0') ++z;
    if (z < q) { mag = q - z; found = true; }
    if (q < e && *q == '.') {
      ++q;
      int64_t zeros = 0;
      while (q < e && is_digit(static_cast<unsigned char>(*q))) {
        if (!found) { if (*q == '0') ++zeros; else { found = true; mag = -zeros; } }
        ++q;
      }
    }
    int64_t exp = 0;
    if (q < e && (*q == 'e' || *q == 'E')) {
      ++q;
      bool eneg = false;
      if (*q == '-' || *q == '+') { eneg = *q == '-'; ++q; }
      while (q < e) {
        if (exp < 100000000) exp = exp * 10 + (*q - '0');
        ++q;
      }
      if (eneg) exp = -exp;
    }
    double mag_d = found ? static_cast<double>(mag + exp) : -1e9;
    d = mag_d > 0 ? std::numeric_limits<double>::infinity() : 0.0;
    if (neg) d = -d;
  } else if (r.ec != std::errc() || r.ptr != e) {
    fail("Expecting value", start);  // unreachable: the grammar above is from_chars-compatible
  }
  return Value::floating(d);
}

Value Reader::make_key(std::string_view k) {
  if (k.size() > 64 || n_ < kKeyCacheMinInput) return Value::string(k);
  if (!key_cache_) key_cache_ = std::make_unique<Value[]>(kKeyCache);
  size_t h = std::hash<std::string_view>()(k) & (kKeyCache - 1);
  Value& slot = key_cache_[h];
  if (!slot.is_str() || slot.str() != k) slot = Value::string(k);
  return slot;
}

// dict(pairs): a repeated key keeps its first position and takes the last value.
void Reader::Frame::add(Value&& v) {
  std::string_view k = key.str();
  if (index) {
    auto [it, fresh] = index->emplace(std::string_view(k), entries.size());
    if (!fresh) { entries[it->second].second = std::move(v); return; }
  } else {
    for (auto& e : entries) {
      std::string_view ek = e.first.str();
      if (ek.size() == k.size() && std::memcmp(ek.data(), k.data(), k.size()) == 0) {
        e.second = std::move(v);
        return;
      }
    }
    if (entries.size() >= 16) {
      index = std::make_unique<std::unordered_map<std::string_view, size_t>>();
      for (size_t j = 0; j < entries.size(); ++j) index->emplace(entries[j].first.str(), j);
      index->emplace(std::string_view(k), entries.size());
    }
  }
  entries.emplace_back(std::move(key), std::move(v));
}

Value Reader::run() {
  if (n_ > lim_.max_bytes)
    throw Error(ErrorKind::LimitError, "JSON input too large (" + std::to_string(n_) +
                                           " bytes, limit " + std::to_string(lim_.max_bytes) + ")");
  size_t bad = utf8::find_invalid(s_, lim_.allow_surrogates);
  if (bad != std::string_view::npos) fail("invalid UTF-8 byte at", bad);
  if (n_ >= 3 && s_.substr(0, 3) == "\xEF\xBB\xBF")
    fail("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);

  std::vector<Frame> stack;
  size_t i = skip_ws(0);
  Value v;

  // Reads `"key" ws : ws` at i for the object on top of the stack.
  auto read_key = [&](Frame& f) {
    if (i >= n_ || at(i) != '"') fail("Expecting property name enclosed in double quotes", i);
    std::string_view sv;
    i = scan_string(i + 1, sv);
    f.key = make_key(sv);
    i = skip_ws(i);
    if (i >= n_ || at(i) != ':') fail("Expecting ':' delimiter", i);
    i = skip_ws(i + 1);
  };

  for (;;) {
    // ---- one value at i (scan_once_unicode) ----
    if (i >= n_) fail("Expecting value", i);
    unsigned char c = at(i);
    switch (c) {
      case '"':
      {
        std::string_view sv;
        i = scan_string(i + 1, sv);
        v = Value::string(sv);
      }
        break;
      case '[':
      case '{': {
        if (stack.size() >= lim_.max_depth)
          fail(("nesting too deep (limit " + std::to_string(lim_.max_depth) + ")").c_str(), i);
        bool obj = c == '{';
        i = skip_ws(i + 1);
        if (i < n_ && at(i) == (obj ? '}' : ']')) {
          ++i;
          v = obj ? Value::dict() : Value::list();
          break;
        }
        // Small documents (a tool call) dominate: one allocation for the frames and one per
        // container's first entries, rather than growing from one slot.
        if (stack.capacity() == 0) stack.reserve(8);
        stack.emplace_back();
        stack.back().obj = obj;
        if (obj) stack.back().entries.reserve(4);
        else stack.back().items.reserve(4);
        if (obj) read_key(stack.back());
        continue;  // parse the first element
      }
      case 'n':
        if (i + 3 < n_ && s_.compare(i, 4, "null") == 0) { v = Value::none(); i += 4; }
        else fail("Expecting value", i);
        break;
      case 't':
        if (i + 3 < n_ && s_.compare(i, 4, "true") == 0) { v = Value::boolean(true); i += 4; }
        else fail("Expecting value", i);
        break;
      case 'f':
        if (i + 4 < n_ && s_.compare(i, 5, "false") == 0) { v = Value::boolean(false); i += 5; }
        else fail("Expecting value", i);
        break;
      case 'N':
        if (i + 2 < n_ && s_.compare(i, 3, "NaN") == 0) {
          v = Value::floating(std::numeric_limits<double>::quiet_NaN());
          i += 3;
        } else {
          fail("Expecting value", i);
        }
        break;
      case 'I':
        if (i + 7 < n_ && s_.compare(i, 8, "Infinity") == 0) {
          v = Value::floating(std::numeric_limits<double>::infinity());
          i += 8;
        } else {
          fail("Expecting value", i);
        }
        break;
      default:
        if (c == '-' && i + 8 < n_ && s_.compare(i, 9, "-Infinity") == 0) {
          v = Value::floating(-std::numeric_limits<double>::infinity());
          i += 9;
        } else {
          v = scan_number(i);
        }
        break;
    }
    // ---- attach the finished value to its parents, closing containers as they end ----
    for (;;) {
      if (stack.empty()) {
        i = skip_ws(i);
        if (i != n_) fail("Extra data", i);
        return v;
      }
      Frame& f = stack.back();
      if (f.obj) f.add(std::move(v));
      else f.items.push_back(std::move(v));
      i = skip_ws(i);
      if (i < n_ && at(i) == (f.obj ? '}' : ']')) {
        ++i;
        if (f.obj) {
          v = Value::dict();
          v.dict_obj().entries = std::move(f.entries);  // DictObj indexes itself lazily
        } else {
          v = Value::list(std::move(f.items));
        }
        stack.pop_back();
        continue;
      }
      if (i >= n_ || at(i) != ',') fail("Expecting ',' delimiter", i);
      i = skip_ws(i + 1);
      if (f.obj) read_key(f);
      break;
    }
  }
}

}  // namespace

Value parse(std::string_view text, const ReadLimits& lim) {
  Reader r(text, lim);
  return r.run();
}

Value parse_file(const std::string& path, const ReadLimits& lim) {
  std::string text = files::read_file(path, lim.max_bytes, "JSON input");
  // json.load(open(path, encoding="utf-8")) decodes the file before parsing it.
  if (!lim.allow_surrogates) {
    std::string bad = utf8::decode_error(text);
    if (!bad.empty()) throw Error(ErrorKind::UnicodeDecodeError, path + ": " + bad);
  }
  try {
    return parse(text, lim);
  } catch (const Error& e) {
    throw Error(e.kind(), path + ": " + e.message());
  }
}

}  // namespace toolchat::json
