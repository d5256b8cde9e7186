#include "gateway/request.hpp"

#include <cmath>
#include <set>

#include "gateway/api_error.hpp"
#include "gateway/json_schema.hpp"
#include "toolchat/chat.hpp"
#include "value/json.hpp"
#include "value/utf8_check.hpp"

namespace toolchat::gateway {

namespace {

const Value* field(const Value& obj, std::string_view key) {
  const Value* v = obj.dict_obj().find(key);
  return v && !v->is_none() ? v : nullptr;  // null means "not given", as in the OpenAI API
}

const char* json_type(const Value& v) {
  switch (v.type()) {
    case Type::None: return "null";
    case Type::Bool: return "boolean";
    case Type::Int: case Type::Float: return "number";
    case Type::Str: return "string";
    case Type::List: return "array";
    case Type::Dict: return "object";
    default: return v.is_bigint() ? "number" : "value";
  }
}

[[noreturn]] void wrong_type(const std::string& path, const char* want, const Value& got) {
  throw bad_request(path, path + ": expected " + want + ", got " + json_type(got));
}

bool get_bool(const Value& obj, std::string_view key, bool dflt) {
  const Value* v = field(obj, key);
  if (!v) return dflt;
  if (!v->is_bool()) wrong_type(std::string(key), "a boolean", *v);
  return v->as_bool();
}

std::optional<double> get_number(const Value& obj, std::string_view key, double lo, double hi) {
  const Value* v = field(obj, key);
  if (!v) return std::nullopt;
  if (!(v->is_int() || v->is_float())) wrong_type(std::string(key), "a number", *v);
  double d = v->to_double();
  if (!std::isfinite(d) || d < lo || d > hi)
    throw bad_request(std::string(key), std::string(key) + ": must be between " + json::dumps(Value::floating(lo)) +
                                            " and " + json::dumps(Value::floating(hi)));
  return d;
}

std::optional<int64_t> get_int(const Value& obj, std::string_view key, int64_t lo) {
  const Value* v = field(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_int()) wrong_type(std::string(key), "an integer", *v);
  if (v->as_int() < lo)
    throw bad_request(std::string(key), std::string(key) + ": must be at least " + std::to_string(lo));
  return v->as_int();
}

void check_count(const char* field, size_t n, size_t limit, const char* code) {
  if (n > limit)
    throw ApiError(400, std::string(field) + ": " + std::to_string(n) + " items, the limit is " + std::to_string(limit),
                   "invalid_request_error", field, code);
}

const std::vector<std::string_view> kRoles = {"system", "developer", "user", "assistant", "tool", "function"};

// Content parts as the OpenAI API takes them: text everywhere, refusal from the assistant; image,
// audio and file parts exist in the API but this gateway serves text models, so they are refused
// by name rather than dropped.
void check_content(const Value& m, const std::string& role, const std::string& path) {
  const Value* content = field(m, "content");
  if (!content || content->is_str()) return;
  if (!content->is_list()) wrong_type(path + ".content", "a string, an array of content parts or null", *content);
  for (size_t j = 0; j < content->items().size(); ++j) {
    const Value& part = content->items()[j];
    std::string pp = path + ".content[" + std::to_string(j) + "]";
    if (!part.is_dict()) wrong_type(pp, "an object (a content part)", part);
    const Value* type = field(part, "type");
    if (!type) throw bad_request(pp + ".type", pp + ".type: missing");
    if (!type->is_str()) wrong_type(pp + ".type", "a string", *type);
    const std::string t(type->str());
    if (t == "text" || (t == "refusal" && role == "assistant")) {
      const Value* text = field(part, t);
      if (!text) throw bad_request(pp + "." + t, pp + "." + t + ": missing");
      if (!text->is_str()) wrong_type(pp + "." + t, "a string", *text);
    } else if (t == "image_url" || t == "input_audio" || t == "file") {
      throw ApiError(400, pp + ".type: '" + t + "' parts are not supported: the served model takes text only",
                     "invalid_request_error", pp + ".type", "unsupported_content_part");
    } else {
      throw bad_request(pp + ".type", pp + ".type: '" + t + "' is not a content part type" +
                                          (role == "assistant" ? " (text, refusal)" : " (text)"));
    }
  }
}

void check_messages(const Value& msgs, const Limits& lim) {
  if (!msgs.is_list()) wrong_type("messages", "an array", msgs);
  std::set<std::string> call_ids;  // ids of the calls made so far, which tool messages answer
  if (msgs.items().empty()) throw bad_request("messages", "messages: must contain at least one message");
  check_count("messages", msgs.items().size(), lim.max_messages, "too_many_messages");
  for (size_t i = 0; i < msgs.items().size(); ++i) {
    const Value& m = msgs.items()[i];
    std::string path = "messages[" + std::to_string(i) + "]";
    if (!m.is_dict()) wrong_type(path, "an object", m);
    const Value* role = m.dict_obj().find("role");
    if (!role) throw bad_request(path + ".role", path + ".role: missing");
    if (!role->is_str()) wrong_type(path + ".role", "a string", *role);
    bool known = false;
    for (auto r : kRoles) known = known || role->str() == r;
    if (!known)
      throw bad_request(path + ".role", path + ".role: '" + std::string(role->str()) +
                                            "' is not one of system, developer, user, assistant, tool");
    check_content(m, std::string(role->str()), path);
    if (role->str() == "assistant")
      if (const Value* calls = field(m, "tool_calls"); calls && calls->is_list())
        for (const Value& c : calls->items())
          if (const Value* id = c.is_dict() ? field(c, "id") : nullptr; id && id->is_str()) call_ids.insert(std::string(id->str()));
    if (role->str() == "tool") {
      const Value* id = field(m, "tool_call_id");
      if (!id) throw bad_request(path + ".tool_call_id", path + ".tool_call_id: missing (a tool message answers a call by its id)");
      if (!id->is_str()) wrong_type(path + ".tool_call_id", "a string", *id);
      if (!call_ids.count(std::string(id->str())))
        throw bad_request(path + ".tool_call_id", path + ".tool_call_id: '" + std::string(id->str()) +
                                                      "' answers no tool call of an earlier assistant message");
    }
  }
}

void check_tools(const Value& tools, const Limits& lim) {
  if (!tools.is_list()) wrong_type("tools", "an array", tools);
  check_count("tools", tools.items().size(), lim.max_tools, "too_many_tools");
  for (size_t i = 0; i < tools.items().size(); ++i) {
    const Value& t = tools.items()[i];
    std::string path = "tools[" + std::to_string(i) + "]";
    if (!t.is_dict()) wrong_type(path, "an object", t);
    const Value* type = t.dict_obj().find("type");
    if (type && !(type->is_str() && type->str() == "function"))
      throw bad_request(path + ".type", path + ".type: only \"function\" tools are supported");
    const Value* fn = t.dict_obj().find("function");
    if (!fn) throw bad_request(path + ".function", path + ".function: missing");
    if (!fn->is_dict()) wrong_type(path + ".function", "an object", *fn);
    const Value* name = fn->dict_obj().find("name");
    if (!name) throw bad_request(path + ".function.name", path + ".function.name: missing");
    if (!name->is_str()) wrong_type(path + ".function.name", "a string", *name);
    if (name->str().empty() || name->str().size() > 64)
      throw bad_request(path + ".function.name", path + ".function.name: must be 1 to 64 characters");
    for (unsigned char c : name->str())
      if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.'))
        throw bad_request(path + ".function.name",
                          path + ".function.name: only letters, digits, '_', '-' and '.' are allowed");
    const Value* params = fn->dict_obj().find("parameters");
    if (params && !params->is_none() && !params->is_dict())
      wrong_type(path + ".function.parameters", "an object (a JSON schema)", *params);
    if (params && params->is_dict()) check_schema(*params, path + ".function.parameters", /*strict_types=*/false);
  }
}

bool tool_exists(const Value& tools, const std::string& name) {
  if (!tools.is_list()) return false;
  for (const Value& t : tools.items())
    if (const Value* fn = t.dict_obj().find("function"))
      if (const Value* n = fn->dict_obj().find("name"); n && n->is_str() && n->str() == name) return true;
  return false;
}

ToolChoice parse_tool_choice(const Value& req, const Value& tools) {
  ToolChoice tc;
  const Value* v = field(req, "tool_choice");
  if (!v) return tc;
  if (v->is_str()) {
    const std::string s(v->str());
    if (s == "auto") tc.kind = ToolChoice::Auto;
    else if (s == "none") tc.kind = ToolChoice::None;
    else if (s == "required") tc.kind = ToolChoice::Required;
    else throw bad_request("tool_choice", "tool_choice: '" + s + "' is not one of none, auto, required");
  } else if (v->is_dict()) {
    const Value* type = v->dict_obj().find("type");
    if (!type || !type->is_str() || type->str() != "function")
      throw bad_request("tool_choice.type", "tool_choice.type: must be \"function\"");
    const Value* fn = v->dict_obj().find("function");
    if (!fn || !fn->is_dict()) throw bad_request("tool_choice.function", "tool_choice.function: expected an object");
    const Value* name = fn->dict_obj().find("name");
    if (!name || !name->is_str())
      throw bad_request("tool_choice.function.name", "tool_choice.function.name: expected a string");
    tc.kind = ToolChoice::Named;
    tc.name = name->str();
  } else {
    wrong_type("tool_choice", "a string or an object", *v);
  }
  if ((tc.kind == ToolChoice::Required || tc.kind == ToolChoice::Named) && !tools.is_list())
    throw bad_request("tool_choice", "tool_choice: '" + std::string(tc.kind == ToolChoice::Named ? "function" : "required") +
                                         "' needs tools");
  if (tc.kind == ToolChoice::Named && !tool_exists(tools, tc.name))
    throw bad_request("tool_choice.function.name", "tool_choice.function.name: no tool named '" + tc.name + "'");
  return tc;
}

std::vector<std::string> parse_stop(const Value& req, const Limits& lim) {
  std::vector<std::string> out;
  const Value* v = field(req, "stop");
  if (!v) return out;
  if (v->is_str()) {
    if (!v->str().empty()) out.emplace_back(v->str());
    return out;
  }
  if (!v->is_list()) wrong_type("stop", "a string or an array of strings", *v);
  if (v->items().size() > lim.max_stop)
    throw bad_request("stop", "stop: at most " + std::to_string(lim.max_stop) + " strings");
  for (size_t i = 0; i < v->items().size(); ++i) {
    const Value& s = v->items()[i];
    if (!s.is_str()) wrong_type("stop[" + std::to_string(i) + "]", "a string", s);
    if (!s.str().empty()) out.emplace_back(s.str());
  }
  return out;
}

// What JSON text can hold but the OpenAI API refuses anywhere in a request: NaN and Infinity (Python's
// JSON reader, ours, takes them) and lone surrogate escapes ("\\ud800" without its pair, read as
// WTF-8), which no UTF-8 string can carry to a template or a backend.
void check_values(const Value& v, const std::string& path) {
  auto here = [&] { return path.empty() ? std::string("(body)") : path; };
  if (v.is_float() && !std::isfinite(v.as_float()))
    throw bad_request(here(), here() + ": NaN and Infinity are not JSON numbers");
  if (v.is_str() && utf8::find_invalid(v.str(), false) != std::string_view::npos)
    throw bad_request(here(), here() + ": a lone surrogate escape (\\uD800-\\uDFFF without its pair) is not text");
  if (v.is_list())
    for (size_t i = 0; i < v.items().size(); ++i) check_values(v.items()[i], path + "[" + std::to_string(i) + "]");
  if (v.is_dict())
    for (const auto& [k, x] : v.dict_obj().entries) {
      std::string p = path.empty() ? std::string(k.str()) : path + "." + std::string(k.str());
      if (utf8::find_invalid(k.str(), false) != std::string_view::npos)
        throw bad_request(p, p + ": a lone surrogate escape in a key is not text");
      check_values(x, p);
    }
}

ResponseFormat parse_response_format(const Value& req) {
  ResponseFormat rf;
  const Value* v = field(req, "response_format");
  if (!v) return rf;
  if (!v->is_dict()) wrong_type("response_format", "an object", *v);
  const Value* type = field(*v, "type");
  if (!type) throw bad_request("response_format.type", "response_format.type: missing");
  if (!type->is_str()) wrong_type("response_format.type", "a string", *type);
  const std::string t(type->str());
  if (t == "text") return rf;
  if (t == "json_object") {
    rf.kind = ResponseFormat::JsonObject;
    return rf;
  }
  if (t != "json_schema")
    throw bad_request("response_format.type", "response_format.type: '" + t + "' is not one of text, json_object, json_schema");
  rf.kind = ResponseFormat::JsonSchema;
  const Value* js = field(*v, "json_schema");
  if (!js) throw bad_request("response_format.json_schema", "response_format.json_schema: missing");
  if (!js->is_dict()) wrong_type("response_format.json_schema", "an object", *js);
  const Value* name = field(*js, "name");
  if (!name) throw bad_request("response_format.json_schema.name", "response_format.json_schema.name: missing");
  if (!name->is_str()) wrong_type("response_format.json_schema.name", "a string", *name);
  rf.name = name->str();
  if (const Value* strict = field(*js, "strict"); strict && !strict->is_bool())
    wrong_type("response_format.json_schema.strict", "a boolean", *strict);
  rf.schema = Value::dict();
  if (const Value* s = field(*js, "schema")) {
    if (!s->is_dict()) wrong_type("response_format.json_schema.schema", "an object (a JSON schema)", *s);
    check_schema(*s, "response_format.json_schema.schema", /*strict_types=*/true);
    rf.schema = *s;
  }
  return rf;
}

// logit_bias as OpenAI defines it: token ids of the served model's vocabulary (as decimal strings)
// to a bias in [-100, 100]. Passed on as is: llama.cpp and OpenAI-style servers take this shape.
Value parse_logit_bias(const Value& req) {
  const Value* lb = field(req, "logit_bias");
  if (!lb) return Value();
  if (!lb->is_dict()) wrong_type("logit_bias", "an object mapping token ids to biases", *lb);
  for (const auto& [k, v] : lb->dict_obj().entries) {
    std::string path = "logit_bias." + (k.is_str() ? std::string(k.str()) : json::dumps(k));
    std::string_view id = k.str();
    bool digits = !id.empty() && id.size() <= 10 && id.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) throw bad_request(path, path + ": the key must be a token id (a decimal number)");
    if (!v.is_int() && !v.is_float()) wrong_type(path, "a number", v);
    double b = v.is_int() ? static_cast<double>(v.as_int()) : v.as_float();
    if (b < -100 || b > 100) throw bad_request(path, path + ": must be between -100 and 100");
  }
  return lb->dict_obj().entries.empty() ? Value() : *lb;
}

[[noreturn]] void unsupported(const std::string& param, const std::string& why) { throw unsupported_parameter(param, why); }

// Fields of the OpenAI API this gateway cannot honour: refused by name when they ask for something
// (a value other than the API's default), so that a client never gets a 200 that ignored them.
void refuse_unsupported(const Value& req) {
  if (auto n = get_int(req, "n", 1); n && *n != 1) unsupported("n", "only 1 choice is supported");
  if (const Value* m = field(req, "modalities")) {
    bool text_only = m->is_list();
    if (text_only)
      for (const Value& x : m->items()) text_only = text_only && x.is_str() && x.str() == "text";
    if (!text_only) unsupported("modalities", "the served model answers in text only");
  }
  for (const char* k : {"audio", "prediction", "web_search_options"})
    if (field(req, k)) unsupported(k, "not supported by this gateway");
  for (const char* k : {"functions", "function_call"})
    if (field(req, k)) unsupported(k, "the deprecated functions API is not supported; send tools and tool_choice");
  if (field(req, "chat_template"))
    unsupported("chat_template", "request-supplied chat templates are refused; the served model's template is used");
}

}  // namespace

