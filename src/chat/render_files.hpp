// The friendly form of `toolchat render`: a model path, a messages file, optional tools and
// kwargs -> the prompt, through the typed API (toolchat/chat.hpp). The CLI only parses arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "toolchat/chat.hpp"

namespace toolchat::chat {

struct RenderFiles {
  std::string model;                       // folder, .jinja, tokenizer_config.json, chat_template.json, .gguf
  std::string messages;                    // JSON file (or "-"): a list of messages, or a request object
  std::optional<std::string> tools;        // JSON file (read_tools_file): replaces the request's tools
  Value kwargs;                            // a dict of extra template variables (or none)
  bool add_generation_prompt = false;
  bool continue_final_message = false;
  RenderOptions options;
};

// Throws Error naming the file or JSON path at fault, or the template's error.
Rendered render_files(const RenderFiles& args);

// A tools file as every verb reads it: a JSON list of OpenAI tools, or an object holding one under
// "tools" (a request body). "-" reads standard input. Every tool is checked as a request's are
// (tool_from_json); `as_tools`, when given, receives them typed. Throws Error naming the file and,
// for a bad tool, its index ("PATH: [1]: missing function").
Value read_tools_file(const std::string& path, std::vector<Tool>* as_tools = nullptr);

// {"text", "generation_spans", "message_spans": [[begin, end] | null, ...] (code points), "template"}.
Value rendered_json(const Rendered& r);

}  // namespace toolchat::chat
