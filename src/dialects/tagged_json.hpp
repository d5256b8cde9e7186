// Shared by the families whose calls are a JSON object {"name", "arguments"} between an open and a
// close tag (hermes: <tool_call>…</tool_call>, deepseek_r1_xml: <tool_code>…</tool_code>), with an
// optional <think> block first. Text around calls is content; whitespace after a call is dropped.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "dialects/call_reader.hpp"
#include "dialects/py_literal.hpp"
#include "dialects/scan.hpp"
#include "dialects/text_args.hpp"

namespace toolchat::dialects {

class TaggedJsonParser final : public scan::ThinkParser {
 public:
  // opens[i] is closed by closes[i].
  TaggedJsonParser(const ParseOptions& o, std::vector<std::string_view> opens, std::vector<std::string_view> closes,
                   std::string_view think_open = "<think>", std::string_view think_close = "</think>")
      : ThinkParser(o, think_open, think_close), opens_(std::move(opens)), closes_(std::move(closes)) {}

 protected:
  bool body_step(Sink& sink, bool eof) override {
    switch (st_) {
      case St::Content: {
        int k = text_until(sink, opens_, TextKind::Content, eof);
        if (k < 0) return false;
        which_ = static_cast<size_t>(k);
        start_recording(opens_[which_]);
        reader_.reset(scan::CallReader::Mode::Object, {"arguments", "parameters"}, true);
        st_ = St::Json;
        return true;
      }
      case St::Json: {
        Read r = read_calls(reader_, sink, "the call after " + std::string(opens_[which_]));
        not_call_ = r == Read::NotCall;
        if (!not_call_) return moved(r, st_, St::Close, St::Content);
        if (reader_.json_ended()) {  // JSON, but not a call: given back after the close marker
          st_ = St::Close;
          return true;
        }
        // A Python dict ({'name': …}, as small Hermes / Qwen models write) is read as a literal.
        if (!rest().empty() && rest()[0] == '\'') {
          st_ = St::Literal;
          return true;
        }
        return malformed(sink, std::string(opens_[which_]) + " not followed by a JSON object", st_);
      }
      case St::Close:
        if (!close_marked_call(sink, opens_[which_], closes_[which_], not_call_, CloseMarker::Required, "a call", eof)) return false;
        st_ = St::AfterCall;
        return true;
      case St::Literal: return literal_step(sink, eof);
      case St::AfterCall: return ws_then_content(st_);
    }
    return false;
  }

  // The call as a Python literal up to the close tag, bounded by kMaxLiteral bytes. Decisions use
  // only bytes that have arrived in any chunking: the close tag within the bound, or more than the
  // bound with no close tag able to start inside it.
  bool literal_step(Sink& sink, bool eof) {
    std::string_view close = closes_[which_], r = rest();
    const size_t before = raw().size() - opens_[which_].size();  // literal bytes the JSON scanner took
    size_t room = before >= kMaxLiteral ? 0 : kMaxLiteral - before;
    size_t p = r.substr(0, std::min(r.size(), room + close.size())).find(close);
    if (p != std::string_view::npos && p <= room) {
      advance(p);
      std::string lit = raw().substr(opens_[which_].size());
      if (!emit_literal_call(sink, lit)) return not_a_literal_call(sink);
      advance(close.size());
      st_ = St::AfterCall;
      return true;
    }
    if (r.size() >= room + close.size()) {  // over the bound: not a call
      advance(std::min(room, r.size()));
      return not_a_literal_call(sink);
    }
    if (!eof) return false;
    advance(r.size());
    std::string lit = raw().substr(opens_[which_].size());
    if (!emit_literal_call(sink, lit)) {
      give_back(sink, WarningKind::TruncatedCall, "output ended inside a call");
      st_ = St::Content;
      return true;
    }
    warn(sink, WarningKind::MissingCloseMarker, "call without " + std::string(close));
    st_ = St::AfterCall;
    return true;
  }

  bool emit_literal_call(Sink& sink, std::string_view lit) {
    std::optional<Value> v = pylit::parse(textargs::trim(lit));
    if (!v || !v->is_dict()) return false;
    const Value* name = v->dict_obj().find("name");
    if (!name || !name->is_str() || name->str().empty()) return false;
    const Value* args = v->dict_obj().find("arguments");
    if (!args) args = v->dict_obj().find("parameters");
    if (args && !args->is_dict()) return false;
    stop_recording();
    emit_call(sink, "", std::string(name->str()), args ? *args : Value::dict());
    return true;
  }

  bool not_a_literal_call(Sink& sink) {
    give_back(sink, WarningKind::MalformedCall, std::string(opens_[which_]) + " not followed by a JSON object");
    st_ = St::Content;
    return true;
  }

  void body_end(Sink& sink) override {
    if (st_ == St::Json) abandon_call(sink, WarningKind::TruncatedCall, "output ended inside a call", true);
    if (st_ == St::Literal) give_back(sink, WarningKind::TruncatedCall, "output ended inside a call");
  }

 private:
  static constexpr size_t kMaxLiteral = 64 * 1024;
  enum class St { Content, Json, Close, Literal, AfterCall } st_ = St::Content;
  std::vector<std::string_view> opens_, closes_;
  size_t which_ = 0;
  scan::CallReader reader_;
  bool not_call_ = false;
};

}  // namespace toolchat::dialects
