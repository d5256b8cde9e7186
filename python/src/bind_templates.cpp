// render(), load_template() and Template: the chat layer's ModelTemplate behind transformers'
// apply_chat_template signature.
#include <pybind11/pybind11.h>
// after pybind11 (which includes Python.h first)
#include <datetime.h>
#include <pybind11/stl.h>

#include <algorithm>
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

namespace {

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

void TemplateHandle::index_names() {
  for (const auto& name : model.names()) {
    if (model.compile_error(name)) continue;  // not listed: every variable is converted, and the render raises
    std::vector<std::string> names = jinja::Template::compile(model.source(name)).uses().names;
    names_read[name] = NameSet(names.begin(), names.end());
  }
  for (int tools = 0; tools < 2; ++tools) {
    try {
      default_read[tools] = {true, names_of(model.select(this->name, tools != 0))};
    } catch (const Error&) {
      default_read[tools] = {};
    }
  }
}

const TemplateHandle::NameSet* TemplateHandle::names_of(const std::string& template_name) const {
  auto it = names_read.find(template_name);
  return it == names_read.end() ? nullptr : &it->second;
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
  h->index_names();
  return h;
}

namespace {

// ---- Template.apply ----
// Called by CPython directly (METH_FASTCALL): pybind11's dispatcher costs about a microsecond per
// keyword argument, more than converting a short conversation. The arguments are read as
// transformers' apply_chat_template reads them.

constexpr std::string_view kApplyParams[] = {"messages", "tools", "documents", "add_generation_prompt",
                                             "continue_final_message"};
constexpr int kApplyParamCount = 5;

// apply_chat_template's own parameters that are not template variables: accepted at the value
// that means "the text" (tokenize=False ...), refused otherwise.
struct TokenizerParam {
  std::string_view name;
  PyObject* (*accepted)();  // the value that is a no-op here
};
PyObject* py_false() { return Py_False; }
PyObject* py_none() { return Py_None; }
constexpr TokenizerParam kTokenizerParams[] = {
    {"tokenize", py_false},         {"padding", py_false},     {"truncation", py_false},
    {"return_dict", py_false},      {"return_assistant_tokens_mask", py_false},
    {"max_length", py_none},        {"return_tensors", py_none}, {"tokenizer_kwargs", py_none},
};

// The first letters of the names above, of "chat_template" and "special_tokens" (bit c & 31).
constexpr uint32_t initials(std::initializer_list<char> cs) {
  uint32_t m = 0;
  for (char c : cs) m |= uint32_t{1} << (c & 31);
  return m;
}
constexpr uint32_t kNamedInitials = initials({'m', 't', 'd', 'a', 'c', 'p', 'r', 's'});

[[gnu::noinline]] std::string_view encoded_name(PyObject* str) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(str, &n);
  if (!p) throw pyb::error_already_set();
  return {p, static_cast<size_t>(n)};
}

// Inline for the compact ASCII names keywords are: called twice per keyword of every call.
inline std::string_view name_of(PyObject* str) {
  if (PyUnicode_IS_COMPACT_ASCII(str))  // keyword names: its characters are its UTF-8
    return {static_cast<const char*>(PyUnicode_DATA(str)), static_cast<size_t>(PyUnicode_GET_LENGTH(str))};
  return encoded_name(str);
}

bool is_sequence(PyObject* o) { return PyList_Check(o) || PyTuple_Check(o); }

PyObject* item_of(PyObject* seq, Py_ssize_t i) {
  return PyList_Check(seq) ? PyList_GET_ITEM(seq, i) : PyTuple_GET_ITEM(seq, i);
}
Py_ssize_t size_of(PyObject* seq) { return PyList_Check(seq) ? PyList_GET_SIZE(seq) : PyTuple_GET_SIZE(seq); }

// tools: JSON schemas (dicts), or Python functions turned into theirs as transformers does
// (toolchat.get_json_schema: type hints and a Google-style docstring).
bool is_tool_function(PyObject* t) { return PyFunction_Check(t) || PyMethod_Check(t); }

[[noreturn]] void bad_tool(PyObject* t, const std::string& where) {
  throw pyb::value_error(where + ": expected a tool's JSON schema (a dict) or a Python function with type hints "
                         "and a Google-style docstring, not " + Py_TYPE(t)->tp_name);
}

void check_tools(PyObject* tools) {
  if (!is_sequence(tools))
    throw pyb::type_error(std::string("tools: expected a list of tool schemas (dicts) or functions, not ") +
                          Py_TYPE(tools)->tp_name);
  for (Py_ssize_t i = 0, n = size_of(tools); i < n; ++i)
    if (!PyDict_Check(item_of(tools, i)) && !is_tool_function(item_of(tools, i)))
      bad_tool(item_of(tools, i), "tools[" + std::to_string(i) + "]");
}

Value tools_value(PyObject* tools, Converter& to_value) {
  check_tools(tools);
  const Py_ssize_t n = size_of(tools);
  bool all_dicts = true;
  for (Py_ssize_t i = 0; i < n && all_dicts; ++i) all_dicts = PyDict_Check(item_of(tools, i));
  if (all_dicts) return to_value(tools, "tools");
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* t = item_of(tools, i);
    std::string where = "tools[" + std::to_string(i) + "]";
    if (PyDict_Check(t)) {
      items.push_back(to_value(t, where));
    } else {
      pyb::object schema = pyb::module_::import("toolchat._schema").attr("tool_schema")(pyb::handle(t), where);
      items.push_back(to_value(schema.ptr(), where));
    }
  }
  return Value::list(std::move(items), PyTuple_Check(tools) ? ListKind::Tuple : ListKind::List);
}

