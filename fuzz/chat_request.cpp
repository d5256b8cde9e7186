// The gateway's request decoder on arbitrary bodies, as a stranger sends them to
// /v1/chat/completions: gateway::parse_chat_request, then, for an accepted request, the prompt the
// backend would get (PromptBuilder::build with the bundled Qwen2.5 template). Checked: only
// ApiError escapes (400 or 413, with a JSON body that parses), and an accepted request's fields
// hold what the decoder promises (messages a list, a named tool_choice names a given tool, ...).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "gateway/api_error.hpp"
#include "gateway/prompt.hpp"
#include "gateway/request.hpp"
#include "toolchat/error.hpp"
#include "value/json.hpp"

#ifndef TOOLCHAT_SOURCE_DIR
#define TOOLCHAT_SOURCE_DIR "."
#endif

using namespace toolchat;
using namespace toolchat::gateway;

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.substr(0, 2000).c_str());
  std::abort();
}

const PromptBuilder& builder() {
  static const PromptBuilder* b = [] {
    Config cfg;
    cfg.model_path = std::string(TOOLCHAT_SOURCE_DIR) + "/examples/qwen2.5";
    cfg.backend_kind = BackendKind::LlamaCpp;
    return new PromptBuilder(cfg, false);  // lives for the whole run
  }();
  return *b;
}

void check_error(const ApiError& e) {
  if (e.status != 400 && e.status != 413) finding("unexpected status", std::to_string(e.status) + " " + e.message);
  if (e.message.empty()) finding("error without a message", e.body());
  try {
    Value v = json::parse(e.body());
    if (!v.is_dict() || !v.dict_obj().find("error")) finding("error body without \"error\"", e.body());
  } catch (const Error& x) {
    finding("error body is not JSON", e.body() + " (" + x.message() + ")");
  }
}

void check_request(const ChatRequest& r) {
  if (!r.messages.is_list()) finding("accepted messages that are not a list", json::dumps(r.messages));
  if (!r.tools.is_undefined() && !r.tools.is_list()) finding("accepted tools that are not a list", json::dumps(r.tools));
  if (r.tool_choice.kind == ToolChoice::Named) {
    if (r.tool_choice.name.empty()) finding("named tool_choice without a name", "");
    bool found = false;
    if (r.tools.is_list())
      for (const Value& t : r.tools.items()) {
        const Value* f = t.is_dict() ? t.dict_obj().find("function") : nullptr;
        const Value* n = f && f->is_dict() ? f->dict_obj().find("name") : nullptr;
        found |= n && n->is_str() && n->str() == r.tool_choice.name;
      }
    if (!found) finding("named tool_choice names no given tool", r.tool_choice.name);
  }
  if (!r.template_kwargs.is_dict()) finding("template kwargs are not a dict", json::dumps(r.template_kwargs));
}

template <class F> void expect_api_errors(const char* what, F&& f) {
  try {
    f();
  } catch (const ApiError& e) {
    check_error(e);
  } catch (const std::exception& e) {
    finding(what, std::string("threw a non-ApiError exception: ") + e.what());
  } catch (...) {
    finding(what, "threw an unknown exception");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  Limits limits;
  expect_api_errors("parse_chat_request", [&] {
    ChatRequest req = parse_chat_request(body, limits);
    check_request(req);
    expect_api_errors("PromptBuilder::build", [&] {
      Prompt p = builder().build(req, req.tools, "");
      if (p.text.empty()) finding("empty prompt for an accepted request", std::string(body));
    });
  });
  return 0;
}
