// Reading rows with their repeated members shared (see row_reader.hpp).
#include "convert/row_reader.hpp"

#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "toolchat/json.hpp"
#include "value/escape_scan.hpp"

namespace toolchat::convert {

namespace {

constexpr size_t kKnownEntries = 16;

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A key read as it stands: plain ASCII, no escapes (any other key sends the line to json::parse).
bool plain_key(std::string_view key) {
  for (char c : key)
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

size_t skip_space(std::string_view s, size_t i) {
  while (i < s.size() && json_space(s[i])) ++i;
  return i;
}

// The end of the string whose opening quote is at s[i], or npos.
size_t string_end(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  for (++i;;) {
    i = json::next_escape(p, i, s.size(), false);  // a quote, a backslash or a control character
    if (i >= s.size()) return std::string_view::npos;
    if (s[i] == '"') return i + 1;
    i += s[i] == '\\' ? 2 : 1;  // a control character is the value's own parse's to refuse
  }
}

// The next quote or bracket at or after i, or the end.
size_t next_structural(std::string_view s, size_t i) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), open = _mm_set1_epi8('['), close = _mm_set1_epi8(']');
  const __m128i brace_bit = _mm_set1_epi8(0x20);  // '{' and '}' are '[' and ']' with 0x20 set
  for (; i + 16 <= s.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    const __m128i folded = _mm_andnot_si128(brace_bit, v);
    const __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, quote),
                                     _mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)));
    if (int mask = _mm_movemask_epi8(hit)) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < s.size(); ++i)
    if (s[i] == '"' || s[i] == '{' || s[i] == '}' || s[i] == '[' || s[i] == ']') return i;
  return s.size();
}

// The end of the value starting at s[i], for a well-formed one; what it does not check (a
// malformed value inside brackets, a misspelled literal) the value's own parse finds.
size_t value_end(std::string_view s, size_t i) {
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '"') return string_end(s, i);
  if (s[i] == '{' || s[i] == '[') {
    size_t depth = 0;
    for (i = next_structural(s, i); i < s.size(); i = next_structural(s, i)) {
      const char c = s[i];
      if (c == '"') {
        i = string_end(s, i);
        if (i == std::string_view::npos) return i;
      } else if (c == '{' || c == '[') {
        ++depth;
        ++i;
      } else {
        if (--depth == 0) return i + 1;
        ++i;
      }
    }
    return std::string_view::npos;
  }
  while (i < s.size() && !json_space(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']') ++i;
  return i;
}

}  // namespace

KnownValues& KnownValues::this_thread() {
  static thread_local KnownValues known;
  return known;
}

const Value* KnownValues::find(std::string_view text) const {
  for (const Entry& e : entries_)
    if (e.text.size() == text.size() && std::memcmp(e.text.data(), text.data(), text.size()) == 0) return &e.value;
  return nullptr;
}

const Value* KnownValues::find_suffix(std::string_view s, size_t& size) const {
  for (const Entry& e : entries_)
    if (e.text.size() <= s.size() && std::memcmp(e.text.data(), s.data() + s.size() - e.text.size(), e.text.size()) == 0) {
      size = e.text.size();
      return &e.value;
    }
  return nullptr;
}

void KnownValues::learn(std::string_view text, const Value& v) {
  Entry e{std::string(text), v, ++last_id_};
  if (entries_.size() < kKnownEntries) {
    entries_.push_back(std::move(e));
    return;
  }
  entries_[next_] = std::move(e);
  next_ = (next_ + 1) % kKnownEntries;
}

uint64_t KnownValues::id_of(const Value& v) const {
  if (!(v.is_list() || v.is_dict())) return 0;  // only containers are worth a number
  for (const Entry& e : entries_)
    if (e.value.type() == v.type() && e.value.obj() == v.obj()) return e.id;
  return 0;
}

