#include "dialects/compact_json_text.hpp"

#include "value/json.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::dialects::compact_json_text {
namespace {

constexpr size_t kMaxKeys = 16;   // duplicate keys are looked for among at most this many per object
constexpr size_t kMaxDigits = 18; // fits int64 whatever the digits

// Walks canonical compact JSON; any doubt returns false.
class Walker {
 public:
  explicit Walker(std::string_view s) : s_(s) {}
  bool at_end() const { return i_ == s_.size(); }
  size_t pos() const { return i_; }
  void seek(size_t i) { i_ = i; }

  bool string(std::string_view* out) {
    if (i_ >= s_.size() || s_[i_] != '"') return false;
    size_t j = i_ + 1;
    for (; j < s_.size(); ++j) {
      unsigned char c = static_cast<unsigned char>(s_[j]);
      if (c == '"') break;
      if (c == '\\' || c < 0x20) return false;  // escapes are normalised by the slow path
    }
    if (j >= s_.size()) return false;
    if (out) *out = s_.substr(i_ + 1, j - i_ - 1);
    i_ = j + 1;
    return true;
  }

  bool value(size_t depth) {
    if (i_ >= s_.size() || depth > max_depth_) return false;
    switch (s_[i_]) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return string(nullptr);
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }

  bool object(size_t depth) {
    ++i_;  // '{'
    if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
    std::string_view keys[kMaxKeys];
    size_t n = 0;
    for (;;) {
      std::string_view k;
      if (!string(&k) || n == kMaxKeys) return false;
      for (size_t x = 0; x < n; ++x)
        if (keys[x] == k) return false;  // Python keeps the last value at the first position
      keys[n++] = k;
      if (i_ >= s_.size() || s_[i_] != ':') return false;
      ++i_;
      if (!value(depth)) return false;
      if (i_ >= s_.size()) return false;
      if (s_[i_] == '}') return ++i_, true;
      if (s_[i_] != ',') return false;
      ++i_;
    }
  }

 private:
  bool array(size_t depth) {
    ++i_;  // '['
    if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
    for (;;) {
      if (!value(depth) || i_ >= s_.size()) return false;
      if (s_[i_] == ']') return ++i_, true;
      if (s_[i_] != ',') return false;
      ++i_;
    }
  }

  bool literal(std::string_view lit) {
    if (s_.compare(i_, lit.size(), lit) != 0) return false;
    i_ += lit.size();
    return true;
  }

  // -?(0|[1-9][0-9]*) with at most kMaxDigits digits, not "-0"; a fraction or exponent is left to
  // the slow path (Python's float repr).
  bool number() {
    size_t start = i_;
    bool neg = s_[i_] == '-';
    if (neg) ++i_;
    if (i_ >= s_.size() || s_[i_] < '0' || s_[i_] > '9') return false;
    if (s_[i_] == '0') {
      if (neg) return false;
      ++i_;
    } else {
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    }
    if (i_ - start - (neg ? 1 : 0) > kMaxDigits) return false;
    return i_ >= s_.size() || (s_[i_] != '.' && s_[i_] != 'e' && s_[i_] != 'E');
  }

  std::string_view s_;
  size_t i_ = 0;
  size_t max_depth_ = json::ReadLimits{}.max_depth;
};

// Valid UTF-8 and one canonical value that opens with `open` ('{' or '[') and fills the text.
bool canonical(std::string_view text, char open) {
  if (text.empty() || text[0] != open) return false;
  if (utf8::find_invalid(text, false) != std::string_view::npos) return false;
  Walker w(text);
  return w.value(0) && w.at_end();
}

// The fields of a call object already known to be canonical: its top level reads as "key":value
// pairs separated by ',' with nothing else.
bool read_fields(std::string_view text, std::initializer_list<std::string_view> args_keys, bool keep_id, CallText* out) {
  if (text == "{}") return false;
  std::string_view name, id, args;
  size_t args_rank = args_keys.size();
  bool has_name = false;
  Walker w(text);
  size_t i = 1;  // past '{'
  for (;;) {
    std::string_view k;
    w.seek(i);
    if (!w.string(&k)) return false;
    size_t vstart = w.pos() + 1;  // past ':'
    w.seek(vstart);
    if (!w.value(1)) return false;
    std::string_view val = text.substr(vstart, w.pos() - vstart);
    if (k == "name") {
      if (val[0] != '"') return false;
      name = val.substr(1, val.size() - 2);
      has_name = true;
    } else if (keep_id && k == "id") {
      if (val[0] == '"') id = val.substr(1, val.size() - 2);  // an id that is not a string is ignored
    } else {
      size_t rank = 0;
      for (std::string_view a : args_keys) {
        if (k == a && rank < args_rank) {
          args = val;
          args_rank = rank;
        }
        ++rank;
      }
    }
    i = w.pos();
    if (text[i] == '}') break;
    ++i;  // ','
  }
  if (!has_name || name.empty() || args.empty() || args[0] != '{') return false;
  out->name = name;
  out->args = args;
  out->id = id;
  return true;
}

}  // namespace

bool is_canonical_object(std::string_view text) { return canonical(text, '{'); }

bool read_call_object(std::string_view text, std::initializer_list<std::string_view> args_keys, bool keep_id,
                      CallText* out) {
  return canonical(text, '{') && read_fields(text, args_keys, keep_id, out);
}

bool read_call_list(std::string_view text, std::initializer_list<std::string_view> args_keys, bool keep_id,
                    std::vector<CallText>* out) {
  if (!canonical(text, '[') || text == "[]") return false;
  std::vector<CallText> calls;
  Walker w(text);
  size_t i = 1;  // past '['
  for (;;) {
    if (text[i] != '{') return false;
    w.seek(i);
    w.value(1);  // canonical: it ends where the element ends
    CallText ct;
    if (!read_fields(text.substr(i, w.pos() - i), args_keys, keep_id, &ct)) return false;
    calls.push_back(ct);
    i = w.pos();
    if (text[i] == ']') break;
    ++i;  // ','
  }
  *out = std::move(calls);
  return true;
}

}  // namespace toolchat::dialects::compact_json_text
