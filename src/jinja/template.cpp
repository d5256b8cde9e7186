// Compilation: lex, parse, then the checks Jinja2's code generator makes (unknown
// filters/tests, loop targets) and the resolution of names to functions.
#include <algorithm>
#include <new>
#include <stdexcept>

#include "jinja/fold.hpp"
#include "jinja/render.hpp"

namespace toolchat::jinja {

namespace {

class Resolver {
 public:
  Resolver(const SymbolTable& s, const SourceText& src) : syms_(s), src_(src) {}

  void body(const Body& b, bool soft) {
    for (const Stmt* s : b) stmt(s, soft);
  }

 private:
  const SymbolTable& syms_;
  const SourceText& src_;

  [[noreturn]] void fail(std::string msg, uint32_t pos) {
    Error e(ErrorKind::TemplateAssertionError, std::move(msg));
    e.set_position(pos, nullptr);
    throw e;
  }

  void args(const ArgList& a, bool soft) {
    for (auto* x : a.args) expr(x, soft);
    for (const auto& k : a.kwargs) expr(k.value, soft);
    if (a.dyn_args) expr(a.dyn_args, soft);
    if (a.dyn_kwargs) expr(a.dyn_kwargs, soft);
  }

  void expr(Expr* e, bool soft) {
    if (!e) return;
    ++weight_;
    switch (e->kind) {
      case EK::Const: case EK::Name: case EK::NSRef: case EK::Raise: return;
      case EK::List: case EK::Tuple: case EK::Concat:
        for (auto* x : static_cast<SeqExpr*>(e)->items) expr(x, soft);
        return;
      case EK::Dict:
        for (auto& [k, v] : static_cast<DictExpr*>(e)->items) { expr(k, soft); expr(v, soft); }
        return;
      case EK::Getattr: {
        auto* g = static_cast<GetattrExpr*>(e);
        MethodFn fn = nullptr;
        g->dict_item_only = find_method(Value::dict(), g->attr, &fn) == MethodLookup::NotFound &&
                            (g->attr.empty() || g->attr[0] != '_');
        if (g->dict_item_only) g->dict_missing = Value::undefined_attr(Value::dict(), g->attr);
        g->loop_field = loop_field(g->attr);
        expr(g->obj, soft);
        return;
      }
      case EK::Getitem: {
        auto* g = static_cast<GetitemExpr*>(e);
        if (g->index->kind == EK::Const) {
          const Value& key = static_cast<ConstExpr*>(g->index)->value;
          MethodFn fn = nullptr;
          if (key.is_str() && !key.is_markup() && find_method(Value::dict(), key.str(), &fn) == MethodLookup::NotFound)
            g->dict_missing = Value::undefined_item(Value::dict(), key);
          const Value plain_str = Value::string("");
          if (key.is_str() && !key.is_markup() && find_method(plain_str, key.str(), &fn) == MethodLookup::NotFound)
            g->str_missing = Value::undefined_item(plain_str, key);
        }
        expr(g->obj, soft);
        expr(g->index, soft);
        return;
      }
      case EK::Slice: {
        auto* s = static_cast<SliceExpr*>(e);
        expr(s->start, soft); expr(s->stop, soft); expr(s->step, soft);
        return;
      }
      case EK::Not: case EK::Neg: case EK::Pos: expr(static_cast<UnaryExpr*>(e)->operand, soft); return;
      case EK::Binary: {
        auto* b = static_cast<BinaryExpr*>(e);
        expr(b->left, soft); expr(b->right, soft);
        return;
      }
      case EK::And: case EK::Or: {
        auto* b = static_cast<LogicExpr*>(e);
        expr(b->left, soft); expr(b->right, soft);
        return;
      }
      case EK::Compare: {
        auto* c = static_cast<CompareExpr*>(e);
        expr(c->first, soft);
        for (auto& op : c->ops) expr(op.second, soft);
        return;
      }
      case EK::Cond: {
        auto* c = static_cast<CondExpr*>(e);
        c->line = static_cast<uint32_t>(src_.line_col(c->pos).first);
        if (!c->otherwise) {
          auto* u = new UndefinedObj();
          u->hint = "the inline if-expression on line " + std::to_string(c->line) +
                    " evaluated to false and no else section was defined.";
          c->missing = Value(u);
        }
        expr(c->test, true); expr(c->then, true); expr(c->otherwise, true);
        return;
      }
      case EK::Call: {
        auto* c = static_cast<CallExpr*>(e);
        expr(c->callee, soft);
        args(c->a, soft);
        return;
      }
      case EK::Filter: {
        auto* f = static_cast<FilterExpr*>(e);
        expr(f->operand, soft);
        f->fn = find_filter(f->name);
        if (!f->fn && !soft) fail("No filter named " + string_repr(f->name) + ".", f->pos);
        args(f->a, soft);
        return;
      }
      case EK::Test: {
        auto* t = static_cast<TestExpr*>(e);
        expr(t->operand, soft);
        t->fn = find_test(t->name);
        if (!t->fn && !soft) fail("No test named " + string_repr(t->name) + ".", t->pos);
        args(t->a, soft);
        if (t->fn && t->a.args.empty() && t->a.kwargs.empty() && !t->a.dyn_args && !t->a.dyn_kwargs)
          t->simple = t->name == "defined" ? 1 : t->name == "undefined" ? 2 : t->name == "none" ? 3 : 0;
        return;
      }
    }
  }

