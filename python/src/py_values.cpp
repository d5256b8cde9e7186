#include "py_values.hpp"

#include <pybind11/pybind11.h>

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "toolchat/json.hpp"
#include "value/frozen.hpp"

namespace toolchat::py {

namespace {

// Thrown while converting and completed on the way out: each container adds its own step, so the
// success path builds no paths at all.
struct PathError {
  bool type_error;
  std::string path;  // ".messages[2].content" form, the root excluded
  std::string message;
};

bool is_identifier(std::string_view s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (unsigned char c : s)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

std::string key_step(const Value& key) {
  if (key.is_str() && is_identifier(key.str())) return "." + std::string(key.str());
  return "[" + py_repr(key) + "]";
}

// A compact ASCII str (most of them): its characters are its UTF-8. Python knows whether a str is
// ASCII: the Value is told, so the engine never scans it for that.
inline Value ascii_str(PyObject* str) {
  const auto n = static_cast<size_t>(PyUnicode_GET_LENGTH(str));
  const char* p = static_cast<const char*>(PyUnicode_DATA(str));
  StrObj* s = StrObj::make(n, [&](char* d) { std::memcpy(d, p, n); });
  s->ascii = 1;
  return Value(s);
}

// Dict keys, process-wide: a compact ASCII str's text -> a frozen string Value. Found by the
// str's own hash (computed once per str object, by Python) and its bytes, so equal keys from
// different objects (each json.loads makes its own) share one entry. Frozen strings are never
// counted nor freed, so the Values made from them go to renders on any thread without atomics.
// Read and filled with the GIL held (every conversion holds it). Bounded: once full, a new key is
// converted each time it occurs. Never freed (used until the interpreter exits).
class SharedKeys {
 public:
  // The key's Value, or nullptr when it is not in the table and the table is full.
  const Value* find(PyObject* k) {
    // First by the object: the same key objects come back call after call (a program's literals,
    // a dataset's dicts), and an address is found in a few instructions.
    for (size_t i = object_home(k);; i = (i + 1) & (kSlots - 1)) {
      if (objects_[i].obj == k) return objects_[i].value;
      if (!objects_[i].obj) break;
    }
    const Value* v = by_text(k);
    if (v && objects_used_ < kMaxKeys) {
      // The reference keeps the object, so its address, this key's for as long as it is listed.
      Py_INCREF(k);
      size_t i = object_home(k);
      while (objects_[i].obj) i = (i + 1) & (kSlots - 1);
      objects_[i] = {k, v};
      ++objects_used_;
    }
    return v;
  }

 private:
  const Value* by_text(PyObject* k) {
    Py_hash_t h = reinterpret_cast<PyASCIIObject*>(k)->hash;
    if (h == -1) h = PyObject_Hash(k);  // a str's hash cannot fail
    const auto n = static_cast<size_t>(PyUnicode_GET_LENGTH(k));
    const char* p = static_cast<const char*>(PyUnicode_DATA(k));
    for (size_t i = static_cast<size_t>(h) & (kSlots - 1);; i = (i + 1) & (kSlots - 1)) {
      Slot& s = slots_[i];
      if (!s.str) return n <= kMaxLength && used_ < kMaxKeys ? add(s, h, p, n) : nullptr;
      if (s.hash == h && s.str->size() == n && same_bytes(s.str->data(), p, n)) return &s.value;
    }
  }
  // Addresses of one size class differ in few bits: a multiplicative hash spreads them.
  static size_t object_home(PyObject* k) {
    return static_cast<size_t>((reinterpret_cast<uintptr_t>(k) * 0x9E3779B97F4A7C15ull) >> (64 - kBits));
  }
  struct Object {
    PyObject* obj = nullptr;  // null: empty (the table is never full)
    const Value* value = nullptr;
  };
  struct Slot {
    Py_hash_t hash = 0;
    const StrObj* str = nullptr;  // null: empty (the table is never full)
    Value value;
  };
  const Value* add(Slot& s, Py_hash_t h, const char* p, size_t n) {
    StrObj* o = StrObj::make(n, [&](char* d) { std::memcpy(d, p, n); });
    o->ascii = 1;
    s.value = Value(o);
    frozen_.freeze(s.value);
    s.hash = h;
    s.str = o;
    ++used_;
    return &s.value;
  }
  static constexpr unsigned kBits = 11;
  static constexpr size_t kSlots = size_t{1} << kBits, kMaxKeys = kSlots / 2, kMaxLength = 64;
  Object objects_[kSlots];
  size_t objects_used_ = 0;
  Slot slots_[kSlots];
  size_t used_ = 0;
  FrozenValues frozen_;
};

SharedKeys& shared_keys() {
  static SharedKeys* keys = new SharedKeys();
  return *keys;
}

Value convert_int(PyObject* o) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
  if (!overflow) {
    if (v == -1 && PyErr_Occurred()) throw pybind11::error_already_set();
    return Value::integer(v);
  }
  // Beyond int64: the decimal text, read back as toolchat's big int (Python's int semantics).
  PyObject* text = PyObject_Str(o);
  if (!text) throw pybind11::error_already_set();
  std::string s;
  try {
    s = utf8(text);
  } catch (...) {
    Py_DECREF(text);
    throw;
  }
  Py_DECREF(text);
  try {
    return json::parse(s);
  } catch (const Error& e) {
    throw PathError{false, "", e.message()};
  }
}

}  // namespace

Value Converter::dict(PyObject* o, int depth) {
  auto* d = new DictObj();
  Value out(d);
  auto& entries = d->entries;
  const Py_ssize_t n = PyDict_GET_SIZE(o);
  entries.reserve(static_cast<size_t>(n));
  PyObject *k, *v;
  Py_ssize_t pos = 0;
  SharedKeys& keys = shared_keys();
  // n entries, without the call that only finds the end (PyDict_Next checks its bounds itself,
  // should Python code run here change the dict: an int subclass's __str__).
  for (Py_ssize_t i = 0; i < n && PyDict_Next(o, &pos, &k, &v); ++i) {
    // A Python dict holds no two equal keys (Python's equality is the Value's), so the entry is
    // appended as is; the dict's index is built when first needed.
    const Value* known = PyUnicode_CheckExact(k) && PyUnicode_IS_COMPACT_ASCII(k) ? keys.find(k) : nullptr;
    Value key;  // a key not in the table
    if (!known) {
      if (PyUnicode_Check(k) || PyLong_Check(k) || PyFloat_Check(k) || k == Py_None) {
        key = convert(k, depth + 1);
      } else {
        throw PathError{true, "", std::string("keys must be str, int, float, bool or None, not ") + Py_TYPE(k)->tp_name};
      }
      known = &key;
    }
    try {
      Value val = convert(v, depth + 1);
      entries.emplace_back(*known, std::move(val));
    } catch (PathError& e) {
      e.path = key_step(*known) + e.path;
      throw;
    }
  }
  return out;
}

Value Converter::sequence(PyObject* o, int depth) {
  const bool tuple = PyTuple_Check(o);
  Py_ssize_t n = tuple ? PyTuple_GET_SIZE(o) : PyList_GET_SIZE(o);
  auto* l = new ListObj();
  Value out(l);
  l->lkind = tuple ? ListKind::Tuple : ListKind::List;
  auto& items = l->items;
  items.reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    // A list may change size during conversion only through other threads; re-check the bound.
    if (!tuple && i >= PyList_GET_SIZE(o)) break;
    PyObject* item = tuple ? PyTuple_GET_ITEM(o, i) : PyList_GET_ITEM(o, i);
    try {
      items.push_back(convert(item, depth + 1));
    } catch (PathError& e) {
      e.path = "[" + std::to_string(i) + "]" + e.path;
      throw;
    }
  }
  return out;
}

