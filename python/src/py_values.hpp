// Python objects <-> toolchat Values, for the module's arguments and results. Called with the GIL
// held. A Python object that is not a JSON-like value (dict, list, tuple, str, int, float, bool,
// None) raises TypeError naming where it is ("messages[2].content: expected ..."); nesting deeper
// than kMaxDepth (a container that holds itself) raises ValueError, likewise placed.
#pragma once

#include <Python.h>

#include <string>
#include <string_view>

#include "toolchat/value.hpp"

namespace toolchat::py {

constexpr int kMaxDepth = 512;

// Converts the arguments of one call. Dict keys come from a process-wide table of frozen strings
// (see shared_key in py_values.cpp): a conversation repeats the same few keys ("role", "content",
// "type" ...) in every message and every call, so each is converted once per process.
class Converter {
 public:
  Converter() = default;
  Converter(const Converter&) = delete;
  Converter& operator=(const Converter&) = delete;
  // `root` names the argument in error messages ("messages", "rows[3]").
  Value operator()(PyObject* obj, std::string_view root);

 private:
  Value convert(PyObject* o, int depth);
  Value dict(PyObject* o, int depth);
  Value sequence(PyObject* o, int depth);
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