  // Names a macro body loads: decides whether it takes varargs / kwargs / caller.
  static void scan_names(const Body& b, MacroDef& d);

  void macro(MacroDef& d, bool soft) {
    uint32_t outer = weight_;
    weight_ = 0;
    for (auto* x : d.defaults) expr(x, soft);
    scan_names(d.body, d);
    body(d.body, false);
    d.weight = weight_;
    weight_ = outer;
  }

  // Nodes visited so far in the innermost loop body or macro body (a template has fewer
  // nodes than bytes, so this does not wrap).
  uint32_t weight_ = 0;

  void check_loop_target(const Expr* t) {
    if (t->kind == EK::Name && static_cast<const NameExpr*>(t)->name == "loop")
      fail("Can't assign to special loop variable in for-loop target", t->pos);
    if (t->kind == EK::Tuple)
      for (auto* x : static_cast<const SeqExpr*>(t)->items) check_loop_target(x);
  }

  void stmt(const Stmt* cs, bool soft) {
    Stmt* s = const_cast<Stmt*>(cs);
    ++weight_;
    switch (s->kind) {
      case SK::Text: case SK::Break: case SK::Continue: case SK::Unsupported: return;
      case SK::Print: expr(static_cast<PrintStmt*>(s)->expr, soft); return;
      case SK::If: {
        auto* n = static_cast<IfStmt*>(s);
        for (auto& [t, b] : n->branches) { expr(t, true); body(b, true); }
        body(n->else_body, true);
        return;
      }
      case SK::For: {
        auto* f = static_cast<ForStmt*>(s);
        check_loop_target(f->target);
        expr(f->iter, soft);
        uint32_t outer = weight_;
        weight_ = 0;
        expr(f->filter, false);
        body(f->body, false);
        f->weight = weight_;
        weight_ = outer;
        body(f->else_body, false);
        return;
      }
      case SK::Set: expr(static_cast<SetStmt*>(s)->value, soft); return;
      case SK::SetBlock: {
        auto* n = static_cast<SetBlockStmt*>(s);
        body(n->body, false);
        if (n->filter) expr(n->filter, soft);
        return;
      }
      case SK::Macro: macro(static_cast<MacroStmt*>(s)->def, soft); return;
      case SK::CallBlock: {
        auto* n = static_cast<CallBlockStmt*>(s);
        expr(n->call, soft);
        macro(n->def, soft);
        return;
      }
      case SK::FilterBlock: {
        auto* n = static_cast<FilterBlockStmt*>(s);
        expr(n->filter, soft);
        body(n->body, false);
        return;
      }
      case SK::With: {
        auto* n = static_cast<WithStmt*>(s);
        for (auto& a : n->assigns) expr(a.second, soft);
        body(n->body, false);
        return;
      }
      case SK::Generation: body(static_cast<BodyStmt*>(s)->body, false); return;
      case SK::Block: {
        auto* b = static_cast<BodyStmt*>(s);
        for (const auto& n : blocks_)
          if (n == b->name) fail("block " + string_repr(b->name) + " defined twice", b->pos);
        blocks_.push_back(b->name);
        if (block_stmts) block_stmts->push_back(b);
        body(b->body, false);
        return;
      }
    }
  }
  std::vector<std::string> blocks_;

