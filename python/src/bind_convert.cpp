// convert_rows(): training-data rows -> the rows `toolchat convert` writes, by the CLI's own run
// (convert::run_convert with the module's input and output), over worker threads with the GIL
// released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "py_errors.hpp"
#include "py_values.hpp"
#include "convert/pipeline.hpp"
#include "toolchat/convert.hpp"
#include "toolchat/json.hpp"

namespace toolchat::py {

namespace pyb = pybind11;

namespace {

// As `toolchat convert` checks before its run: a syntax error in every template the rows could
// use would make every row bad, so it is raised once, up front, with its position.
void check_templates_compile(const std::string& model, const std::optional<std::string>& name) {
  chat::ModelTemplate m = chat::ModelTemplate::load(model);
  std::vector<std::string> names;
  if (name) names.push_back(*name);
  else if (m.names().size() == 1) names = m.names();
  else names = {"default", "tool_use"};
  std::optional<Error> first;
  for (const auto& n : names) {
    auto all = m.names();
    if (std::find(all.begin(), all.end(), n) == all.end()) continue;
    std::optional<Error> e = m.compile_error(n);
    if (!e) return;
    if (!first) first = e;
  }
  if (first) throw *first;
}

// A row of `rows` into a job (GIL held): JSON text stays text (parsed by a worker, as the CLI
// reads a line), a dict becomes a Value.
void read_job(PyObject* o, size_t i, convert::RowJob& job) {
  job.index = i;
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    if (const char* p = PyUnicode_AsUTF8AndSize(o, &n)) job.line.assign(p, static_cast<size_t>(n));  // into the job's buffer
    else job.line = utf8(o);  // lone surrogates (utf8 clears the error)
  } else if (PyBytes_Check(o)) {
    job.line.assign(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
  } else if (PyDict_Check(o)) {
    job.row = to_value(o, "rows[" + std::to_string(i) + "]");
    job.has_row = true;
  } else {
    throw pyb::type_error("rows[" + std::to_string(i) + "]: expected a dict or a JSON line (str or bytes), not " +
                          Py_TYPE(o)->tp_name);
  }
}

// Where finished rows go, in input order (GIL held): the output list, the bad rows (a list, else
// warnings; strict: raised), the turns --check lists, the counts.
struct Sink {
  pyb::list out;
  pyb::handle bad_rows, check;
  bool strict = false;
  convert::ConvertStats stats;
  pyb::object warn = pyb::module_::import("warnings").attr("warn");
  pyb::object errors = pyb::module_::import("toolchat._errors");

  void take(convert::RowJob& job) {
    convert::RowResult& r = job.result;
    if (r.stats.rows == 0) return;  // a blank line
    convert::add_stats(stats, r.stats);
    auto where = [&] { return "rows[" + std::to_string(job.index) + "]: "; };
    if (r.error) {
      if (strict) raise_python_error(*r.error, where());
      if (!bad_rows.is_none()) {
        pyb::dict entry;
        entry["index"] = job.index;
        entry["error"] = error_kind_name(r.error->kind());
        entry["message"] = pyb::reinterpret_steal<pyb::object>(to_str(r.reason));
        bad_rows.cast<pyb::list>().append(entry);
      } else {
        warn(pyb::reinterpret_steal<pyb::object>(to_str(where() + r.reason)), errors.attr("BadRowWarning"), 1);
      }
      return;
    }
    for (const auto& n : r.notes)
      warn(pyb::reinterpret_steal<pyb::object>(to_str(where() + n)), errors.attr("TokenWarning"), 1);
    if (!check.is_none())
      for (const auto& m : r.mismatches) {
        pyb::dict entry;
        entry["index"] = job.index;
        entry["message"] = pyb::reinterpret_steal<pyb::object>(to_str(m));
        check.cast<pyb::list>().append(entry);
      }
    for (size_t at = 0; at < r.out.size();) {  // JSON lines, each ending in '\n'
      size_t end = r.out.find('\n', at);
      append(PyUnicode_DecodeUTF8(r.out.data() + at, static_cast<Py_ssize_t>(end - at), "surrogatepass"));
      at = end + 1;
    }
    for (const auto& p : r.parts) append(row_dict(p));
  }