Value Converter::convert(PyObject* o, int depth) {
  // The most common first; each check but the float's reads a type flag.
  if (PyUnicode_Check(o)) return PyUnicode_IS_COMPACT_ASCII(o) ? ascii_str(o) : str_value(o);
  const bool dict = PyDict_Check(o), seq = !dict && (PyList_Check(o) || PyTuple_Check(o));
  if (dict || seq) {
    if (depth >= kMaxDepth)
      throw PathError{false, "", "nested deeper than " + std::to_string(kMaxDepth) + " levels (a container that holds itself?)"};
    return dict ? this->dict(o, depth) : sequence(o, depth);
  }
  if (o == Py_None) return Value::none();
  if (PyBool_Check(o)) return Value::boolean(o == Py_True);
  if (PyLong_Check(o)) return convert_int(o);
  if (PyFloat_Check(o)) return Value::floating(PyFloat_AS_DOUBLE(o));
  throw PathError{true, "",
                  std::string("expected a JSON value (dict, list, tuple, str, int, float, bool or None), not ") +
                      Py_TYPE(o)->tp_name};
}

Value Converter::operator()(PyObject* obj, std::string_view root) {
  try {
    return convert(obj, 0);
  } catch (const PathError& e) {
    std::string where = std::string(root) + e.path;
    if (e.type_error) throw pybind11::type_error(where + ": " + e.message);
    throw pybind11::value_error(where + ": " + e.message);
  }
}

Value str_value(PyObject* str) {
  if (PyUnicode_IS_COMPACT_ASCII(str)) return ascii_str(str);
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(str, &n);  // kept by the str: encoded once per object
  Value v = p ? Value::string(std::string_view(p, static_cast<size_t>(n))) : Value::string(utf8(str));
  v.str_obj()->ascii = p && PyUnicode_IS_ASCII(str) ? 1 : 0;
  return v;
}

