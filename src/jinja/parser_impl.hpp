// The parser's class, shared by its two halves: parser_stmt.cpp (tags, the statement loop, the
// entry point parse_template) and parser_expr.cpp (expressions, Jinja2's precedence ladder).
// Private to src/jinja; parser.hpp is what the rest of the engine includes.
#pragma once

#include <string>
#include <vector>

#include "jinja/parser.hpp"

namespace toolchat::jinja::parsing {

using EndTokens = std::vector<std::string>;  // "endfor", "else" (all are name tokens)

// Jinja2's parser takes these as keyword flags; here each call names its choice.
// parse_statements(drop_needle=...): whether the end tag is consumed.
enum class EndTag : bool { Keep, Drop };
// parse_filter(start_inline=...): AtName for `{% filter f %}`, where no `|` comes first.
enum class FilterStart : bool { AtPipe, AtName };
// parse_unary(with_filter=...): Leave for the operand of `-`, so that `-x|f` is `(-x)|f`.
enum class UnaryFilters : bool { Leave, Apply };
// The levels of left-associative binary operators: + -, then * / // %, then **.
enum class BinLevel : uint8_t { Sum, Product, Power };

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

  // Jinja2's fail_unknown_tag / fail_eof messages (parser_stmt.cpp).
  [[noreturn]] void fail_ut_eof(const std::string* name, const std::vector<EndTokens>& stack, size_t pos);

  // ---- statements (parser_stmt.cpp) ----
  Body subparse(const EndTokens* end);
  Body parse_statements(const EndTokens& end, EndTag end_tag);
  void parse_statement(Body& out);
  Stmt* parse_for();
  Stmt* parse_if();
  Stmt* parse_set();
  void parse_signature(MacroDef& def);
  void check_assignable_name(const std::string& n, size_t pos);
  Stmt* parse_macro();
  Stmt* parse_call_block();
  Stmt* parse_filter_block();
  Stmt* parse_with();
  void parse_print(Body& out);
  // Where an assignment target (`for x, y in`, `set ns.a =`) ends and what it may name.
  struct TargetOptions {
    const char* extra_end = nullptr;  // a name that also ends the target ("in")
    bool with_ns = false;             // `ns.attr` is a target
  };
  Expr* parse_assign_target(TargetOptions o);
  static bool can_assign(const Expr* e);

  // ---- expressions (parser_expr.cpp) ----
  Expr* parse_expression(bool with_condexpr = true);
  Expr* parse_condexpr();
  Expr* parse_or();
  Expr* parse_and();
  Expr* parse_logic(EK kind);  // Or, And
  Expr* parse_not();
  Expr* parse_compare();
  Expr* parse_math1();
  Expr* parse_concat();
  Expr* parse_math2();
  Expr* parse_pow();
  Expr* parse_binary(BinLevel level);
  Expr* parse_unary(UnaryFilters filters);
  Expr* parse_primary(bool with_ns = false);
  bool is_tuple_end(const char* extra) const;
  // Jinja2's parse_tuple: one expression, or a tuple of them when commas follow.
  struct TupleOptions {
    bool simplified = false;          // primaries only (assignment targets)
    bool with_condexpr = true;        // `a if b else c` allowed
    const char* extra_end = nullptr;  // a name that also ends the tuple ("in", "recursive")
    bool explicit_parens = false;     // inside ( ): `()` is the empty tuple
    bool with_ns = false;             // `ns.attr` allowed (assignment targets)
  };
  Expr* parse_tuple(TupleOptions o);
  Expr* parse_list();
  Expr* parse_dict();
  Expr* parse_postfix(Expr* node);
  Expr* parse_filter_expr(Expr* node);
  Expr* parse_subscript(Expr* node);
  Expr* parse_subscribed();
  void parse_call_args(ArgList& a);
  Expr* parse_call(Expr* node);
  FilterExpr* parse_filter(Expr* node, FilterStart start);
  Expr* parse_test(Expr* node);
};

}  // namespace toolchat::jinja::parsing
