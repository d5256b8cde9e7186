// Statements: output, scopes, if/for/set/with, macros and call blocks, generation spans.
#include <cstring>

#include "jinja/objects.hpp"
#include "jinja/render.hpp"

namespace toolchat::jinja {

namespace {
[[noreturn]] void limit_error(const std::string& what) { throw Error(ErrorKind::LimitError, what); }

Value list_of(std::vector<Value> v) { return Value::list(std::move(v)); }
}  // namespace

Interp::Interp(const CompiledTemplate& t, const Value& vars, const RenderOptions& opts)
    : t_(t), limits_(t.limits), opts_(opts), vars_(vars) {
  // Names resolve on first use (resolve()): render variables over globals.
  ctx_ = ctx_pool.take();
  ctx_.assign(t.syms.names.size(), SymSlot{});
  if (t.n_maybe_global) made_.reserve(t.n_maybe_global);
  root_ = FrameRef::make(nullptr);
  cur_ = root_.get();
}

const Value* Interp::resolve(int sym) {
  size_t i = static_cast<size_t>(sym);
  const Value* v = nullptr;
  if (sym == t_.self_sym) v = nullptr;  // Jinja2's TemplateReference wins over a variable
  else if (vars_.is_dict()) v = t_.var_hints[i].find(vars_.dict_obj(), t_.syms.names[i]);
  if (!v) {
    if (t_.maybe_global[i]) {
      if (sym == t_.self_sym) made_.push_back(Value(new TemplateRefObj(this)));
      else made_.push_back(make_global(t_.syms.names[i], opts_));
      v = &made_.back();
    } else {
      v = &t_.globals[i];
    }
  }
  ctx_[i].resolved = v;
  return v;
}

Interp::~Interp() {
  // Values leave every frame (and namespace) before any of them is destroyed: a macro
  // stored in the scope it closes over, or a loop object kept in a variable, is a
  // reference cycle. The root scope's vector moves out whole and comes back, emptied,
  // so the pooled frame keeps its capacity.
  std::vector<std::pair<int, Value>> doomed;
  if (root_.get()) doomed.swap(root_->vars);
  if (!retained_.empty() || !mutables_.empty()) {
    for (auto& f : retained_) {
      doomed.insert(doomed.end(), std::make_move_iterator(f->vars.begin()), std::make_move_iterator(f->vars.end()));
      f->vars.clear();
    }
    for (auto& v : mutables_) {
      auto& attrs = v.as<NamespaceObj>()->attrs.dict_obj().entries;
      for (auto& kv : attrs) doomed.emplace_back(0, std::move(kv.second));
      attrs.clear();
    }
  }
  doomed.clear();
  if (root_.get() && root_->vars.capacity() < doomed.capacity()) root_->vars.swap(doomed);
  ctx_pool.give(std::move(ctx_));
}

Value Interp::make_macro(const MacroDef* def) {
  if (retained_.empty() || retained_.back().get() != cur_) retained_.emplace_back(cur_);
  return Value(new MacroObj(def, FrameRef(cur_), this));
}

RenderResult Interp::run() {
  size_t hint = t_.out_hint.load(std::memory_order_relaxed);
  top_out_.reserve(hint < 256 ? 256 : hint);
  exec_body(t_.root);
  size_t next = std::min<size_t>(top_out_.size() + top_out_.size() / 8, size_t{1} << 20);
  if (next != hint) t_.out_hint.store(next, std::memory_order_relaxed);
  RenderResult r;
  r.text = std::move(top_out_);
  r.generation_spans = std::move(spans_);
  return r;
}

void Interp::steps_exceeded() {
  limit_error("render exceeds the work limit of " + std::to_string(limits_.max_steps) +
              " steps (loop iterations, calls and filter work)");
}

void Interp::check_output() {
  if (out_->size() > limits_.max_output_bytes)
    limit_error("rendered output exceeds the limit of " + std::to_string(limits_.max_output_bytes) + " bytes");
}

void Interp::write_value(const Value& v) {
  switch (v.type()) {
    case Type::Str: write(v.str()); return;
    case Type::Undefined: return;
    default: {
      size_t before = out_->size();
      py_str_append(*out_, v);
      // a container's repr costs a few steps per item printed
      steps_ += (out_->size() - before) / (v.is_list() || v.is_dict() ? 2 : kBytesPerStep);
      check_output();
      return;
    }
  }
}

// `{{ a + b + c }}` and `{{ a ~ b }}` of plain strings go straight to the output instead of
// building intermediate strings (a sum's operands were listed when compiled: printed_sum).
// Falls back (returns false) before evaluating anything when the shape does not fit; once it starts, non-string operands continue through
// py_add in Python's left-to-right order.
bool Interp::write_concat(const Expr* e) {
  if (e->kind == EK::Concat) {
    auto* c = static_cast<const SeqExpr*>(e);
    if (c->items.size() > 16) return false;
    std::string* out = out_;
    size_t mark = out->size();
    try {
      for (auto* x : c->items) {
        Value hold;
        py_str_append(*out, *borrow_or_eval(x, hold));
      }
    } catch (...) {
      out->resize(mark);
      throw;
    }
    check_output();
    return true;
  }
  if (e->kind != EK::Binary) return false;
  const auto& sum = static_cast<const BinaryExpr*>(e)->printed_sum;
  if (sum.empty()) return false;
  const Expr* const* ops = sum.data();
  const size_t n = sum.size();
  std::string* out = out_;
  size_t mark = out->size();
  try {
    Value acc;
    bool plain = true;  // everything so far was a plain string, already appended
    for (size_t i = n; i-- > 0;) {
      // Borrowed operands are used before the next operand is evaluated (which might run a
      // macro that reassigns them).
      const Expr* x = ops[i];
      if (plain && x->kind == EK::Const) {
        // A literal piece (`'<|im_start|>'`, `'\n'`): appended as below, without a borrow call
        // or a held Value.
        const Value& c = static_cast<const ConstExpr*>(x)->value;
        if (c.is_str() && !c.is_markup()) {
          out->append(c.str());
          continue;
        }
      }
      Value hold;
      const Value& v = *borrow_or_eval(x, hold);
      if (plain) {
        if (v.is_str() && !v.is_markup()) {
          out->append(v.str());
          continue;
        }
        if (i == n - 1) {  // first operand is not a plain string: ordinary evaluation
          acc = v;
        } else {
          acc = py_add(Value::string(out->substr(mark)), v);
        }
        out->resize(mark);
        plain = false;
        continue;
      }
      try {
        acc = py_add(acc, v);
      } catch (Error& err) {
        const Expr* node = e;
        for (size_t k = 0; k < i; ++k) node = static_cast<const BinaryExpr*>(node)->left;
        err.set_position(node->pos, t_.source);
        throw;
      }
    }
    if (!plain) {
      if (acc.is_str() && acc.str().size() > limits_.max_value_bytes)
        throw Error(ErrorKind::LimitError, "string exceeds the value size limit");
      write_value(acc);
    }
  } catch (...) {
    out->resize(mark);
    throw;
  }
  check_output();
  return true;
}

namespace {
// Code points in UTF-8 text: bytes that are not continuation bytes (10xxxxxx), 8 at a time.
size_t count_code_points(const char* p, size_t n) {
  size_t cont = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    // one 0/1 flag per byte, summed by a multiply (no popcnt call without -mpopcnt)
    uint64_t flags = (w >> 7) & ~(w >> 6) & 0x0101010101010101ULL;
    cont += static_cast<size_t>((flags * 0x0101010101010101ULL) >> 56);
  }
  for (; i < n; ++i)
    if ((static_cast<unsigned char>(p[i]) & 0xC0) == 0x80) ++cont;
  return n - cont;
}
}  // namespace

