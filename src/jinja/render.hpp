// The tree-walking renderer: scopes, loops, macros, output buffers and the sandboxed
// access rules. One Interp per render call.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "jinja/ast.hpp"
#include "jinja/builtins.hpp"
#include "jinja/parser.hpp"
#include "toolchat/jinja.hpp"
#include "value/frozen.hpp"

namespace toolchat::jinja {

// One link of a comparison chain, as the renderer evaluates it (Python semantics; may throw).
bool compare_values(CmpOp op, const Value& a, const Value& b);

// What `name` is among the loop object's positional attributes (LoopField::None: another name).
LoopField loop_field(std::string_view name);

struct CompiledTemplate {
  std::shared_ptr<SourceText> source;
  Arena arena;
  SymbolTable syms;
  Body root;
  EngineLimits limits;
  int loop_sym = -1;                // symbol id of `loop`, if the template names it
  int self_sym = -1;                // symbol id of `self` (Jinja2's TemplateReference), if named
  // By symbol id: where the render variable of that name was found last time (renders of one
  // application pass variables of one shape).
  std::vector<SlotHint> var_hints;
  std::vector<bool> maybe_global;   // by symbol id: a global that must be made per render
  std::vector<Value> globals;       // by symbol id: the global of that name, or Undefined
  std::vector<const BodyStmt*> blocks;  // {% block %} statements in source order
  size_t n_maybe_global = 0;        // how many maybe_global entries are set
  std::vector<Value> undefined_var; // by symbol id: the Undefined of that name when it is not defined
  // Output capacity to reserve: about the size of a previous render's output (renders on
  // several threads share it; any value is only a guess).
  mutable std::atomic<size_t> out_hint{0};
  // Every Value above and in the tree (constants, Undefineds, globals), frozen once compiled:
  // renders on several threads copy them without touching their counts. Declared last so
  // that it thaws them before the members holding them are destroyed.
  FrozenValues frozen;
};

// A variable scope. Reference counted because macros keep their defining scope alive
// (Jinja2 macros are closures that see the current values of outer variables).
struct Frame {
  uint32_t rc = 0;
  Frame* parent = nullptr;
  std::vector<std::pair<int, Value>> vars;
};

// Released frames are kept per thread (with their vars capacity) for the next scope.
struct FramePool {
  std::vector<Frame*> free;
  ~FramePool() { for (Frame* f : free) delete f; }
};
// initial-exec, as the object pool's lists (src/value/obj_pool.cpp): in the Python module the
// default model calls __tls_get_addr on every access.
__attribute__((tls_model("initial-exec"))) inline thread_local FramePool frame_pool;

// What a render knows of one symbol: the render variable or global of that name, resolved on
// first use (nullptr: not resolved yet; points into the variables, the template's globals or
// Interp::made_), and whether any scope of this render has bound the name. A name no scope
// binds (messages, tools, bos_token, namespace ...: most lookups) skips the walk up the scopes.
struct SymSlot {
  const Value* resolved = nullptr;
  bool bound = false;
};

// Name-resolution tables (Interp::ctx_) kept per thread with their capacity.
struct CtxPool {
  std::vector<std::vector<SymSlot>> free;
  std::vector<SymSlot> take() {
    if (free.empty()) return {};
    std::vector<SymSlot> v = std::move(free.back());
    free.pop_back();
    return v;
  }
  void give(std::vector<SymSlot>&& v) {
    if (free.size() < 8 && v.capacity() <= 4096) free.push_back(std::move(v));
  }
};
__attribute__((tls_model("initial-exec"))) inline thread_local CtxPool ctx_pool;

class FrameRef {
 public:
  FrameRef() = default;
  explicit FrameRef(Frame* f) : f_(f) { if (f_) ++f_->rc; }
  FrameRef(const FrameRef& o) : f_(o.f_) { if (f_) ++f_->rc; }
  FrameRef& operator=(const FrameRef& o) { FrameRef t(o); std::swap(f_, t.f_); return *this; }
  ~FrameRef() { release(f_); }
  Frame* get() const { return f_; }
  Frame* operator->() const { return f_; }
  // The count test inline; the last reference's release (a scope ending) out of line.
  static void release(Frame* f) {
    if (f && --f->rc == 0) release_last(f);
  }
  static FrameRef make(Frame* parent) {
    Frame* f = fresh();
    f->parent = parent;
    if (parent) ++parent->rc;
    return FrameRef(f);
  }

