// str methods (CPython 3.11 semantics and messages) on UTF-8 strings, via value/pystr.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "jinja/builtins.hpp"
#include "jinja/builtins/filters_impl.hpp"
#include "jinja/builtins/methods_extra.hpp"
#include "value/pyobjects.hpp"
#include "jinja/builtins/methods_impl.hpp"
#include "value/pyformat.hpp"
#include "value/pystr.hpp"
#include "value/unicode.hpp"

namespace toolchat::jinja {

using namespace mimpl;

std::string_view mimpl::req_str(const Value& v, const char* prefix) {
  if (!v.is_str()) type_error(std::string(prefix) + type_name(v));
  return v.str();
}

namespace {

using Args = CallArgs;

Value str_list(std::vector<std::string> parts) {
  std::vector<Value> out;
  out.reserve(parts.size());
  for (auto& p : parts) out.push_back(Value::string(std::move(p)));
  return Value::list(std::move(out));
}

template <std::string (*F)(std::string_view)>
Value m_case(Renderer&, const Value& s, Args&) {
  return Value::string(F(s.str()));
}
template <bool (*F)(std::string_view) noexcept>
Value m_pred(Renderer&, const Value& s, Args&) {
  return Value::boolean(F(s.str()));
}

// Refuses a result of `bytes` bytes beyond max_value_bytes before it is built.
void check_result_size(Renderer& r, uint64_t bytes, const char* method) {
  if (bytes > r.limits().max_value_bytes)
    throw Error(ErrorKind::LimitError, std::string("the result of str.") + method +
                                           "() exceeds the value size limit (" +
                                           std::to_string(r.limits().max_value_bytes) + " bytes)");
}

// Bytes of `s` padded to `width` code points with `fill_bytes`-byte fill characters.
uint64_t padded_size(std::string_view s, int64_t width, size_t fill_bytes) {
  if (width <= 0) return s.size();
  int64_t len = pystr::length(s);
  if (width <= len) return s.size();
  uint64_t pad = static_cast<uint64_t>(width - len);
  return pad > (UINT64_MAX - s.size()) / std::max<size_t>(fill_bytes, 1) ? UINT64_MAX : s.size() + pad * fill_bytes;
}

// ---- padding
using PadFn = std::string (*)(std::string_view, std::int64_t, std::string_view);
Value pad_impl(Renderer& r, const Value& s, Args& a, const char* name, const char* qual, PadFn f) {
  clinic_pos(name, qual, a, 1, 2);
  int64_t w = as_index(a.pos[0]);
  std::string fill = " ";
  if (a.pos.size() > 1) {
    if (!a.pos[1].is_str())
      type_error(std::string("The fill character must be a unicode character, not ") + type_name(a.pos[1]));
    fill = a.pos[1].str();
  }
  if (pystr::length(fill) == 1) check_result_size(r, padded_size(s.str(), w, fill.size()), name);
  return Value::string(f(s.str(), w, fill));
}
Value m_center(Renderer& r, const Value& s, Args& a) { return pad_impl(r, s, a, "center", "str.center", pystr::center); }
Value m_ljust(Renderer& r, const Value& s, Args& a) { return pad_impl(r, s, a, "ljust", "str.ljust", pystr::ljust); }
Value m_rjust(Renderer& r, const Value& s, Args& a) { return pad_impl(r, s, a, "rjust", "str.rjust", pystr::rjust); }
Value m_zfill(Renderer& r, const Value& s, Args& a) {
  one_arg("str.zfill", a);
  int64_t w = as_index(a.pos[0]);
  check_result_size(r, padded_size(s.str(), w, 1), "zfill");
  return Value::string(pystr::zfill(s.str(), w));
}
// Bytes of pystr::expandtabs(s, tabsize), counted without building it.
uint64_t expanded_size(std::string_view s, int64_t tabsize) {
  uint64_t bytes = 0;
  int64_t col = 0;
  for (unsigned char b : s) {
    if (b == '\t') {
      if (tabsize > 0) {
        int64_t incr = tabsize - col % tabsize;
        col += incr;
        bytes += static_cast<uint64_t>(incr);
      }
      continue;
    }
    ++bytes;
    if ((b & 0xC0) != 0x80) ++col;  // a code point starts
    if (b == '\n' || b == '\r') col = 0;
  }
  return bytes;
}
Value m_expandtabs(Renderer& r, const Value& s, Args& a) {
  std::optional<Value> v[1];
  clinic_kw("expandtabs", a, {"tabsize"}, v);
  int64_t tabsize = v[0] ? as_index(*v[0]) : 8;
  check_result_size(r, expanded_size(s.str(), tabsize), "expandtabs");
  return Value::string(pystr::expandtabs(s.str(), tabsize));
}

// ---- search
struct Range { pystr::Index start, end; };
Range range_args(const Args& a) {
  Range r;
  if (a.pos.size() > 1) r.start = slice_index(a.pos[1]);
  if (a.pos.size() > 2) r.end = slice_index(a.pos[2]);
  return r;
}
using SearchFn = std::int64_t (*)(std::string_view, std::string_view, pystr::Index, pystr::Index);
Value search_impl(const Value& s, Args& a, const char* name, SearchFn f) {
  parse_tuple(name, a, 1, 3);
  std::string_view sub = req_str(a.pos[0], "must be str, not ");
  Range r = range_args(a);
  return Value::integer(f(s.str(), sub, r.start, r.end));
}
Value m_find(Renderer&, const Value& s, Args& a) { return search_impl(s, a, "find", pystr::find); }
Value m_rfind(Renderer&, const Value& s, Args& a) { return search_impl(s, a, "rfind", pystr::rfind); }
Value m_index(Renderer&, const Value& s, Args& a) { return search_impl(s, a, "index", pystr::index); }
Value m_rindex(Renderer&, const Value& s, Args& a) { return search_impl(s, a, "rindex", pystr::rindex); }
Value m_count(Renderer&, const Value& s, Args& a) { return search_impl(s, a, "count", pystr::count); }

Value affix_impl(const Value& s, Args& a, const char* name, bool starts) {
  parse_tuple(name, a, 1, 3);
  Range r = range_args(a);
  const Value& p = a.pos[0];
  if (p.is_str())
    return Value::boolean(starts ? pystr::startswith(s.str(), p.str(), r.start, r.end)
                                 : pystr::endswith(s.str(), p.str(), r.start, r.end));
  if (p.is_list() && p.list_obj().lkind == ListKind::Tuple) {
    std::vector<std::string> items;
    for (const Value& it : p.items()) {
      if (!it.is_str())
        type_error(std::string("tuple for ") + name + " must only contain str, not " + type_name(it));
      items.emplace_back(it.str());
    }
    std::span<const std::string> sp(items);
    return Value::boolean(starts ? pystr::startswith(s.str(), sp, r.start, r.end)
                                 : pystr::endswith(s.str(), sp, r.start, r.end));
  }
  type_error(std::string(name) + " first arg must be str or a tuple of str, not " + type_name(p));
}
Value m_startswith(Renderer&, const Value& s, Args& a) { return affix_impl(s, a, "startswith", true); }
Value m_endswith(Renderer&, const Value& s, Args& a) { return affix_impl(s, a, "endswith", false); }

// ---- strip / prefix
using StripFn = std::string (*)(std::string_view, std::optional<std::string_view>);
Value strip_impl(const Value& s, Args& a, const char* name, const char* qual, StripFn f) {
  clinic_pos(name, qual, a, 0, 1);
  std::optional<std::string_view> chars;
  if (!a.pos.empty() && !a.pos[0].is_none()) {
    if (!a.pos[0].is_str()) type_error(std::string(name) + " arg must be None or str");
    chars = a.pos[0].str();
  }
  return Value::string(f(s.str(), chars));
}
Value m_strip(Renderer&, const Value& s, Args& a) { return strip_impl(s, a, "strip", "str.strip", pystr::strip); }
Value m_lstrip(Renderer&, const Value& s, Args& a) { return strip_impl(s, a, "lstrip", "str.lstrip", pystr::lstrip); }
Value m_rstrip(Renderer&, const Value& s, Args& a) { return strip_impl(s, a, "rstrip", "str.rstrip", pystr::rstrip); }
Value m_removeprefix(Renderer&, const Value& s, Args& a) {
  one_arg("str.removeprefix", a);
  return Value::string(pystr::removeprefix(s.str(), req_str(a.pos[0], "removeprefix() argument must be str, not ")));
}
Value m_removesuffix(Renderer&, const Value& s, Args& a) {
  one_arg("str.removesuffix", a);
  return Value::string(pystr::removesuffix(s.str(), req_str(a.pos[0], "removesuffix() argument must be str, not ")));
}

// ---- split / join / partition / replace
using SplitFn = std::vector<std::string> (*)(std::string_view, std::optional<std::string_view>, std::int64_t);
// Each part is a new string (two allocations): kPartSteps steps beyond the list item.
constexpr uint64_t kPartSteps = 8;
Value split_impl(Renderer& r, const Value& s, Args& a, const char* name, SplitFn f) {
  std::optional<Value> v[2];
  clinic_kw(name, a, {"sep", "maxsplit"}, v);
  std::optional<std::string_view> sep;
  if (v[0] && !v[0]->is_none()) sep = req_str(*v[0], "must be str or None, not ");
  int64_t maxsplit = v[1] ? as_index(*v[1]) : -1;
  std::vector<std::string> parts = f(s.str(), sep, maxsplit);
  r.charge(parts.size() * kPartSteps);
  return str_list(std::move(parts));
}
Value m_split(Renderer& r, const Value& s, Args& a) { return split_impl(r, s, a, "split", pystr::split); }
Value m_rsplit(Renderer& r, const Value& s, Args& a) { return split_impl(r, s, a, "rsplit", pystr::rsplit); }
Value m_splitlines(Renderer& r, const Value& s, Args& a) {
  std::optional<Value> v[1];
  clinic_kw("splitlines", a, {"keepends"}, v);
  bool keep = v[0] ? as_index(*v[0]) != 0 : false;
  std::vector<std::string> parts = pystr::splitlines(s.str(), keep);
  r.charge(parts.size() * kPartSteps);
  return str_list(std::move(parts));
}
Value part_impl(const Value& s, Args& a, const char* qual, bool right) {
  one_arg(qual, a);
  std::string_view sep = req_str(a.pos[0], "must be str, not ");
  auto p = right ? pystr::rpartition(s.str(), sep) : pystr::partition(s.str(), sep);
  return Value::tuple({Value::string(std::move(p[0])), Value::string(std::move(p[1])), Value::string(std::move(p[2]))});
}
Value m_partition(Renderer&, const Value& s, Args& a) { return part_impl(s, a, "str.partition", false); }
Value m_rpartition(Renderer&, const Value& s, Args& a) { return part_impl(s, a, "str.rpartition", true); }
Value m_join(Renderer& r, const Value& s, Args& a) {
  one_arg("str.join", a);
  const Value& it = a.pos[0];
  if (!(it.is_list() || it.is_dict() || it.is_str() || it.is_undefined())) type_error("can only join an iterable");
  std::vector<Value> items = iterate(it);
  std::vector<std::string_view> parts;
  parts.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    if (!items[i].is_str())
      type_error("sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
    parts.emplace_back(items[i].str());
  }
  r.charge(items.size());
  return Value::string(pystr::join(s.str(), std::span<const std::string_view>(parts)));
}
Value m_replace(Renderer& r, const Value& s, Args& a) {
  clinic_pos("replace", "str.replace", a, 2, 3);
  std::string_view old = req_str(a.pos[0], "replace() argument 1 must be str, not ");
  std::string_view neu = req_str(a.pos[1], "replace() argument 2 must be str, not ");
  int64_t count = a.pos.size() > 2 ? as_index(a.pos[2]) : -1;
  std::string out = pystr::replace(s.str(), old, neu, count);
  r.charge(out.size() / 64);
  return Value::string(std::move(out));
}

// ---- format
pyformat::FieldResolver resolver(Renderer& r) {
  pyformat::FieldResolver res;
  res.getattr = [&r](const Value& o, std::string_view n) { return r.getattr(o, n); };
  res.getitem = [&r](const Value& o, const Value& k) { return r.getitem(o, k); };
  return res;
}
Value m_format(Renderer& r, const Value& s, Args& a) {
  return Value::string(pyformat::format(std::string(s.str()), a.pos, a.kw, resolver(r), r.limits().max_value_bytes));
}
Value m_format_map(Renderer& r, const Value& s, Args& a) {
  if (!a.kw.empty()) type_error("format_map() takes no keyword arguments");
  if (a.pos.size() != 1)
    type_error("format_map() takes exactly one argument (" + std::to_string(a.pos.size()) + " given)");
  return Value::string(pyformat::format_map(std::string(s.str()), a.pos[0], resolver(r), r.limits().max_value_bytes));
}

// ---- encode
}  // namespace
std::string mimpl::norm_encoding(std::string e) {
  for (char& c : e) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c == '-' || c == ' ') c = '_';
  }
  if (e == "utf_8" || e == "utf8" || e == "u8" || e == "utf" || e == "cp65001") return "utf-8";
  if (e == "ascii" || e == "us_ascii" || e == "646" || e == "us") return "ascii";
  if (e == "latin_1" || e == "latin1" || e == "iso_8859_1" || e == "iso8859_1" || e == "l1" ||
      e == "8859" || e == "cp819" || e == "latin" || e == "iso_ir_100")
    return "latin-1";
  return "";
}
namespace {
std::string char_escape(char32_t c) {
  char buf[16];
  if (c < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
  else if (c < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  else std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
  return buf;
}
}  // namespace
std::string mimpl::codec_args(const char* name, const CallArgs& a, std::string& errors) {
  std::optional<Value> v[2];
  clinic_kw(name, a, {"encoding", "errors"}, v);
  std::string enc = "utf-8";
  errors = "strict";
  std::string prefix = std::string(name) + "() argument ";
  if (v[0]) enc = req_str(*v[0], (prefix + "'encoding' must be str, not ").c_str());
  if (v[1]) errors = req_str(*v[1], (prefix + "'errors' must be str, not ").c_str());
  std::string codec = norm_encoding(enc);
  if (codec.empty()) throw Error(ErrorKind::LookupError, "unknown encoding: " + enc);
  return codec;
}
namespace {
Value m_encode(Renderer&, const Value& s, Args& a) {
  std::string errors;
  std::string codec = codec_args("encode", a, errors);
  if (codec == "utf-8") return make_bytes(std::string(s.str()));
  char32_t limit = codec == "ascii" ? 0x80 : 0x100;
  std::u32string cps = uni::decode(s.str());
  std::string out;
  for (size_t i = 0; i < cps.size(); ++i) {
    char32_t c = cps[i];
    if (c < limit) { out.push_back(static_cast<char>(c)); continue; }
    if (errors == "ignore") continue;
    if (errors == "replace") { out.push_back('?'); continue; }
    if (errors == "backslashreplace") { out += char_escape(c); continue; }
    if (errors == "xmlcharrefreplace") { out += "&#" + std::to_string(static_cast<uint32_t>(c)) + ";"; continue; }
    size_t j = i;
    while (j + 1 < cps.size() && cps[j + 1] >= limit) ++j;
    std::string range = limit == 0x80 ? "128" : "256";
    if (j == i)
      throw Error(ErrorKind::UnicodeEncodeError, "'" + codec + "' codec can't encode character '" + char_escape(c) + "' in position " +
                  std::to_string(i) + ": ordinal not in range(" + range + ")");
    throw Error(ErrorKind::UnicodeEncodeError, "'" + codec + "' codec can't encode characters in position " +
                                                   std::to_string(i) + "-" + std::to_string(j) + ": ordinal not in range(" + range + ")");
  }
  return make_bytes(std::move(out));
}

// ---- translate / maketrans
Value m_maketrans(Renderer&, const Value&, Args& a) {
  clinic_pos("maketrans", "str.maketrans", a, 1, 3);
  Value d = Value::dict();
  DictObj& out = d.dict_obj();
  if (a.pos.size() == 1) {
    if (!a.pos[0].is_dict()) type_error("if you give only one argument to maketrans it must be a dict");
    for (auto& [k, v] : a.pos[0].dict_obj().entries) {
      if (k.is_str()) {
        std::u32string cps = uni::decode(k.str());
        if (cps.size() != 1) value_error("string keys in translate table must be of length 1");
        out.set(Value::integer(cps[0]), v);
      } else if (k.is_int() || k.is_bool()) {
        out.set(Value::integer(k.int_like()), v);
      } else {
        type_error("keys in translate table must be strings or integers");
      }
    }
    return d;
  }
  std::string_view x = req_str(a.pos[0], "maketrans() argument 1 must be str, not ");
  std::string_view y = req_str(a.pos[1], "maketrans() argument 2 must be str, not ");
  std::u32string xs = uni::decode(x), ys = uni::decode(y);
  if (xs.size() != ys.size()) value_error("the first two maketrans arguments must have equal length");
  for (size_t i = 0; i < xs.size(); ++i) out.set(Value::integer(xs[i]), Value::integer(ys[i]));
  if (a.pos.size() > 2) {
    for (char32_t c : uni::decode(req_str(a.pos[2], "maketrans() argument 3 must be str, not ")))
      out.set(Value::integer(c), Value::none());
  }
  return d;
}
Value m_translate(Renderer& r, const Value& s, Args& a) {
  one_arg("str.translate", a);
  const Value& table = a.pos[0];
  std::string out;
  size_t i = 0;
  std::string_view src = s.str();
  while (i < src.size()) {
    size_t start = i;
    char32_t c = uni::decode_next(src, i);
    Value m;
    bool found = false;
    if (table.is_dict()) {
      if (const Value* p = table.dict_obj().find(Value::integer(c))) { m = *p; found = true; }
    } else if (table.is_list()) {
      if (c < table.items().size()) { m = table.items()[c]; found = true; }
    } else {
      m = r.getitem(table, Value::integer(c));
      found = !m.is_undefined();
    }
    if (!found) { out.append(src, start, i - start); continue; }
    if (m.is_none()) continue;
    if (m.is_str()) { out += m.str(); continue; }
    if (m.is_int() || m.is_bool()) {
      int64_t v = m.int_like();
      if (v < 0 || v > 0x10ffff) value_error("character mapping must be in range(0x110000)");
      uni::append_utf8(out, static_cast<char32_t>(v));
      continue;
    }
    type_error("character mapping must return integer, None or str");
  }
  return Value::string(std::move(out));
}

struct Entry { std::string_view name; MethodFn fn; };

template <MethodFn F>
Value guarded(Renderer& r, const Value& s, CallArgs& a) {
  try {
    return F(r, s, a);
  } catch (const pystr::PyError& e) {
    rethrow_py(e);
  }
}

#define NOARG_CASE(NAME)                                                     \
  Value m_##NAME(Renderer& r, const Value& s, Args& a) {                     \
    no_args("str." #NAME, a);                                                \
    return m_case<pystr::NAME>(r, s, a);                                     \
  }
#define NOARG_PRED(NAME)                                                     \
  Value m_##NAME(Renderer& r, const Value& s, Args& a) {                     \
    no_args("str." #NAME, a);                                                \
    return m_pred<pystr::NAME>(r, s, a);                                     \
  }
NOARG_CASE(capitalize) NOARG_CASE(casefold) NOARG_CASE(lower) NOARG_CASE(upper)
NOARG_CASE(swapcase) NOARG_CASE(title)
NOARG_PRED(isalnum) NOARG_PRED(isalpha) NOARG_PRED(isascii) NOARG_PRED(isdecimal)
NOARG_PRED(isdigit) NOARG_PRED(isidentifier) NOARG_PRED(islower) NOARG_PRED(isnumeric)
NOARG_PRED(isprintable) NOARG_PRED(isspace) NOARG_PRED(istitle) NOARG_PRED(isupper)
#undef NOARG_CASE
#undef NOARG_PRED

#define E(NAME) {#NAME, guarded<m_##NAME>}
constexpr Entry kStrMethods[] = {
    E(capitalize), E(casefold), E(center), E(count), E(encode), E(endswith), E(expandtabs),
    E(find), E(format), E(format_map), E(index), E(isalnum), E(isalpha), E(isascii),
    E(isdecimal), E(isdigit), E(isidentifier), E(islower), E(isnumeric), E(isprintable),
    E(isspace), E(istitle), E(isupper), E(join), E(ljust), E(lower), E(lstrip), E(maketrans),
    E(partition), E(removeprefix), E(removesuffix), E(replace), E(rfind), E(rindex), E(rjust),
    E(rpartition), E(rsplit), E(rstrip), E(split), E(splitlines), E(startswith), E(strip),
    E(swapcase), E(title), E(translate), E(upper), E(zfill),
};
#undef E

// getattr and `s['key']` on a str look every name up here, methods or not (a template testing
// `content['text']` on a str content, say): an open-addressed index from a hash of the name's
// length and end bytes to its entry, built at compile time, instead of a scan of the table.
constexpr size_t kStrIndexSlots = 128;
constexpr size_t str_method_hash(std::string_view n) {
  return (n.size() * 131 + static_cast<unsigned char>(n.front()) * 31 + static_cast<unsigned char>(n.back())) %
         kStrIndexSlots;
}
struct StrMethodIndex {
  uint8_t slot[kStrIndexSlots] = {};  // entry index + 1; 0: empty
  constexpr StrMethodIndex() {
    for (size_t i = 0; i < std::size(kStrMethods); ++i) {
      size_t h = str_method_hash(kStrMethods[i].name);
      while (slot[h]) h = (h + 1) % kStrIndexSlots;
      slot[h] = static_cast<uint8_t>(i + 1);
    }
  }
};
constexpr StrMethodIndex kStrMethodIndex;
static_assert(std::size(kStrMethods) < kStrIndexSlots / 2);

// markupsafe.Markup overrides: results are Markup again (lists and tuples of Markup for
// split/partition), and the arguments it inserts into the text are escaped first.
Value to_markup(Value v) {
  if (v.is_str()) return v.is_markup() ? v : Value::markup(v.str());
  if (v.is_list()) {
    std::vector<Value> items;
    items.reserve(v.items().size());
    for (const Value& x : v.items()) items.push_back(to_markup(x));
    return Value::list(std::move(items), v.list_obj().lkind);
  }
  return v;
}
template <MethodFn F, int EscapedArg>
Value markup_method(Renderer& r, const Value& s, Args& a) {
  if (EscapedArg >= 0 && static_cast<size_t>(EscapedArg) < a.pos.size()) {
    Args b = a;
    b.pos[EscapedArg] = fimpl::escape_value(b.pos[EscapedArg]);
    return to_markup(guarded<F>(r, s, b));
  }
  return to_markup(guarded<F>(r, s, a));
}
Value markup_join(Renderer& r, const Value& s, Args& a) {
  if (a.pos.size() != 1 || !a.kw.empty()) return guarded<m_join>(r, s, a);
  std::vector<Value> items;
  for (const Value& x : iterate(a.pos[0])) items.push_back(fimpl::escape_value(x));
  Args b;
  b.pos.push_back(Value::list(std::move(items)));
  return to_markup(guarded<m_join>(r, s, b));
}
#define M(NAME, ARG) {#NAME, markup_method<m_##NAME, ARG>}
const Entry kMarkupMethods[] = {
    M(capitalize, -1), M(title, -1), M(lower, -1), M(upper, -1), M(replace, 1), M(ljust, 1), M(rjust, 1),
    M(lstrip, -1), M(rstrip, -1), M(center, 1), M(strip, -1), M(translate, -1), M(expandtabs, -1),
    M(swapcase, -1), M(zfill, -1), M(casefold, -1), M(removeprefix, -1), M(removesuffix, -1),
    M(partition, -1), M(rpartition, -1), M(split, -1), M(rsplit, -1), M(splitlines, -1),
    {"join", markup_join},
};
#undef M

}  // namespace


namespace mimpl {
MethodLookup find_str_method(const Value& self, std::string_view name, MethodFn* out) {
  if (self.is_markup()) {
    for (const Entry& e : kMarkupMethods)
      if (name == e.name) {
        if (out) *out = e.fn;
        return MethodLookup::Found;
      }
  }
  if (name.empty()) return MethodLookup::NotFound;
  for (size_t h = str_method_hash(name); kStrMethodIndex.slot[h]; h = (h + 1) % kStrIndexSlots) {
    const Entry& e = kStrMethods[kStrMethodIndex.slot[h] - 1];
    if (e.name == name) {
      if (out) *out = e.fn;
      return MethodLookup::Found;
    }
  }
  return MethodLookup::NotFound;
}
}  // namespace mimpl

}  // namespace toolchat::jinja
