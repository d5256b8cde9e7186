// Normalizers: Unicode forms, Replace, Prepend, Strip, Lowercase, Sequence. Each rebuilds the
// text and carries every output character's original range along.
#include <algorithm>
#include <unordered_map>

#include "tokenize/normalization.hpp"
#include "tokenize/unicode_classes.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

namespace {

using Range = std::pair<uint32_t, uint32_t>;

struct NormTables {
  std::unordered_map<char32_t, const norm_data::Decomp*> canon, compat;
  std::unordered_map<char32_t, uint8_t> ccc;
  std::unordered_map<uint64_t, char32_t> compose;
  // Characters a normalization form may change or join to a neighbour: the rest are copied.
  std::vector<bool> touched;
  NormTables() : touched(0x110000, false) {
    for (char32_t c = 0x1100; c < 0x1200; ++c) touched[c] = true;
    for (char32_t c = 0xAC00; c < 0xD7A4; ++c) touched[c] = true;
    for (size_t i = 0; i < norm_data::kDecompCount; ++i) {
      const auto& d = norm_data::kDecomp[i];
      (d.compat ? compat : canon)[d.cp] = &d;
      touched[d.cp] = true;
    }
    for (size_t i = 0; i < norm_data::kCccCount; ++i) {
      ccc[norm_data::kCcc[i].cp] = norm_data::kCcc[i].ccc;
      touched[norm_data::kCcc[i].cp] = true;
    }
    for (size_t i = 0; i < norm_data::kComposeCount; ++i) {
      const auto& c = norm_data::kCompose[i];
      compose[(uint64_t(c.first) << 32) | c.second] = c.composed;
      touched[c.second] = true;
    }
  }
};
const NormTables& tables() {
  static const NormTables t;
  return t;
}

constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount,
                   kSCount = kLCount * kNCount;

uint8_t ccc_of(char32_t c) {
  if (c < 0x300) return 0;
  const auto& t = tables().ccc;
  auto it = t.find(c);
  return it == t.end() ? 0 : it->second;
}

// An output character and its change count as HF's normalizer reports it: 0 replaces one input
// character, +1 is inserted after the previous one, -n also swallows the n input characters
// that follow. Ranges are assigned from these counts at the end, walking the input.
struct Ch {
  char32_t c;
  int32_t change;
};

void decompose(char32_t c, bool compat, std::vector<Ch>& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const uint32_t s = c - kSBase;
    out.push_back({kLBase + s / kNCount, 0});
    out.push_back({kVBase + (s % kNCount) / kTCount, 1});
    if (s % kTCount) out.push_back({kTBase + s % kTCount, 1});
    return;
  }
  if (c < 0xA0) {
    out.push_back({c, 0});
    return;
  }
  const auto& t = tables();
  const norm_data::Decomp* d = nullptr;
  if (compat) {
    auto it = t.compat.find(c);
    if (it != t.compat.end()) d = it->second;
  }
  if (!d) {
    auto it = t.canon.find(c);
    if (it != t.canon.end()) d = it->second;
  }
  if (!d) {
    out.push_back({c, 0});
    return;
  }
  for (uint32_t k = 0; k < d->len; ++k) out.push_back({norm_data::kPool[d->offset + k], k ? 1 : 0});
}

}  // namespace

