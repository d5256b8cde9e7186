// toolchat inside a C++ program: a model's chat template renders a conversation with tools exactly
// as transformers' apply_chat_template would, and the model's answer is parsed back into tool
// calls by the dialect the template belongs to.
//
//   embed MODEL [MODEL_OUTPUT_FILE]
//
// MODEL: a model folder, .jinja, tokenizer_config.json or .gguf (e.g. examples/qwen2.5).
// Prints the prompt between "--- prompt ---" / "--- end prompt ---", the dialect, then one line per
// tool call: "call <index>: <name> <arguments as JSON>".
#include <cstdio>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <toolchat/chat.hpp>
#include <toolchat/dialects.hpp>
#include <toolchat/json.hpp>
#include <toolchat/value.hpp>

using namespace toolchat;

// What Qwen2.5 writes when it decides to call a tool (Hermes-style <tool_call> blocks).
static const char* kSampleOutput =
    "I'll look that up.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
    "{\"city\": \"Paris\", \"unit\": \"celsius\"}}\n</tool_call>";

static chat::Tool weather_tool() {
  chat::Tool t;
  t.name = "get_weather";
  t.description = "Current weather for a city";
  t.parameters = DictBuilder()
                     .add("type", "object")
                     .add("properties", DictBuilder()
                                            .add("city", DictBuilder().add("type", "string").build())
                                            .add("unit", DictBuilder()
                                                             .add("type", "string")
                                                             .add("enum", ListBuilder().add("celsius").add("fahrenheit").build())
                                                             .build())
                                            .build())
                     .add("required", ListBuilder().add("city").build())
                     .build();
  return t;
}

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: embed MODEL [MODEL_OUTPUT_FILE]\n");
    return 2;
  }
  try {
    // 1. The model's templates, compiled once (a ModelTemplate can render many conversations).
    chat::ModelTemplate model = chat::ModelTemplate::load(argv[1]);

    // 2. A conversation with a tool, built in C++ (chat::from_openai_json reads the JSON form).
    chat::Conversation conv;
    conv.messages.emplace_back("system", "You are a concise assistant.");
    conv.messages.emplace_back("user", "What's the weather in Paris?");
    conv.tools = std::vector<chat::Tool>{weather_tool()};
    conv.add_generation_prompt = true;
    chat::Rendered prompt = model.render(conv);
    std::printf("--- prompt ---\n%s\n--- end prompt ---\n", prompt.text.c_str());

    // 3. The model's answer, parsed by the dialect its template speaks.
    std::string output = kSampleOutput;
    if (argc == 3) {
      std::ifstream in(argv[2], std::ios::binary);
      if (!in) throw std::runtime_error(std::string(argv[2]) + ": cannot open file");
      output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    dialects::Detection found = dialects::detect(model.source(prompt.template_name));
    if (!found.dialect) throw std::runtime_error("no dialect recognizes this template");
    dialects::ParseOptions opts;
    opts.tools = chat::to_openai_json(conv).at("tools");  // unknown tools are flagged in warnings
    dialects::ParsedMessage reply = dialects::parse_all(*found.dialect, output, opts);

    std::printf("dialect: %.*s\n", static_cast<int>(found.dialect->name.size()), found.dialect->name.data());
    std::printf("content: %s\n", json::dumps(Value::string(reply.content)).c_str());
    for (size_t i = 0; i < reply.tool_calls.size(); ++i) {
      const dialects::ParsedCall& call = reply.tool_calls[i];
      // arguments is JSON text; parse it to use the values (here: printed back in one form).
      Value args = json::parse(call.arguments);
      std::printf("call %zu: %s %s\n", i, call.name.c_str(), json::dumps(args).c_str());
    }
    for (const dialects::Warning& w : reply.warnings)
      std::printf("warning: %s: %s\n", dialects::warning_kind_name(w.kind), w.detail.c_str());
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "embed: %s\n", e.describe().c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "embed: %s\n", e.what());
    return 1;
  }
}
