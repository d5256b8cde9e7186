// The streaming, multi-threaded conversion loop. The main thread reads lines into batches and
// writes finished batches in input order; workers parse, label and serialise. At most a few
// batches per worker are in flight, so memory stays bounded whatever the input size.
#include "convert/pipeline.hpp"

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "convert/line_memo.hpp"
#include "convert/row_reader.hpp"
#include "convert/token_rows.hpp"
#include "value/files.hpp"
#include "value/json.hpp"

namespace toolchat::convert {

namespace {

using Clock = std::chrono::steady_clock;

// The counters, listed once: batches add up through this list.
constexpr size_t ConvertStats::*kCounters[] = {
    &ConvertStats::rows,   &ConvertStats::converted,  &ConvertStats::extra_rows,     &ConvertStats::bad,
    &ConvertStats::turns,  &ConvertStats::served,     &ConvertStats::trained_spans,  &ConvertStats::reused, &ConvertStats::tokens,
    &ConvertStats::straddling, &ConvertStats::cut_rows, &ConvertStats::dropped_long, &ConvertStats::injection_rows,
    &ConvertStats::texts_not_found};

// Every counter added, the list unrolled at compile time (twice per row: a loop over the member
// pointers cost more than the additions).
template <size_t... I>
void add_counters(ConvertStats& into, const ConvertStats& s, std::index_sequence<I...>) {
  ((into.*kCounters[I] += s.*kCounters[I]), ...);
}

}  // namespace

void add_stats(ConvertStats& into, const ConvertStats& s) {
  add_counters(into, s, std::make_index_sequence<std::size(kCounters)>{});
  for (const auto& [t, m] : s.mismatches)
    for (const auto& [r, n] : m) into.mismatches[t][r] += n;
}

namespace {

// The input: a file (its size known, for progress) or stdin.
constexpr size_t kStreamBuffer = size_t{1} << 20;

struct Input {
  std::unique_ptr<char[]> buffer;  // declared before file: outlives the stream that reads into it
  std::unique_ptr<std::ifstream> file;
  std::istream* stream = &std::cin;
  uint64_t total_bytes = 0;
  std::string name = "<stdin>";
};

Input open_input(const ConvertConfig& cfg) {
  Input in;
  if (cfg.input == "-") return in;
  in.total_bytes = files::check_readable(cfg.input);
  in.file = std::make_unique<std::ifstream>();
  // A large buffer (set before open): the default 8 KB one costs a read() per 8 KB of input.
  in.buffer = std::make_unique_for_overwrite<char[]>(kStreamBuffer);
  in.file->rdbuf()->pubsetbuf(in.buffer.get(), kStreamBuffer);
  in.file->open(cfg.input, std::ios::binary);
  if (!*in.file) throw Error(ErrorKind::ValueError, cfg.input + ": cannot open file");
  in.stream = in.file.get();
  in.name = cfg.input;
  return in;
}

// The output: stdout, a file written beside its path and renamed over it, or nothing (check only).
struct Output {
  std::unique_ptr<files::AtomicOutput> file;
  std::ostream* stream = nullptr;
};

Output open_output(const ConvertConfig& cfg) {
  // Refused before anything is written: converting a file onto itself would replace the input.
  if (!cfg.output.empty() && (cfg.input != "-" || cfg.output != "-") && files::same_file(cfg.input, cfg.output))
    throw Error(ErrorKind::ValueError, (cfg.output == "-" ? std::string("standard output") : cfg.output) +
                                           " is the same file as the input " +
                                           (cfg.input == "-" ? std::string("(standard input)") : cfg.input) +
                                           ": choose another output");
  Output out;
  if (cfg.output == "-") {
    out.stream = &std::cout;
  } else if (!cfg.output.empty()) {
    out.file = std::make_unique<files::AtomicOutput>(cfg.output);
    out.stream = &out.file->stream();
  }
  return out;
}

// A batch of jobs. Batches are reused: a taken batch goes back to the free list with its
// strings' buffers, so that steady rows allocate no line, output or result strings.
struct Batch {
  std::vector<RowJob> jobs;
  size_t used = 0;
  bool done = false;  // under OrderedRun::mu_
  // What a worker could not turn into a row report (out of memory, a bug): rethrown on the calling
  // thread when the batch is taken, because an exception leaving a worker thread ends the process.
  std::exception_ptr failure;
  size_t failed_row = 0;  // its RowJob::index
};

// Workers convert batches; the calling thread reads rows into batches and takes finished batches
// in input order. At most max_in_flight batches are read ahead.
class OrderedRun {
 public:
  OrderedRun(const ConvertConfig& cfg, std::vector<std::unique_ptr<Labeler>>& labelers, const tokenize::Tokenizer* tok,
             const RowIo& io)
      : cfg_(cfg), io_(io), max_in_flight_(labelers.size() * 4) {
    for (auto& l : labelers) workers_.emplace_back([this, &labeler = *l, tok] { work(labeler, tok); });
  }
  ~OrderedRun() { stop(); }

