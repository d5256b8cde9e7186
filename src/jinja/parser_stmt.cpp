// Statements: the tag loop, each tag's grammar, and the entry point.
#include <set>

#include "jinja/parser_impl.hpp"

namespace toolchat::jinja {

namespace parsing {

Body Parser::subparse(const EndTokens* end) {
  Body body;
  if (end) end_stack_.push_back(*end);
  struct Pop {
    Parser& p; bool on;
    ~Pop() { if (on) p.end_stack_.pop_back(); }
  } pop{*this, end != nullptr};
  while (!is(Tok::Eof)) {
    const Token& t = cur();
    if (t.type == Tok::Data) {
      body.push_back(arena_.stmt<TextStmt>(t.pos, std::string(t.value.str())));
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

Body Parser::parse_statements(const EndTokens& end, EndTag end_tag) {
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

void Parser::parse_statement(Body& out) {
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

Stmt* Parser::parse_for() {
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

Stmt* Parser::parse_if() {
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

Stmt* Parser::parse_set() {
  uint32_t pos = advance().pos;
  Expr* target = parse_assign_target({.with_ns = true});
  if (skip_if(Tok::Assign)) return arena_.stmt<SetStmt>(pos, target, parse_tuple({}));
  auto* s = arena_.stmt<SetBlockStmt>(pos, target);
  s->filter = parse_filter(nullptr, FilterStart::AtPipe);
  s->body = parse_statements({"endset"}, EndTag::Drop);
  return s;
}

void Parser::parse_signature(MacroDef& def) {
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

void Parser::check_assignable_name(const std::string& n, size_t pos) {
  if (n == "true" || n == "false" || n == "none" || n == "True" || n == "False" || n == "None")
    fail("can't assign to 'const'", pos);
}

Stmt* Parser::parse_macro() {
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

Stmt* Parser::parse_call_block() {
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

Stmt* Parser::parse_filter_block() {
  auto* f = arena_.stmt<FilterBlockStmt>(advance().pos);
  f->filter = parse_filter(nullptr, FilterStart::AtName);
  f->body = parse_statements({"endfilter"}, EndTag::Drop);
  return f;
}

Stmt* Parser::parse_with() {
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

void Parser::parse_print(Body& out) {
  advance();
  bool first = true;
  while (!is(Tok::BlockEnd)) {
    if (!first) expect(Tok::Comma);
    first = false;
    Expr* e = parse_expression();
    out.push_back(arena_.stmt<PrintStmt>(e->pos, e));
  }
}

Expr* Parser::parse_assign_target(TargetOptions o) {
  Expr* target = parse_tuple({.simplified = true, .extra_end = o.extra_end, .with_ns = o.with_ns});
  if (!can_assign(target)) {
    const char* what = target->kind == EK::Const ? "const" : target->kind == EK::Tuple ? "tuple"
                     : target->kind == EK::List ? "list" : target->kind == EK::Dict ? "dict" : "expression";
    fail(std::string("can't assign to '") + what + "'", target->pos);
  }
  return target;
}

bool Parser::can_assign(const Expr* e) {
  if (e->kind == EK::Name || e->kind == EK::NSRef) return true;
  if (e->kind == EK::Tuple) {
    for (auto* x : static_cast<const SeqExpr*>(e)->items)
      if (!can_assign(x)) return false;
    return true;
  }
  return false;
}

// ---- expressions ----
[[noreturn]] void Parser::fail_ut_eof(const std::string* name, const std::vector<EndTokens>& stack, size_t pos) {
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

}  // namespace parsing

void parse_template(const std::vector<Token>& tokens, Arena& arena, SymbolTable& syms, Body& root,
                    const EngineLimits& limits, const Error* lex_error) {
  parsing::Parser p(tokens, arena, syms, limits, lex_error);
  root = p.parse();
}

}  // namespace toolchat::jinja
