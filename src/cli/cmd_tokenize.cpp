// toolchat tokenize --tokenizer PATH [--add-special-tokens] [--threads N] [--batch FILE]
//                   [--decode [--skip-special-tokens]] [--offsets]
// Encode: stdin text -> {"ids": [...], "offsets": [[start, end], ...]} (code points of the input).
// --batch FILE: JSON lines {"id", "text"} -> {"id", "ids"} per line, in input order (with
// --offsets also "offsets").
// --decode: stdin {"ids": [...]} (or a bare JSON list) -> the text; with --batch, lines
// {"id", "ids"} -> {"id", "text"}.
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/app.hpp"
#include "value/files.hpp"
#include "toolchat/error.hpp"
#include "toolchat/tokenize.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {

void append_uint(std::string& out, uint64_t v) {
  char buf[24];
  int n = 0;
  do {
    buf[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) out.push_back(buf[--n]);
}

void append_ids(std::string& out, const std::vector<uint32_t>& ids) {
  out += '[';
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) out += ", ";
    append_uint(out, ids[i]);
  }
  out += ']';
}

void append_offsets(std::string& out, const std::vector<std::pair<uint32_t, uint32_t>>& offsets) {
  out += '[';
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (i) out += ", ";
    out += '[';
    append_uint(out, offsets[i].first);
    out += ", ";
    append_uint(out, offsets[i].second);
    out += ']';
  }
  out += ']';
}

std::vector<uint32_t> ids_of(const Value& v, const std::string& where) {
  const Value* list = &v;
  if (v.is_dict()) {
    list = v.dict_obj().find(std::string_view("ids"));
    if (!list) throw_error(ErrorKind::ValueError, where + ": no \"ids\" field");
  }
  if (!list->is_list()) throw_error(ErrorKind::ValueError, where + ".ids: must be a list of token ids");
  std::vector<uint32_t> ids;
  ids.reserve(list->items().size());
  for (size_t i = 0; i < list->items().size(); ++i) {
    const Value& x = list->items()[i];
    if (!x.is_int() || x.as_int() < 0 || x.as_int() > UINT32_MAX)
      throw_error(ErrorKind::ValueError,
                  where + ".ids[" + std::to_string(i) + "]: must be a token id (an integer >= 0)");
    ids.push_back(static_cast<uint32_t>(x.as_int()));
  }
  return ids;
}

// One batch line -> one output line (without the newline).
std::string batch_line(const tokenize::Tokenizer& tok, const std::string& line, size_t lineno,
                       const std::string& file, bool decode, bool add_special, bool skip_special,
                       bool offsets) {
  const std::string where = file + ":" + std::to_string(lineno);
  Value v;
  try {
    v = json::parse(line);
  } catch (const Error& e) {
    throw_error(ErrorKind::ValueError, where + ": " + e.message());
  }
  if (!v.is_dict()) throw_error(ErrorKind::ValueError, where + ": each line must be a JSON object");
  json::DumpOptions keep_utf8;
  keep_utf8.ensure_ascii = false;
  const Value* id = v.dict_obj().find(std::string_view("id"));
  std::string out = "{\"id\": ";
  out += id ? json::dumps(*id, keep_utf8) : "null";
  if (decode) {
    out += ", \"text\": ";
    json::dump_string(out, tok.decode(ids_of(v, where), skip_special), false);
  } else {
    const Value* text = v.dict_obj().find(std::string_view("text"));
    if (!text || !text->is_str()) throw_error(ErrorKind::ValueError, where + ".text: must be a string");
    const tokenize::Encoding e = tok.encode(text->str(), add_special);
    out += ", \"ids\": ";
    append_ids(out, e.ids);
    if (offsets) {
      out += ", \"offsets\": ";
      append_offsets(out, e.offsets);
    }
  }
  out += '}';
  return out;
}

