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

void process_line(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const std::string& line,
                  size_t line_no, Batch& b) {
  std::string_view view(line);
  if (view.find_first_not_of(" \t\r\n") == std::string_view::npos) return;
  ++b.stats.rows;
  std::string where = std::to_string(line_no) + ": ";
  Value row;
  try {
    row = json::parse(view);
  } catch (const Error& e) {
    b.errors.push_back(where + "invalid JSON: " + e.message());
    ++b.stats.bad;
    return;
  }
  Sample sample;
  try {
    sample = read_sample(cfg.format, row);
  } catch (const Error& e) {
    b.errors.push_back(where + e.message());
    ++b.stats.bad;
    return;
  }
  Labeled l;
  try {
    l = labeler.label(sample);
  } catch (const Error& e) {
    b.errors.push_back(where + std::string(error_kind_name(e.kind())) + ": " + e.message());
    ++b.stats.bad;
    return;
  }
  for (const auto& t : l.turns) {
    ++b.stats.turns;
    if (t.served) {
      ++b.stats.served;
      continue;
    }
    ++b.stats.mismatches[l.template_name][reason_kind(t.reason)];
    if (cfg.list_mismatches)
      b.mismatch_lines.push_back(where + "messages[" + std::to_string(t.message) + "] (template " + l.template_name +
                                 "): " + t.reason);
  }
  size_t written = 0;
  for (size_t r = 0; r < l.rows.size(); ++r) {
    std::string json;
    if (tok) {
      TokenRow t = tokenize_row(*tok, l.rows[r], cfg.max_length);
      b.stats.texts_not_found += l.rows[r].texts_not_found;
      if (t.injection) {
        ++b.stats.injection_rows;
        b.errors.push_back(where + (r ? "split row " + std::to_string(r) + ": " : std::string()) +
                           "a message text holds special-token text: kept as text here, read as special tokens by "
                           "a whole-text tokenization (transformers)");
      }
      if (t.cut_tokens) {
        ++b.stats.cut_rows;
        if (!t.trained()) {
          ++b.stats.dropped_long;
          continue;
        }
      }
      b.stats.tokens += t.ids.size();
      b.stats.straddling += t.straddling;
      if (!cfg.output.empty()) json = token_row_json(l.rows[r], t);
    } else if (!cfg.output.empty()) {
      json = row_json(l.rows[r]);
    }
    for (const auto& s : l.rows[r].spans) b.stats.trained_spans += s.train;
    if (!cfg.output.empty()) {
      b.out += json;
      b.out += '\n';
    }
    ++written;
  }
  if (written == 0) return;
  ++b.stats.converted;
  b.stats.extra_rows += written - 1;
}

