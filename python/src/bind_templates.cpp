// render(), load_template() and Template: the chat layer's ModelTemplate behind transformers'
// apply_chat_template signature.
#include <pybind11/pybind11.h>
// after pybind11 (which includes Python.h first)
#include <datetime.h>
#include <pybind11/stl.h>

#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "bindings.hpp"
#include "py_errors.hpp"
#include "py_values.hpp"
#include "toolchat/chat.hpp"
#include "toolchat/dialects.hpp"

namespace toolchat::py {

namespace pyb = pybind11;

namespace {

// strftime_now's clock from `now`: None (the CLI's default instant), "real", an ISO string
// (read by datetime.fromisoformat, as the oracle reads --now) or a datetime.
jinja::RenderOptions clock_from(const pyb::object& now) {
  jinja::RenderOptions o;
  if (now.is_none()) return o;
  pyb::object dt = now;
  if (pyb::isinstance<pyb::str>(now)) {
    if (now.cast<std::string>() == "real") {
      o.fixed_now = false;
      return o;
    }
    pyb::object cls = pyb::module_::import("datetime").attr("datetime");
    try {
      dt = cls.attr("fromisoformat")(now);
    } catch (pyb::error_already_set& e) {
      throw pyb::value_error("now: " + std::string(pyb::str(e.value())));
    }
  }
  if (!PyDateTimeAPI) PyDateTime_IMPORT;
  if (PyDateTime_Check(dt.ptr())) {
    PyObject* p = dt.ptr();
    o.year = PyDateTime_GET_YEAR(p);
    o.month = PyDateTime_GET_MONTH(p);
    o.day = PyDateTime_GET_DAY(p);
    o.hour = PyDateTime_DATE_GET_HOUR(p);
    o.minute = PyDateTime_DATE_GET_MINUTE(p);
    o.second = PyDateTime_DATE_GET_SECOND(p);
    o.microsecond = PyDateTime_DATE_GET_MICROSECOND(p);
    return o;
  }
  if (PyDate_Check(dt.ptr())) {
    PyObject* p = dt.ptr();
    o.year = PyDateTime_GET_YEAR(p);
    o.month = PyDateTime_GET_MONTH(p);
    o.day = PyDateTime_GET_DAY(p);
    o.hour = o.minute = o.second = o.microsecond = 0;
    return o;
  }
  throw pyb::type_error(std::string("now: expected None, 'real', an ISO date/time string or a datetime, not ") +
                        Py_TYPE(now.ptr())->tp_name);
}

pyb::object steal(PyObject* p) {
  if (!p) throw pyb::error_already_set();
  return pyb::reinterpret_steal<pyb::object>(p);
}

}  // namespace

std::string TemplateHandle::render(const Value& context, const std::optional<std::string>& template_name,
                                   const jinja::RenderOptions& clock) const {
  chat::RenderOptions opts;
  opts.template_name = template_name;
  opts.clock = clock;
  opts.locate_messages = false;
  pyb::gil_scoped_release unlocked;
  return model.render_json(context, opts).text;
}

namespace {

// render(): templates compiled once per source (as Jinja2's environment caches them), the last
// kCacheSize of them kept.
class SourceCache {
 public:
  std::shared_ptr<TemplateHandle> get(const std::string& source) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(source);
    if (it != map_.end()) {
      order_.splice(order_.begin(), order_, it->second.second);
      return it->second.first;
    }
    auto h = std::make_shared<TemplateHandle>();
    h->model = chat::ModelTemplate::from_sources({{"default", source}});  // each call brings its clock
    order_.push_front(source);
    map_.emplace(source, std::make_pair(h, order_.begin()));
    if (map_.size() > kCacheSize) {
      map_.erase(order_.back());
      order_.pop_back();
    }
    return h;
  }

