#include "dialects/json_stream.hpp"

#include <cstdint>

#include "value/escape_scan.hpp"

namespace toolchat::dialects::scan {
namespace {

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

void append_u(std::string& out, uint32_t cu) {
  static constexpr char kHex[] = "0123456789abcdef";
  char b[6] = {'\\', 'u', kHex[cu >> 12 & 15], kHex[cu >> 8 & 15], kHex[cu >> 4 & 15], kHex[cu & 15]};
  out.append(b, 6);
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A code point (or lone surrogate) decoded from the model's string, written as json.dumps
// (ensure_ascii=False) writes it; a lone surrogate stays an escape (as UTF-8 it could not be).
void append_char(std::string& out, uint32_t cp) {
  switch (cp) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (cp < 0x20 || (cp >= 0xD800 && cp <= 0xDFFF)) append_u(out, cp);
  else append_utf8(out, cp);
}

constexpr size_t kNeedMore = 0, kBad = SIZE_MAX;

// An escape at p[0] == '\\' with n bytes available: bytes it takes (its canonical text appended to
// out), kNeedMore when it is cut off, kBad when it is not a JSON escape.
size_t read_escape(const char* p, size_t n, std::string& out) {
  if (n < 2) return kNeedMore;
  switch (p[1]) {
    case '"': out += "\\\""; return 2;
    case '\\': out += "\\\\"; return 2;
    case '/': out += '/'; return 2;
    case 'b': out += "\\b"; return 2;
    case 'f': out += "\\f"; return 2;
    case 'n': out += "\\n"; return 2;
    case 'r': out += "\\r"; return 2;
    case 't': out += "\\t"; return 2;
    case 'u': break;
    default: return kBad;
  }
  if (n < 6) {
    for (size_t k = 2; k < n; ++k)
      if (json::hex_digit(p[k]) < 0) return kBad;
    return kNeedMore;
  }
  int32_t cu = json::hex4(p + 2);
  if (cu < 0) return kBad;
  if (cu >= 0xD800 && cu <= 0xDBFF) {
    // A high surrogate pairs with an escaped low one right after it; decided on the bytes that
    // could still make that pair.
    static constexpr std::string_view kLowLead = "\\u";
    size_t have = n - 6;
    const char* q = p + 6;
    bool could_pair = true;
    for (size_t k = 0; k < have && k < 6 && could_pair; ++k) {
      char c = q[k];
      if (k < 2) could_pair = c == kLowLead[k];
      else if (k == 2) could_pair = c == 'd' || c == 'D';
      else if (k == 3) could_pair = (c >= 'c' && c <= 'f') || (c >= 'C' && c <= 'F');
      else could_pair = json::hex_digit(c) >= 0;
    }
    if (could_pair && have < 6) return kNeedMore;
    if (could_pair) {
      uint32_t lo = static_cast<uint32_t>(json::hex4(q + 2));
      append_utf8(out, 0x10000 + ((static_cast<uint32_t>(cu) - 0xD800) << 10 | (lo - 0xDC00)));
      return 12;
    }
  }
  append_char(out, static_cast<uint32_t>(cu));
  return 6;
}

// A UTF-8 sequence at p[0] >= 0x80: its length when well formed, 0 when cut off by the end of the
// input, kBad when not well formed (surrogates included).
size_t utf8_len(const unsigned char* p, size_t n) {
  unsigned char c = p[0];
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) len = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return kBad;
  }
  for (size_t k = 1; k < len; ++k) {
    if (k >= n) return 0;
    unsigned char b = p[k];
    if (k == 1 ? (b < lo || b > hi) : (b & 0xC0) != 0x80) return kBad;
  }
  return len;
}

// The escapes whose canonical text is the model's own: they stay inside a plain run.
bool kept_escape(char e) {
  return e == '"' || e == '\\' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't';
}

}  // namespace

void JsonStream::reset(size_t watch) {
  st_ = St::Value;
  stop_ = Stop::NeedMore;
  watch_ = watch;
  kind_ = 0;
  key_ = pending_start_ = false;
  stack_.clear();
  out_.clear();
  num_.clear();
  lit_ = {};
  lit_pos_ = 0;
}

bool JsonStream::number_ok() const {
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  const std::string& s = num_;
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t b = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > b;
  };
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < n && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == n;
}

bool JsonStream::begin_value(char c) {
  switch (c) {
    case '{':
    case '[':
      if (stack_.size() >= max_depth) return false;
      out_ += c;
      stack_.push_back(c);
      st_ = c == '{' ? St::KeyOrClose : St::ValueOrClose;
      return true;
    case '"':
      out_ += '"';
      key_ = false;
      st_ = St::Str;
      return true;
    case 't': lit_ = "true"; break;
    case 'f': lit_ = "false"; break;
    case 'n': lit_ = "null"; break;
    default:
      if (c != '-' && (c < '0' || c > '9')) return false;
      num_.assign(1, c);
      st_ = St::Num;
      return true;
  }
  lit_pos_ = 1;
  st_ = St::Lit;
  return true;
}

