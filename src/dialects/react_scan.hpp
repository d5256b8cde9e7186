// The labelled-line scanner shared by Qwen1 / LangChain ReAct (react.cpp) and LLaMA-Factory's
// default tool format (llamafactory_default.cpp), docs/dialects.md §3.4 and §8:
//
//   Thought: …            -> reasoning (ReAct only)
//   Action: NAME          -> a call; its arguments follow
//   Action Input: ARGS    -> up to the next label or the end (JSON object, or free text in ReAct)
//   Observation: …        -> the stop word, written by the model: the call ends and the rest is dropped
//   Final Answer: …       -> content to the end
//
// Labels count only at the start of the output or of a line. Several Action/Action Input pairs
// give parallel calls (LLaMA-Factory joins them with "\n"). A call is emitted once its arguments end
// (at the next label or at the end of the output, since the stop word is usually eaten).
#pragma once

#include <memory>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

struct ReactStyle {
  bool sections = true;    // Thought / Observation / Final Answer labels (ReAct); off: only Action pairs
  bool json_only = false;  // Action Input must be JSON (LLaMA-Factory); off: free text maps to arguments
};

std::unique_ptr<StreamParser> make_react_parser(const ParseOptions& o, ReactStyle style);

}  // namespace toolchat::dialects
