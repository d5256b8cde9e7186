// The audit that proves a shape's labeling for every conversation of the shape (the memo,
// label_memo.hpp): the labeler's comparisons report to it when run on the shape's marker renders.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "convert/label_memo.hpp"

namespace toolchat::convert {

// The proof that a shape's labeling holds for every conversation of that shape (the memo,
// below): the labeling is run once on the shape's marked renders, and every byte where a
// comparison decides (where two texts first differ, where a back-off stops, where a compared
// window ends) must be the template's own, never a marker's byte, a text's first byte where the
// other side goes on, or a text's last byte a back-off would look at. Markers are unique per
// text and stand where the texts stand, so a decision made on template bytes is the same for any
// texts put in. Texts never start or end with whitespace there (the cache screens them), so
// trimming stops where it stops on the marker.
struct Audit {
  struct MarkerAt {
    size_t begin, end;  // the marker's bytes
    size_t text;
    chat::MarkerAt::Shown shown;  // how the render shows the text
  };
  struct Marked {
    std::string_view s;
    std::vector<MarkerAt> markers;  // sorted
  };
  std::vector<Marked> strings;
  bool ok = true;
  // Where a text's first or last byte decides against the template's: what the texts of a
  // conversation must meet for the decision to be the same (checked per conversation).
  std::vector<LabelMemo::Condition> conditions;

  const Marked* holding(std::string_view v, size_t& offset) const {
    for (const Marked& m : strings)
      if (v.data() >= m.s.data() && v.data() + v.size() <= m.s.data() + m.s.size()) {
        offset = static_cast<size_t>(v.data() - m.s.data());
        return &m;
      }
    return nullptr;
  }
  // The marker holding byte `at` of v (its first byte included), or null.
  const MarkerAt* in_marker(std::string_view v, size_t at) {
    return find(v, at, [](const MarkerAt& m, size_t x) { return m.begin <= x && x < m.end; });
  }
  // Whether `at` falls strictly inside a marker.
  bool cuts_marker(std::string_view v, size_t at) {
    return find(v, at, [](const MarkerAt& m, size_t x) { return m.begin < x && x < m.end; }) != nullptr;
  }
  // The marker ending at `at`, or null.
  const MarkerAt* ending(std::string_view v, size_t at) {
    return find(v, at, [](const MarkerAt& m, size_t x) { return x == m.end; });
  }
  // a[ja] and b[jb] are the first bytes two compared texts differ at. Template bytes on both
  // sides decide for any texts; a text's first byte against a template byte decides the same
  // way for texts that do not start with that byte (a condition); anything else is not proven.
  void differ_at(std::string_view a, size_t ja, std::string_view b, size_t jb) {
    const Facing f = facing(a, ja, b, jb);
    if (!ok || (!f.ma && !f.mb)) return;
    if (f.ma && !f.mb && f.ma->begin == ja + f.oa)
      conditions.push_back({f.ma->text, f.ma->shown, std::string(1, b[jb]), ""});
    else if (f.mb && !f.ma && f.mb->begin == jb + f.ob)
      conditions.push_back({f.mb->text, f.mb->shown, std::string(1, a[ja]), ""});
    else
      ok = false;
  }
  // The same for a and b compared from their ends (a[ja], b[jb] the first bytes from the end
  // that differ): a text's last byte against a template byte, or two texts ending at the same
  // distance from the ends (they differ within the shorter one unless one ends with the other),
  // become conditions.
  void differ_from_end(std::string_view a, size_t ja, std::string_view b, size_t jb) {
    const Facing f = facing(a, ja, b, jb);
    if (!ok || (!f.ma && !f.mb)) return;
    const size_t after_a = f.oa + a.size(), after_b = f.ob + b.size();  // where the compared ends are
    if (f.ma && f.mb && f.ma->text != f.mb->text && after_a - f.ma->end == after_b - f.mb->end)
      conditions.push_back({f.ma->text, f.ma->shown, "", "", static_cast<long>(f.mb->text), f.mb->shown});
    else if (f.ma && !f.mb && f.ma->end == f.oa + ja + 1)
      conditions.push_back({f.ma->text, f.ma->shown, "", std::string(1, b[jb])});
    else if (f.mb && !f.ma && f.mb->end == f.ob + jb + 1)
      conditions.push_back({f.mb->text, f.mb->shown, "", std::string(1, a[ja])});
    else
      ok = false;
  }

 private:
  // The markers holding a[ja] and b[jb] (null: a template byte), and where a and b start in
  // their renders.
  struct Facing {
    const MarkerAt *ma, *mb;
    size_t oa = 0, ob = 0;
  };
  Facing facing(std::string_view a, size_t ja, std::string_view b, size_t jb) {
    Facing f{in_marker(a, ja), in_marker(b, jb)};
    holding(a, f.oa);
    holding(b, f.ob);
    return f;
  }

  template <class F>
  const MarkerAt* find(std::string_view v, size_t at, F f) {
    size_t off = 0;
    const Marked* m = holding(v, off);
    if (!m) {  // not a render of the shape: nothing is known of it
      ok = false;
      return nullptr;
    }
    for (const MarkerAt& k : m->markers)
      if (f(k, at + off)) return &k;
    return nullptr;
  }
};

// With an audit: `a.compare(ai, n, b, bi, n)` decides on template bytes. Both windows must start
// after the same bytes (so an offset means one place in both).
inline void audit_compare(Audit* au, std::string_view a, size_t ai, std::string_view b, size_t bi, size_t n) {
  if (!au) return;
  if (ai != bi || ai > a.size() || bi > b.size() || a.substr(0, ai) != b.substr(0, bi)) {
    au->ok = false;
    return;
  }
  const size_t na = std::min(n, a.size() - ai), nb = std::min(n, b.size() - bi), m = std::min(na, nb);
  size_t j = 0;
  while (j < m && a[ai + j] == b[bi + j]) ++j;
  if (j < m) {
    au->differ_at(a, ai + j, b, bi + j);
  } else if (au->cuts_marker(a, ai + na) || au->cuts_marker(b, bi + nb)) {
    au->ok = false;
  }
}

// With an audit: whether `text` ends with `tail` is decided on template bytes. Compared from the
// end, the first byte they differ at must be the template's on both sides; when `tail` matches
// whole, its start must not cut a marker of `text` (then both hold the same markers in the same
// places). A `text` shorter than `tail` compares lengths that the texts decide: not proven.
inline void audit_suffix(Audit* au, std::string_view text, std::string_view tail) {
  if (text.size() < tail.size()) {
    au->ok = false;
    return;
  }
  size_t k = 0;  // bytes matched from the end
  while (k < tail.size() && text[text.size() - 1 - k] == tail[tail.size() - 1 - k]) ++k;
  if (k < tail.size()) {
    au->differ_from_end(text, text.size() - 1 - k, tail, tail.size() - 1 - k);
  } else if (au->cuts_marker(text, text.size() - tail.size())) {
    au->ok = false;
  }
}

}  // namespace toolchat::convert
