#include "py_errors.hpp"

#include <pybind11/pybind11.h>

#include "py_values.hpp"

namespace toolchat::py {

namespace pyb = pybind11;

namespace {

// Kinds toolchat._errors defines a class for: Jinja2's (is_jinja_error_kind), plus toolchat's own
// LimitError, which a template reaching a limit and an input over one both raise.
bool has_toolchat_class(ErrorKind k) { return is_jinja_error_kind(k) || k == ErrorKind::LimitError; }

PyObject* builtin_class(ErrorKind k) {
  switch (k) {
    case ErrorKind::TypeError: return PyExc_TypeError;
    case ErrorKind::KeyError: return PyExc_KeyError;
    case ErrorKind::IndexError: return PyExc_IndexError;
    case ErrorKind::AttributeError: return PyExc_AttributeError;
    case ErrorKind::ZeroDivisionError: return PyExc_ZeroDivisionError;
    case ErrorKind::OverflowError: return PyExc_OverflowError;
    case ErrorKind::RecursionError: return PyExc_RecursionError;
    case ErrorKind::MemoryError: return PyExc_MemoryError;
    case ErrorKind::RuntimeError: return PyExc_RuntimeError;
    case ErrorKind::AssertionError: return PyExc_AssertionError;
    case ErrorKind::NameError: return PyExc_NameError;
    case ErrorKind::SyntaxError: return PyExc_SyntaxError;
    case ErrorKind::LookupError: return PyExc_LookupError;
    // json.JSONDecodeError and the Unicode errors are ValueErrors whose constructors want the
    // document and offsets; the message already carries them.
    case ErrorKind::JSONDecodeError:
    case ErrorKind::UnicodeDecodeError:
    case ErrorKind::UnicodeEncodeError:
    case ErrorKind::ValueError: return PyExc_ValueError;
    // A file that cannot be read is Python's OSError (FileNotFoundError, IsADirectoryError are its
    // subclasses); a model folder without a template or a bad setting is a ValueError, as
    // transformers raises for a tokenizer without a chat template.
    case ErrorKind::OSError: return PyExc_OSError;
    case ErrorKind::ConfigError: return PyExc_ValueError;
    case ErrorKind::InternalError:
    default: return PyExc_RuntimeError;
  }
}

pyb::module_& errors_module() {
  // Imported once, under the GIL, and kept for the life of the interpreter.
  static pyb::module_* m = new pyb::module_(pyb::module_::import("toolchat._errors"));
  return *m;
}

}  // namespace

PyObject* exception_class(ErrorKind kind) {
  if (!has_toolchat_class(kind)) return builtin_class(kind);
  return errors_module().attr(error_kind_name(kind)).ptr();
}

void set_python_error(const Error& e, const std::string& prefix) {
  try {
    pyb::object line = pyb::none(), col = pyb::none(), name = pyb::none(), note = pyb::none();
    if (e.has_position() && e.source()) {
      auto [l, c] = e.source()->line_col(e.offset());
      line = pyb::int_(l);
      col = pyb::int_(c);
      if (!e.source()->name.empty()) name = pyb::reinterpret_steal<pyb::object>(to_str(e.source()->name));
      note = pyb::reinterpret_steal<pyb::object>(to_str(e.describe()));
    }
    pyb::object message = pyb::reinterpret_steal<pyb::object>(to_str(prefix + e.message()));
    pyb::object cls = pyb::reinterpret_borrow<pyb::object>(exception_class(e.kind()));
    pyb::object exc = errors_module().attr("_make")(cls, message, line, col, name, note);
    PyErr_SetObject(cls.ptr(), exc.ptr());
  } catch (pyb::error_already_set& err) {
    err.restore();  // building the exception failed: that failure is the error raised
  }
}

void raise_python_error(const Error& e, const std::string& prefix) {
  set_python_error(e, prefix);
  throw pyb::error_already_set();
}

void register_error_translator() {
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      set_python_error(e);
    }
  });
}

}  // namespace toolchat::py
