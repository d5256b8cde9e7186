#include "dialects/deepseek_calls.hpp"

#include "dialects/call_reader.hpp"
#include "dialects/json_util.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"

namespace toolchat::dialects {
namespace {

// Each marker in its four spellings: ▁ (U+2581), '_', ' ', "\_".
std::vector<std::string_view> spellings(std::string_view a, std::string_view b, std::string_view c, std::string_view d) {
  return {a, b, c, d};
}
const std::vector<std::string_view>& calls_begin() {
  static const std::vector<std::string_view> v{"<｜tool▁calls▁begin｜>", "<｜tool_calls_begin｜>", "<｜tool calls begin｜>",
                                               "<｜tool\\_calls\\_begin｜>", "<｜tool▁calls｜>"};
  return v;
}
const auto& calls_end() {
  static const auto v = spellings("<｜tool▁calls▁end｜>", "<｜tool_calls_end｜>", "<｜tool calls end｜>", "<｜tool\\_calls\\_end｜>");
  return v;
}
const auto& call_begin() {
  static const auto v = spellings("<｜tool▁call▁begin｜>", "<｜tool_call_begin｜>", "<｜tool call begin｜>", "<｜tool\\_call\\_begin｜>");
  return v;
}
const auto& call_end() {
  static const auto v = spellings("<｜tool▁call▁end｜>", "<｜tool_call_end｜>", "<｜tool call end｜>", "<｜tool\\_call\\_end｜>");
  return v;
}
const auto& sep() {
  static const auto v = spellings("<｜tool▁sep｜>", "<｜tool_sep｜>", "<｜tool sep｜>", "<｜tool\\_sep｜>");
  return v;
}

constexpr size_t kMaxName = 256;
constexpr const char* kUnclosed = "tool calls block without its end marker";

}  // namespace

void DeepSeekBlock::cut(Sink& sink) {
  for (size_t i = first; i < first + calls; ++i) {
    Warning w{WarningKind::MalformedCall, "tool calls block that cannot be read whole: its calls are content"};
    w.cut_call = i;
    if (i == first) w.cut_text = std::move(text);
    sink.on(std::move(w));
  }
  text.clear();
  calls = 0;
}

namespace {

class DeepSeekParser final : public scan::ThinkParser {
 public:
  DeepSeekParser(const ParseOptions& o, DeepSeekShape shape) : ThinkParser(o, "<think>", "</think>"), shape_(shape) {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    size_t len = 0;
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, calls_begin(), TextKind::Content, eof);
        if (k < 0) return false;
        start_recording(calls_begin()[k]);
        block_.start(calls_);
        st_ = St::List;
        return true;
      }
      case St::List: {
        static const std::vector<std::string_view> opts = scan::joined(calls_end(), call_begin());
        int m = scan::match_any(rest(), opts, eof, &len);
        if (m == -2) return false;
        if (m >= 0 && m < 4) {
          advance(len);
          stop_recording();
          st_ = St::AfterBlock;
          return true;
        }
        if (m < 0 && block_.calls > 0) {
          unclosed_block(sink, kUnclosed);
          st_ = St::Content;
          return true;
        }
        // <｜tool▁call▁begin｜> is optional before the first call (distills write <｜tool▁calls｜>function…).
        if (m >= 0) advance(len);
        st_ = St::Head;
        return true;
      }
      case St::Head: return head(sink);
      case St::Name: {
        std::string_view r = rest();
        size_t nl = r.find('\n');
        if (nl == std::string_view::npos) {
          if (r.size() > kMaxName) return malformed_in_block(sink, "tool name too long");
          return false;
        }
        // the same bound whether the newline arrives in this chunk or a later one
        if (nl > kMaxName) return malformed_in_block(sink, "tool name too long");
        name_.assign(r.substr(0, nl));
        while (!name_.empty() && (name_.back() == ' ' || name_.back() == '\r')) name_.pop_back();
        advance(nl + 1);
        if (name_.empty() || name_.find('<') != std::string::npos) return malformed_in_block(sink, "bad tool name");
        st_ = St::Fence;
        return true;
      }
      case St::Fence: {
        int m = scan::match_any(rest(), {"```json", "```"}, eof, &len);
        if (m == -2) return false;
        if (m >= 0) advance(len);
        args_.reset();
        st_ = St::Json;
        return true;
      }
      case St::Json:
        switch (args_.step(*this, sink, "", name_)) {
          case scan::ArgsReader::Status::NeedMore: return false;
          case scan::ArgsReader::Status::Done: st_ = St::Tail; return true;
          case scan::ArgsReader::Status::NotObject: return malformed_in_block(sink, kNotObject);
          case scan::ArgsReader::Status::Broken:
            // The JSON turned invalid after the call was announced: cut, and with it the block.
            block_.cut(sink);
            abandon_call(sink, WarningKind::MalformedCall, "arguments of '" + name_ + "': not a valid JSON object");
            st_ = St::Content;
            return true;
        }
        return false;
      case St::Tail: {
        int m = scan::match_any(rest(), {"```"}, eof, &len);
        if (m == -2) return false;
        if (m == 0) advance(len);
        st_ = St::End;
        return true;
      }
      case St::End: {
        int m = scan::match_any(rest(), call_end(), eof, &len);
        if (m == -2) return false;
        if (m >= 0) advance(len);
        close_call(sink);
        // Without its <｜tool▁call▁end｜>, the block may still go on (another call) or end with
        // <｜tool▁calls▁end｜>: List consumes either, so that no marker of the block is left in content.
        if (m < 0) warn(sink, WarningKind::MissingCloseMarker, "call without <｜tool▁call▁end｜>");
        block_.add_call(raw());
        start_recording();
        st_ = St::List;
        return true;
      }
      case St::AfterBlock: return ws_then_content(st_);
    }
    return false;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Content || st_ == St::AfterBlock) return;
    if (st_ == St::List && block_.calls > 0) {
      unclosed_block(sink, kUnclosed);
      return;
    }
    abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a tool call", true);
  }

 private:
  // The text before <｜tool▁sep｜>: `function` (V3 shape: the name follows on its own line) or the
  // name (V3.1 shape). It is a single short line; anything else is not a call.
  bool head(Sink& sink) {
    std::string_view r = rest();
    scan::MarkerHit h = scan::find_marker(r, sep());
    std::string_view before = textargs::trim(r.substr(0, h.pos));
    if (before.find('\n') != std::string_view::npos || before.find('<') != std::string_view::npos ||
        h.pos > kMaxName)
      return malformed_in_block(sink, "no <｜tool▁sep｜> after the call marker");
    if (h.which < 0) return false;
    std::string head(before);
    advance(h.pos + sep()[h.which].size());
    if (shape_ == DeepSeekShape::V3 && (head == "function" || head.empty())) {
      st_ = St::Name;
      return true;
    }
    if (head.empty()) return malformed_in_block(sink, "empty tool name");
    name_ = std::move(head);
    st_ = St::Fence;
    return true;
  }

  // A call that is not one, in a block that already gave calls: content whole (DeepSeekBlock).
  bool malformed_in_block(Sink& sink, std::string why) {
    block_.cut(sink);
    return malformed(sink, std::move(why), st_);
  }

  DeepSeekShape shape_;
  enum class St { Content, List, Head, Name, Fence, Json, Tail, End, AfterBlock } st_ = St::Content;
  DeepSeekBlock block_;
  std::string name_;
  scan::ArgsReader args_;
};

}  // namespace

std::unique_ptr<StreamParser> make_deepseek_parser(const ParseOptions& o, DeepSeekShape shape) {
  return std::make_unique<DeepSeekParser>(o, shape);
}

bool deepseek_template_has_calls(const std::string& src) {
  return scan::has(src, "<｜tool▁calls▁begin｜>") || scan::has(src, "<｜tool▁call▁begin｜>");
}

bool deepseek_template_is_v3_shape(const std::string& src) {
  return scan::has(src, "```json") || scan::has(src, "function<｜tool▁sep｜>") ||
         scan::has(src, "tool['type'] + '<｜tool▁sep｜>'");
}

}  // namespace toolchat::dialects
