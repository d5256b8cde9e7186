// GGUF reader limits and errors, template selection, and the typed conversation API
// (OpenAI JSON conversions with path errors, message spans).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "chat/gguf.hpp"
#include "chat/template_source.hpp"
#include "toolchat/chat.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::chat;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

std::vector<GgufKV> sample_kvs() {
  return {{"general.architecture", GgufValue::str("llama")},
          {"tokenizer.chat_template", GgufValue::str("{{ bos_token }}[{{ messages[0].content }}]{{ eos_token }}")},
          {"tokenizer.chat_template.tool_use", GgufValue::str("TOOLS {{ tools | length }}")},
          {"tokenizer.ggml.scores", GgufValue::array(GgufType::Float32, {GgufValue::f32(0), GgufValue::f32(1), GgufValue::f32(2)})},
          {"tokenizer.ggml.tokens", GgufValue::strings({"<unk>", "<s>", "</s>"})},
          {"tokenizer.ggml.bos_token_id", GgufValue::u32(1)},
          {"tokenizer.ggml.eos_token_id", GgufValue::u32(2)},
          {"tokenizer.ggml.unknown_token_id", GgufValue::u32(0)},
          {"tokenizer.ggml.padding_token_id", GgufValue::u32(7)}};  // out of range: ignored
}

std::string put_u64(uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); }
std::string put_u32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

}  // namespace

TEST(Gguf, RoundTripAndTemplateSet) {
  for (uint32_t version : {2u, 3u}) {
    GgufMetadata md = parse_gguf(encode_gguf(sample_kvs(), version));
    EXPECT_EQ(md.version, version);
    ASSERT_EQ(md.kvs.size(), 9u);
    EXPECT_EQ(md.find("tokenizer.ggml.scores")->items[2].f, 2.0);
    TemplateSet set = gguf_template_set(md);
    ASSERT_EQ(set.templates.size(), 2u);
    EXPECT_EQ(set.templates[1].first, "tool_use");
    EXPECT_EQ(json::dumps(set.special_tokens), R"({"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})");
  }
}

TEST(Gguf, NestedArraysAndAllTypes) {
  std::vector<GgufKV> kvs = {
      {"a", GgufValue::array(GgufType::Array, {GgufValue::array(GgufType::Int16, {GgufValue::sint(GgufType::Int16, -3)}),
                                               GgufValue::array(GgufType::Int16, {})})},
      {"b", GgufValue::uint(GgufType::Uint64, 18446744073709551615ull)},
      {"c", GgufValue::boolean(true)},
      {"d", GgufValue::f64(0.5)}};
  GgufMetadata md = parse_gguf(encode_gguf(kvs));
  EXPECT_EQ(py_repr(md.find("a")->to_value()), "[[-3], []]");
  EXPECT_EQ(py_repr(md.find("b")->to_value()), "18446744073709551615");
  EXPECT_EQ(py_repr(md.find("c")->to_value()), "True");
  EXPECT_EQ(py_repr(md.find("d")->to_value()), "0.5");
}