size_t Interp::top_code_points() {
  if (cp_bytes_ < top_out_.size()) {
    cp_count_ += count_code_points(top_out_.data() + cp_bytes_, top_out_.size() - cp_bytes_);
    cp_bytes_ = top_out_.size();
  }
  return cp_count_;
}

Interp::CallDepth::CallDepth(Interp& in, uint64_t steps) : in_(in) {
  if (in.depth_ + 1 > in.limits_.max_call_depth) throw Error(ErrorKind::RecursionError, "maximum recursion depth exceeded");
  in.charge(steps);
  ++in.depth_;
}

Flow Interp::exec_in_scope(const Body& b, Frame* parent) {
  FrameRef scope = FrameRef::make(parent);
  SwapIn<Frame> in_scope(cur_, scope.get());
  return exec_body(b);
}

Value Interp::render_block(const BodyStmt* block) {
  std::string text;
  {
    SwapIn<std::string> into_text(out_, &text);
    exec_in_scope(block->body, root_.get());
  }
  return Value::string(std::move(text));
}

std::string Interp::capture(const Body& b, Flow* flow) {
  std::string buf;
  Flow f;
  {
    SwapIn<std::string> into_buf(out_, &buf);
    f = exec_body(b);
  }
  if (flow) *flow = f;
  return buf;
}

