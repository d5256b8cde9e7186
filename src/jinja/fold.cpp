// Jinja2's compile-time constant folding, as far as it can be observed.
//
// Jinja2's code generator folds constant expressions (optimizer.py, nodes.*.as_const) and
// writes the result into the generated Python module as repr(value) (str() for a float).
// Two things follow that a template can see:
//   - a folded float inf/nan becomes the bare name `inf`/`nan` in the Python code: a
//     NameError when that code runs (a Raise node here, evaluated where the constant was);
//   - a folded int over 4300 digits cannot be repr()-ed at all: a ValueError while
//     compiling, even in a branch that never runs.
// A `{{ }}` child that folds as a whole is printed as str(value) instead (no NameError);
// every other expression position is Python code. Folding evaluates the constant subtree
// with a throw-away renderer; anything that fails is left to run time, as Jinja2 does.
#include "jinja/fold.hpp"

#include <cmath>
#include <memory>

#include "jinja/render.hpp"
#include "value/pyobjects.hpp"

namespace toolchat::jinja {

namespace {

// Filters Jinja2 marks @pass_context: never folded.
bool context_filter(std::string_view n) {
  return n == "map" || n == "select" || n == "reject" || n == "selectattr" || n == "rejectattr" ||
         n == "random";
}

class Folder {
 public:
  explicit Folder(CompiledTemplate& ct) : ct_(ct) {}

  void body(Body& b) {
    for (Stmt* s : b) stmt(s);
  }

 private:
  CompiledTemplate& ct_;
  Value vars_ = Value::dict();
  RenderOptions opts_;  // outlives in_, which refers to it
  std::unique_ptr<Interp> in_;

  // The subtree has only node kinds Jinja2's as_const can evaluate (no names, calls, ...).
  bool foldable_args(const ArgList& a) {
    for (auto* x : a.args) if (!foldable(x)) return false;
    for (const auto& k : a.kwargs) if (!foldable(k.value)) return false;
    if (a.dyn_args && !foldable(a.dyn_args)) return false;
    if (a.dyn_kwargs && !foldable(a.dyn_kwargs)) return false;
    return true;
  }
  // And / Or / if-else short-circuit as as_const does: a constant deciding operand makes the
  // other side irrelevant.
  bool foldable(const Expr* e) {
    if (!e) return true;
    switch (e->kind) {
      case EK::Const: return true;
      case EK::List: case EK::Tuple: case EK::Concat:
        for (auto* x : static_cast<const SeqExpr*>(e)->items) if (!foldable(x)) return false;
        return true;
      case EK::Dict:
        for (auto& [k, v] : static_cast<const DictExpr*>(e)->items) if (!foldable(k) || !foldable(v)) return false;
        return true;
      case EK::Getattr: return foldable(static_cast<const GetattrExpr*>(e)->obj);
      case EK::Getitem: {
        auto* g = static_cast<const GetitemExpr*>(e);
        return foldable(g->obj) && foldable(g->index);
      }
      case EK::Slice: {
        auto* s = static_cast<const SliceExpr*>(e);
        return foldable(s->start) && foldable(s->stop) && foldable(s->step);
      }
      case EK::Not: case EK::Neg: case EK::Pos: return foldable(static_cast<const UnaryExpr*>(e)->operand);
      case EK::Binary: {
        auto* b = static_cast<const BinaryExpr*>(e);
        return foldable(b->left) && foldable(b->right);
      }
      case EK::And: case EK::Or: {
        auto* b = static_cast<const LogicExpr*>(e);
        Value l;
        if (!eval_const(b->left, l)) return false;
        if (truthy(l) == (e->kind == EK::Or)) return true;
        return foldable(b->right);
      }
      case EK::Compare: {
        // Compare.as_const stops at the first false link: `1 == 2 == n` folds to False.
        auto* c = static_cast<const CompareExpr*>(e);
        Value left;
        if (!eval_const(c->first, left)) return false;
        for (const auto& [op, expr] : c->ops) {
          Value right;
          if (!eval_const(expr, right)) return false;
          try {
            if (!compare_values(op, left, right)) return true;
          } catch (...) {
            return false;
          }
          left = std::move(right);
        }
        return true;
      }
      case EK::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        Value t;
        if (!eval_const(c->test, t)) return false;
        if (truthy(t)) return foldable(c->then);
        return c->otherwise && foldable(c->otherwise);
      }
      case EK::Filter: {
        auto* f = static_cast<const FilterExpr*>(e);
        return f->operand && f->fn && !context_filter(f->name) && foldable(f->operand) && foldable_args(f->a);
      }
      case EK::Test: {
        auto* t = static_cast<const TestExpr*>(e);
        return t->fn && foldable(t->operand) && foldable_args(t->a);
      }
      default: return false;
    }
  }