 private:
  Frame* f_ = nullptr;
  static Frame* fresh() {
    auto& fl = frame_pool.free;
    if (fl.empty()) {
      auto* f = new Frame();
      f->vars.reserve(4);
      return f;
    }
    Frame* f = fl.back();
    fl.pop_back();
    return f;
  }
  [[gnu::noinline]] static void release_last(Frame* f) {
    while (f) {
      Frame* p = f->parent;
      recycle(f);
      f = p;
      if (!f || --f->rc != 0) return;
    }
  }
  static void recycle(Frame* f) {
    f->vars.clear();  // may release other frames (macro closures): they recycle themselves
    f->parent = nullptr;
    auto& fl = frame_pool.free;
    if (fl.size() < 64 && f->vars.capacity() <= 64) fl.push_back(f);
    else delete f;
  }
};

struct MacroObj final : Obj {
  const MacroDef* def;
  FrameRef closure;
  class Interp* owner;
  MacroObj(const MacroDef* d, FrameRef c, class Interp* o) : Obj(ObjKind::Macro), def(d), closure(std::move(c)), owner(o) {}
  void append_repr(std::string& out) const override {
    out += "<Macro ";
    out += def->name == "caller" ? "'caller'" : string_repr(def->name);
    out += ">";
  }
};

struct LoopObj final : Obj {
  const ForStmt* node = nullptr;
  Value items;  // the (filtered) sequence as a list
  int64_t index0 = 0;
  int64_t depth0 = 0;
  FrameRef frame;  // the scope the loop runs in (for recursive calls)
  bool has_last_changed = false;
  Value last_changed;
  LoopObj() : Obj(ObjKind::Loop) {}
  void append_repr(std::string& out) const override {
    out += "<LoopContext " + std::to_string(index0 + 1) + "/" + std::to_string(items.items().size()) + ">";
  }
};

// Jinja2's `self` (jinja2.runtime.TemplateReference): self.<block> / self['<block>'] give
// a BlockReference, which renders that block when called.
struct TemplateRefObj final : Obj {
  class Interp* owner;
  explicit TemplateRefObj(class Interp* o) : Obj(ObjKind::TemplateRef), owner(o) {}
  void append_repr(std::string& out) const override { out += "<TemplateReference None>"; }
};
struct BlockRefObj final : Obj {
  const BodyStmt* block;
  explicit BlockRefObj(const BodyStmt* b) : Obj(ObjKind::BlockRef), block(b) {}
  void append_repr(std::string& out) const override {
    out += "<jinja2.runtime.BlockReference object at 0x7f0000000000>";
  }
};

enum class Flow : uint8_t { Normal, Break, Continue };

// Points an interpreter slot (the current scope, the output buffer) somewhere else for the
// length of a C++ scope and puts it back when the scope ends, by return or by exception.
template <class T>
class SwapIn {
 public:
  SwapIn(T*& slot, T* value) : slot_(slot), saved_(slot) { slot_ = value; }
  ~SwapIn() { slot_ = saved_; }
  SwapIn(const SwapIn&) = delete;
  SwapIn& operator=(const SwapIn&) = delete;
  T* saved() const { return saved_; }

 private:
  T*& slot_;
  T* saved_;
};

class Interp final : public Renderer {
 public:
  // `vars` and `opts` must outlive the Interp (it keeps references).
  Interp(const CompiledTemplate& t, const Value& vars, const RenderOptions& opts);
  ~Interp() override;
  RenderResult run();
  void track_mutable(const Value& v) override { mutables_.push_back(v); }
  // Set while fold.cpp evaluates constants at compile time: subscripts follow
  // environment.getitem (Undefined) instead of Python's subscription errors.
  bool folding = false;
  // Whether the render cache watches this render (value/text_watch.hpp): read once per render,
  // so that the hot paths test a member instead of the thread-local.
  const bool watching_ = text_watch::watching();

