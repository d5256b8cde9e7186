// Tokens -> syntax tree, following Jinja2's grammar and its error messages.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "jinja/ast.hpp"
#include "jinja/lexer.hpp"
#include "toolchat/jinja.hpp"

namespace toolchat::jinja {

struct SymbolTable {
  std::unordered_map<std::string, int> ids;
  std::vector<std::string> names;
  int intern(const std::string& n) {
    auto it = ids.find(n);
    if (it != ids.end()) return it->second;
    int id = static_cast<int>(names.size());
    ids.emplace(n, id);
    names.push_back(n);
    return id;
  }
};

// Parses the whole token list into `root`. Throws TemplateSyntaxError with a position.
// `lex_error`: the lexer's error after the last token (tokenize's `deferred`), raised when
// the parser moves onto or looks at that last token, as Jinja2's lazy token stream does.
void parse_template(const std::vector<Token>& tokens, Arena& arena, SymbolTable& syms, Body& root,
                    const EngineLimits& limits, const Error* lex_error = nullptr);

}  // namespace toolchat::jinja
