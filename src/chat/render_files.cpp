#include "chat/render_files.hpp"

#include "value/files.hpp"
#include "value/json.hpp"

namespace toolchat::chat {

namespace {

Value read_json(const std::string& path) {
  if (path != "-") return json::parse_file(path);
  std::string text = files::read_stdin(json::ReadLimits().max_bytes, "JSON input");
  try {
    return json::parse(text);
  } catch (const Error& e) {
    throw Error(e.kind(), "<stdin>: " + e.message());
  }
}

Value pair(size_t a, size_t b) {
  return Value::list({Value::integer(static_cast<int64_t>(a)), Value::integer(static_cast<int64_t>(b))});
}

}  // namespace

Rendered render_files(const RenderFiles& args) {
  ModelTemplate model = ModelTemplate::load(args.model);
  Value messages = read_json(args.messages);  // its errors name the file already
  Conversation conv;
  try {
    conv = from_openai_json(messages);
  } catch (const Error& e) {
    throw Error(e.kind(), (args.messages == "-" ? std::string("<stdin>") : args.messages) + ": " + e.message());
  }
  if (args.tools) {
    std::vector<Tool> list;
    read_tools_file(*args.tools, &list);
    conv.tools = std::move(list);
  }
  if (args.kwargs.is_dict())
    for (const auto& [k, v] : args.kwargs.dict_obj().entries) conv.kwargs.dict_obj().set(k, v);
  if (args.add_generation_prompt) conv.add_generation_prompt = true;
  if (args.continue_final_message) conv.continue_final_message = true;
  return model.render(conv, args.options);
}

Value read_tools_file(const std::string& path, std::vector<Tool>* as_tools) {
  Value tools = read_json(path);
  const std::string name = path == "-" ? "<stdin>" : path;
  if (tools.is_dict()) {
    const Value* inner = tools.dict_obj().find("tools");
    if (!inner) throw Error(ErrorKind::ValueError, name + ": expected a list of tools or an object with \"tools\"");
    tools = *inner;
    if (!tools.is_list()) throw Error(ErrorKind::ValueError, name + ": \"tools\" must be a list");
  }
  if (!tools.is_list()) throw Error(ErrorKind::ValueError, name + ": expected a list of tools or an object with \"tools\"");
  for (size_t i = 0; i < tools.items().size(); ++i) {
    try {
      Tool t = tool_from_json(tools.items()[i], "[" + std::to_string(i) + "]");
      if (as_tools) as_tools->push_back(std::move(t));
    } catch (const Error& e) {
      throw Error(e.kind(), name + ": " + e.message());
    }
  }
  return tools;
}

Value rendered_json(const Rendered& r) {
  ListBuilder gen, msg;
  for (auto [a, b] : r.generation_spans) gen.add(pair(a, b));
  for (const auto& s : r.message_spans) msg.add(s ? pair(s->cp_begin, s->cp_end) : Value::none());
  return DictBuilder()
      .add("text", r.text)
      .add("generation_spans", gen.build())
      .add("message_spans", msg.build())
      .add("template", r.template_name)
      .build();
}

}  // namespace toolchat::chat
