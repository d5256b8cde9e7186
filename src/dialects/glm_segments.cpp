#include "dialects/glm_segments.hpp"

#include <cctype>

#include "dialects/text_args.hpp"

namespace toolchat::dialects {

namespace {
constexpr size_t kMaxNameLine = 256;
}  // namespace

const std::vector<std::string_view>& GlmSegmentParser::segment_ends() {
  static const std::vector<std::string_view> ends = {"<|assistant|>", "<|observation|>", "<|user|>", "<|endoftext|>"};
  return ends;
}

bool GlmSegmentParser::accepts_name(std::string_view s) const {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

void GlmSegmentParser::as_text(Sink& sink) {
  // The text given back follows the Text state's rule: its trailing whitespace waits in
  // pending_ws_, so that where the decision fell (how much had arrived) does not show.
  text_keeping_ws_pending(sink, raw());
  stop_recording();
  st_ = St::Text;
}

void GlmSegmentParser::text_keeping_ws_pending(Sink& sink, std::string_view t) {
  size_t e = t.size();
  while (e > 0 && scan::is_json_ws(t[e - 1])) --e;
  if (e > 0) {
    emit_text(sink, pending_ws_, TextKind::Content);
    emit_text(sink, t.substr(0, e), TextKind::Content);
    pending_ws_.clear();
  }
  pending_ws_.append(t.substr(e));
}

bool GlmSegmentParser::body_step(Sink& sink, bool eof) {
  const auto& ends = segment_ends();
  switch (st_) {
    case St::Meta: {
      // The metadata line is held until its line break.
      std::string_view r = rest();
      scan::MarkerHit h = scan::find_marker(r, ends);
      size_t nl = r.substr(0, h.pos).find('\n');
      if (nl == std::string_view::npos && h.which < 0 && !eof) {
        // Tool names are short: a long first line is text, and is not re-scanned while it grows.
        if (r.size() <= kMaxNameLine) return false;
        st_ = St::Text;
        return true;
      }
      size_t end = nl != std::string_view::npos ? nl : h.which >= 0 ? h.pos : r.size();
      std::string_view name = textargs::trim(r.substr(0, end));
      if (name.empty() && !second_look_) {
        advance(end + (nl != std::string_view::npos ? 1 : 0));
        st_ = St::TextStart;
      } else if (name.empty()) {
        st_ = St::Text;
      } else if (nl != std::string_view::npos && accepts_name(name)) {
        name_ = std::string(name);
        start_recording();
        advance(nl + 1);
        st_ = St::Call;
      } else {
        st_ = St::Text;
      }
      return true;
    }
    case St::TextStart:
      // After the metadata line (or a call), the first line of the text may still be a call's name
      // line (GLM-4 / ms-swift accept "NAME\n{…}" after a blank line, and calls back to back).
      if (!skip_ws()) return false;
      second_look_ = true;
      st_ = St::Meta;
      return true;
    case St::Text: {
      // Trailing whitespace of a segment is dropped: a whitespace run waits in pending_ws_ until
      // text follows (so each byte is looked at once).
      std::string_view r = rest();
      scan::MarkerHit h = scan::find_marker(r, ends);
      size_t upto = h.which >= 0 ? h.pos : eof ? r.size() : scan::utf8_safe_end(r.substr(0, h.pos));
      text_keeping_ws_pending(sink, r.substr(0, upto));
      skip(upto);
      if (h.which < 0) return false;
      pending_ws_.clear();
      second_look_ = false;
      skip(ends[h.which].size());
      st_ = h.which == 0 ? St::Meta : St::Done;
      return true;
    }
    case St::Call:
      return call_step(sink, eof);
    case St::Done:
      skip_to_end();
      return false;
  }
  return false;
}

void GlmSegmentParser::body_end(Sink& sink) {
  if (st_ == St::Call) call_end(sink);
}

}  // namespace toolchat::dialects
