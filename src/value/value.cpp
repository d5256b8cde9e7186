#include "toolchat/value.hpp"

#include <cmath>

namespace toolchat {

bool StrObj::is_ascii() {
  if (ascii < 0) {
    ascii = 1;
    for (unsigned char c : view())
      if (c >= 0x80) { ascii = 0; break; }
  }
  return ascii == 1;
}

Value Value::list(std::vector<Value> items, ListKind k) {
  auto* o = new ListObj();
  o->items = std::move(items);
  o->lkind = k;
  return Value(o);
}

Value Value::dict() { return Value(new DictObj()); }

Value Value::undefined_var(std::string name) {
  auto* u = new UndefinedObj();
  u->name = std::move(name);
  return Value(u);
}

Value Value::undefined_attr(const Value& obj, std::string name) {
  auto* u = new UndefinedObj();
  u->obj_type = object_type_repr(obj);
  u->name = std::move(name);
  return Value(u);
}

Value Value::undefined_item(const Value& obj, const Value& key) {
  auto* u = new UndefinedObj();
  u->obj_type = object_type_repr(obj);
  if (key.is_str()) {
    u->name = key.str();
  } else {
    u->name = py_repr(key);
    u->item = true;
  }
  return Value(u);
}

Value Value::undefined_unsafe(std::string hint) {
  auto* u = new UndefinedObj();
  u->hint = std::move(hint);
  u->security = true;
  return Value(u);
}

std::string UndefinedObj::message() const {
  if (!hint.empty()) return hint;
  if (!obj_type) return "'" + name + "' is undefined";
  if (item) return std::string(obj_type) + " has no element " + name;
  return string_repr(obj_type) + " has no attribute " + string_repr(name);
}

void raise_undefined(const Value& v) {
  if (v.obj()) {
    auto* u = v.undef_info();
    throw Error(u->security ? ErrorKind::SecurityError : ErrorKind::UndefinedError, u->message());
  }
  throw Error(ErrorKind::UndefinedError, "'undefined' is undefined");
}

// ---- DictObj ----

static constexpr size_t kIndexThreshold = 12;

int64_t DictObj::slot_of_str(std::string_view key) const {
  if (entries.size() < kIndexThreshold) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const Value& k = entries[i].first;
      if (k.is_str() && same_text(k.str(), key)) return static_cast<int64_t>(i);
    }
    return -1;
  }
  if (indexed_ != entries.size()) rebuild_index();
  size_t mask = index_.size() - 1;
  size_t h = std::hash<std::string_view>()(key) & mask;
  for (;; h = (h + 1) & mask) {
    int32_t e = index_[h];
    if (e < 0) return -1;
    const Value& k = entries[static_cast<size_t>(e)].first;
    if (k.is_str() && k.str() == key) return e;
  }
}

int64_t DictObj::slot_of(const Value& key) const {
  if (key.is_str()) return slot_of_str(key.str());
  // Non-string keys are rare in templates: a scan keeps the index string-only.
  for (size_t i = 0; i < entries.size(); ++i)
    if (!entries[i].first.is_str() && py_equal(entries[i].first, key))
      return static_cast<int64_t>(i);
  return -1;
}

void DictObj::build_index() const {
  if (entries.size() >= kIndexThreshold && indexed_ != entries.size()) rebuild_index();
}

void DictObj::rebuild_index() const {
  size_t cap = 16;
  while (cap < entries.size() * 2) cap <<= 1;
  index_.assign(cap, -1);
  for (size_t i = 0; i < entries.size(); ++i) {
    const Value& k = entries[i].first;
    if (!k.is_str()) continue;
    size_t h = std::hash<std::string_view>()(k.str()) & (cap - 1);
    while (index_[h] >= 0) h = (h + 1) & (cap - 1);
    index_[h] = static_cast<int32_t>(i);
  }
  indexed_ = entries.size();
}

const Value* DictObj::find(const Value& key) const {
  int64_t i = slot_of(key);
  return i < 0 ? nullptr : &entries[static_cast<size_t>(i)].second;
}

const Value* DictObj::find(std::string_view key) const {
  int64_t i = slot_of_str(key);
  return i < 0 ? nullptr : &entries[static_cast<size_t>(i)].second;
}

void DictObj::set(Value key, Value value) {
  int64_t i = slot_of(key);
  if (i >= 0) {
    entries[static_cast<size_t>(i)].second = std::move(value);
    return;
  }
  entries.emplace_back(std::move(key), std::move(value));
  // Keep a built index current while it has room; otherwise the next lookup rebuilds it.
  if (indexed_ + 1 == entries.size() && entries.size() * 2 <= index_.size()) {
    const Value& k = entries.back().first;
    if (k.is_str()) {
      size_t mask = index_.size() - 1;
      size_t h = std::hash<std::string_view>()(k.str()) & mask;
      while (index_[h] >= 0) h = (h + 1) & mask;
      index_[h] = static_cast<int32_t>(entries.size() - 1);
    }
    indexed_ = entries.size();
  }
}