  // as_const: the value, or false when Jinja2 would find folding impossible.
  bool eval_const(const Expr* e, Value& out) {
    if (!foldable(e)) return false;
    if (e->kind == EK::Const) {
      out = static_cast<const ConstExpr*>(e)->value;
      return true;
    }
    try {
      if (!in_) {
        in_ = std::make_unique<Interp>(ct_, vars_, opts_);
        in_->folding = true;
      }
      out = in_->eval(e);
      return true;
    } catch (...) {
      return false;
    }
  }

  // compiler.has_safe_repr: what Const.from_untrusted accepts.
  static bool safe_repr(const Value& v) {
    switch (v.type()) {
      case Type::None: case Type::Bool: case Type::Int: case Type::Float: case Type::Str: return true;
      case Type::List: {
        ListKind k = v.list_obj().lkind;
        if (k == ListKind::Range) return true;
        if (k != ListKind::List && k != ListKind::Tuple) return false;
        for (const Value& x : v.items()) if (!safe_repr(x)) return false;
        return true;
      }
      case Type::Dict:
        for (const auto& [k, x] : v.dict_obj().entries) if (!safe_repr(k) || !safe_repr(x)) return false;
        return true;
      case Type::Object: return v.is_bigint() || v.is_obj(ObjKind::Complex);
      default: return false;
    }
  }

  // The first name repr(v) spells that Python cannot resolve (inf, nan), in evaluation
  // order; raises the ValueError of an int too long to print.
  static const char* bad_name(const Value& v) {
    switch (v.type()) {
      case Type::Float: {
        double d = v.as_float();
        return std::isnan(d) ? "nan" : std::isinf(d) ? "inf" : nullptr;
      }
      case Type::List:
        for (const Value& x : v.items()) if (const char* n = bad_name(x)) return n;
        return nullptr;
      case Type::Dict:
        for (const auto& [k, x] : v.dict_obj().entries) {
          if (const char* n = bad_name(k)) return n;
          if (const char* n = bad_name(x)) return n;
        }
        return nullptr;
      case Type::Object:
        if (v.is_bigint()) (void)py_repr(v);  // ValueError past 4300 digits
        if (v.is_obj(ObjKind::Complex)) return complex_bad_name(v);
        return nullptr;
      default: return nullptr;
    }
  }

