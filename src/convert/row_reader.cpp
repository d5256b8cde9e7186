// Reading rows with their repeated members shared (see row_reader.hpp).
#include "convert/row_reader.hpp"

#include <cstring>

#include "convert/json_skip.hpp"
#include "toolchat/json.hpp"

namespace toolchat::convert {

namespace {

constexpr size_t kKnownEntries = 16;

// A key read as it stands: plain ASCII, no escapes (any other key sends the line to json::parse).
bool plain_key(std::string_view key) {
  for (char c : key)
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
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
  size_t i = skip::spaces(s, 0);
  if (i >= s.size() || s[i] != '{') return false;
  i = skip::spaces(s, i + 1);
  if (i < s.size() && s[i] == '}') return skip::spaces(s, i + 1) == s.size();
  for (;;) {
    if (i >= s.size() || s[i] != '"') return false;
    const size_t key_end = skip::string_end(s, i);
    if (key_end == std::string_view::npos) return false;
    const std::string_view key = s.substr(i + 1, key_end - i - 2);
    if (!plain_key(key)) return false;
    for (const Member& m : members_)
      if (m.key == key) return false;  // a repeated key: json::parse's rule, read whole
    i = skip::spaces(s, key_end);
    if (i >= s.size() || s[i] != ':') return false;
    i = skip::spaces(s, i + 1);
    const size_t end = skip::value_end(s, i);
    if (end == std::string_view::npos || end == i) return false;
    members_.push_back({key, s.substr(i, end - i)});
    i = skip::spaces(s, end);
    if (i >= s.size()) return false;
    if (s[i] == '}') return skip::spaces(s, i + 1) == s.size();
    if (s[i] != ',') return false;
    i = skip::spaces(s, i + 1);
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
  while (end > 0 && skip::space(line[end - 1])) --end;
  if (end == 0 || line[end - 1] != '}') return false;
  --end;
  tail_.clear();
  bool whole = false;  // every member is known: no head
  for (;;) {
    size_t e = end;
    while (e > 0 && skip::space(line[e - 1])) --e;
    size_t size = 0;
    const Value* v = known.find_suffix(line.substr(0, e), size);
    if (!v) break;
    size_t k = e - size;
    while (k > 0 && skip::space(line[k - 1])) --k;
    if (k == 0 || line[k - 1] != ':') return false;
    --k;
    while (k > 0 && skip::space(line[k - 1])) --k;
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
    while (b > 0 && skip::space(line[b - 1])) --b;
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
      if (!skip::space(line[i])) return false;
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
