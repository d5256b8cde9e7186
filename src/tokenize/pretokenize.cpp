// Pre-tokenizers: cut a segment into pieces (code point ranges). Metaspace and a ByteLevel with
// add_prefix_space also change the segment's text, which they do before any cut.
#include <algorithm>

#include "tokenize/impl.hpp"
#include "tokenize/unicode_classes.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

namespace {

using Match = std::pair<size_t, size_t>;

// HF's NormalizedString::split: (range, is_match) pieces covering the piece, then the behavior.
void split_piece(Piece piece, const std::vector<Match>& matches, bool invert, SplitBehavior b,
                 std::vector<Piece>& out) {
  struct Part {
    size_t b, e;
    bool m;
  };
  std::vector<Part> parts;
  size_t prev = piece.begin;
  for (const auto& [s, e] : matches) {
    if (prev != s) parts.push_back({prev, s, false});
    parts.push_back({s, e, true});
    prev = e;
  }
  if (prev != piece.end) parts.push_back({prev, piece.end, false});
  if (invert)
    for (Part& p : parts) p.m = !p.m;
  std::vector<Part> res;
  switch (b) {
    case SplitBehavior::Isolated:
      for (Part p : parts) res.push_back({p.b, p.e, false});
      break;
    case SplitBehavior::Removed:
      res = parts;
      break;
    case SplitBehavior::Contiguous: {
      int prev_m = -1;
      for (Part p : parts) {
        if (int(p.m) == prev_m && !res.empty()) res.back().e = p.e;
        else res.push_back({p.b, p.e, false});
        prev_m = p.m;
      }
      break;
    }
    case SplitBehavior::MergedWithPrevious: {
      bool prev_m = false;
      for (Part p : parts) {
        if (p.m && !prev_m && !res.empty()) res.back().e = p.e;
        else res.push_back({p.b, p.e, false});
        prev_m = p.m;
      }
      break;
    }
    case SplitBehavior::MergedWithNext: {
      bool prev_m = false;
      for (size_t k = parts.size(); k-- > 0;) {
        const Part p = parts[k];
        if (p.m && !prev_m && !res.empty()) res.back().b = p.b;
        else res.push_back({p.b, p.e, false});
        prev_m = p.m;
      }
      std::reverse(res.begin(), res.end());
      break;
    }
  }
  for (const Part& p : res)
    if (!p.m && p.e > p.b) out.push_back({static_cast<uint32_t>(p.b), static_cast<uint32_t>(p.e)});
}

template <class Pred>
void char_matches(const std::u32string& cps, Piece piece, Pred pred, std::vector<Match>& m) {
  for (size_t k = piece.begin; k < piece.end; ++k)
    if (pred(cps[k])) m.emplace_back(k, k + 1);
}

bool is_punctuation(char32_t c) {
  if (c < 128) return (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
                      (c >= 0x7B && c <= 0x7E);
  return ucls::is(c, ucls::P);
}

// Replace the segment's text (Metaspace, ByteLevel's prefix space) and redo cps/cp_byte.
void reset_segment(NormStr& seg, NormStr&& text, std::u32string& cps, std::vector<uint32_t>& cp_byte,
                   std::vector<Piece>& pieces) {
  seg = std::move(text);
  decode_cps(seg.s, cps, cp_byte);
  pieces.assign(1, Piece{0, static_cast<uint32_t>(cps.size())});
  if (cps.empty()) pieces.clear();
}

void run(const PreTokenizer& p, NormStr& seg, std::u32string& cps, std::vector<uint32_t>& cp_byte,
         std::vector<Piece>& pieces) {
  using T = PreTokenizer::Type;
  std::vector<Piece> out;
  std::vector<Match> m;
  switch (p.type) {
    case T::Sequence: {
      for (const PreTokenizer& c : p.children) run(c, seg, cps, cp_byte, pieces);
      return;
    }
    case T::ByteLevel:
      if (p.add_prefix_space && !seg.s.empty() && seg.s[0] != ' ') {
        NormStr t;
        t.push(" ", seg.align[0]);
        t.s += seg.s;
        t.align.insert(t.align.end(), seg.align.begin(), seg.align.end());
        reset_segment(seg, std::move(t), cps, cp_byte, pieces);
      }
      if (!p.use_regex) return;
      for (Piece pc : pieces) {
        m.clear();
        p.pattern.find_all(cps.data() + pc.begin, pc.end - pc.begin, m);
        for (auto& x : m) { x.first += pc.begin; x.second += pc.begin; }
        split_piece(pc, m, false, SplitBehavior::Isolated, out);
      }
      break;
    case T::Split:
      for (Piece pc : pieces) {
        m.clear();
        p.pattern.find_all(cps.data() + pc.begin, pc.end - pc.begin, m);
        for (auto& x : m) { x.first += pc.begin; x.second += pc.begin; }
        split_piece(pc, m, p.invert, p.behavior, out);
      }
      break;
    case T::Metaspace: {
      NormStr t;
      t.s.reserve(seg.s.size() + 3);
      // HF prepends after replacing spaces, unless the text then starts with the replacement;
      // "first" only for the segment at the start of the input.
      const bool prepend = p.prepend == PreTokenizer::Prepend::Always ||
                           (p.prepend == PreTokenizer::Prepend::First && !seg.align.empty() &&
                            seg.align[0].first == 0);
      if (prepend && !seg.s.empty() && seg.s[0] != ' ' &&
          seg.s.compare(0, p.replacement.size(), p.replacement) != 0)
        t.push(p.replacement, seg.align[0]);
      for (size_t k = 0; k < seg.s.size(); ++k) {
        if (seg.s[k] == ' ') t.push(p.replacement, seg.align[k]);
        else t.push(std::string_view(&seg.s[k], 1), seg.align[k]);
      }
      reset_segment(seg, std::move(t), cps, cp_byte, pieces);
      if (!p.split) return;
      const char32_t rep = uni::decode(p.replacement).empty() ? 0 : uni::decode(p.replacement)[0];
      for (Piece pc : pieces) {
        m.clear();
        char_matches(cps, pc, [&](char32_t c) { return c == rep; }, m);
        split_piece(pc, m, false, SplitBehavior::MergedWithNext, out);
      }
      break;
    }
    case T::Digits:
      for (Piece pc : pieces) {
        m.clear();
        char_matches(cps, pc, [](char32_t c) { return ucls::is(c, ucls::N); }, m);
        split_piece(pc, m, false, p.individual_digits ? SplitBehavior::Isolated : SplitBehavior::Contiguous,
                    out);
      }
      break;
    case T::Punctuation:
      for (Piece pc : pieces) {
        m.clear();
        char_matches(cps, pc, is_punctuation, m);
        split_piece(pc, m, false, p.behavior, out);
      }
      break;
    case T::Whitespace:
      for (Piece pc : pieces) {
        m.clear();
        p.pattern.find_all(cps.data() + pc.begin, pc.end - pc.begin, m);
        for (auto& x : m) { x.first += pc.begin; x.second += pc.begin; }
        split_piece(pc, m, true, SplitBehavior::Removed, out);
      }
      break;
    case T::WhitespaceSplit:
      for (Piece pc : pieces) {
        m.clear();
        char_matches(cps, pc, ucls::is_space, m);
        split_piece(pc, m, false, SplitBehavior::Removed, out);
      }
      break;
  }
  pieces.swap(out);
}

}  // namespace

void pre_tokenize(const PreTokenizer& p, NormStr& seg, std::u32string& cps,
                  std::vector<uint32_t>& cp_byte, std::vector<Piece>& pieces) {
  run(p, seg, cps, cp_byte, pieces);
}

}  // namespace toolchat::tokenize