  // The dict of an output row, as json.loads reads the CLI's line (keys in the same order).
  PyObject* row_dict(const convert::RowParts& p) {
    PyObject* d = PyDict_New();
    if (!d) return nullptr;
    auto set = [&](PyObject* key, PyObject* v) {
      if (!v) return false;
      int rc = PyDict_SetItem(d, key, v);
      Py_DECREF(v);
      return rc == 0;
    };
    bool ok = set(keys.text, to_str(p.row.text));
    PyObject* spans = ok ? PyList_New(static_cast<Py_ssize_t>(p.row.spans.size())) : nullptr;
    for (size_t i = 0; spans && i < p.row.spans.size(); ++i) {
      const convert::Span& s = p.row.spans[i];
      PyObject* sd = PyDict_New();
      if (!sd) {
        Py_CLEAR(spans);
        break;
      }
      PyList_SET_ITEM(spans, static_cast<Py_ssize_t>(i), sd);
      PyObject* role = role_str(s.role);
      PyObject* train = s.train ? Py_True : Py_False;
      Py_INCREF(train);
      auto put = [&](PyObject* key, PyObject* v) {
        if (!v) return false;
        int rc = PyDict_SetItem(sd, key, v);
        Py_DECREF(v);
        return rc == 0;
      };
      if (!(put(keys.role, role) && put(keys.train, train) && put(keys.start, PyLong_FromSize_t(p.span_chars[i].first)) &&
            put(keys.end, PyLong_FromSize_t(p.span_chars[i].second)) &&
            put(keys.byte_start, PyLong_FromSize_t(s.begin)) && put(keys.byte_end, PyLong_FromSize_t(s.end)))) {
        Py_CLEAR(spans);
        break;
      }
    }
    ok = ok && set(keys.spans, spans);
    if (ok && p.tokens) {
      ok = set(keys.input_ids, int_list(p.ids)) && set(keys.labels, int_list(p.labels));
    }
    if (!ok) Py_CLEAR(d);
    return d;
  }

  template <class T>
  static PyObject* int_list(const std::vector<T>& v) {
    PyObject* l = PyList_New(static_cast<Py_ssize_t>(v.size()));
    for (size_t i = 0; l && i < v.size(); ++i) {
      PyObject* x = PyLong_FromLongLong(static_cast<long long>(v[i]));
      if (!x) {
        Py_CLEAR(l);
        break;
      }
      PyList_SET_ITEM(l, static_cast<Py_ssize_t>(i), x);
    }
    return l;
  }

  // A role's str, made once per role (a new reference).
  PyObject* role_str(const std::string& role) {
    for (auto& [r, o] : roles)
      if (r == role) {
        Py_INCREF(o.ptr());
        return o.ptr();
      }
    pyb::object o = pyb::reinterpret_steal<pyb::object>(to_str(role));
    if (!o) return nullptr;
    if (roles.size() < 16) roles.emplace_back(role, o);
    return o.release().ptr();
  }

  // The output rows' keys, interned once.
  struct Keys {
    PyObject* make(const char* s) { return PyUnicode_InternFromString(s); }
    PyObject *text = make("text"), *spans = make("spans"), *role = make("role"), *train = make("train"),
             *start = make("start"), *end = make("end"), *byte_start = make("byte_start"),
             *byte_end = make("byte_end"), *input_ids = make("input_ids"), *labels = make("labels");
    ~Keys() {
      for (PyObject* k : {text, spans, role, train, start, end, byte_start, byte_end, input_ids, labels}) Py_XDECREF(k);
    }
  } keys;
  std::vector<std::pair<std::string, pyb::object>> roles;

  void append(PyObject* o) {
    if (!o) throw pyb::error_already_set();
    int rc = PyList_Append(out.ptr(), o);
    Py_DECREF(o);
    if (rc < 0) throw pyb::error_already_set();
  }

