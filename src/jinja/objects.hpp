// Engine objects that templates can hold as values: functions (globals and bound
// methods), namespace(), cycler(), joiner(). Macros and loop objects live in the renderer.
#pragma once

#include <string>

#include "jinja/builtins.hpp"
#include "toolchat/value.hpp"

namespace toolchat::jinja {

// A callable builtin. `self` is the bound receiver for methods (Undefined otherwise);
// `state` carries per-object data for callables that need it.
struct FunctionObj final : Obj {
  using Fn = Value (*)(Renderer&, FunctionObj& fn, CallArgs& args);
  Fn fn;
  std::string name;
  Value self;
  Value state;
  FunctionObj(Fn f, std::string n, Value s = Value(), ObjKind k = ObjKind::Function)
      : Obj(k), fn(f), name(std::move(n)), self(std::move(s)) {}
  void held_values(std::vector<const Value*>& out) const override {
    out.push_back(&self);
    out.push_back(&state);
  }
  void append_repr(std::string& out) const override {
    // Python prints an address here; a fixed one of the usual width keeps |length exact.
    if (kind == ObjKind::BoundMethod) out += "<built-in method " + name + " at 0x7f0000000000>";
    else out += "<function " + name + " at 0x7f0000000000>";
  }
};

// namespace(...): the one mutable object templates have ({% set ns.x = ... %}).
struct NamespaceObj final : Obj {
  Value attrs = Value::dict();
  NamespaceObj() : Obj(ObjKind::Namespace) {}
  void held_values(std::vector<const Value*>& out) const override { out.push_back(&attrs); }
  void append_repr(std::string& out) const override {
    out += "<Namespace ";
    py_repr_append(out, attrs);
    out += ">";
  }
};

struct CyclerObj final : Obj {
  std::vector<Value> items;
  size_t pos = 0;
  CyclerObj() : Obj(ObjKind::Cycler) {}
  void held_values(std::vector<const Value*>& out) const override {
    for (const Value& v : items) out.push_back(&v);
  }
  void append_repr(std::string& out) const override { out += "<jinja2.utils.Cycler object>"; }
};

struct JoinerObj final : Obj {
  std::string sep;
  bool used = false;
  JoinerObj() : Obj(ObjKind::Joiner) {}
  void append_repr(std::string& out) const override { out += "<jinja2.utils.Joiner object>"; }
};

}  // namespace toolchat::jinja