void Interp::assign(int sym, Value v) {
  // A name no scope of this render has bound yet is not in this one either.
  if (sym >= 0 && !ctx_[static_cast<size_t>(sym)].bound) {
    bind(sym, std::move(v));
    return;
  }
  for (auto& kv : cur_->vars) {
    if (kv.first == sym) {
      kv.second = std::move(v);
      return;
    }
  }
  bind(sym, std::move(v));
}

void Interp::exec_set_target(const Expr* target, const Value& v) {
  switch (target->kind) {
    case EK::Name: assign(static_cast<const NameExpr*>(target)->sym, v); return;
    case EK::NSRef: {
      auto* ns = static_cast<const NSRefExpr*>(target);
      const Value* obj = find_sym(ns->sym);
      if (!obj || !obj->is_obj(ObjKind::Namespace))
        throw Error(ErrorKind::TemplateRuntimeError, "cannot assign attribute on non-namespace object");
      DictObj& attrs = obj->as<NamespaceObj>()->attrs.dict_obj();
      // An attribute set again (the usual case, in a loop) keeps its key: no key string is made.
      if (const Value* slot = attrs.find(std::string_view(ns->attr))) *const_cast<Value*>(slot) = v;
      else attrs.set(Value::string(ns->attr), v);
      return;
    }
    case EK::Tuple: {
      auto* tup = static_cast<const SeqExpr*>(target);
      if (!(v.is_list() || v.is_dict() || v.is_str() || v.is_undefined()))
        throw Error(ErrorKind::TypeError, std::string("cannot unpack non-iterable ") + type_name(v) + " object");
      std::vector<Value> items = iterate(v);
      size_t want = tup->items.size();
      if (items.size() < want)
        throw Error(ErrorKind::ValueError, "not enough values to unpack (expected " + std::to_string(want) +
                                               ", got " + std::to_string(items.size()) + ")");
      if (items.size() > want)
        throw Error(ErrorKind::ValueError, "too many values to unpack (expected " + std::to_string(want) + ")");
      for (size_t i = 0; i < want; ++i) exec_set_target(tup->items[i], items[i]);
      return;
    }
    default: throw Error(ErrorKind::TemplateRuntimeError, "cannot assign to this target");
  }
}

// The statement dispatch: one loop over a body, one switch per statement, the error placed at the
// statement being executed (an inner statement placed it first: the innermost position wins).
Flow Interp::exec_body(const Body& b) {
  const Stmt* s = nullptr;
  try {
    for (const Stmt* st : b) {
      s = st;
      Flow f;
      switch (s->kind) {
        case SK::Text: write(static_cast<const TextStmt*>(s)->text); continue;
        case SK::Print: exec_print(static_cast<const PrintStmt*>(s)->expr); continue;
        case SK::If: {
          auto* n = static_cast<const IfStmt*>(s);
          const Body* body = &n->else_body;
          for (const auto& [test, then] : n->branches) {
            if (truth(test)) {
              body = &then;
              break;
            }
          }
          if (body->empty()) continue;
          f = exec_body(*body);
          break;
        }
        case SK::For: f = exec_for(static_cast<const ForStmt*>(s)); break;
        case SK::Set: exec_set(static_cast<const SetStmt*>(s)); continue;
        default: f = exec_cold(s); break;
      }
      if (f != Flow::Normal) return f;
    }
  } catch (Error& e) {
    e.set_position(s->pos, t_.source);
    throw;
  }
  return Flow::Normal;
}

