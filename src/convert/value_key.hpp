// A value written as a lookup key: each part tagged and sized, so that equal keys mean equal
// values (types included: 1, 1.0 and true differ). Made once per row, so it is written into a
// buffer the caller keeps, not a new string. With Strings::type_only a string counts by its type
// alone (dict keys keep their text): the key of a structure, equal for rows that differ only
// in their texts.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "toolchat/value.hpp"

namespace toolchat::convert {

class ValueKey {
 public:
  enum class Strings { text, type_only };
  ValueKey(std::string& buffer, Strings strings);

  // False for values JSON cannot hold (the key is then unusable).
  bool add(const Value& v);
  // A dict as add writes it, except that an entry's value that is one of this thread's known
  // values (convert/row_reader.hpp: a member shared between rows) is written as its number, not
  // its contents. Equal numbers are one object, so equal keys still mean equal values.
  bool add_with_known(const Value& d);
  // The parts of a value written piece by piece, as add writes them: a list (ListKind::List) or
  // dict header before its items or entries, a dict key, a string.
  void open_list(size_t n) {
    tag(static_cast<char>('0' + static_cast<int>(ListKind::List)));
    size(n);
  }
  void open_dict(size_t n) {
    tag('m');
    size(n);
  }
  bool add_key(const Value& k) {
    if (!k.is_str()) return add(k);
    tag('k');
    text(k.str());
    return true;
  }
  void add_string(std::string_view s) {
    tag('s');
    if (strings_ == Strings::text) text(s);
  }
  std::string_view view() const { return std::string_view(buf_.data(), at_); }

 private:
  void put(const void* p, size_t n) {
    if (buf_.size() - at_ < n) grow(n);
    std::memcpy(buf_.data() + at_, p, n);
    at_ += n;
  }
  void tag(char c) {
    if (at_ == buf_.size()) grow(1);
    buf_[at_++] = c;
  }
  void size(size_t n) { put(&n, sizeof n); }
  void text(std::string_view s) {
    size(s.size());
    put(s.data(), s.size());
  }
  void grow(size_t n);

  std::string& buf_;
  size_t at_ = 0;
  const Strings strings_;
};

}  // namespace toolchat::convert
