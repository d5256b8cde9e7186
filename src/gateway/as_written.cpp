#include "gateway/as_written.hpp"

namespace toolchat::gateway {

void AsWritten::raw(std::string_view text) {
  if (!verbatim_) raw_.append(text);
  else if (!text.empty()) out_.on(dialects::ContentDelta{std::string(text)});
}

// Content and reasoning deltas are substrings of the output, in order: the first occurrence at or
// after the current position is where they came from (markup between them is skipped).
void AsWritten::advance(const std::string& text) {
  size_t at = raw_.find(text, pos_);
  if (at != std::string::npos) pos_ = at + text.size();
}

void AsWritten::on(dialects::Event&& e) {
  if (verbatim_) return;
  if (auto* c = std::get_if<dialects::ContentDelta>(&e)) {
    advance(c->text);
    out_.on(std::move(e));
  } else if (auto* r = std::get_if<dialects::ReasoningDelta>(&e)) {
    advance(r->text);
    out_.on(std::move(e));
  } else if (std::holds_alternative<dialects::ToolCallBegin>(e)) {
    verbatim_ = true;
    if (pos_ < raw_.size()) out_.on(dialects::ContentDelta{raw_.substr(pos_)});
    std::string().swap(raw_);
  } else if (auto* w = std::get_if<dialects::Warning>(&e); w && w->kind == dialects::WarningKind::UnclosedReasoning) {
    out_.on(std::move(e));  // the other warnings are about calls, which are text here
  }
}

}  // namespace toolchat::gateway
