// toolchat's dialect parsers beside llama.cpp's own output parser (common_chat_parse, the one
// llama-server runs), in one process, on the same inputs (issue 12 §1). Built only by
// `make bench-llama` (bench/llama_compare.sh), never in CI: it links the common library of the
// llama.cpp snapshot.
//
// For each family: the llama.cpp side is set up as llama-server sets it up for a request with
// tools (common_chat_templates_init on the family's template, common_chat_templates_apply with the
// tools, the PEG parser loaded from the result); toolchat's side is the family's dialect.
//
// Speed: one call with a 2 KB, 20 KB and 200 KB string argument, and 100 short calls; parsed whole
// (one finished output) and streamed in 4-byte chunks: toolchat feeds the chunks, llama.cpp
// re-parses the whole text so far after each chunk, as llama-server does per token. Each time is
// the fastest of a few repetitions (at least 3, until 0.3 s is spent); llama.cpp's streamed 200 KB
// row (50,000 re-parses of up to 200 KB) is skipped unless --all.
// Accuracy: the same inputs, and every case of the family's fixture file (tests/dialects/fixtures),
// against the expected calls: the call names and arguments (as JSON values) and the content
// (surrounding whitespace aside).
//
// Usage: llama_compare [--all] [--only FAMILY [--template FILE]] [--markdown FILE]
// (--template: another template for the family, to see what llama.cpp makes of it)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "chat.h"
#include "toolchat/dialects.hpp"
#include "value/json.hpp"

#ifndef TOOLCHAT_SOURCE_DIR
#define TOOLCHAT_SOURCE_DIR "."
#endif

namespace {

using namespace toolchat;
using Clock = std::chrono::steady_clock;

// A family: our dialect, the template llama.cpp is given, and the model output of `n` calls of
// write_file(path, content) in the family's format, as the template renders an assistant message
// with n calls (the form llama.cpp's parser for the template reads). `reasoning_open`: the
// template's generation prompt opens a reasoning block, so the output starts inside it (both
// parsers are told). `one_call_per_message`: n calls are n outputs of one call each, where only
// that is read by both: gpt-oss's format ends the message with its one call (<|call|> is a stop
// token, and the template renders only a message's first call); for MiniMax M2 the template writes
// several <invoke> blocks in one <minimax:tool_call>, but the snapshot's generated parser expects
// ", " between them (its default call separator), so it reads none of the template's own form.
struct Family {
  const char* dialect;
  const char* template_path;  // under the repository
  std::function<std::string(size_t n, const std::string& content)> output;
  bool reasoning_open = false;
  bool one_call_per_message = false;
};

std::string json_string(const std::string& s) {
  std::string out;
  json::dump_string(out, s, false);
  return out;
}

std::string args_json(size_t i, const std::string& content) {
  return "{\"path\": \"f" + std::to_string(i) + ".txt\", \"content\": " + json_string(content) + "}";
}

std::string repeat(size_t n, const std::function<std::string(size_t)>& one, const std::string& sep = "") {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (i ? sep : "") + one(i);
  return out;
}

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"hermes", "tests/corpus/templates/ollama-qwen2.5-0.5b.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "<tool_call>\n{\"name\": \"write_file\", \"arguments\": " + args_json(i, c) + "}\n</tool_call>";
         }, "\n");
       }},
      {"qwen3_coder", "tests/corpus/templates/vllm-qwen3coder.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "<tool_call>\n<function=write_file>\n<parameter=path>\nf" + std::to_string(i) +
                  ".txt\n</parameter>\n<parameter=content>\n" + c + "\n</parameter>\n</function>\n</tool_call>";
         }, "\n");
       }},
      // Calls separated by ", ": the form llama.cpp's parser reads with parallel calls on (it refuses
      // "; ", which ours reads too).
      {"llama3_json", "tests/corpus/templates/vllm-llama3.1_json.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "{\"name\": \"write_file\", \"parameters\": " + args_json(i, c) + "}";
         }, ", ");
       }},
      // vllm-mistral.jinja renders no calls at all, so llama.cpp cannot learn a call syntax from it
      // (it throws); vllm-mistral_official.jinja and _parallel use a Jinja test llama.cpp lacks;
      // Mistral 3's writes the calls as one array with 9-character ids.
      {"mistral", "tests/corpus/templates/vllm-mistral3.jinja",
       [](size_t n, const std::string& c) {
         return "[TOOL_CALLS] [" + repeat(n, [&](size_t i) {
           char id[16];
           std::snprintf(id, sizeof id, "c%08zu", i);
           return "{\"name\": \"write_file\", \"arguments\": " + args_json(i, c) + ", \"id\": \"" + id + "\"}";
         }, ", ") + "]";
       }},
      {"glm45", "tests/dialects/templates/zai-org-GLM-4.6.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "<tool_call>write_file\n<arg_key>path</arg_key>\n<arg_value>f" + std::to_string(i) +
                  ".txt</arg_value>\n<arg_key>content</arg_key>\n<arg_value>" + c + "</arg_value>\n</tool_call>";
         }, "\n");
       }},
      {"minimax_m2", "tests/dialects/templates/unsloth-MiniMax-M2.jinja",
       [](size_t n, const std::string& c) {
         return "The files are ready.\n</think>\n\n<minimax:tool_call>\n" + repeat(n, [&](size_t i) {
           return "<invoke name=\"write_file\">\n<parameter name=\"path\">f" + std::to_string(i) +
                  ".txt</parameter>\n<parameter name=\"content\">" + c + "</parameter>\n</invoke>\n";
         }) + "</minimax:tool_call>";
       },
       true, true},
      {"seed_oss", "tests/dialects/templates/ByteDance-Seed-OSS.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "<seed:tool_call>\n<function=write_file>\n<parameter=path>f" + std::to_string(i) +
                  ".txt</parameter>\n<parameter=content>" + c + "</parameter>\n</function>\n</seed:tool_call>";
         }, "\n");
       }},
      {"gpt_oss", "tests/dialects/templates/openai-gpt-oss-120b.jinja",
       [](size_t n, const std::string& c) {
         return repeat(n, [&](size_t i) {
           return "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>" + args_json(i, c) + "<|call|>";
         });
       },
       false, true},
  };
  return f;
}

