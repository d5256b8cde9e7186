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

// Each state's reader takes what it can from x.in at x.i; nullopt: go on with the next state.
std::optional<KwargsStream::Status> KwargsStream::key(Pass& x) {
  const char c = x.in[x.i];
  if (key_.empty()) {
    if (ws(c)) { ++x.i; return std::nullopt; }
    if (c == ')') {
      if (!x.p.call_is_open()) x.p.open_call(x.sink, "", x.name);
      x.out += params_ ? "}" : "{}";
      ++x.i;
      return Status::Done;
    }
    if (!key_start(c)) return fail(x.p);
  }
  if (key_char(c)) {
    key_ += c;
    ++x.i;
    if (key_.size() > kMaxKey) return fail(x.p);
    return std::nullopt;
  }
  st_ = St::Eq;
  return std::nullopt;
}

std::optional<KwargsStream::Status> KwargsStream::equals(Pass& x) {
  const std::string_view in = x.in;
  const size_t i = x.i;
  const char c = in[i];
  if (c == ' ' || c == '\t') { ++x.i; return std::nullopt; }
  if (c != '=' || (i + 1 < in.size() && in[i + 1] == '=')) return fail(x.p);
  if (i + 1 == in.size() && !x.eof) return Status::NeedMore;  // '=' or '=='
  ++x.i;
  if (!x.p.call_is_open()) x.p.open_call(x.sink, "", x.name);
  x.out += params_++ ? "," : "{";
  x.out += '"';
  json::append_escaped(x.out, key_, false);
  x.out += "\":";
  key_.clear();
  st_ = St::Value;
  return std::nullopt;
}

std::optional<KwargsStream::Status> KwargsStream::value_start(Pass& x) {
  const char c = x.in[x.i];
  if (ws(c)) { ++x.i; return std::nullopt; }
  if (c == '\'' || c == '"') {
    if (x.in.size() - x.i < 3 && !x.eof) return Status::NeedMore;
    if (x.in.substr(x.i, 3) != std::string(3, c)) {  // a plain string: streamed
      x.out += '"';
      quote_ = c;
      ++x.i;
      st_ = St::Str;
      return std::nullopt;
    }
  }
  val_.clear();
  depth_ = 0;
  oquote_ = 0;
  st_ = St::Other;
  return std::nullopt;
}

std::optional<KwargsStream::Status> KwargsStream::string_part(Pass& x) {
  const std::string_view in = x.in;
  const size_t i = x.i;
  const char c = in[i];
  if (c == quote_) {
    x.out += '"';
    ++x.i;
    st_ = St::After;
    return std::nullopt;
  }
  if (c == '\\') {
    size_t n = escape_len(in.substr(i), x.eof);
    if (n == 0) return Status::NeedMore;
    if (n == SIZE_MAX) return Status::Broken;
    // The escape alone, as a Python literal, read by the same reader as whole calls.
    std::string lit = "'" + std::string(in.substr(i, n)) + "'";
    if (n >= 2 && in[i + 1] == '\n') lit = "''";  // a line continuation
    std::optional<Value> v = pylit::parse(lit);
    if (!v || !v->is_str()) return Status::Broken;
    json::append_escaped(x.out, v->str(), false);
    x.i += n;
    return std::nullopt;
  }
  // A run of plain text; a character cut by the end of the input waits for the rest.
  size_t j = i;
  while (j < in.size() && in[j] != quote_ && in[j] != '\\') ++j;
  size_t end = x.eof ? j : i + scan::utf8_safe_end(in.substr(i, j - i));
  if (end == i) return Status::NeedMore;
  json::append_escaped(x.out, in.substr(i, end - i), false);
  x.i = end;
  return std::nullopt;
}

std::optional<KwargsStream::Status> KwargsStream::other_value(Pass& x) {
  const std::string_view in = x.in;
  const size_t i = x.i;
  const char c = in[i];
  if (oquote_ == 0 && (c == '\'' || c == '"') && !oescape_) {
    if (in.size() - i < 3 && !x.eof) return Status::NeedMore;
    otriple_ = in.substr(i, 3) == std::string(3, c);
    oquote_ = c;
    orun_ = 0;
    size_t n = otriple_ ? 3 : 1;
    val_.append(in.substr(i, n));
    x.i += n;
    return std::nullopt;
  }
  if (!other_done(c)) {
    val_ += c;
    ++x.i;
    return std::nullopt;
  }
  std::optional<Value> v = pylit::parse(textargs::trim(val_));
  if (!v) return fail(x.p);
  x.out += scan::compact_json(*v);
  st_ = St::After;
  return std::nullopt;  // the ',' or ')' is read as what follows the value
}

std::optional<KwargsStream::Status> KwargsStream::after_value(Pass& x) {
  const char c = x.in[x.i];
  if (ws(c)) { ++x.i; return std::nullopt; }
  if (c == ',') {
    ++x.i;
    st_ = St::Key;
    return std::nullopt;
  }
  if (c == ')') {
    x.out += '}';
    ++x.i;
    return Status::Done;
  }
  return fail(x.p);
}

KwargsStream::Status KwargsStream::step(scan::ParserBase& p, Sink& sink, const std::string& name, std::string_view in,
                                        bool eof, size_t* used) {
  Pass x{p, sink, name, in, eof, 0, {}};
  std::optional<Status> s;
  while (!s && x.i < in.size()) {
    switch (st_) {
      case St::Key: s = key(x); break;
      case St::Eq: s = equals(x); break;
      case St::Value: s = value_start(x); break;
      case St::Str: s = string_part(x); break;
      case St::Other: s = other_value(x); break;
      case St::After: s = after_value(x); break;
    }
  }
  p.call_text(sink, x.out);
  *used = x.i;
  return s.value_or(Status::NeedMore);
}

}  // namespace toolchat::dialects::pylit
