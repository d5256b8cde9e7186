// The extension module toolchat._core; python/toolchat/__init__.py re-exports it.
#include <pybind11/pybind11.h>

#include "bindings.hpp"
#include "py_errors.hpp"

PYBIND11_MODULE(_core, m) {
  m.doc() = "toolchat's C++ core: chat templates rendered as transformers does, tool-call parsing, training-data conversion.";
  m.attr("__version__") = TOOLCHAT_VERSION;
  toolchat::py::register_error_translator();
  toolchat::py::bind_templates(m);
  toolchat::py::bind_parse(m);
  toolchat::py::bind_convert(m);
}
