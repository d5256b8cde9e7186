// Where chat templates come from: a .jinja file, tokenizer_config.json, chat_template.json,
// a model folder (with additional_chat_templates/) or a GGUF file (chat/gguf.hpp), and the
// special tokens beside them.
// Selection of a named template follows transformers (named, tool_use with tools, default).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toolchat/value.hpp"

namespace toolchat::chat {

struct TemplateSet {
  std::vector<std::pair<std::string, std::string>> templates;  // name -> source, in load order
  Value special_tokens = Value::dict();                        // bos_token, eos_token, ...
  // name -> where its text came from, for error positions: the file when the template is a whole
  // .jinja file (line:col are the file's), else "PATH (template NAME)" (line:col in the template).
  std::vector<std::pair<std::string, std::string>> origins;
  const std::string* find(const std::string& name) const;
  void put(const std::string& name, std::string source, bool overwrite);
  std::string origin(const std::string& name) const;  // the name itself when unknown
};

// Loads every template a path offers (a GGUF file is recognised by its .gguf extension or
// its magic). Throws Error(ValueError) "no chat template in PATH"
// and file/JSON errors naming the file.
TemplateSet load_templates(const std::string& path);

// The template apply_chat_template would use. Throws Error(ValueError) with the oracle's
// wording when the name is missing or the choice is ambiguous.
const std::string& select_template(const TemplateSet& set, const std::optional<std::string>& name,
                                   bool has_tools);

// tokenizer_config.json stores a token as a string or an AddedToken object {"content": ...}.
Value token_text(const Value& tok);

}  // namespace toolchat::chat
