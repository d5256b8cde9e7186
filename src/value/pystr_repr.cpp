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
std::string repr(std::string_view s) {
    const bool has_sq = s.find('\'') != std::string_view::npos;
    const bool has_dq = s.find('"') != std::string_view::npos;
    const char quote = (has_sq && !has_dq) ? '"' : '\'';
    std::string out;
    out.reserve(s.size() + 2);
    out.push_back(quote);
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char b = static_cast<unsigned char>(s[i]);
        if (b < 0x80) {
            ++i;
            if (b == static_cast<unsigned char>(quote) || b == '\\') {
                out.push_back('\\');
                out.push_back(static_cast<char>(b));
            } else if (b == '\t') {
                out.append("\\t");
            } else if (b == '\n') {
                out.append("\\n");
            } else if (b == '\r') {
                out.append("\\r");
            } else if (b < ' ' || b == 0x7F) {
                hex_escape(out, 'x', b, 2);
            } else {
                out.push_back(static_cast<char>(b));
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
    return out;
}

}  // namespace toolchat::pystr
