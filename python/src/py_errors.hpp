// toolchat::Error -> the Python exception transformers would see: toolchat.TemplateError and its
// subclasses named as Jinja2's (TemplateSyntaxError with lineno ...), toolchat.LimitError, or the
// builtin class the template's operation raised (TypeError, KeyError ...). The position, when the
// error has one, is on the exception as lineno / colno / name and as a note with the source line
// and a caret (python/toolchat/_errors.py builds the instance).
#pragma once

#include <Python.h>

#include <string>

#include "toolchat/error.hpp"

namespace toolchat::py {

// Sets the Python error indicator (GIL held); `prefix` is put before the message ("rows[3]: ").
void set_python_error(const Error& e, const std::string& prefix = "");
// set_python_error, then pybind11::error_already_set.
[[noreturn]] void raise_python_error(const Error& e, const std::string& prefix = "");
// The Python exception class for an error kind (a borrowed reference).
PyObject* exception_class(ErrorKind kind);

// Every toolchat::Error escaping a binding becomes its Python exception.
void register_error_translator();

}  // namespace toolchat::py
