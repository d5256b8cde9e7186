// The streaming conversion loop: bad rows reported with their line number and JSON path,
// skipped and counted, never losing good rows; output in input order whatever the threads and
// batch sizes; the summary's counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "convert/pipeline.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;
using namespace toolchat::convert;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

struct Outcome {
  ConvertStats stats;
  std::string out, err;
};

Outcome run(const std::string& input, Format f, int threads, size_t batch) {
  ConvertConfig cfg;
  cfg.format = f;
  cfg.model = "examples/qwen2.5/chat_template.jinja";
  cfg.input = input;
  cfg.output = (fs::temp_directory_path() / ("toolchat_convert_test_" + std::to_string(threads) + "_" +
                                             std::to_string(batch) + ".jsonl")).string();
  cfg.threads = threads;
  cfg.batch_rows = batch;
  std::ostringstream err;
  Outcome r;
  r.stats = run_convert(cfg, err);
  r.out = slurp(cfg.output);
  r.err = err.str();
  fs::remove(cfg.output);
  return r;
}

}  // namespace

TEST(ConvertPipeline, BadRowsAreReportedAndSkipped) {
  Outcome r = run("tests/convert/sharegpt.jsonl", Format::sharegpt, 2, 1);
  EXPECT_EQ(r.stats.rows, 10u);  // the blank line is not a row
  EXPECT_EQ(r.stats.converted, 3u);
  EXPECT_EQ(r.stats.bad, 7u);
  auto out = lines(r.out);
  ASSERT_EQ(out.size(), 3u);
  // Good rows keep their order: the third is the plain "Hi" / "Hello!" exchange.
  EXPECT_NE(json::parse(out[0]).dict_obj().find("text")->str().find("Paris"), std::string::npos);
  EXPECT_NE(json::parse(out[2]).dict_obj().find("text")->str().find("Hello!"), std::string::npos);
  auto err = lines(r.err);
  ASSERT_EQ(err.size(), 7u) << r.err;
  EXPECT_EQ(err[0].rfind("tests/convert/sharegpt.jsonl:5: conversations[1].value: function_call is not JSON", 0), 0u) << err[0];
  EXPECT_EQ(err[1].rfind("tests/convert/sharegpt.jsonl:6: conversations[0].from: unknown role 'robot'", 0), 0u) << err[1];
  EXPECT_EQ(err[5].rfind("tests/convert/sharegpt.jsonl:10: (row): expected object", 0), 0u) << err[5];
  EXPECT_EQ(err[6].rfind("tests/convert/sharegpt.jsonl:11: invalid JSON: ", 0), 0u) << err[6];
  EXPECT_EQ(r.stats.turns, 5u);  // call + answer, call + answer, answer
  EXPECT_EQ(r.stats.served, 5u);
}

// Many rows (every fixture line repeated, good and bad mixed): the same bytes whatever the
// thread count and batch size.
TEST(ConvertPipeline, OutputOrderIndependentOfThreads) {
  std::string src = slurp("tests/convert/qwen_agent.jsonl");
  fs::path in = fs::temp_directory_path() / "toolchat_convert_order.jsonl";
  {
    std::ofstream o(in, std::ios::binary);
    for (int i = 0; i < 60; ++i) o << src;
  }
  Outcome one = run(in.string(), Format::qwen_agent, 1, 64);
  Outcome two = run(in.string(), Format::qwen_agent, 2, 1);
  Outcome three = run(in.string(), Format::qwen_agent, 3, 7);
  fs::remove(in);
  // Per copy: 2 good rows; the image row fails in the Qwen2.5 template (string + list), 4 malformed.
  EXPECT_EQ(one.stats.converted, 120u);
  EXPECT_EQ(one.stats.bad, 300u);
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.out, three.out);
  EXPECT_EQ(one.err, two.err);
  EXPECT_EQ(two.stats.converted, one.stats.converted);
  std::string summary = summary_text(two.stats);
  EXPECT_NE(summary.find("420 rows, 120 converted, 300 bad"), std::string::npos) << summary;
  // One thread, one labeler: the first copy's two good rows are rendered, the 59 copies after
  // them take their renders from those; the summary says how many.
  EXPECT_EQ(one.stats.reused, 118u);
  EXPECT_NE(summary_text(one.stats).find("reuse: 118 of 120 conversations"), std::string::npos) << summary_text(one.stats);
}