  // Renderer interface
  Value getattr(const Value& obj, std::string_view name) override;
  Value getitem(const Value& obj, const Value& key) override;
  Value call(const Value& callee, CallArgs& args) override;
  Value call_filter(std::string_view name, const Value& v, CallArgs& args) override;
  bool call_test(std::string_view name, const Value& v, CallArgs& args) override;
  void charge(uint64_t n) override {
    steps_ += n;
    if (steps_ > limits_.max_steps) [[unlikely]] steps_exceeded();
  }
  const EngineLimits& limits() const override { return t_.limits; }

  Value call_macro(MacroObj& m, CallArgs& args);
  // self.<name>: the block's reference, or nullptr-like Undefined when there is none.
  Value template_ref_attr(const Value& self, std::string_view name);
  Value block_ref_attr(const Value& ref, std::string_view name);
  // BlockReference.__call__: the block rendered against the template-level context.
  Value render_block(const BodyStmt* block);
  // Runs a body in a fresh scope under `parent` (blocks: template-level names only).
  Flow exec_in_scope(const Body& b, Frame* parent);

 private:
  const CompiledTemplate& t_;
  const EngineLimits& limits_;
  const RenderOptions& opts_;
  std::vector<SymSlot> ctx_;  // by symbol id
  const Value& vars_;
  std::vector<Value> made_;       // globals made per render (strftime_now's clock)
  FrameRef root_;
  Frame* cur_ = nullptr;
  std::string top_out_;
  std::string* out_ = &top_out_;
  uint64_t steps_ = 0;
  size_t depth_ = 0;
  size_t cp_bytes_ = 0, cp_count_ = 0;  // code points counted in top_out_ so far
  std::vector<std::pair<size_t, size_t>> spans_;
  // Scopes closed over by macros and mutable objects: a macro stored in the scope it
  // closes over is a reference cycle, broken when the render ends.
  std::vector<FrameRef> retained_;
  std::vector<Value> mutables_;
  Value make_macro(const MacroDef* def);
  [[noreturn]] void steps_exceeded();
  // One macro or loop() call deeper for the guard's life: RecursionError past max_call_depth,
  // and the call's steps charged before it runs.
  class CallDepth {
   public:
    CallDepth(Interp& in, uint64_t steps);
    ~CallDepth() { --in_.depth_; }
    CallDepth(const CallDepth&) = delete;
    CallDepth& operator=(const CallDepth&) = delete;

   private:
    Interp& in_;
  };

  // statements (render_stmt.cpp)
  Flow exec_body(const Body& b);
  [[gnu::noinline]] Flow exec_cold(const Stmt* s);
  [[gnu::noinline]] void exec_print(const Expr* e);
  [[gnu::noinline]] void exec_set(const SetStmt* n);
  Flow exec_for(const ForStmt* f);
  Flow run_loop(const ForStmt* f, const Value& iterable, int64_t depth0, bool top, std::string* capture);
  void exec_set_target(const Expr* target, const Value& v);
  Value packed_target(const Expr* target);
  void assign(int sym, Value v);
  // A new name in the current scope (every binding goes through here: find_sym relies on it).
  template <class V>
  void bind(int sym, V&& v) {
    if (sym >= 0) ctx_[static_cast<size_t>(sym)].bound = true;  // -1: a name the template never reads
    cur_->vars.emplace_back(sym, std::forward<V>(v));
  }
  std::string capture(const Body& b, Flow* flow = nullptr);
  void write(std::string_view s) {
    // Copying is work too (checked at the next charge: a write alone is bounded by the output
    // limit); the same in write_value.
    steps_ += s.size() / kBytesPerStep;
    out_->append(s);
    if (out_->size() > limits_.max_output_bytes) check_output();
  }
  void write_value(const Value& v);
  bool write_concat(const Expr* e);
  void check_output();
  size_t top_code_points();

