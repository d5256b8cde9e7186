// Python str center / ljust / rjust / zfill / expandtabs (CPython 3.11) on UTF-8.
#include "value/pystr.hpp"

#include "value/pystr_internal.hpp"
#include "value/unicode.hpp"

namespace toolchat::pystr {

using namespace detail;

namespace {

using uni::decode_next;

std::string pad(std::string_view s, std::int64_t left, std::int64_t right, char32_t fc) {
    std::string f;
    uni::append_utf8(f, fc);
    std::string out;
    out.reserve(s.size() + static_cast<std::size_t>(left + right) * f.size());
    if (f.size() == 1) {
        out.append(static_cast<std::size_t>(left), f[0]);
        out.append(s);
        out.append(static_cast<std::size_t>(right), f[0]);
    } else {
        for (std::int64_t k = 0; k < left; ++k) out.append(f);
        out.append(s);
        for (std::int64_t k = 0; k < right; ++k) out.append(f);
    }
    return out;
}

// align < 0: ljust, 0: center, > 0: rjust
std::string justify(std::string_view s, std::int64_t width, std::string_view fillchar, int align) {
    std::size_t i = 0;
    const char32_t fc = decode_next(fillchar, i);
    if (fillchar.empty() || i != fillchar.size())
        throw PyError("TypeError", "The fill character must be exactly one character long");
    const std::int64_t len = static_cast<std::int64_t>(uni::count_code_points(s));
    if (len >= width) return std::string(s);
    const std::int64_t marg = width - len;
    const std::int64_t left = align < 0 ? 0 : align > 0 ? marg : marg / 2 + (marg & width & 1);
    return pad(s, left, marg - left, fc);
}

}  // namespace

// ---------------------------------------------------------------------------
// padding
// ---------------------------------------------------------------------------
std::string center(std::string_view s, std::int64_t width, std::string_view fillchar) {
    return justify(s, width, fillchar, 0);
}
std::string ljust(std::string_view s, std::int64_t width, std::string_view fillchar) {
    return justify(s, width, fillchar, -1);
}
std::string rjust(std::string_view s, std::int64_t width, std::string_view fillchar) {
    return justify(s, width, fillchar, 1);
}

std::string zfill(std::string_view s, std::int64_t width) {
    const std::int64_t len = length(s);
    if (len >= width) return std::string(s);
    const std::size_t fill = static_cast<std::size_t>(width - len);
    std::string out;
    out.reserve(fill + s.size());
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
        out.push_back(s[0]);
        out.append(fill, '0');
        out.append(s.substr(1));
    } else {
        out.append(fill, '0');
        out.append(s);
    }
    return out;
}

std::string expandtabs(std::string_view s, std::int64_t tabsize) {
    if (s.find('\t') == std::string_view::npos) return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    std::int64_t line_pos = 0;
    std::size_t i = 0;
    while (i < s.size()) {
        const unsigned char b = static_cast<unsigned char>(s[i]);
        if (b == '\t') {
            ++i;
            if (tabsize > 0) {
                const std::int64_t incr = tabsize - (line_pos % tabsize);
                line_pos += incr;
                out.append(static_cast<std::size_t>(incr), ' ');
            }
            continue;
        }
        const std::size_t start = i;
        decode_next(s, i);
        out.append(s.substr(start, i - start));
        ++line_pos;
        if (b == '\n' || b == '\r') line_pos = 0;
    }
    return out;
}

}  // namespace toolchat::pystr
