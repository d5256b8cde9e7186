// Value's checked accessors (include/toolchat/value.hpp): the type test and the error an embedding
// program would otherwise write around every as_*() call.
#include <string>

#include "toolchat/value.hpp"

namespace toolchat {

namespace {

[[noreturn]] void wrong_type(const char* expected, const Value& v) {
  throw Error(ErrorKind::TypeError, std::string("expected ") + expected + ", got " + type_name(v));
}

}  // namespace

std::string_view Value::get_str() const {
  if (!is_str()) wrong_type("str", *this);
  return str();
}

int64_t Value::get_int() const {
  if (!is_int()) wrong_type("int", *this);
  return as_int();
}

double Value::get_number() const {
  if (is_int()) return static_cast<double>(as_int());
  if (is_float()) return as_float();
  wrong_type("int or float", *this);
}

bool Value::get_bool() const {
  if (!is_bool()) wrong_type("bool", *this);
  return as_bool();
}

const std::vector<Value>& Value::get_items() const {
  if (!is_list()) wrong_type("list", *this);
  return items();
}

const Value* Value::find(std::string_view key) const {
  return is_dict() ? dict_obj().find(key) : nullptr;
}

const Value& Value::at(std::string_view key) const {
  if (!is_dict()) wrong_type("dict", *this);
  const Value* v = dict_obj().find(key);
  if (!v) throw Error(ErrorKind::KeyError, string_repr(key));
  return *v;
}

const Value& Value::at(size_t index) const {
  if (!is_list()) wrong_type("list", *this);
  if (index >= items().size())
    throw Error(ErrorKind::IndexError, std::string(type_name(*this)) + " index out of range");
  return items()[index];
}

DictBuilder::DictBuilder(const Value& base) : v_(Value::dict()) {
  if (!base.is_dict()) wrong_type("dict", base);
  v_.dict_obj().entries = base.dict_obj().entries;
}

}  // namespace toolchat
