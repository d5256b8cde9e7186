// The template's syntax tree. Every node records its byte offset for error positions;
// names are interned to symbol ids and filters/tests resolved to functions at compile time.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::jinja {

struct CallArgs;
class Renderer;
using FilterFn = Value (*)(Renderer&, const Value& self, CallArgs& args);
using TestFn = bool (*)(Renderer&, const Value& self, CallArgs& args);

enum class EK : uint8_t {
  Const, Name, List, Tuple, Dict, Getattr, Getitem, Slice,
  Not, Neg, Pos, Binary, And, Or, Concat, Compare, Cond, Call, Filter, Test, NSRef,
  Raise  // placed by const folding (fold.cpp): raises a fixed error when evaluated
};

enum class BinOp : uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow };
enum class CmpOp : uint8_t { Eq, Ne, Lt, LtEq, Gt, GtEq, In, NotIn };

struct Expr {
  EK kind;
  uint32_t pos;
  Expr(EK k, uint32_t p) : kind(k), pos(p) {}
  virtual ~Expr() = default;
};

// Where a constant key was last found in a dict (DictObj::find_hinted): dicts of one shape
// hold it at the same slot. Renders of one template on several threads share the node, so the
// hint is a relaxed atomic: any value is only a guess, and on x86 the load and store are plain.
class SlotHint {
 public:
  const Value* find(const DictObj& d, std::string_view key) const {
    uint32_t h = h_.load(std::memory_order_relaxed);
    uint32_t was = h;
    const Value* v = d.find_hinted(key, h);
    if (h != was) h_.store(h, std::memory_order_relaxed);
    return v;
  }

 private:
  mutable std::atomic<uint32_t> h_{0};
};

struct ConstExpr : Expr { Value value; ConstExpr(uint32_t p, Value v) : Expr(EK::Const, p), value(std::move(v)) {} };
struct NameExpr : Expr {
  int sym;
  std::string name;
  NameExpr(uint32_t p, int s, std::string n) : Expr(EK::Name, p), sym(s), name(std::move(n)) {}
};
struct SeqExpr : Expr { std::vector<Expr*> items; SeqExpr(EK k, uint32_t p) : Expr(k, p) {} };
struct DictExpr : Expr { std::vector<std::pair<Expr*, Expr*>> items; explicit DictExpr(uint32_t p) : Expr(EK::Dict, p) {} };
// The attributes of a for-loop's `loop` object that are computed from its position.
enum class LoopField : uint8_t {
  None, Index, Index0, RevIndex, RevIndex0, First, Last, Length, Depth, Depth0, PrevItem, NextItem
};

struct GetattrExpr : Expr {
  Expr* obj; std::string attr; Value attr_value;
  LoopField loop_field = LoopField::None;  // what `attr` names on a loop object (set when compiled)
  // Set once compiled (specialise_nodes) when every link down from a name or constant is a plain
  // dict lookup (`m.function.name`): the root, then the links in the order they are walked.
  std::vector<const Expr*> key_path;
  bool dict_item_only = false;  // `attr` is no attribute of dict: on a dict it is a plain key lookup
  Value dict_missing;           // the Undefined for a dict without that key (built once)
  SlotHint slot_hint;
  GetattrExpr(uint32_t p, Expr* o, std::string a) : Expr(EK::Getattr, p), obj(o), attr(std::move(a)), attr_value(Value::string(attr)) {}
};
struct GetitemExpr : Expr {
  Expr* obj;
  Expr* index;
  // For `x['key']` with a constant string key that names no dict method: the Undefined for
  // a dict without that key (built once); otherwise a null Undefined.
  Value dict_missing;
  // For a constant string key that names no str method: the Undefined of a plain str without
  // it (`content['text']` where content is a str), built once; otherwise a null Undefined.
  Value str_missing;
  SlotHint slot_hint;  // for a constant string key
  std::vector<const Expr*> key_path;  // as GetattrExpr::key_path
  GetitemExpr(uint32_t p, Expr* o, Expr* i) : Expr(EK::Getitem, p), obj(o), index(i) {}
};
struct SliceExpr : Expr { Expr* start = nullptr; Expr* stop = nullptr; Expr* step = nullptr; explicit SliceExpr(uint32_t p) : Expr(EK::Slice, p) {} };
struct UnaryExpr : Expr { Expr* operand; UnaryExpr(EK k, uint32_t p, Expr* o) : Expr(k, p), operand(o) {} };
struct BinaryExpr : Expr {
  BinOp op; Expr* left; Expr* right;
  // Set once compiled (specialise_nodes) on a printed `a + b + c ...` (2 to 15 additions): the
  // operands, rightmost first, which the output is written from.
  std::vector<const Expr*> printed_sum;
  BinaryExpr(uint32_t p, BinOp o, Expr* l, Expr* r) : Expr(EK::Binary, p), op(o), left(l), right(r) {} };
