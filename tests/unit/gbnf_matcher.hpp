// A small GBNF matcher for tests, written from llama.cpp's grammar format (grammars/README.md):
// one rule per line (`name ::= body`), literals, character classes (over UTF-8 code points, with
// \\x \\u \\U \\n \\t \\r escapes), rule references, groups, alternatives, the * + ? operators and
// the {m} {m,} {m,n} repetitions.
// matches() says whether the whole text derives from `root`: a set-of-end-positions recogniser
// memoised per (rule, position), so ambiguity costs nothing and right recursion is fine.
// sample() writes a random text the grammar admits (what a random-weight model constrained by it
// could write): alternatives, repetitions and code points chosen at random, code points of a
// negated class from characters that trip parsers (markup, quotes, whitespace, multi-byte).
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gbnf_test {

// The code point at `pos` and its length in bytes (a stray byte stands for itself).
inline std::pair<uint32_t, size_t> decode(const std::string& s, size_t pos) {
  unsigned char c = s[pos];
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (n == 1 || pos + n > s.size()) return {c, 1};
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char x = s[pos + k];
    if ((x & 0xC0) != 0x80) return {c, 1};
    cp = (cp << 6) | (x & 0x3F);
  }
  return {cp, n};
}

struct Node {
  enum Kind { Lit, Class, Ref, Seq, Alt, Star, Plus, Opt, Rep } kind;
  explicit Node(Kind k) : kind(k) {}
  std::string text;                            // Lit: bytes; Ref: rule name
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  bool negated = false;
  size_t min = 0, max = 0;                     // Rep: {min,max}; max SIZE_MAX when open
  std::vector<std::unique_ptr<Node>> kids;
};

class Grammar {
 public:
  explicit Grammar(const std::string& src) {
    size_t line_start = 0;
    while (line_start < src.size()) {
      size_t nl = src.find('\n', line_start);
      std::string line = src.substr(line_start, nl == std::string::npos ? std::string::npos : nl - line_start);
      line_start = nl == std::string::npos ? src.size() : nl + 1;
      if (line.empty()) continue;
      size_t def = line.find(" ::= ");
      if (def == std::string::npos) throw std::runtime_error("no ::= in: " + line);
      s_ = line.substr(def + 5);
      i_ = 0;
      auto n = alt();
      skip();
      if (i_ != s_.size()) throw std::runtime_error("trailing text in rule " + line.substr(0, def) + ": " + s_.substr(i_));
      rules_[line.substr(0, def)] = std::move(n);
    }
  }
  // Every referenced rule is defined.
  std::vector<std::string> undefined() const {
    std::vector<std::string> out;
    for (const auto& r : refs_)
      if (!rules_.count(r)) out.push_back(r);
    return out;
  }
  bool matches(const std::string& text) {
    memo_.clear();
    text_ = text;
    return ends_rule("root", 0).count(text.size()) > 0;
  }
  // The most bytes the grammar derives (SIZE_MAX when unbounded: a repetition without an upper
  // bound, or recursion).
  size_t longest() {
    std::set<std::string> active;
    std::map<std::string, size_t> memo;
    std::function<size_t(const Node&)> most = [&](const Node& n) -> size_t {
      auto add = [](size_t a, size_t b) { return a == SIZE_MAX || b == SIZE_MAX ? SIZE_MAX : a + b; };
      switch (n.kind) {
        case Node::Lit: return n.text.size();
        case Node::Class: return 4;
        case Node::Ref: {
          if (auto it = memo.find(n.text); it != memo.end()) return it->second;
          if (!active.insert(n.text).second) return SIZE_MAX;
          size_t m = most(*rules_.at(n.text));
          active.erase(n.text);
          return memo[n.text] = m;
        }
        case Node::Seq: { size_t t = 0; for (const auto& k : n.kids) t = add(t, most(*k)); return t; }
        case Node::Alt: { size_t m = 0; for (const auto& k : n.kids) m = std::max(m, most(*k)); return m; }
        case Node::Opt: return most(*n.kids[0]);
        case Node::Star: case Node::Plus: return most(*n.kids[0]) == 0 ? 0 : SIZE_MAX;
        case Node::Rep: {
          size_t k = most(*n.kids[0]);
          if (k == 0 || n.max == 0) return 0;
          return n.max == SIZE_MAX || k == SIZE_MAX || k > SIZE_MAX / n.max ? SIZE_MAX : k * n.max;
        }
      }
      return SIZE_MAX;
    };
    return most(*rules_.at("root"));
  }
  // A random text of the grammar; past `budget` bytes it takes the shortest way to the end.
  std::string sample(std::mt19937& rng, size_t budget = 400) {
    if (min_len_.empty()) shortest();
    std::string out;
    gen(*rules_.at("root"), rng, budget, out);
    return out;
  }

