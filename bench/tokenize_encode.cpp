// Encode timing for bench/tokenize_bench.py: tokenize_encode TOKENIZER TEXT_FILE REPEAT
// Loads the tokenizer ("load_s", "load_cpu_s": a tokenizer.json, or a .gguf's tokenizer.ggml.*),
// encodes the file's text once to warm up ("first_s": with the word cache empty), then REPEAT
// times, and prints {"load_s", "load_cpu_s", "first_s", "encode_s" (best of REPEAT, wall),
// "encode_cpu_s" (best of REPEAT, CPU time of the process: what a shared machine's other load
// does not inflate), "tokens", "bytes"} as JSON. One thread.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "toolchat/error.hpp"
#include "toolchat/tokenize.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: tokenize_encode TOKENIZER TEXT_FILE REPEAT\n");
    return 2;
  }
  try {
    using clock = std::chrono::steady_clock;
    std::ifstream in(argv[2], std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text(ss.str());
    const int repeat = std::max(1, std::atoi(argv[3]));
    auto cpu_now = [] {
      timespec ts{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
      return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    };
    auto t0 = clock::now();
    const double c0 = cpu_now();
    const auto tok = toolchat::tokenize::Tokenizer::load(argv[1]);
    const double load_cpu_s = cpu_now() - c0;
    const double load_s = std::chrono::duration<double>(clock::now() - t0).count();
    auto f0 = clock::now();
    size_t tokens = tok.encode_ids(text, false).size();  // the first encode: the word cache is empty
    const double first_s = std::chrono::duration<double>(clock::now() - f0).count();
    double best = 1e30, best_cpu = 1e30;
    for (int r = 0; r < repeat; ++r) {
      auto a = clock::now();
      const double c = cpu_now();
      tokens = tok.encode_ids(text, false).size();
      best_cpu = std::min(best_cpu, cpu_now() - c);
      best = std::min(best, std::chrono::duration<double>(clock::now() - a).count());
    }
    std::printf("{\"load_s\": %.6f, \"load_cpu_s\": %.6f, \"first_s\": %.6f, \"encode_s\": %.6f, \"encode_cpu_s\": %.6f, \"tokens\": %zu, \"bytes\": %zu}\n",
                load_s, load_cpu_s, first_s, best, best_cpu, tokens, text.size());
    return 0;
  } catch (const toolchat::Error& e) {
    std::fprintf(stderr, "tokenize_encode: %s\n", e.message().c_str());
    return 1;
  }
}
