// Calls stream as they are written (issue 12 §1), one truncation rule (§2) and JSON text kept
// exactly (issue 12 part 6): the streaming JSON reader against the slow path (json::parse + compact_json), and,
// per dialect, a call with a long string argument fed one byte at a time.
#include <gtest/gtest.h>

#include "dialect_test_util.hpp"
#include "dialects/dialect.hpp"
#include "dialects/json_stream.hpp"
#include "dialects/scan.hpp"
#include "value/json.hpp"

using namespace toolchat;
using namespace toolchat::dialects;
using namespace dialect_test;

namespace {

// The JSON text through JsonStream: canonical text, or "ERROR" / "INCOMPLETE". With `piece` > 0 it
// is offered in pieces of that size, unconsumed bytes offered again with the next piece.
std::string stream_canonical(std::string_view text, size_t piece = 0) {
  scan::JsonStream js;
  js.reset(0);
  std::string pending, out;
  size_t at = 0;
  for (;;) {
    size_t take = piece ? std::min(piece, text.size() - at) : text.size() - at;
    pending.append(text.substr(at, take));
    at += take;
    for (;;) {
      size_t n = js.feed(pending);
      pending.erase(0, n);
      out += js.out();
      js.out().clear();
      if (js.stop() == scan::JsonStream::Stop::ValueStart) continue;
      break;
    }
    if (js.stop() == scan::JsonStream::Stop::Error) return "ERROR";
    if (js.stop() == scan::JsonStream::Stop::Done) return out;
    if (at == text.size()) return "INCOMPLETE";
  }
}

std::string slow_canonical(std::string_view text) { return scan::compact_json(json::parse(std::string(text))); }

}  // namespace

TEST(JsonStream, CanonicalTextEqualsParseThenDump) {
  // Texts where Python's parse + compact dump and the streaming reader must agree.
  const char* cases[] = {
      R"({"a": 1, "b": [true, false, null], "c": {"d": "x y"}})",
      R"({ "k" : "tab\there", "nl": "a\nb", "q": "say \"hi\"", "bs": "c:\\dir" })",
      R"({"u": "\u00e9\u4e2d\ud83d\ude00", "slash": "a\/b", "ctl": "\u0001\u001f\b\f\r"})",
      R"({"emoji": "😀 中文 é", "empty": "", "arr": [], "obj": {}})",
      R"([1, -2, 0, {"x": [[], [{}]]}])",
      R"({"del": "\u007f", "nul": "\u0000", "big": 123456789012345678})",
  };
  for (const char* c : cases) {
    SCOPED_TRACE(c);
    std::string want = slow_canonical(c);
    EXPECT_EQ(stream_canonical(c), want);
    EXPECT_EQ(stream_canonical(c, 1), want);
    EXPECT_EQ(stream_canonical(c, 3), want);
  }
}

TEST(JsonStream, NumberTextIsKeptExactly) {
  // Neither rounded nor Infinity (issue 12 §6): the model's digits go out as written.
  EXPECT_EQ(stream_canonical(R"({"x": 1e400})"), R"({"x":1e400})");
  EXPECT_EQ(stream_canonical(R"({"x": 12345678901234567890123})"), R"({"x":12345678901234567890123})");
  EXPECT_EQ(stream_canonical(R"({"x": -0.50, "y": 2E-3})", 1), R"({"x":-0.50,"y":2E-3})");
  for (const char* bad : {R"({"x": 01})", R"({"x": 1.})", R"({"x": -})", R"({"x": 1e})", R"({"x": NaN})",
                          R"({"x": Infinity})", R"({"x": .5})", R"({"x": +1})"})
    EXPECT_EQ(stream_canonical(bad), "ERROR") << bad;
}

TEST(JsonStream, LoneSurrogateEscapesStayEscapes) {
  EXPECT_EQ(stream_canonical(R"({"s": "\ud800"})"), R"({"s":"\ud800"})");
  EXPECT_EQ(stream_canonical(R"({"s": "a\uDC00b"})", 1), R"({"s":"a\udc00b"})");
  EXPECT_EQ(stream_canonical(R"({"s": "\ud800\u0041"})", 1), R"({"s":"\ud800A"})");
  EXPECT_EQ(stream_canonical(R"({"s": "\ud800x"})", 1), R"({"s":"\ud800x"})");
  // A pair cut anywhere is still one character.
  for (size_t piece = 1; piece <= 13; ++piece)
    EXPECT_EQ(stream_canonical(R"({"s": "\uD83D\uDE00"})", piece), "{\"s\":\"\xF0\x9F\x98\x80\"}") << piece;
}

