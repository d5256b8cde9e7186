// Python str length, indexing and slicing (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

// ---------------------------------------------------------------------------
// length, indexing, slicing
// ---------------------------------------------------------------------------
std::int64_t length(std::string_view s) noexcept { return static_cast<std::int64_t>(uni::count_code_points(s)); }

std::string char_at(std::string_view s, std::int64_t index) {
    const Measured c(s);
    if (index < 0) index += c.len;
    if (index < 0 || index >= c.len) throw PyError("IndexError", "string index out of range");
    if (c.ascii) return std::string(1, s[static_cast<std::size_t>(index)]);
    const std::size_t b0 = advance_cps(s, 0, index);
    return std::string(s.substr(b0, advance_cps(s, b0, 1) - b0));
}

std::string slice(std::string_view s, Index start_, Index stop_, Index step_) {
    std::int64_t step = step_.value_or(1);
    if (step == 0) throw PyError("ValueError", "slice step cannot be zero");
    if (step < -kSsizeMax) step = -kSsizeMax;
    std::int64_t start = start_ ? *start_ : (step < 0 ? kSsizeMax : 0);
    std::int64_t stop = stop_ ? *stop_ : (step < 0 ? INT64_MIN : kSsizeMax);
    const Measured c(s);
    const std::int64_t len = c.len;
    // PySlice_AdjustIndices
    if (start < 0) {
        start += len;
        if (start < 0) start = step < 0 ? -1 : 0;
    } else if (start >= len) {
        start = step < 0 ? len - 1 : len;
    }
    if (stop < 0) {
        stop += len;
        if (stop < 0) stop = step < 0 ? -1 : 0;
    } else if (stop >= len) {
        stop = step < 0 ? len - 1 : len;
    }
    std::int64_t n = 0;
    if (step < 0) {
        if (stop < start) n = (start - stop - 1) / (-step) + 1;
    } else if (start < stop) {
        n = (stop - start - 1) / step + 1;
    }
    if (n <= 0) return std::string();
    if (step == 1) {
        const auto [b0, b1] = byte_range(s, c.ascii, start, stop);
        return std::string(s.substr(b0, b1 - b0));
    }
    std::string out;
    if (c.ascii) {
        out.reserve(static_cast<std::size_t>(n));
        for (std::int64_t k = 0, i = start; k < n; ++k, i += step) out.push_back(s[static_cast<std::size_t>(i)]);
        return out;
    }
    const std::u32string u = uni::decode(s);
    for (std::int64_t k = 0, i = start; k < n; ++k, i += step) uni::append_utf8(out, u[static_cast<std::size_t>(i)]);
    return out;
}

}  // namespace toolchat::pystr
