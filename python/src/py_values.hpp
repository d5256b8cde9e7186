// Python objects <-> toolchat Values, for the module's arguments and results. Called with the GIL
// held. A Python object that is not a JSON-like value (dict, list, tuple, str, int, float, bool,
// None) raises TypeError naming where it is ("messages[2].content: expected ..."); nesting deeper
// than kMaxDepth (a container that holds itself) raises ValueError, likewise placed.
#pragma once

#include <Python.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "toolchat/value.hpp"

namespace toolchat::py {

constexpr int kMaxDepth = 512;

// Converts the arguments of one call. Dict keys are converted once per key object: a conversation
// repeats the same key objects ("role", "content", "type" ... interned by Python, or shared by one
// json.loads), so each becomes one shared string. The table holds a reference to each key object,
// so that its address stays its own; destroyed with the GIL held (the Values it made may be freed
// without it, on the same thread, as long as it lives).
class Converter {
 public:
  Converter() = default;
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  ~Converter();
  // `root` names the argument in error messages ("messages", "rows[3]").
  Value operator()(PyObject* obj, std::string_view root);

 private:
  Value convert(PyObject* o, int depth);
  Value dict(PyObject* o, int depth);
  Value sequence(PyObject* o, int depth);
  // The key object's Value when the table has it (inline: most keys of a call are seen before).
  const Value* known_key(PyObject* k) const {
    for (unsigned i = home(k);; i = (i + 1) % kSlots) {  // the table is never full
      if (key_obj_[i] == k) return &key_value_[i].value;
      if (!key_obj_[i]) return nullptr;
    }
  }
  Value new_key(PyObject* k);  // converted, and kept while the table has room
  // The slot a key object's address starts at (addresses of one size class differ in few bits:
  // a multiplicative hash spreads them).
  static unsigned home(PyObject* k) {
    return static_cast<unsigned>((reinterpret_cast<uintptr_t>(k) * 0x9E3779B97F4A7C15ull) >> 58);
  }
  // Open addressing on the key object's address; at most kMaxKeys keys are kept (a call with
  // more distinct keys converts the others each time they occur).
  static constexpr unsigned kSlots = 64, kMaxKeys = 40;
  static_assert(kSlots == 64, "home() gives 6 bits");
  PyObject* key_obj_[kSlots] = {};
  union Slot {  // constructed where key_obj_ is set
    Value value;
    Slot() {}
    ~Slot() {}
  };
  Slot key_value_[kSlots];
  uint8_t used_[kMaxKeys];  // the slots set, for the destructor
  unsigned nkeys_ = 0;
};

// One argument on its own (a Converter for it alone).
Value to_value(PyObject* obj, std::string_view root);
// A new reference (nullptr with a Python error set when allocation fails).
PyObject* to_python(const Value& v);

// A Python str as UTF-8; lone surrogates become the 3-byte sequences toolchat strings hold them
// as (WTF-8, "surrogatepass"). Throws pybind11::error_already_set on failure.
std::string utf8(PyObject* str);
// A Python str (or subclass: its characters) as a string Value, as utf8() encodes it.
Value str_value(PyObject* str);
// A UTF-8 (or WTF-8) string as a Python str.
PyObject* to_str(std::string_view s);

}  // namespace toolchat::py