 public:
  std::vector<const BodyStmt*>* block_stmts = nullptr;  // every {% block %}, for self.<name>
};

// Every name a body loads, given to `name`. Nested macro and call-block bodies are functions of
// their own: they are skipped unless `into_macros` (a macro defined in a body closes over it).
template <class OnName>
struct NameScanner {
  OnName name;
  bool into_macros = false;
  void args(const ArgList& a) {
    for (auto* x : a.args) expr(x);
    for (auto& k : a.kwargs) expr(k.value);
    expr(a.dyn_args);
    expr(a.dyn_kwargs);
  }
  void expr(const Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case EK::Name: name(static_cast<const NameExpr*>(e)->name); return;
      case EK::Const: case EK::Raise: return;
      case EK::NSRef: name(static_cast<const NSRefExpr*>(e)->name); return;
      case EK::List: case EK::Tuple: case EK::Concat:
        for (auto* x : static_cast<const SeqExpr*>(e)->items) expr(x);
        return;
      case EK::Dict:
        for (auto& [k, v] : static_cast<const DictExpr*>(e)->items) { expr(k); expr(v); }
        return;
      case EK::Getattr: expr(static_cast<const GetattrExpr*>(e)->obj); return;
      case EK::Getitem: expr(static_cast<const GetitemExpr*>(e)->obj); expr(static_cast<const GetitemExpr*>(e)->index); return;
      case EK::Slice: {
        auto* s = static_cast<const SliceExpr*>(e);
        expr(s->start); expr(s->stop); expr(s->step);
        return;
      }
      case EK::Not: case EK::Neg: case EK::Pos: expr(static_cast<const UnaryExpr*>(e)->operand); return;
      case EK::Binary: expr(static_cast<const BinaryExpr*>(e)->left); expr(static_cast<const BinaryExpr*>(e)->right); return;
      case EK::And: case EK::Or: expr(static_cast<const LogicExpr*>(e)->left); expr(static_cast<const LogicExpr*>(e)->right); return;
      case EK::Compare:
        expr(static_cast<const CompareExpr*>(e)->first);
        for (auto& op : static_cast<const CompareExpr*>(e)->ops) expr(op.second);
        return;
      case EK::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        expr(c->test); expr(c->then); expr(c->otherwise);
        return;
      }
      case EK::Call: expr(static_cast<const CallExpr*>(e)->callee); args(static_cast<const CallExpr*>(e)->a); return;
      case EK::Filter: expr(static_cast<const FilterExpr*>(e)->operand); args(static_cast<const FilterExpr*>(e)->a); return;
      case EK::Test: expr(static_cast<const TestExpr*>(e)->operand); args(static_cast<const TestExpr*>(e)->a); return;
    }
  }
  void body(const Body& b) {
    for (const Stmt* s : b) stmt(s);
  }
  void stmt(const Stmt* s) {
    switch (s->kind) {
      case SK::Print: expr(static_cast<const PrintStmt*>(s)->expr); return;
      case SK::If:
        for (auto& [t, b] : static_cast<const IfStmt*>(s)->branches) { expr(t); body(b); }
        body(static_cast<const IfStmt*>(s)->else_body);
        return;
      case SK::For: {
        auto* f = static_cast<const ForStmt*>(s);
        expr(f->iter); expr(f->filter); body(f->body); body(f->else_body);
        return;
      }
      case SK::Set: expr(static_cast<const SetStmt*>(s)->value); return;
      case SK::SetBlock: body(static_cast<const SetBlockStmt*>(s)->body); expr(static_cast<const SetBlockStmt*>(s)->filter); return;
      case SK::Macro: {
        // A nested macro's own body is a function of its own; its defaults belong to us.
        for (auto* x : static_cast<const MacroStmt*>(s)->def.defaults) expr(x);
        if (into_macros) body(static_cast<const MacroStmt*>(s)->def.body);
        return;
      }
      case SK::CallBlock: {
        auto* c = static_cast<const CallBlockStmt*>(s);
        expr(c->call);
        for (auto* x : c->def.defaults) expr(x);
        if (into_macros) body(c->def.body);
        return;
      }
      case SK::FilterBlock: expr(static_cast<const FilterBlockStmt*>(s)->filter); body(static_cast<const FilterBlockStmt*>(s)->body); return;
      case SK::With:
        for (auto& a : static_cast<const WithStmt*>(s)->assigns) expr(a.second);
        body(static_cast<const WithStmt*>(s)->body);
        return;
      case SK::Generation: case SK::Block: body(static_cast<const BodyStmt*>(s)->body); return;
      default: return;
    }
  }
};

