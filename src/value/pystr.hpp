// Python `str` semantics (CPython 3.11 exact) on UTF-8 std::string_view.
// All indexes, lengths and widths are in code points, like Python.
// Lone surrogates encoded as 3-byte sequences (WTF-8) are ordinary code points.
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace toolchat::pystr {

// A Python exception: type is the class name ("ValueError", "TypeError",
// "IndexError"), message is CPython's message word for word.
struct PyError : std::exception {
    std::string type;
    std::string message;
    PyError(std::string type_, std::string message_)
        : type(std::move(type_)), message(std::move(message_)) {}
    const char* what() const noexcept override { return message.c_str(); }
};

// An optional slice / start / end argument (std::nullopt == Python None).
using Index = std::optional<std::int64_t>;

// ---- length, indexing, slicing -------------------------------------------
std::int64_t length(std::string_view s) noexcept;
// s[index]; negative indexes count from the end.
// IndexError "string index out of range".
std::string char_at(std::string_view s, std::int64_t index);
// s[start:stop:step]; ValueError "slice step cannot be zero".
std::string slice(std::string_view s, Index start, Index stop, Index step = std::nullopt);

// ---- case -----------------------------------------------------------------
std::string lower(std::string_view s);  // with the final-sigma rule
std::string upper(std::string_view s);
std::string title(std::string_view s);  // "it's" -> "It'S"
std::string capitalize(std::string_view s);
std::string swapcase(std::string_view s);
std::string casefold(std::string_view s);

// ---- strip / prefix ---------------------------------------------------------
// chars == nullopt: strip Unicode whitespace (str.isspace); otherwise strip
// any code point contained in *chars.
std::string strip(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
std::string lstrip(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
std::string rstrip(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
// Allocation-free variants returning a view into s.
std::string_view strip_view(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
std::string_view lstrip_view(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
std::string_view rstrip_view(std::string_view s, std::optional<std::string_view> chars = std::nullopt);
std::string removeprefix(std::string_view s, std::string_view prefix);
std::string removesuffix(std::string_view s, std::string_view suffix);

// ---- split / join -------------------------------------------------------------
// sep == nullopt: whitespace mode.  Empty sep: ValueError "empty separator".
// maxsplit < 0: unlimited.
std::vector<std::string> split(std::string_view s, std::optional<std::string_view> sep = std::nullopt,
                               std::int64_t maxsplit = -1);
std::vector<std::string> rsplit(std::string_view s, std::optional<std::string_view> sep = std::nullopt,
                                std::int64_t maxsplit = -1);
std::vector<std::string> splitlines(std::string_view s, bool keepends = false);
// ValueError "empty separator".
std::array<std::string, 3> partition(std::string_view s, std::string_view sep);
std::array<std::string, 3> rpartition(std::string_view s, std::string_view sep);
std::string join(std::string_view sep, std::span<const std::string_view> items);
std::string join(std::string_view sep, std::span<const std::string> items);

// ---- search / replace ---------------------------------------------------------
// count < 0: replace all.  Empty old inserts `repl` around every code point.
std::string replace(std::string_view s, std::string_view old, std::string_view repl,
                    std::int64_t count = -1);
std::int64_t find(std::string_view s, std::string_view sub, Index start = std::nullopt,
                  Index end = std::nullopt);
std::int64_t rfind(std::string_view s, std::string_view sub, Index start = std::nullopt,
                   Index end = std::nullopt);
// ValueError "substring not found".
std::int64_t index(std::string_view s, std::string_view sub, Index start = std::nullopt,
                   Index end = std::nullopt);
std::int64_t rindex(std::string_view s, std::string_view sub, Index start = std::nullopt,
                    Index end = std::nullopt);
std::int64_t count(std::string_view s, std::string_view sub, Index start = std::nullopt,
                   Index end = std::nullopt);
bool startswith(std::string_view s, std::string_view prefix, Index start = std::nullopt,
                Index end = std::nullopt);
bool startswith(std::string_view s, std::span<const std::string_view> prefixes,
                Index start = std::nullopt, Index end = std::nullopt);
bool startswith(std::string_view s, std::span<const std::string> prefixes,
                Index start = std::nullopt, Index end = std::nullopt);
bool endswith(std::string_view s, std::string_view suffix, Index start = std::nullopt,
              Index end = std::nullopt);
bool endswith(std::string_view s, std::span<const std::string_view> suffixes,
              Index start = std::nullopt, Index end = std::nullopt);
bool endswith(std::string_view s, std::span<const std::string> suffixes,
              Index start = std::nullopt, Index end = std::nullopt);

// ---- padding ------------------------------------------------------------------
// fillchar must be exactly one code point:
// TypeError "The fill character must be exactly one character long".
std::string center(std::string_view s, std::int64_t width, std::string_view fillchar = " ");
std::string ljust(std::string_view s, std::int64_t width, std::string_view fillchar = " ");
std::string rjust(std::string_view s, std::int64_t width, std::string_view fillchar = " ");
std::string zfill(std::string_view s, std::int64_t width);
std::string expandtabs(std::string_view s, std::int64_t tabsize = 8);

// ---- predicates ---------------------------------------------------------------
bool isalpha(std::string_view s) noexcept;
bool isdigit(std::string_view s) noexcept;
bool isdecimal(std::string_view s) noexcept;
bool isnumeric(std::string_view s) noexcept;
bool isalnum(std::string_view s) noexcept;
bool isspace(std::string_view s) noexcept;
bool isupper(std::string_view s) noexcept;
bool islower(std::string_view s) noexcept;
bool istitle(std::string_view s) noexcept;
bool isidentifier(std::string_view s) noexcept;
bool isprintable(std::string_view s) noexcept;
bool isascii(std::string_view s) noexcept;

// ---- repr ---------------------------------------------------------------------
// Python repr(str), quotes included; repr_append writes it at the end of `out`.
std::string repr(std::string_view s);
void repr_append(std::string& out, std::string_view s);

}  // namespace toolchat::pystr
