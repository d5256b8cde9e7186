#include "value/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "toolchat/error.hpp"

namespace toolchat::files {

namespace {

[[noreturn]] void os_error(const std::string& path, const char* doing, int err) {
  throw Error(ErrorKind::OSError, path + ": " + doing + ": " + std::strerror(err));
}

[[noreturn]] void too_large(const std::string& path, std::string_view what, uint64_t n, uint64_t max) {
  throw Error(ErrorKind::LimitError, path + ": " + std::string(what) + " too large (" + std::to_string(n) +
                                         " bytes, limit " + std::to_string(max) + ")");
}

// Reads fd to its end. A directory opened O_RDONLY succeeds on Linux and fails at read() with
// EISDIR; fstat says so first, so the message is the OS's reason whatever the platform.
std::string read_fd(int fd, const std::string& name, uint64_t max_bytes, std::string_view what) {
  struct stat st {};
  if (fstat(fd, &st) != 0) os_error(name, "cannot read file", errno);
  if (S_ISDIR(st.st_mode)) os_error(name, "cannot read file", EISDIR);
  std::string out;
  if (S_ISREG(st.st_mode)) {
    if (static_cast<uint64_t>(st.st_size) > max_bytes) too_large(name, what, static_cast<uint64_t>(st.st_size), max_bytes);
    out.reserve(static_cast<size_t>(st.st_size));
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      os_error(name, "cannot read file", errno);
    }
    if (n == 0) break;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes) too_large(name, what, out.size() + static_cast<uint64_t>(n), max_bytes);
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_file(const std::string& path, uint64_t max_bytes, std::string_view what) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) os_error(path, "cannot open file", errno);
  return read_fd(f.fd, path, max_bytes, what);
}

std::string read_stdin(uint64_t max_bytes, std::string_view what) {
  return read_fd(STDIN_FILENO, "<stdin>", max_bytes, what);
}

uint64_t check_readable(const std::string& path) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) os_error(path, "cannot open file", errno);
  struct stat st {};
  if (fstat(f.fd, &st) != 0) os_error(path, "cannot read file", errno);
  if (S_ISDIR(st.st_mode)) os_error(path, "cannot read file", EISDIR);
  return S_ISREG(st.st_mode) ? static_cast<uint64_t>(st.st_size) : 0;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if ((a == "-" ? fstat(STDIN_FILENO, &sa) : ::stat(a.c_str(), &sa)) != 0) return false;
  if ((b == "-" ? fstat(STDOUT_FILENO, &sb) : ::stat(b.c_str(), &sb)) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  struct stat st {};
  bool exists = ::stat(path_.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode)) os_error(path_, "cannot write file", EISDIR);
  if (exists && !S_ISREG(st.st_mode)) {
    out_.open(path_, std::ios::binary);
    if (!out_) os_error(path_, "cannot write file", errno ? errno : EIO);
    return;
  }
  // A new name in the same directory (rename is atomic only within one file system), created
  // exclusively so that no other file is ever opened; mode 0666 less the umask, as a plain open.
  static std::atomic<unsigned> counter{0};
  size_t slash = path_.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path_.substr(0, slash + 1);
  std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp_ = dir + "." + base + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 100)) {
      temp_.clear();
      os_error(path_, "cannot write file", errno);
    }
  }
  if (exists) (void)::fchmod(fd, st.st_mode & 07777);  // keep the replaced file's permissions
  ::close(fd);
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    int e = errno ? errno : EIO;
    ::unlink(temp_.c_str());
    temp_.clear();
    os_error(path_, "cannot write file", e);
  }
}

AtomicOutput::~AtomicOutput() {
  if (done_ || temp_.empty()) return;
  out_.close();
  ::unlink(temp_.c_str());
}

void AtomicOutput::commit() {
  if (done_) return;
  out_.flush();
  if (!out_) os_error(path_, "cannot write file", errno ? errno : EIO);
  out_.close();
  if (!out_) os_error(path_, "cannot write file", errno ? errno : EIO);
  if (temp_.empty()) {
    done_ = true;
    return;
  }
  // The data reaches the disk before the name points at it: a crash leaves the old file or the new one.
  Fd f{::open(temp_.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd >= 0) (void)::fsync(f.fd);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) os_error(path_, "cannot write file", errno);
  done_ = true;
}

}  // namespace toolchat::files
