// A known shape's labeling, kept with the shape (RenderCache) once proven to hold for every
// conversation of it (labeler.cpp: the Audit), and what the line path (line_memo.hpp) reads of
// it to write such a row straight from its JSON line.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/render_cache.hpp"
#include "toolchat/convert.hpp"
#include "toolchat/tokenize.hpp"

namespace toolchat::convert {

// A place in the row's text of a known shape: template piece `piece` of its first render, `at`
// bytes in.
struct MemoPos {
  size_t piece = 0, at = 0;
};

// The row's spans as places in its template pieces, the turn checks, and the turns whose verdict
// find_dropped gave. Valid for the loss overrides it was made with.
struct LabelMemo : ShapeMemo {
  std::vector<std::optional<bool>> loss;
  // Where a decision fell on a text's first or last byte against the template's: text `text`, as
  // the render shows it (`shown`: raw, JSON-escaped, inside a repr), must neither start with one of
  // the bytes `first_not` nor end in one of `last_not`; with other >= 0, neither it nor text `other`
  // (as shown) may end with the other.
  struct Condition {
    size_t text;
    chat::MarkerAt::Shown shown;
    std::string first_not, last_not;
    long other = -1;
    chat::MarkerAt::Shown other_shown = chat::MarkerAt::Shown::raw;
  };
  std::vector<Condition> conditions;
  struct MemoSpan {
    size_t role;  // into roles
    bool train;
    MemoPos begin, end;
  };
  std::vector<std::string> roles;
  std::vector<MemoSpan> spans;
  std::vector<TurnCheck> turns;
  // A turn find_dropped showed (or not) in its target [begin, end). When `texts_found` (every
  // text of the turn stands inside the target and every other value find_dropped looks for is
  // found in the template's own bytes there), the verdict holds for any texts, except what
  // find_dropped parses out of a string `arguments` text: those texts (by number) are looked at
  // per conversation. Otherwise the whole message is looked at again per conversation.
  struct MemoDropped {
    size_t message;
    MemoPos begin, end;
    std::string dropped;
    bool texts_found = false;
    std::vector<size_t> string_arguments;
    // Texts of the message a render shows inside a repr: found for any text only under
    // repr_found (per conversation), else looked at again.
    std::vector<size_t> repr_texts;
  };
  std::vector<MemoDropped> dropped;
};

// Whether a conversation's texts (by number) meet the memo's conditions.
bool conditions_hold(const std::vector<LabelMemo::Condition>& conditions, const std::vector<std::string_view>& texts);

// Whether find_dropped, looking for text t where a render shows it inside a repr, finds it for
// sure: the repr (single-quoted) spells t as it is or as a JSON string would.
bool repr_found(std::string_view t);
bool reprs_found(const std::vector<size_t>& repr_texts, const std::vector<std::string_view>& texts);

// Whether find_dropped finds every value of a tool call's string `arguments` text in `target`
// (as it looks at an assistant message's call).
bool arguments_shown(std::string_view arguments, std::string_view target);

struct Conversation;

// The memo of a shape from its marked renders (the Audit run over the labeler's decisions), or
// null when the audit fails.
std::unique_ptr<LabelMemo> make_memo(const std::vector<MarkedRender>& shape, const std::vector<size_t>& prompt_of,
                                     const Conversation& cv, const LabelOptions& o);

// A conversation of a memoised shape labelled from the memo: `text` its row's text (the first
// render put back, piece k starting at starts[k]). False (nothing changed) when the memo does not
// cover it: other loss overrides, or find_dropped finding otherwise in its texts.
bool apply_memo(const LabelMemo& m, const Conversation& cv, const std::vector<std::string_view>& texts,
                const std::vector<size_t>& starts, std::string& text, std::string& text_json, Labeled& out);

// Whether two one-row labelings are the same (text, spans, turn verdicts): a memo is kept only
// when it relabels its own conversation as the full labeling did.
bool same_labeled(const Labeled& a, const Labeled& b);

// The last conversation a labeler labelled from a memo (valid until its next label call).
struct KnownRow {
  const LabelMemo* memo = nullptr;
  const MarkedRender* first = nullptr;  // the shape's first render (the row's text), marked
  const RenderCache* cache = nullptr;   // its template's cache (the texts it screens)
  std::string template_name;
};

class LinePath;
struct ConvertConfig;

struct LabelerAccess {
  // False when the last label call did not use a memo.
  static bool last_known_row(const Labeler& l, KnownRow& out);
  // The cache whose shape's kept failure the last label call gave (its texts put in, not
  // screened), or null.
  static const RenderCache* last_failed_hit(const Labeler& l);
  // Forgets both (before a row that may fail before its label call).
  static void forget_last(Labeler& l);
  // The labeler's line path (line_memo.hpp), or null where it does not apply.
  static LinePath* line_path(Labeler& l, const ConvertConfig& cfg, const tokenize::Tokenizer* tok);
};

}  // namespace toolchat::convert