void add_stats(ConvertStats& into, const ConvertStats& s) {
  into.rows += s.rows;
  into.converted += s.converted;
  into.extra_rows += s.extra_rows;
  into.bad += s.bad;
  into.turns += s.turns;
  into.served += s.served;
  into.trained_spans += s.trained_spans;
  into.tokens += s.tokens;
  into.straddling += s.straddling;
  into.cut_rows += s.cut_rows;
  into.dropped_long += s.dropped_long;
  into.injection_rows += s.injection_rows;
  into.texts_not_found += s.texts_not_found;
  for (const auto& [t, m] : s.mismatches)
    for (const auto& [r, n] : m) into.mismatches[t][r] += n;
}

}  // namespace

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
  const tokenize::Tokenizer* tok = tokenizer ? &*tokenizer : nullptr;

  std::unique_ptr<std::ifstream> infile;
  std::istream* in = &std::cin;
  uint64_t total_bytes = 0;
  if (cfg.input != "-") {
    total_bytes = files::check_readable(cfg.input);
    infile = std::make_unique<std::ifstream>(cfg.input, std::ios::binary);
    if (!*infile) throw Error(ErrorKind::ValueError, cfg.input + ": cannot open file");
    in = infile.get();
  }
  // Refused before anything is written: converting a file onto itself would replace the input.
  if (!cfg.output.empty() && (cfg.input != "-" || cfg.output != "-") && files::same_file(cfg.input, cfg.output))
    throw Error(ErrorKind::ValueError, (cfg.output == "-" ? std::string("standard output") : cfg.output) +
                                           " is the same file as the input " +
                                           (cfg.input == "-" ? std::string("(standard input)") : cfg.input) +
                                           ": choose another output");
  std::unique_ptr<files::AtomicOutput> outfile;
  std::ostream* out = nullptr;
  if (cfg.output == "-") {
    out = &std::cout;
  } else if (!cfg.output.empty()) {
    outfile = std::make_unique<files::AtomicOutput>(cfg.output);
    out = &outfile->stream();
  }
  const std::string in_name = cfg.input == "-" ? "<stdin>" : cfg.input;

  std::mutex mu;
  std::condition_variable work_cv, done_cv;
  std::deque<std::shared_ptr<Batch>> pending, in_order;
  bool closed = false;

  std::vector<std::thread> workers;
  for (int w = 0; w < nthreads; ++w) {
    workers.emplace_back([&, w] {
      for (;;) {
        std::shared_ptr<Batch> b;
        {
          std::unique_lock<std::mutex> lk(mu);
          work_cv.wait(lk, [&] { return closed || !pending.empty(); });
          if (pending.empty()) return;
          b = pending.front();
          pending.pop_front();
        }
        for (size_t i = 0; i < b->lines.size(); ++i) process_line(*labelers[w], cfg, tok, b->lines[i], b->first_line + i, *b);
        b->lines.clear();
        b->lines.shrink_to_fit();
        {
          std::lock_guard<std::mutex> lk(mu);
          b->done = true;
        }
        done_cv.notify_all();
      }
    });
  }

  ConvertStats total;
  uint64_t bytes_read = 0;
  auto report = [&](bool done) {
    if (!cfg.on_progress) return;
    ConvertProgress p;
    p.rows = total.rows;
    p.bytes = bytes_read;
    p.total_bytes = total_bytes;
    p.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    p.done = done;
    cfg.on_progress(p);
  };
  std::string first_bad;  // stop_at_first_bad: "IN:LINE: reason" of the first bad row
  bool stop = false;
  // Writes every finished batch at the front; with `wait`, blocks until the front one is done.
  auto drain = [&](std::unique_lock<std::mutex>& lk, bool wait) {
    for (;;) {
      if (in_order.empty()) return;
      if (!in_order.front()->done) {
        if (!wait) return;
        done_cv.wait(lk, [&] { return in_order.front()->done; });
      }
      std::shared_ptr<Batch> b = in_order.front();
      in_order.pop_front();
      lk.unlock();
      if (stop) {  // after the first bad row nothing more is written
        lk.lock();
        continue;
      }
      if (cfg.stop_at_first_bad && !b->errors.empty()) {
        first_bad = in_name + ':' + b->errors.front();
        stop = true;
        lk.lock();
        continue;
      }
      for (const auto& e : b->errors) err << in_name << ':' << e << '\n';
      for (const auto& m : b->mismatch_lines) err << in_name << ':' << m << '\n';
      if (out && !b->out.empty()) out->write(b->out.data(), static_cast<std::streamsize>(b->out.size()));
      add_stats(total, b->stats);
      report(false);
      lk.lock();
    }
  };

  const size_t max_in_flight = static_cast<size_t>(nthreads) * 4;
  size_t line_no = 0;
  std::string line;
  auto batch = std::make_shared<Batch>();
  batch->first_line = 1;
  auto submit = [&] {
    std::unique_lock<std::mutex> lk(mu);
    while (in_order.size() >= max_in_flight) drain(lk, true);
    pending.push_back(batch);
    in_order.push_back(batch);
    work_cv.notify_one();
    drain(lk, false);
    batch = std::make_shared<Batch>();
    batch->first_line = line_no + 1;
  };
  while (!stop && std::getline(*in, line)) {
    ++line_no;
    if (line_no == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 BOM
    bytes_read += line.size() + 1;
    batch->lines.push_back(std::move(line));
    line.clear();
    if (batch->lines.size() >= cfg.batch_rows) submit();
  }
  if (in->bad()) err << in_name << ": read error after line " << line_no << '\n';
  if (!stop && !batch->lines.empty()) submit();
  {
    std::unique_lock<std::mutex> lk(mu);
    closed = true;
    work_cv.notify_all();
    drain(lk, true);
  }
  for (auto& t : workers) t.join();
  if (stop) throw Error(ErrorKind::ValueError, first_bad + " (stopped at the first bad row)");
  if (outfile) {
    if (total.converted > 0) outfile->commit();  // else the old file stays (the temporary is removed)
  } else if (out) {
    out->flush();
    if (!*out) throw Error(ErrorKind::ValueError, "<stdout>: write error");
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
