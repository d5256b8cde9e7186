// Texts cut where a template looks into them (see text_cuts.hpp).
#include "convert/text_cuts.hpp"

#include <algorithm>
#include <charconv>

#include "chat/content_marks.hpp"
#include "convert/render_cache.hpp"

namespace toolchat::convert {

bool space_like(std::string_view s, size_t at, size_t end) {
  unsigned char c = static_cast<unsigned char>(s[at]);
  if (c < 0x80) return c <= 0x20 || c == 0x7F;
  // Non-ASCII whitespace Python's str.strip() removes (U+0085, U+00A0, U+1680,
  // U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000): their UTF-8 forms.
  for (std::string_view w : {"\xC2\x85", "\xC2\xA0", "\xE1\x9A\x80", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF",
                             "\xE2\x81\x9F", "\xE3\x80\x80"})
    if (s.compare(at, w.size(), w) == 0 && at + w.size() <= end) return true;
  return s.compare(at, 2, "\xE2\x80") == 0 && at + 2 < end && static_cast<unsigned char>(s[at + 2]) <= 0x8A;
}

namespace {

// The end of the UTF-8 character starting at `at`.
size_t char_end(std::string_view s, size_t at) {
  ++at;
  while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
  return at;
}

}  // namespace

TextCutter::TextCutter(const TestedLiterals& literals, std::function<bool(std::string_view)> screened)
    : contained_(literals.contained), compared_(literals.compared), end_chars_(literals.end_chars),
      screened_(std::move(screened)) {}

// Whether a strip could take the character t[at, end) (whitespace, or a strip argument's byte at
// either end of it: the cache's screen reads them byte by byte too).
bool TextCutter::stripped_at(std::string_view t, size_t at, size_t end) const {
  return space_like(t, at, end) || end_chars_.find(t[at]) != std::string::npos ||
         end_chars_.find(t[end - 1]) != std::string::npos;
}

bool TextCutter::cut(const std::vector<std::string_view>& texts, TextCuts& out) const {
  out.key.clear();
  out.parts.clear();
  out.units.clear();
  out.text_end.clear();
  for (std::string_view t : texts) {
    if (!screened_(t)) {  // one part, the whole text (nothing to find or strip in it)
      out.units.push_back({{}, static_cast<long>(out.parts.size())});
      out.parts.push_back(t);
      out.key += "PE";
    } else if (!cut_text(t, out)) {
      return false;
    }
    out.text_end.push_back(out.units.size());
  }
  return true;
}

bool TextCutter::cut_text(std::string_view t, TextCuts& out) const {
  std::vector<std::pair<size_t, size_t>>& found = out.found;
  found.clear();
  for (const std::string& l : contained_)
    for (size_t p = t.find(l); p != std::string_view::npos; p = t.find(l, p + 1)) found.push_back({p, p + l.size()});
  std::sort(found.begin(), found.end());
  const size_t first_unit = out.units.size();
  size_t kept_from = 0;  // the kept bytes not yet made a unit start here
  auto part = [&](size_t a, size_t b) {  // a gap between found strings, less what a strip takes
    while (a < b && stripped_at(t, a, std::min(char_end(t, a), b))) a = std::min(char_end(t, a), b);
    while (b > a && stripped_at(t, a + last_char(t.substr(a, b - a)), b)) b = a + last_char(t.substr(a, b - a));
    if (a == b) return true;
    const std::string_view p = t.substr(a, b - a);
    if (screened_(p)) return false;
    if (a > kept_from) out.units.push_back({t.substr(kept_from, a - kept_from), -1});
    out.units.push_back({{}, static_cast<long>(out.parts.size())});
    out.parts.push_back(p);
    kept_from = b;
    return true;
  };
  size_t gap = 0;  // where the next gap starts: past every found string that starts before
  for (const auto& [a, b] : found) {
    if (a > gap && !part(gap, a)) return false;
    gap = std::max(gap, b);
  }
  if (gap < t.size() && !part(gap, t.size())) return false;
  if (kept_from < t.size()) out.units.push_back({t.substr(kept_from), -1});
  if (compared_across_edges(t, out, first_unit)) return false;
  char digits[24];
  for (size_t u = first_unit; u < out.units.size(); ++u) {
    const TextCuts::Unit& x = out.units[u];
    if (x.part >= 0) {
      out.key += 'P';
      continue;
    }
    out.key += 'K';
    out.key.append(digits, std::to_chars(digits, digits + sizeof digits, x.kept.size()).ptr);
    out.key += ':';
    out.key += x.kept;
  }
  out.key += 'E';
  return true;
}

// Whether a compared string occurs across a part's edge in t (a piece of t the template cuts at
// a kept string could then equal it, or start or end with it, where the marker does not).
bool TextCutter::compared_across_edges(std::string_view t, const TextCuts& out, size_t first_unit) const {
  for (const std::string& l : compared_)
    for (size_t p = t.find(l); p != std::string_view::npos; p = t.find(l, p + 1))
      for (size_t u = first_unit; u < out.units.size(); ++u) {
        if (out.units[u].part < 0) continue;
        const std::string_view part = out.parts[static_cast<size_t>(out.units[u].part)];
        const size_t a = static_cast<size_t>(part.data() - t.data()), b = a + part.size();
        const bool overlaps = p < b && p + l.size() > a, inside = p >= a && p + l.size() <= b;
        if (overlaps && !inside) return true;
      }
  return false;
}

std::vector<std::string> TextCutter::marked_texts(const TextCuts& cuts) {
  std::vector<std::string> out(cuts.text_end.size());
  std::string marker;
  size_t u = 0;
  for (size_t i = 0; i < out.size(); ++i)
    for (; u < cuts.text_end[i]; ++u) {
      const TextCuts::Unit& x = cuts.units[u];
      if (x.part < 0) {
        out[i] += x.kept;
        continue;
      }
      chat::make_marker(marker, static_cast<size_t>(x.part), true);
      out[i] += marker;
    }
  return out;
}

}  // namespace toolchat::convert
