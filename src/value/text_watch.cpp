// What the render cache's proof renders do with the markers (text_watch.hpp).
#include "value/text_watch.hpp"

#include <algorithm>

namespace toolchat::text_watch {

bool holds_marker(std::string_view s) { return s.find("\xEE\x80") != std::string_view::npos; }

bool holds_marker(const Value& v) {
  switch (v.type()) {
    case Type::Str: return holds_marker(v.str());
    case Type::List:
      return std::any_of(v.items().begin(), v.items().end(), [](const Value& x) { return holds_marker(x); });
    case Type::Dict:
      for (const auto& [k, x] : v.dict_obj().entries)
        if (holds_marker(k) || holds_marker(x)) return true;
      return false;
    default: return false;
  }
}

namespace {

bool listed(const std::vector<std::string>* strings, std::string_view s) {
  return strings && std::find(strings->begin(), strings->end(), s) != strings->end();
}

}  // namespace

bool screened_contained(const Value& s) {
  return s.is_str() && !s.str().empty() && !holds_marker(s.str()) && listed(state.screened.contained, s.str());
}

bool screened_compared(const Value& s) {
  return s.is_str() && !holds_marker(s.str()) &&
         (listed(state.screened.compared, s.str()) || screened_contained(s));
}

bool screened_stripped(const Value& chars) {
  if (chars.is_none()) return true;  // whitespace: always screened
  if (!chars.is_str() || !state.screened.stripped) return false;
  for (char c : chars.str())
    if (state.screened.stripped->find(c) == std::string::npos) return false;
  return true;
}

// A text's test against `s`: an empty string never equals a marked str, nor any str with its
// texts put back (empty texts are not marked); otherwise s must be screened for.
bool compared_as_screened(const Value& s) { return s.str().empty() || screened_compared(s); }

void note_equal(const Value& a, const Value& b) {
  if (a.is_str() && b.is_str()) {
    if ((holds_marker(a.str()) && !compared_as_screened(b)) || (holds_marker(b.str()) && !compared_as_screened(a)))
      note_inspected();
    return;
  }
  // Containers of the same type compare item by item, and dicts look keys up by hash: a marker
  // anywhere in them is inspected. Values of other types never equal a str.
  if (a.type() == b.type() && (a.is_list() || a.is_dict()) && (holds_marker(a) || holds_marker(b)))
    note_inspected();
}

bool marker_free_bound(std::string_view s, int64_t at) {
  // code points counted from the chosen end; a marker character is three bytes
  size_t i = 0, n = 0;
  const uint64_t want = at >= 0 ? static_cast<uint64_t>(at) : 0 - static_cast<uint64_t>(at);
  if (at >= 0) {
    for (; i < s.size() && n < want; ++n) {
      i += 1;
      while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
    }
    return n == want && !holds_marker(s.substr(0, i));
  }
  for (i = s.size(); i > 0 && n < want; ++n) {
    --i;
    while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  }
  return n == want && !holds_marker(s.substr(i));
}

bool plain_percent_format(std::string_view fmt) {
  for (size_t p = fmt.find('%'); p != std::string_view::npos; p = fmt.find('%', p + 2))
    if (p + 1 >= fmt.size() || (fmt[p + 1] != 's' && fmt[p + 1] != 'r' && fmt[p + 1] != '%')) return false;
  return !holds_marker(fmt);
}

bool plain_brace_format(std::string_view fmt) {
  for (size_t p = 0; p < fmt.size(); ++p) {
    if (fmt[p] != '{') continue;
    if (p + 1 < fmt.size() && fmt[p + 1] == '{') {
      ++p;
      continue;
    }
    const size_t end = fmt.find('}', p);
    if (end == std::string_view::npos) return false;
    const std::string_view field = fmt.substr(p + 1, end - p - 1);
    const size_t bang = field.find('!');
    if (field.find(':') != std::string_view::npos || field.find('[') != std::string_view::npos ||
        (bang != std::string_view::npos && field.substr(bang) != "!r" && field.substr(bang) != "!s"))
      return false;  // a width, an index, or ascii()
    p = end;
  }
  return !holds_marker(fmt);
}

void note_order(const Value& a, const Value& b) {
  if (holds_marker(a) || holds_marker(b)) note_inspected();
}

void note_contains(const Value& container, const Value& item) {
  if (container.is_str()) {
    if (holds_marker(item) || (holds_marker(container.str()) && !screened_contained(item))) note_inspected();
  } else if (container.is_dict()) {
    if (holds_marker(item)) note_inspected();  // a lookup by hash
  }
  // a list or a generator: item by item through py_equal, which notes its own
}

}  // namespace toolchat::text_watch