int run_batch(const tokenize::Tokenizer& tok, const std::string& file, unsigned threads, bool decode,
              bool add_special, bool skip_special, bool offsets) {
  std::istringstream in(file == "-" ? files::read_stdin(UINT64_MAX, "batch input") : files::read_file(file, UINT64_MAX, "batch file"));
  std::vector<std::string> lines;
  std::vector<size_t> linenos;
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    lines.push_back(std::move(line));
    linenos.push_back(n);
  }
  std::vector<std::string> outs(lines.size());
  std::vector<std::string> errors(lines.size());
  // Anything else a line raised (out of memory): kept for the calling thread, because an exception
  // leaving a worker thread ends the process.
  std::vector<std::exception_ptr> failures(lines.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    while (true) {
      const size_t i = next.fetch_add(1);
      if (i >= lines.size()) return;
      try {
        outs[i] = batch_line(tok, lines[i], linenos[i], file, decode, add_special, skip_special, offsets);
      } catch (const Error& e) {
        errors[i] = e.message();
      } catch (...) {
        failures[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  // Nothing is written when a line is bad: the first bad line is reported.
  for (size_t i = 0; i < errors.size(); ++i) {
    if (failures[i]) std::rethrow_exception(failures[i]);
    if (!errors[i].empty()) throw_error(ErrorKind::ValueError, errors[i]);
  }
  std::string buf;
  for (const std::string& o : outs) {
    buf += o;
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      write_stdout(buf);
      buf.clear();
    }
  }
  write_stdout(buf);
  return kOk;
}


struct TokenizeArgs {
  std::string tokenizer, batch;
  unsigned threads = 1;
  bool add_special = false, decode = false, skip_special = false, offsets = false;
};

int run_tokenize(const TokenizeArgs& a) {
  const tokenize::Tokenizer tok = tokenize::Tokenizer::load(a.tokenizer);
  if (!a.batch.empty()) return run_batch(tok, a.batch, a.threads, a.decode, a.add_special, a.skip_special, a.offsets);
  const std::string input = files::read_stdin(UINT64_MAX, "input");
  std::string out;
  if (a.decode) {
    Value v;
    try {
      v = json::parse(input);
    } catch (const Error& e) {
      throw_error(ErrorKind::ValueError, "stdin: " + e.message());
    }
    out = tok.decode(ids_of(v, "stdin"), a.skip_special);
  } else {
    const tokenize::Encoding e = tok.encode(input, a.add_special);
    out.reserve(e.ids.size() * 16 + 32);
    out += "{\"ids\": ";
    append_ids(out, e.ids);
    out += ", \"offsets\": ";
    append_offsets(out, e.offsets);
    out += "}\n";
  }
  write_stdout(out);
  return kOk;
}

}  // namespace

Verb add_tokenize(CLI::App& root) {
  auto a = std::make_shared<TokenizeArgs>();
  CLI::App* app = root.add_subcommand("tokenize", "text -> token ids (and back) with a Hugging Face tokenizer.json");
  app->add_option("--tokenizer", a->tokenizer, "a tokenizer.json, a model folder holding one, or a .gguf (its tokenizer.ggml.*, as llama.cpp tokenizes)")->required();
  app->add_flag("--add-special-tokens", a->add_special, "add the tokenizer's post-processor tokens (BOS, ...)");
  app->add_option("--batch", a->batch, "JSON lines {\"id\", \"text\"} (or {\"id\", \"ids\"} with --decode), - for stdin; one result line per input line, in order");
  app->add_option("--threads", a->threads, "threads for --batch")->check(whole_number(1, 256));
  app->add_flag("--decode", a->decode, "token ids -> text: stdin {\"ids\": [...]} or a JSON list");
  app->add_flag("--skip-special-tokens", a->skip_special, "with --decode: leave special tokens out");
  app->add_flag("--offsets", a->offsets, "with --batch: add \"offsets\" (code points) to each line");
  app->footer(
      "Encode: stdin text -> {\"ids\": [...], \"offsets\": [[start, end], ...]} (offsets in code points).\n\n"
      "Example:\n  printf 'Hello world' | toolchat tokenize --tokenizer path/to/tokenizer.json");
  return {app, [a] { return run_tokenize(*a); }};
}

}  // namespace toolchat::cli
