// Shared by ChatGLM3 (chatglm3.cpp) and GLM-4 (glm4.cpp), docs/dialects.md §4.1-4.2: the output is a
// series of segments separated by <|assistant|> (the first follows the prompt's own <|assistant|>);
// each segment's first line is its metadata. Empty metadata: a text segment (content; surrounding
// whitespace dropped, as ChatGLM's process_response strips it). A tool name: a call, whose body the
// family reads (call_step). <|observation|>, <|user|> and <|endoftext|> end the turn. A first line
// that is not a name is text. An optional <think>…</think> block may come first (GLM-Z1).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dialects/scan.hpp"

namespace toolchat::dialects {

class GlmSegmentParser : public scan::ThinkParser {
 public:
  GlmSegmentParser(const ParseOptions& o, std::string_view think_open, std::string_view think_close)
      : ThinkParser(o, think_open, think_close) {}

 protected:
  static const std::vector<std::string_view>& segment_ends();  // <|assistant|> first, then the stops

  bool body_step(Sink& sink, bool eof) final;
  void body_end(Sink& sink) final;

  // Reads the call's body (from pos_, recording since the metadata line; name_ is set). Same
  // contract as step(); ends with end_call(), or with give_back + end_call() on bad input.
  virtual bool call_step(Sink& sink, bool eof) = 0;
  // Called when output ends inside the call.
  virtual void call_end(Sink& sink) = 0;
  // Whether a metadata line names a tool (the family may insist on known tools).
  virtual bool accepts_name(std::string_view name) const;
  void end_call() { st_ = St::TextStart; }
  // The recorded segment becomes plain text after all (no warning): the first line was not a name.
  void as_text(Sink& sink);
  // Emits t as content except its trailing whitespace, which waits in pending_ws_ until text
  // follows (a segment's trailing whitespace is dropped).
  void text_keeping_ws_pending(Sink& sink, std::string_view t);

  std::string name_;

 private:
  enum class St { Meta, TextStart, Text, Call, Done } st_ = St::Meta;
  std::string pending_ws_;
  bool second_look_ = false;  // the segment's metadata line was empty: a name line may follow
};

}  // namespace toolchat::dialects
