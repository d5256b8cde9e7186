// JSON in and out, byte for byte like Python's `json` module (CPython 3.11):
// parse() is json.loads (default strict=True, NaN/Infinity accepted, duplicate keys keep the
// first position with the last value), dumps() is json.dumps with ensure_ascii / indent /
// separators / sort_keys. Strings are UTF-8; lone surrogates are 3-byte WTF-8 sequences.
//
//   Value v = json::parse(R"({"city": "Paris"})");
//   std::string text = json::dumps(v);                  // {"city": "Paris"}
//
// Ownership: parse() returns a new value graph owned by the caller; dump() only reads.
// Thread safety: the functions keep no state; one value graph is used by one thread at a time
// (value.hpp). Errors: Error with Python's exception kind and message, listed per function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "toolchat/value.hpp"

namespace toolchat::json {

struct ReadLimits {
  size_t max_depth = 512;          // nested arrays/objects; deeper -> JSONDecodeError
  size_t max_bytes = 256u << 20;   // larger input -> LimitError
  // UTF-8-encoded surrogates (ED A0..BF xx) in the raw text: refused like Python's decoder
  // (the default), or accepted as WTF-8, the form our strings hold lone surrogates in (so
  // dumps(ensure_ascii=False) output parses back).
  bool allow_surrogates = false;
};

// json.loads(text). Errors:
//   JSONDecodeError "<Python message>: line L column C (char N)" (column/char in code points),
//     plus our own "nesting too deep (limit 512): ..." and "invalid UTF-8 byte at: ..." (bytes
//     Python's 'utf-8' codec refuses, surrogates included unless lim.allow_surrogates);
//   ValueError for integers over 4300 digits (Python's int max str digits);
//   LimitError when text is larger than lim.max_bytes.
// Never recurses (explicit stack), never crashes on any input.
Value parse(std::string_view text, const ReadLimits& lim = {});

// Reads and parses a file; every error message starts with "<path>: ".
// File errors are ValueError "<path>: cannot open file" / "...: read error"; bytes that are not
// UTF-8 are UnicodeDecodeError with Python's message (json.load of a file opened as UTF-8).
Value parse_file(const std::string& path, const ReadLimits& lim = {});

struct DumpOptions {
  bool ensure_ascii = true;
  // Python indent: nullopt = None (one line); an int n means n spaces (see indent_spaces);
  // a string is used as is. "" (or 0) still inserts newlines.
  std::optional<std::string> indent;
  // (item_separator, key_separator); nullopt = (", ", ": ") without indent, (",", ": ") with.
  std::optional<std::pair<std::string, std::string>> separators;
  bool sort_keys = false;
  // Output larger than this stops with Error(LimitError) (an indent or a shared value
  // repeated many times amplifies the input); the default is no bound.
  size_t max_bytes = SIZE_MAX;
};

// Python's indent=n: n spaces (negative n gives "" like ' ' * n).
inline std::string indent_spaces(int64_t n) {
  return n > 0 ? std::string(static_cast<size_t>(n), ' ') : std::string();
}

// json.dumps(v, ...), appended to out. Errors (out may hold a partial result):
//   TypeError "Object of type X is not JSON serializable" (Undefined, objects, dict_keys,
//     dict_values, dict_items, range), "keys must be str, int, float, bool or None, not X",
//     "'<' not supported between instances of 'X' and 'Y'" (sort_keys with mixed keys);
//   RecursionError "maximum recursion depth exceeded while encoding a JSON object" (depth > 1000);
//   LimitError when the output grows beyond o.max_bytes.
void dump(std::string& out, const Value& v, const DumpOptions& o);
std::string dumps(const Value& v, const DumpOptions& o = {});

// The JSON string literal for s (with quotes), as json.dumps(str) writes it.
void dump_string(std::string& out, std::string_view s, bool ensure_ascii = true);
// The same text without the quotes: what a streamed string value appends piece by piece. With
// ensure_ascii false, bytes from 0x80 pass through as they are, so pieces cut inside a character
// join into the same bytes as the whole.
void append_escaped(std::string& out, std::string_view s, bool ensure_ascii = true);

}  // namespace toolchat::json
