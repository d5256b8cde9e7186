// The globals of a transformers render: Jinja2's defaults (range = sandbox safe_range,
// dict, namespace, cycler, joiner, lipsum) and transformers' raise_exception /
// strftime_now. Messages follow the Python callables the oracle uses.
//
// lipsum: Jinja2's generate_lorem_ipsum is random; this one has the same structure
// (n paragraphs of min..max-1 words from the same word list, capitalised sentences,
// commas, full stops; html -> Markup "<p>..</p>" joined by "\n", else "\n\n") but is
// deterministic (fixed-seed generator), so its text never matches Python byte for byte.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "jinja/builtins.hpp"
#include "jinja/builtins/methods_extra.hpp"
#include "jinja/objects.hpp"
#include "value/bigint.hpp"
#include "value/pystr.hpp"

namespace toolchat::jinja {

namespace {

[[noreturn]] void type_error(std::string m) { throw Error(ErrorKind::TypeError, std::move(m)); }

int64_t as_int(const Value& v) {
  if (v.is_int() || v.is_bool()) return v.int_like();
  type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer");
}

constexpr int64_t kMaxRange = 100000;

// range() with an argument beyond int64: exact bounds; len() past ssize_t is OverflowError.
Value big_range(Renderer& r, const std::vector<Value>& p) {
  BigInt start, stop, step(1);
  if (p.size() == 1) {
    stop = to_bigint(p[0]);
  } else {
    start = to_bigint(p[0]);
    stop = to_bigint(p[1]);
    if (p.size() == 3) step = to_bigint(p[2]);
  }
  if (step.is_zero()) throw Error(ErrorKind::ValueError, "range() arg 3 must not be zero");
  bool up = step.sign() > 0;
  const BigInt& lo = up ? start : stop;
  const BigInt& hi = up ? stop : start;
  BigInt len, rem;
  if (BigInt::compare(lo, hi) < 0) {
    BigInt::divmod(hi - lo - BigInt(1), up ? step : -step, len, rem);
    len = len + BigInt(1);
  }
  if (!len.fits_int64()) throw_ssize_overflow();
  int64_t count = len.to_int64();
  if (count > kMaxRange)
    throw Error(ErrorKind::OverflowError,
                "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  r.charge(static_cast<uint64_t>(count));
  std::vector<Value> items;
  BigInt v = start;
  for (int64_t i = 0; i < count; ++i, v = v + step) items.push_back(make_int(v));
  Value out = Value::list(std::move(items), ListKind::Range);
  out.list_obj().range_big = {make_int(start), make_int(stop), make_int(step)};
  return out;
}

Value g_range(Renderer& r, FunctionObj&, CallArgs& a) {
  if (!a.kw.empty()) type_error("safe_range() got an unexpected keyword argument '" + a.kw[0].first + "'");
  size_t n = a.pos.size();
  if (n == 0) type_error("range expected at least 1 argument, got 0");
  if (n > 3) type_error("range expected at most 3 arguments, got " + std::to_string(n));
  bool big = false;
  for (const Value& x : a.pos) {
    if (x.is_bigint()) big = true;
    else as_int(x);  // TypeError for a non-int, in argument order
  }
  if (big) return big_range(r, a.pos);
  int64_t start = 0, stop, step = 1;
  if (n == 1) {
    stop = as_int(a.pos[0]);
  } else {
    start = as_int(a.pos[0]);
    stop = as_int(a.pos[1]);
    if (n == 3) step = as_int(a.pos[2]);
  }
  if (step == 0) throw Error(ErrorKind::ValueError, "range() arg 3 must not be zero");
  __int128 len = 0;
  if (step > 0 && start < stop) len = ((__int128)stop - start - 1) / step + 1;
  else if (step < 0 && start > stop) len = ((__int128)start - stop - 1) / (-(__int128)step) + 1;
  if (len > kMaxRange)
    throw Error(ErrorKind::OverflowError,
                "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  r.charge(static_cast<uint64_t>(len));
  std::vector<Value> items;
  items.reserve(static_cast<size_t>(len));
  int64_t v = start;
  for (int64_t i = 0; i < static_cast<int64_t>(len); ++i, v += step) items.push_back(Value::integer(v));
  Value out = Value::list(std::move(items), ListKind::Range);
  ListObj& l = out.list_obj();
  l.range_start = start;
  l.range_stop = stop;
  l.range_step = step;
  return out;
}

void set_key(DictObj& d, const Value& k, const Value& v) {
  check_hashable(k);
  d.set(k, v);
}

// dict(*args, **kwargs) as CPython builds it.
Value build_dict(Renderer& r, CallArgs& a) {
  if (a.pos.size() > 1) type_error("dict expected at most 1 argument, got " + std::to_string(a.pos.size()));
  Value out = Value::dict();
  DictObj& d = out.dict_obj();
  d.entries.reserve(a.kw.size() + (!a.pos.empty() && a.pos[0].is_dict() ? a.pos[0].dict_obj().size() : 0));
  if (!a.pos.empty()) {
    const Value& src = a.pos[0];
    if (src.is_dict()) {
      for (auto& [k, v] : src.dict_obj().entries) d.set(k, v);
    } else {
      std::vector<Value> elems = iterate(src);
      r.charge(elems.size());
      for (size_t i = 0; i < elems.size(); ++i) {
        const Value& e = elems[i];
        std::vector<Value> pair;
        if (e.is_list() || e.is_dict() || e.is_str()) pair = iterate(e);
        else
          type_error("cannot convert dictionary update sequence element #" + std::to_string(i) + " to a sequence");
        if (pair.size() != 2)
          throw Error(ErrorKind::ValueError, "dictionary update sequence element #" + std::to_string(i) +
                                                 " has length " + std::to_string(pair.size()) + "; 2 is required");
        set_key(d, pair[0], pair[1]);
      }
    }
  }
  for (auto& [k, v] : a.kw) d.set(Value::string(k), v);
  return out;
}

Value g_dict(Renderer& r, FunctionObj&, CallArgs& a) { return build_dict(r, a); }

Value g_namespace(Renderer& r, FunctionObj&, CallArgs& a) {
  Value attrs = build_dict(r, a);
  auto* ns = new NamespaceObj();
  Value out(ns);
  ns->attrs = std::move(attrs);
  r.track_mutable(out);
  return out;
}

Value g_cycler(Renderer&, FunctionObj&, CallArgs& a) {
  if (!a.kw.empty()) type_error("Cycler.__init__() got an unexpected keyword argument '" + a.kw[0].first + "'");
  // Python raises RuntimeError; ErrorKind has no such class.
  if (a.pos.empty()) throw Error(ErrorKind::RuntimeError, "at least one item has to be provided");
  auto* c = new CyclerObj();
  Value out(c);
  c->items = a.pos;
  return out;
}

Value g_joiner(Renderer&, FunctionObj&, CallArgs& a) {
  ArgBinder b("Joiner.__init__", a, {"sep"}, 0, 1);
  auto* j = new JoinerObj();
  Value out(j);
  j->sep = b.has(0) ? py_str(b.get(0)) : std::string(", ");
  return out;
}

// ---- lipsum
constexpr const char* kLoremWords =
    "a ac accumsan ad adipiscing aenean aliquam aliquet amet ante aptent arcu at auctor augue bibendum "
    "blandit class commodo condimentum congue consectetuer consequat conubia convallis cras cubilia cum "
    "curabitur curae cursus dapibus diam dictum dictumst dignissim dis dolor donec dui duis egestas eget "
    "eleifend elementum elit enim erat eros est et etiam eu euismod facilisi facilisis fames faucibus "
    "felis fermentum feugiat fringilla fusce gravida habitant habitasse hac hendrerit hymenaeos iaculis "
    "id imperdiet in inceptos integer interdum ipsum justo lacinia lacus laoreet lectus leo libero ligula "
    "litora lobortis lorem luctus maecenas magna magnis malesuada massa mattis mauris metus mi molestie "
    "mollis montes morbi mus nam nascetur natoque nec neque netus nibh nisi nisl non nonummy nostra nulla "
    "nullam nunc odio orci ornare parturient pede pellentesque penatibus per pharetra phasellus placerat "
    "platea porta porttitor posuere potenti praesent pretium primis proin pulvinar purus quam quis quisque "
    "rhoncus ridiculus risus rutrum sagittis sapien scelerisque sed sem semper senectus sit sociis sociosqu "
    "sodales sollicitudin suscipit suspendisse taciti tellus tempor tempus tincidunt torquent tortor "
    "tristique turpis ullamcorper ultrices ultricies urna ut varius vehicula vel velit venenatis vestibulum "
    "vitae vivamus viverra volutpat vulputate";

struct Lcg {
  uint64_t s = 0x2545F4914F6CDD1DULL;
  uint64_t next() { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return s >> 33; }
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo)); }
};

Value g_lipsum(Renderer& r, FunctionObj&, CallArgs& a) {
  ArgBinder b("generate_lorem_ipsum", a, {"n", "html", "min", "max"}, 0, 0);
  int64_t n = b.has(0) ? as_int(b.get(0)) : 5;
  bool html = b.has(1) ? truthy(b.get(1)) : true;
  int64_t lo = b.has(2) ? as_int(b.get(2)) : 20;
  int64_t hi = b.has(3) ? as_int(b.get(3)) : 100;
  std::vector<std::string> words;
  {
    std::string all = kLoremWords;
    size_t i = 0;
    while (i < all.size()) {
      size_t j = all.find(' ', i);
      if (j == std::string::npos) j = all.size();
      words.push_back(all.substr(i, j - i));
      i = j + 1;
    }
  }
  Lcg rng;
  std::vector<std::string> result;
  for (int64_t p = 0; p < n; ++p) {
    if (lo >= hi)
      throw Error(ErrorKind::ValueError, "empty range for randrange() (" + std::to_string(lo) + ", " +
                                             std::to_string(hi) + ", " + std::to_string(hi - lo) + ")");
    int64_t count = rng.range(lo, hi);
    r.charge(16 * static_cast<uint64_t>(count));  // a draw, a copy and the punctuation per word
    bool next_cap = true;
    int64_t last_comma = 0, last_full = 0;
    std::string last, para;
    for (int64_t idx = 0; idx < count; ++idx) {
      std::string w;
      do { w = words[static_cast<size_t>(rng.range(0, static_cast<int64_t>(words.size())))]; } while (w == last);
      last = w;
      if (next_cap) { w = pystr::capitalize(w); next_cap = false; }
      if (idx - rng.range(3, 8) > last_comma) { last_comma = idx; last_full += 2; w += ','; }
      if (idx - rng.range(10, 20) > last_full) { last_comma = last_full = idx; w += '.'; next_cap = true; }
      if (!para.empty()) para += ' ';
      para += w;
    }
    if (!para.empty() && para.back() == ',') para.back() = '.';
    else if (para.empty() || para.back() != '.') para += '.';
    result.push_back(std::move(para));
  }
  std::string out;
  for (size_t i = 0; i < result.size(); ++i) {
    if (html) { if (i) out += '\n'; out += "<p>" + result[i] + "</p>"; }
    else { if (i) out += "\n\n"; out += result[i]; }
  }
  return html ? Value::markup(std::move(out)) : Value::string(std::move(out));
}

// ---- transformers globals
Value g_raise_exception(Renderer&, FunctionObj&, CallArgs& a) {
  ArgBinder b("make_environment.<locals>.raise_exception", a, {"message"}, 1, 0);
  throw Error(ErrorKind::TemplateError, py_str(b.get(0)));
}

// datetime.strftime: %f (microseconds), %z and %Z (empty for a naive datetime) are
// Python's own; everything else is the C library's strftime, as CPython does.
std::string py_strftime(std::string_view fmt, const std::tm& tm, int micro) {
  std::string f;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%' || i + 1 >= fmt.size()) { f += c; continue; }
    char d = fmt[++i];
    if (d == 'f') {
      char buf[8];
      std::snprintf(buf, sizeof buf, "%06d", micro);
      f += buf;
    } else if (d == 'z' || d == 'Z') {
      // naive datetime: nothing
    } else {
      f += '%';
      f += d;
    }
  }
  if (f.empty()) return std::string();
  std::tm t = tm;
  size_t cap = 256 + f.size() * 4;
  for (int attempt = 0; attempt < 6; ++attempt, cap *= 8) {
    std::string buf(cap, '\0');
    size_t n = std::strftime(buf.data(), buf.size(), f.c_str(), &t);
    if (n > 0) { buf.resize(n); return buf; }
  }
  return std::string();
}