  ConvertStats run() {
    const size_t rows = std::max<size_t>(1, cfg_.batch_rows);
    for (;;) {
      std::unique_ptr<Batch> b = fresh();
      while (b->used < rows) {
        if (b->jobs.size() == b->used) b->jobs.emplace_back();
        RowJob& job = b->jobs[b->used];
        clear(job);
        if (!io_.read(job)) break;
        ++b->used;
      }
      const bool last = b->used < rows;
      std::unique_lock<std::mutex> lk(mu_);
      if (b->used > 0) {
        in_order_.push_back(std::move(b));
        pending_.push_back(in_order_.back().get());
        work_cv_.notify_one();
      } else {
        free_.push_back(std::move(b));
      }
      // Takes what is done; waits while too many batches are in flight, and at the end for all.
      while (!stopped_ && !in_order_.empty() &&
             (in_order_.front()->done || in_order_.size() >= max_in_flight_ || last))
        take_front(lk);
      if (last || stopped_) break;
    }
    return total_;
  }

 private:
  static void clear(RowJob& job) {
    job.index = 0;
    job.line.clear();
    job.has_row = false;
    job.result.clear();
  }

  std::unique_ptr<Batch> fresh() {
    std::unique_ptr<Batch> b;
    if (free_.empty()) {
      b = std::make_unique<Batch>();
    } else {
      b = std::move(free_.back());
      free_.pop_back();
    }
    b->used = 0;
    b->done = false;
    b->failure = nullptr;
    return b;
  }

  // Waits for the oldest batch (outside the lock, through io.blocking) and takes it.
  void take_front(std::unique_lock<std::mutex>& lk) {
    if (!in_order_.front()->done) {
      lk.unlock();
      auto wait = [&] {
        std::unique_lock<std::mutex> relock(mu_);
        done_cv_.wait(relock, [&] { return in_order_.front()->done; });
      };
      if (io_.blocking) io_.blocking(wait);
      else wait();
      lk.lock();
    }
    std::unique_ptr<Batch> b = std::move(in_order_.front());
    in_order_.pop_front();
    lk.unlock();
    if (b->failure) fail(*b);
    for (size_t i = 0; i < b->used && !stopped_; ++i) {
      RowJob& job = b->jobs[i];
      if (!io_.take(job)) {
        stopped_ = true;
        break;
      }
      add_stats(total_, job.result.stats);
    }
    if (io_.after_batch) io_.after_batch();
    if (free_.size() < max_in_flight_) free_.push_back(std::move(b));
    lk.lock();
  }

  // Out of memory is no verdict on a row (it depends on the machine, not the row): it stops the
  // run, naming the row; anything else a worker could not report is rethrown as it was.
  [[noreturn]] void fail(const Batch& b) const {
    const std::string where =
        (io_.locate ? io_.locate(b.failed_row) : "row " + std::to_string(b.failed_row)) + ": ";
    try {
      std::rethrow_exception(b.failure);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorKind::MemoryError, where + "out of memory");
    } catch (const std::length_error&) {
      throw Error(ErrorKind::MemoryError, where + "out of memory");
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::MemoryError) throw Error(ErrorKind::MemoryError, where + "out of memory");
      throw;
    }
  }

  void stop() {
    {
      std::lock_guard<std::mutex> lk(mu_);
      closed_ = true;
      pending_.clear();
    }
    work_cv_.notify_all();
    auto join = [&] {
      for (auto& t : workers_) t.join();
    };
    if (io_.blocking && !workers_.empty()) io_.blocking(join);
    else join();
    workers_.clear();
  }

