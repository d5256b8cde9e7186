// Sequence filters: sorting, grouping, mapping, selecting, aggregating, slicing.
// Jinja2 returns generators for several of these, and so do they here (GeneratorObj).
#include <algorithm>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "jinja/builtins/filters_impl.hpp"
#include "value/pyobjects.hpp"
#include "value/pystr.hpp"

namespace toolchat::jinja::fimpl {

namespace {

Value get_part(Renderer& r, const Value& x, const Value& part);

// The items to iterate: a list's own vector (lists are immutable here), else a copy in scratch.
const std::vector<Value>& items_of(const Value& v, std::vector<Value>& scratch) {
  if (v.is_list()) return v.items();
  scratch = iterate(v);
  return scratch;
}

// Runs `body`, which fills `items`, as a generator function: an error it raises is kept
// for the consumer (Python raises it when iteration gets there, never if nobody iterates).
template <class F>
Value generator(const char* func, F&& body) {
  std::vector<Value> items;
  std::unique_ptr<Error> err;
  try {
    body(items);
  } catch (Error& e) {
    if (e.kind() == ErrorKind::LimitError) throw;
    err = std::make_unique<Error>(e);
  }
  Value g = make_generator(func, std::move(items));
  g.as<GeneratorObj>()->error = std::move(err);
  return g;
}

Value undefined_hint(std::string msg) {
  auto* u = new UndefinedObj();
  u->hint = std::move(msg);
  return Value(u);
}

// jinja2.filters._prepare_attribute_parts
std::vector<Value> attr_parts(const Value& attribute) {
  std::vector<Value> parts;
  if (attribute.is_none()) return parts;
  if (!attribute.is_str()) {
    parts.push_back(attribute);
    return parts;
  }
  for (const std::string& p : pystr::split(attribute.str(), std::string_view("."))) {
    bool digits = !p.empty() && p.size() <= 18 &&
                  std::all_of(p.begin(), p.end(), [](char c) { return c >= '0' && c <= '9'; });
    parts.push_back(digits ? Value::integer(std::stoll(p)) : Value::string(p));
  }
  return parts;
}

// make_attrgetter(environment, attribute, postprocess, default)
struct AttrGetter {
  std::vector<Value> parts;
  bool lower = false;
  Value def;  // None / not given: no substitution
  AttrGetter(const Value& attribute, bool ignore, Value d = Value::none())
      : parts(attr_parts(attribute)), lower(ignore), def(std::move(d)) {}
  mutable uint32_t hint = 0;  // DictObj::find_hinted for a one-part string path
  Value operator()(Renderer& r, const Value& item) const {
    if (parts.size() == 1 && def.is_none() && !lower && item.is_dict() && parts[0].is_str()) {
      if (const Value* v = item.dict_obj().find_hinted(parts[0].str(), hint)) return *v;
    }
    Value x = item;
    for (const Value& p : parts) {
      x = get_part(r, x, p);
      if (!def.is_none() && x.is_undefined()) x = def;
    }
    return lower ? ignore_case(x) : x;
  }
};

// make_multi_attrgetter: a list of one value per comma-separated path.
struct MultiAttrGetter {
  std::vector<std::vector<Value>> paths;
  bool lower = false;
  MultiAttrGetter(const Value& attribute, bool ignore) : lower(ignore) {
    if (attribute.is_str()) {
      for (const std::string& a : pystr::split(attribute.str(), std::string_view(",")))
        paths.push_back(attr_parts(Value::string(a)));
    } else {
      paths.push_back(attr_parts(attribute));
    }
  }
  Value operator()(Renderer& r, const Value& item) const {
    std::vector<Value> out;
    out.reserve(paths.size());
    for (const auto& path : paths) {
      Value x = item;
      for (const Value& p : path) x = get_part(r, x, p);
      out.push_back(lower ? ignore_case(x) : x);
    }
    return Value::list(std::move(out));
  }
};

// environment.getitem for one path part: a string part on a sequence is an attribute
// lookup in Jinja2 (obj['x'] fails, then getattr), e.g. groupby's .grouper / .list.
Value get_part(Renderer& r, const Value& x, const Value& part) {
  if (part.is_str() && x.is_list()) return r.getattr(x, part.str());
  return r.getitem(x, part);
}

bool arg_truthy(const ArgBinder& b, size_t i) { return b.has(i) && truthy(b.get(i)); }

[[noreturn]] void no_named(const char* what, const Value& name) {
  std::string msg = std::string("No ") + what + " named " + py_repr(name) + ".";
  if (name.is_undefined()) {
    std::string inner;
    try {
      raise_undefined(name);
    } catch (const Error& e) {
      inner = e.message();
    }
    msg += " (" + inner + "; did you forget to quote the callable name?)";
  }
  throw Error(ErrorKind::TemplateRuntimeError, std::move(msg));
}

Value sorted_by_keys(Renderer& r, const std::vector<Value>& items, const std::vector<Value>& keys, bool reverse) {
  std::vector<size_t> order = sorted_order(r, keys, reverse);
  std::vector<Value> out;
  out.reserve(items.size());
  for (size_t i : order) out.push_back(items[i]);
  return Value::list(std::move(out));
}

}  // namespace

// ---- conversions ----

Value f_list(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_list", a, {"value"});
  ArgBinder b("sync_do_list", a, {}, 0, 1);
  std::vector<Value> items = iterate(v);
  r.charge(items.size() / 16 + 1);
  return Value::list(std::move(items));
}

Value f_items(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_items", a, {"value"});
  ArgBinder b("do_items", a, {}, 0, 1);
  return generator("do_items", [&](std::vector<Value>& out) {
    if (v.is_undefined()) return;
    if (!v.is_dict()) type_error("Can only get item pairs from a mapping.");
    for (const auto& [k, x] : v.dict_obj().entries) out.push_back(Value::tuple({k, x}));
  });
}

Value f_first(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_first", a, {"environment", "seq"});
  ArgBinder b("sync_do_first", a, {}, 0, 2);
  if (v.is_list()) {
    if (v.items().empty()) return undefined_hint("No first item, sequence was empty.");
    return v.items().front();
  }
  if (v.is_dict()) {
    if (v.dict_obj().size() == 0) return undefined_hint("No first item, sequence was empty.");
    return v.dict_obj().entries.front().first;
  }
  if (v.is_obj(ObjKind::Generator)) {  // next(iter(seq)): takes one item
    Value x;
    if (!v.as<GeneratorObj>()->next(x)) return undefined_hint("No first item, sequence was empty.");
    return x;
  }
  std::vector<Value> items = iterate(v);
  if (items.empty()) return undefined_hint("No first item, sequence was empty.");
  return items.front();
}

Value f_last(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_last", a, {"environment", "seq"});
  ArgBinder b("do_last", a, {}, 0, 2);
  if (!(v.is_list() || v.is_dict() || v.is_str() || v.is_undefined()))
    type_error(std::string("'") + type_name(v) + "' object is not reversible");
  if (v.is_list()) {
    if (v.items().empty()) return undefined_hint("No last item, sequence was empty.");
    return v.items().back();
  }
  std::vector<Value> items = iterate(v);
  if (items.empty()) return undefined_hint("No last item, sequence was empty.");
  return items.back();
}

Value f_random(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_random", a, {"context", "seq"});
  ArgBinder b("do_random", a, {}, 0, 2);
  int64_t n = py_len(v);
  if (n == 0) return undefined_hint("No random item, sequence was empty.");
  // Deterministic: a fixed-seed generator, so the same input always gives the same pick.
  std::mt19937_64 gen(0x746f6f6c63686174ULL);
  int64_t idx = n == 1 ? 0 : static_cast<int64_t>(gen() % static_cast<uint64_t>(n));
  if (v.is_dict()) {
    const Value* found = v.dict_obj().find(Value::integer(idx));
    if (!found) throw Error(ErrorKind::KeyError, std::to_string(idx));
    return *found;
  }
  return iterate(v)[static_cast<size_t>(idx)];
}

Value f_reverse(Renderer&, const Value& v, CallArgs& a) {
  reject_implicit("do_reverse", a, {"value"});
  ArgBinder b("do_reverse", a, {}, 0, 1);
  if (v.is_str()) {
    std::string out = pystr::slice(v.str(), std::nullopt, std::nullopt, -1);
    return str_value(std::move(out), v.is_markup());
  }
  // reversed(value) when the type has it, else list(value) reversed.
  const char* it = nullptr;
  if (v.is_list()) {
    switch (v.list_obj().lkind) {
      case ListKind::List: it = "list_reverseiterator"; break;
      case ListKind::Tuple: it = "reversed"; break;
      case ListKind::DictKeys: it = "dict_reversekeyiterator"; break;
      case ListKind::DictValues: it = "dict_reversevalueiterator"; break;
      case ListKind::DictItems: it = "dict_reverseitemiterator"; break;
      case ListKind::Range: it = "range_iterator"; break;
    }
  } else if (v.is_dict()) {
    it = "dict_reversekeyiterator";
  } else if (v.is_obj(ObjKind::Bytes) || v.is_undefined()) {  // Undefined: __len__ 0 + __getitem__
    it = "reversed";
  } else if (!v.is_undefined() && !v.is_obj(ObjKind::Generator)) {
    filter_arg_error("argument must be iterable");
  }
  std::vector<Value> items = iterate(v);
  std::reverse(items.begin(), items.end());
  if (!it) return Value::list(std::move(items));
  std::string repr = std::string(it) + " object";
  static const char* const kReprs[] = {"list_reverseiterator object", "reversed object", "dict_reversekeyiterator object",
                                       "dict_reversevalueiterator object", "dict_reverseitemiterator object",
                                       "range_iterator object"};
  const char* tr = kReprs[0];
  for (const char* r : kReprs) if (repr == r) tr = r;
  return make_iterator(it, tr, std::move(items));
}

// ---- join / sum ----

Value f_join(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_join", a, {"eval_ctx", "value"});
  ArgBinder b("sync_do_join", a, {"d", "attribute"}, 0, 2);
  std::string d = b.has(0) ? soft_str(b.get(0)) : std::string();
  std::vector<Value> items = iterate(v);
  bool use_attr = b.has(1) && !b.get(1).is_none();
  AttrGetter getter(use_attr ? b.get(1) : Value::none(), false);
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += d;
    if (use_attr) py_str_append(out, getter(r, items[i]));
    else py_str_append(out, items[i]);
    if ((i & 63) == 63) {
      r.charge(64);
      check_size(r, out.size(), "join");
    }
  }
  r.charge(items.size() % 64 + 1);
  check_size(r, out.size(), "join");
  return Value::string(std::move(out));
}