 private:
  void skip() { while (i_ < s_.size() && s_[i_] == ' ') ++i_; }
  uint32_t esc() {  // after a backslash
    char c = s_[i_++];
    auto hex = [&](size_t n) { uint32_t v = std::stoul(s_.substr(i_, n), nullptr, 16); i_ += n; return v; };
    switch (c) {
      case 'n': return '\n';
      case 't': return '\t';
      case 'r': return '\r';
      case 'x': return hex(2);
      case 'u': return hex(4);
      case 'U': return hex(8);
      default: return static_cast<unsigned char>(c);
    }
  }
  // One class member: an escape or a UTF-8 code point of the grammar text.
  uint32_t class_char() {
    if (s_[i_] == '\\') { ++i_; return esc(); }
    auto [cp, n] = decode(s_, i_);
    i_ += n;
    return cp;
  }
  std::unique_ptr<Node> alt() {
    auto a = std::make_unique<Node>(Node(Node::Alt));
    a->kids.push_back(seq());
    while (skip(), i_ < s_.size() && s_[i_] == '|') { ++i_; a->kids.push_back(seq()); }
    return a;
  }
  std::unique_ptr<Node> seq() {
    auto q = std::make_unique<Node>(Node(Node::Seq));
    for (;;) {
      skip();
      if (i_ >= s_.size() || s_[i_] == '|' || s_[i_] == ')') return q;
      auto p = primary();
      skip();
      while (i_ < s_.size() && (s_[i_] == '*' || s_[i_] == '+' || s_[i_] == '?' || s_[i_] == '{')) {
        if (s_[i_] == '{') {
          auto w = std::make_unique<Node>(Node(Node::Rep));
          size_t close = s_.find('}', i_);
          if (close == std::string::npos) throw std::runtime_error("unclosed { in " + s_);
          std::string spec = s_.substr(i_ + 1, close - i_ - 1);
          size_t comma = spec.find(',');
          w->min = std::stoul(spec.substr(0, comma));
          w->max = comma == std::string::npos ? w->min
                   : comma + 1 == spec.size() ? SIZE_MAX : std::stoul(spec.substr(comma + 1));
          if (w->max < w->min) throw std::runtime_error("bad repetition {" + spec + "}");
          w->kids.push_back(std::move(p));
          p = std::move(w);
          i_ = close + 1;
          continue;
        }
        auto w = std::make_unique<Node>(Node(s_[i_] == '*' ? Node::Star : s_[i_] == '+' ? Node::Plus : Node::Opt));
        w->kids.push_back(std::move(p));
        p = std::move(w);
        ++i_;
      }
      q->kids.push_back(std::move(p));
    }
  }
  std::unique_ptr<Node> primary() {
    char c = s_[i_];
    if (c == '(') {
      ++i_;
      auto a = alt();
      skip();
      if (s_[i_++] != ')') throw std::runtime_error("unbalanced (");
      return a;
    }
    if (c == '"') {
      auto n = std::make_unique<Node>(Node(Node::Lit));
      ++i_;
      while (s_.at(i_) != '"') {
        if (s_[i_] == '\\') { ++i_; n->text += static_cast<char>(esc()); }
        else n->text += s_[i_++];
      }
      ++i_;
      return n;
    }
    if (c == '[') {
      auto n = std::make_unique<Node>(Node(Node::Class));
      ++i_;
      if (s_[i_] == '^') { n->negated = true; ++i_; }
      while (s_.at(i_) != ']') {
        uint32_t lo = class_char();
        uint32_t hi = lo;
        if (s_[i_] == '-' && s_[i_ + 1] != ']') { ++i_; hi = class_char(); }
        n->ranges.emplace_back(lo, hi);
      }
      ++i_;
      return n;
    }
    auto n = std::make_unique<Node>(Node(Node::Ref));
    while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-')) n->text += s_[i_++];
    if (n->text.empty()) throw std::runtime_error("unexpected '" + std::string(1, c) + "' in " + s_);
    refs_.insert(n->text);
    return n;
  }