const char kTools[] =
    R"([{"type":"function","function":{"name":"write_file","description":"Write a file","parameters":)"
    R"({"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}}])";

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// ---- one parse result, whichever parser -------------------------------------------------------
struct Result {
  bool ok = true;  // false: the parser threw (llama.cpp) and gave nothing
  std::string content, error;
  std::vector<std::pair<std::string, std::string>> calls;  // name, arguments
};

Result ours(const dialects::Dialect& d, const dialects::ParseOptions& o, const std::string& text) {
  dialects::ParsedMessage m = dialects::parse_all(d, text, o);
  Result r;
  r.content = m.content;
  for (auto& c : m.tool_calls) r.calls.emplace_back(c.name, c.arguments);
  return r;
}

struct Llama {
  common_chat_templates_ptr tmpls;
  common_chat_parser_params params;
  std::string format;
};

std::vector<common_chat_tool> llama_tools(const Value& tools) {
  std::vector<common_chat_tool> out;
  for (const Value& t : tools.items()) {
    const Value& fn = *t.dict_obj().find("function");
    common_chat_tool ct;
    ct.name = fn.dict_obj().find("name")->str();
    if (const Value* d = fn.dict_obj().find("description")) ct.description = d->str();
    const Value* p = fn.dict_obj().find("parameters");
    ct.parameters = p ? json::dumps(*p, {}) : "{\"type\":\"object\"}";
    out.push_back(std::move(ct));
  }
  return out;
}

// Tools with the names of the expected calls (any arguments), or `fallback` when no call is expected.
Value named_tools(const Result& want, const Value& fallback) {
  if (want.calls.empty()) return fallback;
  std::string list = "[";
  std::vector<std::string> seen;
  for (auto& c : want.calls) {
    if (std::find(seen.begin(), seen.end(), c.first) != seen.end()) continue;
    seen.push_back(c.first);
    list += std::string(seen.size() > 1 ? "," : "") + R"({"type":"function","function":{"name":)" + json_string(c.first) +
            R"(,"parameters":{"type":"object"}}})";
  }
  return json::parse(list + "]");
}