// Print and set apart from exec_body, which stays small.
void Interp::exec_print(const Expr* e) {
  if ((e->kind == EK::Concat || e->kind == EK::Binary) && write_concat(e)) return;
  Value hold;
  const Value& v = *borrow_or_eval(e, hold);
  if (v.is_str()) write(v.str());  // write_value's first case, without its call
  else write_value(v);
}

void Interp::exec_set(const SetStmt* n) {
  Value v = eval(n->value);
  // A name takes the value itself (no second reference to drop); other targets unpack or copy it.
  if (n->target->kind == EK::Name) assign(static_cast<const NameExpr*>(n->target)->sym, std::move(v));
  else exec_set_target(n->target, v);
}

// The less common statements, apart so that exec_body stays small. Each kind is executed in
// exactly one of the two; exec_body places their errors.
Flow Interp::exec_cold(const Stmt* s) {
  switch (s->kind) {
    case SK::SetBlock: {
      // Set and filter blocks render inline in Jinja2: break/continue inside them act on the
      // enclosing loop and abandon the block.
      auto* n = static_cast<const SetBlockStmt*>(s);
      Flow fl = Flow::Normal;
      Value body = Value::string(capture(n->body, &fl));
      if (fl != Flow::Normal) return fl;
      if (n->filter) body = eval_filter(n->filter, &body);
      exec_set_target(n->target, body);
      return Flow::Normal;
    }
    case SK::FilterBlock: {
      auto* n = static_cast<const FilterBlockStmt*>(s);
      Flow fl = Flow::Normal;
      Value body = Value::string(capture(n->body, &fl));
      if (fl != Flow::Normal) return fl;
      write_value(eval_filter(n->filter, &body));
      return Flow::Normal;
    }
    case SK::Macro: {
      auto* n = static_cast<const MacroStmt*>(s);
      assign(n->sym, make_macro(&n->def));
      return Flow::Normal;
    }
    case SK::CallBlock: {
      auto* n = static_cast<const CallBlockStmt*>(s);
      Value caller = make_macro(&n->def);
      const CallExpr* c = n->call;
      Value callee = eval(c->callee);
      CallArgs args;
      eval_args(c->a, args);
      args.kw.emplace_back("caller", caller);
      write_value(call(callee, args));
      return Flow::Normal;
    }
    case SK::With: {
      auto* n = static_cast<const WithStmt*>(s);
      std::vector<Value> vals;
      for (const auto& a : n->assigns) vals.push_back(eval(a.second));
      FrameRef scope = FrameRef::make(cur_);
      SwapIn<Frame> in_scope(cur_, scope.get());
      for (size_t i = 0; i < vals.size(); ++i) exec_set_target(n->assigns[i].first, vals[i]);
      return exec_body(n->body);
    }
    case SK::Break: return Flow::Break;
    case SK::Continue: return Flow::Continue;
    case SK::Generation: {
      auto* n = static_cast<const BodyStmt*>(s);
      size_t start = top_code_points();
      std::string body = capture(n->body);
      size_t len = count_code_points(body.data(), body.size());
      spans_.emplace_back(start, start + len);
      write(body);
      return Flow::Normal;
    }
    case SK::Block: {
      // A block renders as its own function: it sees template-level names only.
      auto* n = static_cast<const BodyStmt*>(s);
      return exec_in_scope(n->body, n->scoped ? cur_ : root_.get());
    }
    case SK::Unsupported:
      throw Error(ErrorKind::TypeError, "no loader for this environment specified");
    default: break;  // the kinds exec_body runs
  }
  return Flow::Normal;
}

