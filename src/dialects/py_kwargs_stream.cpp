#include "dialects/py_kwargs_stream.hpp"

#include <cctype>

#include "dialects/py_literal.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"
#include "value/json.hpp"

namespace toolchat::dialects::pylit {
namespace {

constexpr size_t kMaxKey = 256;

bool key_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool key_char(char c) { return key_start(c) || std::isdigit(static_cast<unsigned char>(c)); }
bool ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// s (UTF-8, WTF-8 surrogates allowed) as the inside of a JSON string.
void append_escaped(std::string& out, std::string_view s) {
  std::string t;
  json::dump_string(t, s, false);
  out.append(t, 1, t.size() - 2);
}

// The length of the escape sequence at in[0] == '\\', 0 when more input is needed, SIZE_MAX when
// it cannot be decided into one (an over-long \N{…}).
size_t escape_len(std::string_view in, bool eof) {
  if (in.size() < 2) return eof ? 1 : 0;
  auto fixed = [&](size_t n) -> size_t { return in.size() >= n || eof ? std::min(n, in.size()) : 0; };
  switch (in[1]) {
    case 'x': return fixed(4);
    case 'u': return fixed(6);
    case 'U': return fixed(10);
    case 'N': {
      size_t close = in.find('}');
      if (close == std::string_view::npos) return in.size() > 100 ? SIZE_MAX : eof ? in.size() : 0;
      return close + 1;
    }
    default:
      if (in[1] >= '0' && in[1] <= '7') {  // up to three octal digits
        size_t n = 2;
        while (n < 4 && n < in.size() && in[n] >= '0' && in[n] <= '7') ++n;
        if (n < 4 && n == in.size() && !eof) return 0;
        return n;
      }
      return 2;
  }
}

}  // namespace

void KwargsStream::reset() {
  st_ = St::Key;
  key_.clear();
  val_.clear();
  params_ = 0;
  quote_ = 0;
  depth_ = 0;
  oquote_ = 0;
  otriple_ = oescape_ = false;
  orun_ = 0;
}

KwargsStream::Status KwargsStream::fail(const scan::ParserBase& p) const {
  return p.call_is_open() ? Status::Broken : Status::NotKwargs;
}

bool KwargsStream::other_done(char c) {
  if (oquote_) {
    if (oescape_) oescape_ = false;
    else if (c == '\\') oescape_ = true, orun_ = 0;
    else if (c != oquote_) orun_ = 0;
    else if (!otriple_) oquote_ = 0;
    else if (++orun_ == 3) oquote_ = 0, orun_ = 0;
    return false;
  }
  if (c == '(' || c == '[' || c == '{') ++depth_;
  if (c == ')' || c == ']' || c == '}') {
    if (depth_ == 0) return true;
    --depth_;
  }
  return depth_ == 0 && c == ',';
}

KwargsStream::Status KwargsStream::step(scan::ParserBase& p, Sink& sink, const std::string& name, std::string_view in,
                                        bool eof, size_t* used) {
  size_t i = 0;
  std::string out;
  auto flush = [&] {
    p.call_text(sink, out);
    out.clear();
  };
  auto give = [&](Status s) {
    flush();
    *used = i;
    return s;
  };
  while (i < in.size()) {
    const char c = in[i];
    switch (st_) {
      case St::Key:
        if (key_.empty()) {
          if (ws(c)) { ++i; continue; }
          if (c == ')') {
            if (!p.call_is_open()) p.open_call(sink, "", name);
            out += params_ ? "}" : "{}";
            ++i;
            return give(Status::Done);
          }
          if (!key_start(c)) return give(fail(p));
        }
        if (key_char(c)) {
          key_ += c;
          ++i;
          if (key_.size() > kMaxKey) return give(fail(p));
          continue;
        }
        st_ = St::Eq;
        continue;
      case St::Eq:
        if (c == ' ' || c == '\t') { ++i; continue; }
        if (c != '=' || (i + 1 < in.size() && in[i + 1] == '=')) return give(fail(p));
        if (i + 1 == in.size() && !eof) return give(Status::NeedMore);  // '=' or '=='
        ++i;
        if (!p.call_is_open()) p.open_call(sink, "", name);
        out += params_++ ? "," : "{";
        out += '"';
        append_escaped(out, key_);
        out += "\":";
        key_.clear();
        st_ = St::Value;
        continue;
      case St::Value: {
        if (ws(c)) { ++i; continue; }
        if (c == '\'' || c == '"') {
          if (in.size() - i < 3 && !eof) return give(Status::NeedMore);
          if (in.substr(i, 3) != std::string(3, c)) {  // a plain string: streamed
            out += '"';
            quote_ = c;
            ++i;
            st_ = St::Str;
            continue;
          }
        }
        val_.clear();
        depth_ = 0;
        oquote_ = 0;
        st_ = St::Other;
        continue;
      }
      case St::Str: {
        if (c == quote_) {
          out += '"';
          ++i;
          st_ = St::After;
          continue;
        }
        if (c == '\\') {
          size_t n = escape_len(in.substr(i), eof);
          if (n == 0) return give(Status::NeedMore);
          if (n == SIZE_MAX) return give(Status::Broken);
          // The escape alone, as a Python literal, read by the same reader as whole calls.
          std::string lit = "'" + std::string(in.substr(i, n)) + "'";
          if (n >= 2 && in[i + 1] == '\n') lit = "''";  // a line continuation
          std::optional<Value> v = pylit::parse(lit);
          if (!v || !v->is_str()) return give(Status::Broken);
          append_escaped(out, v->str());
          i += n;
          continue;
        }
        // A run of plain text; a character cut by the end of the input waits for the rest.
        size_t j = i;
        while (j < in.size() && in[j] != quote_ && in[j] != '\\') ++j;
        size_t end = eof ? j : i + scan::utf8_safe_end(in.substr(i, j - i));
        if (end == i) return give(Status::NeedMore);
        append_escaped(out, in.substr(i, end - i));
        i = end;
        continue;
      }
      case St::Other: {
        if (oquote_ == 0 && (c == '\'' || c == '"') && !oescape_) {
          if (in.size() - i < 3 && !eof) return give(Status::NeedMore);
          otriple_ = in.substr(i, 3) == std::string(3, c);
          oquote_ = c;
          orun_ = 0;
          size_t n = otriple_ ? 3 : 1;
          val_.append(in.substr(i, n));
          i += n;
          continue;
        }
        if (!other_done(c)) {
          val_ += c;
          ++i;
          continue;
        }
        std::optional<Value> v = pylit::parse(textargs::trim(val_));
        if (!v) return give(fail(p));
        out += scan::compact_json(*v);
        st_ = St::After;
        continue;  // the ',' or ')' is read as what follows the value
      }
      case St::After:
        if (ws(c)) { ++i; continue; }
        if (c == ',') {
          ++i;
          st_ = St::Key;
          continue;
        }
        if (c == ')') {
          out += '}';
          ++i;
          return give(Status::Done);
        }
        return give(fail(p));
    }
  }
  return give(Status::NeedMore);
}

}  // namespace toolchat::dialects::pylit
