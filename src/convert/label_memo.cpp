// A memo's per-conversation conditions (label_memo.hpp).
#include <algorithm>

#include "convert/label_memo.hpp"
#include "toolchat/json.hpp"

namespace toolchat::convert {

bool conditions_hold(const std::vector<LabelMemo::Condition>& conditions, const std::vector<std::string_view>& texts) {
  std::string shown, other_shown;
  for (const LabelMemo::Condition& c : conditions) {
    if (c.text >= texts.size() || texts[c.text].empty()) return false;
    std::string_view t = texts[c.text];
    if (c.json) {
      shown.clear();
      json::append_escaped(shown, t, false);
      t = shown;
    }
    if (c.first_not.find(t.front()) != std::string::npos) return false;
    if (c.last_not.find(t.back()) != std::string::npos) return false;
    if (c.other >= 0) {  // ... and neither it nor text `other` ends with the other
      const size_t o = static_cast<size_t>(c.other);
      if (o >= texts.size() || texts[o].empty()) return false;
      std::string_view u = texts[o];
      if (c.other_json) {
        other_shown.clear();
        json::append_escaped(other_shown, u, false);
        u = other_shown;
      }
      const size_t n = std::min(t.size(), u.size());
      if (t.substr(t.size() - n) == u.substr(u.size() - n)) return false;
    }
  }
  return true;
}

}  // namespace toolchat::convert
