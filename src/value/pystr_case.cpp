// Python str case mapping and the is*() predicates (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

namespace {

using uni::decode_next;

inline void append_cps(std::string& out, const char32_t* cps, int n) {
    for (int k = 0; k < n; ++k) uni::append_utf8(out, cps[k]);
}

// CPython handle_capital_sigma over a decoded string.
bool final_sigma(const std::u32string& u, std::size_t i) {
    std::size_t j = i;
    while (j > 0 && uni::is_case_ignorable(u[j - 1])) --j;
    if (j == 0 || !uni::is_cased(u[j - 1])) return false;
    for (j = i + 1; j < u.size() && uni::is_case_ignorable(u[j]); ++j) {
    }
    return j == u.size() || !uni::is_cased(u[j]);
}

// CPython lower_ucs4
inline int lower_at(const std::u32string& u, std::size_t i, char32_t* mapped) {
    const char32_t c = u[i];
    if (c == 0x3A3) {
        mapped[0] = final_sigma(u, i) ? 0x3C2 : 0x3C3;
        return 1;
    }
    return uni::to_lower_full(c, mapped);
}

// A full case mapping applied to each code point on its own (no context rule, unlike lower's final sigma).
std::string map_each_full(std::string_view s, int (*full_map)(char32_t, char32_t*) noexcept) {
    std::string out;
    out.reserve(s.size());
    char32_t m[3];
    std::size_t i = 0;
    while (i < s.size()) append_cps(out, m, full_map(decode_next(s, i), m));
    return out;
}

std::string ascii_map(std::string_view s, char lo, char hi, int delta) {
    std::string out(s);
    for (char& ch : out) {
        if (ch >= lo && ch <= hi) ch = static_cast<char>(ch + delta);
    }
    return out;
}

template <class Pred>
bool all_of_cps(std::string_view s, Pred pred) noexcept {
    if (s.empty()) return false;
    std::size_t i = 0;
    while (i < s.size()) {
        if (!pred(decode_next(s, i))) return false;
    }
    return true;
}

// CPython isupper / islower: no `other`-cased or titlecase char, at least one `want`.
bool cased_only(std::string_view s, std::uint16_t want, std::uint16_t other) noexcept {
    bool cased = false;
    std::size_t i = 0;
    while (i < s.size()) {
        const std::uint16_t f = uni::detail::flags_of(decode_next(s, i));
        if (f & (other | uni::detail::kTitle)) return false;
        if (f & want) cased = true;
    }
    return cased;
}

}  // namespace

// ---------------------------------------------------------------------------
// case
// ---------------------------------------------------------------------------
std::string lower(std::string_view s) {
    if (uni::is_ascii(s)) return ascii_map(s, 'A', 'Z', 32);
    const std::u32string u = uni::decode(s);
    std::string out;
    out.reserve(s.size());
    char32_t m[3];
    for (std::size_t i = 0; i < u.size(); ++i) append_cps(out, m, lower_at(u, i, m));
    return out;
}

std::string upper(std::string_view s) {
    if (uni::is_ascii(s)) return ascii_map(s, 'a', 'z', -32);
    return map_each_full(s, uni::to_upper_full);
}

std::string casefold(std::string_view s) {
    if (uni::is_ascii(s)) return ascii_map(s, 'A', 'Z', 32);
    return map_each_full(s, uni::casefold_full);
}

std::string title(std::string_view s) {
    if (uni::is_ascii(s)) {
        std::string out(s);
        bool prev_cased = false;
        for (char& ch : out) {
            const bool up = ch >= 'A' && ch <= 'Z', lo = ch >= 'a' && ch <= 'z';
            if (prev_cased) {
                if (up) ch = static_cast<char>(ch + 32);
            } else if (lo) {
                ch = static_cast<char>(ch - 32);
            }
            prev_cased = up || lo;
        }
        return out;
    }
    const std::u32string u = uni::decode(s);
    std::string out;
    out.reserve(s.size());
    char32_t m[3];
    bool prev_cased = false;
    for (std::size_t i = 0; i < u.size(); ++i) {
        const int n = prev_cased ? lower_at(u, i, m) : uni::to_title_full(u[i], m);
        append_cps(out, m, n);
        prev_cased = uni::is_cased(u[i]);
    }
    return out;
}

std::string capitalize(std::string_view s) {
    if (s.empty()) return std::string();
    if (uni::is_ascii(s)) {
        std::string out = ascii_map(s, 'A', 'Z', 32);
        if (out[0] >= 'a' && out[0] <= 'z') out[0] = static_cast<char>(out[0] - 32);
        return out;
    }
    const std::u32string u = uni::decode(s);
    std::string out;
    out.reserve(s.size());
    char32_t m[3];
    append_cps(out, m, uni::to_title_full(u[0], m));
    for (std::size_t i = 1; i < u.size(); ++i) append_cps(out, m, lower_at(u, i, m));
    return out;
}

std::string swapcase(std::string_view s) {
    if (uni::is_ascii(s)) {
        std::string out(s);
        for (char& ch : out) {
            if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z')) ch = static_cast<char>(ch ^ 0x20);
        }
        return out;
    }
    const std::u32string u = uni::decode(s);
    std::string out;
    out.reserve(s.size());
    char32_t m[3];
    for (std::size_t i = 0; i < u.size(); ++i) {
        const char32_t c = u[i];
        if (uni::is_upper(c)) {
            append_cps(out, m, lower_at(u, i, m));
        } else if (uni::is_lower(c)) {
            append_cps(out, m, uni::to_upper_full(c, m));
        } else {
            uni::append_utf8(out, c);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------
// predicates
// ---------------------------------------------------------------------------
bool isalpha(std::string_view s) noexcept { return all_of_cps(s, uni::is_alpha); }
bool isdigit(std::string_view s) noexcept { return all_of_cps(s, uni::is_digit); }
bool isdecimal(std::string_view s) noexcept { return all_of_cps(s, uni::is_decimal); }
bool isnumeric(std::string_view s) noexcept { return all_of_cps(s, uni::is_numeric); }
bool isalnum(std::string_view s) noexcept { return all_of_cps(s, uni::is_alnum); }
bool isspace(std::string_view s) noexcept { return all_of_cps(s, uni::is_space); }

bool isupper(std::string_view s) noexcept { return cased_only(s, uni::detail::kUpper, uni::detail::kLower); }
bool islower(std::string_view s) noexcept { return cased_only(s, uni::detail::kLower, uni::detail::kUpper); }

bool istitle(std::string_view s) noexcept {
    bool cased = false, prev_cased = false;
    std::size_t i = 0;
    while (i < s.size()) {
        const char32_t c = decode_next(s, i);
        if (uni::is_upper(c) || uni::is_titlecase(c)) {
            if (prev_cased) return false;
            prev_cased = cased = true;
        } else if (uni::is_lower(c)) {
            if (!prev_cased) return false;
            prev_cased = cased = true;
        } else {
            prev_cased = false;
        }
    }
    return cased;
}

bool isidentifier(std::string_view s) noexcept {
    if (s.empty()) return false;
    std::size_t i = 0;
    if (!uni::is_identifier_start(decode_next(s, i))) return false;
    while (i < s.size()) {
        if (!uni::is_identifier_continue(decode_next(s, i))) return false;
    }
    return true;
}

bool isprintable(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        if (!uni::is_printable(decode_next(s, i))) return false;
    }
    return true;
}

bool isascii(std::string_view s) noexcept { return uni::is_ascii(s); }

}  // namespace toolchat::pystr