void JsonStream::end_value() {
  if (stack_.empty()) {
    st_ = St::Done;
    stop_ = Stop::Done;
    return;
  }
  st_ = St::After;
  if (stack_.size() <= watch_) stop_ = Stop::ValueEnd;
}

size_t JsonStream::string_run(const char* p, size_t n) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  // Bytes that are written as they came (plain ASCII, well-formed UTF-8 and the kept escapes) are
  // appended as one run; only the others are looked at one by one.
  size_t i = 0, run = 0;
  for (;;) {
    i = json::next_escape(u, i, n, true);
    if (i >= n) break;
    const unsigned char c = u[i];
    if (c == '\\' && i + 1 < n && kept_escape(p[i + 1])) {
      i += 2;
      continue;
    }
    if (c == 0x7F) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      size_t k = utf8_len(u + i, n - i);
      if (k != 0 && k != kBad) {
        i += k;
        continue;
      }
    }
    out_.append(p + run, i - run);
    if (c == '"') {
      out_ += '"';
      ++i;
      if (key_) {
        st_ = St::Colon;
        if (stack_.size() <= watch_) stop_ = Stop::Key;
      } else {
        end_value();
      }
      return i;
    }
    if (c == '\\') {
      size_t k = read_escape(p + i, n - i, out_);
      if (k == kNeedMore) return i;
      if (k == kBad) {
        error();
        return i;
      }
      i += k;
    } else if (c < 0x20) {
      append_char(out_, c);  // a raw control character: accepted, written escaped
      ++i;
    } else if (utf8_len(u + i, n - i) == 0) {
      return i;  // a character cut by the end of the input
    } else {
      out_ += "\xEF\xBF\xBD";  // U+FFFD for each byte that does not start a valid sequence
      ++i;
    }
    run = i;
  }
  out_.append(p + run, n - run);
  return n;
}

size_t JsonStream::feed(std::string_view s) {
  const char* p = s.data();
  const size_t n = s.size();
  size_t i = 0;
  stop_ = Stop::NeedMore;
  while (i < n) {
    const char c = p[i];
    switch (st_) {
      case St::Str: {
        i += string_run(p + i, n - i);
        if (stop_ != Stop::NeedMore) return i;
        if (st_ == St::Str && i < n) return i;  // a cut escape or character: offered again later
        continue;
      }
      case St::Num:
        if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
          num_ += c;
          ++i;
          continue;
        }
        if (!number_ok()) {
          error();
          return i;
        }
        out_ += num_;
        num_.clear();
        end_value();
        if (stop_ != Stop::NeedMore) return i;
        continue;
      case St::Lit:
        if (c != lit_[lit_pos_]) {
          error();
          return i;
        }
        ++i;
        if (++lit_pos_ == lit_.size()) {
          out_ += lit_;
          end_value();
          if (stop_ != Stop::NeedMore) return i;
        }
        continue;
      case St::Done: stop_ = Stop::Done; return i;
      case St::Error: stop_ = Stop::Error; return i;
      default: break;
    }
    if (is_ws(c)) {
      ++i;
      continue;
    }
    switch (st_) {
      case St::Value:
      case St::ValueOrClose:
        if (st_ == St::ValueOrClose && c == ']') break;
        if (!pending_start_ && stack_.size() <= watch_) {
          pending_start_ = true;
          kind_ = c;
          stop_ = Stop::ValueStart;
          return i;
        }
        pending_start_ = false;
        if (!begin_value(c)) {
          error();
          return i;
        }
        ++i;
        continue;
      case St::KeyOrClose:
        if (c == '}') break;
        [[fallthrough]];
      case St::Key:
        if (c != '"') {
          error();
          return i;
        }
        out_ += '"';
        key_ = true;
        st_ = St::Str;
        ++i;
        continue;
      case St::Colon:
        if (c != ':') {
          error();
          return i;
        }
        out_ += ':';
        st_ = St::Value;
        ++i;
        continue;
      case St::After:
        if (c == ',') {
          out_ += ',';
          st_ = stack_.back() == '{' ? St::Key : St::Value;
          ++i;
          continue;
        }
        break;
      default: break;
    }
    // A closer: after a value, or right after the opener.
    if ((c == '}' || c == ']') && !stack_.empty() && stack_.back() == (c == '}' ? '{' : '[')) {
      out_ += c;
      stack_.pop_back();
      ++i;
      end_value();
      if (stop_ != Stop::NeedMore) return i;
      continue;
    }
    {
          error();
          return i;
        }
  }
  if (st_ == St::Done) stop_ = Stop::Done;
  return i;
}

}  // namespace toolchat::dialects::scan