Flow Interp::exec_for(const ForStmt* f) {
  Value iterable = eval(f->iter);
  if (!f->recursive) return run_loop(f, iterable, 0, true, nullptr);
  // Jinja2 renders a recursive loop as a function whose output arrives as one block,
  // which is what {% generation %} offsets inside it are measured against.
  std::string buf;
  Flow fl;
  {
    SwapIn<std::string> into_buf(out_, &buf);
    fl = run_loop(f, iterable, 0, true, nullptr);
  }
  write(buf);
  return fl;
}

// The current values of a loop target's names, as the tuple Python's `(a, b)` builds.
Value Interp::packed_target(const Expr* target) {
  if (target->kind != EK::Tuple) return lookup(static_cast<const NameExpr*>(target));
  std::vector<Value> parts;
  for (const Expr* x : static_cast<const SeqExpr*>(target)->items) parts.push_back(packed_target(x));
  return Value::tuple(std::move(parts));
}

// Runs a for loop over `iterable`; recursive calls (loop(...)) capture into `capture`.
Flow Interp::run_loop(const ForStmt* f, const Value& iterable, int64_t depth0, bool top, std::string* cap) {
  // A plain list is iterated in place; anything else is materialised first.
  bool shared = !f->filter && iterable.is_list() && iterable.list_obj().lkind != ListKind::DictValues;
  std::vector<Value> items;
  if (!shared) items = iterate(iterable);
  else if (iterable.items().empty()) items.clear();
  Frame* saved = cur_;
  FrameRef scope;
  if (f->filter) {
    std::vector<Value> kept;
    FrameRef probe = FrameRef::make(saved);
    SwapIn<Frame> in_probe(cur_, probe.get());
    for (auto& it : items) {
      charge(1);
      cur_->vars.clear();
      exec_set_target(f->target, it);
      // Jinja2's filter generator yields the unpacked target again: a tuple for `a, b`.
      if (truth(f->filter)) kept.push_back(f->target->kind == EK::Tuple ? packed_target(f->target) : it);
    }
    items = std::move(kept);
  }
  // `else` belongs to each (recursive) call of the loop: Jinja2 writes it into loop()'s body.
  auto run_else = [&]() {
    if (top || f->else_body.empty()) return top ? exec_body(f->else_body) : Flow::Normal;
    SwapIn<std::string> into_cap(out_, cap);
    return exec_body(f->else_body);
  };
  if (shared ? iterable.items().empty() : items.empty()) return run_else();
  bool completed = false;  // Jinja2 runs `else` unless some iteration reached the end of its body
  Value listed;
  if (!shared) listed = list_of(std::move(items));
  const Value& seq_value = shared ? iterable : listed;
  // The loop object only for a body that names `loop` (ForStmt::uses_loop, set when compiled).
  LoopObj* loop = nullptr;
  Value loop_val;
  if (f->uses_loop) {
    loop = new LoopObj();
    loop_val = Value(loop);
    loop->node = f;
    loop->depth0 = depth0;
    loop->frame = FrameRef(saved);
    loop->items = seq_value;
  }
  int loop_sym = loop ? t_.loop_sym : -1;
  {
    SwapIn<std::string> into_cap(out_, cap ? cap : out_);
    SwapIn<Frame> in_scope(cur_, saved);
    const auto& seq = seq_value.items();
    for (size_t i = 0; i < seq.size(); ++i) {
      charge(1 + f->weight);
      if (loop) loop->index0 = static_cast<int64_t>(i);
      if (!scope.get() || scope->rc > 1) scope = FrameRef::make(saved);
      else scope->vars.clear();
      cur_ = scope.get();
      if (loop_sym >= 0) bind(loop_sym, loop_val);
      // A name target is new in the fresh scope (and never `loop`: the compiler refuses that).
      if (f->target->kind == EK::Name) bind(static_cast<const NameExpr*>(f->target)->sym, seq[i]);
      else exec_set_target(f->target, seq[i]);
      Flow fl = exec_body(f->body);
      if (fl == Flow::Break) break;
      if (fl == Flow::Normal) completed = true;
    }
  }
  if (!completed) return run_else();
  return Flow::Normal;
}