namespace {
// Normalizes the whole of t (the slow path).
void normalize_span(NormStr& t, bool compat, bool compose) {
  std::vector<Ch> chs;
  std::vector<Range> in_ranges;
  chs.reserve(t.s.size());
  in_ranges.reserve(t.s.size());
  size_t i = 0;
  while (i < t.s.size()) {
    const size_t at = i;
    const char32_t c = uni::decode_next(t.s, i);
    in_ranges.push_back(t.align[at]);
    decompose(c, compat, chs);
  }
  // Canonical ordering: stable sort of each run of non-starters by combining class.
  for (size_t a = 0; a < chs.size();) {
    if (ccc_of(chs[a].c) == 0) { ++a; continue; }
    size_t b = a;
    while (b < chs.size() && ccc_of(chs[b].c) != 0) ++b;
    std::stable_sort(chs.begin() + a, chs.begin() + b,
                     [](const Ch& x, const Ch& y) { return ccc_of(x.c) < ccc_of(y.c); });
    a = b;
  }
  if (compose) {
    const auto& comp = tables().compose;
    std::vector<Ch> out;
    out.reserve(chs.size());
    size_t starter = SIZE_MAX;  // index in out of the last starter
    uint8_t last_ccc = 0;
    for (const Ch& ch : chs) {
      const uint8_t cc = ccc_of(ch.c);
      const bool adjacent = starter != SIZE_MAX && out.size() == starter + 1;
      if (starter != SIZE_MAX && (adjacent || (last_ccc != 0 && last_ccc < cc))) {
        Ch& s = out[starter];
        char32_t composed = 0;
        if (adjacent && s.c >= kLBase && s.c < kLBase + kLCount && ch.c >= kVBase && ch.c < kVBase + kVCount)
          composed = kSBase + ((s.c - kLBase) * kVCount + (ch.c - kVBase)) * kTCount;
        else if (adjacent && s.c >= kSBase && s.c < kSBase + kSCount && (s.c - kSBase) % kTCount == 0 &&
                 ch.c > kTBase && ch.c < kTBase + kTCount)
          composed = s.c + (ch.c - kTBase);
        else {
          auto it = comp.find((uint64_t(s.c) << 32) | ch.c);
          if (it != comp.end()) composed = it->second;
        }
        if (composed) {
          s.c = composed;
          s.change += ch.change - 1;
          continue;
        }
      }
      if (cc == 0) {
        starter = out.size();
        last_ccc = 0;
      } else {
        last_ccc = cc;
      }
      out.push_back(ch);
    }
    chs.swap(out);
  }
  NormStr r;
  r.s.reserve(t.s.size());
  r.align.reserve(t.s.size());
  size_t ptr = 0;  // next input character
  for (const Ch& ch : chs) {
    Range rg{0, 0};
    if (ch.change > 0) {
      if (ptr > 0) rg = in_ranges[ptr - 1];
    } else {
      if (ptr < in_ranges.size()) rg = in_ranges[ptr];
      else if (!in_ranges.empty()) rg = in_ranges.back();
      ptr += static_cast<size_t>(1 - ch.change);
    }
    const size_t before = r.s.size();
    uni::append_utf8(r.s, ch.c);
    r.align.insert(r.align.end(), r.s.size() - before, rg);
  }
  t = std::move(r);
}
}  // namespace

void normalize_unicode(NormStr& t, UnicodeForm form) {
  const bool compat = form.compat, compose = form.compose;
  if (uni::is_ascii(t.s)) return;
  // Untouched characters are copied; each run of touched ones is normalized together with the
  // untouched character before it (which may compose with it). An untouched character is a
  // starter nothing composes onto, so the runs are independent.
  const auto& touched = tables().touched;
  NormStr r;
  r.s.reserve(t.s.size() + 16);
  r.align.reserve(t.s.size() + 16);
  size_t i = 0, copied = 0;  // bytes of t before `copied` are in r
  size_t prev_start = SIZE_MAX;  // byte offset of the last untouched character
  bool any = false;
  while (i < t.s.size()) {
    const size_t at = i;
    const char32_t c = uni::decode_next(t.s, i);
    if (c < 0x80 || !touched[c]) {
      prev_start = at;
      continue;
    }
    any = true;
    size_t run_end = i;
    while (run_end < t.s.size()) {
      size_t k = run_end;
      const char32_t d = uni::decode_next(t.s, k);
      if (d < 0x80 || !touched[d]) break;
      run_end = k;
    }
    const size_t run_start = (prev_start != SIZE_MAX && prev_start >= copied) ? prev_start : at;
    r.s.append(t.s, copied, run_start - copied);
    r.align.insert(r.align.end(), t.align.begin() + copied, t.align.begin() + run_start);
    NormStr span;
    span.s.assign(t.s, run_start, run_end - run_start);
    span.align.assign(t.align.begin() + run_start, t.align.begin() + run_end);
    normalize_span(span, compat, compose);
    r.s += span.s;
    r.align.insert(r.align.end(), span.align.begin(), span.align.end());
    copied = run_end;
    i = run_end;
    prev_start = SIZE_MAX;
  }
  if (!any) return;
  r.s.append(t.s, copied, std::string::npos);
  r.align.insert(r.align.end(), t.align.begin() + copied, t.align.end());
  t = std::move(r);
}

