// Internal helpers shared by methods.cpp / methods_str.cpp / methods_misc.cpp:
// CPython's argument-count messages for builtin methods, and the per-type tables.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "jinja/builtins.hpp"
#include "value/pystr.hpp"

namespace toolchat::jinja::mimpl {

[[noreturn]] void type_error(std::string msg);
[[noreturn]] void value_error(std::string msg);
// Converts a pystr::PyError into Error with the matching kind.
[[noreturn]] void rethrow_py(const pystr::PyError& e);

// METH_NOARGS: "str.upper() takes no arguments (1 given)".
void no_args(const char* qual, const CallArgs& a);
// METH_O: "str.zfill() takes exactly one argument (0 given)".
void one_arg(const char* qual, const CallArgs& a);
// Argument Clinic, positional only: "center expected at least 1 argument, got 0".
void clinic_pos(const char* name, const char* qual, const CallArgs& a, size_t min, size_t max);
// PyArg_ParseTuple: "find() takes at least 1 argument (0 given)".
void parse_tuple(const char* name, const CallArgs& a, size_t min, size_t max);
// Argument Clinic with keywords: binds into out[0..names.size()), absent -> nullopt.
void clinic_kw(const char* name, const CallArgs& a, std::initializer_list<const char*> names,
               std::optional<Value>* out);

// Python's __index__ conversion: "'str' object cannot be interpreted as an integer".
int64_t as_index(const Value& v);
// Slice indices of str methods (None allowed).
pystr::Index slice_index(const Value& v);

// Per-type lookups (return NotFound when the name is not an attribute of the type).
MethodLookup find_str_method(const Value& self, std::string_view name, MethodFn* out);
MethodLookup find_misc_method(const Value& self, std::string_view name, MethodFn* out);

// The str argument, or TypeError prefix + type name.
std::string_view req_str(const Value& v, const char* prefix);
// Python codec name normalised to "utf-8" / "ascii" / "latin-1", or "" when unsupported.
std::string norm_encoding(std::string e);

// encode()/decode() arguments (encoding, errors): the normalised codec; ValueError when unknown.
std::string codec_args(const char* name, const CallArgs& a, std::string& errors);

// Is `name` in a space-separated word list?
bool in_words(std::string_view words, std::string_view name);

}  // namespace toolchat::jinja::mimpl
