// Decoders: turn token strings back into text (HF's decode_chain, step by step).
#include "tokenize/impl.hpp"
#include "value/escape_scan.hpp"
#include "value/unicode.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::tokenize {

namespace {
std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string r;
  size_t i = 0;
  while (true) {
    const size_t k = s.find(from, i);
    if (k == std::string::npos) break;
    r.append(s, i, k - i);
    r += to;
    i = k + from.size();
  }
  r.append(s, i, std::string::npos);
  return r;
}

}  // namespace

void Decoder::apply(std::vector<std::string>& tokens) const {
  switch (type) {
    case Type::Sequence:
      for (const Decoder& d : children) d.apply(tokens);
      return;
    case Type::ByteLevel: {
      std::string bytes;
      for (const std::string& t : tokens) {
        size_t i = 0;
        while (i < t.size()) {
          const size_t at = i;
          const char32_t c = uni::decode_next(t, i);
          const int b = byte_level_byte(c);
          if (b >= 0) bytes.push_back(static_cast<char>(b));
          else bytes.append(t, at, i - at);
        }
      }
      tokens.assign(1, utf8_lossy(bytes));
      return;
    }
    case Type::Replace:
      for (std::string& t : tokens) t = replace_all(t, pattern, content);
      return;
    case Type::Fuse: {
      std::string all;
      for (const std::string& t : tokens) all += t;
      tokens.assign(1, std::move(all));
      return;
    }
    case Type::ByteFallback: {
      std::vector<std::string> out;
      std::string pending;
      size_t pending_n = 0;
      auto flush = [&] {
        if (!pending_n) return;
        if (utf8::find_invalid(pending) == std::string::npos) {
          out.push_back(pending);
        } else {
          for (size_t k = 0; k < pending_n; ++k) out.push_back("\xEF\xBF\xBD");
        }
        pending.clear();
        pending_n = 0;
      };
      for (std::string& t : tokens) {
        int hi, lo;
        if (t.size() == 6 && t.compare(0, 3, "<0x") == 0 && t[5] == '>' && (hi = json::hex_digit(t[3])) >= 0 &&
            (lo = json::hex_digit(t[4])) >= 0) {
          pending.push_back(static_cast<char>(hi * 16 + lo));
          ++pending_n;
          continue;
        }
        flush();
        out.push_back(std::move(t));
      }
      flush();
      tokens.swap(out);
      return;
    }
    case Type::Strip: {
      // Remove up to `start` leading and `stop` trailing code points equal to `content`.
      for (std::string& t : tokens) {
        std::u32string cps = uni::decode(t);
        const std::u32string c = uni::decode(content);
        const char32_t ch = c.empty() ? 0 : c[0];
        size_t b = 0, e = cps.size();
        while (b < start && b < e && cps[b] == ch) ++b;
        size_t removed = 0;
        while (removed < stop && e > b && cps[e - 1] == ch) { --e; ++removed; }
        t = uni::encode(std::u32string_view(cps).substr(b, e - b));
      }
      return;
    }
    case Type::Metaspace:
      for (size_t i = 0; i < tokens.size(); ++i) {
        std::string t = replace_all(tokens[i], replacement, " ");
        if (i == 0 && prepend && !t.empty() && t[0] == ' ') t.erase(0, 1);
        tokens[i] = std::move(t);
      }
      return;
  }
}

}  // namespace toolchat::tokenize