// As transformers: documents are a list of dicts.
void check_documents(PyObject* documents) {
  if (!is_sequence(documents))
    throw pyb::type_error(std::string("documents: expected a list of dicts, not ") + Py_TYPE(documents)->tp_name);
  for (Py_ssize_t i = 0, n = size_of(documents); i < n; ++i)
    if (!PyDict_Check(item_of(documents, i)))
      throw pyb::type_error("documents[" + std::to_string(i) + "]: expected a dict (\"title\", \"text\" ...), not " +
                            Py_TYPE(item_of(documents, i))->tp_name);
}

// The arguments read; `messages` is still a Python object (one conversation or a batch).
struct ApplyArgs {
  Converter to_value;  // every argument of the call
  PyObject* messages = nullptr;
  chat::ChatCall call;  // all but messages
  std::optional<std::string> template_name;
  std::optional<std::string> template_source;  // chat_template= a template's text
};

void read_apply_args(ApplyArgs& a, const TemplateHandle& h, PyObject* const* args, Py_ssize_t nargs,
                     PyObject* kwnames) {
  PyObject* slot[kApplyParamCount] = {};
  if (nargs > kApplyParamCount)
    throw pyb::type_error("apply() takes from 1 to 5 positional arguments but " + std::to_string(nargs) + " were given");
  for (Py_ssize_t i = 0; i < nargs; ++i) slot[i] = args[i];
  Converter& to_value = a.to_value;
  a.template_name = h.name;
  bool chose = false;  // chat_template= named a template or gave a source
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  // The other keywords, template variables, by position in kwnames: on the stack for a call of up
  // to kInlineKeywords keywords (a heap block per call was about 130 instructions).
  constexpr Py_ssize_t kInlineKeywords = 32;
  Py_ssize_t inline_positions[kInlineKeywords];
  std::unique_ptr<Py_ssize_t[]> heap_positions;
  if (nkw > kInlineKeywords) heap_positions.reset(new Py_ssize_t[static_cast<size_t>(nkw)]);
  Py_ssize_t* variables = heap_positions ? heap_positions.get() : inline_positions;
  Py_ssize_t variable_count = 0;
  for (Py_ssize_t i = 0; i < nkw; ++i) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, i);
    PyObject* value = args[nargs + i];
    std::string_view name = name_of(key);
    // Template variables (bos_token, enable_thinking ...) are most keywords: a name whose first
    // letter starts none of the names below is one.
    if (name.empty() || !(kNamedInitials & (uint32_t{1} << (name[0] & 31))) || name[0] < 'a') {
      variables[variable_count++] = i;
      continue;
    }
    int param = -1;
    for (int p = 0; p < kApplyParamCount && param < 0; ++p)
      if (name == kApplyParams[p]) param = p;
    if (param >= 0) {
      if (slot[param]) throw pyb::type_error("apply() got multiple values for argument '" + std::string(name) + "'");
      slot[param] = value;
      continue;
    }
    const TokenizerParam* tp = nullptr;
    for (const auto& t : kTokenizerParams)
      if (name == t.name) {
        tp = &t;
        break;
      }
    if (tp) {
      PyObject* ok = tp->accepted();
      if (value != ok && !(ok == Py_False && value == Py_None))
        throw pyb::value_error(std::string(name) + "=" + std::string(pyb::repr(value)) +
                               ": Template.apply returns the text (transformers' tokenize=False); tokenize it "
                               "with the model's tokenizer");
      continue;
    }
    if (name == "chat_template") {
      if (value == Py_None) continue;
      if (!PyUnicode_Check(value))
        throw pyb::type_error(std::string("chat_template: expected a template name or source, not ") +
                              Py_TYPE(value)->tp_name);
      std::string t = utf8(value);
      const auto names = h.model.names();
      if (std::find(names.begin(), names.end(), t) != names.end()) a.template_name = t;
      else a.template_source = std::move(t);  // as transformers: not a name, so a template's text
      chose = true;
      continue;
    }
    if (name == "special_tokens") {
      if (!PyDict_Check(value))
        throw pyb::type_error(std::string("special_tokens: expected a dict, not ") + Py_TYPE(value)->tp_name);
      a.call.special_tokens = to_value(value, "special_tokens");
      continue;
    }
    variables[variable_count++] = i;
  }
  if (!slot[0]) throw pyb::type_error("apply() missing required argument 'messages'");
  a.messages = slot[0];
  const bool tools_given = slot[1] && slot[1] != Py_None;
  // What the chosen template cannot read is not converted (only checked as transformers checks it).
  const TemplateHandle::DefaultRead& known = h.default_read[tools_given];
  const TemplateHandle::NameSet* read = a.template_source ? nullptr
                                        : !chose && known.known ? known.names
                                                                : h.names_of(h.model.select(a.template_name, tools_given));
  auto may_read = [&](std::string_view var) { return !read || read->find(var) != read->end(); };
  a.call.kwargs.reserve(static_cast<size_t>(variable_count));
  for (Py_ssize_t v = 0; v < variable_count; ++v) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, variables[v]);
    std::string_view name = name_of(key);
    if (may_read(name)) a.call.kwargs.emplace_back(str_value(key), to_value(args[nargs + variables[v]], name));
  }
  if (tools_given) {
    if (may_read("tools")) {
      a.call.tools = tools_value(slot[1], to_value);
    } else {
      check_tools(slot[1]);
      a.call.tools = Value::list();  // given, so the tool_use template stays chosen
    }
  }
  if (slot[2] && slot[2] != Py_None) {
    check_documents(slot[2]);
    if (may_read("documents")) a.call.documents = to_value(slot[2], "documents");
  }
  if (slot[3]) a.call.add_generation_prompt = to_value(slot[3], "add_generation_prompt");  // as given, as transformers
  if (slot[4]) {
    int truth = PyObject_IsTrue(slot[4]);
    if (truth < 0) throw pyb::error_already_set();
    a.call.continue_final_message = truth != 0;
  }
}