std::string utf8(PyObject* str) {
  Py_ssize_t n = 0;
  if (const char* p = PyUnicode_AsUTF8AndSize(str, &n)) return std::string(p, static_cast<size_t>(n));
  PyErr_Clear();  // lone surrogates: kept as WTF-8, as toolchat strings hold them
  PyObject* bytes = PyUnicode_AsEncodedString(str, "utf-8", "surrogatepass");
  if (!bytes) throw pybind11::error_already_set();
  std::string s(PyBytes_AS_STRING(bytes), static_cast<size_t>(PyBytes_GET_SIZE(bytes)));
  Py_DECREF(bytes);
  return s;
}

namespace {

bool all_ascii(const char* p, size_t n) {
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t a, b, c, d;
    std::memcpy(&a, p + i, 8);
    std::memcpy(&b, p + i + 8, 8);
    std::memcpy(&c, p + i + 16, 8);
    std::memcpy(&d, p + i + 24, 8);
    if ((a | b | c | d) & kHigh) return false;
  }
  for (; i + 8 <= n; i += 8) {
    uint64_t a;
    std::memcpy(&a, p + i, 8);
    if (a & kHigh) return false;
  }
  for (; i < n; ++i)
    if (static_cast<unsigned char>(p[i]) >= 0x80) return false;
  return true;
}

}  // namespace

PyObject* to_str(std::string_view s) {
  // An ASCII text (most prompts) is its own characters: checked 32 bytes at a time and copied,
  // where Python's decoder checks and copies 8 at a time. Any other goes to the decoder.
  if (all_ascii(s.data(), s.size())) {
    PyObject* o = PyUnicode_New(static_cast<Py_ssize_t>(s.size()), 127);
    if (o && !s.empty()) std::memcpy(PyUnicode_DATA(o), s.data(), s.size());
    return o;
  }
  return PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogatepass");
}

Value to_value(PyObject* obj, std::string_view root) {
  Converter convert;
  return convert(obj, root);
}

namespace {

// Dict keys made into Python strs once per to_python call: rows and events repeat a few keys
// ("role", "start", "content" ...) many times. Compared by text: the keys are short.
class PyKeys {
 public:
  ~PyKeys() {
    for (auto& [k, o] : keys_) Py_DECREF(o);
  }
  PyObject* get(const Value& key) {  // a new reference
    if (!key.is_str() || key.str().size() > 32) return to_python_value(key);
    std::string_view s = key.str();
    for (auto& [k, o] : keys_)
      if (k == s) {
        Py_INCREF(o);
        return o;
      }
    PyObject* o = to_str(s);
    if (o && keys_.size() < 32) {
      PyUnicode_InternInPlace(&o);
      Py_INCREF(o);
      keys_.emplace_back(s, o);
    }
    return o;
  }
  PyObject* to_python_value(const Value& v);

 private:
  std::vector<std::pair<std::string, PyObject*>> keys_;
};

PyObject* PyKeys::to_python_value(const Value& v) {
  switch (v.type()) {
    case Type::Undefined:
    case Type::None: Py_RETURN_NONE;
    case Type::Bool: return PyBool_FromLong(v.as_bool());
    case Type::Int: return PyLong_FromLongLong(v.as_int());
    case Type::Float: return PyFloat_FromDouble(v.as_float());
    case Type::Str: return to_str(v.str());
    case Type::List: {
      const auto& items = v.items();
      const bool tuple = v.list_obj().lkind == ListKind::Tuple;
      PyObject* out = tuple ? PyTuple_New(static_cast<Py_ssize_t>(items.size()))
                            : PyList_New(static_cast<Py_ssize_t>(items.size()));
      if (!out) return nullptr;
      for (size_t i = 0; i < items.size(); ++i) {
        PyObject* x = to_python_value(items[i]);
        if (!x) {
          Py_DECREF(out);
          return nullptr;
        }
        if (tuple) PyTuple_SET_ITEM(out, static_cast<Py_ssize_t>(i), x);
        else PyList_SET_ITEM(out, static_cast<Py_ssize_t>(i), x);
      }
      return out;
    }
    case Type::Dict: {
      PyObject* out = PyDict_New();
      if (!out) return nullptr;
      for (const auto& [k, val] : v.dict_obj().entries) {
        PyObject* pk = get(k);
        PyObject* pv = pk ? to_python_value(val) : nullptr;
        int rc = pv ? PyDict_SetItem(out, pk, pv) : -1;
        Py_XDECREF(pk);
        Py_XDECREF(pv);
        if (rc < 0) {
          Py_DECREF(out);
          return nullptr;
        }
      }
      return out;
    }
    case Type::Object:
      if (v.is_bigint()) {
        std::string digits = py_str(v);
        return PyLong_FromString(digits.c_str(), nullptr, 10);
      }
      return to_str(py_str(v));
  }
  Py_RETURN_NONE;
}

}  // namespace

PyObject* to_python(const Value& v) {
  PyKeys keys;
  return keys.to_python_value(v);
}

}  // namespace toolchat::py
