#include "chat/render_case.hpp"

#include "value/pystr.hpp"

namespace toolchat::chat {

namespace {
Value take(DictObj& d, const char* key, Value def, bool& found) {
  found = false;
  for (auto it = d.entries.begin(); it != d.entries.end(); ++it) {
    if (it->first.is_str() && it->first.str() == key) {
      Value v = it->second;
      d.entries.erase(it);
      found = true;
      return v;
    }
  }
  return def;
}
}  // namespace

PreparedCase prepare_case(const Value& context, const Value& special_tokens) {
  if (!context.is_dict()) throw Error(ErrorKind::TypeError, "context must be a JSON object");
  Value ctx = Value::dict();
  ctx.dict_obj().entries = context.dict_obj().entries;
  auto& d = ctx.dict_obj();
  bool found;
  PreparedCase pc;
  pc.messages = take(d, "messages", Value(), found);
  if (!found) throw Error(ErrorKind::KeyError, "'messages'");
  Value tools = take(d, "tools", Value::none(), found);
  Value documents = take(d, "documents", Value::none(), found);
  Value add_gen = take(d, "add_generation_prompt", Value::boolean(false), found);
  Value cont = take(d, "continue_final_message", Value::boolean(false), found);
  Value own_tokens = take(d, "special_tokens", Value::dict(), found);
  if (truthy(cont) && truthy(add_gen))
    throw Error(ErrorKind::ValueError, "continue_final_message and add_generation_prompt are exclusive");
  pc.continue_final = truthy(cont);
  Value vars = DictBuilder()
                   .add("messages", pc.messages)
                   .add("tools", tools)
                   .add("documents", documents)
                   .add("add_generation_prompt", add_gen)
                   .build();
  auto& v = vars.dict_obj();
  if (special_tokens.is_dict())
    for (const auto& [k, val] : special_tokens.dict_obj().entries) v.set(k, val);
  if (own_tokens.is_dict())
    for (const auto& [k, val] : own_tokens.dict_obj().entries) v.set(k, val);
  for (const auto& [k, val] : d.entries) v.set(k, val);
  pc.variables = vars;
  return pc;
}

namespace {
// The string continue_final_message keeps: the final message's text (a string, or the last
// text block of a list).
const std::string& final_text(const Value& messages) {
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

// The length `rendered` is cut to (transformers' continue_final_message).
size_t continue_final_len(std::string_view rendered, const Value& messages) {
  std::string_view f = final_text(messages);
  std::string_view stripped = pystr::strip_view(f);
  std::string_view lstripped = pystr::lstrip_view(f);
  size_t loc = rendered.rfind(stripped);
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
