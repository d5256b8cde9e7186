// The sandbox's attribute and item access (jinja2.sandbox getattr/getitem), slicing,
// calls of every callable kind, and the loop object.
#include "jinja/builtins/methods_extra.hpp"
#include "jinja/objects.hpp"
#include "jinja/render.hpp"
#include "value/pyobjects.hpp"
#include "value/pystr.hpp"

namespace toolchat::jinja {

namespace {

constexpr int64_t kGroupTupleTag = 0x47524f5550;  // set by the groupby filter

// A builtin method bound to its receiver, e.g. the value of `message.items`.
struct BoundMethodObj final : Obj {
  MethodFn fn;
  Value self;
  std::string name;
  BoundMethodObj(MethodFn f, Value s, std::string n) : Obj(ObjKind::Other), fn(f), self(std::move(s)), name(std::move(n)) {}
  // Python prints an address here; a fixed one of the usual width keeps |length exact.
  void append_repr(std::string& out) const override {
    out += "<built-in method " + name + " of " + object_type_repr(self) + " at 0x7f0000000000>";
  }
};

Value unsafe(const Value& obj, std::string_view name) {
  const char* type = obj.is_obj(ObjKind::Function) && is_class_global(*obj.as<FunctionObj>()) ? "type" : type_name(obj);
  return Value::undefined_unsafe("access to attribute " + string_repr(name) + " of " + string_repr(type) +
                                 " object is unsafe.");
}

// Python getattr(obj, name) on a builtin type, with the sandbox's safety check.
// Returns false when the type has no such attribute.
bool python_attr(Renderer& r, const Value& obj, std::string_view name, Value& out) {
  MethodFn fn = nullptr;
  switch (find_method(obj, name, &fn)) {
    case MethodLookup::Found:
      if (is_property(obj, name)) {
        CallArgs none;
        out = fn(r, obj, none);
      } else {
        out = Value(new BoundMethodObj(fn, obj, std::string(name)));
      }
      return true;
    case MethodLookup::Unsafe: out = unsafe(obj, name); return true;
    case MethodLookup::NotFound: return false;
  }
  return false;
}

int64_t as_index(const Value& v) {
  if (v.is_int() || v.is_bool()) return v.int_like();
  throw Error(ErrorKind::TypeError, "slice indices must be integers or None or have an __index__ method");
}

Value loop_cycle(Renderer&, const Value& self, CallArgs& args) {
  auto* loop = self.as<LoopObj>();
  if (args.pos.empty()) throw Error(ErrorKind::TypeError, "no items for cycling given");
  return args.pos[static_cast<size_t>(loop->index0) % args.pos.size()];
}

Value loop_changed(Renderer&, const Value& self, CallArgs& args) {
  auto* loop = self.as<LoopObj>();
  Value v = Value::tuple(args.pos);
  if (!loop->has_last_changed || !py_equal(loop->last_changed, v)) {
    loop->has_last_changed = true;
    loop->last_changed = v;
    return Value::boolean(true);
  }
  return Value::boolean(false);
}

}  // namespace

// Attributes every Python object has: on an Undefined they are found (and refused by the
// sandbox) instead of raising the undefined error.
static bool object_dunder(std::string_view n) {
  static const char* const names[] = {
      "__class__", "__init__", "__doc__", "__module__", "__repr__", "__str__", "__eq__", "__ne__",
      "__hash__", "__iter__", "__len__", "__bool__", "__getattr__", "__getattribute__", "__setattr__",
      "__delattr__", "__dir__", "__format__", "__reduce__", "__reduce_ex__", "__sizeof__",
      "__subclasshook__", "__init_subclass__", "__new__", "__slots__", "__lt__", "__le__", "__gt__",
      "__ge__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__call__",
      "__getitem__", "__contains__", "__html__", "__truediv__", "__rtruediv__", "__mod__", "__rmod__",
      "__pos__", "__neg__", "__pow__", "__rpow__", "__floordiv__", "__rfloordiv__", "__aiter__",
      "__anext__", "__await__", "__int__", "__float__", "__complex__"};
  for (const char* x : names)
    if (n == x) return true;
  return false;
}

Value Interp::getattr(const Value& obj, std::string_view name) {
  switch (obj.type()) {
    case Type::Undefined:
      if (object_dunder(name)) return unsafe(obj, name);
      raise_undefined(obj);
    case Type::Object: {
      Obj* o = obj.obj();
      if (o->kind == ObjKind::Namespace) {
        const Value* v = static_cast<NamespaceObj*>(o)->attrs.dict_obj().find(name);
        if (v) return (!name.empty() && name[0] == '_') ? unsafe(obj, name) : *v;
        return Value::undefined_attr(obj, std::string(name));
      }
      if (o->kind == ObjKind::Loop) return loop_attr(*static_cast<LoopObj*>(o), name, loop_field(name));
      if (o->kind == ObjKind::TemplateRef) return template_ref_attr(obj, name);
      if (o->kind == ObjKind::BlockRef) return block_ref_attr(obj, name);
      if (o->kind == ObjKind::Macro) {
        auto* m = static_cast<MacroObj*>(o);
        if (name == "name") return Value::string(m->def->name);
        if (name == "catch_kwargs") return Value::boolean(m->def->catch_kwargs);
        if (name == "catch_varargs") return Value::boolean(m->def->catch_varargs);
        if (name == "caller") return Value::boolean(m->def->caller);
        if (name == "arguments") {
          std::vector<Value> names;
          for (auto& n : m->def->param_names) names.push_back(Value::string(n));
          return Value::tuple(std::move(names));
        }
        if (!name.empty() && name[0] == '_') return unsafe(obj, name);
        return Value::undefined_attr(obj, std::string(name));
      }
      Value out;
      if (python_attr(*this, obj, name, out)) return out;
      return Value::undefined_attr(obj, std::string(name));
    }
    default: break;
  }
  if (obj.is_list() && obj.list_obj().lkind == ListKind::Tuple && obj.list_obj().range_start == kGroupTupleTag &&
      obj.items().size() == 2) {
    // groupby() yields namedtuples (grouper, list)
    if (name == "grouper") return obj.items()[0];
    if (name == "list") return obj.items()[1];
  }
  Value out;
  if (python_attr(*this, obj, name, out)) return out;
  if (obj.is_dict()) {
    if (const Value* v = obj.dict_obj().find(name)) return *v;
  }
  return Value::undefined_attr(obj, std::string(name));
}

Value Interp::template_ref_attr(const Value& self, std::string_view name) {
  // TemplateReference has no __getattr__: getattr fails, then self[name] looks up the block.
  if (name == "_TemplateReference__context" || object_dunder(name) || name == "__dict__" ||
      name == "__weakref__" || name == "__module__")
    return unsafe(self, name);
  for (const BodyStmt* b : t_.blocks)
    if (b->name == name) return Value(new BlockRefObj(b));
  return Value::undefined_attr(self, std::string(name));
}

Value Interp::block_ref_attr(const Value& ref, std::string_view name) {
  const BodyStmt* b = ref.as<BlockRefObj>()->block;
  if (name == "name") return Value::string(b->name);
  if (name == "super") {  // one template, no parent blocks
    auto* u = new UndefinedObj();
    u->hint = "there is no parent block called " + string_repr(b->name) + ".";
    return Value(u);
  }
  if (!name.empty() && name[0] == '_') return unsafe(ref, name);
  return Value::undefined_attr(ref, std::string(name));
}

Value Interp::getitem(const Value& obj, const Value& key) {
  if (obj.is_obj(ObjKind::TemplateRef)) {
    if (key.is_str()) return template_ref_attr(obj, key.str());
    return Value::undefined_item(obj, key);
  }
  switch (obj.type()) {
    case Type::Undefined: raise_undefined(obj);
    case Type::Dict: {
      if (py_hashable(key)) {
        if (watching_ && text_watch::holds_marker(key)) text_watch::note_inspected();  // by hash
        if (const Value* v = obj.dict_obj().find(key)) return *v;
      }
      break;
    }
    case Type::List: {
      ListKind k = obj.list_obj().lkind;
      bool indexable = k == ListKind::List || k == ListKind::Tuple || k == ListKind::Range;
      if (indexable && (key.is_int() || key.is_bool())) {
        const auto& items = obj.items();
        int64_t i = key.int_like();
        int64_t n = static_cast<int64_t>(items.size());
        if (i < 0) i += n;
        if (i >= 0 && i < n) return items[static_cast<size_t>(i)];
      }
      break;
    }
    case Type::Str:
      if (key.is_int() || key.is_bool()) {
        int64_t i = key.int_like();
        // a character of the template's own text, at the same place for any texts, or not
        if (watching_ && text_watch::holds_marker(obj.str()) &&
            !text_watch::marker_free_bound(obj.str(), i >= 0 ? i + 1 : i))
          text_watch::note_inspected();
        int64_t n = py_len(obj);
        if (i < 0) i += n;
        if (i >= 0 && i < n) {
          std::string ch = pystr::char_at(obj.str(), i);
          return obj.is_markup() ? Value::markup(std::move(ch)) : Value::string(std::move(ch));
        }
      }
      break;
    default:
      if (obj.is_obj(ObjKind::Bytes) && (key.is_int() || key.is_bool())) {
        const std::string& bytes = obj.as<BytesObj>()->b;
        int64_t i = key.int_like(), n = static_cast<int64_t>(bytes.size());
        if (i < 0) i += n;
        if (i >= 0 && i < n) return Value::integer(static_cast<unsigned char>(bytes[static_cast<size_t>(i)]));
      }
      break;
  }
  if (key.is_str()) {
    if (obj.is_object()) {
      Value v = getattr(obj, key.str());
      if (!v.is_undefined() || v.undef_info()->security) return v;
      return Value::undefined_item(obj, key);
    }
    Value out;
    if (python_attr(*this, obj, key.str(), out)) return out;
  }
  return Value::undefined_item(obj, key);
}

// The positions seq[a:b:c] takes from a sequence of n items (PySlice_AdjustIndices): the
// adjusted start, stop and step, and how many positions they give (PySlice_AdjustIndices' length).
struct SlicePositions {
  int64_t lo = 0, hi = 0, st = 1;
  size_t count() const {
    // Unsigned: a step of INT64_MIN has no negation in int64; the spans are at most n + 1.
    if (st > 0) return lo < hi ? static_cast<size_t>((static_cast<uint64_t>(hi - lo) + static_cast<uint64_t>(st) - 1) / static_cast<uint64_t>(st)) : 0;
    uint64_t step = 0 - static_cast<uint64_t>(st);
    return lo > hi ? static_cast<size_t>((static_cast<uint64_t>(lo - hi) + step - 1) / step) : 0;
  }
  // The k-th position (k < count(): k * st stays within the span).
  size_t at(size_t k) const { return static_cast<size_t>(lo + static_cast<int64_t>(k) * st); }
};

static SlicePositions slice_positions(int64_t n, std::optional<int64_t> a, std::optional<int64_t> b,
                                      std::optional<int64_t> c) {
  SlicePositions p;
  p.st = c.value_or(1);
  const int64_t st = p.st;
  auto adjust = [&](std::optional<int64_t> v, bool is_start) -> int64_t {
    if (!v) return st > 0 ? (is_start ? 0 : n) : (is_start ? n - 1 : -1);
    int64_t x = *v;
    if (x < 0) {
      x += n;
      if (x < 0) x = st > 0 ? 0 : -1;
    } else if (x >= n) {
      x = st > 0 ? n : n - 1;
    }
    return x;
  };
  p.lo = adjust(a, true);
  p.hi = adjust(b, false);
  return p;
}

// A slice of a marked str cut where the template's own text is (its bounds counted over
// template text from their end, step 1) is the same for any texts; any other is an inspection.
static void watch_slice(std::string_view s, std::optional<int64_t> a, std::optional<int64_t> b,
                        std::optional<int64_t> c) {
  if (!text_watch::holds_marker(s)) return;
  if ((c && *c != 1) || (a && !text_watch::marker_free_bound(s, *a)) || (b && !text_watch::marker_free_bound(s, *b)))
    text_watch::note_inspected();
}

Value Interp::slice(const Value& obj, const SliceExpr* s) {
  Value start = s->start ? eval(s->start) : Value::none();
  Value stop = s->stop ? eval(s->stop) : Value::none();
  Value step = s->step ? eval(s->step) : Value::none();
  if (obj.is_undefined()) raise_undefined(obj);
  auto opt = [](const Value& v) -> std::optional<int64_t> {
    if (v.is_none()) return std::nullopt;
    return as_index(v);
  };
  std::optional<int64_t> a = opt(start), b = opt(stop), c = opt(step);
  if (c && *c == 0) throw Error(ErrorKind::ValueError, "slice step cannot be zero");
  if (obj.is_str()) {  // Markup.__getitem__ keeps Markup
    charge_bytes(obj.str().size());  // code points are counted from the start
    if (watching_) watch_slice(obj.str(), a, b, c);
    std::string part = pystr::slice(obj.str(), a, b, c);
    return obj.is_markup() ? Value::markup(std::move(part)) : Value::string(std::move(part));
  }
  ListKind lk = obj.is_list() ? obj.list_obj().lkind : ListKind::List;
  if (obj.is_list() && (lk == ListKind::List || lk == ListKind::Tuple || lk == ListKind::Range)) {
    const auto& items = obj.items();
    SlicePositions pos = slice_positions(static_cast<int64_t>(items.size()), a, b, c);
    const int64_t lo = pos.lo, hi = pos.hi, st = pos.st;
    const size_t count = pos.count();
    std::vector<Value> out;
    if (st == 1) {
      out.assign(items.begin() + lo, items.begin() + lo + static_cast<int64_t>(count));
    } else {
      out.reserve(count);
      for (size_t k = 0; k < count; ++k) out.push_back(items[pos.at(k)]);
    }
    charge(out.size());
    Value r = Value::list(std::move(out), lk);
    if (lk == ListKind::Range) {
      const ListObj& src = obj.list_obj();
      ListObj& dst = r.list_obj();
      dst.range_start = src.range_start + lo * src.range_step;
      dst.range_stop = src.range_start + hi * src.range_step;
      dst.range_step = src.range_step * st;
      if (dst.items.empty()) dst.range_stop = dst.range_start;
    }
    return r;
  }
  if (obj.is_obj(ObjKind::Bytes)) {
    const std::string& bytes = obj.as<BytesObj>()->b;
    SlicePositions pos = slice_positions(static_cast<int64_t>(bytes.size()), a, b, c);
    std::string out;
    for (size_t k = 0, count = pos.count(); k < count; ++k) out += bytes[pos.at(k)];
    return make_bytes(std::move(out));
  }
  // `x[a:b]` is Python subscription in Jinja2's generated code, not environment.getitem:
  // other types raise. Only constant folding (as_const) goes through getitem's Undefined.
  if (!folding) {
    if (obj.is_dict()) throw Error(ErrorKind::TypeError, "unhashable type: 'slice'");
    throw Error(ErrorKind::TypeError, std::string("'") + type_name(obj) + "' object is not subscriptable");
  }
  std::string srepr = "slice(" + py_repr(start) + ", " + py_repr(stop) + ", " + py_repr(step) + ")";
  auto* u = new UndefinedObj();
  u->obj_type = object_type_repr(obj);
  u->name = srepr;
  u->item = true;
  return Value(u);
}

Value Interp::call(const Value& callee, CallArgs& args) {
  switch (callee.type()) {
    case Type::Undefined: raise_undefined(callee);
    case Type::Object: {
      Obj* o = callee.obj();
      charge(1);
      switch (o->kind) {
        case ObjKind::Macro: return call_macro(*static_cast<MacroObj*>(o), args);
        case ObjKind::Loop: return call_loop(*static_cast<LoopObj*>(o), args);
        case ObjKind::Joiner: return call_joiner(*static_cast<JoinerObj*>(o));
        case ObjKind::BlockRef: return render_block(static_cast<BlockRefObj*>(o)->block);
        case ObjKind::Function:
        case ObjKind::BoundMethod: {
          auto* f = static_cast<FunctionObj*>(o);
          Value v = f->fn(*this, *f, args);
          charge(built_steps(v));
          return v;
        }
        case ObjKind::Other:
          if (auto* b = dynamic_cast<BoundMethodObj*>(o)) {
            if (watching_) note_method(b->name, b->self, args);  // `{% set f = s.find %}{{ f(x) }}`
            Value v = b->fn(*this, b->self, args);
            charge(built_steps(v));
            return v;
          }
          break;
        default: break;
      }
      break;
    }
    default: break;
  }
  throw Error(ErrorKind::TypeError, std::string("'") + type_name(callee) + "' object is not callable");
}

LoopField loop_field(std::string_view name) {
  static constexpr std::pair<std::string_view, LoopField> kFields[] = {
      {"index", LoopField::Index},   {"index0", LoopField::Index0}, {"revindex", LoopField::RevIndex},
      {"revindex0", LoopField::RevIndex0}, {"first", LoopField::First}, {"last", LoopField::Last},
      {"length", LoopField::Length}, {"depth", LoopField::Depth},   {"depth0", LoopField::Depth0},
      {"previtem", LoopField::PrevItem}, {"nextitem", LoopField::NextItem}};
  for (const auto& [n, f] : kFields)
    if (n == name) return f;
  return LoopField::None;
}

Value Interp::loop_attr(LoopObj& loop, std::string_view name, LoopField field) {
  int64_t n = static_cast<int64_t>(loop.items.items().size());
  int64_t i = loop.index0;
  switch (field) {
    case LoopField::Index: return Value::integer(i + 1);
    case LoopField::Index0: return Value::integer(i);
    case LoopField::RevIndex: return Value::integer(n - i);
    case LoopField::RevIndex0: return Value::integer(n - i - 1);
    case LoopField::First: return Value::boolean(i == 0);
    case LoopField::Last: return Value::boolean(i == n - 1);
    case LoopField::Length: return Value::integer(n);
    case LoopField::Depth: return Value::integer(loop.depth0 + 1);
    case LoopField::Depth0: return Value::integer(loop.depth0);
    case LoopField::PrevItem: {
      if (i > 0) return loop.items.items()[static_cast<size_t>(i - 1)];
      auto* u = new UndefinedObj();
      u->hint = "there is no previous item";
      return Value(u);
    }
    case LoopField::NextItem: {
      if (i + 1 < n) return loop.items.items()[static_cast<size_t>(i + 1)];
      auto* u = new UndefinedObj();
      u->hint = "there is no next item";
      return Value(u);
    }
    case LoopField::None: break;
  }
  Value self(&loop);
  if (name == "cycle") return Value(new BoundMethodObj(&loop_cycle, self, "cycle"));
  if (name == "changed") return Value(new BoundMethodObj(&loop_changed, self, "changed"));
  if (!name.empty() && name[0] == '_') return unsafe(self, name);
  return Value::undefined_attr(self, std::string(name));
}

}  // namespace toolchat::jinja