TEST(JsonStream, RawControlCharactersInStringsAreAcceptedAndEscaped) {
  EXPECT_EQ(stream_canonical("{\"code\": \"line1\nline2\tx\r\"}"), R"({"code":"line1\nline2\tx\r"})");
  EXPECT_EQ(stream_canonical(std::string("{\"c\": \"a\x01z\"}")), R"({"c":"a\u0001z"})");
}

TEST(JsonStream, InvalidUtf8BecomesReplacementCharacter) {
  EXPECT_EQ(stream_canonical("{\"s\": \"a\xFFz\"}"), "{\"s\":\"a\xEF\xBF\xBDz\"}");
  // A character cut between pieces is not invalid.
  EXPECT_EQ(stream_canonical("{\"s\": \"\xE4\xB8\xAD\"}", 1), "{\"s\":\"\xE4\xB8\xAD\"}");
}

TEST(JsonStream, RefusesWhatIsNotJson) {
  for (const char* bad : {R"({"a" 1})", R"({"a": 1,})", R"([1,])", R"({a: 1})", R"({"a": tru})", R"({"a": "\x"})",
                          R"({"a": [1}})", R"({'a': 1})"})
    EXPECT_EQ(stream_canonical(bad), "ERROR") << bad;
  EXPECT_EQ(stream_canonical(R"({"a": "unterminated)"), "INCOMPLETE");
}

TEST(JsonStream, LongMixedStringsInAnyPiecesEqualParseThenDump) {
  // Strings long enough for the reader's 16-byte scan, mixing what it keeps in a run (ASCII, DEL,
  // UTF-8, the escapes written as they came) with what it rewrites (\/, \u, pairs), every piece size
  // from 1 to 19 so that each kind is cut at each offset.
  const char* parts[] = {"abcdefghijklmnopqrstu", "x", " ", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\u00e9",
                         "\\ud83d\\ude00", "\\u001f", "é", "中", "😀", "\x7f", "\\b\\f\\r"};
  uint64_t seed = 12;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(seed >> 33);
  };
  for (int round = 0; round < 40; ++round) {
    std::string body;
    const size_t n = 1 + next() % 40;
    for (size_t k = 0; k < n; ++k) body += parts[next() % std::size(parts)];
    const std::string text = "{\"k\": \"" + body + "\", \"n\": [\"" + body + "\", 1]}";
    SCOPED_TRACE(text);
    const std::string want = slow_canonical(text);
    EXPECT_EQ(stream_canonical(text), want);
    for (size_t piece = 1; piece <= 19; ++piece) ASSERT_EQ(stream_canonical(text, piece), want) << piece;
  }
  // Raw control characters and invalid bytes among long runs (Python's parser refuses those).
  const std::string run(40, 'a');
  const std::string text = "{\"s\": \"" + run + "\x01" + run + "\xFF" + run + "\n\"}";
  const std::string want = "{\"s\":\"" + run + "\\u0001" + run + "\xEF\xBF\xBD" + run + "\\n\"}";
  for (size_t piece = 0; piece <= 19; ++piece) EXPECT_EQ(stream_canonical(text, piece), want) << piece;
}
namespace {

// One call to write_file(path, content) with a long content string in each family's own format;
// VALUE is replaced by the (JSON-safe, marker-free) content.
struct StreamCase {
  const char* dialect;
  const char* text;
};

const StreamCase kStreamCases[] = {
    {"hermes", "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}\n</tool_call>"},
    {"deepseek_r1_xml", "<tool_code>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}</tool_code>"},
    {"mistral", "[TOOL_CALLS][{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]"},
    {"mistral", "[TOOL_CALLS]write_file[ARGS]{\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"llama3_json", "{\"name\": \"write_file\", \"parameters\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}"},
    {"llama3_builtin", "<|python_tag|>{\"name\": \"write_file\", \"parameters\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}"},
    {"kimi_k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>"
                "{\"path\": \"a.txt\", \"content\": \"VALUE\"}<|tool_call_end|><|tool_calls_section_end|>"},
    {"deepseek_v3", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n"
                    "{\"path\": \"a.txt\", \"content\": \"VALUE\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
    {"deepseek_v31", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>"
                     "{\"path\": \"a.txt\", \"content\": \"VALUE\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"},
    {"deepseek_v32", "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n"
                     "<｜DSML｜parameter name=\"path\" string=\"true\">a.txt</｜DSML｜parameter>\n"
                     "<｜DSML｜parameter name=\"content\" string=\"true\">VALUE</｜DSML｜parameter>\n"
                     "</｜DSML｜invoke>\n</｜DSML｜function_calls>"},
    {"functionary_v32", ">>>write_file\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"functionary_v31", "<function=write_file>{\"path\": \"a.txt\", \"content\": \"VALUE\"}</function>"},
    {"firefunction_v2", " functools[{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]"},
    {"command_r7b", "<|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"write_file\", "
                    "\"parameters\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]<|END_ACTION|>"},
    {"qwen3_coder", "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n<parameter=content>\nVALUE\n"
                    "</parameter>\n</function>\n</tool_call>"},
    {"qwen3_coder", "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}\n</tool_call>"},
    {"minimax_m2", "<tool_calls>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}\n</tool_calls>"},
    {"glm45", "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n<arg_key>content</arg_key>\n"
              "<arg_value>VALUE</arg_value>\n</tool_call>"},
    {"minimax_m2", "<minimax:tool_call>\n<invoke name=\"write_file\">\n<parameter name=\"path\">a.txt</parameter>\n"
                   "<parameter name=\"content\">VALUE</parameter>\n</invoke>\n</minimax:tool_call>"},
    {"seed_oss", "<seed:tool_call>\n<function=write_file>\n<parameter=path>a.txt</parameter>\n<parameter=content>VALUE"
                 "</parameter>\n</function>\n</seed:tool_call>"},
    {"gpt_oss", "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>"
                "{\"path\": \"a.txt\", \"content\": \"VALUE\"}<|call|>"},
    {"react", "Thought: I will write it.\nAction: write_file\nAction Input: {\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"llamafactory_default", "Action: write_file\nAction Input: {\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    // An input on the next line, or in a code fence, streams as well (issue 12 §1).
    {"react", "Action: write_file\nAction Input: ```json\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}\n```"},
    {"llamafactory_default", "Action: write_file\nAction Input:\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"llamafactory_default", "Action: write_file\nAction Input:\n```\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}\n```\n"},
    {"qwen_agent", "✿FUNCTION✿: write_file\n✿ARGS✿: {\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"granite", "<|tool_call|>[{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]"},
    {"phi4_mini", "functools[{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]"},
    {"telechat", "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}\n</tool_call>"},
    {"glm4", "write_file\n{\"path\": \"a.txt\", \"content\": \"VALUE\"}"},
    {"pythonic", "[write_file(path='a.txt', content=\"VALUE\")]"},
    {"pythonic", "<|tool_call_start|>[write_file(path=\"a.txt\", content='VALUE')]<|tool_call_end|>"},
    {"llama3_builtin", "<|python_tag|>write_file.call(path=\"a.txt\", content=\"VALUE\")"},
    {"functionary_v31", "<|python_tag|>write_file.call(path='a.txt', content='VALUE')"},
    {"chatglm3", "write_file\n```python\ntool_call(path='a.txt', content='VALUE')\n```"},
    {"gemma4", "<|tool_call>call:write_file{path:<|\"|>a.txt<|\"|>,content:<|\"|>VALUE<|\"|>}<tool_call|>"},
    {"gemma4", "<|tool_call>call:write_file{\"path\": <|\"|>a.txt<|\"|>, <|\"|>content<|\"|>: <|\"|>VALUE<|\"|>}<tool_call|>"},
    {"kimi_k3", "<|open|>tools<|sep|><|open|>call tool=\"write_file\" index=\"1\"<|sep|><|open|>argument key=\"path\" "
                "type=\"string\"<|sep|>a.txt<|close|>argument<|sep|><|open|>argument key=\"content\" type=\"string\"<|sep|>VALUE"
                "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"},
    {"kimi_k3", "<|open|>tools<|sep|><|open|>call tool=\"write_file\" index=\"1\"<|sep|><|open|>json type=\"object\"<|sep|>"
                "{\"path\": \"a.txt\", \"content\": \"VALUE\"}<|close|>json<|sep|><|close|>call<|sep|><|close|>tools<|sep|>"},
    {"generic_json", "{\"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}]}"},
    {"generic_json", "{\"tool_call\": {\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"VALUE\"}}}"},
};

const char kTools[] =
    R"([{"type":"function","function":{"name":"write_file","parameters":{"type":"object","properties":)"
    R"({"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}])";

std::string long_value() {
  std::string v;
  for (int i = 0; v.size() < 2000; ++i) v += "line " + std::to_string(i) + " of the file body, ";
  return v + "end.";  // no trailing whitespace: the XML families trim a value's edges
}

}  // namespace

TEST(DialectStreaming, EveryFamilyStreamsTheNameAndArgumentsAsTheyArrive) {
  const std::string value = long_value();
  const std::string want_args = R"({"path":"a.txt","content":")" + value + "\"}";
  ParseOptions o;
  o.tools = json::parse(kTools);
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(c.dialect + std::string(": ") + c.text);
    const Dialect* d = find(c.dialect);
    ASSERT_NE(d, nullptr);
    std::string text = c.text;
    size_t at = text.find("VALUE");
    text.replace(at, 5, value);
    const size_t half = at + value.size() / 2;

    // Half of the value fed, no finish: the call is announced and its first half is out.
    const std::string head = R"({"path":"a.txt","content":")" + value.substr(0, value.size() / 2 - 8);
    std::vector<Event> events = fed_bytewise(*d, o, text, half, "write_file", head);
    ParsedMessage m = collect(events);
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].arguments, want_args);
    EXPECT_EQ(events_text(events), events_text(feed_cut(*d, o, text, {})));
  }
}

