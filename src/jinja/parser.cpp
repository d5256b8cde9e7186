#include "jinja/parser.hpp"

#include <set>

namespace toolchat::jinja {

namespace {

using EndTokens = std::vector<std::string>;  // "endfor", "else" (all are name tokens)

// Jinja2's parser takes these as keyword flags; here each call names its choice.
// parse_statements(drop_needle=...): whether the end tag is consumed.
enum class EndTag : bool { Keep, Drop };
// parse_filter(start_inline=...): AtName for `{% filter f %}`, where no `|` comes first.
enum class FilterStart : bool { AtPipe, AtName };
// parse_unary(with_filter=...): Leave for the operand of `-`, so that `-x|f` is `(-x)|f`.
enum class UnaryFilters : bool { Leave, Apply };

class Parser {
 public:
  Parser(const std::vector<Token>& t, Arena& a, SymbolTable& s, const EngineLimits& l, const Error* lex_error)
      : toks_(t), arena_(a), syms_(s), limits_(l), lex_error_(lex_error) {}

  Body parse() {
    if (toks_.size() == 1) lex_check(0);
    return subparse(nullptr);
  }

 private:
  const std::vector<Token>& toks_;
  Arena& arena_;
  SymbolTable& syms_;
  const EngineLimits& limits_;
  const Error* lex_error_;
  size_t i_ = 0;
  void lex_check(size_t i) const {
    if (lex_error_ && i + 1 == toks_.size()) throw *lex_error_;
  }
  std::vector<std::string> tag_stack_;
  std::vector<EndTokens> end_stack_;
  // Depth in quarter levels: a nesting level (statement, parenthesis, unary operator) costs
  // kLevel units, a link of a chain one unit (see ChainGuard).
  static constexpr size_t kLevel = 4;
  size_t depth_ = 0;

  [[noreturn]] void depth_error() {
    Error e(ErrorKind::LimitError, "template nesting exceeds the parser depth limit (" +
                                       std::to_string(limits_.max_parse_depth) + ")");
    e.set_position(cur().pos, nullptr);
    throw e;
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& pp) : p(pp) {
      if (p.depth_ + kLevel > p.limits_.max_parse_depth * kLevel) p.depth_error();
      p.depth_ += kLevel;
    }
    ~DepthGuard() { p.depth_ -= kLevel; }
  };

  // A chain built in a loop (a + b + c, x.a[0](), x|f|g, a if b else c if d ...) nests as deep
  // as it is long, and later passes recurse over it (issue 7: 100k-term chains overflowed the
  // resolver's stack). A link costs those passes one or two small frames where a nesting level
  // costs the parser's whole descent (a dozen frames), so a link counts a quarter level: a
  // 400-term sum or 300 chained filters parse (Jinja2 renders them), 1024+ links do not.
  struct ChainGuard {
    Parser& p;
    size_t n = 0;
    explicit ChainGuard(Parser& pp) : p(pp) {}
    void link() {
      if (p.depth_ + 1 > p.limits_.max_parse_depth * kLevel) p.depth_error();
      ++p.depth_;
      ++n;
    }
    ~ChainGuard() { p.depth_ -= n; }
  };

  const Token& cur() const { return toks_[i_]; }
  const Token& look() const {
    lex_check(i_ + 1);
    return toks_[i_ + 1 < toks_.size() ? i_ + 1 : i_];
  }
  const Token& advance() {
    const Token& t = toks_[i_];
    if (i_ + 1 < toks_.size()) ++i_;
    lex_check(i_);
    return t;
  }
  bool is(Tok t) const { return cur().type == t; }
  bool is_name(const char* n) const { return cur().type == Tok::Name && cur().text == n; }
  bool skip_if(Tok t) {
    if (!is(t)) return false;
    advance();
    return true;
  }
  bool skip_name(const char* n) {
    if (!is_name(n)) return false;
    advance();
    return true;
  }

  [[noreturn]] void fail(std::string msg, size_t pos, ErrorKind k = ErrorKind::TemplateSyntaxError) {
    Error e(k, std::move(msg));
    e.set_position(pos, nullptr);
    throw e;
  }
  [[noreturn]] void fail(std::string msg) { fail(std::move(msg), cur().pos); }

  static std::string quote(const std::string& s) { return string_repr(s); }

