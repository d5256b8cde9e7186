// Reading the files a user names and writing outputs without ever leaving a half-written or
// truncated file. Every failure names the path and the operating system's reason (strerror):
// a directory given where a file is expected is "Is a directory", not a size or parse error.
// (ValueError: the error kinds are Python's classes, and OSError has no kind of its own yet.)
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

namespace toolchat::files {

// The whole content of PATH (a regular file, or a FIFO / device read to its end).
// Throws Error(ValueError) "PATH: cannot open file: REASON" or "PATH: cannot read file: REASON", and
// Error(LimitError) "PATH: WHAT too large (N bytes, limit M)" past max_bytes.
std::string read_file(const std::string& path, uint64_t max_bytes = UINT64_MAX, std::string_view what = "file");

// Standard input to its end; the same errors, named "<stdin>".
std::string read_stdin(uint64_t max_bytes = UINT64_MAX, std::string_view what = "input");

// Checks that PATH can be opened for reading and is not a directory (for callers that stream it).
// Returns its size for a regular file, else 0. Throws Error(ValueError) as read_file does.
uint64_t check_readable(const std::string& path);

// True when both paths name one existing file (same device and inode: also through symbolic
// and hard links). "-" stands for standard input in `a` and standard output in `b`.
bool same_file(const std::string& a, const std::string& b);

// An output written beside its final path and renamed over it by commit(), so that the path holds
// either its old content or the whole new one, never a partial file. A path that exists and is
// not a regular file (/dev/null, a FIFO) is written in place: it cannot be replaced.
// Not committed (an exception, an early return): the temporary file is removed, PATH untouched.
class AtomicOutput {
 public:
  // Throws Error(ValueError) "PATH: cannot write file: REASON".
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, syncs and renames. Throws Error(ValueError) on a write, sync or rename failure.
  void commit();

 private:
  std::string path_, temp_;  // temp_ empty: writing in place
  std::ofstream out_;
  bool done_ = false;
};

}  // namespace toolchat::files