struct LogicExpr : Expr { Expr* left; Expr* right; LogicExpr(EK k, uint32_t p, Expr* l, Expr* r) : Expr(k, p), left(l), right(r) {} };
struct CompareExpr : Expr {
  Expr* first; std::vector<std::pair<CmpOp, Expr*>> ops;
  // Set once compiled (specialise_nodes): one comparison with a constant right operand
  // (`m.role == 'user'`, `x in ['a', 'b']`), evaluated without the chain's temporaries.
  bool one_const = false;
  CompareExpr(uint32_t p, Expr* f) : Expr(EK::Compare, p), first(f) {} };
struct CondExpr : Expr {
  Expr* test; Expr* then; Expr* otherwise; uint32_t line = 0;
  Value missing;  // without else: the Undefined of a false test (built at compile time)
  CondExpr(uint32_t p, Expr* t, Expr* a, Expr* b) : Expr(EK::Cond, p), test(t), then(a), otherwise(b) {} };

struct Keyword { std::string name; Expr* value; };
struct ArgList {
  std::vector<Expr*> args;
  std::vector<Keyword> kwargs;
  Expr* dyn_args = nullptr;
  Expr* dyn_kwargs = nullptr;
};

struct CallExpr : Expr {
  Expr* callee; ArgList a;
  // For `s.name(...)` on a plain str: the method found last time (a name picks the same method on
  // every plain str). Relaxed: renders on several threads store the same pointer.
  mutable std::atomic<FilterFn> str_method{nullptr};
  CallExpr(uint32_t p, Expr* c) : Expr(EK::Call, p), callee(c) {}
};
struct FilterExpr : Expr {
  Expr* operand;  // null in filter blocks / set blocks: the body's output is the operand
  std::string name; ArgList a;
  FilterFn fn = nullptr;  // null: unknown filter, raises when evaluated
  FilterExpr(uint32_t p, Expr* o, std::string n) : Expr(EK::Filter, p), operand(o), name(std::move(n)) {}
};
struct TestExpr : Expr {
  Expr* operand; std::string name; ArgList a;
  TestFn fn = nullptr;
  uint8_t simple = 0;  // argument-free `defined` (1), `undefined` (2), `none` (3): checked inline
  TestExpr(uint32_t p, Expr* o, std::string n) : Expr(EK::Test, p), operand(o), name(std::move(n)) {}
};
// Jinja2 writes a folded constant into its generated Python code as repr(value); for a float
// inf/nan that is the bare name `inf`/`nan`, a NameError when that code runs (fold.cpp).
struct RaiseExpr : Expr {
  ErrorKind error; std::string message;
  RaiseExpr(uint32_t p, ErrorKind k, std::string m) : Expr(EK::Raise, p), error(k), message(std::move(m)) {}
};
struct NSRefExpr : Expr { int sym; std::string name; std::string attr; NSRefExpr(uint32_t p, int s, std::string n, std::string a) : Expr(EK::NSRef, p), sym(s), name(std::move(n)), attr(std::move(a)) {} };

// ---- statements ----

