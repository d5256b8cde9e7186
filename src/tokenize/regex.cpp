// Parser and backtracking matcher of tokenize/regex.hpp.
#include "tokenize/regex.hpp"

#include <algorithm>
#include <climits>

#include "tokenize/unicode_classes.hpp"
#include "toolchat/error.hpp"
#include "value/unicode.hpp"

namespace toolchat::tokenize {

bool Regex::CharSet::matches_slow(char32_t c) const {
  bool hit = false;
  if (any_but_newline) {
    hit = c != U'\n';
  } else {
    const unsigned cls = (mask || !neg_masks.empty()) ? ucls::classes_of(c) : 0;
    if (cls & mask) hit = true;
    for (size_t i = 0; !hit && i < neg_masks.size(); ++i) hit = !(cls & neg_masks[i]);
    for (size_t i = 0; !hit && i < ranges.size(); ++i) hit = c >= ranges[i].first && c <= ranges[i].second;
  }
  return hit != negated;
}

void Regex::CharSet::finish() {
  ascii[0] = ascii[1] = 0;
  for (char32_t c = 0; c < 128; ++c)
    if (matches_slow(c)) ascii[c >> 6] |= uint64_t(1) << (c & 63);
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------
class RegexParser {
 public:
  RegexParser(Regex& re) : re_(re), p_(uni::decode(re.pattern_)) {}

  void run() {
    re_.top_ = alternation(false);
    if (i_ < p_.size()) fail("unbalanced ')'");
  }

 private:
  Regex& re_;
  std::u32string p_;
  size_t i_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw_error(ErrorKind::ValueError, "regex " + re_.pattern_ + ": " + what + " at code point " +
                                           std::to_string(i_));
  }
  bool more() const { return i_ < p_.size(); }
  char32_t peek() const { return p_[i_]; }

  uint32_t add_node(Regex::Node n) {
    re_.nodes_.push_back(std::move(n));
    return static_cast<uint32_t>(re_.nodes_.size() - 1);
  }
  uint32_t add_set(Regex::CharSet s) {
    s.finish();
    re_.sets_.push_back(std::move(s));
    Regex::Node n;
    n.kind = Regex::Kind::Set;
    n.set = static_cast<uint32_t>(re_.sets_.size() - 1);
    return add_node(std::move(n));
  }

  std::vector<std::vector<uint32_t>> alternation(bool ci) {
    std::vector<std::vector<uint32_t>> alts;
    alts.emplace_back();
    while (more() && peek() != U')') {
      if (peek() == U'|') {
        ++i_;
        alts.emplace_back();
        continue;
      }
      uint32_t atom_node = atom(ci);
      atom_node = quantified(atom_node);
      alts.back().push_back(atom_node);
    }
    return alts;
  }

  uint32_t quantified(uint32_t atom_node) {
    while (more()) {
      uint32_t lo, hi;
      const size_t save = i_;
      const char32_t c = peek();
      if (c == U'?') { lo = 0; hi = 1; ++i_; }
      else if (c == U'*') { lo = 0; hi = UINT32_MAX; ++i_; }
      else if (c == U'+') { lo = 1; hi = UINT32_MAX; ++i_; }
      else if (c == U'{') {
        ++i_;
        if (!more() || !(peek() >= U'0' && peek() <= U'9')) { i_ = save; return atom_node; }
        lo = number();
        hi = lo;
        if (more() && peek() == U',') {
          ++i_;
          hi = (more() && peek() >= U'0' && peek() <= U'9') ? number() : UINT32_MAX;
        }
        if (!more() || peek() != U'}') fail("bad {m,n} quantifier");
        ++i_;
        if (hi < lo) fail("{m,n} with n < m");
      } else {
        return atom_node;
      }
      Regex::Node r;
      r.kind = Regex::Kind::Repeat;
      r.min = lo;
      r.max = hi;
      if (more() && peek() == U'?') { r.greedy = false; ++i_; }
      else if (more() && peek() == U'+') fail("possessive quantifiers are not supported");
      r.single = re_.nodes_[atom_node].kind == Regex::Kind::Set;
      r.alts.push_back({atom_node});
      atom_node = add_node(std::move(r));
    }
    return atom_node;
  }

  uint32_t number() {
    uint64_t v = 0;
    while (more() && peek() >= U'0' && peek() <= U'9') {
      v = v * 10 + (peek() - U'0');
      if (v > 100000) fail("repeat count too large");
      ++i_;
    }
    return static_cast<uint32_t>(v);
  }

  static void add_case_variants(Regex::CharSet& s, char32_t c) {
    s.ranges.push_back({c, c});
    char32_t buf[3];
    if (uni::to_lower_full(c, buf) == 1 && buf[0] != c) s.ranges.push_back({buf[0], buf[0]});
    if (uni::to_upper_full(c, buf) == 1 && buf[0] != c) s.ranges.push_back({buf[0], buf[0]});
    // Characters whose case folding is an ASCII letter (Oniguruma folds them too).
    if (c == U's' || c == U'S') s.ranges.push_back({0x17F, 0x17F});
    if (c == U'k' || c == U'K') s.ranges.push_back({0x212A, 0x212A});
  }

  uint32_t literal(char32_t c, bool ci) {
    Regex::CharSet s;
    if (ci) add_case_variants(s, c);
    else s.ranges.push_back({c, c});
    return add_set(std::move(s));
  }

  uint32_t atom(bool ci) {
    const char32_t c = peek();
    if (c == U'(') {
      ++i_;
      Regex::Node g;
      g.kind = Regex::Kind::Group;
      bool inner_ci = ci;
      if (more() && peek() == U'?') {
        ++i_;
        if (!more()) fail("truncated group");
        const char32_t k = peek();
        if (k == U':') {
          ++i_;
        } else if (k == U'=' || k == U'!') {
          ++i_;
          g.kind = Regex::Kind::Look;
          g.negative = k == U'!';
        } else if (k == U'i' || k == U'-') {
          bool on = true;
          while (more() && peek() != U':' && peek() != U')') {
            if (peek() == U'-') on = false;
            else if (peek() == U'i') inner_ci = on;
            else fail("unsupported group flag");
            ++i_;
          }
          if (!more()) fail("truncated group");
          if (peek() == U')') fail("inline flags without a group are not supported");
          ++i_;
        } else {
          fail("unsupported group syntax");
        }
      }
      g.alts = alternation(inner_ci);
      if (!more() || peek() != U')') fail("missing ')'");
      ++i_;
      return add_node(std::move(g));
    }
    if (c == U'[') return add_set(bracket(ci));
    if (c == U'.') {
      ++i_;
      Regex::CharSet s;
      s.any_but_newline = true;
      return add_set(std::move(s));
    }
    if (c == U'^' || c == U'$') {
      ++i_;
      Regex::Node n;
      n.kind = c == U'^' ? Regex::Kind::Bol : Regex::Kind::Eol;
      return add_node(std::move(n));
    }
    if (c == U'*' || c == U'+' || c == U'?') fail("nothing to repeat");
    if (c == U'\\') {
      ++i_;
      if (!more()) fail("trailing backslash");
      const char32_t e = peek();
      if (e == U'A' || e == U'z') {
        ++i_;
        Regex::Node n;
        n.kind = e == U'A' ? Regex::Kind::BeginText : Regex::Kind::EndText;
        return add_node(std::move(n));
      }
      Regex::CharSet s;
      char32_t lit;
      if (escape(s, lit)) return add_set(std::move(s));
      return literal(lit, ci);
    }
    ++i_;
    return literal(c, ci);
  }

  static unsigned class_mask(const std::u32string& name) {
    static const struct { const char32_t* n; unsigned m; } kNames[] = {
        {U"L", ucls::L}, {U"Letter", ucls::L}, {U"Lu", ucls::Lu}, {U"Ll", ucls::Ll},
        {U"Lt", ucls::Lt}, {U"Lm", ucls::Lm}, {U"Lo", ucls::Lo}, {U"M", ucls::M},
        {U"Mark", ucls::M}, {U"N", ucls::N}, {U"Number", ucls::N}, {U"Nd", ucls::Nd},
        {U"P", ucls::P}, {U"Punctuation", ucls::P}, {U"S", ucls::S}, {U"Symbol", ucls::S},
    };
    for (const auto& e : kNames)
      if (name == e.n) return e.m;
    return 0;
  }

  // After a backslash (i_ at the escaped char). A class escape fills `s` and returns true;
  // otherwise `lit` is the literal code point.
  bool escape(Regex::CharSet& s, char32_t& lit) {
    const char32_t e = p_[i_++];
    switch (e) {
      case U's': s.mask |= ucls::Space; return true;
      case U'S': s.neg_masks.push_back(ucls::Space); return true;
      case U'w': s.mask |= ucls::Word; return true;
      case U'W': s.neg_masks.push_back(ucls::Word); return true;
      case U'd': s.mask |= ucls::Nd; return true;
      case U'D': s.neg_masks.push_back(ucls::Nd); return true;
      case U'p': case U'P': {
        if (!more() || peek() != U'{') fail("\\p needs {Name}");
        ++i_;
        bool neg = e == U'P';
        if (more() && peek() == U'^') { neg = !neg; ++i_; }
        std::u32string name;
        while (more() && peek() != U'}') name.push_back(p_[i_++]);
        if (!more()) fail("unterminated \\p{");
        ++i_;
        const unsigned m = class_mask(name);
        if (!m) fail("unsupported Unicode class \\p{" + uni::encode(name) + "}");
        if (neg) s.neg_masks.push_back(m);
        else s.mask |= m;
        return true;
      }
      case U'n': lit = U'\n'; return false;
      case U'r': lit = U'\r'; return false;
      case U't': lit = U'\t'; return false;
      case U'f': lit = U'\f'; return false;
      case U'v': lit = U'\v'; return false;
      case U'a': lit = 7; return false;
      case U'e': lit = 0x1B; return false;
      case U'x': case U'u': {
        char32_t v = 0;
        size_t digits = 0;
        const bool braced = e == U'x' && more() && peek() == U'{';
        if (braced) ++i_;
        const size_t limit = braced ? 8 : (e == U'x' ? 2 : 4);
        while (more() && digits < limit) {
          const char32_t h = peek();
          int d = h >= U'0' && h <= U'9' ? int(h - U'0') : h >= U'a' && h <= U'f' ? int(h - U'a' + 10)
                : h >= U'A' && h <= U'F' ? int(h - U'A' + 10) : -1;
          if (d < 0) break;
          v = v * 16 + char32_t(d);
          ++digits;
          ++i_;
        }
        if (braced) {
          if (!more() || peek() != U'}') fail("bad \\x{...}");
          ++i_;
        }
        if (digits == 0) fail("bad hex escape");
        lit = v;
        return false;
      }
      default:
        if ((e >= U'a' && e <= U'z') || (e >= U'A' && e <= U'Z') || (e >= U'0' && e <= U'9'))
          fail(std::string("unsupported escape \\") + char(e));
        lit = e;
        return false;
    }
  }

  Regex::CharSet bracket(bool ci) {
    ++i_;  // '['
    Regex::CharSet s;
    if (more() && peek() == U'^') { s.negated = true; ++i_; }
    bool first = true;
    while (true) {
      if (!more()) fail("unterminated [");
      char32_t c = peek();
      if (c == U']' && !first) { ++i_; break; }
      if (c == U'[') fail("nested classes are not supported");
      first = false;
      char32_t lo;
      if (c == U'\\') {
        ++i_;
        if (!more()) fail("trailing backslash");
        if (escape(s, lo)) continue;
      } else {
        lo = c;
        ++i_;
      }
      char32_t hi = lo;
      if (more() && peek() == U'-' && i_ + 1 < p_.size() && p_[i_ + 1] != U']') {
        ++i_;
        char32_t h = p_[i_];
        if (h == U'\\') {
          ++i_;
          if (!more()) fail("trailing backslash");
          Regex::CharSet dummy;
          if (escape(dummy, h)) fail("class escape as a range end");
        } else {
          ++i_;
        }
        hi = h;
        if (hi < lo) fail("range out of order");
      }
      if (ci && lo == hi) add_case_variants(s, lo);
      else s.ranges.push_back({lo, hi});
    }
    return s;
  }
};

Regex::Regex(std::string_view pattern) : pattern_(pattern) {
  RegexParser(*this).run();
  compute_first();
}

std::vector<uint32_t> Regex::first_sets(const std::vector<uint32_t>& alt) const {
  if (alt.empty()) return {};
  const Node& n = nodes_[alt[0]];
  switch (n.kind) {
    case Kind::Set:
      return {n.set};
    case Kind::Repeat:
      return n.min >= 1 ? first_sets(n.alts[0]) : std::vector<uint32_t>{};
    case Kind::Group: {
      std::vector<uint32_t> all;
      for (const auto& a : n.alts) {
        std::vector<uint32_t> f = first_sets(a);
        if (f.empty()) return {};
        all.insert(all.end(), f.begin(), f.end());
      }
      return all;
    }
    default:
      return {};
  }
}

void Regex::compute_first() {
  for (Node& n : nodes_) {
    if (n.kind != Kind::Group) continue;
    n.first.clear();
    for (const auto& a : n.alts) n.first.push_back(first_sets(a));
  }
  top_first_.clear();
  search_first_.clear();
  bool all_known = true;
  for (const auto& a : top_) {
    top_first_.push_back(first_sets(a));
    if (top_first_.back().empty()) all_known = false;
    search_first_.insert(search_first_.end(), top_first_.back().begin(), top_first_.back().end());
  }
  if (!all_known) search_first_.clear();
}

// ---------------------------------------------------------------------------
// Matcher
// ---------------------------------------------------------------------------
class RegexMatcher {
 public:
  RegexMatcher(const Regex& re, const char32_t* t, size_t n) : re_(re), t_(t), n_(n) {}

