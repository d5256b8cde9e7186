// convert_rows(): training-data rows -> the rows `toolchat convert` writes, through the public
// convert API (read_sample, Labeler, row_json), over worker threads with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bindings.hpp"
#include "py_errors.hpp"
#include "py_values.hpp"
#include "toolchat/convert.hpp"
#include "toolchat/json.hpp"

namespace toolchat::py {

namespace pyb = pybind11;

namespace {

struct RowJob {
  std::optional<std::string> text;  // a JSON line, parsed by the worker (as the CLI reads it)
  Value row;                        // or a row given as a dict
  bool blank = false;               // a blank line: skipped, as the CLI skips it
  // results
  std::vector<std::string> out;     // row_json of each output row (the row, then split rows)
  std::optional<Error> error;       // why the row is bad
  std::string reason;               // the CLI's "IN:LINE: <reason>" text
  size_t turns = 0, served = 0;
};

// One row, as the CLI's convert pipeline treats a line: bad JSON, a row of the wrong shape, or a
// template failing on it make it bad; the reasons are worded as the CLI words them.
void convert_one(convert::Labeler& labeler, convert::Format fmt, RowJob& job) {
  if (job.text) {
    try {
      job.row = json::parse(*job.text);
    } catch (const Error& e) {
      job.error = e;
      job.reason = "invalid JSON: " + e.message();
      return;
    }
  }
  convert::Sample sample;
  try {
    sample = convert::read_sample(fmt, job.row);
  } catch (const Error& e) {
    job.error = e;
    job.reason = e.message();
    return;
  }
  try {
    convert::Labeled l = labeler.label(sample);
    for (const auto& t : l.turns) {
      ++job.turns;
      job.served += t.served;
    }
    for (const auto& r : l.rows) job.out.push_back(convert::row_json(r));
  } catch (const Error& e) {
    job.error = e;
    job.reason = std::string(error_kind_name(e.kind())) + ": " + e.message();
  }
}

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

pyb::object convert_rows(pyb::handle rows, const std::string& fmt_name, const std::string& model,
                         std::optional<std::string> name, std::optional<std::string> polyfill, pyb::handle kwargs,
                         pyb::handle special_tokens, bool train_on_prompt, bool last_turn_only, bool split,
                         bool strict, pyb::handle bad_rows, pyb::handle stats, int threads, bool as_json) {
  std::optional<convert::Format> fmt = convert::format_from_name(fmt_name);
  if (!fmt) throw pyb::value_error("fmt: unknown format " + string_repr(fmt_name) + " (sharegpt, chatglm3, openai, qwen-agent)");
  if (threads < 1 || threads > 256) throw pyb::value_error("threads: expected 1 to 256, not " + std::to_string(threads));
  if (!bad_rows.is_none() && !PyList_Check(bad_rows.ptr()))
    throw pyb::type_error(std::string("bad_rows: expected a list to append to, not ") + Py_TYPE(bad_rows.ptr())->tp_name);
  if (!stats.is_none() && !PyDict_Check(stats.ptr()))
    throw pyb::type_error(std::string("stats: expected a dict to fill, not ") + Py_TYPE(stats.ptr())->tp_name);

  convert::LabelOptions opts;
  opts.template_name = name;
  opts.train_on_prompt = train_on_prompt;
  opts.last_turn_only = last_turn_only;
  opts.split_rewritten = split;
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

  // The rows, under the GIL: JSON text stays text (parsed by the workers), dicts become Values.
  std::vector<RowJob> jobs;
  {
    pyb::iterator it = pyb::iter(rows);
    size_t i = 0;
    for (pyb::handle item : it) {
      RowJob job;
      PyObject* o = item.ptr();
      if (PyUnicode_Check(o) || PyBytes_Check(o)) {
        std::string text = PyUnicode_Check(o) ? utf8(o)
                                              : std::string(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
        job.blank = std::string_view(text).find_first_not_of(" \t\r\n") == std::string_view::npos;
        job.text = std::move(text);
      } else if (PyDict_Check(o)) {
        job.row = to_value(o, "rows[" + std::to_string(i) + "]");
      } else {
        throw pyb::type_error("rows[" + std::to_string(i) + "]: expected a dict or a JSON line (str or bytes), not " +
                              Py_TYPE(o)->tp_name);
      }
      jobs.push_back(std::move(job));
      ++i;
    }
  }

  {
    pyb::gil_scoped_release unlocked;
    check_templates_compile(model, name);
    size_t n = std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(threads), jobs.size()));
    // One labeler per worker, made on this thread (convert.hpp: labelers share nothing).
    std::vector<std::unique_ptr<convert::Labeler>> labelers;
    for (size_t w = 0; w < n; ++w) labelers.push_back(std::make_unique<convert::Labeler>(model, opts));
    auto work = [&](size_t w) {
      for (size_t i = w; i < jobs.size(); i += n)
        if (!jobs[i].blank) convert_one(*labelers[w], *fmt, jobs[i]);
    };
    if (n == 1) {
      work(0);
    } else {
      std::vector<std::thread> pool;
      for (size_t w = 0; w < n; ++w) pool.emplace_back(work, w);
      for (auto& t : pool) t.join();
    }
  }