TEST(DialectStreaming, NonObjectActionInputsStreamToo) {
  // ReAct / LLaMA-Factory inputs that are not a JSON object but are known to be JSON from their first
  // byte: an array (the arguments as written, with an invalid_arguments warning at its end) and, in
  // ReAct, a JSON string (its value is the first parameter's, as free text is). Fed a byte at a
  // time, half of the value is out before the rest comes; the events are the same in any chunking.
  const std::string value = long_value();
  ParseOptions o;
  o.tools = json::parse(kTools);
  struct Case {
    const char* dialect;
    const char* text;
    std::string want;
    bool warned;
  };
  const Case cases[] = {
      {"react", "Action: write_file\nAction Input: \"VALUE\"", R"({"path":")" + value + "\"}", false},
      {"react", "Thought: go\nAction: write_file\nAction Input: ```\n\"VALUE\"\n```\nObservation: ok", R"({"path":")" + value + "\"}", false},
      {"react", "Action: write_file\nAction Input: [\"a.txt\", \"VALUE\"]", R"(["a.txt",")" + value + "\"]", true},
      {"llamafactory_default", "Action: write_file\nAction Input: [\"a.txt\", \"VALUE\"]", R"(["a.txt",")" + value + "\"]", true},
      {"llamafactory_default", "Action: write_file\nAction Input: ```json\n[\"a.txt\", \"VALUE\"]\n```", R"(["a.txt",")" + value + "\"]", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect + std::string(": ") + c.text);
    const Dialect* d = find(c.dialect);
    std::string text = c.text;
    size_t at = text.find("VALUE");
    text.replace(at, 5, value);
    const size_t half = at + value.size() / 2;
    const std::string head = c.want.substr(0, c.want.find(value.substr(0, 20)) + value.size() / 2 - 8);
    auto events = fed_bytewise(*d, o, text, half, "write_file", head);
    ParsedMessage m = collect(events);
    ASSERT_EQ(m.tool_calls.size(), 1u);
    EXPECT_EQ(m.tool_calls[0].arguments, c.want);
    EXPECT_EQ(m.warnings.size(), c.warned ? 1u : 0u);
    EXPECT_EQ(m.content, "");
    EXPECT_EQ(events_text(events), events_text(feed_cut(*d, o, text, {})));
    EXPECT_EQ(events_text(events), events_text(feed_chunked(*d, o, text, 7)));
  }
  // Text after a JSON string is content, as after an object.
  auto m = parse_all(*find("react"), "Action: write_file\nAction Input: \"a.txt\" and more\n", o);
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"path":"a.txt"})");
  EXPECT_EQ(m.content, "and more");
}

