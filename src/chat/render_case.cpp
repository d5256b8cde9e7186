#include "chat/render_case.hpp"

#include <cstring>

#include "value/frozen.hpp"
#include "value/pystr.hpp"

namespace toolchat::chat {

namespace {

// The four variable names every call passes, made once and frozen: shared by every thread's
// renders without counting (a call made four strings and freed them again).
struct CallKeys {
  Value messages = Value::string("messages"), tools = Value::string("tools"),
        documents = Value::string("documents"), add_generation_prompt = Value::string("add_generation_prompt");
  FrozenValues frozen;
  CallKeys() {
    for (const Value* v : {&messages, &tools, &documents, &add_generation_prompt}) frozen.freeze(*v);
  }
};

const CallKeys& call_keys() {
  static const CallKeys* keys = new CallKeys();  // never destroyed: renders may run until exit
  return *keys;
}

}  // namespace

ChatCall call_of(const Value& context) {
  if (!context.is_dict()) throw Error(ErrorKind::TypeError, "context must be a JSON object");
  ChatCall c;
  Value cont = Value::boolean(false);
  for (const auto& [k, v] : context.dict_obj().entries) {
    if (k.is_str()) {
      std::string_view name = k.str();
      if (name == "messages") { c.messages = v; continue; }
      if (name == "tools") { c.tools = v; continue; }
      if (name == "documents") { c.documents = v; continue; }
      if (name == "add_generation_prompt") { c.add_generation_prompt = v; continue; }
      if (name == "continue_final_message") { cont = v; continue; }
      if (name == "special_tokens") { c.special_tokens = v; continue; }
    }
    c.kwargs.emplace_back(k, v);
  }
  c.continue_final_message = truthy(cont);
  return c;
}

PreparedCase prepare_call(const ChatCall& c, const Value& special_tokens) {
  if (c.messages.is_undefined()) throw Error(ErrorKind::KeyError, "'messages'");
  if (c.continue_final_message && truthy(c.add_generation_prompt))
    throw Error(ErrorKind::ValueError, "continue_final_message and add_generation_prompt are exclusive");
  PreparedCase pc;
  pc.messages = c.messages;
  pc.continue_final = c.continue_final_message;
  pc.variables = Value::dict();
  auto& v = pc.variables.dict_obj();
  const bool own = c.special_tokens.is_dict();
  v.entries.reserve(4 + (special_tokens.is_dict() ? special_tokens.dict_obj().size() : 0) +
                    (own ? c.special_tokens.dict_obj().size() : 0) + c.kwargs.size());
  // Four distinct keys into an empty dict: appended, no lookups.
  const CallKeys& keys = call_keys();
  v.entries.emplace_back(keys.messages, c.messages);
  v.entries.emplace_back(keys.tools, c.tools);
  v.entries.emplace_back(keys.documents, c.documents);
  v.entries.emplace_back(keys.add_generation_prompt, c.add_generation_prompt);
  if (special_tokens.is_dict())
    for (const auto& [k, val] : special_tokens.dict_obj().entries) v.set(k, val);
  if (own)
    for (const auto& [k, val] : c.special_tokens.dict_obj().entries) v.set(k, val);
  for (const auto& [k, val] : c.kwargs) v.set(k, val);
  return pc;
}

PreparedCase prepare_case(const Value& context, const Value& special_tokens) {
  return prepare_call(call_of(context), special_tokens);
}

namespace {
// The string continue_final_message keeps: the final message's text (a string, or the last
// text block of a list).
std::string_view final_text(const Value& messages) {
  if (!messages.is_list()) throw Error(ErrorKind::TypeError, "messages must be a list");
  if (messages.items().empty()) throw Error(ErrorKind::IndexError, "list index out of range");
  const Value& last = messages.items().back();
  if (!last.is_dict()) throw Error(ErrorKind::TypeError, "list indices must be integers or slices, not str");
  const Value* final = last.dict_obj().find("content");
  if (!final) throw Error(ErrorKind::KeyError, "'content'");
  if (final->is_list()) {
    const Value* text = nullptr;
    for (auto it = final->items().rbegin(); it != final->items().rend() && !text; ++it)
      if (it->is_dict()) text = it->dict_obj().find("text");
    if (!text) throw Error(ErrorKind::ValueError, "continue_final_message: final message has no text block");
    final = text;
  }
  if (!final->is_str())
    throw Error(ErrorKind::AttributeError, std::string("'") + type_name(*final) + "' object has no attribute 'strip'");
  return final->str();
}

// `hay.rfind(needle)`, stepping from one occurrence of the needle's first byte to the one before
// (memrchr) instead of comparing at every position: the final message usually stands a few
// template bytes before the end, after many bytes that cannot start it.
size_t last_occurrence(std::string_view hay, std::string_view needle) {
  if (needle.empty()) return hay.size();
  if (needle.size() > hay.size()) return std::string_view::npos;
  size_t end = hay.size() - needle.size() + 1;  // candidate starts are [0, end)
  while (end > 0) {
    const void* hit = memrchr(hay.data(), static_cast<unsigned char>(needle[0]), end);
    if (!hit) break;
    size_t i = static_cast<size_t>(static_cast<const char*>(hit) - hay.data());
    if (std::memcmp(hay.data() + i + 1, needle.data() + 1, needle.size() - 1) == 0) return i;
    end = i;
  }
  return std::string_view::npos;
}

// The length `rendered` is cut to (transformers' continue_final_message).
size_t continue_final_len(std::string_view rendered, const Value& messages) {
  std::string_view f = final_text(messages);
  std::string_view stripped = pystr::strip_view(f);
  std::string_view lstripped = pystr::lstrip_view(f);
  size_t loc = last_occurrence(rendered, stripped);
  if (loc == std::string_view::npos)
    throw Error(ErrorKind::ValueError, "continue_final_message: final message not found in the rendered chat");
  if (rendered.compare(loc, lstripped.size(), f) == 0) return loc + lstripped.size();
  return loc + stripped.size();
}
}  // namespace

std::string continue_final(const std::string& rendered, const Value& messages) {
  return rendered.substr(0, continue_final_len(rendered, messages));
}

CaseResult render_prepared(const jinja::Template& t, const PreparedCase& c, const jinja::RenderOptions& opts) {
  CaseResult r;
  try {
    jinja::RenderResult rr = t.render(c.variables, opts);
    r.text = std::move(rr.text);
    if (c.continue_final) r.text.resize(continue_final_len(r.text, c.messages));
    r.spans = std::move(rr.generation_spans);
    r.ok = true;
  } catch (const Error& e) {
    r.error = error_kind_name(e.kind());
    r.message = e.message();
  }
  return r;
}

CaseResult render_case(std::string_view source, const Value& context, const Value& special_tokens,
                       const jinja::RenderOptions& opts, const jinja::EngineLimits& limits) {
  try {
    PreparedCase pc = prepare_case(context, special_tokens);
    jinja::Template t = jinja::Template::compile(source, "", limits);
    return render_prepared(t, pc, opts);
  } catch (const Error& e) {
    CaseResult r;
    r.error = error_kind_name(e.kind());
    r.message = e.message();
    return r;
  }
}

Value case_result_json(const CaseResult& r) {
  if (!r.ok) return DictBuilder().add("error", r.error).add("message", r.message).build();
  ListBuilder spans;
  for (auto [a, b] : r.spans)
    spans.add(ListBuilder().add(static_cast<int64_t>(a)).add(static_cast<int64_t>(b)).build());
  return DictBuilder().add("text", r.text).add("generation_spans", spans.build()).build();
}

}  // namespace toolchat::chat
