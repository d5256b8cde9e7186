// Python objects a template can reach besides the JSON-like ones: complex numbers (from
// `**` of a negative base), bytes (str.encode()) and generators (map/select/... results).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat {

struct ComplexObj final : Obj {
  double re, im;
  ComplexObj(double r, double i) : Obj(ObjKind::Complex), re(r), im(i) {}
  void append_repr(std::string& out) const override;  // (1+2j), 2j, (-0-1j), (inf+nanj)
};

struct BytesObj final : Obj {
  std::string b;
  explicit BytesObj(std::string v) : Obj(ObjKind::Bytes), b(std::move(v)) {}
  void append_repr(std::string& out) const override;  // b'...' with Python's escapes
};

// A Python generator or iterator (map/select/... results, reversed()): consumed once. The
// items are computed when it is made; an error met while computing them is kept and raised
// when iteration reaches it, as the lazy Python generator would. `pos` is how far iteration
// has consumed it, so a second loop sees only what is left.
struct GeneratorObj final : Obj {
  const char* func;       // generator function (repr "<generator object FUNC at ...>"), or
  const char* type_name;  // "generator", or an iterator type ("list_reverseiterator")
  const char* type_repr;  // jinja2.utils.object_type_repr: "generator object", ...
  std::vector<Value> items;
  size_t pos = 0;
  std::unique_ptr<Error> error;  // raised after the last item
  GeneratorObj(const char* f, const char* t, const char* tr, std::vector<Value> v)
      : Obj(ObjKind::Generator), func(f), type_name(t), type_repr(tr), items(std::move(v)) {}
  void held_values(std::vector<const Value*>& out) const override {
    for (const Value& v : items) out.push_back(&v);
  }
  // Python prints the address; a fixed one of the usual width keeps |length exact.
  void append_repr(std::string& out) const override {
    if (func) {
      out += "<generator object ";
      out += func;
    } else {
      out += '<';
      out += type_name;
      out += " object";
    }
    out += " at 0x7f0000000000>";
  }
  // The rest of the items (raising the kept error); exhausted afterwards.
  std::vector<Value> drain();
  bool next(Value& out) {
    if (pos < items.size()) {
      out = std::move(items[pos++]);
      return true;
    }
    raise_pending();
    return false;
  }
  void raise_pending() {
    if (!error) return;
    Error e = *error;
    error.reset();
    throw e;
  }
};

inline Value make_complex(double re, double im) { return Value(new ComplexObj(re, im)); }
inline Value make_bytes(std::string b) { return Value(new BytesObj(std::move(b))); }
inline Value make_generator(const char* func, std::vector<Value> items) {
  return Value(new GeneratorObj(func, "generator", "generator object", std::move(items)));
}
// type_repr: type_name + " object".
inline Value make_iterator(const char* type_name, const char* type_repr, std::vector<Value> items) {
  return Value(new GeneratorObj(nullptr, type_name, type_repr, std::move(items)));
}

// Arithmetic when an operand is complex (the other a number or complex); `op` is one of
// "+", "-", "*", "/", "**". False when neither operand is complex.
bool complex_binop(char op, const Value& a, const Value& b, Value& out);
// complex == number / complex.
bool complex_equal(const Value& a, const Value& b);
// The name repr(c) spells that Python cannot resolve ("inf", "nanj", ...), or nullptr.
const char* complex_bad_name(const Value& c);

}  // namespace toolchat