  void work(Labeler& labeler, const tokenize::Tokenizer* tok) {
    for (;;) {
      Batch* b = nullptr;
      {
        std::unique_lock<std::mutex> lk(mu_);
        work_cv_.wait(lk, [&] { return closed_ || !pending_.empty(); });
        if (pending_.empty()) return;
        b = pending_.front();
        pending_.pop_front();
      }
      size_t i = 0;
      try {
        for (; i < b->used; ++i) {
          RowJob& job = b->jobs[i];
          if (job.has_row) {
            convert_row(labeler, cfg_, tok, job.row, job.result);
            job.row = Value();  // freed here (the module: without the GIL)
          } else {
            convert_line(labeler, cfg_, tok, job.line, job.result);
          }
        }
      } catch (...) {
        b->failure = std::current_exception();
        b->failed_row = b->jobs[i].index;
      }
      {
        std::lock_guard<std::mutex> lk(mu_);
        b->done = true;
      }
      done_cv_.notify_all();
    }
  }

  const ConvertConfig& cfg_;
  const RowIo& io_;
  const size_t max_in_flight_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<Batch*> pending_;
  std::deque<std::unique_ptr<Batch>> in_order_;
  std::vector<std::unique_ptr<Batch>> free_;  // calling thread only
  bool closed_ = false;
  bool stopped_ = false;  // calling thread only: take said stop
  std::vector<std::thread> workers_;
  ConvertStats total_;
};

// Called in a catch block: out of memory is not the row's fault, so it leaves the row's report
// (OrderedRun::fail stops the run, naming the row).
void rethrow_if_out_of_memory(const Error& e) {
  if (e.kind() == ErrorKind::MemoryError) throw;
}

}  // namespace

void convert_row(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const Value& row,
                 RowResult& r) {
  ++r.stats.rows;
  auto bad = [&](const Error& e, std::string reason) {
    r.error = e;
    r.reason = std::move(reason);
    ++r.stats.bad;
  };
  Sample sample;
  try {
    sample = read_sample(cfg.format, row);
  } catch (const Error& e) {
    rethrow_if_out_of_memory(e);
    bad(e, e.message());
    return;
  }
  Labeled l;
  std::optional<Error> failed;
  try {
    if (!labeler.label(sample, l, failed)) {
      if (failed->kind() == ErrorKind::MemoryError) throw *failed;
      bad(*failed, std::string(error_kind_name(failed->kind())) + ": " + failed->message());
      return;
    }
  } catch (const Error& e) {
    rethrow_if_out_of_memory(e);
    bad(e, std::string(error_kind_name(e.kind())) + ": " + e.message());
    return;
  }
  r.stats.reused += l.reused_renders;
  for (const auto& t : l.turns) {
    ++r.stats.turns;
    if (t.served) {
      ++r.stats.served;
      continue;
    }
    ++r.stats.mismatches[l.template_name][reason_kind(t.reason)];
    if (cfg.list_mismatches)
      r.mismatches.push_back("messages[" + std::to_string(t.message) + "] (template " + l.template_name + "): " + t.reason);
  }
  size_t written = 0;
  for (size_t i = 0; i < l.rows.size(); ++i) {
    const bool as_json = !cfg.output.empty() && !cfg.rows_as_parts;
    if (tok) {
      TokenRow t;
      try {
        t = tokenize_row(*tok, l.rows[i], cfg.max_length);
      } catch (const Error& e) {  // a text JSON allows and UTF-8 does not (a lone surrogate escape): the row is bad
        rethrow_if_out_of_memory(e);
        r.out.clear();
        r.parts.clear();
        r.notes.clear();
        r.mismatches.clear();
        r.stats = ConvertStats{};
        r.stats.rows = 1;
        bad(e, std::string(error_kind_name(e.kind())) + ": the row's text cannot be tokenized (" + e.message() +
                   "; a lone surrogate escape such as \\ud800 in a message?)");
        return;
      }
      r.stats.texts_not_found += l.rows[i].texts_not_found;
      if (t.injection) {
        ++r.stats.injection_rows;
        r.notes.push_back((i ? "split row " + std::to_string(i) + ": " : std::string()) +
                          "a message text holds special-token text: kept as text here, read as special tokens by "
                          "a whole-text tokenization (transformers)");
      }
      if (t.cut_tokens) {
        ++r.stats.cut_rows;
        if (!t.trained()) {
          ++r.stats.dropped_long;
          continue;
        }
      }
      r.stats.tokens += t.ids.size();
      r.stats.straddling += t.straddling;
      if (cfg.rows_as_parts) {
        RowParts& p = r.parts.emplace_back();
        p.tokens = true;
        p.ids = std::move(t.ids);
        p.labels = std::move(t.labels);
      } else if (as_json) {
        append_token_row_json(r.out, l.rows[i], t);
      }
    } else if (cfg.rows_as_parts) {
      r.parts.emplace_back();
    } else if (as_json) {
      append_row_json(r.out, l.rows[i]);
    }
    if (as_json) r.out += '\n';
    for (const auto& s : l.rows[i].spans) r.stats.trained_spans += s.train;
    if (cfg.rows_as_parts) {
      RowParts& p = r.parts.back();
      p.span_chars = span_chars(l.rows[i]);
      p.row = std::move(l.rows[i]);
    }
    ++written;
  }
  if (written == 0) return;
  ++r.stats.converted;
  r.stats.extra_rows += written - 1;
}

