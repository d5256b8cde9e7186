#include "dialects/py_literal.hpp"

#include <cctype>
#include <cstdlib>
#include <vector>

#include "value/json.hpp"
#include "value/unicode.hpp"

namespace toolchat::dialects::pylit {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (c & 0x80); }
bool ident_char(char c) { return ident_start(c) || std::isdigit(static_cast<unsigned char>(c)); }

int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A dict key as json.dumps writes non-string keys.
std::optional<std::string> key_text(const Value& k) {
  if (k.is_str()) return std::string(k.str());
  if (k.is_bool()) return std::string(k.as_bool() ? "true" : "false");
  if (k.is_none()) return std::string("null");
  if (k.is_number()) return json::dumps(k);
  return std::nullopt;
}

}  // namespace

bool Reader::fail(std::string why) {
  if (error_.empty()) error_ = std::move(why) + " at offset " + std::to_string(pos_);
  return false;
}

void Reader::skip_ws() {
  while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
}

bool Reader::eat(char c) {
  skip_ws();
  if (peek() != c) return false;
  ++pos_;
  return true;
}

std::string Reader::dotted_name() {
  size_t p = pos_;
  std::string out;
  while (p < s_.size() && ident_start(s_[p])) {
    size_t b = p;
    while (p < s_.size() && ident_char(s_[p])) ++p;
    out.append(s_.substr(b, p - b));
    if (p + 1 < s_.size() && s_[p] == '.' && ident_start(s_[p + 1])) {
      out += '.';
      ++p;
      continue;
    }
    break;
  }
  pos_ = p;
  return out;
}

std::optional<Value> Reader::literal() { return value(0); }

std::optional<Value> Reader::value(size_t depth) {
  skip_ws();
  if (depth > max_depth) return fail("nesting too deep"), std::nullopt;
  char c = peek();
  if (c == '[' || c == '(' || c == '{') return container(c, depth);
  if (c == '"' || c == '\'') return string_lit();
  if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') return number();
  if (ident_start(c)) {
    size_t b = pos_;
    while (pos_ < s_.size() && ident_char(s_[pos_])) ++pos_;
    std::string_view w = s_.substr(b, pos_ - b);
    // String prefixes: r'…', u'…', R"…" (b'…' bytes are not JSON values).
    if ((w == "r" || w == "R" || w == "u" || w == "U") && (peek() == '"' || peek() == '\'')) {
      pos_ = b;
      return string_lit();
    }
    if (w == "True" || w == "true") return Value::boolean(true);
    if (w == "False" || w == "false") return Value::boolean(false);
    if (w == "None" || w == "null") return Value::none();
    pos_ = b;
    return fail("'" + std::string(w) + "' is not a literal"), std::nullopt;
  }
  return fail(at_end() ? "unexpected end" : "unexpected character"), std::nullopt;
}

std::optional<Value> Reader::string_lit() {
  std::string out;
  bool any = false;
  // Adjacent literals concatenate: 'a' "b" == 'ab'.
  for (;;) {
    size_t save = pos_;
    if (any) skip_ws();
    bool raw = false;
    if (peek() == 'r' || peek() == 'R') { raw = true; ++pos_; }
    else if (peek() == 'u' || peek() == 'U') ++pos_;
    char q = peek();
    if (q != '"' && q != '\'') {
      pos_ = save;
      if (!any) return fail("expected a string"), std::nullopt;
      return Value::string(std::move(out));
    }
    bool triple = s_.substr(pos_, 3) == std::string_view(std::string(3, q));
    pos_ += triple ? 3 : 1;
    for (;;) {
      if (at_end()) return fail("unterminated string"), std::nullopt;
      char c = s_[pos_];
      if (c == q && (!triple || s_.substr(pos_, 3) == std::string_view(std::string(3, q)))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n' && !triple) return fail("newline in a string"), std::nullopt;
      if (c != '\\') { out += c; ++pos_; continue; }
      if (pos_ + 1 >= s_.size()) return fail("unterminated string"), std::nullopt;
      char e = s_[pos_ + 1];
      if (raw) {  // a backslash stays, and keeps the next character from ending the string
        out += c;
        out += e;
        pos_ += 2;
        continue;
      }
      pos_ += 2;
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'a': out += '\a'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'v': out += '\v'; break;
        case '\\': out += '\\'; break;
        case '\'': out += '\''; break;
        case '"': out += '"'; break;
        case '\n': break;  // line continuation
        case 'x': case 'u': case 'U': {
          size_t n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          uint32_t cp = 0;
          for (size_t k = 0; k < n; ++k) {
            int h = pos_ + k < s_.size() ? hexval(s_[pos_ + k]) : -1;
            if (h < 0) return fail("bad \\" + std::string(1, e) + " escape"), std::nullopt;
            cp = cp * 16 + static_cast<uint32_t>(h);
          }
          if (cp > 0x10FFFF) return fail("escape out of range"), std::nullopt;
          pos_ += n;
          uni::append_utf8(out, static_cast<char32_t>(cp));
          break;
        }
        default:
          if (e >= '0' && e <= '7') {
            uint32_t cp = static_cast<uint32_t>(e - '0');
            for (int k = 0; k < 2 && pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++k, ++pos_)
              cp = cp * 8 + static_cast<uint32_t>(s_[pos_] - '0');
            uni::append_utf8(out, static_cast<char32_t>(cp));
          } else {  // unknown escapes keep their backslash
            out += '\\';
            out += e;
          }
      }
    }
    any = true;
  }
}

