// toolchat tokenize --tokenizer PATH [--add-special-tokens] [--threads N] [--batch FILE]
//                   [--decode [--skip-special-tokens]] [--offsets]
// Encode: stdin text -> {"ids": [...], "offsets": [[start, end], ...]} (code points of the input).
// --batch FILE: JSON lines {"id", "text"} -> {"id", "ids"} per line, in input order (with
// --offsets also "offsets").
// --decode: stdin {"ids": [...]} (or a bare JSON list) -> the text; with --batch, lines
// {"id", "ids"} -> {"id", "text"}.
#include <atomic>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/args.hpp"
#include "toolchat/error.hpp"
#include "toolchat/tokenize.hpp"
#include "value/json.hpp"

namespace toolchat::cli {

namespace {

const char* kUsage =
    "usage: toolchat tokenize --tokenizer PATH [--add-special-tokens] [--threads N]\n"
    "                         [--batch FILE] [--decode [--skip-special-tokens]]\n"
    "  PATH is a tokenizer.json or a model folder holding one.\n"
    "  encode: stdin text -> {\"ids\": [...], \"offsets\": [[start, end], ...]} (code points)\n"
    "  --batch FILE: JSON lines {\"id\", \"text\"} -> {\"id\", \"ids\"}, in input order\n"
    "                (--offsets adds \"offsets\")\n"
    "  --decode: stdin {\"ids\": [...]} -> text; with --batch: {\"id\", \"ids\"} -> {\"id\", \"text\"}\n"
    "  --threads N: encode/decode batch lines on N threads (default 1)\n";

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
  const Value* id = v.dict_obj().find(std::string_view("id"));
  std::string out = "{\"id\": ";
  out += id ? json::dumps(*id, json::DumpOptions{false}) : "null";
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
  std::ifstream in(file, std::ios::binary);
  if (!in) throw_error(ErrorKind::ValueError, file + ": cannot open batch file");
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
  if (in.bad()) throw_error(ErrorKind::ValueError, file + ": read error");
  std::vector<std::string> outs(lines.size());
  std::vector<std::string> errors(lines.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    while (true) {
      const size_t i = next.fetch_add(1);
      if (i >= lines.size()) return;
      try {
        outs[i] = batch_line(tok, lines[i], linenos[i], file, decode, add_special, skip_special, offsets);
      } catch (const Error& e) {
        errors[i] = e.message();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  // Nothing is written when a line is bad: the first bad line is reported.
  for (size_t i = 0; i < errors.size(); ++i)
    if (!errors[i].empty()) throw_error(ErrorKind::ValueError, errors[i]);
  std::string buf;
  for (const std::string& o : outs) {
    buf += o;
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      std::fwrite(buf.data(), 1, buf.size(), stdout);
      buf.clear();
    }
  }
  std::fwrite(buf.data(), 1, buf.size(), stdout);
  return std::fflush(stdout) == 0 ? 0 : 1;
}

}  // namespace

int cmd_tokenize(int argc, char** argv) {
  Args a;
  unsigned threads = 1;
  try {
    a = parse_args(argc, argv, 2, {"tokenizer", "threads", "batch"},
                   {"add-special-tokens", "decode", "skip-special-tokens", "offsets", "help"});
    if (a.has("help")) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (!a.get("tokenizer")) throw std::runtime_error("--tokenizer PATH is required");
    if (!a.positional.empty()) throw std::runtime_error("unexpected argument '" + a.positional[0] + "'");
    if (auto t = a.get("threads")) {
      size_t used = 0;
      long v = -1;
      try {
        v = std::stol(*t, &used);
      } catch (...) {
      }
      if (used != t->size() || v < 1 || v > 256) throw std::runtime_error("--threads must be 1..256");
      threads = static_cast<unsigned>(v);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "toolchat tokenize: %s\n%s", e.what(), kUsage);
    return 2;
  }
  try {
    const tokenize::Tokenizer tok = tokenize::Tokenizer::load(*a.get("tokenizer"));
    const bool add_special = a.has("add-special-tokens"), decode = a.has("decode"),
               skip_special = a.has("skip-special-tokens");
    if (auto batch = a.get("batch")) return run_batch(tok, *batch, threads, decode, add_special, skip_special, a.has("offsets"));
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    const std::string input = ss.str();
    std::string out;
    if (decode) {
      Value v;
      try {
        v = json::parse(input);
      } catch (const Error& e) {
        throw_error(ErrorKind::ValueError, "stdin: " + e.message());
      }
      out = tok.decode(ids_of(v, "stdin"), skip_special);
    } else {
      const tokenize::Encoding e = tok.encode(input, add_special);
      out.reserve(e.ids.size() * 16 + 32);
      out += "{\"ids\": ";
      append_ids(out, e.ids);
      out += ", \"offsets\": ";
      append_offsets(out, e.offsets);
      out += "}\n";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "toolchat tokenize: %s\n", e.message().c_str());
    return 1;
  }
}

}  // namespace toolchat::cli
