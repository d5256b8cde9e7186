// Expressions: names, literals, operators, comparisons, calls, filters and tests.
#include "jinja/objects.hpp"
#include "jinja/render.hpp"
#include "value/bigint.hpp"
#include "value/pyformat.hpp"
#include "value/pystr.hpp"
#include "value/text_watch.hpp"

namespace toolchat::jinja {

namespace {

// str == str outside py_equal, watched as py_equal is (text_watch.hpp).
inline bool same_str(const Value& a, const Value& b, bool watch) {
  if (watch) text_watch::note_equal(a, b);
  return same_text(a.str(), b.str());
}

inline bool compare_op(CmpOp op, const Value& a, const Value& b, bool watch) {
  switch (op) {
    // str == str settled here: templates compare roles and types on every message.
    case CmpOp::Eq: return a.is_str() && b.is_str() ? same_str(a, b, watch) : py_equal(a, b);
    case CmpOp::Ne: return a.is_str() && b.is_str() ? !same_str(a, b, watch) : !py_equal(a, b);
    case CmpOp::In: return py_contains(b, a);
    case CmpOp::NotIn: return !py_contains(b, a);
    case CmpOp::Lt: return py_order(Order::Lt, a, b);
    case CmpOp::LtEq: return py_order(Order::Le, a, b);
    case CmpOp::Gt: return py_order(Order::Gt, a, b);
    case CmpOp::GtEq: return py_order(Order::Ge, a, b);
  }
  return false;
}

// `n > 0`, `n != 0`, `n == 0`, `n >= 1`, `n < 1`, `n <= 0`: whether n is 0, nothing more.
bool asks_if_empty(CmpOp op, const Value& r) {
  if (!r.is_int() || r.is_bool()) return false;
  const int64_t n = r.int_like();
  if (n == 0) return op == CmpOp::Gt || op == CmpOp::Ne || op == CmpOp::Eq || op == CmpOp::LtEq;
  return n == 1 && (op == CmpOp::GtEq || op == CmpOp::Lt);
}

bool is_length(std::string_view filter) { return filter == "length" || filter == "count"; }

// `fmt % args` with a marked text: a format with widths or precisions reads its arguments'
// lengths (text_watch.hpp).
void watch_percent(const Value& fmt, const Value& args) {
  if ((text_watch::holds_marker(fmt) || text_watch::holds_marker(args)) && !text_watch::plain_percent_format(fmt.str()))
    text_watch::note_inspected();
}

// Steps a comparison may take: `in` scans its container (string bytes, list items), the
// others compare the shorter of two strings or lists element by element.
uint64_t compare_steps(CmpOp op, const Value& a, const Value& b) {
  if (op == CmpOp::In || op == CmpOp::NotIn) {
    if (b.is_str()) return b.str().size() / kBytesPerStep;
    return b.is_list() ? b.items().size() : 0;
  }
  if (a.is_str() && b.is_str()) return std::min(a.str().size(), b.str().size()) / kBytesPerStep;
  if (a.is_list() && b.is_list()) return std::min(a.items().size(), b.items().size());
  return 0;
}

// Schoolbook multiplication and long division take one limb product per pair of 32-bit limbs;
// a step is about kLimbProductsPerStep of them.
constexpr uint64_t kLimbProductsPerStep = 8;

uint64_t bigint_steps(BinOp op, const Value& a, const Value& b) {
  auto limbs = [](const Value& v) -> uint64_t {
    return v.is_bigint() ? bigint_of(v).bit_length() / 32 + 1 : 2;
  };
  switch (op) {
    case BinOp::Mul: case BinOp::FloorDiv: case BinOp::Mod:
      return limbs(a) * limbs(b) / kLimbProductsPerStep;
    default:
      return (limbs(a) + limbs(b)) / kLimbProductsPerStep;
  }
}

// Repeated squaring to a result of n limbs takes up to about (2/3)·n² limb products. Charged
// before the work, from the operands (the result's size is at most bits(base)·e), so that an
// exhausted budget stops a power instead of following it: a template of many near-limit powers
// otherwise ran seconds past its budget, once while folding and again while rendering.
uint64_t pow_steps(const Value& a, const Value& b) {
  if (!(a.is_integer() || a.is_bool()) || !(b.is_int() || b.is_bool())) return 0;
  int64_t e = b.int_like();
  if (e <= 1) return 0;
  // Measured as BigInt::pow measures it for its size limit, so every power it computes is charged.
  double result_bits = BigInt::pow_bits(to_bigint(a), static_cast<uint64_t>(e));
  if (result_bits > static_cast<double>(kBigIntMaxBits)) return 0;  // refused before any work
  uint64_t limbs = static_cast<uint64_t>(result_bits) / 32 + 1;
  return limbs < 3 ? 0 : limbs * limbs * 2 / (3 * kLimbProductsPerStep);
}

}  // namespace

bool compare_values(CmpOp op, const Value& a, const Value& b) { return compare_op(op, a, b, text_watch::watching()); }

namespace {
bool no_args(const ArgList& a) { return a.args.empty() && a.kwargs.empty() && !a.dyn_args && !a.dyn_kwargs; }
}  // namespace

// a + b of two strings or two lists: refused before the result is built when it would
// exceed max_value_bytes (a list item counts 16 bytes, as for repetition).
void Interp::check_sum_size(const Value& a, const Value& b) {
  size_t n;
  if (a.is_str() && b.is_str()) n = a.str().size() + b.str().size();
  else if (a.is_list() && b.is_list()) n = (a.items().size() + b.items().size()) * 16;
  else return;
  if (n > limits_.max_value_bytes)
    throw Error(ErrorKind::LimitError, a.is_str() ? "string exceeds the value size limit" : "list exceeds the value size limit");
}

namespace {
inline bool truth_of(bool b) { return b; }
inline bool truth_of(const Value& v) { return truthy(v); }

// `a and b` / `a or b`, with `ev` evaluating an operand to its value (eval) or only to its truth
// (truth): the left operand's truth decides whether the right one is evaluated and which of the
// two is the result.
template <class Eval>
auto logic(const LogicExpr* b, Eval&& ev) -> decltype(ev(b->left)) {
  auto l = ev(b->left);
  if (truth_of(l) == (b->kind == EK::And)) return ev(b->right);
  return l;
}
}  // namespace

// Called in a catch block: the exception in flight gets `e`'s position (unless an inner node
// placed it first) and becomes the engine's Error.
void Interp::rethrow_at(const Expr* e) {
  try {
    throw;
  } catch (Error& err) {
    err.set_position(e->pos, t_.source);
    throw;
  } catch (const pystr::PyError& pe) {
    Error err(error_kind_from_name(pe.type), pe.message);
    err.set_position(e->pos, t_.source);
    throw err;
  } catch (const std::bad_alloc&) {
    Error err(ErrorKind::MemoryError, "");
    err.set_position(e->pos, t_.source);
    throw err;
  } catch (const std::length_error&) {
    Error err(ErrorKind::MemoryError, "");
    err.set_position(e->pos, t_.source);
    throw err;
  }
}

// The expression dispatch: one switch per node (the less common kinds in eval_cold).
Value Interp::eval(const Expr* e) {
  try {
    switch (e->kind) {
      case EK::Const: return static_cast<const ConstExpr*>(e)->value;
      case EK::Name: return lookup(static_cast<const NameExpr*>(e));
      case EK::Getattr: {
        auto* g = static_cast<const GetattrExpr*>(e);
        // The object is borrowed when it can be (getattr runs no template code).
        Value hold;
        const Value* obj = borrow_or_eval(g->obj, hold);
        if (const Value* v = dict_attr(g, *obj)) return *v;
        if (g->loop_field != LoopField::None && obj->is_obj(ObjKind::Loop))
          return loop_attr(*obj->as<LoopObj>(), g->attr, g->loop_field);
        return getattr(*obj, g->attr);
      }
      case EK::Getitem: {
        auto* g = static_cast<const GetitemExpr*>(e);
        if (g->dict_missing.obj()) {
          // A constant key: the object is borrowed when it can be (getitem runs no template code).
          const Value& key = static_cast<const ConstExpr*>(g->index)->value;
          Value hold;
          const Value* obj = borrow_or_eval(g->obj, hold);
          if (const Value* v = dict_key(g, *obj)) return *v;
          if (g->str_missing.obj() && obj->is_str() && !obj->is_markup()) return g->str_missing;
          return getitem(*obj, key);
        }
        if (g->index->kind == EK::Const) {
          // `messages[0]`, `x[-1]`: nothing is evaluated after the object, which is borrowed.
          Value hold;
          return getitem(*borrow_or_eval(g->obj, hold), static_cast<const ConstExpr*>(g->index)->value);
        }
        Value obj = eval(g->obj);
        if (g->index->kind == EK::Slice) return slice(obj, static_cast<const SliceExpr*>(g->index));
        return getitem(obj, eval(g->index));
      }
      case EK::Not: return Value::boolean(truth(e));
      case EK::And:
      case EK::Or: return logic(static_cast<const LogicExpr*>(e), [this](const Expr* x) { return eval(x); });
      case EK::Compare: return Value::boolean(eval_compare(static_cast<const CompareExpr*>(e)));
      case EK::Cond: {
        auto* c = static_cast<const CondExpr*>(e);
        if (truth(c->test)) return eval(c->then);
        if (c->otherwise) return eval(c->otherwise);
        return c->missing;
      }
      case EK::Call: return eval_call(static_cast<const CallExpr*>(e));
      case EK::Filter: return eval_filter(static_cast<const FilterExpr*>(e), nullptr);
      case EK::Test: return Value::boolean(eval_test(static_cast<const TestExpr*>(e)));
      default: return eval_cold(e);
    }
  } catch (...) {
    rethrow_at(e);
  }
}

// bool(value of e) without making a bool Value where only the truth is asked: what `if`, `elif`,
// inline if and loop filters ask. Comparisons, tests and `not` are evaluated through here or the
// functions it calls (eval wraps their result); `and`/`or` go through the one logic() with either.
bool Interp::truth(const Expr* e) {
  switch (e->kind) {
    case EK::Not: return !truth(static_cast<const UnaryExpr*>(e)->operand);
    case EK::And:
    case EK::Or: return logic(static_cast<const LogicExpr*>(e), [this](const Expr* x) { return truth(x); });
    case EK::Compare:
    case EK::Test:
      try {
        if (e->kind == EK::Compare) return eval_compare(static_cast<const CompareExpr*>(e));
        return eval_test(static_cast<const TestExpr*>(e));
      } catch (...) {
        rethrow_at(e);
      }
    default: return truthy(eval(e));
  }
}

// The less common expression kinds, apart so that eval stays small. Each kind is
// evaluated in exactly one of the two.
Value Interp::eval_cold(const Expr* e) {
  switch (e->kind) {
    case EK::List:
    case EK::Tuple: {
      auto* s = static_cast<const SeqExpr*>(e);
      std::vector<Value> items;
      items.reserve(s->items.size());
      for (auto* x : s->items) items.push_back(eval(x));
      return Value::list(std::move(items), e->kind == EK::Tuple ? ListKind::Tuple : ListKind::List);
    }
    case EK::Dict: {
      auto* d = static_cast<const DictExpr*>(e);
      Value out = Value::dict();
      out.dict_obj().entries.reserve(d->items.size());
      for (const auto& [k, v] : d->items) {
        Value key = eval(k);
        check_hashable(key);
        out.dict_obj().set(std::move(key), eval(v));
      }
      return out;
    }
    case EK::Slice: throw Error(ErrorKind::TypeError, "slice outside of subscript");
    case EK::Neg: return py_neg(eval(static_cast<const UnaryExpr*>(e)->operand));
    case EK::Pos: return py_pos(eval(static_cast<const UnaryExpr*>(e)->operand));
    case EK::Binary: {
      auto* b = static_cast<const BinaryExpr*>(e);
      Value l = eval(b->left);
      Value r = eval(b->right);
      if (l.is_bigint() || r.is_bigint()) charge(bigint_steps(b->op, l, r));
      switch (b->op) {
        case BinOp::Add: {
          check_sum_size(l, r);
          Value v = py_add(l, r);
          charge_built(v);
          return v;
        }
        case BinOp::Sub: return py_sub(l, r);
        case BinOp::Mul: {
          if ((l.is_str() || l.is_list()) && (r.is_int() || r.is_bool()) && r.int_like() > 0) {
            size_t unit = l.is_str() ? l.str().size() : l.items().size() * 16;
            if (unit && static_cast<uint64_t>(r.int_like()) > limits_.max_value_bytes / unit)
              throw Error(ErrorKind::LimitError, "repetition exceeds the value size limit");
          }
          if ((r.is_str() || r.is_list()) && (l.is_int() || l.is_bool()) && l.int_like() > 0) {
            size_t unit = r.is_str() ? r.str().size() : r.items().size() * 16;
            if (unit && static_cast<uint64_t>(l.int_like()) > limits_.max_value_bytes / unit)
              throw Error(ErrorKind::LimitError, "repetition exceeds the value size limit");
          }
          Value v = py_mul(l, r);
          charge_built(v);
          return v;
        }
        case BinOp::Div: return py_truediv(l, r);
        case BinOp::FloorDiv: return py_floordiv(l, r);
        case BinOp::Mod:
          if (l.is_str()) {
            if (r.is_undefined()) raise_undefined(r);
            if (watching_) watch_percent(l, r);
            Value v = Value::string(pyformat::percent(std::string(l.str()), r, limits_.max_value_bytes));
            charge_built(v);
            return v;
          }
          return py_mod(l, r);
        case BinOp::Pow:
          charge(pow_steps(l, r));
          return py_pow(l, r);
      }
      return Value();
    }
    case EK::Concat: {
      auto* c = static_cast<const SeqExpr*>(e);
      // While the operands are strings they are only held; at the end their bytes are written
      // once, into the new string (no temporary). Anything else falls back to appending, from
      // that operand on, so errors come in the same order.
      constexpr size_t kHeld = 8;
      Value held[kHeld];
      size_t n_held = 0, total = 0, i = 0;
      const size_t n_items = c->items.size();
      Value v;
      for (; i < n_items; ++i) {
        v = eval(c->items[i]);
        if (!v.is_str() || v.is_markup() || n_held == kHeld) break;
        total += v.str().size();
        if (total > limits_.max_value_bytes) throw Error(ErrorKind::LimitError, "string exceeds the value size limit");
        held[n_held++] = std::move(v);
      }
      if (i == n_items) {
        charge_bytes(total);
        return Value::string(total, [&](char* d) {
          for (size_t k = 0; k < n_held; ++k) {
            std::string_view s = held[k].str();
            std::memcpy(d, s.data(), s.size());
            d += s.size();
          }
        });
      }
      std::string out;
      out.reserve(total);
      for (size_t k = 0; k < n_held; ++k) out += held[k].str();
      for (; i < n_items; ++i) {
        if (i > n_held) v = eval(c->items[i]);  // items[n_held] was evaluated above
        size_t before = out.size();
        py_str_append(out, v);
        if (v.is_list() || v.is_dict()) charge((out.size() - before) / 2);  // a container's repr
        if (out.size() > limits_.max_value_bytes) throw Error(ErrorKind::LimitError, "string exceeds the value size limit");
      }
      charge_bytes(out.size());
      return Value::string(std::move(out));
    }
    case EK::NSRef: throw Error(ErrorKind::TemplateSyntaxError, "namespace reference outside assignment");
    case EK::Raise: {
      auto* r = static_cast<const RaiseExpr*>(e);
      throw Error(r->error, r->message);
    }
    default: break;  // the kinds eval evaluates
  }
  return Value();
}

// borrow() of `a.b['c']...`: the chain listed when compiled (key_path) is walked from its root
// name (or constant) down; nullptr as soon as a link is not a plain dict lookup.
const Value* Interp::borrow_path(const Expr* e) {
  const auto& path = e->kind == EK::Getattr ? static_cast<const GetattrExpr*>(e)->key_path
                                            : static_cast<const GetitemExpr*>(e)->key_path;
  if (path.empty()) return nullptr;
  const Expr* root = path[0];
  const Value* v = root->kind == EK::Name ? borrow_name(static_cast<const NameExpr*>(root))
                                          : &static_cast<const ConstExpr*>(root)->value;
  for (size_t i = 1; i < path.size(); ++i) {
    const Expr* link = path[i];
    v = link->kind == EK::Getattr ? dict_attr(static_cast<const GetattrExpr*>(link), *v)
                                  : dict_key(static_cast<const GetitemExpr*>(link), *v);
    if (!v) return nullptr;
  }
  return v;
}

bool Interp::eval_compare(const CompareExpr* c) {
  if (c->one_const) {
    // One comparison with a constant: the left operand borrowed (a one-key path on a name,
    // the usual `m.role` / `m['role']`, walked here), no chain to keep.
    CmpOp op = c->ops[0].first;
    const Value& r = static_cast<const ConstExpr*>(c->ops[0].second)->value;
    const Expr* x = c->first;
    const Value* l = nullptr;
    if (x->kind == EK::Getattr) {
      auto* g = static_cast<const GetattrExpr*>(x);
      if (g->obj->kind == EK::Name) l = dict_attr(g, *borrow_name(static_cast<const NameExpr*>(g->obj)));
    } else if (x->kind == EK::Getitem) {
      auto* g = static_cast<const GetitemExpr*>(x);
      if (g->dict_missing.obj() && g->obj->kind == EK::Name)
        l = dict_key(g, *borrow_name(static_cast<const NameExpr*>(g->obj)));
    } else if (x->kind == EK::Filter && watching_ && asks_if_empty(op, r)) {
      text_watch::state.length_as_truth = x;
    }
    Value lt;
    if (!l) l = borrow_or_eval(x, lt);
    if ((op == CmpOp::Eq || op == CmpOp::Ne) && l->is_str() && r.is_str()) {
      // str == str, the usual test of a role or type: compare_steps and compare_op's rule inline.
      // Not watched (value/text_watch.hpp): the constant is among the strings texts are screened
      // for (TemplateUses::compared takes every str constant compared with == or !=; '' is
      // accounted for as it is).
      std::string_view a = l->str(), b = r.str();
      if (uint64_t n = std::min(a.size(), b.size()) / kBytesPerStep) charge(n);
      return same_text(a, b) == (op == CmpOp::Eq);
    }
    if (uint64_t n = compare_steps(op, *l, r)) charge(n);
    return compare_op(op, *l, r, watching_);
  }
  // Operands are borrowed when they can be; a borrowed left operand is copied before an
  // operand that needs evaluation (a macro call there may reassign what it points to).
  Value lt;
  const Value* l = borrow_or_eval(c->first, lt);
  for (const auto& [op, expr] : c->ops) {
    Value rt;
    const Value* r = borrow(expr);
    if (!r) {
      if (l != &lt) {
        lt = *l;
        l = &lt;
      }
      rt = eval(expr);
      r = &rt;
    }
    if (uint64_t n = compare_steps(op, *l, *r)) charge(n);
    if (!compare_op(op, *l, *r, watching_)) return false;
    if (r == &rt) {
      lt = std::move(rt);
      l = &lt;
    } else {
      l = r;
    }
  }
  return true;
}

void Interp::eval_args(const ArgList& a, CallArgs& out) {
  out.pos.reserve(a.args.size());
  for (auto* x : a.args) out.pos.push_back(eval(x));
  out.kw.reserve(a.kwargs.size());
  for (const auto& kw : a.kwargs) out.kw.emplace_back(kw.name, eval(kw.value));
  if (a.dyn_args) {
    for (auto& v : iterate(eval(a.dyn_args))) out.pos.push_back(v);
  }
  if (a.dyn_kwargs) {
    Value d = eval(a.dyn_kwargs);
    if (d.is_undefined()) raise_undefined(d);
    if (!d.is_dict())
      throw Error(ErrorKind::TypeError, std::string("argument after ** must be a mapping, not ") + type_name(d));
    for (const auto& [k, v] : d.dict_obj().entries) {
      if (!k.is_str()) throw Error(ErrorKind::TypeError, "keywords must be strings");
      out.kw.emplace_back(k.str(), v);
    }
  }
}

Value Interp::eval_call(const CallExpr* c) {
  if (c->callee->kind == EK::Getattr) {
    // obj.method(...): dispatch builtin methods without creating a bound method value.
    auto* g = static_cast<const GetattrExpr*>(c->callee);
    // Without arguments to evaluate in between, the receiver is borrowed when it can be.
    Value hold;
    const Value& self = no_args(c->a) ? *borrow_or_eval(g->obj, hold) : (hold = eval(g->obj));
    bool plain_str = self.is_str() && !self.is_markup();
    MethodFn fn = plain_str ? c->str_method.load(std::memory_order_relaxed) : nullptr;
    MethodLookup how = MethodLookup::Found;
    if (!fn) {
      how = self.is_undefined() ? MethodLookup::NotFound : find_method(self, g->attr, &fn);
      if (how == MethodLookup::Found && plain_str) c->str_method.store(fn, std::memory_order_relaxed);
    }
    if (how == MethodLookup::Found) {
      CallArgs args;
      eval_args(c->a, args);
      if (self.is_str()) charge_bytes(self.str().size());  // str methods scan the string
      if (watching_) note_method(g->attr, self, args);
      Value v = fn(*this, self, args);
      charge_built(v);
      return v;
    }
    Value callee = getattr(self, g->attr);
    CallArgs args;
    eval_args(c->a, args);
    return call(callee, args);
  }
  Value callee = eval(c->callee);
  CallArgs args;
  eval_args(c->a, args);
  return call(callee, args);
}

Value Interp::eval_filter(const FilterExpr* f, const Value* operand) {
  // In {% filter a|b %} and {% set x | a|b %} the innermost filter takes the block's text.
  // Without arguments to evaluate in between, the operand is borrowed when it can be.
  Value hold;
  const Value* v;
  if (!f->operand) v = operand;
  else if (operand && f->operand->kind == EK::Filter) v = &(hold = eval_filter(static_cast<const FilterExpr*>(f->operand), operand));
  else if (no_args(f->a)) v = borrow_or_eval(f->operand, hold);
  else v = &(hold = eval(f->operand));
  CallArgs args;
  eval_args(f->a, args);
  if (!f->fn) throw Error(ErrorKind::TemplateRuntimeError, "No filter named " + string_repr(f->name) + " found.");
  if (v->is_str()) charge_bytes(v->str().size());  // string filters read their whole input
  if (watching_ && !(f == text_watch::state.length_as_truth && is_length(f->name))) note_filter(f->fn, *v, args);
  Value out = f->fn(*this, *v, args);
  charge_built(out);
  return out;
}

bool Interp::eval_test(const TestExpr* t) {
  if (t->simple) {
    // A missing variable needs no Undefined object to be tested.
    bool undef, none;
    if (t->operand->kind == EK::Name) {
      const Value* v = find_name(static_cast<const NameExpr*>(t->operand));
      undef = !v || v->is_undefined();
      none = v && v->is_none();
    } else {
      Value hold;
      const Value* v = borrow_or_eval(t->operand, hold);
      undef = v->is_undefined();
      none = v->is_none();
    }
    charge(1);
    return t->simple == 1 ? !undef : t->simple == 2 ? undef : none;
  }
  Value v = eval(t->operand);
  CallArgs args;
  eval_args(t->a, args);
  if (!t->fn) throw Error(ErrorKind::TemplateRuntimeError, "No test named " + string_repr(t->name) + " found.");
  return run_test(t->fn, v, args);
}

Value Interp::call_filter(std::string_view name, const Value& v, CallArgs& args) {
  FilterFn fn = find_filter(name);
  if (!fn) throw Error(ErrorKind::TemplateRuntimeError, "No filter named " + string_repr(std::string(name)) + ".");
  if (v.is_str()) charge_bytes(v.str().size());
  if (watching_) note_filter(fn, v, args);
  Value out = fn(*this, v, args);
  charge_built(out);
  return out;
}

bool Interp::call_test(std::string_view name, const Value& v, CallArgs& args) {
  TestFn fn = find_test(name);
  if (!fn) throw Error(ErrorKind::TemplateRuntimeError, "No test named " + string_repr(std::string(name)) + ".");
  return run_test(fn, v, args);
}

}  // namespace toolchat::jinja