void convert_line(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, std::string_view line,
                  RowResult& r) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  LinePath* lines = LabelerAccess::line_path(labeler, cfg, tok);  // rows of known skeletons, without values
  if (lines && lines->convert(cfg, line, r)) return;
  Value row;
  static thread_local RowReader reader;  // members repeated from row to row are read once
  try {
    row = reader.read(line);
  } catch (const Error& e) {
    rethrow_if_out_of_memory(e);
    ++r.stats.rows;
    ++r.stats.bad;
    r.error = e;
    r.reason = "invalid JSON: " + e.message();
    return;
  }
  if (lines) LabelerAccess::forget_last(labeler);  // a row failing before its label call is not the last one's
  convert_row(labeler, cfg, tok, row, r);
  if (lines) lines->learn(labeler, cfg, line, r);
}

std::string reason_kind(const std::string& reason) {
  size_t cut = reason.size();
  for (const char* marker : {", at char", " at char", " (", ", "}) {
    size_t p = reason.find(marker);
    if (p != std::string::npos && p < cut) cut = p;
  }
  return reason.substr(0, cut);
}

void RowResult::clear() {
  out.clear();
  parts.clear();
  error.reset();
  reason.clear();
  notes.clear();
  mismatches.clear();
  stats = ConvertStats{};
}

ConvertStats run_convert(const ConvertConfig& cfg, const RowIo& io) {
  const int nthreads = std::max(1, cfg.threads);
  std::optional<tokenize::Tokenizer> tokenizer;
  std::vector<std::unique_ptr<Labeler>> labelers;
  auto load = [&] {
    if (!cfg.tokenizer.empty()) tokenizer.emplace(tokenize::Tokenizer::load(cfg.tokenizer));
    LabelOptions label = cfg.label;
    label.locate_texts = label.locate_texts || tokenizer.has_value();
    label.reason_details = label.reason_details && cfg.list_mismatches;  // else only reason_kind is shown
    for (int i = 0; i < nthreads; ++i) labelers.push_back(std::make_unique<Labeler>(cfg.model, label));
  };
  if (io.blocking) io.blocking(load);
  else load();
  ConvertStats total;
  {
    OrderedRun run(cfg, labelers, tokenizer ? &*tokenizer : nullptr, io);
    total = run.run();
  }
  if (io.blocking) io.blocking([&] { labelers.clear(); });  // templates freed off the calling thread's lock
  return total;
}

