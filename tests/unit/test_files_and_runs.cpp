// Files as users hand them over (the OS's reason for what cannot be read, outputs replaced whole),
// a conversion that must not destroy its input or leave a partial output, progress reported to the
// caller rather than drawn, and a server stopped by its embedding program without signals.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "convert/pipeline.hpp"
#include "gateway/server.hpp"
#include "value/files.hpp"
#include "value/json.hpp"

namespace fs = std::filesystem;
using namespace toolchat;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream o(p, std::ios::binary);
  o << s;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.message();
  }
  return "(no error)";
}

struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("toolchat_files_" + std::to_string(::getpid()) + "_" +
                                       std::to_string(counter()++));
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  static std::atomic<int>& counter() {
    static std::atomic<int> n{0};
    return n;
  }
};

const char* kRow = R"({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]})";

convert::ConvertConfig config(const fs::path& in, const fs::path& out) {
  convert::ConvertConfig cfg;
  cfg.format = convert::Format::openai;
  cfg.model = "examples/qwen2.5/chat_template.jinja";
  cfg.input = in.string();
  cfg.output = out.string();
  cfg.threads = 2;
  cfg.batch_rows = 2;
  return cfg;
}

}  // namespace

TEST(Files, ReasonsComeFromTheSystem) {
  TempDir t;
  // A directory used to open "successfully" and report its size as 2^63-1 bytes.
  EXPECT_EQ(message_of([&] { files::read_file(t.dir.string()); }), t.dir.string() + ": cannot read file: Is a directory");
  EXPECT_EQ(message_of([&] { json::parse_file(t.dir.string()); }), t.dir.string() + ": cannot read file: Is a directory");
  EXPECT_EQ(message_of([&] { files::check_readable(t.dir.string()); }),
            t.dir.string() + ": cannot read file: Is a directory");
  fs::path missing = t.dir / "missing.json";
  EXPECT_EQ(message_of([&] { json::parse_file(missing.string()); }),
            missing.string() + ": cannot open file: No such file or directory");
  fs::path big = t.dir / "big.json";
  spit(big, "[1, 2, 3]");
  json::ReadLimits lim;
  lim.max_bytes = 4;
  EXPECT_EQ(message_of([&] { json::parse_file(big.string(), lim); }),
            big.string() + ": JSON input too large (9 bytes, limit 4)");
}

TEST(Files, SameFileThroughLinks) {
  TempDir t;
  fs::path a = t.dir / "a", sym = t.dir / "sym", hard = t.dir / "hard", other = t.dir / "other";
  spit(a, "x");
  spit(other, "x");
  fs::create_symlink(a, sym);
  fs::create_hard_link(a, hard);
  EXPECT_TRUE(files::same_file(a.string(), a.string()));
  EXPECT_TRUE(files::same_file(a.string(), sym.string()));
  EXPECT_TRUE(files::same_file(hard.string(), a.string()));
  EXPECT_TRUE(files::same_file(a.string(), (t.dir / "." / "a").string()));
  EXPECT_FALSE(files::same_file(a.string(), other.string()));
  EXPECT_FALSE(files::same_file(a.string(), (t.dir / "new").string()));
}

TEST(Files, AtomicOutputReplacesWholeOrNotAtAll) {
  TempDir t;
  fs::path out = t.dir / "out.txt";
  spit(out, "old");
  fs::permissions(out, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    files::AtomicOutput o(out.string());
    o.stream() << "new";
    EXPECT_EQ(slurp(out), "old");  // nothing visible before commit
  }  // not committed: the old file stays, the temporary is gone
  EXPECT_EQ(slurp(out), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(t.dir), fs::directory_iterator()), 1);
  {
    files::AtomicOutput o(out.string());
    o.stream() << "new";
    o.commit();
  }
  EXPECT_EQ(slurp(out), "new");
  EXPECT_EQ(fs::status(out).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(std::distance(fs::directory_iterator(t.dir), fs::directory_iterator()), 1);
  // Not a regular file: written in place.
  files::AtomicOutput null("/dev/null");
  null.stream() << "x";
  EXPECT_NO_THROW(null.commit());
  EXPECT_NE(message_of([&] { files::AtomicOutput o((t.dir / "no" / "dir.txt").string()); }).find("No such file or directory"),
            std::string::npos);
}