  pyb::list out;
  size_t counted = 0, converted = 0, extra = 0, bad = 0, turns = 0, served = 0;
  pyb::object warn = pyb::none();
  if (bad_rows.is_none()) warn = pyb::module_::import("warnings").attr("warn");
  pyb::object warning_class = pyb::module_::import("toolchat._errors").attr("BadRowWarning");
  for (size_t i = 0; i < jobs.size(); ++i) {
    RowJob& job = jobs[i];
    if (job.blank) continue;
    ++counted;
    std::string where = "rows[" + std::to_string(i) + "]: ";
    if (job.error) {
      ++bad;
      if (strict) raise_python_error(*job.error, where);
      if (!bad_rows.is_none()) {
        pyb::dict entry;
        entry["index"] = i;
        entry["error"] = error_kind_name(job.error->kind());
        entry["message"] = pyb::reinterpret_steal<pyb::object>(to_str(job.reason));
        bad_rows.cast<pyb::list>().append(entry);
      } else {
        warn(pyb::reinterpret_steal<pyb::object>(to_str(where + job.reason)), warning_class, 2);
      }
      continue;
    }
    ++converted;
    extra += job.out.size() - 1;
    turns += job.turns;
    served += job.served;
    for (const auto& r : job.out) {
      if (as_json) {
        out.append(pyb::reinterpret_steal<pyb::object>(to_str(r)));
      } else {
        PyObject* o = to_python(json::parse(r));
        if (!o) throw pyb::error_already_set();
        out.append(pyb::reinterpret_steal<pyb::object>(o));
      }
    }
  }
  if (!stats.is_none()) {
    pyb::dict s = stats.cast<pyb::dict>();
    s["rows"] = counted;
    s["converted"] = converted;
    s["extra_rows"] = extra;
    s["bad"] = bad;
    s["turns"] = turns;
    s["served"] = served;
  }
  return out;
}

}  // namespace

void bind_convert(pyb::module_& m) {
  m.def("convert_rows", &convert_rows, pyb::arg("rows"), pyb::arg("fmt"), pyb::arg("model"), pyb::kw_only(),
        pyb::arg("name") = pyb::none(), pyb::arg("polyfill") = pyb::none(), pyb::arg("kwargs") = pyb::none(),
        pyb::arg("special_tokens") = pyb::none(), pyb::arg("train_on_prompt") = false,
        pyb::arg("last_turn_only") = false, pyb::arg("split") = false, pyb::arg("strict") = false,
        pyb::arg("bad_rows") = pyb::none(), pyb::arg("stats") = pyb::none(), pyb::arg("threads") = 1,
        pyb::arg("as_json") = false,
        R"(Training-data rows -> the rows ``toolchat convert`` writes, in input order:
``{"text", "spans": [{"role", "train", "start", "end", "byte_start", "byte_end"}]}`` (start/end
in characters, byte_* in UTF-8 bytes); with ``split``, a rewritten turn adds a row of its own.

``rows``: dicts, or JSON lines (str or bytes, read exactly as the CLI reads a line; blank lines
are skipped). ``fmt``: ``sharegpt``, ``chatglm3``, ``openai`` or ``qwen-agent`` (the CLI's
``--from``). ``model``: the chat template's path (``--model``). The options are the CLI's flags:
``name``, ``polyfill`` ("all", "none" or a list), ``kwargs`` (a dict of template variables),
``special_tokens`` (a dict), ``train_on_prompt``, ``last_turn_only``, ``split``, ``strict``.

A bad row (bad JSON, the wrong shape, a template raising on it) is skipped and reported: appended
to ``bad_rows`` (a list) as ``{"index", "error", "message"}`` with the CLI's wording, else issued
as a BadRowWarning. With ``strict=True`` the first bad row raises instead (ValueError naming
``rows[i]`` and the JSON path, or the template's error). ``stats`` (a dict) receives the counts:
rows, converted, extra_rows, bad, turns, served (train = serve held). ``threads``: worker threads
(the GIL is released while converting). ``as_json=True`` returns each row as the JSON line the
CLI writes (without the newline) instead of a dict.)");
}

}  // namespace toolchat::py
