// A known shape's memo (label_memo.hpp): made from the shape's marked renders under the Audit,
// applied to later conversations of the shape, and its per-conversation conditions.
#include "convert/label_memo.hpp"

#include <algorithm>

#include "chat/content_marks.hpp"
#include "convert/label_audit.hpp"
#include "convert/format_util.hpp"
#include "convert/label_decide.hpp"
#include "toolchat/json.hpp"

namespace toolchat::convert {

using detail::field;

bool conditions_hold(const std::vector<LabelMemo::Condition>& conditions, const std::vector<std::string_view>& texts) {
  std::string shown, other_shown;
  for (const LabelMemo::Condition& c : conditions) {
    if (c.text >= texts.size() || texts[c.text].empty()) return false;
    std::string_view t = texts[c.text];
    if (c.shown != chat::MarkerAt::Shown::raw) {
      shown.clear();
      if (!append_shown(shown, t, c.shown)) return false;
      t = shown;
    }
    if (c.first_not.find(t.front()) != std::string::npos) return false;
    if (c.last_not.find(t.back()) != std::string::npos) return false;
    if (c.other >= 0) {  // ... and neither it nor text `other` ends with the other
      const size_t o = static_cast<size_t>(c.other);
      if (o >= texts.size() || texts[o].empty()) return false;
      std::string_view u = texts[o];
      if (c.other_shown != chat::MarkerAt::Shown::raw) {
        other_shown.clear();
        if (!append_shown(other_shown, u, c.other_shown)) return false;
        u = other_shown;
      }
      const size_t n = std::min(t.size(), u.size());
      if (t.substr(t.size() - n) == u.substr(u.size() - n)) return false;
    }
  }
  return true;
}

bool repr_found(std::string_view t) {
  std::string shown;
  if (!append_shown(shown, t, chat::MarkerAt::Shown::repr)) return false;
  if (shown == t) return true;
  std::string escaped;
  json::append_escaped(escaped, t, false);
  return shown == escaped;
}

bool reprs_found(const std::vector<size_t>& repr_texts, const std::vector<std::string_view>& texts) {
  for (size_t k : repr_texts)
    if (k >= texts.size() || !repr_found(texts[k])) return false;
  return true;
}

namespace {

// A copy of v with every string that is the whole marker of a text in `repr` spelt as its repr
// shows it (so that find_dropped, run on the marked renders, finds it where the render shows it
// that way); the texts replaced are added to `replaced`.
Value repr_spelt(const Value& v, const std::vector<size_t>& repr, std::vector<size_t>& replaced) {
  if (v.is_str()) {
    chat::MarkerAt at;
    if (!chat::read_marker_at(v.str(), 0, at) || at.length != v.str().size() ||
        !std::binary_search(repr.begin(), repr.end(), at.index))
      return v;
    std::string shown;
    append_shown(shown, v.str(), chat::MarkerAt::Shown::repr);
    replaced.push_back(at.index);
    return Value::string(shown);
  }
  if (v.is_list()) {
    std::vector<Value> items;
    for (const Value& x : v.items()) items.push_back(repr_spelt(x, repr, replaced));
    return Value::list(std::move(items), v.list_obj().lkind);
  }
  if (v.is_dict()) {
    Value d = Value::dict();
    for (const auto& [k, x] : v.dict_obj().entries) d.dict_obj().set(k, repr_spelt(x, repr, replaced));
    return d;
  }
  return v;
}

// The place of byte `x` of a marked render (false: inside a marker).
bool memo_pos(const MarkedRender& r, size_t x, MemoPos& out) {
  for (size_t j = 0; j < r.pieces.size(); ++j)
    if (r.pieces[j].begin <= x && x <= r.pieces[j].end) {
      out = {j, x - r.pieces[j].begin};
      return true;
    }
  return false;
}

// Whether find_dropped, having found everything of a turn in its marked target, finds it for any
// texts (LabelMemo::MemoDropped::texts_found). A text it found is its marker, which stands where
// the text will stand, inside the target; the rest (names, numbers) it must find again with the
// texts empty and the markers' bytes made unmatchable, that is in the template's own bytes.
// String `arguments` texts are parsed by find_dropped: listed to be looked at per conversation.
void texts_found(const MarkedRender& first, const Value& message, const Value& marked_message,
                 LabelMemo::MemoDropped& d) {
  std::string target;
  for (size_t j = d.begin.piece; j <= d.end.piece && j < first.pieces.size(); ++j) {
    const Piece& p = first.pieces[j];
    const size_t b = j == d.begin.piece ? p.begin + d.begin.at : p.begin;
    const size_t e = j == d.end.piece ? p.begin + d.end.at : p.end;
    target.append(first.marked, b, e - b);
    if (j != d.end.piece && p.text >= 0) target += '\xFF';  // never part of a UTF-8 needle
  }
  const Value blank = chat::blank_message_texts(Value::list({message}));
  if (!dropped_from_turn(blank.items()[0], target).empty()) return;
  if (const Value* calls = field(marked_message, "tool_calls"); calls && calls->is_list())
    for (const Value& call : calls->items()) {
      const Value* fn = call.is_dict() ? field(call, "function") : nullptr;
      const Value* args = fn && fn->is_dict() ? field(*fn, "arguments") : nullptr;
      chat::MarkerAt at;
      if (args && args->is_str() && chat::read_marker_at(args->str(), 0, at) && at.length == args->str().size())
        d.string_arguments.push_back(at.index);
      else if (args && args->is_str())
        return;  // a string that is no text's marker (an empty one): looked at again
    }
  d.texts_found = true;
}

}  // namespace

std::unique_ptr<LabelMemo> make_memo(const std::vector<MarkedRender>& shape, const std::vector<size_t>& prompt_of,
                                     const Conversation& cv, const LabelOptions& o) {
  Audit au;
  std::vector<chat::CaseResult> marked(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    const MarkedRender& r = shape[i];
    marked[i].ok = r.ok;
    marked[i].error = r.error;
    marked[i].message = r.message;
    marked[i].text = r.marked;
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    Audit::Marked m{marked[i].text, {}};
    const auto& ps = shape[i].pieces;
    for (size_t j = 0; j + 1 < ps.size(); ++j)
      if (ps[j].text >= 0)
        m.markers.push_back({ps[j].end, ps[j + 1].begin, static_cast<size_t>(ps[j].text),
                             ps[j].shown});
    au.strings.push_back(std::move(m));
  }
  Conversation mcv;
  mcv.messages = chat::mark_message_texts(cv.messages, true).messages;
  // Texts a render shows inside a repr: their markers spelt that way in the messages find_dropped
  // reads, each message's such texts kept (found for any text only under repr_found).
  std::vector<size_t> repr;
  for (const MarkedRender& r : shape)
    for (const Piece& p : r.pieces)
      if (p.text >= 0 && p.shown == chat::MarkerAt::Shown::repr) repr.push_back(static_cast<size_t>(p.text));
  std::sort(repr.begin(), repr.end());
  std::vector<std::vector<size_t>> repr_of(mcv.messages.items().size());
  if (!repr.empty()) {
    std::vector<Value> spelt;
    for (size_t i = 0; i < mcv.messages.items().size(); ++i)
      spelt.push_back(repr_spelt(mcv.messages.items()[i], repr, repr_of[i]));
    mcv.messages = Value::list(std::move(spelt));
  }
  mcv.loss = cv.loss;
  mcv.roles = cv.roles;
  Labeled l;
  std::vector<DroppedCheck> drops;
  decide(marked, prompt_of, mcv, false, o, l, std::string(), nullptr, &au, &drops);
  if (!au.ok || l.rows.size() != 1) return nullptr;
  for (const TurnCheck& t : l.turns)
    if (!t.served && o.reason_details) return nullptr;  // the details quote the texts
  auto m = std::make_unique<LabelMemo>();
  m->loss = cv.loss;
  m->conditions = std::move(au.conditions);
  m->roles = cv.roles;
  m->turns = l.turns;
  const MarkedRender& first = shape.front();
  for (const Span& sp : l.rows[0].spans) {
    LabelMemo::MemoSpan ms{m->roles.size(), sp.train, {}, {}};
    for (size_t r = 0; r < m->roles.size(); ++r)
      if (m->roles[r] == sp.role) ms.role = r;
    if (ms.role == m->roles.size() || !memo_pos(first, sp.begin, ms.begin) || !memo_pos(first, sp.end, ms.end))
      return nullptr;
    m->spans.push_back(ms);
  }
  for (const DroppedCheck& d : drops) {
    LabelMemo::MemoDropped md{d.message, {}, {}, d.dropped, false, {}, repr_of[d.message]};
    if (!memo_pos(first, d.target.begin, md.begin) || !memo_pos(first, d.target.end, md.end)) return nullptr;
    if (d.dropped.empty()) texts_found(first, cv.messages.items()[d.message], mcv.messages.items()[d.message], md);
    m->dropped.push_back(std::move(md));
  }
  return m;
}

bool apply_memo(const LabelMemo& m, const Conversation& cv, const std::vector<std::string_view>& texts,
                const std::vector<size_t>& starts, std::string& text, std::string& text_json, Labeled& out) {
  if (cv.loss != m.loss || !conditions_hold(m.conditions, texts)) return false;
  auto at = [&](const MemoPos& p) { return starts[p.piece] + p.at; };
  for (const LabelMemo::MemoDropped& d : m.dropped) {
    if (d.texts_found && d.string_arguments.empty() && reprs_found(d.repr_texts, texts))
      continue;  // holds for any texts
    const size_t b = at(d.begin), e = at(d.end);
    if (dropped_from_turn(cv.messages.items()[d.message], std::string_view(text).substr(b, e - b)) != d.dropped)
      return false;
  }
  out.rows.resize(1);
  Row& row = out.rows.front();
  row.spans.clear();
  row.spans.reserve(m.spans.size());
  for (const LabelMemo::MemoSpan& s : m.spans)
    row.spans.push_back(Span{m.roles[s.role], s.train, at(s.begin), at(s.end)});
  row.text = std::move(text);
  row.text_json = std::move(text_json);
  out.turns = m.turns;
  out.reused_renders = true;
  return true;
}

bool arguments_shown(std::string_view arguments, std::string_view target) {
  const Value fn = detail::make_dict({{"name", Value::string("")}, {"arguments", Value::string(arguments)}});
  const Value message = detail::make_dict({{"tool_calls", Value::list({detail::make_dict({{"function", fn}})})}});
  return dropped_from_turn(message, target).empty();
}

bool same_labeled(const Labeled& a, const Labeled& b) {
  if (a.rows.size() != 1 || b.rows.size() != 1 || a.turns.size() != b.turns.size()) return false;
  const Row &x = a.rows[0], &y = b.rows[0];
  if (x.text != y.text || x.text_json != y.text_json || x.spans.size() != y.spans.size()) return false;
  for (size_t i = 0; i < x.spans.size(); ++i)
    if (x.spans[i].role != y.spans[i].role || x.spans[i].train != y.spans[i].train ||
        x.spans[i].begin != y.spans[i].begin || x.spans[i].end != y.spans[i].end)
      return false;
  for (size_t i = 0; i < a.turns.size(); ++i)
    if (a.turns[i].message != b.turns[i].message || a.turns[i].served != b.turns[i].served ||
        a.turns[i].reason != b.turns[i].reason)
      return false;
  return true;
}

}  // namespace toolchat::convert
