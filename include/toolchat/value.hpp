// The dynamic value every layer passes around: Python semantics, Jinja2's Undefined,
// shared immutable strings and containers. JSON documents, template variables, tool schemas and
// parsed arguments are all Values.
//
//   Value msg = DictBuilder().add("role", "user").add("content", "Weather in Paris?").build();
//   Value messages = ListBuilder().add(msg).build();
//   std::string_view role = msg.at("role").get_str();       // checked: Error(TypeError/KeyError)
//
// Ownership: a Value is a handle; copies share the heap object (strings, lists, dicts) through a
// reference count, and the last handle frees it. Containers are treated as immutable once shared.
// A string's bytes are read as a std::string_view (str(), get_str()) that stays valid while a
// handle to the string lives; copy it into a std::string to keep it longer.
// Thread safety: the reference count is not atomic, so a value graph belongs to one thread at a
// time (copy it with json::parse(json::dumps(v)) to hand it to another thread). The one
// exception is a frozen graph (a compiled template's constants): its objects are never counted
// nor changed, so any number of threads may read and copy it at once.
// Errors: the checked accessors (get_*, at) throw Error with the Python exception a template
// would see (TypeError, KeyError, IndexError); the unchecked ones (as_*, str(), items(),
// dict_obj()) assume the caller tested the type first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolchat/error.hpp"

