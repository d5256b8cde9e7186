// Reading the JSON lines of a dataset whose rows repeat most of their members: the tools list
// (often half of a line) is the same text on row after row. RowReader::read gives what
// json::parse gives (the same value, the same Error), but a top-level member other than
// "messages" whose text equals one read before is the value read before (KnownValues): not
// parsed again when it ends the line (found from the end, the rest read as an object of its
// own), else parsed and replaced by it. Values are never changed once read (the template
// engine's sandbox is immutable), so sharing one is the same as reading it again.
//
// Shared values also make the per-row keys cheap: a key writes a known value as its number
// (ValueKey::add_with_known), not its contents; the same number is the same object, so the same
// value. One KnownValues per thread (values are counted without atomics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::convert {

class KnownValues {
 public:
  // This thread's values.
  static KnownValues& this_thread();

  // The value read before from exactly this text, or nullptr.
  const Value* find(std::string_view text) const;
  // A value whose text ends `s` (its length in `size`), or nullptr.
  const Value* find_suffix(std::string_view s, size_t& size) const;
  // Remembers a value read from `text` (the oldest is forgotten past a few).
  void learn(std::string_view text, const Value& v);
  // The number of a value held here (the object itself, not an equal one); 0 for any other. A
  // number is never given to two objects, and a held object stays alive, so equal numbers mean
  // one object.
  uint64_t id_of(const Value& v) const;

 private:
  struct Entry {
    std::string text;
    Value value;
    uint64_t id = 0;
  };
  std::vector<Entry> entries_;
  size_t next_ = 0;  // the entry to replace when full
  uint64_t last_id_ = 0;
};

// The smallest member text worth remembering (shorter ones are read each time).
inline constexpr size_t kKnownMinBytes = 64;

class RowReader {
 public:
  // json::parse(line), sharing known member values (see above). Throws what json::parse throws.
  Value read(std::string_view line);

 private:
  struct Member {
    std::string_view key, text;
  };
  bool split(std::string_view line);  // the top-level object's members (texts), or false
  // json::parse(line), its members learned or replaced by the known values of their texts.
  Value read_whole(std::string_view line);
  // Known members at the end of the line, found from its end (no scan of what comes before, the
  // messages); the rest read as an object of its own. False when the line does not end so.
  bool read_known_tail(std::string_view line, Value& row);
  std::vector<Member> members_;
  std::vector<std::pair<std::string_view, const Value*>> tail_;  // last member first
  std::string head_;  // the line up to the known members, closed
};

}  // namespace toolchat::convert
