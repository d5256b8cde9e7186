// The training-data converter as a library: rows of the common fine-tuning formats read into
// conversations, then labeled into training text with loss spans (Labeler, below).
//
// Training-data formats -> conversations in the oracle's context form (OpenAI messages + tools),
// each message with an optional loss override. One function per format; every error names the
// JSON path in the input row ("conversations[3].value: function_call is not JSON: ...").
//
//   sharegpt    LLaMA-Factory's sharegpt: {"conversations": [{"from", "value"}...], "system",
//               "tools": JSON text of a list of functions}. from: human -> user, gpt -> assistant,
//               system, function_call (value: JSON {"name", "arguments"} or a list of them) ->
//               assistant tool_calls, observation -> tool. role/content keys are accepted as well
//               (LLaMA-Factory's "openai" tags), with user/assistant/tool role names.
//   chatglm3    ChatGLM3 finetune_demo: {"tools": [...], "conversations": [{"role", "content",
//               "loss"}...]}; role "tool" {"name", "parameters", "observation"} becomes an
//               assistant tool call (loss as given, default on) then a tool message (loss off).
//               Default loss: off for system and user, on for the rest (as the demo computes it).
//   openai      {"messages", "tools", "chat_template_kwargs"} as chat::from_openai_json reads it;
//               per-message "weight" (0/1, OpenAI fine-tuning) or "loss" (bool) overrides.
//   qwen-agent  Qwen-Agent messages: roles system/user/assistant/function, "function_call"
//               {"name", "arguments": JSON text}, content a string or [{"text"}|{"image"}|...];
//               consecutive assistant messages (text, then calls) become one message with
//               tool_calls, as OpenAI shows parallel calls; "functions" (or "tools") list.
// Function definitions given bare ({"name", "description", "parameters"}) are wrapped as
// {"type": "function", "function": {...}}. Tool call arguments given as JSON text of an object
// are passed to the template as the object (what Hugging Face templates expect); the openai
// format keeps them exactly as given.
//
// Ownership and thread safety: Samples and Labeled results are plain data owned by the caller. A
// Labeler owns its compiled templates and is used by one thread at a time (one per thread for
// parallel work, constructed on one thread). Errors: Error(ValueError) naming the JSON path for a
// row of the wrong shape; a template's own Error when a conversation does not render.
// Converting whole files (JSON lines in and out, over threads) is `toolchat convert`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toolchat/chat.hpp"
#include "toolchat/jinja.hpp"
#include "toolchat/value.hpp"