bool RowReader::split(std::string_view s) {
  members_.clear();
  size_t i = skip_space(s, 0);
  if (i >= s.size() || s[i] != '{') return false;
  i = skip_space(s, i + 1);
  if (i < s.size() && s[i] == '}') return skip_space(s, i + 1) == s.size();
  for (;;) {
    if (i >= s.size() || s[i] != '"') return false;
    const size_t key_end = string_end(s, i);
    if (key_end == std::string_view::npos) return false;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    if (!plain_key(key)) return false;
    for (const Member& m : members_)
      if (m.key == key) return false;  // a repeated key: json::parse's rule, read whole
    i = skip_space(s, key_end);
    if (i >= s.size() || s[i] != ':') return false;
    i = skip_space(s, i + 1);
    const size_t end = value_end(s, i);
    if (end == std::string_view::npos || end == i) return false;
    members_.push_back({key, s.substr(i, end - i)});
    i = skip_space(s, end);
    if (i >= s.size()) return false;
    if (s[i] == '}') return skip_space(s, i + 1) == s.size();
    if (s[i] != ',') return false;
    i = skip_space(s, i + 1);
  }
}

Value RowReader::read_whole(std::string_view line) {
  Value row = json::parse(line);
  if (!row.is_dict()) return row;
  bool others = false;  // members worth sharing (containers besides the messages)?
  for (const auto& [k, v] : row.dict_obj().entries)
    others = others || ((v.is_list() || v.is_dict()) && !(k.is_str() && k.str() == "messages"));
  if (!others || !split(line)) return row;
  KnownValues& known = KnownValues::this_thread();
  for (const Member& m : members_) {
    if (m.key == "messages" || m.text.size() < kKnownMinBytes) continue;
    const Value* v = row.dict_obj().find(m.key);
    if (!v) continue;
    if (const Value* shared = known.find(m.text))
      row.dict_obj().set(Value::string(m.key), *shared);  // one object per text, as the tail path shares it
    else
      known.learn(m.text, *v);
  }
  return row;
}

// A line `HEAD, "k1": K1, ..., "kn": Kn}` whose K are known texts is what json::parse reads when
// `HEAD}` parses as an object with none of the keys k: the grammar has one reading of a text, and
// this cut is one. A cut that is not (the K text inside a string, say) leaves a HEAD that does
// not parse, and the line is read the other way.
bool RowReader::read_known_tail(std::string_view line, Value& row) {
  const KnownValues& known = KnownValues::this_thread();
  size_t end = line.size();
  while (end > 0 && json_space(line[end - 1])) --end;
  if (end == 0 || line[end - 1] != '}') return false;
  --end;
  tail_.clear();
  bool whole = false;  // every member is known: no head
  for (;;) {
    size_t e = end;
    while (e > 0 && json_space(line[e - 1])) --e;
    size_t size = 0;
    const Value* v = known.find_suffix(line.substr(0, e), size);
    if (!v) break;
    size_t k = e - size;
    while (k > 0 && json_space(line[k - 1])) --k;
    if (k == 0 || line[k - 1] != ':') return false;
    --k;
    while (k > 0 && json_space(line[k - 1])) --k;
    if (k == 0 || line[k - 1] != '"') return false;
    const size_t close = k - 1;
    if (close == 0) return false;
    const size_t open = line.rfind('"', close - 1);
    if (open == std::string_view::npos || open == 0) return false;
    const std::string_view key = line.substr(open + 1, close - open - 1);
    if (!plain_key(key)) return false;
    for (const auto& [other, _] : tail_)
      if (other == key) return false;
    tail_.emplace_back(key, v);
    size_t b = open;
    while (b > 0 && json_space(line[b - 1])) --b;
    if (b == 0) return false;
    end = b - 1;
    if (line[end] == '{') {
      whole = true;
      break;
    }
    if (line[end] != ',') return false;
  }
  if (tail_.empty()) return false;
  if (whole) {
    for (size_t i = 0; i < end; ++i)
      if (!json_space(line[i])) return false;
    row = Value::dict();
  } else {
    head_.assign(line.data(), end);
    head_ += '}';
    try {
      row = json::parse(head_);
    } catch (const Error&) {
      return false;
    }
    if (!row.is_dict() || row.dict_obj().entries.empty()) return false;  // "{ , ..." is no object
    for (const auto& [key, _] : tail_)
      if (row.dict_obj().find(key)) return false;  // a repeated key
  }
  for (size_t i = tail_.size(); i-- > 0;) row.dict_obj().set(Value::string(tail_[i].first), *tail_[i].second);
  return true;
}

Value RowReader::read(std::string_view line) {
  Value row;
  if (line.size() <= json::ReadLimits{}.max_bytes && read_known_tail(line, row)) return row;
  return read_whole(line);
}

}  // namespace toolchat::convert
