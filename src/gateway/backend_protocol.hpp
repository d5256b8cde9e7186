// What differs between backend kinds: the endpoint, the request body and how one response record
// (a whole non-streamed body, one SSE "data:" payload or one NDJSON line) reads. Internal to the
// gateway layer; backend.cpp does the HTTP.
#pragma once

#include <string>

#include "gateway/backend.hpp"

namespace toolchat::gateway {

struct Record {
  std::string text;            // model output in this record
  bool done = false;           // the last record of the generation
  std::string finish_reason;   // "stop" / "length" when the record says
  int64_t prompt_tokens = -1, completion_tokens = -1;
  int64_t cached_tokens = -1;  // OpenAI's usage.prompt_tokens_details.cached_tokens
  Value logprobs;              // the record's tokens in OpenAI's chat shape, when the backend sent them
  std::string warning;         // an error the backend reported after it had generated (done is set)
};

struct Protocol {
  BackendKind kind;
  std::string path;            // appended to the backend URL's prefix
  bool sse = true;             // streamed as SSE (else NDJSON)
  GrammarForm grammar = GrammarForm::None;  // how the body carries a GBNF grammar (None: it cannot)
  bool calls_as_json = false;  // no grammar, but a JSON schema (Ollama's format) can hold the calls

  // The JSON request body.
  std::string body(const GenRequest& req, const std::string& model) const;
  // Reads one record; throws ApiError(502) when it is not the shape this backend sends.
  Record read(std::string_view json_text) const;
};

// `form` Auto resolves per kind (see GrammarForm); the Ollama kinds take no grammar, but a JSON
// schema in `format` (unless `form` is None).
Protocol protocol_for(BackendKind kind, const std::string& prefix, GrammarForm form = GrammarForm::Auto);

}  // namespace toolchat::gateway
