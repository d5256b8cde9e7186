// Expressions: Jinja2's precedence ladder, from conditional expressions down to primaries,
// postfix chains, filters and tests.
#include "jinja/parser_impl.hpp"

namespace toolchat::jinja::parsing {

Expr* Parser::parse_expression(bool with_condexpr) {
  DepthGuard g(*this);
  return with_condexpr ? parse_condexpr() : parse_or();
}

Expr* Parser::parse_condexpr() {
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

Expr* Parser::parse_or() { return parse_logic(EK::Or); }
Expr* Parser::parse_and() { return parse_logic(EK::And); }

// `a or b or c` (operands: and-expressions) and `a and b` (operands: not-expressions), left
// associative as Jinja2's parse_or/parse_and.
Expr* Parser::parse_logic(EK kind) {
  const char* keyword = kind == EK::Or ? "or" : "and";
  auto operand = [&] { return kind == EK::Or ? parse_and() : parse_not(); };
  uint32_t pos = cur().pos;
  Expr* l = operand();
  ChainGuard chain(*this);
  while (skip_name(keyword)) {
    chain.link();
    l = arena_.expr<LogicExpr>(kind, pos, l, operand());
    pos = cur().pos;
  }
  return l;
}

Expr* Parser::parse_not() {
  if (is_name("not")) {
    DepthGuard g(*this);
    uint32_t pos = advance().pos;
    return arena_.expr<UnaryExpr>(EK::Not, pos, parse_not());
  }
  return parse_compare();
}

Expr* Parser::parse_compare() {
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

Expr* Parser::parse_math1() { return parse_binary(BinLevel::Sum); }

Expr* Parser::parse_concat() {
  uint32_t pos = cur().pos;
  Expr* first = parse_math2();
  if (!is(Tok::Tilde)) return first;
  auto* c = arena_.expr<SeqExpr>(EK::Concat, pos);
  c->items.push_back(first);
  while (skip_if(Tok::Tilde)) c->items.push_back(parse_math2());
  return c;
}

Expr* Parser::parse_math2() { return parse_binary(BinLevel::Product); }
Expr* Parser::parse_pow() { return parse_binary(BinLevel::Power); }

// The operator of `level` at the current token, if there is one.
static bool binary_op_at(BinLevel level, Tok t, BinOp& op) {
  switch (level) {
    case BinLevel::Sum:
      if (t == Tok::Add) op = BinOp::Add;
      else if (t == Tok::Sub) op = BinOp::Sub;
      else return false;
      return true;
    case BinLevel::Product:
      if (t == Tok::Mul) op = BinOp::Mul;
      else if (t == Tok::Div) op = BinOp::Div;
      else if (t == Tok::FloorDiv) op = BinOp::FloorDiv;
      else if (t == Tok::Mod) op = BinOp::Mod;
      else return false;
      return true;
    case BinLevel::Power:
      op = BinOp::Pow;
      return t == Tok::Pow;
  }
  return false;
}

// One left-associative level of binary operators (Jinja2's parse_math1, parse_math2, parse_pow):
// `a + b - c` over concatenations, `a * b / c` over powers, `a ** b` over unary expressions.
Expr* Parser::parse_binary(BinLevel level) {
  auto operand = [&] {
    return level == BinLevel::Sum ? parse_concat()
         : level == BinLevel::Product ? parse_pow() : parse_unary(UnaryFilters::Apply);
  };
  uint32_t pos = cur().pos;
  Expr* l = operand();
  ChainGuard chain(*this);
  BinOp op;
  while (binary_op_at(level, cur().type, op)) {
    chain.link();
    advance();
    l = arena_.expr<BinaryExpr>(pos, op, l, operand());
    pos = cur().pos;
  }
  return l;
}

Expr* Parser::parse_unary(UnaryFilters filters) {
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

Expr* Parser::parse_primary(bool with_ns) {
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
    std::string s(t.value.str());
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

bool Parser::is_tuple_end(const char* extra) const {
  if (is(Tok::VarEnd) || is(Tok::BlockEnd) || is(Tok::RParen)) return true;
  return extra && is_name(extra);
}

Expr* Parser::parse_tuple(TupleOptions o) {
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

Expr* Parser::parse_list() {
  auto* l = arena_.expr<SeqExpr>(EK::List, expect(Tok::LBracket).pos);
  while (!is(Tok::RBracket)) {
    if (!l->items.empty()) expect(Tok::Comma);
    if (is(Tok::RBracket)) break;
    l->items.push_back(parse_expression());
  }
  expect(Tok::RBracket);
  return l;
}

Expr* Parser::parse_dict() {
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

Expr* Parser::parse_postfix(Expr* node) {
  ChainGuard chain(*this);
  while (true) {
    if (is(Tok::Dot) || is(Tok::LBracket)) node = parse_subscript(node);
    else if (is(Tok::LParen)) node = parse_call(node);
    else break;
    chain.link();
  }
  return node;
}

Expr* Parser::parse_filter_expr(Expr* node) {
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

Expr* Parser::parse_subscript(Expr* node) {
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

Expr* Parser::parse_subscribed() {
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

void Parser::parse_call_args(ArgList& a) {
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

Expr* Parser::parse_call(Expr* node) {
  DepthGuard g(*this);
  auto* c = arena_.expr<CallExpr>(cur().pos, node);
  parse_call_args(c->a);
  return c;
}

FilterExpr* Parser::parse_filter(Expr* node, FilterStart start) {
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

Expr* Parser::parse_test(Expr* node) {
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

}  // namespace toolchat::jinja::parsing