  void fill(pyb::handle into) const {
    using S = convert::ConvertStats;
    static constexpr std::pair<const char*, size_t S::*> kCounts[] = {
        {"rows", &S::rows},       {"converted", &S::converted},   {"extra_rows", &S::extra_rows},
        {"bad", &S::bad},         {"turns", &S::turns},           {"served", &S::served},
        {"trained_spans", &S::trained_spans}, {"tokens", &S::tokens}, {"straddling", &S::straddling},
        {"cut_rows", &S::cut_rows}, {"dropped_long", &S::dropped_long}, {"injection_rows", &S::injection_rows},
        {"texts_not_found", &S::texts_not_found}};
    pyb::dict s = into.cast<pyb::dict>();
    for (const auto& [key, count] : kCounts) s[key] = stats.*count;
    pyb::dict mismatches;
    for (const auto& [tmpl, reasons] : stats.mismatches) {
      pyb::dict by_reason;
      for (const auto& [reason, n] : reasons) by_reason[pyb::str(reason)] = n;
      mismatches[pyb::str(tmpl)] = by_reason;
    }
    s["mismatches"] = mismatches;
  }
};

pyb::object convert_rows(pyb::handle rows, const std::string& fmt_name, const std::string& model,
                         std::optional<std::string> name, std::optional<std::string> polyfill, pyb::handle kwargs,
                         pyb::handle special_tokens, const pyb::object& now, bool train_on_prompt, bool last_turn_only,
                         bool split, pyb::handle check, bool strict, std::optional<std::string> tokenizer,
                         size_t max_length, bool reuse_renders, pyb::handle bad_rows, pyb::handle stats, int threads,
                         bool as_json) {
  std::optional<convert::Format> fmt = convert::format_from_name(fmt_name);
  if (!fmt) throw pyb::value_error("fmt: unknown format " + string_repr(fmt_name) + " (sharegpt, chatglm3, openai, qwen-agent)");
  if (threads < 1 || threads > 256) throw pyb::value_error("threads: expected 1 to 256, not " + std::to_string(threads));
  for (auto [arg, what] : {std::pair{bad_rows, "bad_rows"}, std::pair{check, "check"}})
    if (!arg.is_none() && !PyList_Check(arg.ptr()))
      throw pyb::type_error(std::string(what) + ": expected a list to append to, not " + Py_TYPE(arg.ptr())->tp_name);
  if (!stats.is_none() && !PyDict_Check(stats.ptr()))
    throw pyb::type_error(std::string("stats: expected a dict to fill, not ") + Py_TYPE(stats.ptr())->tp_name);
  if (max_length && !tokenizer) throw pyb::value_error("max_length counts tokens: give tokenizer too");

  convert::ConvertConfig cfg;
  cfg.format = *fmt;
  cfg.model = model;
  cfg.list_mismatches = !check.is_none();
  cfg.max_length = max_length;
  cfg.rows_as_parts = !as_json;  // dicts made from the rows' parts, not from JSON text read back
  convert::LabelOptions& opts = cfg.label;
  opts.template_name = name;
  opts.train_on_prompt = train_on_prompt;
  opts.last_turn_only = last_turn_only;
  opts.split_rewritten = split;
  opts.clock = clock_from(now);
  opts.reuse_renders = reuse_renders;
  opts.locate_texts = tokenizer.has_value();
  if (polyfill) {
    try {
      opts.polyfills = chat::polyfill_options_from_list(*polyfill);
    } catch (const Error& e) {
      throw pyb::value_error("polyfill: " + e.message());
    }
  }
  if (!kwargs.is_none()) {
    opts.kwargs = to_value(kwargs.ptr(), "kwargs");
    if (!opts.kwargs.is_dict()) throw pyb::type_error(std::string("kwargs: expected a dict, not ") + type_name(opts.kwargs));
  }
  if (!special_tokens.is_none()) {
    opts.special_tokens = to_value(special_tokens.ptr(), "special_tokens");
    if (!opts.special_tokens.is_dict())
      throw pyb::type_error(std::string("special_tokens: expected a dict, not ") + type_name(opts.special_tokens));
  }

  {
    pyb::gil_scoped_release unlocked;
    check_templates_compile(model, name);
  }
  cfg.threads = threads;
  cfg.tokenizer = tokenizer.value_or("");
  // The output holds a dict and a list per row that the cyclic GC would scan over and over as
  // the rows are made (and none can be part of a cycle): collection waits until the end.
  struct GcPause {
    int was = PyGC_Disable();
    ~GcPause() {
      if (was) PyGC_Enable();
    }
  } gc_pause;
  Sink sink;
  sink.bad_rows = bad_rows;
  sink.check = check;
  sink.strict = strict;
  // The CLI's run (convert::run_convert): rows are read and taken here with the GIL held; workers
  // convert without it; every wait (and the model's load) releases it.
  pyb::iterator it = pyb::iter(rows);
  size_t i = 0;
  convert::RowIo io;
  io.read = [&](convert::RowJob& job) {
    if (it == pyb::iterator::sentinel()) return false;
    read_job(it->ptr(), i++, job);
    ++it;
    return true;
  };
  io.take = [&](convert::RowJob& job) {
    sink.take(job);
    return true;
  };
  io.locate = [](size_t index) { return "rows[" + std::to_string(index) + "]"; };
  io.blocking = [](const std::function<void()>& f) {
    pyb::gil_scoped_release unlocked;  // the GIL is never taken under the run's lock: workers never hold it
    f();
  };
  convert::run_convert(cfg, io);
  if (!stats.is_none()) sink.fill(stats);
  return sink.out;
}

}  // namespace

void bind_convert(pyb::module_& m) {
  m.def("convert_rows", &convert_rows, pyb::arg("rows"), pyb::arg("fmt"), pyb::arg("model"), pyb::kw_only(),
        pyb::arg("name") = pyb::none(), pyb::arg("polyfill") = pyb::none(), pyb::arg("kwargs") = pyb::none(),
        pyb::arg("special_tokens") = pyb::none(), pyb::arg("now") = pyb::none(), pyb::arg("train_on_prompt") = false,
        pyb::arg("last_turn_only") = false, pyb::arg("split") = false, pyb::arg("check") = pyb::none(),
        pyb::arg("strict") = false, pyb::arg("tokenizer") = pyb::none(), pyb::arg("max_length") = 0,
        pyb::arg("reuse_renders") = true, pyb::arg("bad_rows") = pyb::none(), pyb::arg("stats") = pyb::none(),
        pyb::arg("threads") = 1, pyb::arg("as_json") = false,
        R"(Training-data rows -> the rows ``toolchat convert`` writes, in input order:
``{"text", "spans": [{"role", "train", "start", "end", "byte_start", "byte_end"}]}`` (start/end
in characters, byte_* in UTF-8 bytes), plus ``input_ids`` and ``labels`` with a tokenizer; with
``split``, a rewritten turn adds a row of its own.

``rows``: dicts, or JSON lines (str or bytes, read exactly as the CLI reads a line; blank lines
are skipped); any iterable, read as the rows are converted. ``fmt``: ``sharegpt``, ``chatglm3``,
``openai`` or ``qwen-agent`` (the CLI's ``--from``). ``model``: the chat template's path
(``--model``). The other options are the CLI's flags of the same names:

- ``name``, ``polyfill`` ("all", "none" or a comma-separated list), ``kwargs`` (a dict of template
  variables), ``special_tokens`` (a dict over the model's), ``train_on_prompt``,
  ``last_turn_only``, ``split``, ``strict``;
- ``now``: the instant strftime_now sees: None for the CLI's fixed default (2026-01-15T09:30:00,
  which keeps a dataset reproducible), an ISO string or a datetime, or "real" (``--now``);
- ``check``: a list; receives ``{"index", "message"}`` for each assistant turn where train =
  serve does not hold, the message worded as ``--check`` lists it;
- ``tokenizer`` (tokenizer.json, a folder holding one, or a .gguf) adds ``input_ids`` and
  ``labels``; ``max_length`` keeps the first N tokens of a longer row (dropped when nothing
  trained is left). A row whose message text holds special-token text is kept and issued as a
  TokenWarning (the CLI reports it on stderr);
- ``reuse_renders=False`` renders every conversation itself (``--no-render-reuse``).

A bad row (bad JSON, the wrong shape, a template raising on it) is skipped and reported: appended
to ``bad_rows`` (a list) as ``{"index", "error", "message"}`` with the CLI's wording, else issued
as a BadRowWarning. With ``strict=True`` the first bad row raises instead (ValueError naming
``rows[i]`` and the JSON path, or the template's error). ``stats`` (a dict) receives the CLI's
counts: rows, converted, extra_rows, bad, turns, served (train = serve holds), trained_spans,
mismatches ({template: {reason: turns}}) and, with a tokenizer, tokens, straddling, cut_rows,
dropped_long, injection_rows, texts_not_found. ``threads``: worker threads (the GIL is released
while converting; the calling thread reads rows and builds the results meanwhile).
``as_json=True`` returns each row as the JSON line the CLI writes (without the newline) instead of
a dict.)");
}

}  // namespace toolchat::py