 private:
  static constexpr size_t kCacheSize = 64;
  std::mutex mu_;
  std::list<std::string> order_;
  std::unordered_map<std::string, std::pair<std::shared_ptr<TemplateHandle>, std::list<std::string>::iterator>> map_;
};

SourceCache& source_cache() {
  static SourceCache* c = new SourceCache();  // never destroyed: used until the interpreter exits
  return *c;
}

pyb::object render_source(const pyb::str& template_source, pyb::handle context, const pyb::object& now) {
  std::string source = utf8(template_source.ptr());
  if (!PyDict_Check(context.ptr()))
    throw pyb::type_error(std::string("context: expected a dict with \"messages\", not ") + Py_TYPE(context.ptr())->tp_name);
  jinja::RenderOptions clock = clock_from(now);
  Value ctx = to_value(context.ptr(), "context");
  std::shared_ptr<TemplateHandle> h = source_cache().get(source);
  return steal(to_str(h->render(ctx, std::nullopt, clock)));
}

}  // namespace

std::shared_ptr<TemplateHandle> load_handle(const std::string& path, const std::optional<std::string>& name,
                                            const pyb::object& now) {
  auto h = std::make_shared<TemplateHandle>();
  h->clock = clock_from(now);
  h->path = path;
  {
    pyb::gil_scoped_release unlocked;
    h->model = chat::ModelTemplate::load(path);
  }
  if (name) {
    h->model.source(*name);  // ValueError naming the template when it is not there
    h->name = name;
  }
  return h;
}

namespace {

pyb::object apply_one(const TemplateHandle& h, pyb::handle messages, const std::string& where, pyb::handle tools,
                      pyb::handle documents, bool add_generation_prompt, bool continue_final_message,
                      const pyb::kwargs& kwargs) {
  if (!PyList_Check(messages.ptr()) && !PyTuple_Check(messages.ptr()))
    throw pyb::type_error(where + ": expected a list of message dicts, not " + Py_TYPE(messages.ptr())->tp_name);
  Value ctx = Value::dict();
  auto& d = ctx.dict_obj();
  d.set(Value::string("messages"), to_value(messages.ptr(), where));
  if (!tools.is_none()) d.set(Value::string("tools"), to_value(tools.ptr(), "tools"));
  if (!documents.is_none()) d.set(Value::string("documents"), to_value(documents.ptr(), "documents"));
  d.set(Value::string("add_generation_prompt"), Value::boolean(add_generation_prompt));
  d.set(Value::string("continue_final_message"), Value::boolean(continue_final_message));
  for (auto [k, v] : kwargs) {
    std::string key = pyb::cast<std::string>(k);
    d.set(Value::string(key), to_value(v.ptr(), key));
  }
  return steal(to_str(h.render(ctx, h.name, h.clock)));
}

pyb::object apply(const TemplateHandle& h, pyb::handle messages, pyb::handle tools, pyb::handle documents,
                  bool add_generation_prompt, bool continue_final_message, const pyb::kwargs& kwargs) {
  // A batch (a list of conversations) gives a list of texts, as apply_chat_template does.
  if (PyList_Check(messages.ptr()) && PyList_GET_SIZE(messages.ptr()) > 0 &&
      (PyList_Check(PyList_GET_ITEM(messages.ptr(), 0)) || PyTuple_Check(PyList_GET_ITEM(messages.ptr(), 0)))) {
    pyb::list out;
    pyb::list batch = pyb::reinterpret_borrow<pyb::list>(messages);
    for (size_t i = 0; i < batch.size(); ++i)
      out.append(apply_one(h, batch[i], "messages[" + std::to_string(i) + "]", tools, documents,
                           add_generation_prompt, continue_final_message, kwargs));
    return out;
  }
  return apply_one(h, messages, "messages", tools, documents, add_generation_prompt, continue_final_message, kwargs);
}

pyb::object detect(const TemplateHandle& h) {
  std::string src = h.model.source(h.model.select(h.name, false));
  Value report;
  {
    pyb::gil_scoped_release unlocked;
    report = dialects::detect_report(src, h.model.special_tokens());
  }
  return steal(to_python(report));
}

}  // namespace