// One conversation rendered; the GIL is released from the render to the freeing of its values.
// `call` is the arguments' call (its messages filled in here), or a copy of it in a batch; its
// values are freed here (taken by reference: a moved-in parameter cost a move and two destructors).
pyb::object apply_conversation(const TemplateHandle& h, ApplyArgs& a, chat::ChatCall& call, PyObject* messages,
                               std::string_view where) {
  if (!is_sequence(messages))
    throw pyb::type_error(std::string(where) + ": expected a list of message dicts, not " + Py_TYPE(messages)->tp_name);
  call.messages = a.to_value(messages, where);
  const TemplateHandle* use = &h;
  std::shared_ptr<TemplateHandle> from_source;
  if (a.template_source) {
    from_source = source_cache().get(*a.template_source);
    use = from_source.get();
    // The model's special tokens under the call's own (as transformers passes them with any template).
    Value tokens = Value::dict();
    for (const auto& [k, v] : h.model.special_tokens().dict_obj().entries) tokens.dict_obj().set(k, v);
    if (call.special_tokens.is_dict())
      for (const auto& [k, v] : call.special_tokens.dict_obj().entries) tokens.dict_obj().set(k, v);
    call.special_tokens = tokens;
  }
  chat::RenderOptions opts;
  opts.template_name = a.template_source ? std::nullopt : a.template_name;
  opts.clock = h.clock;
  opts.locate_messages = false;
  std::string text;
  {
    pyb::gil_scoped_release unlocked;
    text = use->model.apply(call, opts).text;
    call = chat::ChatCall();  // freed here, without the GIL
  }
  return steal(to_str(text));
}