TEST(DialectStreaming, CutShortCallStreamsThenIsContentInTheWholeResult) {
  // Issue 12 part 2: the output ends inside the call's value. Events: what was streamed, tool_call_end, a
  // truncated_call warning; whole result: the call's text as content, no call.
  const std::string value = long_value();
  ParseOptions o;
  o.tools = json::parse(kTools);
  for (const StreamCase& c : kStreamCases) {
    SCOPED_TRACE(c.dialect + std::string(": ") + c.text);
    const Dialect* d = find(c.dialect);
    std::string text = c.text;
    size_t at = text.find("VALUE");
    text = text.substr(0, at) + value.substr(0, 1000);
    auto events = feed_cut(*d, o, text, {});
    auto ev = coalesce(events);
    ASSERT_GE(ev.size(), 3u);
    auto* w = std::get_if<Warning>(&ev.back());
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->kind, WarningKind::TruncatedCall);
    ASSERT_TRUE(w->cut_call.has_value());
    ASSERT_NE(std::get_if<ToolCallEnd>(&ev[ev.size() - 2]), nullptr);
    bool began = false;
    std::string streamed;
    for (const Event& e : ev) {
      if (auto* b = std::get_if<ToolCallBegin>(&e)) began = b->name == "write_file";
      if (auto* a = std::get_if<ToolArgsDelta>(&e)) streamed += a->fragment;
    }
    EXPECT_TRUE(began);
    EXPECT_EQ(streamed.substr(0, 27), R"({"path":"a.txt","content":")");
    ParsedMessage m = collect(events);
    EXPECT_TRUE(m.tool_calls.empty());
    // The cut call's source text is the content (some families drop the text before the call
    // marker, e.g. reasoning, so the end is compared).
    ASSERT_GE(m.content.size(), 1000u);
    EXPECT_EQ(m.content.substr(m.content.size() - 1000), value.substr(0, 1000));
    EXPECT_NE(text.find(m.content.substr(0, 20)), std::string::npos);
    // Every chunking gives the same events.
    EXPECT_EQ(events_text(events), events_text(feed_chunked(*d, o, text, 1)));
    EXPECT_EQ(events_text(events), events_text(feed_chunked(*d, o, text, 7)));
  }
}