  const Token& expect(Tok t) {
    if (!is(t)) {
      if (is(Tok::Eof)) fail("unexpected end of template, expected " + quote(describe_tok(t)) + ".");
      fail("expected token " + quote(describe_tok(t)) + ", got " + quote(describe_token(cur())));
    }
    return advance();
  }
  const Token& expect_name(const char* n) {
    if (!is_name(n)) {
      if (is(Tok::Eof)) fail("unexpected end of template, expected " + quote(n) + ".");
      fail("expected token " + quote(n) + ", got " + quote(describe_token(cur())));
    }
    return advance();
  }

  [[noreturn]] void fail_ut_eof(const std::string* name, const std::vector<EndTokens>& stack, size_t pos) {
    std::set<std::string> expected;
    for (const auto& e : stack) expected.insert(e.begin(), e.end());
    std::string looking;
    if (!stack.empty()) {
      for (size_t k = 0; k < stack.back().size(); ++k) {
        if (k) looking += " or ";
        looking += quote(stack.back()[k]);
      }
    }
    std::string msg = name ? "Encountered unknown tag " + quote(*name) + "." : "Unexpected end of template.";
    if (!looking.empty()) {
      if (name && expected.count(*name))
        msg += " You probably made a nesting mistake. Jinja is expecting this tag, but currently looking for " + looking + ".";
      else
        msg += " Jinja was looking for the following tags: " + looking + ".";
    }
    if (!tag_stack_.empty()) msg += " The innermost block that needs to be closed is " + quote(tag_stack_.back()) + ".";
    fail(msg, pos);
  }

  // ---- statements ----

  Body subparse(const EndTokens* end) {
    Body body;
    if (end) end_stack_.push_back(*end);
    struct Pop {
      Parser& p; bool on;
      ~Pop() { if (on) p.end_stack_.pop_back(); }
    } pop{*this, end != nullptr};
    while (!is(Tok::Eof)) {
      const Token& t = cur();
      if (t.type == Tok::Data) {
        body.push_back(arena_.stmt<TextStmt>(t.pos, t.value.str()));
        advance();
      } else if (t.type == Tok::VarBegin) {
        advance();
        Expr* e = parse_tuple({});
        body.push_back(arena_.stmt<PrintStmt>(e->pos, e));
        expect(Tok::VarEnd);
      } else if (t.type == Tok::BlockBegin) {
        advance();
        if (end && is(Tok::Name)) {
          for (const auto& e : *end)
            if (cur().text == e) return body;
        }
        parse_statement(body);
        expect(Tok::BlockEnd);
      } else {
        fail("internal parsing error");
      }
    }
    return body;
  }

  Body parse_statements(const EndTokens& end, EndTag end_tag) {
    skip_if(Tok::Colon);
    expect(Tok::BlockEnd);
    Body body = subparse(&end);
    if (is(Tok::Eof)) {
      std::vector<EndTokens> stack = end_stack_;
      stack.push_back(end);
      fail_ut_eof(nullptr, stack, cur().pos);
    }
    if (end_tag == EndTag::Drop) advance();
    return body;
  }

  void parse_statement(Body& out) {
    DepthGuard g(*this);
    const Token& t = cur();
    if (t.type != Tok::Name) fail("tag name expected", t.pos);
    std::string name(t.text);
    static const std::set<std::string> known = {
        "for", "if", "block", "extends", "print", "macro", "include", "from", "import", "set",
        "with", "autoescape", "call", "filter", "generation", "break", "continue"};
    if (!known.count(name)) fail_ut_eof(&name, end_stack_, t.pos);
    tag_stack_.push_back(name);
    struct Pop { Parser& p; ~Pop() { p.tag_stack_.pop_back(); } } pop{*this};
    uint32_t pos = t.pos;
    if (name == "for") out.push_back(parse_for());
    else if (name == "if") out.push_back(parse_if());
    else if (name == "set") out.push_back(parse_set());
    else if (name == "macro") out.push_back(parse_macro());
    else if (name == "call") out.push_back(parse_call_block());
    else if (name == "filter") out.push_back(parse_filter_block());
    else if (name == "with") out.push_back(parse_with());
    else if (name == "print") parse_print(out);
    else if (name == "generation" || name == "autoescape" || name == "block") {
      advance();
      std::string endtag = "end" + name;
      if (name == "autoescape") parse_expression();
      std::string block_name;
      bool scoped = false;
      if (name == "block") {
        block_name = std::string(expect(Tok::Name).text);
        scoped = skip_name("scoped");
        skip_name("required");
        if (is(Tok::Sub))
          fail("Block names in Jinja have to be valid Python identifiers and may not contain hyphens, use an underscore instead.");
      }
      auto* s = arena_.stmt<BodyStmt>(name == "generation" ? SK::Generation : SK::Block, pos);
      s->name = block_name;
      s->scoped = scoped;
      s->body = parse_statements({endtag}, EndTag::Drop);
      if (name == "block" && is(Tok::Name) && cur().text == block_name) advance();
      out.push_back(s);
    } else if (name == "break" || name == "continue") {
      advance();
      out.push_back(arena_.stmt<Stmt>(name == "break" ? SK::Break : SK::Continue, pos));
    } else {  // extends, include, import, from: there is no loader in this environment
      advance();
      parse_expression();
      if (name == "import") {
        expect_name("as");
        expect(Tok::Name);
      } else if (name == "from") {
        expect_name("import");
        while (!is(Tok::BlockEnd) && !is(Tok::Eof)) advance();
      }
      while (is(Tok::Name) && (is_name("ignore") || is_name("missing") || is_name("with") ||
                               is_name("without") || is_name("context")))
        advance();
      out.push_back(arena_.stmt<UnsupportedStmt>(pos, name));
    }
  }