std::optional<Value> Reader::number() {
  size_t b = pos_;
  std::string digits;
  if (peek() == '-' || peek() == '+') {
    if (peek() == '-') digits += '-';
    ++pos_;
    skip_ws();
  }
  bool is_float = false, any_digit = false;
  auto run = [&] {
    while (pos_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) {
      if (s_[pos_] != '_') { digits += s_[pos_]; any_digit = true; }
      ++pos_;
    }
  };
  run();
  if (peek() == '.') {
    is_float = true;
    digits += '.';
    ++pos_;
    run();
  }
  if (!any_digit) { pos_ = b; return fail("expected a number"), std::nullopt; }
  if (peek() == 'e' || peek() == 'E') {
    size_t e = pos_;
    std::string exp = "e";
    ++pos_;
    if (peek() == '-' || peek() == '+') exp += s_[pos_++];
    size_t d0 = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) exp += s_[pos_++];
    if (pos_ == d0) pos_ = e;
    else { is_float = true; digits += exp; }
  }
  if (is_float) {
    double d = std::strtod(digits.c_str(), nullptr);
    return Value::floating(d);
  }
  // Integers go through the JSON reader, which handles big ones. Python 3 rejects leading zeros
  // (007), and so do we: "2025-08-01" must not read as a number.
  size_t neg = digits[0] == '-' ? 1 : 0;
  if (digits.size() > neg + 1 && digits[neg] == '0') {
    pos_ = b;
    return fail("leading zeros in an integer"), std::nullopt;
  }
  try {
    return json::parse(digits);
  } catch (const std::exception&) {
    return fail("bad number"), std::nullopt;
  }
}

std::optional<Value> Reader::container(char open, size_t depth) {
  ++pos_;
  char close = open == '[' ? ']' : open == '(' ? ')' : '}';
  std::vector<Value> items;
  Value dict;
  bool is_dict = false, first = true, saw_comma = false;
  for (;;) {
    skip_ws();
    if (eat(close)) break;
    if (!first && !saw_comma) return fail("expected ',' or '" + std::string(1, close) + "'"), std::nullopt;
    auto v = value(depth + 1);
    if (!v) return std::nullopt;
    if (open == '{') {
      if (eat(':')) {
        if (!first && !is_dict) return fail("mixed set and dict"), std::nullopt;
        is_dict = true;
        auto k = key_text(*v);
        if (!k) return fail("unsupported dict key"), std::nullopt;
        auto val = value(depth + 1);
        if (!val) return std::nullopt;
        if (dict.is_undefined()) dict = Value::dict();
        dict.dict_obj().set(Value::string(*k), *val);
      } else {
        if (is_dict) return fail("expected ':'"), std::nullopt;
        items.push_back(*v);
      }
    } else {
      items.push_back(*v);
    }
    first = false;
    saw_comma = eat(',');
  }
  if (open == '{' && (is_dict || items.empty())) return dict.is_undefined() ? Value::dict() : dict;
  // A one-element tuple needs its comma; (x) is just x.
  if (open == '(' && items.size() == 1 && !saw_comma) return items[0];
  return Value::list(std::move(items));
}

std::optional<Value> Reader::kwargs() {
  if (!eat('(')) return fail("expected '('"), std::nullopt;
  Value args = Value::dict();
  bool first = true;
  for (;;) {
    if (eat(')')) break;
    if (!first && !eat(',')) return fail("expected ',' or ')'"), std::nullopt;
    if (eat(')')) break;  // trailing comma
    skip_ws();
    std::string key = dotted_name();
    if (key.empty() || key.find('.') != std::string::npos) return fail("expected a keyword argument"), std::nullopt;
    if (!eat('=')) return fail("expected '=' after " + key), std::nullopt;
    auto v = literal();
    if (!v) return std::nullopt;
    args.dict_obj().set(Value::string(key), std::move(*v));
    first = false;
  }
  return args;
}

std::optional<Value> parse_call_kwargs(std::string_view text, std::string_view callee, std::string* error) {
  Reader r(text);
  auto fail = [&](std::string why) -> std::optional<Value> {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  r.skip_ws();
  if (r.dotted_name() != callee) return fail("expected " + std::string(callee) + "(…)");
  auto args = r.kwargs();
  if (!args) return fail(r.error());
  r.skip_ws();
  if (!r.at_end()) return fail("text after the call at offset " + std::to_string(r.pos()));
  return args;
}

std::optional<Value> parse(std::string_view text) {
  Reader r(text);
  auto v = r.literal();
  if (!v) return std::nullopt;
  r.skip_ws();
  if (!r.at_end()) return std::nullopt;
  return v;
}

}  // namespace toolchat::dialects::pylit