// {% break %} / {% continue %} where Jinja2's generated Python has no enclosing `for`: a Python
// SyntaxError when the module is compiled. Macro, call-block ({% generation %} too) and block
// bodies are nested functions; a for-loop's else runs after the Python loop.
struct LoopControlCheck {
  const Stmt* first = nullptr;
  std::vector<const BodyStmt*> blocks;  // block functions follow root() in the module
  void body(const Body& b, bool in_loop) {
    for (const Stmt* s : b) {
      if (first) return;
      stmt(s, in_loop);
    }
  }
  void stmt(const Stmt* s, bool in_loop) {
    switch (s->kind) {
      case SK::Break: case SK::Continue:
        if (!in_loop) first = s;
        return;
      case SK::If:
        for (auto& br : static_cast<const IfStmt*>(s)->branches) body(br.second, in_loop);
        body(static_cast<const IfStmt*>(s)->else_body, in_loop);
        return;
      case SK::For:
        body(static_cast<const ForStmt*>(s)->body, true);
        body(static_cast<const ForStmt*>(s)->else_body, in_loop);
        return;
      case SK::SetBlock: body(static_cast<const SetBlockStmt*>(s)->body, in_loop); return;
      case SK::FilterBlock: body(static_cast<const FilterBlockStmt*>(s)->body, in_loop); return;
      case SK::With: body(static_cast<const WithStmt*>(s)->body, in_loop); return;
      case SK::Macro: body(static_cast<const MacroStmt*>(s)->def.body, false); return;
      case SK::CallBlock: body(static_cast<const CallBlockStmt*>(s)->def.body, false); return;
      case SK::Generation: body(static_cast<const BodyStmt*>(s)->body, false); return;
      case SK::Block: blocks.push_back(static_cast<const BodyStmt*>(s)); return;
      default: return;
    }
  }
  void run(const Body& root) {
    body(root, false);
    for (size_t i = 0; i < blocks.size() && !first; ++i) body(blocks[i]->body, false);
    if (!first) return;
    // Python reports the line of Jinja2's generated module. That line is exact here only for
    // a break/continue that is the template's first statement (line 11: the module header,
    // root()'s prologue, `pass`); elsewhere it depends on the whole code generator.
    bool brk = first->kind == SK::Break;
    throw Error(ErrorKind::SyntaxError, std::string(brk ? "'break' outside loop" : "'continue' not properly in loop") +
                                            " (<template>, line 11)");
  }
};

void Resolver::scan_names(const Body& b, MacroDef& d) {
  auto on_name = [&d](const std::string& n) {
    if (n == "varargs") d.catch_varargs = true;
    else if (n == "kwargs") d.catch_kwargs = true;
    else if (n == "caller") d.caller = true;
  };
  NameScanner<decltype(on_name)>{on_name}.body(b);
}

// Compile-time choices of how a node is evaluated, made on the final (folded) tree.
void specialise_nodes(CompiledTemplate& ct) {
  for (auto& e : ct.arena.exprs) {
    if (e->kind == EK::Getattr || e->kind == EK::Getitem) {
      std::vector<const Expr*> path;
      const Expr* cur = e.get();
      for (;;) {
        if (cur->kind == EK::Getattr && static_cast<const GetattrExpr*>(cur)->dict_item_only) {
          path.push_back(cur);
          cur = static_cast<const GetattrExpr*>(cur)->obj;
        } else if (cur->kind == EK::Getitem && static_cast<const GetitemExpr*>(cur)->dict_missing.obj()) {
          path.push_back(cur);
          cur = static_cast<const GetitemExpr*>(cur)->obj;
        } else {
          break;
        }
      }
      if (cur->kind != EK::Name && cur->kind != EK::Const) continue;
      path.push_back(cur);
      std::reverse(path.begin(), path.end());
      if (e->kind == EK::Getattr) static_cast<GetattrExpr*>(e.get())->key_path = std::move(path);
      else static_cast<GetitemExpr*>(e.get())->key_path = std::move(path);
      continue;
    }
    if (e->kind != EK::Compare) continue;
    auto* c = static_cast<CompareExpr*>(e.get());
    c->one_const = c->ops.size() == 1 && c->ops[0].second->kind == EK::Const;
  }
  for (auto& s : ct.arena.stmts) {
    if (s->kind == SK::For) {
      // The loop object is made only for a loop whose body (macros defined in it included) names
      // `loop`: other loops bind their target alone.
      auto* f = static_cast<ForStmt*>(s.get());
      bool named = false;
      auto on_name = [&named](const std::string& n) { named = named || n == "loop"; };
      NameScanner<decltype(on_name)> scan{on_name, true};
      scan.body(f->body);
      f->uses_loop = named || f->recursive;
      continue;
    }
    if (s->kind != SK::Print) continue;
    Expr* e = static_cast<PrintStmt*>(s.get())->expr;
    if (e->kind != EK::Binary) continue;
    std::vector<const Expr*> ops;
    const Expr* cur = e;
    while (cur->kind == EK::Binary && static_cast<const BinaryExpr*>(cur)->op == BinOp::Add && ops.size() < 15) {
      ops.push_back(static_cast<const BinaryExpr*>(cur)->right);
      cur = static_cast<const BinaryExpr*>(cur)->left;
    }
    if (ops.size() < 2) continue;
    ops.push_back(cur);
    static_cast<BinaryExpr*>(e)->printed_sum = std::move(ops);
  }
}