Value g_strftime_now(Renderer&, FunctionObj& fn, CallArgs& a) {
  ArgBinder b("make_environment.<locals>.strftime_now", a, {"fmt"}, 1, 0);
  const Value& f = b.get(0);
  if (!f.is_str()) type_error(std::string("strftime() argument 1 must be str, not ") + type_name(f));
  std::tm tm{};
  int micro = 0;
  if (fn.state.is_list()) {
    const auto& s = fn.state.items();
    // A fixed clock formats the same way on every render: the last text is kept per thread.
    struct Last {
      int64_t clock[7] = {};
      std::string fmt, text;
      bool valid = false;
    };
    thread_local Last last;
    bool same = last.valid && last.fmt == f.str();
    for (size_t i = 0; same && i < 7; ++i) same = last.clock[i] == s[i].as_int();
    if (same) return Value::string(last.text);
    tm.tm_year = static_cast<int>(s[0].as_int()) - 1900;
    tm.tm_mon = static_cast<int>(s[1].as_int()) - 1;
    tm.tm_mday = static_cast<int>(s[2].as_int());
    tm.tm_hour = static_cast<int>(s[3].as_int());
    tm.tm_min = static_cast<int>(s[4].as_int());
    tm.tm_sec = static_cast<int>(s[5].as_int());
    micro = static_cast<int>(s[6].as_int());
    // weekday / yearday from the calendar date (timegm normalises, no time zone involved)
    std::tm probe = tm;
    time_t t = timegm(&probe);
    std::tm norm{};
    gmtime_r(&t, &norm);
    tm.tm_wday = norm.tm_wday;
    tm.tm_yday = norm.tm_yday;
    tm.tm_isdst = -1;
    last.valid = false;
    last.text = py_strftime(f.str(), tm, micro);
    for (size_t i = 0; i < 7; ++i) last.clock[i] = s[i].as_int();
    last.fmt = f.str();
    last.valid = true;
    return Value::string(last.text);
  } else {
    auto now = std::chrono::system_clock::now();
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
    time_t secs = static_cast<time_t>(us / 1000000);
    micro = static_cast<int>(us % 1000000);
    localtime_r(&secs, &tm);
    tm.tm_isdst = -1;
  }
  return Value::string(py_strftime(f.str(), tm, micro));
}