namespace toolchat {

enum class Type : uint8_t { Undefined, None, Bool, Int, Float, Str, List, Dict, Object };

// Kinds of heap objects; Str/List/Dict/Undefined are the value layer's own, the rest
// belong to the engine (callables, namespace, loop, cycler, joiner, macro ...).
enum class ObjKind : uint8_t {
  Str, List, Dict, Undefined,
  Function, Macro, Namespace, Loop, Cycler, Joiner, BoundMethod, Other,
  BigInt,  // an int beyond int64 (src/value/bigint.hpp); Python type 'int'
  Complex, Bytes, Generator,  // src/value/pyobjects.hpp
  TemplateRef, BlockRef       // Jinja2's `self` and its blocks (engine)
};

class Value;

struct Obj {
  // Handles to this object; negative while it is frozen (see FrozenValues, src/value/frozen.hpp):
  // then handles neither count nor free it, so threads can share it without atomics.
  int32_t rc = 0;
  ObjKind kind;
  explicit Obj(ObjKind k) : kind(k) {}
  virtual ~Obj() = default;
  // repr() of engine objects (namespace, macro, loop ...); str() is the same for them.
  virtual void append_repr(std::string& out) const { out += "<object>"; }
  // The Values an engine object holds (bound receiver, state, items), for freezing a graph.
  virtual void held_values(std::vector<const Value*>& out) const { (void)out; }
  Obj(const Obj&) = delete;
  Obj& operator=(const Obj&) = delete;
  // Objects are made and dropped by the dozen per render: their blocks are recycled per thread
  // (src/value/obj_pool.cpp), not returned to malloc each time.
  static void* operator new(std::size_t n);
  static void operator delete(void* p, std::size_t n) noexcept;
};

// The per-thread block pool behind Obj (src/value/obj_pool.cpp), for storage that lives and dies
// with an object: a dict's entries. Small blocks are recycled per thread, larger ones are malloc's.
void* pool_allocate(std::size_t n);
void pool_release(void* p, std::size_t n) noexcept;
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() noexcept = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { pool_release(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const noexcept { return true; }
};

class Value;

// a[0..n) == b[0..n), inline for the short strings templates compare most (dict keys, roles):
// overlapping word loads instead of a memcmp call. Public for the engine's own byte compares;
// for two strings, same_text below.
inline bool same_bytes(const char* a, const char* b, size_t n) noexcept {
  if (n >= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
    std::memcpy(&x, a + n - 8, 8);
    std::memcpy(&y, b + n - 8, 8);
    if (x != y) return false;
    return n <= 16 || std::memcmp(a + 8, b + 8, n - 16) == 0;
  }
  if (n >= 4) {
    uint32_t x, y, u, w;
    std::memcpy(&x, a, 4);
    std::memcpy(&y, b, 4);
    std::memcpy(&u, a + n - 4, 4);
    std::memcpy(&w, b + n - 4, 4);
    return x == y && u == w;
  }
  // n <= 3: the first, middle and last byte are all of them.
  return n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

// a == b for two strings (dict keys, str == str): the length first, then same_bytes.
inline bool same_text(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && same_bytes(a.data(), b.data(), a.size());
}

// A str: its UTF-8 bytes live in the same block, right after the object (NUL-terminated), so a
// string costs one allocation whatever its length. Made only through StrObj::make.
struct StrObj final : Obj {
  bool markup = false;     // markupsafe.Markup: escape() result; affects + and ~ with str
  int8_t ascii = -1;       // cached: -1 unknown, 0 no, 1 yes
  // A new string of `n` bytes; `fill(char* dst)` writes exactly n bytes (the NUL is added).
  template <class Fill>
  static StrObj* make(size_t n, Fill&& fill) {
    auto* o = new (Extra{n}) StrObj(n);
    fill(o->chars());
    o->chars()[n] = '\0';
    return o;
  }
  static StrObj* make(std::string_view s) {
    return make(s.size(), [&](char* d) { if (!s.empty()) std::memcpy(d, s.data(), s.size()); });
  }
  const char* data() const { return reinterpret_cast<const char*>(this + 1); }
  size_t size() const { return size_; }
  std::string_view view() const { return {data(), size_}; }
  bool is_ascii();

  // The block's size is kept in a word before the object, where it outlives the destructor.
  struct Extra { size_t n; };
  static void* operator new(std::size_t n, Extra e);
  static void operator delete(void* p, Extra e) noexcept;  // constructor threw (it cannot)
  static void operator delete(void* p) noexcept;

 private:
  explicit StrObj(size_t n) : Obj(ObjKind::Str), size_(n) {}
  char* chars() { return reinterpret_cast<char*>(this + 1); }
  size_t size_;
};

// How a sequence prints (repr) and behaves; all are immutable for templates.
enum class ListKind : uint8_t { List, Tuple, DictKeys, DictValues, DictItems, Range };

struct ListObj final : Obj {
  std::vector<Value> items;
  ListKind lkind = ListKind::List;
  int64_t range_start = 0, range_stop = 0, range_step = 1;  // only for ListKind::Range (repr)
  std::vector<Value> range_big;  // (start, stop, step) when one is beyond int64 (repr)
  ListObj();
  ~ListObj() override;  // defined below, where Value is complete (clang 14 + libstdc++ in C++20)
};

struct DictObj;

// Jinja2 Undefined: remembers why it is undefined, to raise the exact message on use.
struct UndefinedObj final : Obj {
  std::string hint;            // explicit message (sandbox refusals), else derived
  const char* obj_type = nullptr;  // "dict object", "None", ... (null: a missing variable)
  std::string name;            // variable / attribute name, or repr of a missing item key
  bool item = false;           // missing element (name is a repr, not quoted again)
  bool security = false;       // raises SecurityError instead of UndefinedError
  UndefinedObj() : Obj(ObjKind::Undefined) {}
  std::string message() const;
};

class Value {
 public:
  Value() noexcept : t_(Type::Undefined), heap_(false) { u_.p = nullptr; }
  ~Value() { release(); }
  Value(const Value& o) noexcept : t_(o.t_), heap_(o.heap_), u_(o.u_) { retain(); }
  Value(Value&& o) noexcept : t_(o.t_), heap_(o.heap_), u_(o.u_) { o.t_ = Type::None; o.heap_ = false; }
  Value& operator=(const Value& o) noexcept {
    if (this != &o) { Value tmp(o); swap(tmp); }
    return *this;
  }
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      release();
      t_ = o.t_;
      heap_ = o.heap_;
      u_ = o.u_;
      o.t_ = Type::None;
      o.heap_ = false;
    }
    return *this;
  }
  void swap(Value& o) noexcept {
    std::swap(t_, o.t_);
    std::swap(heap_, o.heap_);
    std::swap(u_, o.u_);
  }

  static Value undefined() { return Value(); }
  static Value none() { Value v; v.t_ = Type::None; return v; }
  static Value boolean(bool b) { Value v; v.t_ = Type::Bool; v.u_.b = b; return v; }
  static Value integer(int64_t i) { Value v; v.t_ = Type::Int; v.u_.i = i; return v; }
  static Value floating(double f) { Value v; v.t_ = Type::Float; v.u_.f = f; return v; }
  static Value string(std::string_view s) { return Value(StrObj::make(s)); }
  static Value string(const char* s) { return Value(StrObj::make(std::string_view(s))); }
  // A string of `n` bytes written in place by `fill(char* dst)` (no temporary std::string).
  template <class Fill>
  static Value string(size_t n, Fill&& fill) { return Value(StrObj::make(n, std::forward<Fill>(fill))); }
  static Value markup(std::string_view s) {
    auto* o = StrObj::make(s);
    o->markup = true;
    return Value(o);
  }
  static Value list(std::vector<Value> items = {}, ListKind k = ListKind::List);
  static Value tuple(std::vector<Value> items) { return list(std::move(items), ListKind::Tuple); }
  static Value dict();
  static Value undefined_var(std::string name);
  static Value undefined_attr(const Value& obj, std::string name);
  static Value undefined_item(const Value& obj, const Value& key);
  static Value undefined_unsafe(std::string hint);
  // Takes ownership of a fresh heap object (rc 0).
  explicit Value(Obj* o) noexcept : t_(type_of(o->kind)), heap_(true) {
    u_.p = o;
    ++o->rc;
  }

  Type type() const { return t_; }
  bool is_undefined() const { return t_ == Type::Undefined; }
  bool is_none() const { return t_ == Type::None; }
  bool is_bool() const { return t_ == Type::Bool; }
  bool is_int() const { return t_ == Type::Int; }
  bool is_float() const { return t_ == Type::Float; }
  // Int, Float, Bool or a big int.
  bool is_number() const {
    return t_ == Type::Int || t_ == Type::Float || t_ == Type::Bool || is_bigint();
  }
  // An int beyond int64: Type::Object with ObjKind::BigInt (is_int() is false for it).
  bool is_bigint() const { return t_ == Type::Object && u_.p->kind == ObjKind::BigInt; }
  // Python int of any size, bool excluded.
  bool is_integer() const { return t_ == Type::Int || is_bigint(); }
  bool is_str() const { return t_ == Type::Str; }
  bool is_list() const { return t_ == Type::List; }
  bool is_dict() const { return t_ == Type::Dict; }
  bool is_object() const { return t_ == Type::Object; }
  bool is_obj(ObjKind k) const { return t_ == Type::Object && u_.p->kind == k; }

  bool as_bool() const { return u_.b; }
  int64_t as_int() const { return u_.i; }
  double as_float() const { return u_.f; }
  // Int and Bool as integer (Python bool is an int subclass); a big int raises
  // OverflowError "Python int too large to convert to C ssize_t".
  int64_t int_like() const { return t_ == Type::Int ? u_.i : int_like_slow(); }
  // float(v) of a number; a big int beyond the double range raises OverflowError
  // "int too large to convert to float".
  double to_double() const {
    if (t_ == Type::Float) return u_.f;
    if (t_ == Type::Object) return bigint_to_double();
    return static_cast<double>(int_like());
  }
  // The bytes of a str; valid while a handle to the string lives.
  std::string_view str() const { return static_cast<const StrObj*>(u_.p)->view(); }
  StrObj* str_obj() const { return static_cast<StrObj*>(u_.p); }
  bool is_markup() const { return t_ == Type::Str && str_obj()->markup; }
  ListObj& list_obj() const { return *static_cast<ListObj*>(u_.p); }
  const std::vector<Value>& items() const { return list_obj().items; }
  DictObj& dict_obj() const { return *reinterpret_cast<DictObj*>(u_.p); }
  Obj* obj() const { return u_.p; }
  template <class T> T* as() const { return static_cast<T*>(u_.p); }
  UndefinedObj* undef_info() const { return static_cast<UndefinedObj*>(u_.p); }

  // ---- checked access (value_access.cpp): Error(TypeError) naming the type found otherwise ----
  std::string_view get_str() const;
  int64_t get_int() const;      // an int (not a bool, not beyond int64)
  double get_number() const;    // an int or a float, as double
  bool get_bool() const;
  const std::vector<Value>& get_items() const;  // a list or tuple
  // A dict's value for `key`: KeyError when absent; find() returns null instead (and for non-dicts).
  const Value& at(std::string_view key) const;
  const Value* find(std::string_view key) const;
  // A list's element: IndexError when out of range.
  const Value& at(size_t index) const;

 private:
  static constexpr Type type_of(ObjKind k) noexcept {
    return k == ObjKind::Str ? Type::Str
         : k == ObjKind::List ? Type::List
         : k == ObjKind::Dict ? Type::Dict
         : k == ObjKind::Undefined ? Type::Undefined : Type::Object;
  }
  // Whether the value holds a heap object is its own byte, so that the copies and destructions
  // of plain values (the most common temporaries) cost one test, not a type range plus the
  // Undefined-with-a-reason case.
  // g++ 12 warns (-Warray-bounds) on paths it threads where a value known to hold an int meets
  // the heap_ test it cannot relate to it (f_truncate's default arguments): a path never taken.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
  void retain() const noexcept {
    if (heap_) {
      Obj* p = u_.p;
      if (p->rc >= 0) ++p->rc;
    }
  }
  void release() noexcept {
    if (heap_) {
      Obj* p = u_.p;
      if (p->rc >= 0 && --p->rc == 0) delete p;
    }
  }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  int64_t int_like_slow() const;   // bigint.cpp
  double bigint_to_double() const;  // bigint.cpp
  Type t_;
  bool heap_;  // u_.p is a counted heap object (strings, lists, dicts, Undefined with a reason ...)
  union U { bool b; int64_t i; double f; Obj* p; } u_;
};

// Insertion-ordered dict keyed by Python equality (1 == 1.0 == True share a slot).
// A dict's entries: their storage comes from the object pool, as the dict's own block does
// (small dicts, such as a conversation's messages, are made and dropped by the dozen per call).
using DictEntries = std::vector<std::pair<Value, Value>, PoolAllocator<std::pair<Value, Value>>>;

struct DictObj final : Obj {
  DictEntries entries;
  DictObj() : Obj(ObjKind::Dict) {}
  const Value* find(const Value& key) const;
  const Value* find(std::string_view key) const;
  void set(Value key, Value value);  // replaces in place, or appends
  size_t size() const { return entries.size(); }
  // Builds the lookup index now, so that later lookups only read (a frozen dict is shared
  // between threads).
  void build_index() const;
  // find(key) starting from a caller-kept slot guess: dicts of one shape (the messages of a
  // conversation) hold a key at the same slot, so one comparison usually settles it.
  const Value* find_hinted(std::string_view key, uint32_t& hint) const {
    if (hint < entries.size()) {
      const Value& k = entries[hint].first;
      if (k.is_str()) {
        if (same_text(k.str(), key)) return &entries[hint].second;
      }
    }
    int64_t i = slot_of_str(key);
    if (i < 0) return nullptr;
    hint = static_cast<uint32_t>(i);
    return &entries[static_cast<size_t>(i)].second;
  }

