// Which dialect reads a template's tool calls: the best-scoring registered family, else one inferred
// from the template (infer.hpp), else the generic_json fallback (docs/design.md §3.2). Also the reports
// of `toolchat detect` and `toolchat check` (docs/design.md §3.3), kept here so the CLI only parses
// arguments.
#pragma once

#include <optional>
#include <string>

#include "chat/caps.hpp"
#include "dialects/infer.hpp"

namespace toolchat::dialects {

struct Resolution {
  const Dialect* registered = nullptr;     // set unless inferred
  int score = 0;                           // the registered dialect's detect score
  std::optional<InferredDialect> inferred;
  std::string not_inferred;                // why inference failed, when it was tried
  std::string name() const;                // the registered name, or "inferred"
  ParserFactory factory() const;
  // {"name", "source": "registered"|"inferred"|"fallback", "score"?, "spec"?, "not_inferred"?}
  Value to_json() const;
};

// A registered family wins when it scores above the generic_json fallback.
Resolution resolve(const std::string& template_source, const TemplateProbe& probe,
                   const chat::Capabilities* caps = nullptr, bool infer_only = false);
Resolution resolve(const std::string& template_source, const Value& special_tokens);

// `toolchat detect`'s report: detect_report (toolchat/dialects.hpp).
// `toolchat check`: the detect report + "round_trip" (1 and 2 calls rendered and parsed back,
// round_trip_json) and "ok". A template that cannot render tool calls has "round_trip_skipped"
// (with the reason) and is ok. *ok: false when a round trip fails.
// infer_only: ignore the registry (what inference alone makes of the template).
Value check_report(const std::string& template_source, const Value& special_tokens, bool* ok,
                   bool infer_only = false);

}  // namespace toolchat::dialects