TEST(ConvertPipeline, MissingModelOrInputStopsTheRun) {
  ConvertConfig cfg;
  cfg.model = "no/such/model.jinja";
  cfg.input = "tests/convert/openai.jsonl";
  cfg.output = "";
  std::ostringstream err;
  EXPECT_THROW(run_convert(cfg, err), Error);
  cfg.model = "examples/qwen2.5/chat_template.jinja";
  cfg.input = "no/such/input.jsonl";
  EXPECT_THROW(run_convert(cfg, err), Error);
}

TEST(ConvertPipeline, ReasonKinds) {
  EXPECT_EQ(reason_kind("the generation prompt is not how this turn starts, at char 3: 'a' vs 'b'"),
            "the generation prompt is not how this turn starts");
  EXPECT_EQ(reason_kind("the prompt for this turn does not render (TemplateError: x)"),
            "the prompt for this turn does not render");
}

// A UTF-8 byte order mark before the first row (editors on Windows write one) is not an error.
TEST(ConvertPipeline, ByteOrderMarkOnFirstLine) {
  fs::path in = fs::temp_directory_path() / "toolchat_convert_bom.jsonl";
  {
    std::ofstream o(in, std::ios::binary);
    o << "\xEF\xBB\xBF" << R"({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]})" << "\n";
  }
  Outcome r = run(in.string(), Format::openai, 1, 64);
  fs::remove(in);
  EXPECT_EQ(r.stats.converted, 1u) << r.err;
  EXPECT_EQ(r.stats.bad, 0u);
}

// Without --check the turns' reasons leave out where the texts part (their cost is the quoting);
// the summary's counts by reason are the same either way, and --check lists the details.
TEST(ConvertPipeline, ReasonsWithoutDetailsCountTheSame) {
  fs::path in = fs::temp_directory_path() / "toolchat_convert_reasons.jsonl";
  {
    std::ofstream o(in, std::ios::binary);
    for (int i = 0; i < 3; ++i)  // Qwen3 drops the reasoning of earlier turns: those turns are not served
      o << R"({"messages": [{"role": "user", "content": "a)" << i
        << R"("}, {"role": "assistant", "reasoning_content": "think", "content": "b"}, {"role": "user", "content": "c"}, )"
        << R"({"role": "assistant", "reasoning_content": "more", "content": "d"}]})" << "\n";
  }
  ConvertConfig cfg;
  cfg.model = "tests/corpus/templates/ollama-qwen3-0.6b.jinja";
  cfg.input = in.string();
  cfg.output = "";
  std::ostringstream quiet, listed;
  ConvertStats plain = run_convert(cfg, quiet);
  cfg.list_mismatches = true;
  ConvertStats checked = run_convert(cfg, listed);
  fs::remove(in);
  EXPECT_EQ(plain.turns, 6u);
  EXPECT_LT(plain.served, plain.turns);
  EXPECT_EQ(plain.mismatches, checked.mismatches);
  EXPECT_EQ(quiet.str(), "");
  EXPECT_NE(listed.str().find(", at char "), std::string::npos) << listed.str();
}

// A text JSON allows and UTF-8 does not (a lone surrogate escape) cannot be tokenized: with
// --tokenizer that row is reported bad with its line, and the run goes on (it used to end the
// process from a worker thread).
TEST(ConvertPipeline, UntokenizableRowsAreReportedNotFatal) {
  const fs::path dir = fs::temp_directory_path();
  const std::string tok = (dir / "toolchat_convert_tiny_tokenizer.json").string();
  const std::string input = (dir / "toolchat_convert_surrogate.jsonl").string();
  std::ofstream(tok) << R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": []}})";
  std::ofstream(input) << R"({"messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Yo"}]})" "\n"
                       << R"({"messages": [{"role": "user", "content": "\ud800Hi"}, {"role": "assistant", "content": "Yo"}]})" "\n"
                       << R"({"messages": [{"role": "user", "content": "Hey"}, {"role": "assistant", "content": "Yo"}]})" "\n";
  for (int threads : {1, 2}) {
    ConvertConfig cfg;
    cfg.model = "examples/qwen2.5/chat_template.jinja";
    cfg.tokenizer = tok;
    cfg.input = input;
    cfg.output = (dir / "toolchat_convert_surrogate_out.jsonl").string();
    cfg.threads = threads;
    std::ostringstream err;
    const ConvertStats s = run_convert(cfg, err);
    EXPECT_EQ(s.converted, 2u);
    EXPECT_EQ(s.bad, 1u);
    EXPECT_EQ(lines(slurp(cfg.output)).size(), 2u);
    EXPECT_NE(err.str().find(input + ":2: ValueError: the row's text cannot be tokenized"), std::string::npos) << err.str();
    fs::remove(cfg.output);
  }
  fs::remove(tok);
  fs::remove(input);
}
