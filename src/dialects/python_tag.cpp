#include "dialects/python_tag.hpp"

#include <cctype>

#include "dialects/scan.hpp"
#include "dialects/json_util.hpp"

namespace toolchat::dialects {
namespace {

constexpr size_t kMaxName = 64;
const std::vector<std::string_view> kEnds{"<|eom_id|>", "<|eot_id|>"};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t'; }

}  // namespace

PythonTagParser::TagStep PythonTagParser::python_tag_step(Sink& sink, bool eof) {
  const size_t before = pos_;
  size_t used = 0;
  switch (tag_) {
    case Tag::Decide: {
      PythonTagBody::Kind k = body_.decide_kind(rest(), eof, &used);
      advance(used);
      if (k == PythonTagBody::Kind::NeedMore) return TagStep::NeedMore;
      if (k == PythonTagBody::Kind::Call) {
        kwargs_.reset();
        tag_ = Tag::Kwargs;
        return TagStep::Progress;
      }
      if (rest().find_first_not_of(" \t\r\n") == std::string_view::npos) {  // eof: nothing after the tag
        give_back(sink, WarningKind::MalformedCall, "nothing after <|python_tag|>");
        return TagStep::Finished;
      }
      open_string_call(sink, body_.raw_code_tool(), "code");
      stop_recording();  // after the announcement: an unknown tool's text starts with the marker
      tag_ = Tag::Raw;
      return TagStep::Progress;
    }
    case Tag::Kwargs:
      // At eof with the arguments unfinished, the parser's at_end cuts the call.
      if (read_kwargs(kwargs_, sink, body_.name(), eof, NotArgs::Cut) != Read::NeedMore) return TagStep::Finished;
      return pos_ > before ? TagStep::Progress : TagStep::NeedMore;
    case Tag::Raw:
      // Raw code runs to <|eom_id|> / <|eot_id|> (left for the content) or the end of the output.
      if (string_arg_until(sink, kEnds, eof) >= 0 || eof) {
        close_string_call(sink);
        return TagStep::Finished;
      }
      return pos_ > before ? TagStep::Progress : TagStep::NeedMore;
  }
  return TagStep::Finished;
}

// NAME.call( starts a builtin call; anything else is raw code. Nothing is consumed until decided.
PythonTagBody::Kind PythonTagBody::decide_kind(std::string_view in, bool eof, size_t* used) {
  *used = 0;
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
        *used = j + kCall.size();
        return Kind::Call;
      }
      need_more = true;
    }
  }
  if (need_more && !eof) return Kind::NeedMore;
  st_ = St::Raw;
  return Kind::Raw;
}

}  // namespace toolchat::dialects