ChatRequest parse_chat_request(std::string_view body, const Limits& lim) {
  if (body.size() > lim.max_body_bytes)
    throw ApiError(413, "request body of " + std::to_string(body.size()) + " bytes, the limit is " +
                            std::to_string(lim.max_body_bytes), "invalid_request_error", "", "request_too_large");
  Value req;
  try {
    json::ReadLimits rl;
    rl.max_depth = lim.max_json_depth;
    rl.max_bytes = lim.max_body_bytes;
    req = json::parse(body, rl);
  } catch (const Error& e) {
    throw ApiError(400, "request body is not valid JSON: " + e.message(), "invalid_request_error", "", "invalid_json");
  }
  if (!req.is_dict()) throw ApiError(400, "request body must be a JSON object", "invalid_request_error", "", "invalid_json");

  check_values(req, "");
  ChatRequest r;
  if (const Value* m = field(req, "model")) {
    if (!m->is_str()) wrong_type("model", "a string", *m);
    r.model = m->str();
  }
  const Value* msgs = req.dict_obj().find("messages");
  if (!msgs) throw bad_request("messages", "messages: missing");
  check_messages(*msgs, lim);
  r.messages = *msgs;
  if (const Value* t = field(req, "tools")) {
    check_tools(*t, lim);
    if (!t->items().empty()) r.tools = *t;
  }
  // The chat layer's own checks (content shapes, tool call arguments, ...), with its JSON paths.
  try {
    DictBuilder probe;
    probe.add("messages", r.messages);
    if (r.has_tools()) probe.add("tools", r.tools);
    (void)chat::from_openai_json(probe.build());
  } catch (const Error& e) {
    const std::string& msg = e.message();
    size_t colon = msg.find(": ");
    std::string param = colon == std::string::npos ? "messages" : msg.substr(0, colon);
    throw bad_request(param, msg);
  }
  r.tool_choice = parse_tool_choice(req, r.tools);
  r.parallel_tool_calls = get_bool(req, "parallel_tool_calls", true);
  r.stream = get_bool(req, "stream", false);
  if (const Value* so = field(req, "stream_options")) {
    if (!so->is_dict()) wrong_type("stream_options", "an object", *so);
    if (const Value* iu = field(*so, "include_usage")) {
      if (!iu->is_bool()) wrong_type("stream_options.include_usage", "a boolean", *iu);
      r.include_usage = iu->as_bool();
    }
    if (!r.stream) throw bad_request("stream_options", "stream_options: only allowed when stream is true");
  }
  r.stop = parse_stop(req, lim);
  r.max_tokens = get_int(req, "max_tokens", 1);
  if (auto m = get_int(req, "max_completion_tokens", 1)) r.max_tokens = m;
  r.temperature = get_number(req, "temperature", 0, 2);
  r.top_p = get_number(req, "top_p", 0, 1);
  r.seed = get_int(req, "seed", INT64_MIN);
  r.frequency_penalty = get_number(req, "frequency_penalty", -2, 2);
  r.presence_penalty = get_number(req, "presence_penalty", -2, 2);
  r.top_k = get_int(req, "top_k", -1);
  r.min_p = get_number(req, "min_p", 0, 1);
  r.repetition_penalty = get_number(req, "repetition_penalty", 0, 10);
  if (auto rp = get_number(req, "repeat_penalty", 0, 10)) {
    if (r.repetition_penalty && *r.repetition_penalty != *rp)
      throw bad_request("repeat_penalty", "repeat_penalty: differs from repetition_penalty (the same setting; send one)");
    r.repetition_penalty = rp;
  }
  r.logit_bias = parse_logit_bias(req);
  if (get_bool(req, "logprobs", false)) {
    auto k = get_int(req, "top_logprobs", 0);
    if (k && *k > 20) throw bad_request("top_logprobs", "top_logprobs: must be at most 20");
    r.top_logprobs = static_cast<int>(k.value_or(0));
  } else if (field(req, "top_logprobs")) {
    // As the OpenAI API answers: alternatives only come with the tokens' own log probabilities.
    throw bad_request("top_logprobs", "top_logprobs: requires logprobs to be true");
  }
  refuse_unsupported(req);
  r.response_format = parse_response_format(req);
  if (r.wants_json() && r.shows_tools())
    unsupported("response_format", "a JSON answer cannot be enforced while the model may also call tools; "
                                    "send tool_choice \"none\" or no tools");
  if (const Value* kw = field(req, "chat_template_kwargs")) {
    if (!kw->is_dict()) wrong_type("chat_template_kwargs", "an object", *kw);
    if (kw->dict_obj().find("chat_template"))
      unsupported("chat_template_kwargs.chat_template", "request-supplied chat templates are refused; the served model's template is used");
    r.template_kwargs = DictBuilder(*kw).build();
  }
  if (const Value* eff = field(req, "reasoning_effort")) {
    if (!eff->is_str()) wrong_type("reasoning_effort", "a string", *eff);
    if (!r.template_kwargs.dict_obj().find("reasoning_effort"))
      r.template_kwargs = DictBuilder(r.template_kwargs).add("reasoning_effort", *eff).build();
  }
  if (const Value* rf = field(req, "reasoning_format")) {
    if (!rf->is_str()) wrong_type("reasoning_format", "a string", *rf);
    r.reasoning_as_content = rf->str() == "none";
  }
  return r;
}

}  // namespace toolchat::gateway
