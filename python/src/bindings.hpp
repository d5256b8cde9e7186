// What the binding files share: the Template handle and each file's bind_* function (module.cpp
// calls them in order).
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "toolchat/chat.hpp"

namespace toolchat::py {

// A loaded model template as Python's toolchat.Template holds it (shared by the Python object
// and, for render(), the cache of compiled sources).
struct TemplateHandle {
  chat::ModelTemplate model;
  jinja::RenderOptions clock;          // strftime_now's instant (load_template's now=; render() brings its own)
  std::optional<std::string> name;     // load_template's name=, else chosen per call
  std::string path;

  // Renders an oracle-form context, text only (GIL held on entry; released while rendering).
  std::string render(const Value& context, const std::optional<std::string>& template_name,
                     const jinja::RenderOptions& clock) const;
};

std::shared_ptr<TemplateHandle> load_handle(const std::string& path, const std::optional<std::string>& name,
                                            const pybind11::object& now);

void bind_templates(pybind11::module_& m);
void bind_parse(pybind11::module_& m);
void bind_convert(pybind11::module_& m);

}  // namespace toolchat::py