TEST(ConvertRun, RefusesItsInputAsOutput) {
  TempDir t;
  fs::path in = t.dir / "in.jsonl", sym = t.dir / "sym.jsonl", hard = t.dir / "hard.jsonl";
  spit(in, std::string(kRow) + "\n");
  fs::create_symlink(in, sym);
  fs::create_hard_link(in, hard);
  std::ostringstream err;
  for (const fs::path& out : {in, sym, hard}) {
    EXPECT_NE(message_of([&] { convert::run_convert(config(in, out), err); }).find("is the same file as the input"),
              std::string::npos)
        << out;
    EXPECT_EQ(slurp(in), std::string(kRow) + "\n");
  }
}

TEST(ConvertRun, StrictStopsAtTheFirstBadRowInInputOrder) {
  TempDir t;
  fs::path in = t.dir / "in.jsonl", out = t.dir / "out.jsonl";
  std::string rows;
  for (int i = 1; i <= 40; ++i) rows += (i == 13 || i == 31 ? std::string("{bad") : std::string(kRow)) + "\n";
  spit(in, rows);
  auto cfg = config(in, out);
  cfg.stop_at_first_bad = true;
  std::ostringstream err;
  std::string m = message_of([&] { convert::run_convert(cfg, err); });
  EXPECT_EQ(m.rfind(in.string() + ":13: invalid JSON", 0), 0u) << m;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(err.str().find(":31:"), std::string::npos);
  cfg.stop_at_first_bad = false;
  convert::ConvertStats s = convert::run_convert(cfg, err);
  EXPECT_EQ(s.converted, 38u);
  EXPECT_EQ(s.bad, 2u);
}

TEST(ConvertRun, NothingConvertedLeavesTheOutputAlone) {
  TempDir t;
  fs::path in = t.dir / "in.jsonl", out = t.dir / "out.jsonl";
  spit(in, "{bad\n[1]\n");
  spit(out, "old\n");
  std::ostringstream err;
  convert::ConvertStats s = convert::run_convert(config(in, out), err);
  EXPECT_EQ(s.converted, 0u);
  EXPECT_EQ(s.bad, 2u);
  EXPECT_EQ(slurp(out), "old\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(t.dir), fs::directory_iterator()), 2);
}

TEST(ConvertRun, ProgressGoesToTheCallback) {
  TempDir t;
  fs::path in = t.dir / "in.jsonl", out = t.dir / "out.jsonl";
  std::string rows;
  for (int i = 0; i < 20; ++i) rows += std::string(kRow) + "\n";
  spit(in, rows);
  auto cfg = config(in, out);
  std::vector<convert::ConvertProgress> seen;
  cfg.on_progress = [&](const convert::ConvertProgress& p) { seen.push_back(p); };
  std::ostringstream err;
  convert::run_convert(cfg, err);
  ASSERT_GE(seen.size(), 2u);
  EXPECT_TRUE(seen.back().done);
  EXPECT_EQ(seen.back().rows, 20u);
  EXPECT_EQ(seen.back().bytes, rows.size());
  EXPECT_EQ(seen.back().total_bytes, rows.size());
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i].rows, seen[i - 1].rows);
  EXPECT_EQ(err.str(), "");  // the library draws nothing
}

// Embedded: no signal involved, the program stops the server itself; the caller's signal mask is
// left as it was.
TEST(ServeEmbedded, StopsOnRequestAndLeavesTheSignalMask) {
  gateway::Config cfg;
  cfg.model_path = "examples/qwen2.5";
  cfg.backend_url = "http://127.0.0.1:9";
  cfg.port = 0;
  cfg.threads = 2;
  gateway::ServeStop stop;
  std::atomic<int> port{0};
  sigset_t before, after;
  std::thread server([&] {
    pthread_sigmask(SIG_SETMASK, nullptr, &before);
    gateway::serve(cfg, [&](int p, const std::string&) { port = p; }, &stop);
    pthread_sigmask(SIG_SETMASK, nullptr, &after);
  });
  while (port == 0) std::this_thread::yield();
  stop.request();
  server.join();
  EXPECT_GT(port.load(), 0);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM}) EXPECT_EQ(sigismember(&before, sig), sigismember(&after, sig)) << sig;
  // A stop requested before serve() listens ends it as soon as it does.
  gateway::ServeStop early;
  early.request();
  EXPECT_EQ(gateway::serve(cfg, [](int, const std::string&) {}, &early), 0);
}