namespace toolchat::convert {

enum class Format { sharegpt, chatglm3, openai, qwen_agent };

// "sharegpt", "chatglm3", "openai", "qwen-agent" (also "qwen_agent"); nullopt otherwise.
std::optional<Format> format_from_name(std::string_view name);
const char* format_name(Format f);

struct Sample {
  Value context;                           // {"messages": [...], "tools"?: [...], kwargs...}
  std::vector<std::optional<bool>> loss;   // per message: an explicit train / do-not-train
};

// Reads one parsed input row. Throws Error(ValueError) "PATH: what" for a row that does not
// have the format's shape.
Sample read_sample(Format f, const Value& row);

Sample read_sharegpt(const Value& row);
Sample read_chatglm3(const Value& row);
Sample read_openai(const Value& row);
Sample read_qwen_agent(const Value& row);

// ---- labeling ----
// A conversation -> training text + loss spans, with the train = serve check for every assistant
// turn. Not thread-safe: one Labeler per thread (it owns its compiled templates and values).
//
// The text is the whole conversation rendered once (add_generation_prompt off). It is cut into
// consecutive spans, one run per message: message k's run starts where the conversation of the
// first k messages stops agreeing with the full text. An assistant turn i is "served" when
//     P_i + target_i  is a prefix of the text,
// P_i being the prompt a gateway sends for it (messages[0..i), add_generation_prompt on) and
// target_i what the model must write:
//   - with {% generation %} in the template, the generation span(s) inside the turn's run;
//   - otherwise the conversation ending with the turn (messages[0..i]) minus P_i, trailing
//     whitespace left out (nothing is generated after the end-of-turn marker), i.e. the turn's
//     text as rendered when it is the last turn.
// A served turn is trained on [|P_i|, |P_i| + |target_i|). A turn that is not (templates that
// rewrite earlier turns once later ones follow: Qwen3 drops past reasoning; templates whose
// generation prompt differs from the turn header) is left untrained, and its reason recorded;
// with split_rewritten it gets a row of its own: the conversation ending with it.

struct LabelOptions {
  std::optional<std::string> template_name;          // a named template (else default/tool_use)
  std::optional<chat::PolyfillOptions> polyfills;    // nullopt: render natively
  Value kwargs = Value::dict();                      // extra template variables
  Value special_tokens = Value::dict();              // over the model's (bos_token, eos_token, ...)
  bool train_on_prompt = false;   // every span trained (turns are still checked)
  bool last_turn_only = false;    // only the last assistant message is trained
  bool split_rewritten = false;   // a row of its own for each turn the full text cannot train
  // Locate the message texts in each row (Row::plain) for tokenization: one more render per row.
  bool locate_texts = false;
  jinja::RenderOptions clock;
  // Conversations of one shape (only their texts differ) reuse the renders of the first one,
  // checked to pass the texts through unchanged (src/convert/render_cache.hpp): the same rows,
  // several times faster. Off: every conversation is rendered n + a times.
  bool reuse_renders = true;
  // Mismatch reasons with where the texts part ("..., at char 12: 'x' vs 'y'"). Off: the reason
  // leaves those details out (the summary groups reasons without them), saving their cost on
  // every turn that is not served; `toolchat convert` keeps them only to list mismatches.
  bool reason_details = true;
};

// A byte range of a row's text; role is the message's role.
struct Span {
  std::string role;
  bool train = false;
  size_t begin = 0, end = 0;
};

struct Row {
  std::string text;
  std::vector<Span> spans;  // consecutive, covering the text
  // With locate_texts: byte ranges of the message texts (content, reasoning, tool call
  // arguments), to be tokenized as plain text; texts_not_found counts texts not located
  // (a template that transforms them); see chat/content_marks.hpp.
  std::vector<std::pair<size_t, size_t>> plain;
  size_t texts_not_found = 0;
  // When not empty: `text` escaped as a JSON string's contents (no quotes), already put together
  // by the render cache; row_json writes it as it is.
  std::string text_json;
};

struct TurnCheck {
  size_t message = 0;   // index in the rendered messages
  bool served = false;  // P_i + target_i is a prefix of the text
  std::string reason;   // why not (empty when served)
};

struct Labeled {
  std::vector<Row> rows;          // the conversation's row, then split rows
  std::vector<TurnCheck> turns;   // one per assistant message
  std::string template_name;
  bool reused_renders = false;    // its renders came from an earlier conversation of its shape
};

class Labeler {
 public:
  // Loads and compiles the model's templates (chat::load_templates). Throws Error. The options'
  // values are copied deeply (construct labelers on one thread, then use each on its own).
  Labeler(const std::string& model_path, LabelOptions opts);
  ~Labeler();
  Labeler(const Labeler&) = delete;
  Labeler& operator=(const Labeler&) = delete;

  // Throws Error when the conversation does not render (the template's own error).
  Labeled label(const Sample& sample);
  // The same, but a conversation that does not render returns false with that Error in `failed`
  // (other errors, a row the template set cannot take, still throw).
  bool label(const Sample& sample, Labeled& out, std::optional<Error>& failed);

 private:
  friend struct LabelerAccess;  // the convert pipeline's line path (src/convert/label_memo.hpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;  // owned: freed even when the constructor throws
};

// True when the source uses {% generation %} (the tag, not add_generation_prompt).
bool has_generation_tag(const std::string& source);

// {"text": ..., "spans": [{"role", "train", "start", "end", "byte_start", "byte_end"}, ...]}
// as one JSON line (no newline); start/end count code points as Python indexes the text.
std::string row_json(const Row& row);
// ... appended to `out` (no newline).
void append_row_json(std::string& out, const Row& row);
// The same object as a Value (for callers that hand rows on as objects, not text).
Value row_value(const Row& row);
// The spans' start and end in code points (as Python indexes the text), as row_json writes them.
std::vector<std::pair<size_t, size_t>> span_chars(const Row& row);

}  // namespace toolchat::convert
