#include "value/unicode.hpp"

#include <cstring>

namespace toolchat::uni {

char32_t decode_prev(std::string_view s, std::size_t& i) noexcept {
    if (i == 0) return 0;
    if (i > s.size()) i = s.size();
    const unsigned char last = static_cast<unsigned char>(s[i - 1]);
    if (last < 0x80) {
        --i;
        return last;
    }
    // Walk back over at most 3 continuation bytes to a lead byte, then check
    // that decode_next from there ends exactly at i.
    std::size_t start = i - 1;
    int steps = 0;
    while (start > 0 && steps < 3 &&
           (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) {
        --start;
        ++steps;
    }
    std::size_t j = start;
    const char32_t c = decode_next(s, j);
    if (j == i) {
        i = start;
        return c;
    }
    --i;
    return 0xFFFD;
}

std::string encode(char32_t c) {
    std::string out;
    append_utf8(out, c);
    return out;
}

std::string encode(std::u32string_view cps) {
    std::string out;
    out.reserve(cps.size());
    for (char32_t c : cps) append_utf8(out, c);
    return out;
}

std::u32string decode(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) out.push_back(decode_next(s, i));
    return out;
}

bool is_ascii(std::string_view s) noexcept {
    const char* p = s.data();
    std::size_t n = s.size();
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        if (w & 0x8080808080808080ull) return false;
        p += 8;
        n -= 8;
    }
    while (n--) {
        if (static_cast<unsigned char>(*p++) >= 0x80) return false;
    }
    return true;
}

std::size_t count_code_points(std::string_view s) noexcept {
    std::size_t count = 0;
    const char* p = s.data();
    std::size_t n = s.size();
    while (n >= 8) {
        std::uint64_t w;
        std::memcpy(&w, p, 8);
        // continuation bytes are 10xxxxxx: bit7 set and bit6 clear
        // Their flags moved to bit 0 of each byte and summed into the top byte by the multiply:
        // a popcount that needs no POPCNT instruction (-O2 does not assume one: a libgcc call).
        const std::uint64_t cont = ((w & ~(w << 1)) & 0x8080808080808080ull) >> 7;
        count += 8 - static_cast<std::size_t>((cont * 0x0101010101010101ull) >> 56);
        p += 8;
        n -= 8;
    }
    while (n--) {
        if ((static_cast<unsigned char>(*p++) & 0xC0) != 0x80) ++count;
    }
    return count;
}

std::size_t byte_offset(std::string_view s, std::size_t cp_idx) noexcept {
    std::size_t i = 0;
    const std::size_t n = s.size();
    if (cp_idx >= n) return n;  // at most one code point per byte
    while (cp_idx > 0 && i < n) {
        ++i;
        while (i < n && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
        --cp_idx;
    }
    return i;
}

std::size_t cp_index(std::string_view s, std::size_t byte_off) noexcept {
    if (byte_off > s.size()) byte_off = s.size();
    return count_code_points(s.substr(0, byte_off));
}

namespace {

inline int apply_mapping(char32_t c, std::uint32_t m, char32_t* out) noexcept {
    if (m & 0x80000000u) {
        const int len = static_cast<int>((m >> 24) & 0x7F);
        const char32_t* src = detail::kCaseExt + (m & 0xFFFFFFu);
        for (int k = 0; k < len; ++k) out[k] = src[k];
        return len;
    }
    out[0] = static_cast<char32_t>(static_cast<std::int64_t>(c) + static_cast<std::int64_t>(m) - 0x200000);
    return 1;
}

}  // namespace

namespace {

// One full case mapping: ASCII by arithmetic, code points past Unicode unchanged, the rest by the
// record's mapping `which` (0 lower, 1 upper, 2 title, 3 casefold).
int map_full(char32_t c, int which, bool ascii_upper, char32_t* out) noexcept {
    if (c < 0x80) {
        if (ascii_upper) out[0] = (c >= 'a' && c <= 'z') ? c - 32 : c;
        else out[0] = (c >= 'A' && c <= 'Z') ? c + 32 : c;
        return 1;
    }
    if (c >= 0x110000) {
        out[0] = c;
        return 1;
    }
    return apply_mapping(c, detail::record_of(c).map[which], out);
}

}  // namespace

int to_lower_full(char32_t c, char32_t* out) noexcept { return map_full(c, 0, false, out); }
int to_upper_full(char32_t c, char32_t* out) noexcept { return map_full(c, 1, true, out); }
int to_title_full(char32_t c, char32_t* out) noexcept { return map_full(c, 2, true, out); }
int casefold_full(char32_t c, char32_t* out) noexcept { return map_full(c, 3, false, out); }

const char* unicode_version() noexcept { return detail::kUnicodeVersion; }

}  // namespace toolchat::uni
