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
  NormTables() {
    for (size_t i = 0; i < norm_data::kDecompCount; ++i) {
      const auto& d = norm_data::kDecomp[i];
      (d.compat ? compat : canon)[d.cp] = &d;
    }
    for (size_t i = 0; i < norm_data::kCccCount; ++i) ccc[norm_data::kCcc[i].cp] = norm_data::kCcc[i].ccc;
    for (size_t i = 0; i < norm_data::kComposeCount; ++i) {
      const auto& c = norm_data::kCompose[i];
      compose[(uint64_t(c.first) << 32) | c.second] = c.composed;
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

struct Ch {
  char32_t c;
  Range r;
};

void decompose(char32_t c, Range r, bool compat, std::vector<Ch>& out) {
  if (c >= kSBase && c < kSBase + kSCount) {
    const uint32_t s = c - kSBase;
    out.push_back({kLBase + s / kNCount, r});
    out.push_back({kVBase + (s % kNCount) / kTCount, r});
    if (s % kTCount) out.push_back({kTBase + s % kTCount, r});
    return;
  }
  if (c < 0xA0) {
    out.push_back({c, r});
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
    out.push_back({c, r});
    return;
  }
  for (uint32_t k = 0; k < d->len; ++k) out.push_back({norm_data::kPool[d->offset + k], r});
}

}  // namespace

void normalize_unicode(NormStr& t, bool compat, bool compose) {
  // Fast path: ASCII has nothing to do in any form.
  if (uni::is_ascii(t.s)) return;
  std::vector<Ch> chs;
  chs.reserve(t.s.size());
  size_t i = 0;
  while (i < t.s.size()) {
    const size_t at = i;
    const char32_t c = uni::decode_next(t.s, i);
    decompose(c, t.align[at], compat, chs);
  }
  // Canonical ordering: stable sort of each run of non-starters by combining class.
  for (size_t a = 0; a < chs.size();) {
    if (ccc_of(chs[a].c) == 0) { ++a; continue; }
    size_t b = a;
    while (b < chs.size() && ccc_of(chs[b].c) != 0) ++b;
    // Characters move, ranges stay in place (HF's alignments are positional here).
    std::vector<Range> ranges;
    for (size_t k = a; k < b; ++k) ranges.push_back(chs[k].r);
    std::stable_sort(chs.begin() + a, chs.begin() + b,
                     [](const Ch& x, const Ch& y) { return ccc_of(x.c) < ccc_of(y.c); });
    for (size_t k = a; k < b; ++k) chs[k].r = ranges[k - a];
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
      if (starter != SIZE_MAX && (out.size() == starter + 1 || (last_ccc != 0 && last_ccc < cc) ||
                                  (last_ccc == 0 && out.size() == starter + 1))) {
        Ch& s = out[starter];
        // Hangul LV / LVT.
        if (s.c >= kLBase && s.c < kLBase + kLCount && ch.c >= kVBase && ch.c < kVBase + kVCount &&
            out.size() == starter + 1) {
          s.c = kSBase + ((s.c - kLBase) * kVCount + (ch.c - kVBase)) * kTCount;
          continue;
        }
        if (s.c >= kSBase && s.c < kSBase + kSCount && (s.c - kSBase) % kTCount == 0 &&
            ch.c > kTBase && ch.c < kTBase + kTCount && out.size() == starter + 1) {
          s.c += ch.c - kTBase;
          continue;
        }
        auto it = comp.find((uint64_t(s.c) << 32) | ch.c);
        if (it != comp.end()) {
          s.c = it->second;
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
  for (const Ch& ch : chs) {
    const size_t before = r.s.size();
    uni::append_utf8(r.s, ch.c);
    r.align.insert(r.align.end(), r.s.size() - before, ch.r);
  }
  t = std::move(r);
}

void Normalizer::apply(NormStr& t) const {
  switch (type) {
    case Type::NFC: normalize_unicode(t, false, true); return;
    case Type::NFD: normalize_unicode(t, false, false); return;
    case Type::NFKC: normalize_unicode(t, true, true); return;
    case Type::NFKD: normalize_unicode(t, true, false); return;
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
      std::u32string cps;
      std::vector<uint32_t> cp_byte;
      decode_cps(t.s, cps, cp_byte);
      std::vector<std::pair<size_t, size_t>> m;
      pattern.find_all(cps.data(), cps.size(), m);
      if (m.empty()) return;
      NormStr r;
      r.s.reserve(t.s.size());
      r.align.reserve(t.s.size());
      size_t prev = 0;  // byte offset
      for (const auto& [cb, ce] : m) {
        const size_t b = cp_byte[cb], e = cp_byte[ce];
        r.s.append(t.s, prev, b - prev);
        r.align.insert(r.align.end(), t.align.begin() + prev, t.align.begin() + b);
        if (e > b) r.push(content, {t.align[b].first, t.align[e - 1].second});
        prev = e;
      }
      r.s.append(t.s, prev, std::string::npos);
      r.align.insert(r.align.end(), t.align.begin() + prev, t.align.end());
      t = std::move(r);
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
        const int n = uni::to_lower_full(c, buf);
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
