// A fast path past json::parse + compact_json for the JSON a call carries. The JSON scanner already
// gives a call's text minified (no whitespace outside strings); when that text is what parsing and
// dumping it compactly would give back, the text itself is the arguments, with no Value built.
// The checks are conservative: false means "take the slow path", never "invalid JSON".
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace toolchat::dialects::compact_json_text {

// True when `text` is a JSON object that json::parse then compact_json would reproduce byte for
// byte: valid UTF-8, no escapes in strings, integers of at most 18 digits (no "-0", fractions or
// exponents), only true/false/null literals, no duplicate keys, no whitespace.
bool is_canonical_object(std::string_view text);

// A call object {"name": "N", <args key>: {...}, ["id": "I"]} in canonical form, read without
// parsing: the name, the arguments' text (an object) and the id (when keep_id and a string).
// False (nothing set) when the text is not canonical or not of that shape; the slow path decides.
struct CallText {
  std::string_view name, args, id;
};
bool read_call_object(std::string_view text, std::initializer_list<std::string_view> args_keys, bool keep_id,
                      CallText* out);

// A non-empty array of such call objects, all or nothing.
bool read_call_list(std::string_view text, std::initializer_list<std::string_view> args_keys, bool keep_id,
                    std::vector<CallText>* out);

}  // namespace toolchat::dialects::compact_json_text
