#include "tokenize/json_skim.hpp"

#include <vector>

#include "value/escape_scan.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

constexpr size_t kMaxDepth = 512;  // json::ReadLimits' default, which the loader keeps

}  // namespace

std::string_view JsonSkim::string(std::string& scratch) {
  ws();
  const size_t n = s_.size();
  const auto* p = reinterpret_cast<const unsigned char*>(s_.data());
  if (i_ >= n || s_[i_] != '"') throw Bad{i_};
  const size_t begin = ++i_;
  bool escaped = false;
  size_t run = begin;  // start of the plain run not yet copied to scratch
  for (;;) {
    const size_t k = json::next_escape(p, i_, n, false);
    if (k >= n || p[k] < 0x20) throw Bad{k};
    if (p[k] == '"') {
      i_ = k + 1;
      if (!escaped) return s_.substr(begin, k - begin);
      scratch.append(s_.data() + run, k - run);
      return scratch;
    }
    // A backslash.
    if (!escaped) {
      scratch.clear();
      escaped = true;
    }
    scratch.append(s_.data() + run, k - run);
    if (k + 1 >= n) throw Bad{k};
    const char e = s_[k + 1];
    i_ = k + 2;
    if (const int unescaped = json::unescape_letter(static_cast<unsigned char>(e)); unescaped >= 0) {
      scratch += static_cast<char>(unescaped);
      run = i_;
      continue;
    }
    if (e != 'u') throw Bad{k};
    auto hex4 = [&](size_t at, uint32_t& cp) {
      const int32_t v = at + 4 <= n ? json::hex4(s_.data() + at) : -1;
      cp = static_cast<uint32_t>(v);
      return v >= 0;
    };
    uint32_t cp;
    if (!hex4(i_, cp)) throw Bad{k};
    i_ += 4;
    // A high surrogate followed by an escaped low one is one character; any other surrogate
    // stays as it is (WTF-8), as json::parse keeps it.
    uint32_t low;
    if (cp >= 0xD800 && cp <= 0xDBFF && i_ + 1 < n && s_[i_] == '\\' && s_[i_ + 1] == 'u' && hex4(i_ + 2, low) &&
        low >= 0xDC00 && low <= 0xDFFF) {
      cp = 0x10000 + (((cp - 0xD800) << 10) | (low - 0xDC00));
      i_ += 6;
    }
    uni::append_utf8(scratch, cp);
    run = i_;
  }
}

void JsonSkim::skip_number() {
  const size_t n = s_.size();
  const size_t start = i_;
  if (i_ < n && s_[i_] == '-') ++i_;
  if (i_ < n && s_[i_] >= '1' && s_[i_] <= '9') {
    while (i_ < n && digit(s_[i_])) ++i_;
  } else if (i_ < n && s_[i_] == '0') {
    ++i_;
  } else {
    throw Bad{start};
  }
  if (i_ + 1 < n && s_[i_] == '.' && digit(s_[i_ + 1])) {
    i_ += 2;
    while (i_ < n && digit(s_[i_])) ++i_;
  }
  if (i_ + 1 < n && (s_[i_] == 'e' || s_[i_] == 'E')) {
    size_t j = i_ + 1;
    if (j < n && (s_[j] == '-' || s_[j] == '+')) ++j;
    if (j < n && digit(s_[j])) {
      while (j < n && digit(s_[j])) ++j;
      i_ = j;
    }
  }
}

bool JsonSkim::integer(std::string_view t, uint64_t max, uint64_t& v) {
  const bool negative = !t.empty() && t[0] == '-';
  if (negative) t.remove_prefix(1);
  if (t.empty()) return false;
  v = 0;
  for (char c : t) {
    if (!digit(c)) return false;  // a fraction, an exponent, a literal: not an integer
    if (v > (max - static_cast<uint64_t>(c - '0')) / 10) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return !negative || v == 0;
}

std::pair<size_t, size_t> JsonSkim::value(size_t depth) {
  ws();
  const size_t begin = i_;
  const size_t n = s_.size();
  std::vector<char> open;  // the closing bracket of each container we are in
  std::string scratch;
  for (;;) {
    // One value at i_.
    ws();
    if (i_ >= n) throw Bad{i_};
    const char c = s_[i_];
    bool scalar = true;
    if (c == '"') {
      string(scratch);
    } else if (c == '{' || c == '[') {
      if (depth + open.size() >= kMaxDepth) throw Bad{i_};
      ++i_;
      open.push_back(c == '{' ? '}' : ']');
      if (eat(open.back())) {
        open.pop_back();
      } else {
        if (c == '{') {
          string(scratch);
          expect(':');
        }
        scalar = false;
      }
    } else {
      static constexpr std::string_view kLiterals[] = {"null", "true", "false", "NaN", "Infinity", "-Infinity"};
      bool literal = false;
      for (std::string_view l : kLiterals) {
        if (s_.compare(i_, l.size(), l) == 0) {
          i_ += l.size();
          literal = true;
          break;
        }
      }
      if (!literal) skip_number();
    }
    if (!scalar) continue;  // the container's first element
    // After a value: close containers, or go on to the next element.
    for (;;) {
      if (open.empty()) return {begin, i_};
      if (eat(open.back())) {
        open.pop_back();
        continue;
      }
      expect(',');
      if (open.back() == '}') {
        string(scratch);
        expect(':');
      }
      break;
    }
  }
}

}  // namespace toolchat::tokenize