TEST(DialectStreaming, IdBeforeTheArgumentsIsKept) {
  const Dialect& d = *find("mistral");
  auto m = parse_all(d, R"([TOOL_CALLS][{"id": "abc123XYZ", "name": "f", "arguments": {"a": 1}}])");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].id, "abc123XYZ");
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"a":1})");
}

TEST(DialectStreaming, ArgumentsBeforeTheNameAndStringArguments) {
  const Dialect& d = *find("hermes");
  auto m = parse_all(d, "<tool_call>{\"arguments\": {\"a\": 1.50}, \"name\": \"f\"}</tool_call>");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "f");
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"a":1.50})");
  m = parse_all(d, "<tool_call>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": [1, 2]}\"}</tool_call>");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].arguments, R"({"a":[1,2]})");
  m = parse_all(d, "<tool_call>{\"function\": {\"name\": \"g\", \"arguments\": {}}, \"type\": \"function\"}</tool_call>");
  ASSERT_EQ(m.tool_calls.size(), 1u);
  EXPECT_EQ(m.tool_calls[0].name, "g");
  EXPECT_EQ(m.tool_calls[0].arguments, "{}");
}

TEST(DialectStreaming, BrokenJsonAfterTheNameIsCutAndGivenBack) {
  const Dialect& d = *find("kimi_k2");
  std::string text = "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>"
                     "{\"a\": 1 x}<|tool_call_end|><|tool_calls_section_end|>";
  auto events = feed_cut(d, {}, text, {});
  ParsedMessage m = collect(events);
  EXPECT_TRUE(m.tool_calls.empty());
  EXPECT_EQ(m.content, text);
  ASSERT_FALSE(m.warnings.empty());
  EXPECT_EQ(m.warnings.back().kind, WarningKind::MalformedCall);
  EXPECT_EQ(events_text(events), events_text(feed_chunked(d, {}, text, 1)));
}