  // Match anchored at pos; on success end_ is the match end.
  bool at(size_t pos) {
    depth_ = 0;
    for (size_t a = 0; a < re_.top_.size(); ++a)
      if (may_start(re_.top_first_[a], pos) && seq(&re_.top_[a], 0, pos, nullptr)) return true;
    return false;
  }
  bool may_start(const std::vector<uint32_t>& sets, size_t pos) const {
    if (sets.empty()) return true;
    if (pos >= n_) return false;
    for (uint32_t s : sets)
      if (re_.sets_[s].matches(t_[pos])) return true;
    return false;
  }
  size_t end_ = 0;

 private:
  struct Cont {
    const std::vector<uint32_t>* seq;  // null: a repeat continuation
    size_t i;
    const Cont* next;
    const Regex::Node* rep;
    uint32_t count;
    size_t start;
  };
  const Regex& re_;
  const char32_t* t_;
  size_t n_;
  size_t depth_ = 0;

  struct DepthGuard {
    size_t& d;
    explicit DepthGuard(size_t& d_) : d(d_) {
      if (++d > 20000)
        throw_error(ErrorKind::LimitError, "regex: backtracking too deep on this input");
    }
    ~DepthGuard() { --d; }
  };

  bool resume(const Cont* k, size_t pos) {
    if (!k) {
      end_ = pos;
      return true;
    }
    if (k->seq) return seq(k->seq, k->i, pos, k->next);
    // One more iteration of a general repeat ended at pos.
    if (pos == k->start && k->count + 1 > k->rep->min) return false;  // empty loop
    return rep(*k->rep, k->count + 1, pos, k->next);
  }