ConvertStats run_convert(const ConvertConfig& cfg, std::ostream& err) {
  const auto t0 = Clock::now();
  std::optional<Input> in;
  Output out;
  size_t line_no = 0;
  uint64_t bytes_read = 0;
  std::string first_bad;  // stop_at_first_bad: "IN:LINE: reason" of the first bad row
  ConvertStats so_far;
  auto report = [&](bool done) {
    if (!cfg.on_progress) return;
    ConvertProgress p;
    p.rows = so_far.rows;
    p.bytes = bytes_read;
    p.total_bytes = in ? in->total_bytes : 0;
    p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    p.done = done;
    cfg.on_progress(p);
  };
  // A batch's rows and messages go out in one write each: row by row, each row over the
  // stream's buffer and each `<<` on unbuffered stderr was a system call of its own.
  std::string out_text, err_text;
  auto write_batch = [&] {
    if (!err_text.empty()) err.write(err_text.data(), static_cast<std::streamsize>(err_text.size()));
    if (!out_text.empty()) out.stream->write(out_text.data(), static_cast<std::streamsize>(out_text.size()));
    err_text.clear();
    out_text.clear();
  };
  // How every message and error names a row: IN:LINE.
  auto where = [&](size_t index) { return in->name + ':' + std::to_string(index); };
  RowIo io;
  io.read = [&](RowJob& job) {
    if (!in) {  // opened once the model has loaded: a bad model stops the run before any output
      in.emplace(open_input(cfg));
      out = open_output(cfg);
    }
    if (!std::getline(*in->stream, job.line)) return false;
    ++line_no;
    if (line_no == 1 && job.line.compare(0, 3, "\xEF\xBB\xBF") == 0) job.line.erase(0, 3);  // a UTF-8 BOM
    bytes_read += job.line.size() + 1;
    job.index = line_no;
    return true;
  };
  io.take = [&](RowJob& job) {
    const RowResult& r = job.result;
    if (r.stats.rows == 0) return true;  // a blank line
    if (r.error && cfg.stop_at_first_bad) {
      first_bad = where(job.index) + ": " + r.reason;
      return false;
    }
    auto say = [&](const std::string& text) { (((err_text += where(job.index)) += ": ") += text) += '\n'; };
    if (r.error) say(r.reason);
    for (const auto& n : r.notes) say(n);
    for (const auto& m : r.mismatches) say(m);
    if (out.stream) out_text += r.out;
    add_stats(so_far, r.stats);
    return true;
  };
  io.after_batch = [&] {
    write_batch();
    report(false);
  };
  io.locate = where;
  ConvertStats total = run_convert(cfg, io);
  if (!first_bad.empty()) throw Error(ErrorKind::ValueError, first_bad + " (stopped at the first bad row)");
  // A read that failed (an I/O error, out of memory for a line) ends the input early: the rows
  // after it are not converted, so the run fails and the old output stays.
  if (in->stream->bad())
    throw Error(ErrorKind::OSError,
                in->name + ": read error after line " + std::to_string(line_no) + ": the input was not read to its end");
  if (out.file) {
    if (total.converted > 0) out.file->commit();  // else the old file stays (the temporary is removed)
  } else if (out.stream) {
    out.stream->flush();
    // Worded as every verb's unwritten output (cli/app.cpp output_written).
    if (!*out.stream)
      throw Error(ErrorKind::OSError, std::string("cannot write the output: ") + std::strerror(errno ? errno : EIO));
  }
  total.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  report(true);
  return total;
}

std::string summary_text(const ConvertStats& s) {
  std::ostringstream o;
  char rate[64];
  std::snprintf(rate, sizeof rate, "%.0f", s.seconds > 0 ? static_cast<double>(s.rows) / s.seconds : 0.0);
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", s.seconds);
  o << "convert: " << s.rows << " rows, " << s.converted << " converted";
  if (s.extra_rows) o << " (+" << s.extra_rows << " split rows)";
  o << ", " << s.bad << " bad (skipped); " << s.trained_spans << " train spans; " << secs << " s, " << rate
    << " conversations/s\n";
  if (s.reused)
    o << "reuse: " << s.reused << " of " << (s.rows - s.bad)
      << " conversations took their renders from an earlier one of their shape\n";
  if (s.tokens || s.cut_rows) {
    o << "tokens: " << s.tokens << " input_ids; " << s.straddling
      << " straddle a train boundary (trained); " << s.injection_rows
      << " rows with special-token text in a message (whole-text tokenization differs)";
    if (s.cut_rows) o << "; " << s.cut_rows << " rows cut to --max-length (" << s.dropped_long << " left untrained, dropped)";
    if (s.texts_not_found) o << "; " << s.texts_not_found << " message texts not located (tokenized as template text)";
    o << "\n";
  }
  o << "train=serve: " << s.served << " of " << s.turns << " assistant turns hold";
  if (s.served == s.turns) {
    o << "\n";
    return o.str();
  }
  o << "; " << (s.turns - s.served) << " do not (not trained in their conversation's row";
  if (s.extra_rows) o << "; " << s.extra_rows << " trained in rows of their own";
  o << "):\n";
  for (const auto& [tmpl, reasons] : s.mismatches)
    for (const auto& [r, n] : reasons) o << "  template " << tmpl << ": " << n << " x " << r << "\n";
  return o.str();
}

}  // namespace toolchat::convert