Value fn_value(FunctionObj::Fn f, const char* name) { return Value(new FunctionObj(f, name)); }

}  // namespace

Value make_global(std::string_view name, const RenderOptions& cfg) {
  if (name == "range") return fn_value(g_range, "safe_range");
  if (name == "dict") return fn_value(g_dict, "dict");
  if (name == "namespace") return fn_value(g_namespace, "namespace");
  if (name == "cycler") return fn_value(g_cycler, "cycler");
  if (name == "joiner") return fn_value(g_joiner, "joiner");
  if (name == "lipsum") return fn_value(g_lipsum, "generate_lorem_ipsum");
  if (name == "raise_exception") return fn_value(g_raise_exception, "raise_exception");
  if (name == "strftime_now") {
    if (!cfg.fixed_now) return Value(new FunctionObj(g_strftime_now, "strftime_now"));
    // On a fixed clock the function is the same on every render: the last one is kept per thread
    // (its counts are the thread's own; a render only reads it).
    struct Made {
      int64_t clock[7] = {};
      Value fn;
    };
    thread_local Made made;
    const int64_t clock[7] = {cfg.year, cfg.month, cfg.day, cfg.hour, cfg.minute, cfg.second, cfg.microsecond};
    if (made.fn.is_obj(ObjKind::Function) && std::equal(clock, clock + 7, made.clock)) return made.fn;
    auto* f = new FunctionObj(g_strftime_now, "strftime_now");
    Value out(f);
    std::vector<Value> fields;
    for (int64_t c : clock) fields.push_back(Value::integer(c));
    f->state = Value::tuple(std::move(fields));
    std::copy(clock, clock + 7, made.clock);
    made.fn = out;
    return out;
  }
  return Value::undefined();
}

}  // namespace toolchat::jinja