pyb::object apply(const TemplateHandle& h, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  ApplyArgs a;
  read_apply_args(a, h, args, nargs, kwnames);
  // A batch (a list of conversations) gives a list of texts, as apply_chat_template does.
  PyObject* m = a.messages;
  if (is_sequence(m) && size_of(m) > 0 && is_sequence(item_of(m, 0))) {
    const Py_ssize_t n = size_of(m);
    pyb::list out(n);
    for (Py_ssize_t i = 0; i < n && i < size_of(m); ++i) {
      chat::ChatCall copy = a.call;
      pyb::object text = apply_conversation(h, a, copy, item_of(m, i), "messages[" + std::to_string(i) + "]");
      PyList_SET_ITEM(out.ptr(), i, text.release().ptr());
    }
    return out;
  }
  return apply_conversation(h, a, a.call, m, "messages");
}

PyObject* apply_entry(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    // The method descriptor has checked that self is a Template: its C++ object is read directly.
    auto* inst = reinterpret_cast<pyb::detail::instance*>(self);
    const auto* h = static_cast<const TemplateHandle*>(inst->get_value_and_holder().value_ptr());
    if (!h) throw pyb::type_error("apply(): the Template is not initialized");
    return apply(*h, args, nargs, kwnames).release().ptr();
  } catch (pyb::error_already_set& e) {
    e.restore();
  } catch (pyb::builtin_exception& e) {
    e.set_error();
  } catch (const Error& e) {
    set_python_error(e);
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
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

  auto cls = pyb::class_<TemplateHandle, std::shared_ptr<TemplateHandle>>(m, "Template", R"(A model's chat templates, loaded and compiled once (``load_template``).

A Template may be used from many threads at once; the GIL is released while it renders.)")
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

  // apply: a method descriptor of the class around apply_entry (see above); the first line of the
  // doc is its signature for inspect and help().
  static PyMethodDef apply_def = {
      "apply", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&apply_entry)), METH_FASTCALL | METH_KEYWORDS,
      R"(apply($self, messages, tools=None, documents=None, add_generation_prompt=False, continue_final_message=False, **kwargs)
--

The prompt text, as transformers' ``apply_chat_template(messages, ..., tokenize=False)``.

``messages``: a list of message dicts (or a list of such lists: a list of texts comes back).
``tools``: JSON schemas (dicts) or Python functions with type hints and a Google-style docstring
(turned into schemas as transformers does, see ``toolchat.get_json_schema``); given, not None, they
select the ``tool_use`` template when the model has one. ``documents``: a list of dicts.
``add_generation_prompt`` reaches the template as given; ``continue_final_message`` (exclusive
with it) cuts the text after the final message's content, as transformers does.

Other keyword arguments are template variables (``enable_thinking=False``, ``bos_token=...``),
over the model's special tokens; ``special_tokens={...}`` overrides several at once.
``chat_template=`` picks a template by name, or renders the given template text instead.
transformers' tokenizer arguments are accepted at the values that return text (``tokenize=False``,
``return_dict=False``, ``padding=False``, ``truncation=False``, ``max_length=None`` ...) and refused
otherwise.

Bad arguments raise TypeError / ValueError naming the field (``messages[1].content: ...``). A
variable the template never looks up (no name in its code reads it) is not converted, as Jinja2 never
reads it: a bad value there is not reported, as transformers does not report it.)"};
  cls.attr("apply") = steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), &apply_def));

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
