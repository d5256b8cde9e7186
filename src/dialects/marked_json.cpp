#include "dialects/call_reader.hpp"
#include "dialects/marked_json.hpp"

#include "dialects/scan.hpp"
#include "value/json.hpp"

namespace toolchat::dialects {
namespace {

class MarkedJsonParser final : public scan::ParserBase {
 public:
  MarkedJsonParser(const ParseOptions& o, const MarkedJsonStyle& s) : ParserBase(o), style_(s) {
    for (const auto& m : s.markers) body_marks_.push_back(m.open);
    for (auto d : s.drops) body_marks_.push_back(d);
    for (auto d : s.stops) body_marks_.push_back(d);
    for (const auto& t : s.thinks) think_opens_.push_back(t.first);
    if (o.reasoning_open && !s.thinks.empty()) {
      for (const auto& t : s.thinks) think_closes_.push_back(t.second);
      st_ = St::Reasoning;
    }
  }

 protected:
  bool step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Start: {
        size_t len = 0;
        int m = think_opens_.empty() ? -1 : scan::match_any(rest(), think_opens_, eof, &len);
        if (m == -2) return false;
        if (m >= 0) {
          advance(len);
          think_closes_ = {style_.thinks[m].second};
          st_ = St::Reasoning;
        } else {
          st_ = St::Body;
        }
        return true;
      }
      case St::Reasoning:
        if (text_until(sink, think_closes_, TextKind::Reasoning, eof) < 0) return false;
        st_ = St::AfterThink;
        return true;
      case St::AfterThink:
        if (!skip_ws()) return false;
        st_ = St::Body;
        return true;
      case St::AfterCall:  // whitespace after a call is content (the output guard drops it before a call or the end)
        st_ = St::Body;
        return true;
      case St::Body: {
        int k = text_until(sink, body_marks_, TextKind::Content, eof);
        if (k < 0) return false;
        size_t nm = style_.markers.size(), nd = style_.drops.size();
        if (static_cast<size_t>(k) < nm) {
          which_ = static_cast<size_t>(k);
          const JsonCallMarker& mk = style_.markers[which_];
          start_recording(mk.open);
          reader_.reset(scan::CallReader::Mode::Either, {"arguments", "parameters"}, true);
          reader_.prime(*this, sink, mk.open.substr(mk.open.size() - mk.json_tail));
          st_ = St::Json;
        } else if (static_cast<size_t>(k) >= nm + nd) {
          st_ = St::Done;
        }
        return true;
      }
      case St::Json: {
        Read r = read_calls(reader_, sink, "the JSON after " + std::string(style_.markers[which_].open));
        not_call_ = r == Read::NotCall;
        if (!not_call_) return moved(r, st_, St::Close, St::Body);
        if (reader_.json_ended()) {  // JSON that is not a call: given back after the close marker
          st_ = St::Close;
          return true;
        }
        give_back(sink, WarningKind::MalformedCall, std::string(style_.markers[which_].open) + " not followed by JSON");
        st_ = St::Body;
        return true;
      }
      case St::Close: {
        const JsonCallMarker& mk = style_.markers[which_];
        if (!close_marked_call(sink, mk.open, mk.close, not_call_,
                               mk.close_optional ? CloseMarker::Optional : CloseMarker::Required, "a call or a list of calls", eof))
          return false;
        st_ = St::AfterCall;
        return true;
      }
      case St::Done:
        advance(rest().size());
        return false;
    }
    return false;
  }

  void at_end(Sink& sink) override {
    if (st_ == St::Reasoning) warn(sink, WarningKind::UnclosedReasoning, "output ended inside the reasoning block");
    if (st_ == St::Json) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a call", true);
  }

 private:
  enum class St { Start, Reasoning, AfterThink, Body, Json, Close, AfterCall, Done };


  MarkedJsonStyle style_;
  std::vector<std::string_view> body_marks_, think_opens_, think_closes_;
  St st_ = St::Start;
  size_t which_ = 0;
  scan::CallReader reader_;  // one call object, or a non-empty array of them
  bool not_call_ = false;
};

}  // namespace

std::unique_ptr<StreamParser> make_marked_json_parser(const ParseOptions& o, const MarkedJsonStyle& style) {
  return std::make_unique<MarkedJsonParser>(o, style);
}

}  // namespace toolchat::dialects