Value f_sum(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_sum", a, {"environment", "iterable"});
  ArgBinder b("sync_do_sum", a, {"attribute", "start"}, 0, 2);
  Value acc = b.get_or(1, Value::integer(0));
  if (acc.is_str()) type_error("sum() can't sum strings [use ''.join(seq) instead]");
  bool use_attr = b.has(0) && !b.get(0).is_none();
  AttrGetter getter(use_attr ? b.get(0) : Value::none(), false);
  std::vector<Value> items = iterate(v);
  r.charge(items.size() + 1);
  for (const Value& x : items) acc = py_add(acc, use_attr ? getter(r, x) : x);
  return acc;
}

// ---- min / max ----

namespace {
Value min_or_max(Renderer& r, const char* func, const Value& v, CallArgs& a, bool is_max) {
  reject_implicit(func, a, {"environment", "value"});
  ArgBinder b(func, a, {"case_sensitive", "attribute"}, 0, 2);
  std::vector<Value> items = iterate(v);
  if (items.empty()) return undefined_hint("No aggregated item, sequence was empty.");
  AttrGetter key(b.has(1) ? b.get(1) : Value::none(), !arg_truthy(b, 0));
  r.charge(items.size());
  size_t best = 0;
  Value best_key = key(r, items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    Value k = key(r, items[i]);
    if (py_order(is_max ? Order::Gt : Order::Lt, k, best_key)) {
      best = i;
      best_key = k;
    }
  }
  return items[best];
}
}  // namespace