TEST(Gguf, StrictErrorsWithOffsets) {
  std::string good = encode_gguf(sample_kvs());
  EXPECT_EQ(error_of([&] { parse_gguf("GGUX" + good.substr(4)); }), "<memory>: GGUF: not a GGUF file (bad magic) at byte 0");
  EXPECT_EQ(error_of([&] { parse_gguf("GGUF" + put_u32(1) + good.substr(8)); }),
            "<memory>: GGUF: GGUF version 1 is not supported (only 2 and 3) at byte 4");
  EXPECT_EQ(error_of([&] { parse_gguf("GGUF" + std::string("\0\0\0\3", 4) + good.substr(8)); }),
            "<memory>: GGUF: big-endian GGUF (version 3) is not supported at byte 4");
  // Every truncation fails cleanly, never reads past the end.
  for (size_t n = 0; n < good.size(); ++n)
    EXPECT_NE(error_of([&] { parse_gguf(std::string_view(good).substr(0, n)); }), "(no error)") << n;
  std::string head = "GGUF" + put_u32(3) + put_u64(0);
  EXPECT_EQ(error_of([&] { parse_gguf(head + put_u64(1ull << 40)); }),
            "<memory>: GGUF: key/value count 1099511627776 exceeds the limit (1048576) at byte 16");
  EXPECT_EQ(error_of([&] { parse_gguf(head + put_u64(1) + put_u64(1ull << 62) + std::string(8, '\0')); }),
            "<memory>: GGUF: key of 4611686018427387904 bytes exceeds the limit (67108864) at byte 24");
  std::string kv1 = head + put_u64(1) + put_u64(1) + "k";
  EXPECT_EQ(error_of([&] { parse_gguf(kv1 + put_u32(13)); }), "<memory>: GGUF: unknown value type 13 at byte 33");
  EXPECT_EQ(error_of([&] { parse_gguf(kv1 + put_u32(9) + put_u32(8) + put_u64(1ull << 20)); }),
            "<memory>: GGUF: array of 1048576 string elements is longer than the file at byte 41");
  EXPECT_EQ(error_of([&] { parse_gguf(kv1 + put_u32(7) + "\x02"); }), "<memory>: GGUF: invalid bool value 2 at byte 37");
  std::string dup = encode_gguf({{"x", GgufValue::u32(1)}, {"x", GgufValue::u32(2)}});
  EXPECT_EQ(error_of([&] { parse_gguf(dup); }), "<memory>: GGUF: duplicate key 'x' at byte 41");
  // Nested arrays beyond the depth limit.
  GgufValue deep = GgufValue::array(GgufType::Uint8, {});
  for (int i = 0; i < 10; ++i) deep = GgufValue::array(GgufType::Array, {deep});
  EXPECT_NE(error_of([&] { parse_gguf(encode_gguf({{"deep", deep}})); }).find("nested deeper than the limit (8)"),
            std::string::npos);
}

TEST(Gguf, FileReadsOnlyTheHeaderAndSkipsUnwantedKeys) {
  fs::path p = fs::temp_directory_path() / ("toolchat_gguf_" + std::to_string(getpid()) + ".gguf");
  std::string bytes = encode_gguf(sample_kvs());
  bytes += std::string(1 << 16, '\xAB');  // "tensor data" after the header: never read
  std::ofstream(p, std::ios::binary) << bytes;
  GgufReadOptions opts;
  opts.keep = [](std::string_view k) { return k != "tokenizer.ggml.scores"; };
  GgufMetadata md = read_gguf(p.string(), opts);
  EXPECT_EQ(md.kvs.size(), 8u);
  EXPECT_EQ(md.header_bytes, encode_gguf(sample_kvs()).size());
  ModelTemplate model = ModelTemplate::load(p.string());
  Conversation conv;
  conv.messages.emplace_back("user", "hi");
  EXPECT_EQ(model.render(conv).text, "<s>[hi]</s>");
  conv.tools = std::vector<Tool>{};
  EXPECT_EQ(model.render(conv).text, "TOOLS 0");
  EXPECT_EQ(model.render(conv).template_name, "tool_use");
  fs::remove(p);
  EXPECT_NE(error_of([&] { read_gguf(p.string()); }).find("cannot open file"), std::string::npos);
}