// Every Value renders share: after this, rendering on several threads at once touches no
// reference count and fills no cache of the compiled template's values.

void freeze_shared_values(CompiledTemplate& ct) {
  FrozenValues& fz = ct.frozen;
  for (const auto& e : ct.arena.exprs) {
    switch (e->kind) {
      case EK::Const: fz.freeze(static_cast<const ConstExpr*>(e.get())->value); break;
      case EK::Getattr: {
        auto* g = static_cast<const GetattrExpr*>(e.get());
        fz.freeze(g->attr_value);
        fz.freeze(g->dict_missing);
        break;
      }
      case EK::Getitem: {
        auto* g = static_cast<const GetitemExpr*>(e.get());
        fz.freeze(g->dict_missing);
        fz.freeze(g->str_missing);
        break;
      }
      case EK::Cond: fz.freeze(static_cast<const CondExpr*>(e.get())->missing); break;
      default: break;
    }
  }
  for (const Value& v : ct.globals) fz.freeze(v);
  for (const Value& v : ct.undefined_var) fz.freeze(v);
}

}  // namespace

Template Template::compile(std::string_view source, std::string name, const EngineLimits& limits) {
  auto ct = std::make_shared<CompiledTemplate>();
  ct->limits = limits;
  auto src = std::make_shared<SourceText>();
  src->name = std::move(name);
  if (source.size() > limits.max_template_bytes)
    throw Error(ErrorKind::LimitError, "template is " + std::to_string(source.size()) +
                                           " bytes, over the limit of " + std::to_string(limits.max_template_bytes));
  src->text = normalize_source(source, false);
  ct->source = src;
  try {
    {
      // The tokens' values (the literals the tree shares) are dropped before the freeze below: a
      // handle dropped while its object is frozen is not counted, and the object would leak.
      Error lex_error(ErrorKind::TemplateSyntaxError, "");
      std::vector<Token> tokens = tokenize(src->text, LexOptions{}, &lex_error);
      bool lex_failed = !lex_error.message().empty() || lex_error.has_position();
      parse_template(tokens, ct->arena, ct->syms, ct->root, limits, lex_failed ? &lex_error : nullptr);
      if (lex_failed) throw lex_error;  // the parser stopped short of it
    }
    Resolver resolver(ct->syms, *src);
    resolver.block_stmts = &ct->blocks;
    resolver.body(ct->root, false);
    auto it = ct->syms.ids.find("loop");
    ct->loop_sym = it == ct->syms.ids.end() ? -1 : it->second;
    it = ct->syms.ids.find("self");
    ct->self_sym = it == ct->syms.ids.end() ? -1 : it->second;
    ct->var_hints = std::vector<SlotHint>(ct->syms.names.size());
    RenderOptions probe;
    for (const auto& n : ct->syms.names) {
      Value g = make_global(n, probe);
      // Global functions are stateless except the clock of strftime_now, made per render.
      // `self` (Jinja2's TemplateReference) is made per render too: it renders blocks.
      ct->maybe_global.push_back((!g.is_undefined() && n == "strftime_now") || n == "self");
      ct->globals.push_back(n == "strftime_now" ? Value() : g);
      if (ct->maybe_global.back()) ++ct->n_maybe_global;
    }
    for (const auto& n : ct->syms.names) ct->undefined_var.push_back(Value::undefined_var(n));
    fold_constants(*ct);
    specialise_nodes(*ct);
    LoopControlCheck().run(ct->root);
    freeze_shared_values(*ct);
  } catch (Error& e) {
    if (e.has_position() && !e.source()) {
      size_t off = e.offset();
      Error positioned(e.kind(), e.message());
      positioned.set_position(off, src);
      throw positioned;
    }
    throw;
  }
  Template t;
  t.impl_ = std::move(ct);
  return t;
}

RenderResult Template::render(const Value& variables, const RenderOptions& opts) const {
  // Out of memory anywhere in a render (outside an expression, which reports its position)
  // is Python's MemoryError, never an escaping std::bad_alloc.
  try {
    Interp in(*impl_, variables, opts);
    return in.run();
  } catch (const std::bad_alloc&) {
    throw Error(ErrorKind::MemoryError, "");
  } catch (const std::length_error&) {
    throw Error(ErrorKind::MemoryError, "");
  }
}

const std::string& Template::source() const { return impl_->source->text; }

}  // namespace toolchat::jinja
