#include "dialects/python_tag.hpp"

#include <cctype>

#include "dialects/scan.hpp"
#include "dialects/json_util.hpp"
#include "dialects/py_literal.hpp"

namespace toolchat::dialects {
namespace {

constexpr size_t kMaxName = 64;
const std::vector<std::string_view> kEnds{"<|eom_id|>", "<|eot_id|>"};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t'; }

// A Python literal (the builtin tools' form: nested lists and dicts too), else JSON.
std::optional<Value> py_value(std::string_view v) {
  if (auto p = pylit::parse(v)) return p;
  return json_value(v);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

bool parse_python_kwargs(std::string_view text, Value* out, std::string* error) {
  *out = Value::dict();
  size_t i = 0;
  while (true) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) return true;
    size_t k = i;
    while (i < text.size() && ident_char(text[i])) ++i;
    std::string key(text.substr(k, i - k));
    while (i < text.size() && space(text[i])) ++i;
    if (key.empty() || i >= text.size() || text[i] != '=') {
      *error = "expected key=value in the call's arguments";
      return false;
    }
    ++i;
    // The value runs to the next ',' outside strings and brackets.
    size_t v = i;
    char q = 0;
    bool esc = false;
    int depth = 0;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (q) {
        if (esc) esc = false;
        else if (c == '\\') esc = true;
        else if (c == q) q = 0;
        continue;
      }
      if (c == '"' || c == '\'') q = c;
      else if (c == '[' || c == '{' || c == '(') ++depth;
      else if (c == ']' || c == '}' || c == ')') --depth;
      else if (c == ',' && depth == 0) break;
    }
    auto val = py_value(trim(text.substr(v, i - v)));
    if (!val) {
      *error = "value of '" + key + "' is not a JSON or Python literal";
      return false;
    }
    out->dict_obj().set(Value::string(key), *val);
    if (i < text.size()) ++i;  // the ','
  }
}

PythonTagParser::TagStep PythonTagParser::python_tag_step(Sink& sink, bool eof) {
  size_t used = 0;
  auto s = body_.feed(rest(), eof, &used);
  advance(used);
  switch (s) {
    case PythonTagBody::Status::NeedMore: return used > 0 ? TagStep::Progress : TagStep::NeedMore;
    case PythonTagBody::Status::Malformed: give_back(sink, WarningKind::MalformedCall, body_.error()); break;
    case PythonTagBody::Status::Truncated:
      give_back(sink, WarningKind::TruncatedCall, "output ended inside " + body_.name() + ".call(");
      break;
    case PythonTagBody::Status::Done:
      stop_recording();
      emit_call(sink, "", body_.name(), body_.args());
      break;
  }
  return TagStep::Finished;
}

PythonTagBody::Status PythonTagBody::feed(std::string_view in, bool eof, size_t* used) {
  *used = 0;
  switch (st_) {
    case St::Decide: return decide(in, eof, used);
    case St::CallArgs: return call_args(in, eof, used);
    case St::Raw: return raw_code(in, eof, used);
  }
  return Status::NeedMore;
}

// NAME.call( starts a builtin call; anything else is raw code. Nothing is consumed until decided.
PythonTagBody::Status PythonTagBody::decide(std::string_view in, bool eof, size_t* used) {
  size_t i = 0;
  while (i < in.size() && std::isspace(static_cast<unsigned char>(in[i]))) ++i;
  size_t n0 = i;
  while (i < in.size() && ident_char(in[i]) && i - n0 <= kMaxName) ++i;
  bool need_more = i == in.size();  // whitespace or the name so far
  if (i > n0 && i - n0 <= kMaxName && !need_more) {
    size_t j = i;
    while (j < in.size() && space(in[j])) ++j;
    constexpr std::string_view kCall = ".call(";
    std::string_view tail = in.substr(j);
    size_t n = std::min(tail.size(), kCall.size());
    if (tail.substr(0, n) == kCall.substr(0, n)) {
      if (n == kCall.size()) {
        name_.assign(in.substr(n0, i - n0));
        st_ = St::CallArgs;
        text_.clear();
        *used = j + kCall.size();
        return Status::NeedMore;
      }
      need_more = true;
    }
  }
  if (need_more && !eof) return Status::NeedMore;
  st_ = St::Raw;
  return raw_code(in, eof, used);
}

// The arguments run to the ')' that closes NAME.call( (outside strings and brackets).
PythonTagBody::Status PythonTagBody::call_args(std::string_view in, bool eof, size_t* used) {
  size_t i = 0;
  for (; i < in.size(); ++i) {
    char c = in[i];
    if (quote_) {
      if (escape_) escape_ = false;
      else if (c == '\\') escape_ = true;
      else if (c == quote_) quote_ = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote_ = c;
    else if (c == '[' || c == '{' || c == '(') ++depth_;
    else if (c == ']' || c == '}') --depth_;
    else if (c == ')') {
      if (depth_ == 0) break;
      --depth_;
    }
  }
  text_.append(in.substr(0, i));
  if (i == in.size()) {
    *used = i;
    return eof ? Status::Truncated : Status::NeedMore;
  }
  *used = i + 1;
  if (!parse_python_kwargs(text_, &args_, &error_)) return Status::Malformed;
  return Status::Done;
}

PythonTagBody::Status PythonTagBody::raw_code(std::string_view in, bool eof, size_t* used) {
  scan::MarkerHit h = scan::find_marker(in, kEnds);
  size_t upto = h.which >= 0 || !eof ? h.pos : in.size();
  text_.append(in.substr(0, upto));
  *used = upto;
  if (h.which < 0 && !eof) return Status::NeedMore;
  if (text_.find_first_not_of(" \t\r\n") == std::string::npos) {
    error_ = "nothing after <|python_tag|>";
    return Status::Malformed;
  }
  name_ = raw_code_tool_;
  args_ = Value::dict();
  args_.dict_obj().set(Value::string("code"), Value::string(text_));
  return Status::Done;
}

}  // namespace toolchat::dialects
