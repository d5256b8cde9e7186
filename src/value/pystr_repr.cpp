// Python repr() of a str (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

namespace {

using uni::decode_next;

inline void hex_escape(std::string& out, char prefix, char32_t c, int digits) {
    static const char kHex[] = "0123456789abcdef";
    out.push_back('\\');
    out.push_back(prefix);
    for (int k = digits - 1; k >= 0; --k) out.push_back(kHex[(c >> (4 * k)) & 0xF]);
}

}  // namespace

// ---------------------------------------------------------------------------
// repr
// ---------------------------------------------------------------------------
void repr_append(std::string& out, std::string_view s) {
    const bool has_sq = s.find('\'') != std::string_view::npos;
    const bool has_dq = s.find('"') != std::string_view::npos;
    const char quote = (has_sq && !has_dq) ? '"' : '\'';
    const unsigned char q = static_cast<unsigned char>(quote);
    out.reserve(out.size() + s.size() + 2);
    out.push_back(quote);
    std::size_t i = 0;
    while (i < s.size()) {
        // A run of printable ASCII that needs no escape goes out in one append.
        std::size_t run = i;
        while (run < s.size()) {
            const unsigned char c = static_cast<unsigned char>(s[run]);
            if (c < ' ' || c >= 0x7F || c == q || c == '\\') break;
            ++run;
        }
        if (run > i) {
            out.append(s.data() + i, run - i);
            i = run;
            if (i == s.size()) break;
        }
        const unsigned char b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            if (b == q || b == '\\') {
                out.push_back('\\');
                out.push_back(static_cast<char>(b));
            } else if (b == '\t') {
                out.append("\\t");
            } else if (b == '\n') {
                out.append("\\n");
            } else if (b == '\r') {
                out.append("\\r");
            } else {
                hex_escape(out, 'x', b, 2);  // other controls and DEL
            }
            continue;
        }
        const std::size_t start = i;
        const char32_t c = decode_next(s, i);
        if (uni::is_printable(c)) {
            out.append(s.substr(start, i - start));
        } else if (c <= 0xFF) {
            hex_escape(out, 'x', c, 2);
        } else if (c <= 0xFFFF) {
            hex_escape(out, 'u', c, 4);
        } else {
            hex_escape(out, 'U', c, 8);
        }
    }
    out.push_back(quote);
}

std::string repr(std::string_view s) {
    std::string out;
    repr_append(out, s);
    return out;
}

}  // namespace toolchat::pystr