TEST(Selection, NamedToolUseDefaultAndErrors) {
  ModelTemplate m = ModelTemplate::from_sources({{"default", "D"}, {"tool_use", "T"}, {"rag", "R"}});
  EXPECT_EQ(m.select(std::nullopt, false), "default");
  EXPECT_EQ(m.select(std::nullopt, true), "tool_use");
  EXPECT_EQ(m.select("rag", true), "rag");
  EXPECT_EQ(error_of([&] { m.select("nope", false); }), "no template named 'nope'; have ['default', 'rag', 'tool_use']");
  ModelTemplate only_tools = ModelTemplate::from_sources({{"tool_use", "T"}, {"rag", "R"}});
  EXPECT_EQ(only_tools.select(std::nullopt, true), "tool_use");
  EXPECT_EQ(error_of([&] { only_tools.select(std::nullopt, false); }),
            "several templates and none named default: ['rag', 'tool_use']");
  ModelTemplate single = ModelTemplate::from_sources({{"default", "D"}});
  EXPECT_EQ(single.select(std::nullopt, true), "default");
  // A broken template that is not selected does not matter (transformers compiles only one).
  ModelTemplate broken = ModelTemplate::from_sources({{"default", "ok"}, {"tool_use", "{% if %}"}});
  Conversation c;
  c.messages.emplace_back("user", "x");
  EXPECT_EQ(broken.render(c).text, "ok");
  c.tools = std::vector<Tool>{};
  EXPECT_NE(error_of([&] { broken.render(c); }), "(no error)");
}

TEST(ChatApi, OpenAiJsonPathErrors) {
  auto err = [](const char* j) { return error_of([&] { from_openai_json(json::parse(j)); }); };
  EXPECT_EQ(err(R"({"messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"},
      {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": 3}}]}]})"),
            "messages[2].tool_calls[0].function.arguments: expected object or string");
  EXPECT_EQ(err(R"({"messages": [{"content": "a"}]})"), "messages[0]: missing role");
  EXPECT_EQ(err(R"({"messages": [{"role": 1}]})"), "messages[0].role: expected string");
  EXPECT_EQ(err(R"({"messages": [{"role": "user", "content": 5}]})"), "messages[0].content: expected string, list or null");
  EXPECT_EQ(err(R"({"messages": [{"role": "user", "content": [{"text": "x"}]}]})"), "messages[0].content[0]: missing type");
  EXPECT_EQ(err(R"({"messages": [{"role": "user", "content": "x", "tool_calls": {}}]})"),
            "messages[0].tool_calls: expected list");
  EXPECT_EQ(err(R"({"messages": [], "tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]})"),
            "tools[0].function.parameters: expected object");
  EXPECT_EQ(err(R"({"messages": [], "add_generation_prompt": 1})"), "add_generation_prompt: expected boolean");
  EXPECT_EQ(err(R"({"tools": []})"), "messages: missing");
  EXPECT_EQ(err("3"), "(top level): expected object or list of messages");
}

TEST(ChatApi, ConversionsKeepShapesAndKwargs) {
  Value j = json::parse(R"({"messages": [
      {"role": "assistant", "content": null, "tool_calls": [{"function": {"arguments": "{\"a\": 1}", "name": "f"}, "id": "c1", "type": "function"}]},
      {"role": "tool", "content": "r", "tool_call_id": "c1", "prefix": true}],
    "chat_template_kwargs": {"enable_thinking": false}, "reasoning_effort": "low"})");
  Conversation c = from_openai_json(j);
  ASSERT_EQ(c.messages.size(), 2u);
  const ToolCall& call = (*c.messages[0].tool_calls)[0];
  EXPECT_TRUE(call.arguments.is_str());
  EXPECT_TRUE(std::holds_alternative<std::monostate>(*c.messages[0].content));
  EXPECT_EQ(json::dumps(c.messages[1].extra), R"({"prefix": true})");
  EXPECT_EQ(json::dumps(c.kwargs), R"({"enable_thinking": false, "reasoning_effort": "low"})");
  EXPECT_EQ(json::dumps(message_to_json(c.messages[0])),
            R"({"role": "assistant", "content": null, "tool_calls": [{"function": {"arguments": "{\"a\": 1}", "name": "f"}, "id": "c1", "type": "function"}]})");
  // Built in C++: canonical order.
  Message m("user", "hello");
  m.name = "bob";
  EXPECT_EQ(json::dumps(message_to_json(m)), R"({"role": "user", "content": "hello", "name": "bob"})");
  Tool t;
  t.name = "get";
  t.parameters = json::parse(R"({"type": "object"})");
  EXPECT_EQ(json::dumps(tool_to_json(t)), R"({"type": "function", "function": {"name": "get", "parameters": {"type": "object"}}})");
}