 private:
  mutable std::vector<int32_t> index_;  // open addressing into entries, built when large
  mutable size_t indexed_ = 0;
  void rebuild_index() const;
  int64_t slot_of(const Value& key) const;
  int64_t slot_of_str(std::string_view key) const;
};

// Builds a dict in insertion order: DictBuilder().add("type", "object").add("n", 2).build().
// A key added twice keeps its first position and its last value (as Python's dict).
class DictBuilder {
 public:
  DictBuilder() : v_(Value::dict()) {}
  // Starts from a copy of the dict `base` (its entries in order; `base` itself is not changed,
  // so a shared dict stays as its holders saw it): DictBuilder(schema).add("type", t).build().
  // Error(TypeError) when `base` is not a dict.
  explicit DictBuilder(const Value& base);
  DictBuilder& add(std::string_view key, Value value) {
    v_.dict_obj().set(Value::string(key), std::move(value));
    return *this;
  }
  // A key that already is a Value is shared, not copied (any hashable value, as Python's dict).
  DictBuilder& add(Value key, Value value) {
    v_.dict_obj().set(std::move(key), std::move(value));
    return *this;
  }
  DictBuilder& add(std::string_view key, const char* s) { return add(key, Value::string(s)); }
  DictBuilder& add(std::string_view key, std::string_view s) { return add(key, Value::string(s)); }
  DictBuilder& add(std::string_view key, const std::string& s) { return add(key, Value::string(s)); }
  DictBuilder& add(std::string_view key, bool b) { return add(key, Value::boolean(b)); }
  DictBuilder& add(std::string_view key, int i) { return add(key, Value::integer(i)); }
  DictBuilder& add(std::string_view key, int64_t i) { return add(key, Value::integer(i)); }
  DictBuilder& add(std::string_view key, double d) { return add(key, Value::floating(d)); }
  Value build() { return std::move(v_); }