// ---- errors ----

const char* error_kind_name(ErrorKind k) {
  switch (k) {
    case ErrorKind::TemplateSyntaxError: return "TemplateSyntaxError";
    case ErrorKind::TemplateAssertionError: return "TemplateAssertionError";
    case ErrorKind::TemplateRuntimeError: return "TemplateRuntimeError";
    case ErrorKind::TemplateError: return "TemplateError";
    case ErrorKind::UndefinedError: return "UndefinedError";
    case ErrorKind::SecurityError: return "SecurityError";
    case ErrorKind::TypeError: return "TypeError";
    case ErrorKind::ValueError: return "ValueError";
    case ErrorKind::KeyError: return "KeyError";
    case ErrorKind::IndexError: return "IndexError";
    case ErrorKind::AttributeError: return "AttributeError";
    case ErrorKind::ZeroDivisionError: return "ZeroDivisionError";
    case ErrorKind::OverflowError: return "OverflowError";
    case ErrorKind::RecursionError: return "RecursionError";
    case ErrorKind::MemoryError: return "MemoryError";
    case ErrorKind::FilterArgumentError: return "FilterArgumentError";
    case ErrorKind::RuntimeError: return "RuntimeError";
    case ErrorKind::AssertionError: return "AssertionError";
    case ErrorKind::NameError: return "NameError";
    case ErrorKind::SyntaxError: return "SyntaxError";
    case ErrorKind::LimitError: return "LimitError";
    case ErrorKind::JSONDecodeError: return "JSONDecodeError";
    case ErrorKind::UnicodeDecodeError: return "UnicodeDecodeError";
    case ErrorKind::LookupError: return "LookupError";
    case ErrorKind::UnicodeEncodeError: return "UnicodeEncodeError";
    case ErrorKind::OSError: return "OSError";
    case ErrorKind::ConfigError: return "ConfigError";
    case ErrorKind::ApiError: return "ApiError";
    case ErrorKind::InternalError: return "InternalError";
  }
  return "Error";
}

bool is_jinja_error_kind(ErrorKind k) {
  switch (k) {
    case ErrorKind::TemplateSyntaxError:
    case ErrorKind::TemplateAssertionError:
    case ErrorKind::TemplateRuntimeError:
    case ErrorKind::TemplateError:
    case ErrorKind::UndefinedError:
    case ErrorKind::SecurityError:
    case ErrorKind::FilterArgumentError: return true;
    default: return false;
  }
}

bool is_template_failure(const Error& e) { return is_jinja_error_kind(e.kind()) || e.source() != nullptr; }

ErrorKind error_kind_from_name(const std::string& name) {
  for (int k = 0; k <= static_cast<int>(ErrorKind::InternalError); ++k)
    if (name == error_kind_name(static_cast<ErrorKind>(k))) return static_cast<ErrorKind>(k);
  return ErrorKind::TemplateError;
}

std::pair<size_t, size_t> SourceText::line_col(size_t offset) const {
  size_t line = 1, col = 1;
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') { ++line; col = 1; }
    else if ((c & 0xC0) != 0x80) ++col;
  }
  return {line, col};
}

std::string Error::describe() const {
  std::string out;
  if (source_) {
    auto [line, col] = source_->line_col(offset_);
    out += (source_->name.empty() ? "<template>" : source_->name) + ":" + std::to_string(line) +
           ":" + std::to_string(col) + ": ";
  }
  out += error_kind_name(kind_);
  out += ": ";
  out += message_;
  if (source_) {
    const std::string& t = source_->text;
    size_t off = offset_ > t.size() ? t.size() : offset_;
    size_t b = t.rfind('\n', off == 0 ? 0 : off - 1);
    b = (b == std::string::npos || off == 0) ? 0 : b + 1;
    if (off > 0 && t[off - 1] == '\n') b = off;
    size_t e = t.find('\n', off);
    if (e == std::string::npos) e = t.size();
    std::string line = t.substr(b, e - b);
    size_t caret = 0;
    for (size_t i = b; i < off; ++i)
      if ((static_cast<unsigned char>(t[i]) & 0xC0) != 0x80) ++caret;
    out += "\n  " + line + "\n  " + std::string(caret, ' ') + "^";
  }
  return out;
}

}  // namespace toolchat
