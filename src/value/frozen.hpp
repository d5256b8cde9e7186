// Freezing a value graph so that several threads can read it at once.
//
// Values count their handles without atomics (an atomic count would cost every copy in a
// render). A compiled template's constants are shared by every render of it, so they are
// frozen instead: each object reachable from them gets a negative count, which handles
// neither change nor drop to zero, and every lazily filled cache (a string's ASCII flag, a
// dict's index) is filled first, so that reads change nothing. The owner keeps the
// FrozenValues next to the graph; its destructor thaws the objects (their counts as they were),
// after which the graph is freed by its handles as usual.
#pragma once

#include <vector>

#include "toolchat/value.hpp"

namespace toolchat {

class FrozenValues {
 public:
  FrozenValues() = default;
  FrozenValues(const FrozenValues&) = delete;
  FrozenValues& operator=(const FrozenValues&) = delete;
  ~FrozenValues() { thaw(); }

  // Freezes v and everything reachable from it (idempotent).
  void freeze(const Value& v);
  // Restores every frozen object's count; call before the graph's handles are dropped.
  void thaw();
  size_t size() const { return objs_.size(); }

 private:
  std::vector<Obj*> objs_;
};

inline bool is_frozen(const Obj* o) { return o->rc < 0; }

}  // namespace toolchat