  bool rep(const Regex::Node& n, uint32_t count, size_t pos, const Cont* after) {
    DepthGuard g(depth_);
    Cont c{nullptr, 0, after, &n, count, pos};
    if (n.greedy) {
      if (count < n.max && seq(&n.alts[0], 0, pos, &c)) return true;
      return count >= n.min && resume(after, pos);
    }
    if (count >= n.min && resume(after, pos)) return true;
    return count < n.max && seq(&n.alts[0], 0, pos, &c);
  }

  bool look(const Regex::Node& n, size_t pos) {
    const size_t saved = end_;
    bool hit = false;
    for (const auto& alt : n.alts)
      if (seq(&alt, 0, pos, nullptr)) { hit = true; break; }
    end_ = saved;
    return hit;
  }

  bool seq(const std::vector<uint32_t>* s, size_t i, size_t pos, const Cont* k) {
    DepthGuard g(depth_);
    while (true) {
      if (i == s->size()) return resume(k, pos);
      const Regex::Node& n = re_.nodes_[(*s)[i]];
      switch (n.kind) {
        case Regex::Kind::Set:
          if (pos < n_ && re_.sets_[n.set].matches(t_[pos])) {
            ++pos;
            ++i;
            continue;
          }
          return false;
        case Regex::Kind::Group: {
          Cont c{s, i + 1, k, nullptr, 0, 0};
          for (size_t a = 0; a < n.alts.size(); ++a)
            if (may_start(n.first[a], pos) && seq(&n.alts[a], 0, pos, &c)) return true;
          return false;
        }
        case Regex::Kind::Repeat: {
          if (n.single) {
            const Regex::CharSet& cs = re_.sets_[re_.nodes_[n.alts[0][0]].set];
            size_t cnt = 0;
            const size_t limit = n.greedy ? std::min<size_t>(n.max, n_ - pos) : n.min;
            while (cnt < limit && cs.matches(t_[pos + cnt])) ++cnt;
            if (cnt < n.min) return false;
            if (n.greedy) {
              for (size_t j = cnt + 1; j-- > n.min;)
                if (seq(s, i + 1, pos + j, k)) return true;
              return false;
            }
            for (size_t j = n.min;; ++j) {
              if (seq(s, i + 1, pos + j, k)) return true;
              if (j >= n.max || pos + j >= n_ || !cs.matches(t_[pos + j])) return false;
            }
          }
          Cont c{s, i + 1, k, nullptr, 0, 0};
          return rep(n, 0, pos, &c);
        }
        case Regex::Kind::Look:
          if (look(n, pos) == n.negative) return false;
          ++i;
          continue;
        case Regex::Kind::Bol:
          if (pos != 0 && t_[pos - 1] != U'\n') return false;
          ++i;
          continue;
        case Regex::Kind::Eol:
          if (pos != n_ && t_[pos] != U'\n') return false;
          ++i;
          continue;
        case Regex::Kind::BeginText:
          if (pos != 0) return false;
          ++i;
          continue;
        case Regex::Kind::EndText:
          if (pos != n_) return false;
          ++i;
          continue;
      }
    }
  }
};

bool Regex::search(const char32_t* text, size_t n, size_t from, size_t& ms, size_t& me) const {
  RegexMatcher m(*this, text, n);
  for (size_t p = from; p <= n; ++p) {
    if (!search_first_.empty()) {
      // Skip to a character some alternative can start with.
      while (p < n && !m.may_start(search_first_, p)) ++p;
      if (p >= n) return false;
    }
    if (m.at(p)) {
      ms = p;
      me = m.end_;
      return true;
    }
  }
  return false;
}

void Regex::find_all(const char32_t* text, size_t n,
                     std::vector<std::pair<size_t, size_t>>& out) const {
  size_t from = 0;
  bool have_last = false;
  size_t last_end = 0;
  while (from <= n) {
    size_t s, e;
    if (!search(text, n, from, s, e)) break;
    if (s == e && have_last && last_end == e) {
      from += 1;
      continue;
    }
    out.emplace_back(s, e);
    from = e;
    have_last = true;
    last_end = e;
  }
}

}  // namespace toolchat::tokenize