  Stmt* parse_for() {
    uint32_t pos = advance().pos;
    Expr* target = parse_assign_target({.extra_end = "in"});
    expect_name("in");
    Expr* iter = parse_tuple({.with_condexpr = false, .extra_end = "recursive"});
    auto* f = arena_.stmt<ForStmt>(pos, target, iter);
    if (skip_name("if")) f->filter = parse_expression();
    f->recursive = skip_name("recursive");
    f->body = parse_statements({"endfor", "else"}, EndTag::Keep);
    if (advance().text != "endfor") f->else_body = parse_statements({"endfor"}, EndTag::Drop);
    return f;
  }

  Stmt* parse_if() {
    auto* s = arena_.stmt<IfStmt>(advance().pos);
    while (true) {
      Expr* test = parse_tuple({.with_condexpr = false});
      Body body = parse_statements({"elif", "else", "endif"}, EndTag::Keep);
      s->branches.emplace_back(test, std::move(body));
      const Token& t = advance();
      if (t.text == "elif") continue;
      if (t.text == "else") s->else_body = parse_statements({"endif"}, EndTag::Drop);
      break;
    }
    return s;
  }

  Stmt* parse_set() {
    uint32_t pos = advance().pos;
    Expr* target = parse_assign_target({.with_ns = true});
    if (skip_if(Tok::Assign)) return arena_.stmt<SetStmt>(pos, target, parse_tuple({}));
    auto* s = arena_.stmt<SetBlockStmt>(pos, target);
    s->filter = parse_filter(nullptr, FilterStart::AtPipe);
    s->body = parse_statements({"endset"}, EndTag::Drop);
    return s;
  }

  void parse_signature(MacroDef& def) {
    expect(Tok::LParen);
    while (!is(Tok::RParen)) {
      if (!def.params.empty()) expect(Tok::Comma);
      const Token& t = expect(Tok::Name);
      std::string n(t.text);
      check_assignable_name(n, t.pos);
      if (skip_if(Tok::Assign)) {
        def.defaults.push_back(parse_expression());
      } else if (!def.defaults.empty()) {
        fail("non-default argument follows default argument");
      }
      def.params.push_back(syms_.intern(n));
      def.param_names.push_back(n);
    }
    expect(Tok::RParen);
  }

  void check_assignable_name(const std::string& n, size_t pos) {
    if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None")
      fail("can't assign to 'const'", pos);
  }

  Stmt* parse_macro() {
    uint32_t pos = advance().pos;
    const Token& t = expect(Tok::Name);
    std::string n(t.text);
    check_assignable_name(n, t.pos);
    auto* m = arena_.stmt<MacroStmt>(pos, syms_.intern(n));
    m->def.name = n;
    m->def.pos = pos;
    parse_signature(m->def);
    m->def.body = parse_statements({"endmacro"}, EndTag::Drop);
    return m;
  }

  Stmt* parse_call_block() {
    uint32_t pos = advance().pos;
    auto* c = arena_.stmt<CallBlockStmt>(pos);
    c->def.name = "caller";
    c->def.pos = pos;
    if (is(Tok::LParen)) parse_signature(c->def);
    Expr* call = parse_expression();
    if (call->kind != EK::Call) fail("expected call", pos);
    c->call = static_cast<CallExpr*>(call);
    c->def.body = parse_statements({"endcall"}, EndTag::Drop);
    return c;
  }