void Normalizer::apply(NormStr& t) const {
  switch (type) {
    case Type::NFC: normalize_unicode(t, {.compose = true}); return;
    case Type::NFD: normalize_unicode(t, {}); return;
    case Type::NFKC: normalize_unicode(t, {.compat = true, .compose = true}); return;
    case Type::NFKD: normalize_unicode(t, {.compat = true}); return;
    case Type::Sequence:
      for (const Normalizer& n : children) n.apply(t);
      return;
    case Type::Prepend: {
      if (t.s.empty()) return;
      NormStr r;
      r.push(content, t.align[0]);
      r.s += t.s;
      r.align.insert(r.align.end(), t.align.begin(), t.align.end());
      t = std::move(r);
      return;
    }
    case Type::Replace: {
      // Matches as byte ranges: a literal is searched in the bytes (UTF-8 is self-synchronizing,
      // so the matches are those of the code points), a regex runs over the code points.
      std::vector<std::pair<size_t, size_t>> m;
      if (!pattern.regex) {
        const std::string& lit = pattern.literal_utf8;
        if (lit.empty()) return;
        for (size_t at = t.s.find(lit); at != std::string::npos; at = t.s.find(lit, at + lit.size()))
          m.emplace_back(at, at + lit.size());
      } else {
        std::u32string cps;
        std::vector<uint32_t> cp_byte;
        decode_cps(t.s, cps, cp_byte);
        pattern.find_all(cps.data(), cps.size(), m);
        for (auto& [b, e] : m) b = cp_byte[b], e = cp_byte[e];
      }
      if (m.empty()) return;
      // Built in a buffer kept between calls, then swapped with t: no new allocation per segment.
      thread_local NormStr r;
      r.s.clear();
      r.align.clear();
      r.s.reserve(t.s.size() + m.size() * content.size());
      r.align.reserve(r.s.capacity());
      size_t prev = 0;  // byte offset
      for (const auto& [b, e] : m) {
        r.s.append(t.s, prev, b - prev);
        r.align.insert(r.align.end(), t.align.begin() + prev, t.align.begin() + b);
        if (e > b) r.push(content, {t.align[b].first, t.align[e - 1].second});
        prev = e;
      }
      r.s.append(t.s, prev, std::string::npos);
      r.align.insert(r.align.end(), t.align.begin() + prev, t.align.end());
      std::swap(t, r);
      return;
    }
    case Type::Strip: {
      size_t b = 0, e = t.s.size();
      if (left) {
        while (b < e) {
          size_t k = b;
          if (!ucls::is_space(uni::decode_next(t.s, k))) break;
          b = k;
        }
      }
      if (right) {
        while (e > b) {
          size_t k = e;
          if (!ucls::is_space(uni::decode_prev(t.s, k))) break;
          e = k;
        }
      }
      t.s = t.s.substr(b, e - b);
      t.align = std::vector<Range>(t.align.begin() + b, t.align.begin() + e);
      return;
    }
    case Type::Lowercase: {
      NormStr r;
      r.s.reserve(t.s.size());
      size_t i = 0;
      char32_t buf[3];
      while (i < t.s.size()) {
        const size_t at = i;
        const char32_t c = uni::decode_next(t.s, i);
        // The reference's own lowercase where it differs from the engine's table (newer Unicode).
        const LowercaseOverride* end = kLowercaseOverrides + kLowercaseOverrideCount;
        const LowercaseOverride* o = std::lower_bound(kLowercaseOverrides, end, c,
                                                      [](const LowercaseOverride& x, char32_t v) { return x.cp < v; });
        int n;
        if (o != end && o->cp == c) {
          n = o->n;
          for (int k = 0; k < n; ++k) buf[k] = o->lower[k];
        } else {
          n = uni::to_lower_full(c, buf);
        }
        for (int k = 0; k < n; ++k) {
          const size_t before = r.s.size();
          uni::append_utf8(r.s, buf[k]);
          r.align.insert(r.align.end(), r.s.size() - before, t.align[at]);
        }
      }
      t = std::move(r);
      return;
    }
  }
}

}  // namespace toolchat::tokenize