Value f_max(Renderer& r, const Value& v, CallArgs& a) { return min_or_max(r, "do_max", v, a, true); }
Value f_min(Renderer& r, const Value& v, CallArgs& a) { return min_or_max(r, "do_min", v, a, false); }

// ---- sorting ----

Value f_sort(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_sort", a, {"environment", "value"});
  ArgBinder b("do_sort", a, {"reverse", "case_sensitive", "attribute"}, 0, 2);
  MultiAttrGetter key(b.has(2) ? b.get(2) : Value::none(), !arg_truthy(b, 1));
  std::vector<Value> items = iterate(v);
  std::vector<Value> keys;
  keys.reserve(items.size());
  for (const Value& x : items) keys.push_back(key(r, x));
  return sorted_by_keys(r, items, keys, arg_truthy(b, 0));
}

Value f_dictsort(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_dictsort", a, {"value"});
  ArgBinder b("do_dictsort", a, {"case_sensitive", "by", "reverse"}, 0, 1);
  size_t pos;
  Value by = b.get_or(1, Value::string("key"));
  if (by.is_str() && by.str() == "key") pos = 0;
  else if (by.is_str() && by.str() == "value") pos = 1;
  else filter_arg_error("You can only sort by either \"key\" or \"value\"");
  if (v.is_undefined()) raise_undefined(v);
  if (!v.is_dict())
    throw Error(ErrorKind::AttributeError, std::string("'") + type_name(v) + "' object has no attribute 'items'");
  bool cs = arg_truthy(b, 0);
  std::vector<Value> items, keys;
  for (const auto& [k, x] : v.dict_obj().entries) {
    items.push_back(Value::tuple({k, x}));
    const Value& kv = pos == 0 ? k : x;
    keys.push_back(cs ? kv : ignore_case(kv));
  }
  return sorted_by_keys(r, items, keys, arg_truthy(b, 2));
}

