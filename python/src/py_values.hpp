// Python objects <-> toolchat Values, for the module's arguments and results. Called with the GIL
// held. A Python object that is not a JSON-like value (dict, list, tuple, str, int, float, bool,
// None) raises TypeError naming where it is ("messages[2].content: expected ..."); nesting deeper
// than kMaxDepth (a container that holds itself) raises ValueError, likewise placed.
#pragma once

#include <Python.h>

#include <string>

#include "toolchat/value.hpp"

namespace toolchat::py {

constexpr int kMaxDepth = 512;

// `root` names the argument in error messages ("messages", "rows[3]").
Value to_value(PyObject* obj, const std::string& root);
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
