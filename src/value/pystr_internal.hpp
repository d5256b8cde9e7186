// Internal to the pystr_*.cpp files: CPython's index arithmetic on UTF-8 text (code point
// indexes mapped to byte offsets), shared by slicing, search, count and split.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "value/unicode.hpp"

namespace toolchat::pystr::detail {

constexpr std::int64_t kSsizeMax = INT64_MAX;

// CPython ADJUST_INDICES (start is not clamped to len).
inline void adjust_indices(std::int64_t& start, std::int64_t& end, std::int64_t len) noexcept {
    if (end > len) {
        end = len;
    } else if (end < 0) {
        end += len;
        if (end < 0) end = 0;
    }
    if (start < 0) {
        start += len;
        if (start < 0) start = 0;
    }
}

// Byte offset reached after advancing n code points from byte offset pos.
inline std::size_t advance_cps(std::string_view s, std::size_t pos, std::int64_t n) noexcept {
    const std::size_t size = s.size();
    while (n > 0 && pos < size) {
        ++pos;
        while (pos < size && (static_cast<unsigned char>(s[pos]) & 0xC0) == 0x80) ++pos;
        --n;
    }
    return pos;
}

// Byte offsets of the code point range [start, end) (0 <= start <= end <= len).
inline std::pair<std::size_t, std::size_t> byte_range(std::string_view s, bool ascii, std::int64_t start,
                                                      std::int64_t end) noexcept {
    if (ascii) return {static_cast<std::size_t>(start), static_cast<std::size_t>(end)};
    const std::size_t b0 = advance_cps(s, 0, start);
    return {b0, advance_cps(s, b0, end - start)};
}

struct Measured {
    std::string_view s;
    bool ascii;
    std::int64_t len;
    explicit Measured(std::string_view v)
        : s(v), ascii(uni::is_ascii(v)),
          len(ascii ? static_cast<std::int64_t>(v.size()) : static_cast<std::int64_t>(uni::count_code_points(v))) {}
};

}  // namespace toolchat::pystr::detail
