// ModelTemplate: a model's templates loaded and compiled once; rendering through the oracle's
// contract (chat/render_case.hpp); where each message's text lands in the output.
#include "chat/render_case.hpp"
#include "chat/template_source.hpp"
#include "toolchat/chat.hpp"
#include "value/frozen.hpp"
#include "value/json.hpp"
#include "value/pystr.hpp"

namespace toolchat::chat {

struct ModelTemplate::Impl {
  TemplateSet set;
  std::vector<std::shared_ptr<jinja::Template>> compiled;  // null when compiling failed
  std::vector<std::optional<Error>> errors;                // ... and why
  // The special tokens go into every render's variables, from any thread: frozen (their counts
  // never touched). Declared last, so it thaws them before `set` lets them go.
  FrozenValues frozen_tokens;

  size_t index_of(const std::string* src) const {
    for (size_t i = 0; i < set.templates.size(); ++i)
      if (&set.templates[i].second == src) return i;
    throw Error(ErrorKind::InternalError, "selected template not in the set");
  }
};

std::shared_ptr<const ModelTemplate::Impl> ModelTemplate::compile_all(TemplateSet set,
                                                                     const jinja::EngineLimits& limits) {
  auto impl = std::make_shared<Impl>();
  impl->set = std::move(set);
  for (const auto& [name, src] : impl->set.templates) {
    try {
      impl->compiled.push_back(std::make_shared<jinja::Template>(jinja::Template::compile(src, impl->set.origin(name), limits)));
      impl->errors.emplace_back();
    } catch (const Error& e) {
      // transformers compiles only the template it selects: report this one when it is used.
      impl->compiled.push_back(nullptr);
      impl->errors.emplace_back(e);
    }
  }
  // Frozen in a graph of our own: a caller's handles into a frozen graph would not be counted,
  // and would be freed early once it thaws. (Special tokens are JSON: the round trip is exact.)
  impl->set.special_tokens = json::parse(json::dumps(impl->set.special_tokens));
  impl->frozen_tokens.freeze(impl->set.special_tokens);
  return impl;
}

ModelTemplate ModelTemplate::load(const std::string& path, const jinja::EngineLimits& limits) {
  ModelTemplate m;
  m.impl_ = compile_all(load_templates(path), limits);
  return m;
}

ModelTemplate ModelTemplate::from_sources(std::vector<std::pair<std::string, std::string>> templates,
                                          Value special_tokens, const jinja::EngineLimits& limits) {
  TemplateSet set;
  for (auto& [n, s] : templates) set.put(n, std::move(s), true);
  if (set.templates.empty()) throw Error(ErrorKind::ConfigError, "no chat template given");
  if (!special_tokens.is_dict()) throw Error(ErrorKind::TypeError, "special tokens must be a dict");
  set.special_tokens = std::move(special_tokens);
  ModelTemplate m;
  m.impl_ = compile_all(std::move(set), limits);
  return m;
}

std::vector<std::string> ModelTemplate::names() const {
  std::vector<std::string> out;
  for (const auto& t : impl_->set.templates) out.push_back(t.first);
  return out;
}

const std::string& ModelTemplate::source(const std::string& name) const {
  if (const std::string* s = impl_->set.find(name)) return *s;
  throw Error(ErrorKind::ConfigError, "no template named " + string_repr(name));
}

const Value& ModelTemplate::special_tokens() const { return impl_->set.special_tokens; }

std::optional<Error> ModelTemplate::compile_error(const std::string& name) const {
  for (size_t i = 0; i < impl_->set.templates.size(); ++i)
    if (impl_->set.templates[i].first == name) return impl_->errors[i];
  return std::nullopt;
}

std::string ModelTemplate::select(const std::optional<std::string>& name, bool tools) const {
  return impl_->set.templates[impl_->index_of(&select_template(impl_->set, name, tools))].first;
}

Rendered ModelTemplate::render(const Conversation& conv, const RenderOptions& opts) const {
  Value ctx = to_openai_json(conv);
  RenderOptions text_only = opts;
  text_only.locate_messages = false;  // located below from the typed messages themselves
  Rendered r = render_json(ctx, text_only);
  if (opts.locate_messages) r.message_spans = locate_messages(r.text, conv.messages);
  return r;
}

Rendered ModelTemplate::render_json(const Value& context, const RenderOptions& opts) const {
  return apply(call_of(context), opts);
}

Rendered ModelTemplate::apply(const ChatCall& call, const RenderOptions& opts) const {
  const bool tools = !call.tools.is_none() && !call.tools.is_undefined();
  size_t i = impl_->index_of(&select_template(impl_->set, opts.template_name, tools));
  PreparedCase pc = prepare_call(call, impl_->set.special_tokens);
  if (!impl_->compiled[i]) throw *impl_->errors[i];
  jinja::RenderResult rr = impl_->compiled[i]->render(pc.variables, opts.clock);
  Rendered r;
  r.text = pc.continue_final ? continue_final(rr.text, pc.messages) : std::move(rr.text);
  r.generation_spans = std::move(rr.generation_spans);
  r.template_name = impl_->set.templates[i].first;
  if (!opts.locate_messages) return r;
  // Messages that do not convert (not OpenAI-shaped) are simply not located.
  std::vector<Message> typed;
  if (pc.messages.is_list()) {
    for (const auto& m : pc.messages.items()) {
      try {
        typed.push_back(message_from_json(m));
      } catch (const Error&) {
        typed.emplace_back();
      }
    }
  }
  r.message_spans = locate_messages(r.text, typed);
  return r;
}

std::vector<std::optional<TextSpan>> locate_messages(const std::string& text, const std::vector<Message>& messages) {
  std::vector<std::optional<TextSpan>> out;
  size_t cursor = 0;
  // Code points before a byte offset, counted incrementally (offsets only grow... mostly).
  size_t cp_byte = 0, cp_count = 0;
  auto cp_at = [&](size_t byte) {
    if (byte < cp_byte) cp_byte = cp_count = 0;
    for (; cp_byte < byte; ++cp_byte)
      if ((static_cast<unsigned char>(text[cp_byte]) & 0xC0) != 0x80) ++cp_count;
    return cp_count;
  };
  for (const auto& m : messages) {
    std::optional<TextSpan> span;
    size_t at = cursor, begin = std::string::npos, end = 0;
    bool all = false;
    for (const auto& t : m.texts()) {
      std::string needle = t;
      size_t pos = needle.empty() ? std::string::npos : text.find(needle, at);
      if (pos == std::string::npos) {  // templates often strip the content
        needle = pystr::strip(t);
        pos = needle.empty() ? std::string::npos : text.find(needle, at);
      }
      if (pos == std::string::npos) {
        all = false;
        break;
      }
      all = true;
      if (begin == std::string::npos) begin = pos;
      end = pos + needle.size();
      at = end;
    }
    if (all) {
      TextSpan s;
      s.begin = begin;
      s.end = end;
      s.cp_begin = cp_at(begin);
      s.cp_end = cp_at(end);
      span = s;
      cursor = end;
    }
    out.push_back(span);
  }
  return out;
}

}  // namespace toolchat::chat
