// The labeler is public API now: include/toolchat/convert.hpp. This name stays for the internal
// includes (with the polyfills, which the labeler applies: chat/polyfill.hpp).
#pragma once
#include "chat/polyfill.hpp"
#include "toolchat/convert.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace toolchat::convert {

// A span's JSON after its role: `, "train": ..., "start": ..., "end": ..., "byte_start": ...,
// "byte_end": ...}` (start/end in code points). The one writer of a row's span members, shared by
// append_row_json and the line path (line_memo.cpp), whose rows must be byte-identical.
void append_span_rest(std::string& out, bool train, size_t start, size_t end, size_t byte_start, size_t byte_end);
// Its parts, for writers that put the span's head together once (the line path: per shape):
// `, "train": true` or `, "train": false`, and the rest from `, "start": ` to the closing brace,
// written at p (at most kSpanNumbersMax bytes; returns the end).
std::string_view span_train_member(bool train);
inline constexpr size_t kSpanNumbersMax = 4 * 20 + 50 + 1;  // four numbers, their labels (50 bytes), "}"
char* put_span_numbers(char* p, size_t start, size_t end, size_t byte_start, size_t byte_end);

}  // namespace toolchat::convert