  // expressions (render_expr.cpp)
 public:
  Value eval(const Expr* e);
 private:
  bool truth(const Expr* e);
  [[noreturn, gnu::noinline]] void rethrow_at(const Expr* e);
  [[gnu::noinline]] Value eval_cold(const Expr* e);
  // The value a name refers to, or nullptr when it is undefined.
  const Value* find_name(const NameExpr* n) { return find_sym(n->sym); }
  const Value* find_sym(int sym) {
    const SymSlot& slot = ctx_[static_cast<size_t>(sym)];
    if (slot.bound) {
      for (Frame* f = cur_; f; f = f->parent) {
        for (auto it = f->vars.rbegin(); it != f->vars.rend(); ++it)
          if (it->first == sym) return &it->second;
      }
    }
    const Value* v = slot.resolved;
    if (!v) v = resolve(sym);
    if (v->is_undefined() && !v->obj()) return nullptr;
    return v;
  }
  const Value* resolve(int sym);
  // A name's value, or its Undefined: never null.
  const Value* borrow_name(const NameExpr* n) {
    if (const Value* v = find_name(n)) return v;
    return &t_.undefined_var[static_cast<size_t>(n->sym)];
  }
  Value lookup(const NameExpr* n) {
    if (const Value* v = find_name(n)) return *v;
    return t_.undefined_var[static_cast<size_t>(n->sym)];
  }
  // The value of a constant, a name, or a chain of constant dict keys on a name (`m.role`,
  // `m['content']`), borrowed without a copy: nothing is evaluated on the way, so no macro can
  // reassign a variable meanwhile. nullptr when the shape does not fit (or the chain meets a
  // non-dict, whose error or attribute the full eval produces). Inline for the two leaf kinds;
  // chains go out of line.
  const Value* borrow(const Expr* e) {
    switch (e->kind) {
      case EK::Const: return &static_cast<const ConstExpr*>(e)->value;
      case EK::Name: return borrow_name(static_cast<const NameExpr*>(e));
      case EK::Getattr: case EK::Getitem: return borrow_path(e);
      default: return nullptr;
    }
  }
  const Value* borrow_path(const Expr* e);
  // borrow(e), else e evaluated into `hold`: a pointer to the value either way.
  const Value* borrow_or_eval(const Expr* e, Value& hold) {
    if (const Value* v = borrow(e)) return v;
    hold = eval(e);
    return &hold;
  }
  // `obj.attr` / `obj['key']` (a constant key) when they are plain dict lookups: the item, or the
  // node's Undefined when the dict lacks it; nullptr when obj is no dict or the attribute is one
  // of dict's own (the full getattr/getitem decides). Shared by eval and borrow; dict_key only
  // for a node whose key is a constant string (its dict_missing is set).
  static const Value* dict_attr(const GetattrExpr* g, const Value& obj) {
    if (!g->dict_item_only || !obj.is_dict()) return nullptr;
    if (const Value* v = g->slot_hint.find(obj.dict_obj(), g->attr)) return v;
    return &g->dict_missing;
  }
  static const Value* dict_key(const GetitemExpr* g, const Value& obj) {
    if (!obj.is_dict()) return nullptr;
    std::string_view key = static_cast<const ConstExpr*>(g->index)->value.str();
    if (const Value* v = g->slot_hint.find(obj.dict_obj(), key)) return v;
    return &g->dict_missing;
  }
  bool eval_compare(const CompareExpr* c);
  void check_sum_size(const Value& a, const Value& b);
  Value eval_call(const CallExpr* c);
  void eval_args(const ArgList& a, CallArgs& out);
  Value eval_filter(const FilterExpr* f, const Value* operand);
  bool eval_test(const TestExpr* t);
  Value slice(const Value& obj, const SliceExpr* s);

  friend struct LoopCall;
 public:
  Value call_loop(LoopObj& loop, CallArgs& args);
  // `loop.<name>`; `field` is loop_field(name), which a compiled node knows beforehand.
  Value loop_attr(LoopObj& loop, std::string_view name, LoopField field);
};

}  // namespace toolchat::jinja