  Stmt* parse_filter_block() {
    auto* f = arena_.stmt<FilterBlockStmt>(advance().pos);
    f->filter = parse_filter(nullptr, FilterStart::AtName);
    f->body = parse_statements({"endfilter"}, EndTag::Drop);
    return f;
  }

  Stmt* parse_with() {
    auto* w = arena_.stmt<WithStmt>(advance().pos);
    while (!is(Tok::BlockEnd)) {
      if (!w->assigns.empty()) expect(Tok::Comma);
      Expr* target = parse_assign_target({});
      expect(Tok::Assign);
      w->assigns.emplace_back(target, parse_expression());
    }
    w->body = parse_statements({"endwith"}, EndTag::Drop);
    return w;
  }

  void parse_print(Body& out) {
    advance();
    bool first = true;
    while (!is(Tok::BlockEnd)) {
      if (!first) expect(Tok::Comma);
      first = false;
      Expr* e = parse_expression();
      out.push_back(arena_.stmt<PrintStmt>(e->pos, e));
    }
  }

  // Where an assignment target (`for x, y in`, `set ns.a =`) ends and what it may name.
  struct TargetOptions {
    const char* extra_end = nullptr;  // a name that also ends the target ("in")
    bool with_ns = false;             // `ns.attr` is a target
  };
  Expr* parse_assign_target(TargetOptions o) {
    Expr* target = parse_tuple({.simplified = true, .extra_end = o.extra_end, .with_ns = o.with_ns});
    if (!can_assign(target)) {
      const char* what = target->kind == EK::Const ? "const" : target->kind == EK::Tuple ? "tuple"
                       : target->kind == EK::List ? "list" : target->kind == EK::Dict ? "dict" : "expression";
      fail(std::string("can't assign to '") + what + "'", target->pos);
    }
    return target;
  }

  static bool can_assign(const Expr* e) {
    if (e->kind == EK::Name || e->kind == EK::NSRef) return true;
    if (e->kind == EK::Tuple) {
      for (auto* x : static_cast<const SeqExpr*>(e)->items)
        if (!can_assign(x)) return false;
      return true;
    }
    return false;
  }

  // ---- expressions ----

  Expr* parse_expression(bool with_condexpr = true) {
    DepthGuard g(*this);
    return with_condexpr ? parse_condexpr() : parse_or();
  }

  Expr* parse_condexpr() {
    uint32_t pos = cur().pos;
    Expr* e1 = parse_or();
    ChainGuard chain(*this);
    while (skip_name("if")) {
      chain.link();
      Expr* e2 = parse_or();
      Expr* e3 = nullptr;
      if (skip_name("else")) e3 = parse_condexpr();
      e1 = arena_.expr<CondExpr>(pos, e2, e1, e3);
      pos = cur().pos;
    }
    return e1;
  }

  Expr* parse_or() {
    uint32_t pos = cur().pos;
    Expr* l = parse_and();
    ChainGuard chain(*this);
    while (skip_name("or")) {
      chain.link();
      l = arena_.expr<LogicExpr>(EK::Or, pos, l, parse_and());
      pos = cur().pos;
    }
    return l;
  }

  Expr* parse_and() {
    uint32_t pos = cur().pos;
    Expr* l = parse_not();
    ChainGuard chain(*this);
    while (skip_name("and")) {
      chain.link();
      l = arena_.expr<LogicExpr>(EK::And, pos, l, parse_not());
      pos = cur().pos;
    }
    return l;
  }

  Expr* parse_not() {
    if (is_name("not")) {
      DepthGuard g(*this);
      uint32_t pos = advance().pos;
      return arena_.expr<UnaryExpr>(EK::Not, pos, parse_not());
    }
    return parse_compare();
  }