namespace {
// Marks a groupby result tuple so that getattr can answer .grouper / .list
// (jinja2.filters._GroupTuple is a namedtuple).
constexpr int64_t kGroupTupleTag = 0x47524f5550;  // "GROUP"
Value group_tuple(Value grouper, std::vector<Value> list) {
  Value t = Value::tuple({std::move(grouper), Value::list(std::move(list))});
  t.list_obj().range_start = kGroupTupleTag;
  return t;
}
}  // namespace

Value f_groupby(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_groupby", a, {"environment", "value"});
  ArgBinder b("sync_do_groupby", a, {"attribute", "default", "case_sensitive"}, 1, 2);
  bool cs = arg_truthy(b, 2);
  Value def = b.get_or(1, Value::none());
  AttrGetter expr(b.get(0), !cs, def);
  std::vector<Value> items = iterate(v);
  std::vector<Value> keys;
  keys.reserve(items.size());
  for (const Value& x : items) keys.push_back(expr(r, x));
  std::vector<size_t> order = sorted_order(r, keys, false);
  std::vector<Value> out;
  size_t i = 0;
  while (i < order.size()) {
    Value k = expr(r, items[order[i]]);
    std::vector<Value> group{items[order[i]]};
    size_t j = i + 1;
    for (; j < order.size(); ++j) {
      Value kj = expr(r, items[order[j]]);
      if (!py_equal(k, kj)) break;
      group.push_back(items[order[j]]);
    }
    if (!cs) {
      AttrGetter output(b.get(0), false, def);
      k = output(r, group[0]);
    }
    out.push_back(group_tuple(std::move(k), std::move(group)));
    i = j;
  }
  return Value::list(std::move(out));
}

