// Python str strip / removeprefix / split / splitlines / partition / join (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include <algorithm>

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

namespace {

using uni::decode_next;
using uni::decode_prev;

// Set of code points for strip(chars).
struct CharSet {
    std::uint64_t bits[2] = {0, 0};
    std::u32string other;
    explicit CharSet(std::string_view chars) {
        std::size_t i = 0;
        while (i < chars.size()) {
            const char32_t c = decode_next(chars, i);
            if (c < 128) {
                bits[c >> 6] |= 1ull << (c & 63);
            } else {
                other.push_back(c);
            }
        }
    }
    bool has(char32_t c) const noexcept {
        if (c < 128) return (bits[c >> 6] >> (c & 63)) & 1;
        return other.find(c) != std::u32string::npos;
    }
};

enum StripMode { kLeft = 1, kRight = 2, kBoth = 3 };

template <class Pred>
std::string_view strip_by(std::string_view s, int mode, Pred in_set) noexcept {
    std::size_t i = 0, j = s.size();
    while ((mode & kLeft) && i < j) {
        std::size_t k = i;
        if (!in_set(decode_next(s, k))) break;
        i = k;
    }
    while ((mode & kRight) && j > i) {
        std::size_t k = j - 1;
        const unsigned char b = static_cast<unsigned char>(s[k]);
        const char32_t c = b < 0x80 ? b : decode_prev(s, ++k);
        if (!in_set(c) || k < i) break;
        j = k;
    }
    return s.substr(i, j - i);
}

std::string_view do_strip(std::string_view s, std::optional<std::string_view> chars, int mode) {
    if (!chars) return strip_by(s, mode, [](char32_t c) { return uni::is_space(c); });
    const CharSet set(*chars);
    return strip_by(s, mode, [&set](char32_t c) { return set.has(c); });
}

template <class Seq>
std::string join_impl(std::string_view sep, const Seq& items) {
    std::size_t total = 0;
    for (const auto& it : items) total += std::string_view(it).size();
    if (!items.empty()) total += sep.size() * (items.size() - 1);
    std::string out;
    out.reserve(total);
    bool first = true;
    for (const auto& it : items) {
        if (!first) out.append(sep);
        first = false;
        out.append(std::string_view(it));
    }
    return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// strip / prefix
// ---------------------------------------------------------------------------
std::string_view strip_view(std::string_view s, std::optional<std::string_view> chars) {
    return do_strip(s, chars, kBoth);
}
std::string_view lstrip_view(std::string_view s, std::optional<std::string_view> chars) {
    return do_strip(s, chars, kLeft);
}
std::string_view rstrip_view(std::string_view s, std::optional<std::string_view> chars) {
    return do_strip(s, chars, kRight);
}
std::string strip(std::string_view s, std::optional<std::string_view> chars) {
    return std::string(do_strip(s, chars, kBoth));
}
std::string lstrip(std::string_view s, std::optional<std::string_view> chars) {
    return std::string(do_strip(s, chars, kLeft));
}
std::string rstrip(std::string_view s, std::optional<std::string_view> chars) {
    return std::string(do_strip(s, chars, kRight));
}

std::string removeprefix(std::string_view s, std::string_view prefix) {
    if (s.substr(0, prefix.size()) == prefix) s.remove_prefix(prefix.size());
    return std::string(s);
}

std::string removesuffix(std::string_view s, std::string_view suffix) {
    if (!suffix.empty() && s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix)
        s.remove_suffix(suffix.size());
    return std::string(s);
}

// ---------------------------------------------------------------------------
// split / join
// ---------------------------------------------------------------------------
std::vector<std::string> split(std::string_view s, std::optional<std::string_view> sep, std::int64_t maxsplit) {
    std::vector<std::string> out;
    if (maxsplit < 0) maxsplit = kSsizeMax;
    const std::size_t n = s.size();
    if (sep) {
        if (sep->empty()) throw PyError("ValueError", "empty separator");
        std::size_t i = 0;
        while (maxsplit-- > 0) {
            const std::size_t pos = s.find(*sep, i);
            if (pos == std::string_view::npos) break;
            out.emplace_back(s.substr(i, pos - i));
            i = pos + sep->size();
        }
        out.emplace_back(s.substr(i));
        return out;
    }
    auto space_at = [&](std::size_t i, std::size_t& next) -> bool {
        next = i;
        return uni::is_space(decode_next(s, next));
    };
    std::size_t i = 0, next = 0;
    while (maxsplit-- > 0) {
        while (i < n && space_at(i, next)) i = next;
        if (i == n) break;
        const std::size_t j = i;
        space_at(i, next);
        i = next;
        while (i < n && !space_at(i, next)) i = next;
        out.emplace_back(s.substr(j, i - j));
    }
    if (i < n) {
        while (i < n && space_at(i, next)) i = next;
        if (i != n) out.emplace_back(s.substr(i));
    }
    return out;
}

std::vector<std::string> rsplit(std::string_view s, std::optional<std::string_view> sep, std::int64_t maxsplit) {
    std::vector<std::string> out;
    if (maxsplit < 0) maxsplit = kSsizeMax;
    if (sep) {
        if (sep->empty()) throw PyError("ValueError", "empty separator");
        std::size_t j = s.size();  // end of the unsplit part
        while (maxsplit-- > 0 && j >= sep->size()) {
            const std::size_t pos = s.substr(0, j).rfind(*sep);
            if (pos == std::string_view::npos) break;
            out.emplace_back(s.substr(pos + sep->size(), j - pos - sep->size()));
            j = pos;
        }
        out.emplace_back(s.substr(0, j));
        std::reverse(out.begin(), out.end());
        return out;
    }
    // i = byte offset one past the current code point ("i >= 0" in CPython is i > 0)
    auto space_before = [&](std::size_t i, std::size_t& prev) -> bool {
        prev = i;
        return uni::is_space(decode_prev(s, prev));
    };
    std::size_t i = s.size(), prev = 0;
    while (maxsplit-- > 0) {
        while (i > 0 && space_before(i, prev)) i = prev;
        if (i == 0) break;
        const std::size_t j = i;
        space_before(i, prev);
        i = prev;
        while (i > 0 && !space_before(i, prev)) i = prev;
        out.emplace_back(s.substr(i, j - i));
    }
    if (i > 0) {
        while (i > 0 && space_before(i, prev)) i = prev;
        if (i > 0) out.emplace_back(s.substr(0, i));
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::vector<std::string> splitlines(std::string_view s, bool keepends) {
    std::vector<std::string> out;
    const std::size_t n = s.size();
    std::size_t i = 0, j = 0;
    while (i < n) {
        std::size_t next = i;
        char32_t c = 0;
        while (i < n) {
            next = i;
            c = decode_next(s, next);
            if (uni::is_linebreak(c)) break;
            i = next;
        }
        std::size_t eol = i;
        if (i < n) {
            if (c == '\r' && next < n && s[next] == '\n') {
                i = next + 1;
            } else {
                i = next;
            }
            if (keepends) eol = i;
        }
        out.emplace_back(s.substr(j, eol - j));
        j = i;
    }
    return out;
}

std::array<std::string, 3> partition(std::string_view s, std::string_view sep) {
    if (sep.empty()) throw PyError("ValueError", "empty separator");
    const std::size_t pos = s.find(sep);
    if (pos == std::string_view::npos) return {std::string(s), std::string(), std::string()};
    return {std::string(s.substr(0, pos)), std::string(sep), std::string(s.substr(pos + sep.size()))};
}

std::array<std::string, 3> rpartition(std::string_view s, std::string_view sep) {
    if (sep.empty()) throw PyError("ValueError", "empty separator");
    const std::size_t pos = s.rfind(sep);
    if (pos == std::string_view::npos) return {std::string(), std::string(), std::string(s)};
    return {std::string(s.substr(0, pos)), std::string(sep), std::string(s.substr(pos + sep.size()))};
}

std::string join(std::string_view sep, std::span<const std::string_view> items) { return join_impl(sep, items); }
std::string join(std::string_view sep, std::span<const std::string> items) { return join_impl(sep, items); }

}  // namespace toolchat::pystr