 private:
  Value v_;
};

// Builds a list: ListBuilder().add("a").add(1).build().
class ListBuilder {
 public:
  ListBuilder& add(Value value) { items_.push_back(std::move(value)); return *this; }
  ListBuilder& add(const char* s) { return add(Value::string(s)); }
  ListBuilder& add(std::string_view s) { return add(Value::string(s)); }
  ListBuilder& add(const std::string& s) { return add(Value::string(s)); }
  ListBuilder& add(bool b) { return add(Value::boolean(b)); }
  ListBuilder& add(int i) { return add(Value::integer(i)); }
  ListBuilder& add(int64_t i) { return add(Value::integer(i)); }
  ListBuilder& add(double d) { return add(Value::floating(d)); }
  Value build() { return Value::list(std::move(items_)); }

 private:
  std::vector<Value> items_;
};

// ---- Python semantics (value_ops.cpp, value_repr.cpp) ----
size_t py_hash(const Value& v);          // consistent with py_equal for hashable values
// bool(v); raises nothing: Undefined is falsy. Inline: every `if` and `and`/`or` of a template
// asks it (the few object kinds with a truth of their own are looked at out of line).
bool truthy_object(const Value& v);
inline bool truthy(const Value& v) {
  switch (v.type()) {
    case Type::Undefined: case Type::None: return false;
    case Type::Bool: return v.as_bool();
    case Type::Int: return v.as_int() != 0;
    case Type::Float: return v.as_float() != 0.0;
    case Type::Str: return !v.str().empty();
    case Type::List: return !v.items().empty();
    case Type::Dict: return v.dict_obj().size() != 0;
    case Type::Object: return truthy_object(v);
  }
  return true;
}
bool py_equal(const Value& a, const Value& b);
// The ordering operators of Python's rich comparison.
enum class Order : uint8_t { Lt, Le, Gt, Ge };
// a OP b with Python's rules (exact between ints and floats, a NaN unordered, sequences by
// their first unequal item then by length); TypeError "'<=' not supported between instances
// of ..." for unorderable pairs, an Undefined operand raises its own error.
bool py_order(Order op, const Value& a, const Value& b);
bool py_less(const Value& a, const Value& b);  // py_order(Order::Lt, a, b)
// hash(v) would succeed: not a dict or list, nor a tuple holding one (ranges hash).
bool py_hashable(const Value& v);
// TypeError "unhashable type: 'list'" (the innermost offending type, as CPython names it).
void check_hashable(const Value& v);
int py_compare(const Value& a, const Value& b);  // -1/0/1 via py_less/py_equal (sorting)
// Exact comparison of two numbers (is_number(): int, big int, float, bool) as Python does it,
// never through a lossy double: -1, 0, 1, or 2 when unordered (a NaN).
int py_num_compare(const Value& a, const Value& b);
const char* type_name(const Value& v);           // Python's type(v).__name__: 'str', 'int', ...
// jinja2.utils.object_type_repr: "None", "dict object", "str object", ...
const char* object_type_repr(const Value& v);
std::string py_str(const Value& v);              // str(v)
void py_str_append(std::string& out, const Value& v);
std::string py_repr(const Value& v);             // repr(v)
void py_repr_append(std::string& out, const Value& v);
std::string float_repr(double d);                // Python repr(float)
std::string string_repr(std::string_view s);     // Python repr(str)

// Arithmetic with Python semantics; throws Error(TypeError / ZeroDivisionError / OverflowError).
Value py_add(const Value& a, const Value& b);
Value py_sub(const Value& a, const Value& b);
Value py_mul(const Value& a, const Value& b);
Value py_truediv(const Value& a, const Value& b);
Value py_floordiv(const Value& a, const Value& b);
Value py_mod(const Value& a, const Value& b);
Value py_pow(const Value& a, const Value& b);
Value py_neg(const Value& a);
Value py_pos(const Value& a);
bool py_contains(const Value& container, const Value& item);  // `item in container`
int64_t py_len(const Value& v);                                // TypeError when unsized

// markupsafe.escape of plain text: & < > " ' as HTML entities.
void html_escape_append(std::string& out, std::string_view s);

// Raises the error an Undefined value carries (UndefinedError or SecurityError).
[[noreturn]] void raise_undefined(const Value& v);

inline ListObj::ListObj() : Obj(ObjKind::List) {}
inline ListObj::~ListObj() = default;

}  // namespace toolchat