// Fuzz finding (openai_request): a template kwarg named like a request field was written back at
// the top level, so reading the JSON again took it for the request's own field.
TEST(ChatApi, KwargsNamedLikeRequestFieldsSurviveARoundTrip) {
  Value j = json::parse(R"({"messages": [], "chat_template_kwargs": {"chat_template_kwargs": {"x": 1},
    "tools": "as a kwarg", "messages": 7, "plain": true}})");
  Conversation c = from_openai_json(j);
  EXPECT_EQ(json::dumps(c.kwargs), R"({"chat_template_kwargs": {"x": 1}, "tools": "as a kwarg", "messages": 7, "plain": true})");
  EXPECT_FALSE(c.tools.has_value());
  std::string once = json::dumps(to_openai_json(c));
  EXPECT_EQ(once, R"({"messages": [], "add_generation_prompt": false, "plain": true, "chat_template_kwargs": )"
                  R"({"chat_template_kwargs": {"x": 1}, "tools": "as a kwarg", "messages": 7}})");
  Conversation again = from_openai_json(json::parse(once));
  EXPECT_EQ(json::dumps(again.kwargs), R"({"plain": true, "chat_template_kwargs": {"x": 1}, "tools": "as a kwarg", "messages": 7})");
  EXPECT_EQ(json::dumps(to_openai_json(again)), once);
}

TEST(ChatApi, MessageSpansAndGenerationSpans) {
  ModelTemplate m = ModelTemplate::from_sources(
      {{"default",
        "{% for m in messages %}<{{ m.role }}>{% if m.role == 'assistant' %}{% generation %}{{ m.content | trim }}"
        "{% endgeneration %}{% elif m.content is string %}{{ m.content }}{% else %}{% for p in m.content %}{{ p.text }}|"
        "{% endfor %}{% endif %}\n{% endfor %}"}});
  Conversation c = from_openai_json(json::parse(R"([
      {"role": "system", "content": "é sys"},
      {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "image"}, {"type": "text", "text": "b"}]},
      {"role": "assistant", "content": "  ok  "},
      {"role": "user", "content": "dropped? no"},
      {"role": "assistant", "content": null}])"));
  Rendered r = m.render(c);
  EXPECT_EQ(r.text, "<system>é sys<user>a||b|<assistant>ok<user>dropped? no<assistant>None");
  ASSERT_EQ(r.message_spans.size(), 5u);
  ASSERT_TRUE(r.message_spans[0]);
  EXPECT_EQ(r.message_spans[0]->begin, 8u);
  EXPECT_EQ(r.message_spans[0]->end, 14u);
  EXPECT_EQ(r.message_spans[0]->cp_end, 13u);
  ASSERT_TRUE(r.message_spans[1]);
  EXPECT_EQ(r.text.substr(r.message_spans[1]->begin, r.message_spans[1]->end - r.message_spans[1]->begin), "a||b");
  ASSERT_TRUE(r.message_spans[2]);  // found stripped
  EXPECT_EQ(r.text.substr(r.message_spans[2]->begin, 2), "ok");
  EXPECT_TRUE(r.message_spans[3]);
  EXPECT_FALSE(r.message_spans[4]);  // null content: nothing to locate ("None" is not its text)
  ASSERT_EQ(r.generation_spans.size(), 2u);
  EXPECT_EQ(r.generation_spans[0], (std::pair<size_t, size_t>{35, 37}));
  // continue_final_message keeps the final message open.
  Conversation cf = from_openai_json(json::parse(R"({"messages": [{"role": "user", "content": "q"},
      {"role": "assistant", "content": "par"}], "continue_final_message": true})"));
  EXPECT_EQ(m.render(cf).text, "<user>q<assistant>par");
  cf.add_generation_prompt = true;
  EXPECT_EQ(error_of([&] { m.render(cf); }), "continue_final_message and add_generation_prompt are exclusive");
}