enum class SK : uint8_t {
  Text, Print, If, For, Set, SetBlock, Macro, CallBlock, FilterBlock, With, Break, Continue,
  Generation, Block, Unsupported
};

struct Stmt {
  SK kind;
  uint32_t pos;
  Stmt(SK k, uint32_t p) : kind(k), pos(p) {}
  virtual ~Stmt() = default;
};
using Body = std::vector<Stmt*>;

struct TextStmt : Stmt { std::string text; TextStmt(uint32_t p, std::string t) : Stmt(SK::Text, p), text(std::move(t)) {} };
struct PrintStmt : Stmt { Expr* expr; PrintStmt(uint32_t p, Expr* e) : Stmt(SK::Print, p), expr(e) {} };
struct IfStmt : Stmt {
  std::vector<std::pair<Expr*, Body>> branches;  // if + elifs
  Body else_body;
  explicit IfStmt(uint32_t p) : Stmt(SK::If, p) {}
};
struct ForStmt : Stmt {
  Expr* target; Expr* iter; Expr* filter = nullptr;
  Body body, else_body;
  bool recursive = false;
  bool uses_loop = true;
  // Nodes one iteration evaluates at most (filter + body, without nested loop bodies and
  // macro bodies, which are charged on their own): the steps an iteration costs.
  uint32_t weight = 0;
  ForStmt(uint32_t p, Expr* t, Expr* i) : Stmt(SK::For, p), target(t), iter(i) {}
};
struct SetStmt : Stmt { Expr* target; Expr* value; SetStmt(uint32_t p, Expr* t, Expr* v) : Stmt(SK::Set, p), target(t), value(v) {} };
struct SetBlockStmt : Stmt { Expr* target; FilterExpr* filter = nullptr; Body body; SetBlockStmt(uint32_t p, Expr* t) : Stmt(SK::SetBlock, p), target(t) {} };

struct MacroDef {
  std::string name;
  std::vector<int> params;            // symbol ids
  std::vector<std::string> param_names;
  std::vector<Expr*> defaults;        // aligned to the last params
  Body body;
  bool catch_varargs = false, catch_kwargs = false, caller = false;
  uint32_t pos = 0;
  uint32_t weight = 0;  // nodes one call evaluates at most (defaults + body), as ForStmt::weight

};
struct MacroStmt : Stmt { int sym; MacroDef def; MacroStmt(uint32_t p, int s) : Stmt(SK::Macro, p), sym(s) {} };
struct CallBlockStmt : Stmt { CallExpr* call; MacroDef def; CallBlockStmt(uint32_t p) : Stmt(SK::CallBlock, p), call(nullptr) {} };
struct FilterBlockStmt : Stmt { FilterExpr* filter = nullptr; Body body; explicit FilterBlockStmt(uint32_t p) : Stmt(SK::FilterBlock, p) {} };
struct WithStmt : Stmt { std::vector<std::pair<Expr*, Expr*>> assigns; Body body; explicit WithStmt(uint32_t p) : Stmt(SK::With, p) {} };
struct BodyStmt : Stmt { Body body; std::string name; bool scoped = false; BodyStmt(SK k, uint32_t p) : Stmt(k, p) {} };  // generation, block
struct UnsupportedStmt : Stmt { std::string what; UnsupportedStmt(uint32_t p, std::string w) : Stmt(SK::Unsupported, p), what(std::move(w)) {} };

// Owns every node of one template.
struct Arena {
  std::vector<std::unique_ptr<Expr>> exprs;
  std::vector<std::unique_ptr<Stmt>> stmts;
  template <class T, class... A> T* expr(A&&... a) {
    auto p = std::make_unique<T>(std::forward<A>(a)...);
    T* r = p.get();
    exprs.push_back(std::move(p));
    return r;
  }
  template <class T, class... A> T* stmt(A&&... a) {
    auto p = std::make_unique<T>(std::forward<A>(a)...);
    T* r = p.get();
    stmts.push_back(std::move(p));
    return r;
  }
};

}  // namespace toolchat::jinja
