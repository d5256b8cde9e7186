// The labeler's decision step (labeler.cpp), shared with the memo of a known shape
// (label_memo.cpp), which runs it once more on the shape's marked renders under an Audit.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/render_case.hpp"
#include "toolchat/convert.hpp"
#include "toolchat/value.hpp"

namespace toolchat::convert {

struct Audit;

struct Interval {
  size_t begin, end;
};

// A conversation ready to label: the context (kwargs and polyfills applied), its template, and
// per message the loss override and the role.
struct Conversation {
  Value ctx, messages;
  std::string template_name;
  std::vector<std::optional<bool>> loss;
  std::vector<std::string> roles;
};

// A turn whose served verdict rests on find_dropped (the texts themselves): the memo looks again
// per conversation. target: where it looked, in the row's text.
struct DroppedCheck {
  size_t message = 0;
  Interval target{0, 0};
  std::string dropped;
};

// The first piece of an assistant message (content, a call's name or argument) its rendered
// target does not show, or "". Reasoning is not required: many templates never show it.
std::string dropped_from_turn(const Value& message, std::string_view target);

// The labeling from the renders (in label_keys' order; the first one rendered): the row and the
// turn checks into `out`. `locate(row, count, key)` finds the texts of a row (with
// locate_texts). With `au`, the renders are a shape's marked renders (see Audit) and `drops`
// collects the turns find_dropped decided.
void decide(std::vector<chat::CaseResult>& rendered, const std::vector<size_t>& prompt_of, const Conversation& cv,
            bool generation, const LabelOptions& o, Labeled& out, std::string&& text_json,
            const std::function<void(Row&, size_t, size_t)>& locate, Audit* au = nullptr,
            std::vector<DroppedCheck>* drops = nullptr);

}  // namespace toolchat::convert