  Expr* parse_compare() {
    uint32_t pos = cur().pos;
    Expr* e = parse_math1();
    CompareExpr* c = nullptr;
    while (true) {
      CmpOp op;
      Tok t = cur().type;
      if (t == Tok::Eq) op = CmpOp::Eq;
      else if (t == Tok::Ne) op = CmpOp::Ne;
      else if (t == Tok::Lt) op = CmpOp::Lt;
      else if (t == Tok::LtEq) op = CmpOp::LtEq;
      else if (t == Tok::Gt) op = CmpOp::Gt;
      else if (t == Tok::GtEq) op = CmpOp::GtEq;
      else if (is_name("in")) op = CmpOp::In;
      else if (is_name("not") && look().type == Tok::Name && look().text == "in") { op = CmpOp::NotIn; advance(); }
      else break;
      advance();
      if (!c) c = arena_.expr<CompareExpr>(pos, e);
      c->ops.emplace_back(op, parse_math1());
    }
    return c ? c : e;
  }

  Expr* parse_math1() {
    uint32_t pos = cur().pos;
    Expr* l = parse_concat();
    ChainGuard chain(*this);
    while (is(Tok::Add) || is(Tok::Sub)) {
      chain.link();
      BinOp op = is(Tok::Add) ? BinOp::Add : BinOp::Sub;
      advance();
      l = arena_.expr<BinaryExpr>(pos, op, l, parse_concat());
      pos = cur().pos;
    }
    return l;
  }

  Expr* parse_concat() {
    uint32_t pos = cur().pos;
    Expr* first = parse_math2();
    if (!is(Tok::Tilde)) return first;
    auto* c = arena_.expr<SeqExpr>(EK::Concat, pos);
    c->items.push_back(first);
    while (skip_if(Tok::Tilde)) c->items.push_back(parse_math2());
    return c;
  }

  Expr* parse_math2() {
    uint32_t pos = cur().pos;
    Expr* l = parse_pow();
    ChainGuard chain(*this);
    while (true) {
      BinOp op;
      if (is(Tok::Mul)) op = BinOp::Mul;
      else if (is(Tok::Div)) op = BinOp::Div;
      else if (is(Tok::FloorDiv)) op = BinOp::FloorDiv;
      else if (is(Tok::Mod)) op = BinOp::Mod;
      else break;
      chain.link();
      advance();
      l = arena_.expr<BinaryExpr>(pos, op, l, parse_pow());
      pos = cur().pos;
    }
    return l;
  }

  Expr* parse_pow() {
    uint32_t pos = cur().pos;
    Expr* l = parse_unary(UnaryFilters::Apply);
    ChainGuard chain(*this);
    while (skip_if(Tok::Pow)) {
      chain.link();
      l = arena_.expr<BinaryExpr>(pos, BinOp::Pow, l, parse_unary(UnaryFilters::Apply));
      pos = cur().pos;
    }
    return l;
  }

  Expr* parse_unary(UnaryFilters filters) {
    DepthGuard g(*this);
    uint32_t pos = cur().pos;
    Expr* node;
    if (is(Tok::Sub)) {
      advance();
      node = arena_.expr<UnaryExpr>(EK::Neg, pos, parse_unary(UnaryFilters::Leave));
    } else if (is(Tok::Add)) {
      advance();
      node = arena_.expr<UnaryExpr>(EK::Pos, pos, parse_unary(UnaryFilters::Leave));
    } else {
      node = parse_primary();
    }
    node = parse_postfix(node);
    if (filters == UnaryFilters::Apply) node = parse_filter_expr(node);
    return node;
  }

  Expr* parse_primary(bool with_ns = false) {
    const Token& t = cur();
    if (t.type == Tok::Name) {
      advance();
      if (t.text == "true" || t.text == "True") return arena_.expr<ConstExpr>(t.pos, Value::boolean(true));
      if (t.text == "false" || t.text == "False") return arena_.expr<ConstExpr>(t.pos, Value::boolean(false));
      if (t.text == "none" || t.text == "None") return arena_.expr<ConstExpr>(t.pos, Value::none());
      std::string n(t.text);
      if (with_ns && is(Tok::Dot)) {
        advance();
        const Token& a = expect(Tok::Name);
        return arena_.expr<NSRefExpr>(t.pos, syms_.intern(n), n, std::string(a.text));
      }
      return arena_.expr<NameExpr>(t.pos, syms_.intern(n), n);
    }
    if (t.type == Tok::String) {
      advance();
      if (!is(Tok::String)) return arena_.expr<ConstExpr>(t.pos, t.value);
      std::string s = t.value.str();
      while (is(Tok::String)) s += advance().value.str();
      return arena_.expr<ConstExpr>(t.pos, Value::string(std::move(s)));
    }
    if (t.type == Tok::Integer || t.type == Tok::Float) {
      advance();
      return arena_.expr<ConstExpr>(t.pos, t.value);
    }
    if (t.type == Tok::LParen) {
      advance();
      Expr* e = parse_tuple({.explicit_parens = true});
      expect(Tok::RParen);
      return e;
    }
    if (t.type == Tok::LBracket) return parse_list();
    if (t.type == Tok::LBrace) return parse_dict();
    fail("unexpected " + quote(describe_token(t)), t.pos);
  }

