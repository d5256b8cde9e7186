#include "dialects/interleaved_think.hpp"

#include "dialects/scan.hpp"

namespace toolchat::dialects {
namespace {

class InterleavedThink final : public StreamParser, private Sink {
 public:
  InterleavedThink(std::unique_ptr<StreamParser> inner, std::string_view open, std::string_view close)
      : inner_(std::move(inner)), open_(open), close_(close) {}

  void feed(std::string_view chunk, Sink& sink) override {
    out_ = &sink;
    inner_->feed(chunk, *this);
  }
  void finish(Sink& sink) override {
    out_ = &sink;
    inner_->finish(*this);
    drain(true);
    if (in_block_) out_->on(Warning{WarningKind::UnclosedReasoning, "output ended inside a " + std::string(open_) + " block"});
  }

 private:
  void on(Event&& e) override {
    if (auto* c = std::get_if<ContentDelta>(&e)) {
      if (pending_.empty() && c->text.find('<') == std::string::npos) {  // no tag can start here
        if (in_block_) out_->on(ReasoningDelta{std::move(c->text)});
        else out_->on(std::move(e));
        return;
      }
      pending_ += c->text;
      drain(false);
      return;
    }
    drain(true);  // anything else: what is pending cannot be a tag cut by a chunk boundary
    out_->on(std::move(e));
  }

  // Sends pending_ as content or reasoning, switching at the tags; a possible tag prefix at the
  // end is kept unless `all`.
  void drain(bool all) {
    size_t at = 0;
    while (at < pending_.size()) {
      std::string_view rest = std::string_view(pending_).substr(at);
      std::string_view tag = in_block_ ? close_ : open_;
      scan::MarkerHit h = scan::find_marker(rest, {tag});
      size_t upto = h.which >= 0 ? h.pos : all ? rest.size() : h.pos;
      if (upto > 0) {
        std::string text(rest.substr(0, upto));
        if (in_block_) out_->on(ReasoningDelta{std::move(text)});
        else out_->on(ContentDelta{std::move(text)});
      }
      at += upto;
      if (h.which < 0) break;
      at += tag.size();
      in_block_ = !in_block_;
    }
    pending_.erase(0, at);
  }

  std::unique_ptr<StreamParser> inner_;
  std::string_view open_, close_;
  Sink* out_ = nullptr;
  std::string pending_;
  bool in_block_ = false;
};

}  // namespace

std::unique_ptr<StreamParser> with_interleaved_think(std::unique_ptr<StreamParser> inner, std::string_view open,
                                                     std::string_view close) {
  return std::make_unique<InterleavedThink>(std::move(inner), open, close);
}

}  // namespace toolchat::dialects