  // An expression written as Python code: a foldable subtree becomes one constant.
  void code(Expr*& e) {
    if (!e) return;
    Value v;
    if (eval_const(e, v) && safe_repr(v)) {
      if (const char* n = bad_name(v))
        e = ct_.arena.expr<RaiseExpr>(e->pos, ErrorKind::NameError, std::string("name '") + n + "' is not defined");
      return;
    }
    switch (e->kind) {
      case EK::List: case EK::Tuple: case EK::Concat:
        for (auto*& x : static_cast<SeqExpr*>(e)->items) code(x);
        return;
      case EK::Dict:
        for (auto& [k, x] : static_cast<DictExpr*>(e)->items) { code(k); code(x); }
        return;
      case EK::Getattr: code(static_cast<GetattrExpr*>(e)->obj); return;
      case EK::Getitem: code(static_cast<GetitemExpr*>(e)->obj); code(static_cast<GetitemExpr*>(e)->index); return;
      case EK::Slice: {
        auto* s = static_cast<SliceExpr*>(e);
        code(s->start); code(s->stop); code(s->step);
        return;
      }
      case EK::Not: case EK::Neg: case EK::Pos: code(static_cast<UnaryExpr*>(e)->operand); return;
      case EK::Binary: code(static_cast<BinaryExpr*>(e)->left); code(static_cast<BinaryExpr*>(e)->right); return;
      case EK::And: case EK::Or: code(static_cast<LogicExpr*>(e)->left); code(static_cast<LogicExpr*>(e)->right); return;
      case EK::Compare: {
        auto* c = static_cast<CompareExpr*>(e);
        code(c->first);
        for (auto& op : c->ops) code(op.second);
        return;
      }
      case EK::Cond: {
        auto* c = static_cast<CondExpr*>(e);
        code(c->test); code(c->then); code(c->otherwise);
        return;
      }
      case EK::Call: code(static_cast<CallExpr*>(e)->callee); args(static_cast<CallExpr*>(e)->a); return;
      case EK::Filter: code(static_cast<FilterExpr*>(e)->operand); args(static_cast<FilterExpr*>(e)->a); return;
      case EK::Test: code(static_cast<TestExpr*>(e)->operand); args(static_cast<TestExpr*>(e)->a); return;
      default: return;
    }
  }
  void args(ArgList& a) {
    for (auto*& x : a.args) code(x);
    for (auto& k : a.kwargs) code(k.value);
    code(a.dyn_args);
    code(a.dyn_kwargs);
  }
  void filter(FilterExpr* f) {
    if (f) args(f->a);
  }

  // A `{{ }}` child: printed as str(as_const) when that works (the constant replaces the
  // expression, as in Jinja2's module), else Python code.
  void output(Expr*& e) {
    Value v;
    if (eval_const(e, v)) {
      try {
        (void)py_str(v);
        if (e->kind != EK::Const) e = ct_.arena.expr<ConstExpr>(e->pos, v);
        return;
      } catch (...) {
      }
    }
    code(e);
  }

  void macro(MacroDef& d) {
    for (auto*& x : d.defaults) code(x);
    body(d.body);
  }

  void stmt(Stmt* s) {
    switch (s->kind) {
      case SK::Print: output(static_cast<PrintStmt*>(s)->expr); return;
      case SK::If: {
        auto* n = static_cast<IfStmt*>(s);
        for (auto& [t, b] : n->branches) { code(t); body(b); }
        body(n->else_body);
        return;
      }
      case SK::For: {
        auto* f = static_cast<ForStmt*>(s);
        code(f->iter);
        code(f->filter);
        body(f->body);
        body(f->else_body);
        return;
      }
      case SK::Set: code(static_cast<SetStmt*>(s)->value); return;
      case SK::SetBlock: {
        auto* n = static_cast<SetBlockStmt*>(s);
        body(n->body);
        filter(n->filter);
        return;
      }
      case SK::Macro: macro(static_cast<MacroStmt*>(s)->def); return;
      case SK::CallBlock: {
        auto* n = static_cast<CallBlockStmt*>(s);
        code(n->call->callee);
        args(n->call->a);
        macro(n->def);
        return;
      }
      case SK::FilterBlock: {
        auto* n = static_cast<FilterBlockStmt*>(s);
        filter(n->filter);
        body(n->body);
        return;
      }
      case SK::With: {
        auto* n = static_cast<WithStmt*>(s);
        for (auto& a : n->assigns) code(a.second);
        body(n->body);
        return;
      }
      case SK::Generation: case SK::Block: body(static_cast<BodyStmt*>(s)->body); return;
      default: return;
    }
  }
};

}  // namespace

void fold_constants(CompiledTemplate& ct) {
  Folder f(ct);
  f.body(ct.root);
}

}  // namespace toolchat::jinja