  bool is_tuple_end(const char* extra) const {
    if (is(Tok::VarEnd) || is(Tok::BlockEnd) || is(Tok::RParen)) return true;
    return extra && is_name(extra);
  }

  // Jinja2's parse_tuple: one expression, or a tuple of them when commas follow.
  struct TupleOptions {
    bool simplified = false;          // primaries only (assignment targets)
    bool with_condexpr = true;        // `a if b else c` allowed
    const char* extra_end = nullptr;  // a name that also ends the tuple ("in", "recursive")
    bool explicit_parens = false;     // inside ( ): `()` is the empty tuple
    bool with_ns = false;             // `ns.attr` allowed (assignment targets)
  };
  Expr* parse_tuple(TupleOptions o) {
    DepthGuard g(*this);
    uint32_t pos = cur().pos;
    std::vector<Expr*> args;
    bool is_tuple = false;
    while (true) {
      if (!args.empty()) expect(Tok::Comma);
      if (is_tuple_end(o.extra_end)) break;
      args.push_back(o.simplified ? parse_primary(o.with_ns) : parse_expression(o.with_condexpr));
      if (is(Tok::Comma)) is_tuple = true;
      else break;
      pos = cur().pos;
    }
    if (!is_tuple) {
      if (!args.empty()) return args[0];
      if (!o.explicit_parens) fail("Expected an expression, got " + quote(describe_token(cur())));
    }
    auto* tup = arena_.expr<SeqExpr>(EK::Tuple, args.empty() ? pos : args[0]->pos);
    tup->items = std::move(args);
    return tup;
  }

  Expr* parse_list() {
    auto* l = arena_.expr<SeqExpr>(EK::List, expect(Tok::LBracket).pos);
    while (!is(Tok::RBracket)) {
      if (!l->items.empty()) expect(Tok::Comma);
      if (is(Tok::RBracket)) break;
      l->items.push_back(parse_expression());
    }
    expect(Tok::RBracket);
    return l;
  }

  Expr* parse_dict() {
    auto* d = arena_.expr<DictExpr>(expect(Tok::LBrace).pos);
    while (!is(Tok::RBrace)) {
      if (!d->items.empty()) expect(Tok::Comma);
      if (is(Tok::RBrace)) break;
      Expr* k = parse_expression();
      expect(Tok::Colon);
      d->items.emplace_back(k, parse_expression());
    }
    expect(Tok::RBrace);
    return d;
  }

  Expr* parse_postfix(Expr* node) {
    ChainGuard chain(*this);
    while (true) {
      if (is(Tok::Dot) || is(Tok::LBracket)) node = parse_subscript(node);
      else if (is(Tok::LParen)) node = parse_call(node);
      else break;
      chain.link();
    }
    return node;
  }

  Expr* parse_filter_expr(Expr* node) {
    ChainGuard chain(*this);
    while (true) {
      if (is(Tok::Pipe)) node = parse_filter(node, FilterStart::AtPipe);
      else if (is_name("is")) node = parse_test(node);
      else if (is(Tok::LParen)) node = parse_call(node);
      else break;
      chain.link();
    }
    return node;
  }

  Expr* parse_subscript(Expr* node) {
    DepthGuard g(*this);
    const Token& t = advance();
    if (t.type == Tok::Dot) {
      const Token& a = advance();
      if (a.type == Tok::Name) return arena_.expr<GetattrExpr>(t.pos, node, std::string(a.text));
      if (a.type != Tok::Integer) fail("expected name or number", a.pos);
      return arena_.expr<GetitemExpr>(t.pos, node, arena_.expr<ConstExpr>(a.pos, a.value));
    }
    std::vector<Expr*> args;
    while (!is(Tok::RBracket)) {
      if (!args.empty()) expect(Tok::Comma);
      args.push_back(parse_subscribed());
    }
    expect(Tok::RBracket);
    Expr* arg;
    if (args.size() == 1) {
      arg = args[0];
    } else {
      auto* tup = arena_.expr<SeqExpr>(EK::Tuple, t.pos);
      tup->items = std::move(args);
      arg = tup;
    }
    return arena_.expr<GetitemExpr>(t.pos, node, arg);
  }