Value Interp::call_loop(LoopObj& loop, CallArgs& args) {
  if (!loop.node->recursive)
    throw Error(ErrorKind::TypeError, "The loop must have the 'recursive' marker to be called recursively.");
  if (args.pos.size() != 1 || !args.kw.empty())
    throw Error(ErrorKind::TypeError, "loop() takes exactly one argument");
  std::string buf;
  {
    CallDepth deeper(*this, kCallSteps);
    SwapIn<Frame> in_loop_scope(cur_, loop.frame.get());
    run_loop(loop.node, args.pos[0], loop.depth0 + 1, false, &buf);
  }
  return Value::string(std::move(buf));
}

Value Interp::call_macro(MacroObj& m, CallArgs& args) {
  const MacroDef& d = *m.def;
  size_t nparams = d.params.size();
  std::vector<Value> argv(nparams);
  std::vector<bool> given(nparams, false);
  size_t npos = std::min(args.pos.size(), nparams);
  for (size_t i = 0; i < npos; ++i) {
    argv[i] = args.pos[i];
    given[i] = true;
  }
  std::vector<std::pair<std::string, Value>> kwargs = args.kw;
  bool found_caller = false;
  if (npos != nparams) {
    for (size_t i = npos; i < nparams; ++i) {
      for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
        if (it->first == d.param_names[i]) {
          argv[i] = it->second;
          given[i] = true;
          kwargs.erase(it);
          break;
        }
      }
      if (d.param_names[i] == "caller") found_caller = true;
    }
  }
  Value caller;
  bool has_caller_var = d.caller && !found_caller;
  if (has_caller_var) {
    bool got = false;
    for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
      if (it->first == "caller") {
        caller = it->second;
        kwargs.erase(it);
        got = true;
        break;
      }
    }
    if (!got) {
      auto* u = new UndefinedObj();
      u->hint = "No caller defined";
      caller = Value(u);
    }
  }
  Value kwargs_dict;
  if (d.catch_kwargs) {
    kwargs_dict = Value::dict();
    for (auto& kv : kwargs) kwargs_dict.dict_obj().set(Value::string(kv.first), kv.second);
  } else if (!kwargs.empty()) {
    for (auto& kv : kwargs)
      if (kv.first == "caller")
        throw Error(ErrorKind::TypeError, "macro " + string_repr(d.name) +
                                              " was invoked with two values for the special caller argument. This is most likely a bug.");
    throw Error(ErrorKind::TypeError, "macro " + string_repr(d.name) + " takes no keyword argument " +
                                          string_repr(kwargs.front().first));
  }
  Value varargs;
  if (d.catch_varargs) {
    std::vector<Value> rest;
    for (size_t i = nparams; i < args.pos.size(); ++i) rest.push_back(args.pos[i]);
    varargs = Value::tuple(std::move(rest));
  } else if (args.pos.size() > nparams) {
    throw Error(ErrorKind::TypeError, "macro " + string_repr(d.name) + " takes not more than " +
                                          std::to_string(nparams) + " argument(s)");
  }
  std::string buf;
  {
    CallDepth deeper(*this, kCallSteps + d.weight);
    FrameRef scope = FrameRef::make(m.closure.get());
    SwapIn<Frame> in_scope(cur_, scope.get());
    SwapIn<std::string> into_buf(out_, &buf);
    size_t first_default = nparams - d.defaults.size();
    for (size_t i = 0; i < nparams; ++i) {
      if (given[i]) {
        bind(d.params[i], argv[i]);
      } else if (i >= first_default) {
        bind(d.params[i], eval(d.defaults[i - first_default]));
      } else {
        auto* u = new UndefinedObj();
        u->hint = "parameter " + string_repr(d.param_names[i]) + " was not provided";
        bind(d.params[i], Value(u));
      }
    }
    auto sym = [&](const char* n) {
      auto it = t_.syms.ids.find(n);
      return it == t_.syms.ids.end() ? -1 : it->second;
    };
    if (has_caller_var) bind(sym("caller"), caller);
    if (d.catch_kwargs) bind(sym("kwargs"), kwargs_dict);
    if (d.catch_varargs) bind(sym("varargs"), varargs);
    exec_body(d.body);
  }
  return Value::string(std::move(buf));
}

}  // namespace toolchat::jinja