void bind_templates(pyb::module_& m) {
  m.def("render", &render_source, pyb::arg("template_source"), pyb::arg("context"), pyb::kw_only(),
        pyb::arg("now") = pyb::none(),
        R"(Render a chat template with a context, as ``toolchat render --template T --context C``.

``context`` is the CLI's context object: ``messages`` and optionally ``tools``, ``documents``,
``add_generation_prompt``, ``continue_final_message``, ``special_tokens`` (variables such as
``bos_token``) and any other key, passed to the template as a variable. ``now`` is the instant
``strftime_now`` sees: None for the CLI's fixed default (2026-01-15T09:30:00), an ISO string or a
datetime, or ``"real"`` for the clock. Templates are compiled once per source and cached.

Raises TemplateSyntaxError (with ``lineno``) and the other TemplateError classes where Jinja2
does, and TypeError / ValueError naming the bad field (``context.messages[1].content: ...``).
The GIL is released while rendering.)");

  pyb::class_<TemplateHandle, std::shared_ptr<TemplateHandle>>(m, "Template", R"(A model's chat templates, loaded and compiled once (``load_template``).

A Template may be used from many threads at once; the GIL is released while it renders.)")
      .def("apply", &apply, pyb::arg("messages"), pyb::arg("tools") = pyb::none(), pyb::arg("documents") = pyb::none(),
           pyb::arg("add_generation_prompt") = false, pyb::arg("continue_final_message") = false,
           R"(The prompt text, as transformers' ``apply_chat_template(messages, ..., tokenize=False)``.

``messages``: a list of message dicts (or a list of such lists: a list of texts comes back).
``tools`` selects the ``tool_use`` template when the model has one. Other keyword arguments are
template variables (``enable_thinking=False``, ``bos_token=...``), over the model's special
tokens; ``special_tokens={...}`` overrides several at once.)")
      .def("detect", &detect,
           R"(What ``toolchat detect`` reports: ``{"dialect": {...}, "capabilities": {...}, "warnings": [...]}``,
the dialect that reads this template's tool calls and what the template can render.)")
      .def_property_readonly("names", [](const TemplateHandle& h) { return h.model.names(); },
                             "The names of the model's templates (``default``, ``tool_use`` ...).")
      .def_property_readonly("name", [](const TemplateHandle& h) { return h.name; },
                             "The template chosen with ``load_template(..., name=)``, or None (chosen per call).")
      .def_property_readonly("path", [](const TemplateHandle& h) { return h.path; })
      .def_property_readonly(
          "source", [](const TemplateHandle& h) { return h.model.source(h.model.select(h.name, false)); },
          "The source of the template used without tools.")
      .def_property_readonly(
          "special_tokens",
          [](const TemplateHandle& h) {
            return steal(to_python(h.model.special_tokens()));
          },
          "The model's special tokens (``bos_token`` ...), as the template sees them.")
      .def("__repr__", [](const TemplateHandle& h) {
        std::string names;
        for (const auto& n : h.model.names()) names += (names.empty() ? "" : ", ") + n;
        return "<toolchat.Template " + string_repr(h.path) + " [" + names + "]>";
      });

  m.def("load_template", &load_handle, pyb::arg("path"), pyb::arg("name") = pyb::none(), pyb::kw_only(),
        pyb::arg("now") = pyb::none(),
        R"(Load a model's chat templates: a model folder, tokenizer_config.json, chat_template.json, a
.jinja file or a .gguf file. ``name`` fixes the named template to use (else ``tool_use`` when
tools are given and the model has it, ``default`` otherwise). ``now``: as in ``render``.

Raises ValueError for a file that is missing or unreadable (with the system's reason), bad
JSON or GGUF, no template, or no template ``name``; a template that does not compile raises TemplateSyntaxError
when it is used, as transformers compiles only the template it selects.)");
}

}  // namespace toolchat::py
