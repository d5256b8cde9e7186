// parse() and StreamParser: a dialect (by name, or the one a Template's calls are read with) over
// model output, whole or streamed, as `toolchat parse` and `toolchat parse --events`.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bindings.hpp"
#include "py_values.hpp"
#include "toolchat/dialects.hpp"
#include "toolchat/json.hpp"

namespace toolchat::py {

namespace pyb = pybind11;

namespace {

using Factory = std::function<std::unique_ptr<dialects::StreamParser>(const dialects::ParseOptions&)>;

// The parser factory for `dialect`: a dialect name or alias, or a Template (its dialect as
// `toolchat parse --template` resolves it).
Factory factory_for(const pyb::handle& dialect) {
  if (pyb::isinstance<pyb::str>(dialect)) {
    std::string name = dialect.cast<std::string>();
    const dialects::Dialect* d = dialects::find(name);
    if (!d) throw pyb::value_error("dialect: unknown dialect " + string_repr(name) + " (known: " + dialects::known_names() + ")");
    auto make = d->make_parser;
    return [make](const dialects::ParseOptions& o) { return make(o); };
  }
  if (pyb::isinstance<TemplateHandle>(dialect)) {
    const TemplateHandle& h = dialect.cast<const TemplateHandle&>();
    std::string src = h.model.source(h.model.select(h.name, false));
    pyb::gil_scoped_release unlocked;
    return dialects::dialect_for_template(src, json::parse(json::dumps(h.model.special_tokens()))).make_parser;
  }
  throw pyb::type_error(std::string("dialect: expected a dialect name or a toolchat.Template, not ") +
                        Py_TYPE(dialect.ptr())->tp_name);
}

dialects::ParseOptions parse_options(const pyb::handle& tools, bool reasoning_open, const std::optional<uint64_t>& seed) {
  dialects::ParseOptions o;
  o.reasoning_open = reasoning_open;
  if (seed) {
    o.id_seed = *seed;
  } else {  // as the CLI: ids from separate parses stitched into one conversation must not collide
    std::random_device rd;
    o.id_seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  if (!tools.is_none()) {
    // A list of tools, or an object holding "tools" (a request), as `parse --tools FILE`.
    Value t = to_value(tools.ptr(), "tools");
    if (t.is_dict()) {
      const Value* inner = t.find("tools");
      if (!inner) throw pyb::value_error("tools: expected a list of tools or a dict holding \"tools\"");
      t = *inner;
    }
    if (!t.is_list()) throw pyb::type_error(std::string("tools: expected a list of tools, not ") + type_name(t));
    o.tools = t;
  }
  return o;
}

// Text in: a str, or bytes (a stream may cut a UTF-8 sequence; the parser holds it back).
std::string text_of(const pyb::handle& text, const char* what) {
  if (PyUnicode_Check(text.ptr())) return utf8(text.ptr());
  if (PyBytes_Check(text.ptr()))
    return std::string(PyBytes_AS_STRING(text.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(text.ptr())));
  throw pyb::type_error(std::string(what) + ": expected str or bytes, not " + Py_TYPE(text.ptr())->tp_name);
}

pyb::list events_list(const std::vector<dialects::Event>& events) {
  pyb::list out;
  for (const auto& e : events) {
    PyObject* o = to_python(dialects::event_json(e));
    if (!o) throw pyb::error_already_set();
    out.append(pyb::reinterpret_steal<pyb::object>(o));
  }
  return out;
}

pyb::object parse_text(const pyb::handle& text, const pyb::handle& dialect, const pyb::handle& tools,
                       bool reasoning_open, std::optional<uint64_t> seed) {
  std::string in = text_of(text, "text");
  Factory make = factory_for(dialect);
  dialects::ParseOptions opts = parse_options(tools, reasoning_open, seed);
  Value msg;
  {
    pyb::gil_scoped_release unlocked;
    dialects::EventLog log;
    auto p = make(opts);
    p->feed(in, log);
    p->finish(log);
    msg = dialects::collect(log.events).to_json(true);
  }
  PyObject* o = to_python(msg);
  if (!o) throw pyb::error_already_set();
  return pyb::reinterpret_steal<pyb::object>(o);
}

// A streaming parse. One feed or finish runs at a time (a parser belongs to one thread at a
// time); the GIL is released while it runs.
class PyStreamParser {
 public:
  PyStreamParser(const pyb::handle& dialect, const pyb::handle& tools, bool reasoning_open, std::optional<uint64_t> seed)
      : opts_(parse_options(tools, reasoning_open, seed)) {
    Factory make = factory_for(dialect);
    parser_ = make(opts_);
  }

  pyb::list feed(const pyb::handle& text) {
    std::string in = text_of(text, "text");
    return run([&](dialects::EventLog& log) { parser_->feed(in, log); }, "feed");
  }
  pyb::list finish() {
    return run([&](dialects::EventLog& log) { parser_->finish(log); }, "finish");
  }

 private:
  template <class F> pyb::list run(F&& step, const char* what) {
    dialects::EventLog log;
    bool was_finished = false;
    {
      pyb::gil_scoped_release unlocked;
      std::lock_guard<std::mutex> lock(mu_);
      was_finished = finished_;
      if (!was_finished) {
        step(log);
        finished_ = std::string_view(what) == "finish";
      }
    }
    if (was_finished) throw pyb::value_error(std::string(what) + "(): the parser has finished; make a new StreamParser");
    return events_list(log.events);
  }

  dialects::ParseOptions opts_;
  std::unique_ptr<dialects::StreamParser> parser_;
  std::mutex mu_;
  bool finished_ = false;
};

}  // namespace

void bind_parse(pyb::module_& m) {
  m.def("parse", &parse_text, pyb::arg("text"), pyb::arg("dialect"), pyb::arg("tools") = pyb::none(), pyb::kw_only(),
        pyb::arg("reasoning_open") = false, pyb::arg("seed") = pyb::none(),
        R"(Parse model output into an OpenAI assistant message, as ``toolchat parse``:
``{"content", "reasoning_content", "tool_calls": [{"id", "type", "function": {"name", "arguments"}}],
"warnings": [{"kind", "detail"}]}`` (content and reasoning_content are None when empty).

``dialect``: a dialect name (``hermes``, ``llama3_json`` ... ``dialect_names()``) or a Template,
whose dialect is detected (registered, inferred or the generic_json fallback). ``tools`` (a list of
tools, or a dict holding "tools") checks call names. ``reasoning_open``: the prompt left the model
inside its reasoning block. ``seed`` makes the generated call ids reproducible (random otherwise).
Never raises on odd output: a malformed or cut call stays content, with a warning.)");

  pyb::class_<PyStreamParser>(m, "StreamParser", R"(A streaming parse of model output, as ``toolchat parse --events``.

``feed(text)`` returns the events the new text completes and ``finish()`` the rest: dicts with
``type`` ``content``, ``reasoning``, ``tool_call_begin`` (index, id, name), ``tool_args``
(index, fragment), ``tool_call_end`` or ``warning``. The fragments of a call concatenate to its
arguments. Arguments as ``parse``.)")
      .def(pyb::init<const pyb::handle&, const pyb::handle&, bool, std::optional<uint64_t>>(), pyb::arg("dialect"),
           pyb::arg("tools") = pyb::none(), pyb::kw_only(), pyb::arg("reasoning_open") = false,
           pyb::arg("seed") = pyb::none())
      .def("feed", &PyStreamParser::feed, pyb::arg("text"), "Feed the next piece of output (str, or bytes); returns events.")
      .def("finish", &PyStreamParser::finish, "The output has ended: returns the remaining events.");

  m.def("dialect_names", [] {
    std::vector<std::string> out;
    for (const auto* d : dialects::all()) out.emplace_back(d->name);
    return out;
  }, "The names of the registered dialects.");
}

}  // namespace toolchat::py