Value f_unique(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_unique", a, {"environment", "value"});
  ArgBinder b("sync_do_unique", a, {"case_sensitive", "attribute"}, 0, 2);
  AttrGetter getter(b.has(1) ? b.get(1) : Value::none(), !arg_truthy(b, 0));
  return generator("sync_do_unique", [&](std::vector<Value>& out) {
  std::vector<Value> items = iterate(v);
  r.charge(8 * items.size() + 1);  // a hash, a bucket probe and an insertion per item
  std::unordered_multimap<size_t, Value> seen;
  for (const Value& item : items) {
    Value k = getter(r, item);
    check_hashable(k);
    // by hash: a text is told from another one (text_watch.hpp; the items may come from a generator)
    if (text_watch::watching() && text_watch::holds_marker(k)) text_watch::note_inspected();
    size_t h = k.is_undefined() ? 0x5bd1e995u : py_hash(k);
    bool found = false;
    auto range = seen.equal_range(h);
    for (auto it = range.first; it != range.second; ++it)
      if (py_equal(it->second, k)) { found = true; break; }
    if (!found) {
      seen.emplace(h, k);
      out.push_back(item);
    }
  }
  });
}

// ---- batch / slice ----

Value f_batch(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("do_batch", a, {"value"});
  ArgBinder b("do_batch", a, {"linecount", "fill_with"}, 1, 1);
  const Value& linecount = b.get(0);
  Value fill = b.get_or(1, Value::none());
  return generator("do_batch", [&](std::vector<Value>& out) {
  std::vector<Value> items = iterate(v);
  r.charge(items.size() + 1);
  std::vector<Value> tmp;
  for (const Value& item : items) {
    if (py_equal(Value::integer(static_cast<int64_t>(tmp.size())), linecount)) {
      out.push_back(Value::list(std::move(tmp)));
      tmp.clear();
    }
    tmp.push_back(item);
  }
  if (!tmp.empty()) {
    Value len = Value::integer(static_cast<int64_t>(tmp.size()));
    if (!fill.is_none() && py_less(len, linecount)) {
      int64_t n = as_index(py_sub(linecount, len));
      check_size(r, static_cast<size_t>(n) * sizeof(Value), "batch");
      for (int64_t i = 0; i < n; ++i) tmp.push_back(fill);
    }
    out.push_back(Value::list(std::move(tmp)));
  }
  });
}

Value f_slice(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_slice", a, {"value"});
  ArgBinder b("sync_do_slice", a, {"slices", "fill_with"}, 1, 1);
  Value slices_v = b.get(0);
  Value fill = b.get_or(1, Value::none());
  return generator("sync_do_slice", [&](std::vector<Value>& out) {
  std::vector<Value> seq = iterate(v);
  Value length = Value::integer(static_cast<int64_t>(seq.size()));
  Value per_v = py_floordiv(length, slices_v);
  Value extra_v = py_mod(length, slices_v);
  int64_t slices = as_index(slices_v);
  int64_t per = as_index(per_v), extra = as_index(extra_v);
  check_size(r, static_cast<size_t>(std::max<int64_t>(slices, 0)) * sizeof(Value), "slice");
  r.charge(static_cast<uint64_t>(std::max<int64_t>(slices, 0)) + seq.size());
  int64_t offset = 0;
  const int64_t n = static_cast<int64_t>(seq.size());
  for (int64_t s = 0; s < slices; ++s) {
    int64_t start = offset + s * per;
    if (s < extra) ++offset;
    int64_t end = offset + (s + 1) * per;
    // seq[start:end] with Python clamping
    auto clamp = [&](int64_t x) {
      if (x < 0) x += n;
      return std::clamp<int64_t>(x, 0, n);
    };
    int64_t st = clamp(start), en = clamp(end);
    std::vector<Value> tmp;
    for (int64_t i = st; i < en; ++i) tmp.push_back(seq[static_cast<size_t>(i)]);
    if (!fill.is_none() && s >= extra) tmp.push_back(fill);
    out.push_back(Value::list(std::move(tmp)));
  }
  });
}

// ---- map / select / reject ----