Llama llama_setup(const std::string& template_src, const Value& tools) {
  Llama l;
  l.tmpls = common_chat_templates_init(nullptr, template_src, "<s>", "</s>");
  common_chat_templates_inputs in;
  common_chat_msg user;
  user.role = "user";
  user.content = "Write the files.";
  in.messages.push_back(user);
  in.tools = llama_tools(tools);
  in.parallel_tool_calls = true;
  in.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
  common_chat_params p = common_chat_templates_apply(l.tmpls.get(), in);
  l.params = common_chat_parser_params(p);
  l.params.reasoning_format = COMMON_REASONING_FORMAT_AUTO;
  if (!p.parser.empty()) l.params.parser.load(p.parser);
  l.format = common_chat_format_name(p.format);
  return l;
}

Result llama_parse(const Llama& l, const std::string& text, bool partial) {
  Result r;
  try {
    common_chat_msg m = common_chat_parse(text, partial, l.params);
    r.content = m.content;
    for (auto& c : m.tool_calls) r.calls.emplace_back(c.name, c.arguments);
  } catch (const std::exception& e) {
    r.ok = false;
    r.error = e.what();
  }
  return r;
}

// ---- accuracy ---------------------------------------------------------------------------------
std::string canonical(const std::string& args) {
  try {
    json::DumpOptions o;
    o.sort_keys = true;
    o.ensure_ascii = false;
    return json::dumps(json::parse(args), o);
  } catch (...) {
    return "INVALID:" + args;
  }
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Empty when r matches the expectation, else what differs.
std::string differs(const Result& r, const Result& want) {
  if (!r.ok) return "threw: " + r.error.substr(0, 80);
  if (r.calls.size() != want.calls.size())
    return std::to_string(r.calls.size()) + " calls, expected " + std::to_string(want.calls.size());
  for (size_t i = 0; i < r.calls.size(); ++i) {
    if (r.calls[i].first != want.calls[i].first) return "call " + std::to_string(i) + " named '" + r.calls[i].first + "'";
    if (canonical(r.calls[i].second) != canonical(want.calls[i].second))
      return "call " + std::to_string(i) + " arguments " + r.calls[i].second.substr(0, 60);
  }
  if (trim(r.content) != trim(want.content)) return "content \"" + trim(r.content).substr(0, 60) + "\"";
  return "";
}

// ---- timing -----------------------------------------------------------------------------------
double fastest(const std::function<void()>& run) {
  double best = 1e30, spent = 0;
  for (int rep = 0; rep < 50 && (rep < 3 || spent < 0.3); ++rep) {
    auto t0 = Clock::now();
    run();
    double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::min(best, s);
    spent += s;
  }
  return best;
}

class NullSink final : public dialects::Sink {
 public:
  size_t events = 0;
  void on(dialects::Event&&) override { ++events; }
};

void ours_stream_once(const dialects::Dialect& d, const dialects::ParseOptions& o, const std::string& text) {
  NullSink sink;
  auto p = d.make_parser(o);
  for (size_t i = 0; i < text.size(); i += 4) p->feed(std::string_view(text).substr(i, 4), sink);
  p->finish(sink);
}

void llama_stream_once(const Llama& l, const std::string& text) {
  for (size_t i = 4; i < text.size(); i += 4) (void)llama_parse(l, text.substr(0, i), true);
  (void)llama_parse(l, text, false);
}

std::string content_of(size_t bytes) {
  std::string v;
  for (int i = 0; v.size() < bytes; ++i) v += "line " + std::to_string(i) + " of the \"file\" body,\n";
  v.resize(bytes);
  v.back() = '.';  // the XML families trim a value's edges
  return v;
}

struct Row {
  std::string family, input;
  double ours_whole = 0, llama_whole = 0, ours_stream = 0, llama_stream = -1;
  std::string ours_diff, llama_diff;
};

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  bool all = false;
  std::string only, markdown, template_override;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--all") all = true;
    else if (a == "--only" && i + 1 < argc) only = argv[++i];
    else if (a == "--markdown" && i + 1 < argc) markdown = argv[++i];
    else if (a == "--template" && i + 1 < argc) template_override = argv[++i];
    else {
      std::fprintf(stderr, "usage: llama_compare [--all] [--only FAMILY [--template FILE]] [--markdown FILE]\n");
      return 2;
    }
  }
  const std::string root = TOOLCHAT_SOURCE_DIR;
  Value tools = json::parse(kTools);
  dialects::ParseOptions o;
  o.tools = tools;
  std::vector<Row> rows;
  std::string accuracy, disagree;
  for (const Family& fam : families()) {
    if (!only.empty() && only != fam.dialect) continue;
    const dialects::Dialect* d = dialects::find(fam.dialect);
    std::string tpl = read_text(template_override.empty() ? root + "/" + fam.template_path : template_override);
    if (!d || tpl.empty()) {
      std::fprintf(stderr, "%s: no dialect or no template %s\n", fam.dialect, fam.template_path);
      return 1;
    }
    Llama l;
    try {
      l = llama_setup(tpl, tools);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: llama.cpp cannot set up %s: %s\n", fam.dialect,
                   template_override.empty() ? fam.template_path : template_override.c_str(), e.what());
      accuracy += "| " + std::string(fam.dialect) + " | template refused | - | - | - |\n";
      continue;
    }
    std::fprintf(stderr, "%s: llama.cpp format %s\n", fam.dialect, l.format.c_str());
    struct In { std::string name; size_t calls, bytes; };
    dialects::ParseOptions fo = o;
    fo.reasoning_open = fam.reasoning_open;
    for (const In& in : {In{"1 call, 2 KB", 1, 2000}, In{"1 call, 20 KB", 1, 20000}, In{"1 call, 200 KB", 1, 200000},
                         In{"100 short calls", 100, 20}}) {
      const std::string content = content_of(in.bytes);
      // The outputs parsed: one, or one per call where the format allows one call per message.
      std::vector<std::string> texts;
      Result want;
      if (fam.one_call_per_message) {
        for (size_t i = 0; i < in.calls; ++i) texts.push_back(fam.output(1, content));
        for (size_t i = 0; i < in.calls; ++i) want.calls.emplace_back("write_file", args_json(0, content));
      } else {
        texts.push_back(fam.output(in.calls, content));
        for (size_t i = 0; i < in.calls; ++i) want.calls.emplace_back("write_file", args_json(i, content));
      }
      size_t bytes = 0;
      for (const auto& t : texts) bytes += t.size();
      auto each = [&](auto&& parse) {
        Result all;
        for (const auto& t : texts) {
          Result r = parse(t);
          if (!r.ok) return r;
          all.content += r.content;
          for (auto& c : r.calls) all.calls.push_back(std::move(c));
        }
        return all;
      };
      Row r{fam.dialect, in.name + (texts.size() > 1 ? " (" + std::to_string(texts.size()) + " outputs)" : ""), 0, 0, 0, -1, "", ""};
      r.ours_diff = differs(each([&](const std::string& t) { return ours(*d, fo, t); }), want);
      r.llama_diff = differs(each([&](const std::string& t) { return llama_parse(l, t, false); }), want);
      r.ours_whole = fastest([&] { for (const auto& t : texts) (void)ours(*d, fo, t); });
      r.llama_whole = fastest([&] { for (const auto& t : texts) (void)llama_parse(l, t, false); });
      r.ours_stream = fastest([&] { for (const auto& t : texts) ours_stream_once(*d, fo, t); });
      if (all || bytes < 100000) r.llama_stream = fastest([&] { for (const auto& t : texts) llama_stream_once(l, t); });
      std::fprintf(stderr, "  %-16s whole %.3g / %.3g ms, streamed %.3g / %.3g ms\n", in.name.c_str(), r.ours_whole * 1e3,
                   r.llama_whole * 1e3, r.ours_stream * 1e3, r.llama_stream * 1e3);
      rows.push_back(r);
    }
    // The fixture cases.
    Value fx = json::parse_file(root + "/tests/dialects/fixtures/" + fam.dialect + ".json");
    size_t n = 0, ours_ok = 0, llama_ok = 0;
    std::string misses;
    for (const Value& c : fx.dict_obj().find("cases")->items()) {
      const auto& cd = c.dict_obj();
      if (cd.find("reasoning_open") && cd.find("reasoning_open")->is_bool() && cd.find("reasoning_open")->as_bool()) continue;
      Result want;
      if (const Value* cc = cd.find("content"); cc && cc->is_str()) want.content = cc->str();
      if (const Value* tc = cd.find("tool_calls"); tc && tc->is_list())
        for (const Value& t : tc->items())
          want.calls.emplace_back(t.dict_obj().find("name")->str(), t.dict_obj().find("arguments")->str());
      // Our side as the fixture tests run it; llama.cpp is given the case's tools or, without them,
      // tools named as the expected calls (its parser accepts only the request's tool names, as a
      // server with those tools would).
      dialects::ParseOptions co;
      if (const Value* t = cd.find("tools")) co.tools = *t;
      Value ltools = co.tools.is_list() ? co.tools : named_tools(want, tools);
      const std::string input(cd.find("input")->str());
      std::string od = differs(ours(*d, co, input), want), ld;
      try {
        Llama use = llama_setup(tpl, ltools);
        ld = differs(llama_parse(use, input, false), want);
      } catch (const std::exception& e) {  // e.g. a tool schema its grammar converter refuses
        ld = std::string("setup threw: ") + e.what();
        ld = ld.substr(0, ld.find('\n'));
      }
      ++n;
      ours_ok += od.empty();
      llama_ok += ld.empty();
      if (od != ld || !od.empty())
        misses += "| " + std::string(fam.dialect) + " | " + std::string(cd.find("name")->str()) + " | " + (od.empty() ? "right" : od) +
                  " | " + (ld.empty() ? "right" : ld) + " |\n";
    }
    accuracy += "| " + std::string(fam.dialect) + " | " + l.format + " | " + std::to_string(n) + " | " +
                std::to_string(ours_ok) + " | " + std::to_string(llama_ok) + " |\n";
    disagree += misses;
  }
  // Tables.
  std::string speed =
      "| family | input | toolchat whole (ms) | llama.cpp whole (ms) | ratio | toolchat streamed (ms) | llama.cpp streamed (ms) | ratio | toolchat result | llama.cpp result |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---|---|\n";
  for (const Row& r : rows) {
    speed += "| " + r.family + " | " + r.input + " | " + fmt("%.3f", r.ours_whole * 1e3) + " | " + fmt("%.3f", r.llama_whole * 1e3) +
             " | " + fmt("%.1fx", r.llama_whole / r.ours_whole) + " | " + fmt("%.3f", r.ours_stream * 1e3) + " | " +
             (r.llama_stream < 0 ? std::string("not run") : fmt("%.1f", r.llama_stream * 1e3)) + " | " +
             (r.llama_stream < 0 ? std::string("-") : fmt("%.0fx", r.llama_stream / r.ours_stream)) + " | " +
             (r.ours_diff.empty() ? "right" : r.ours_diff) + " | " + (r.llama_diff.empty() ? "right" : r.llama_diff) + " |\n";
  }
  std::string acc_head =
      "| family | llama.cpp format | fixture cases | toolchat right | llama.cpp right |\n|---|---|---:|---:|---:|\n";
  std::string out = speed + "\n" + acc_head + accuracy;
  if (!disagree.empty())
    out += "\nFixture cases where either parser is wrong:\n\n| family | case | toolchat | llama.cpp |\n|---|---|---|---|\n" + disagree;
  std::fputs(out.c_str(), stdout);
  if (!markdown.empty()) std::ofstream(markdown) << out;
  return 0;
}