// Code bodies (a call whose arguments are {"code": TEXT}) stream too: the call is announced when
// the body starts and the code goes out JSON-escaped as it arrives. The end of the output ends such a
// call (the stop token was stripped): it stands, in every chunking.
TEST(DialectStreaming, CodeBodiesStreamAsTheyArrive) {
  std::string code;
  for (int i = 0; code.size() < 1500; ++i) code += "print(\"line " + std::to_string(i) + "\\t\")\n";
  struct Case {
    const char* dialect;
    std::string text;
    const char* tool = "python";
    bool trimmed = false;  // the code is the block's text trimmed (ChatGLM3's interpreter)
  };
  const Case cases[] = {
      {"llama3_builtin", "<|python_tag|>CODE<|eom_id|>", "code_interpreter"},
      {"llama3_builtin", "<|python_tag|>CODE", "code_interpreter"},
      {"functionary_v31", "<|python_tag|>CODE"},
      {"gpt_oss", "<|channel|>analysis<|message|>Run it.<|end|><|start|>assistant<|channel|>commentary to=python "
                  "<|message|>CODE<|call|>"},
      {"gpt_oss", "<|channel|>commentary to=python <|message|>CODE"},
      {"functionary_v32", ">>>python\nCODE"},
      {"functionary_v32", "all\nLet me run it.>>>python\nCODE>>>all\nDone."},
      {"chatglm3", "interpreter\n```python\nCODE\n```", "interpreter", true},
      {"chatglm3", "Let me run it.<|assistant|>interpreter\n```python\n\nCODE\n```\n<|observation|>", "interpreter", true},
  };
  ParseOptions o;
  o.tools = json::parse(R"([{"type":"function","function":{"name":"python","parameters":{"type":"object"}}},)"
                        R"({"type":"function","function":{"name":"code_interpreter","parameters":{"type":"object"}}},)"
                        R"({"type":"function","function":{"name":"interpreter","parameters":{"type":"object"}}}])");
  auto args_of = [](const std::string& code) {
    return scan::compact_json(json::parse(R"({"code": )" + scan::compact_json(Value::string(code)) + "}"));
  };
  for (const Case& c : cases) {
    const std::string want = args_of(c.trimmed ? code.substr(0, code.size() - 1) : code);
    SCOPED_TRACE(c.dialect + std::string(": ") + c.text);
    const Dialect& d = *find(c.dialect);
    std::string text = c.text;
    size_t at = text.find("CODE");
    text.replace(at, 4, code);
    expect_streamed_call(d, o, text, at + code.size() / 2, c.tool, want, want.size() / 2 - 16);
    EXPECT_EQ(events_text(feed_cut(d, o, text, {})), events_text(feed_chunked(d, o, text, 64)));
  }
}

// Arguments that are not a JSON object (ReAct free text, Qwen-Agent text and code blocks) stream
// into the tool's first parameter as they arrive: the same arguments as the whole text gives.
TEST(DialectStreaming, TextArgumentsStreamIntoTheFirstParameter) {
  const std::string value = long_value();
  struct Case {
    const char* dialect;
    const char* text;
    const char* tool;
  };
  const Case cases[] = {
      {"react", "Thought: note it\nAction: write_note\nAction Input: VALUE\nObservation: ok", "write_note"},
      {"react", "Action: write_note\nAction Input:  VALUE  ", "write_note"},
      {"qwen_agent", "✿FUNCTION✿: write_note\n✿ARGS✿: VALUE\n✿RESULT✿: ok", "write_note"},
      {"qwen_agent", "✿FUNCTION✿: code_interpreter\n✿ARGS✿: ```py\nVALUE\n```\n✿RESULT✿", "code_interpreter"},
      {"qwen_agent", "✿FUNCTION✿: code_interpreter\n✿ARGS✿: ```\nVALUE\n```\n(the code above)", "code_interpreter"},
  };
  ParseOptions o;
  o.tools = json::parse(
      R"([{"type":"function","function":{"name":"write_note","parameters":{"type":"object","properties":{"text":{"type":"string"}}}}},)"
      R"({"type":"function","function":{"name":"code_interpreter","parameters":{"type":"object","properties":{"code":{"type":"string"}}}}}])");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.dialect + std::string(": ") + c.text);
    const Dialect& d = *find(c.dialect);
    std::string text = c.text;
    size_t at = text.find("VALUE");
    text.replace(at, 5, value);
    const std::string key = std::string(c.tool) == "write_note" ? "text" : "code";
    const std::string want = "{\"" + key + "\":\"" + value + "\"}";
    expect_streamed_call(d, o, text, at + value.size() / 2, c.tool, want, want.size() / 2 - 8);
  }
}