Value f_map(Renderer& r, const Value& v, CallArgs& a) {
  reject_implicit("sync_do_map", a, {"context", "value"});
  return generator("sync_do_map", [&](std::vector<Value>& out) {
  if (!truthy(v)) return;
  std::vector<Value> scratch;
  bool has_attr = false;
  for (const auto& kw : a.kw)
    if (kw.first == "attribute") has_attr = true;
  if (a.pos.empty() && has_attr) {
    Value attribute, def = Value::none();
    for (const auto& kw : a.kw) {
      if (kw.first == "attribute") attribute = kw.second;
      else if (kw.first == "default") def = kw.second;
    }
    for (const auto& kw : a.kw)
      if (kw.first != "attribute" && kw.first != "default")
        filter_arg_error("Unexpected keyword argument " + string_repr(kw.first));
    AttrGetter getter(attribute, false, def);
    for (const Value& item : items_of(v, scratch)) {
      r.charge(1);
      out.push_back(getter(r, item));
    }
    return;
  }
  if (a.pos.empty()) filter_arg_error("map requires a filter argument");
  Value name = a.pos[0];
  CallArgs rest;
  rest.pos.assign(a.pos.begin() + 1, a.pos.end());
  rest.kw = a.kw;
  for (const Value& item : items_of(v, scratch)) {
    if (!name.is_str()) no_named("filter", name);
    CallArgs call = rest;
    out.push_back(r.call_filter(name.str(), item, call));
  }
  });
}

namespace {
// Which of Jinja2's four select/reject filters runs.
struct SelectMode {
  bool select;       // keep the items that pass (select), else those that fail (reject)
  bool lookup_attr;  // test an attribute of each item (selectattr/rejectattr), else the item
};

Value select_or_reject(Renderer& r, const char* func, const Value& v, CallArgs& a, SelectMode mode) {
  const bool select = mode.select, lookup_attr = mode.lookup_attr;
  reject_implicit(func, a, {"context", "value"});
  return generator("select_or_reject", [&](std::vector<Value>& out) {
  if (!truthy(v)) return;
  std::vector<Value> scratch;
  size_t off = 0;
  bool use_attr = false;
  Value attr;
  if (lookup_attr) {
    if (a.pos.empty()) filter_arg_error("Missing parameter for attribute name");
    attr = a.pos[0];
    use_attr = true;
    off = 1;
  }
  bool has_test = a.pos.size() > off;
  Value name = has_test ? a.pos[off] : Value();
  CallArgs rest;
  if (has_test) {
    rest.pos.assign(a.pos.begin() + static_cast<ptrdiff_t>(off) + 1, a.pos.end());
    rest.kw = a.kw;
  }
  AttrGetter getter(use_attr ? attr : Value::none(), false);
  // The test is looked up once (an unknown name raises through call_test at the first item, as
  // before); builtin tests only read their arguments, so every item gets `rest` itself.
  TestFn test = has_test && name.is_str() ? find_test(name.str()) : nullptr;
  for (const Value& item : items_of(v, scratch)) {
    r.charge(1);
    Value x = use_attr ? getter(r, item) : item;
    bool ok;
    if (has_test) {
      if (!name.is_str()) no_named("test", name);
      ok = test ? r.run_test(test, x, rest) : r.call_test(name.str(), x, rest);
    } else {
      ok = truthy(x);
    }
    if (ok == select) out.push_back(item);
  }
  });
}
}  // namespace

Value f_select(Renderer& r, const Value& v, CallArgs& a) {
  return select_or_reject(r, "sync_do_select", v, a, {.select = true, .lookup_attr = false});
}
Value f_reject(Renderer& r, const Value& v, CallArgs& a) {
  return select_or_reject(r, "sync_do_reject", v, a, {.select = false, .lookup_attr = false});
}
Value f_selectattr(Renderer& r, const Value& v, CallArgs& a) {
  return select_or_reject(r, "sync_do_selectattr", v, a, {.select = true, .lookup_attr = true});
}
Value f_rejectattr(Renderer& r, const Value& v, CallArgs& a) {
  return select_or_reject(r, "sync_do_rejectattr", v, a, {.select = false, .lookup_attr = true});
}

}  // namespace toolchat::jinja::fimpl