  // End positions of every way `n` matches text_ from `pos` (literals match bytes, classes match one
  // UTF-8 code point, as in llama.cpp).
  std::set<size_t> ends(const Node& n, size_t pos) {
    std::set<size_t> out;
    switch (n.kind) {
      case Node::Lit:
        if (text_.compare(pos, n.text.size(), n.text) == 0) out.insert(pos + n.text.size());
        break;
      case Node::Class:
        if (pos < text_.size()) {
          auto [c, len] = decode(text_, pos);
          bool in = false;
          for (auto [lo, hi] : n.ranges) in = in || (c >= lo && c <= hi);
          if (in != n.negated) out.insert(pos + len);
        }
        break;
      case Node::Ref: return ends_rule(n.text, pos);
      case Node::Alt:
        for (const auto& k : n.kids) for (size_t e : ends(*k, pos)) out.insert(e);
        break;
      case Node::Seq: {
        std::set<size_t> cur{pos};
        for (const auto& k : n.kids) {
          std::set<size_t> next;
          for (size_t p : cur) for (size_t e : ends(*k, p)) next.insert(e);
          cur = std::move(next);
        }
        return cur;
      }
      case Node::Opt:
        out = ends(*n.kids[0], pos);
        out.insert(pos);
        break;
      case Node::Rep: {
        // Positions after exactly k repetitions, k = 0 .. max; those with k >= min are ends.
        std::set<size_t> cur{pos};
        if (n.min == 0) out.insert(pos);
        std::set<size_t> seen_open;  // for open repetitions past min: positions already expanded
        for (size_t k = 1; k <= n.max && !cur.empty(); ++k) {
          std::set<size_t> next;
          for (size_t p : cur) for (size_t e : ends(*n.kids[0], p)) next.insert(e);
          if (k >= n.min) {
            if (n.max == SIZE_MAX) {
              std::set<size_t> fresh;
              for (size_t e : next) if (seen_open.insert(e).second) fresh.insert(e);
              next = std::move(fresh);
            }
            out.insert(next.begin(), next.end());
          }
          cur = std::move(next);
        }
        break;
      }
      case Node::Star:
      case Node::Plus: {
        std::set<size_t> frontier = n.kind == Node::Star ? std::set<size_t>{pos} : ends(*n.kids[0], pos);
        out = frontier;
        while (!frontier.empty()) {
          std::set<size_t> next;
          for (size_t p : frontier) for (size_t e : ends(*n.kids[0], p)) if (out.insert(e).second) next.insert(e);
          frontier = std::move(next);
        }
        break;
      }
    }
    return out;
  }
  std::set<size_t> ends_rule(const std::string& name, size_t pos) {
    auto key = std::make_pair(name, pos);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    auto r = rules_.find(name);
    if (r == rules_.end()) throw std::runtime_error("undefined rule " + name);
    return memo_[key] = ends(*r->second, pos);
  }

