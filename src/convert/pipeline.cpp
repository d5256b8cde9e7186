// The streaming, multi-threaded conversion loop. The main thread reads lines into batches and
// writes finished batches in input order; workers parse, label and serialise. At most a few
// batches per worker are in flight, so memory stays bounded whatever the input size.
#include "convert/pipeline.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "convert/token_rows.hpp"
#include "value/files.hpp"
#include "value/json.hpp"

namespace toolchat::convert {

namespace {

using Clock = std::chrono::steady_clock;

struct Batch {
  size_t first_line = 0;             // 1-based line number of lines[0]
  std::vector<std::string> lines;    // raw lines (blank ones included, to keep numbering)
  std::string out;                   // serialised rows
  std::vector<std::string> errors;   // "LINE: reason"
  std::vector<std::string> mismatch_lines;
  ConvertStats stats;                // this batch's counts
  bool done = false;
};

// The counters, listed once: batches add up through this list.
constexpr size_t ConvertStats::*kCounters[] = {
    &ConvertStats::rows,   &ConvertStats::converted,  &ConvertStats::extra_rows,     &ConvertStats::bad,
    &ConvertStats::turns,  &ConvertStats::served,     &ConvertStats::trained_spans,  &ConvertStats::reused, &ConvertStats::tokens,
    &ConvertStats::straddling, &ConvertStats::cut_rows, &ConvertStats::dropped_long, &ConvertStats::injection_rows,
    &ConvertStats::texts_not_found};

}  // namespace

void add_stats(ConvertStats& into, const ConvertStats& s) {
  for (auto counter : kCounters) into.*counter += s.*counter;
  for (const auto& [t, m] : s.mismatches)
    for (const auto& [r, n] : m) into.mismatches[t][r] += n;
}

namespace {

void process_line(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const std::string& line,
                  size_t line_no, Batch& b) {
  RowResult r;
  convert_line(labeler, cfg, tok, line, r);
  if (r.stats.rows == 0) return;  // a blank line
  std::string where = std::to_string(line_no) + ": ";
  if (r.error) b.errors.push_back(where + r.reason);
  for (const auto& n : r.notes) b.errors.push_back(where + n);
  for (const auto& m : r.mismatches) b.mismatch_lines.push_back(where + m);
  for (const auto& o : r.out) {
    b.out += o;
    b.out += '\n';
  }
  add_stats(b.stats, r.stats);
}

// The input: a file (its size known, for progress) or stdin.
struct Input {
  std::unique_ptr<std::ifstream> file;
  std::istream* stream = &std::cin;
  uint64_t total_bytes = 0;
  std::string name = "<stdin>";
};

Input open_input(const ConvertConfig& cfg) {
  Input in;
  if (cfg.input == "-") return in;
  in.total_bytes = files::check_readable(cfg.input);
  in.file = std::make_unique<std::ifstream>(cfg.input, std::ios::binary);
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

// Workers label batches; the calling thread writes finished batches in input order, adds up
// their counts and reports progress. At most max_in_flight batches are read ahead.
class OrderedRun {
 public:
  OrderedRun(const ConvertConfig& cfg, std::vector<std::unique_ptr<Labeler>>& labelers, const tokenize::Tokenizer* tok,
             const Input& in, std::ostream* out, std::ostream& err, Clock::time_point t0)
      : cfg_(cfg), in_(in), out_(out), err_(err), t0_(t0), max_in_flight_(labelers.size() * 4) {
    for (size_t w = 0; w < labelers.size(); ++w)
      workers_.emplace_back([this, &labeler = *labelers[w], tok] { work(labeler, tok); });
  }

  // Queues a batch, writing what is done meanwhile.
  void submit(std::shared_ptr<Batch> batch) {
    std::unique_lock<std::mutex> lk(mu_);
    while (in_order_.size() >= max_in_flight_) drain(lk, true);
    pending_.push_back(batch);
    in_order_.push_back(std::move(batch));
    work_cv_.notify_one();
    drain(lk, false);
  }

  // True once a bad row stopped the run (stop_at_first_bad): nothing more is read.
  bool stopped() const { return stop_; }
  void set_bytes_read(uint64_t bytes) { bytes_read_ = bytes; }

  // Waits for every batch and writes it; throws the first bad row under stop_at_first_bad.
  ConvertStats finish() {
    {
      std::unique_lock<std::mutex> lk(mu_);
      closed_ = true;
      work_cv_.notify_all();
      drain(lk, true);
    }
    for (auto& t : workers_) t.join();
    workers_.clear();
    if (stop_) throw Error(ErrorKind::ValueError, first_bad_ + " (stopped at the first bad row)");
    return total_;
  }

  void report(bool done) {
    if (!cfg_.on_progress) return;
    ConvertProgress p;
    p.rows = total_.rows;
    p.bytes = bytes_read_;
    p.total_bytes = in_.total_bytes;
    p.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    p.done = done;
    cfg_.on_progress(p);
  }

  ~OrderedRun() {
    if (workers_.empty()) return;
    {
      std::lock_guard<std::mutex> lk(mu_);
      closed_ = true;
      pending_.clear();
    }
    work_cv_.notify_all();
    for (auto& t : workers_) t.join();
  }


 private:
  void work(Labeler& labeler, const tokenize::Tokenizer* tok) {
    for (;;) {
      std::shared_ptr<Batch> b;
      {
        std::unique_lock<std::mutex> lk(mu_);
        work_cv_.wait(lk, [&] { return closed_ || !pending_.empty(); });
        if (pending_.empty()) return;
        b = pending_.front();
        pending_.pop_front();
      }
      for (size_t i = 0; i < b->lines.size(); ++i) process_line(labeler, cfg_, tok, b->lines[i], b->first_line + i, *b);
      b->lines.clear();
      b->lines.shrink_to_fit();
      {
        std::lock_guard<std::mutex> lk(mu_);
        b->done = true;
      }
      done_cv_.notify_all();
    }
  }

  // Writes every finished batch at the front; with `wait`, blocks until the front one is done.
  void drain(std::unique_lock<std::mutex>& lk, bool wait) {
    while (!in_order_.empty()) {
      if (!in_order_.front()->done) {
        if (!wait) return;
        done_cv_.wait(lk, [&] { return in_order_.front()->done; });
      }
      std::shared_ptr<Batch> b = in_order_.front();
      in_order_.pop_front();
      lk.unlock();
      write(*b);
      lk.lock();
    }
  }

  void write(const Batch& b) {
    if (stop_) return;  // after the first bad row nothing more is written
    if (cfg_.stop_at_first_bad && !b.errors.empty()) {
      first_bad_ = in_.name + ':' + b.errors.front();
      stop_ = true;
      return;
    }
    for (const auto& e : b.errors) err_ << in_.name << ':' << e << '\n';
    for (const auto& m : b.mismatch_lines) err_ << in_.name << ':' << m << '\n';
    if (out_ && !b.out.empty()) out_->write(b.out.data(), static_cast<std::streamsize>(b.out.size()));
    add_stats(total_, b.stats);
    report(false);
  }

  const ConvertConfig& cfg_;
  const Input& in_;
  std::ostream* out_;
  std::ostream& err_;
  const Clock::time_point t0_;
  const size_t max_in_flight_;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::shared_ptr<Batch>> pending_, in_order_;
  bool closed_ = false;
  std::vector<std::thread> workers_;
  ConvertStats total_;
  std::string first_bad_;  // stop_at_first_bad: "IN:LINE: reason" of the first bad row
  bool stop_ = false;      // read by the calling thread only (drain runs there)
  uint64_t bytes_read_ = 0;
};

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
    bad(e, e.message());
    return;
  }
  Labeled l;
  try {
    l = labeler.label(sample);
  } catch (const Error& e) {
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
    std::string json;
    if (tok) {
      TokenRow t = tokenize_row(*tok, l.rows[i], cfg.max_length);
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
      if (cfg.rows_as_values) r.values.push_back(token_row_value(l.rows[i], t));
      else if (!cfg.output.empty()) json = token_row_json(l.rows[i], t);
    } else if (cfg.rows_as_values) {
      r.values.push_back(row_value(l.rows[i]));
    } else if (!cfg.output.empty()) {
      json = row_json(l.rows[i]);
    }
    for (const auto& s : l.rows[i].spans) r.stats.trained_spans += s.train;
    if (!cfg.output.empty() && !cfg.rows_as_values) r.out.push_back(std::move(json));
    ++written;
  }
  if (written == 0) return;
  ++r.stats.converted;
  r.stats.extra_rows += written - 1;
}

void convert_line(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, std::string_view line,
                  RowResult& r) {
  if (line.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  Value row;
  try {
    row = json::parse(line);
  } catch (const Error& e) {
    ++r.stats.rows;
    ++r.stats.bad;
    r.error = e;
    r.reason = "invalid JSON: " + e.message();
    return;
  }
  convert_row(labeler, cfg, tok, row, r);
}

std::string reason_kind(const std::string& reason) {
  size_t cut = reason.size();
  for (const char* marker : {", at char", " at char", " (", ", "}) {
    size_t p = reason.find(marker);
    if (p != std::string::npos && p < cut) cut = p;
  }
  return reason.substr(0, cut);
}

ConvertStats run_convert(const ConvertConfig& cfg, std::ostream& err) {
  const auto t0 = Clock::now();
  const int nthreads = std::max(1, cfg.threads);
  // One labeler per worker, loaded here so that a bad model stops the run before any output.
  std::optional<tokenize::Tokenizer> tokenizer;
  if (!cfg.tokenizer.empty()) tokenizer.emplace(tokenize::Tokenizer::load(cfg.tokenizer));
  LabelOptions label = cfg.label;
  label.locate_texts = label.locate_texts || tokenizer.has_value();
  std::vector<std::unique_ptr<Labeler>> labelers;
  for (int i = 0; i < nthreads; ++i) labelers.push_back(std::make_unique<Labeler>(cfg.model, label));

  Input in = open_input(cfg);
  Output out = open_output(cfg);
  OrderedRun run(cfg, labelers, tokenizer ? &*tokenizer : nullptr, in, out.stream, err, t0);
  size_t line_no = 0;
  uint64_t bytes_read = 0;
  std::string line;
  auto batch = std::make_shared<Batch>();
  batch->first_line = 1;
  while (!run.stopped() && std::getline(*in.stream, line)) {
    ++line_no;
    if (line_no == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 BOM
    bytes_read += line.size() + 1;
    run.set_bytes_read(bytes_read);
    batch->lines.push_back(std::move(line));
    line.clear();
    if (batch->lines.size() < cfg.batch_rows) continue;
    run.submit(std::exchange(batch, std::make_shared<Batch>()));
    batch->first_line = line_no + 1;
  }
  if (in.stream->bad()) err << in.name << ": read error after line " << line_no << '\n';
  if (!run.stopped() && !batch->lines.empty()) run.submit(batch);
  ConvertStats total = run.finish();
  if (out.file) {
    if (total.converted > 0) out.file->commit();  // else the old file stays (the temporary is removed)
  } else if (out.stream) {
    out.stream->flush();
    if (!*out.stream) throw Error(ErrorKind::ValueError, "<stdout>: write error");
  }
  total.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  run.report(true);
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
