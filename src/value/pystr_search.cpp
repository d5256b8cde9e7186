// Python str find / index / count / replace / startswith / endswith (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include <algorithm>

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

namespace {

using uni::decode_next;

// Shared by find/rfind/index/rindex: returns code point index or -1.
std::int64_t find_impl(std::string_view s, std::string_view sub, Index start_, Index end_, bool forward) {
    const Measured c(s);
    std::int64_t start = start_.value_or(0), end = end_.value_or(kSsizeMax);
    adjust_indices(start, end, c.len);
    const std::int64_t sublen = static_cast<std::int64_t>(uni::count_code_points(sub));
    if (end - start < sublen) return -1;
    if (sublen == 0) return forward ? start : end;
    const auto [b0, b1] = byte_range(s, c.ascii, start, end);
    const std::string_view hay = s.substr(b0, b1 - b0);
    const std::size_t pos = forward ? hay.find(sub) : hay.rfind(sub);
    if (pos == std::string_view::npos) return -1;
    if (c.ascii) return start + static_cast<std::int64_t>(pos);
    return start + static_cast<std::int64_t>(uni::count_code_points(hay.substr(0, pos)));
}

// CPython tailmatch: direction < 0 -> startswith, > 0 -> endswith.
bool tailmatch(std::string_view s, const Measured& c, std::string_view sub, Index start_, Index end_,
               int direction) {
    std::int64_t start = start_.value_or(0), end = end_.value_or(kSsizeMax);
    adjust_indices(start, end, c.len);
    const std::int64_t sublen = static_cast<std::int64_t>(uni::count_code_points(sub));
    end -= sublen;
    if (end < start) return false;
    if (sublen == 0) return true;
    const std::int64_t at = direction < 0 ? start : end;
    const std::size_t b0 = c.ascii ? static_cast<std::size_t>(at) : advance_cps(s, 0, at);
    return s.substr(b0, sub.size()) == sub;
}

template <class Seq>
bool tailmatch_any(std::string_view s, const Seq& items, Index start, Index end, int direction) {
    const Measured c(s);
    for (const auto& item : items) {
        if (tailmatch(s, c, std::string_view(item), start, end, direction)) return true;
    }
    return false;
}

}  // namespace

// ---------------------------------------------------------------------------
// search / replace
// ---------------------------------------------------------------------------
std::string replace(std::string_view s, std::string_view old, std::string_view repl, std::int64_t count) {
    if (count < 0) count = kSsizeMax;
    std::string out;
    if (old.empty()) {
        if (count == 0) return std::string(s);
        out.reserve(s.size() + repl.size() * static_cast<std::size_t>(std::min<std::int64_t>(count, 1 << 20)));
        std::size_t i = 0;
        while (i < s.size()) {
            if (count > 0) {
                out.append(repl);
                --count;
            }
            if (count == 0) {
                out.append(s.substr(i));
                return out;
            }
            const std::size_t start = i;
            decode_next(s, i);
            out.append(s.substr(start, i - start));
        }
        if (count > 0) out.append(repl);
        return out;
    }
    std::size_t i = 0;
    while (count > 0) {
        const std::size_t pos = s.find(old, i);
        if (pos == std::string_view::npos) break;
        if (out.empty()) out.reserve(s.size());
        out.append(s.substr(i, pos - i));
        out.append(repl);
        i = pos + old.size();
        --count;
    }
    out.append(s.substr(i));
    return out;
}

std::int64_t find(std::string_view s, std::string_view sub, Index start, Index end) {
    return find_impl(s, sub, start, end, true);
}

std::int64_t rfind(std::string_view s, std::string_view sub, Index start, Index end) {
    return find_impl(s, sub, start, end, false);
}

std::int64_t index(std::string_view s, std::string_view sub, Index start, Index end) {
    const std::int64_t r = find_impl(s, sub, start, end, true);
    if (r < 0) throw PyError("ValueError", "substring not found");
    return r;
}

std::int64_t rindex(std::string_view s, std::string_view sub, Index start, Index end) {
    const std::int64_t r = find_impl(s, sub, start, end, false);
    if (r < 0) throw PyError("ValueError", "substring not found");
    return r;
}

std::int64_t count(std::string_view s, std::string_view sub, Index start_, Index end_) {
    const Measured c(s);
    std::int64_t start = start_.value_or(0), end = end_.value_or(kSsizeMax);
    adjust_indices(start, end, c.len);
    const std::int64_t sublen = static_cast<std::int64_t>(uni::count_code_points(sub));
    if (end - start < sublen) return 0;
    if (sublen == 0) return end - start + 1;
    const auto [b0, b1] = byte_range(s, c.ascii, start, end);
    const std::string_view hay = s.substr(b0, b1 - b0);
    std::int64_t n = 0;
    std::size_t pos = 0;
    while ((pos = hay.find(sub, pos)) != std::string_view::npos) {
        ++n;
        pos += sub.size();
    }
    return n;
}

bool startswith(std::string_view s, std::string_view prefix, Index start, Index end) {
    return tailmatch(s, Measured(s), prefix, start, end, -1);
}
bool startswith(std::string_view s, std::span<const std::string_view> prefixes, Index start, Index end) {
    return tailmatch_any(s, prefixes, start, end, -1);
}
bool startswith(std::string_view s, std::span<const std::string> prefixes, Index start, Index end) {
    return tailmatch_any(s, prefixes, start, end, -1);
}
bool endswith(std::string_view s, std::string_view suffix, Index start, Index end) {
    return tailmatch(s, Measured(s), suffix, start, end, +1);
}
bool endswith(std::string_view s, std::span<const std::string_view> suffixes, Index start, Index end) {
    return tailmatch_any(s, suffixes, start, end, +1);
}
bool endswith(std::string_view s, std::span<const std::string> suffixes, Index start, Index end) {
    return tailmatch_any(s, suffixes, start, end, +1);
}

}  // namespace toolchat::pystr