  // The fewest bytes each rule derives (a fixed point over the rules; recursion without an exit
  // stays at "infinite").
  static constexpr size_t kInf = SIZE_MAX / 4;
  size_t min_len(const Node& n) const {
    switch (n.kind) {
      case Node::Lit: return n.text.size();
      case Node::Class: return 1;
      case Node::Ref: { auto it = min_len_.find(n.text); return it == min_len_.end() ? kInf : it->second; }
      case Node::Seq: { size_t t = 0; for (const auto& k : n.kids) t = std::min(kInf, t + min_len(*k)); return t; }
      case Node::Alt: { size_t m = kInf; for (const auto& k : n.kids) m = std::min(m, min_len(*k)); return m; }
      case Node::Opt: case Node::Star: return 0;
      case Node::Plus: return min_len(*n.kids[0]);
      case Node::Rep: return n.min == 0 ? 0 : std::min(kInf, n.min * min_len(*n.kids[0]));
    }
    return kInf;
  }
  void shortest() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [name, n] : rules_) {
        size_t m = min_len(*n);
        auto it = min_len_.find(name);
        if (it == min_len_.end() || m < it->second) { min_len_[name] = m; changed = true; }
      }
    }
  }
  static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) out += static_cast<char>(cp);
    else if (cp < 0x800) { out += static_cast<char>(0xC0 | cp >> 6); out += static_cast<char>(0x80 | (cp & 0x3F)); }
    else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | cp >> 12); out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | cp >> 18); out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F)); out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }
  void gen(const Node& n, std::mt19937& rng, size_t budget, std::string& out) {
    bool cheap = out.size() > budget;
    auto coin = [&](int percent) { return static_cast<int>(rng() % 100) < percent; };
    switch (n.kind) {
      case Node::Lit: out += n.text; return;
      case Node::Class: {
        static const uint32_t pool[] = {'a', 'Z', '7', '0', ' ', '\n', '\t', '\r', '<', '>', '/', '=', '"', '\'', '\\', '{', '}',
                                        '[', ']', ',', ':', '|', '-', '_', '.', '`', 0xE9, 0x4E2D, 0x1F600, 0xFF5C};
        auto in = [&](uint32_t c) {
          bool hit = false;
          for (auto [lo, hi] : n.ranges) hit = hit || (c >= lo && c <= hi);
          return hit != n.negated;
        };
        std::vector<uint32_t> ok;
        for (uint32_t c : pool) if (in(c)) ok.push_back(c);
        if (!n.negated && (ok.empty() || coin(50))) {
          auto [lo, hi] = n.ranges[rng() % n.ranges.size()];
          put_utf8(out, lo + static_cast<uint32_t>(rng() % (hi - lo + 1)));
        } else {
          put_utf8(out, ok.at(rng() % ok.size()));
        }
        return;
      }
      case Node::Ref: gen(*rules_.at(n.text), rng, budget, out); return;
      case Node::Seq: for (const auto& k : n.kids) gen(*k, rng, budget, out); return;
      case Node::Alt: {
        size_t pick = rng() % n.kids.size();
        if (cheap)
          for (size_t i = 0; i < n.kids.size(); ++i) if (min_len(*n.kids[i]) < min_len(*n.kids[pick])) pick = i;
        gen(*n.kids[pick], rng, budget, out);
        return;
      }
      case Node::Opt: if (!cheap && coin(60)) gen(*n.kids[0], rng, budget, out); return;
      case Node::Star: case Node::Plus: {
        size_t k = n.kind == Node::Plus ? 1 : 0;
        while (out.size() <= budget && coin(70)) ++k;
        for (size_t i = 0; i < k; ++i) gen(*n.kids[0], rng, budget, out);
        return;
      }
      case Node::Rep: {
        // Often the most the repetition allows (where bounds are broken), else a few.
        size_t hi = n.max == SIZE_MAX ? n.min + 8 : n.max;
        size_t k = cheap ? n.min : coin(30) ? hi : n.min + rng() % (std::min(hi, n.min + 8) - n.min + 1);
        for (size_t i = 0; i < k; ++i) gen(*n.kids[0], rng, budget, out);
        return;
      }
    }
  }

  std::map<std::string, std::unique_ptr<Node>> rules_;
  std::map<std::string, size_t> min_len_;
  std::set<std::string> refs_;
  std::map<std::pair<std::string, size_t>, std::set<size_t>> memo_;
  std::string s_, text_;
  size_t i_ = 0;
};

}  // namespace gbnf_test
