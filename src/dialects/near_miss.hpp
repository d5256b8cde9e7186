// Recovery of the near-miss call forms small and quantized Hermes / Qwen models write (issue 12 §3;
// what llama.cpp's Hermes 2 Pro parser and Ollama accept):
//   <function=NAME>{args}</function>          <function name="NAME">{args}</function>
//   <tool>{call}</tool>, <tools>…, <response>…, <json>…, <function_call>… wrappers around a call
//   object or an array of them; <tool_call> holding an array of calls or a ```json fence
//   a ```json fenced block holding one call object or an array of them: only as the whole output
//   a bare call object (or array) that is the whole output
// A form becomes calls only when the request has tools and every name is among them; anything else
// stays content as written. The family's canonical form is not touched and keeps streaming: this
// wraps its parser and looks only at the content it emits, holding back only text that could still
// be a near miss (from an opening tag to its close, or a whole output that starts with {, [ or ```),
// decided when the close arrives or at the end of the output. A warning of the family's parser that
// comes while text is held goes out at its place in that text (dropped when the text it is about
// becomes calls), so the events are the same for every chunking.
#pragma once

#include <memory>

#include "dialects/dialect.hpp"

namespace toolchat::dialects {

// Which forms: all of the above (Hermes / Qwen), or only those that are the whole output (a fenced
// block, a bare call object or array): for the JSON families whose servers read a bare array or
// any JSON in the output (vLLM's Granite parser, Ollama's "{" tag).
enum class NearMissForms { All, WholeOutput };
std::unique_ptr<StreamParser> with_near_miss_recovery(std::unique_ptr<StreamParser> inner, const ParseOptions& opts,
                                                      NearMissForms forms = NearMissForms::All);

}  // namespace toolchat::dialects