  Expr* parse_subscribed() {
    uint32_t pos = cur().pos;
    auto* s = arena_.expr<SliceExpr>(pos);
    if (is(Tok::Colon)) {
      advance();
    } else {
      Expr* e = parse_expression();
      if (!is(Tok::Colon)) return e;
      advance();
      s->start = e;
    }
    if (!is(Tok::Colon) && !is(Tok::RBracket) && !is(Tok::Comma)) s->stop = parse_expression();
    if (is(Tok::Colon)) {
      advance();
      if (!is(Tok::RBracket) && !is(Tok::Comma)) s->step = parse_expression();
    }
    return s;
  }

  void parse_call_args(ArgList& a) {
    const Token& open = expect(Tok::LParen);
    bool require_comma = false;
    auto ensure = [&](bool ok) {
      if (!ok) fail("invalid syntax for function call expression", open.pos);
    };
    while (!is(Tok::RParen)) {
      if (require_comma) {
        expect(Tok::Comma);
        if (is(Tok::RParen)) break;
      }
      if (is(Tok::Mul)) {
        ensure(!a.dyn_args && !a.dyn_kwargs);
        advance();
        a.dyn_args = parse_expression();
      } else if (is(Tok::Pow)) {
        ensure(!a.dyn_kwargs);
        advance();
        a.dyn_kwargs = parse_expression();
      } else if (is(Tok::Name) && look().type == Tok::Assign) {
        ensure(!a.dyn_kwargs);
        std::string key(cur().text);
        advance();
        advance();
        a.kwargs.push_back(Keyword{key, parse_expression()});
      } else {
        ensure(!a.dyn_args && !a.dyn_kwargs && a.kwargs.empty());
        a.args.push_back(parse_expression());
      }
      require_comma = true;
    }
    expect(Tok::RParen);
  }

  Expr* parse_call(Expr* node) {
    DepthGuard g(*this);
    auto* c = arena_.expr<CallExpr>(cur().pos, node);
    parse_call_args(c->a);
    return c;
  }

  FilterExpr* parse_filter(Expr* node, FilterStart start) {
    bool start_inline = start == FilterStart::AtName;
    FilterExpr* result = nullptr;
    ChainGuard chain(*this);
    while (is(Tok::Pipe) || start_inline) {
      chain.link();
      DepthGuard g(*this);
      if (!start_inline) advance();
      const Token& t = expect(Tok::Name);
      std::string name(t.text);
      while (is(Tok::Dot)) {
        advance();
        name += "." + std::string(expect(Tok::Name).text);
      }
      auto* f = arena_.expr<FilterExpr>(t.pos, node, name);
      if (is(Tok::LParen)) parse_call_args(f->a);
      node = f;
      result = f;
      start_inline = false;
    }
    return result;
  }

  Expr* parse_test(Expr* node) {
    DepthGuard g(*this);
    const Token& is_tok = advance();
    bool negated = skip_name("not");
    std::string name(expect(Tok::Name).text);
    while (is(Tok::Dot)) {
      advance();
      name += "." + std::string(expect(Tok::Name).text);
    }
    auto* t = arena_.expr<TestExpr>(is_tok.pos, node, name);
    Tok ty = cur().type;
    if (ty == Tok::LParen) {
      parse_call_args(t->a);
    } else if ((ty == Tok::Name || ty == Tok::String || ty == Tok::Integer || ty == Tok::Float ||
                ty == Tok::LBracket || ty == Tok::LBrace) &&
               !is_name("else") && !is_name("or") && !is_name("and")) {
      if (is_name("is")) fail("You cannot chain multiple tests with is");
      Expr* arg = parse_postfix(parse_primary());
      t->a.args.push_back(arg);
    }
    if (negated) return arena_.expr<UnaryExpr>(EK::Not, is_tok.pos, t);
    return t;
  }
};

}  // namespace

void parse_template(const std::vector<Token>& tokens, Arena& arena, SymbolTable& syms, Body& root,
                    const EngineLimits& limits, const Error* lex_error) {
  Parser p(tokens, arena, syms, limits, lex_error);
  root = p.parse();
}

}  // namespace toolchat::jinja
