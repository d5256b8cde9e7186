// `toolchat convert` as a library call: JSON lines in, JSON lines out, streamed, over N threads
// with the output in input order. A bad row (bad JSON, wrong shape, a template that raises on
// it) is reported with its line number and JSON path, skipped and counted; it stops the run only
// with stop_at_first_bad. Each thread owns a Labeler (templates compiled per thread: rendering is
// single-threaded).
// The output file is written beside its path and renamed over it at the end (files::AtomicOutput):
// a failed or interrupted run leaves the old file, never a partial one. The library draws nothing:
// progress goes to a callback, row errors to the given stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "convert/formats.hpp"
#include "convert/labeler.hpp"
#include "toolchat/tokenize.hpp"

namespace toolchat::convert {

struct ConvertProgress {
  size_t rows = 0;           // rows read and written so far
  uint64_t bytes = 0;        // input bytes consumed
  uint64_t total_bytes = 0;  // input size when known (a regular file), else 0
  double seconds = 0;        // since the run started
  bool done = false;         // the last call
};

struct ConvertConfig {
  Format format = Format::openai;
  std::string model;
  std::string input = "-";   // "-": stdin
  std::string output = "-";  // "-": stdout; "" writes nothing (check only)
  LabelOptions label;
  int threads = 2;
  bool list_mismatches = false;  // one `err` line per assistant turn that is not served
  bool stop_at_first_bad = false;  // the first bad row (in input order) stops the run: Error, no output
  size_t batch_rows = 64;
  // With a tokenizer (tokenizer.json, a folder holding one, or a .gguf): input_ids and labels in
  // every row (convert/token_rows.hpp); max_length > 0 cuts longer rows to their first N tokens.
  std::string tokenizer;
  size_t max_length = 0;
  // convert_row: each output row as its parts (RowResult::parts) instead of a JSON line.
  bool rows_as_parts = false;
  // Called on the calling thread after each batch of rows is written (and once at the end).
  std::function<void(const ConvertProgress&)> on_progress;
};

struct ConvertStats {
  size_t rows = 0;          // non-blank input lines
  size_t converted = 0;     // rows written
  size_t extra_rows = 0;    // split rows written (split_rewritten)
  size_t bad = 0;           // rows skipped
  size_t turns = 0;         // assistant turns
  size_t served = 0;        // ... where train = serve holds
  size_t trained_spans = 0; // train spans written
  size_t reused = 0;        // conversations whose renders came from an earlier one of their shape
  // template name -> reason (without the position details) -> count, for turns not served
  std::map<std::string, std::map<std::string, size_t>> mismatches;
  // With a tokenizer:
  size_t tokens = 0;            // input_ids written
  size_t straddling = 0;        // tokens over a train / no-train boundary (trained)
  size_t cut_rows = 0;          // rows cut to max_length
  size_t dropped_long = 0;      // rows left with no trained token by the cut (not written)
  size_t injection_rows = 0;    // rows whose whole-text tokenization differs (special-token text in a message)
  size_t texts_not_found = 0;   // message texts not located (tokenized with special tokens recognised)
  double seconds = 0;
};

// Runs a conversion; row errors go to `err` as "IN:LINE: reason". Throws Error for what stops
// the whole run: no model, unreadable input, unwritable output, an output that is the input file
// (same device and inode: through links too), the first bad row with stop_at_first_bad. The output
// replaces cfg.output only when at least one row converted (else the path is left untouched).
ConvertStats run_convert(const ConvertConfig& cfg, std::ostream& err);

// An output row as what its JSON line holds, for callers that build objects of their own (the
// Python module's dicts): the row, its spans in code points (span_chars), its tokens.
struct RowParts {
  Row row;
  std::vector<std::pair<size_t, size_t>> span_chars;
  bool tokens = false;  // with a tokenizer: input_ids and labels
  std::vector<uint32_t> ids;
  std::vector<int64_t> labels;
};

// One row as run_convert converts each line: parsed (convert_line; a blank line is no row: its
// stats stay 0), read in the format, labeled and, with a tokenizer, tokenized. What run_convert
// reports for the row after "IN:LINE: " is in `reason` (a bad row), `notes` and `mismatches`.
// Used by run_convert's workers (for the CLI and the Python module's convert_rows): one rule for
// a row. A RowResult is reused from row to row (clear keeps its buffers).
struct RowResult {
  std::string out;                      // the output rows as JSON lines, each ending in '\n' (none when cfg.output is "")
  std::vector<RowParts> parts;          // ... or as parts (cfg.rows_as_parts)
  std::optional<Error> error;           // the row is bad (skipped)
  std::string reason;                   // ... why, as reported: "invalid JSON: ...", "PATH: ...", "Kind: ..."
  std::vector<std::string> notes;       // a converted row's warnings (special-token text in a message)
  std::vector<std::string> mismatches;  // with list_mismatches: "messages[I] (template T): reason"
  ConvertStats stats;                   // this row's counts (seconds unset)
  void clear();
};
void convert_line(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, std::string_view line,
                  RowResult& r);
void convert_row(Labeler& labeler, const ConvertConfig& cfg, const tokenize::Tokenizer* tok, const Value& row,
                 RowResult& r);

// A row on its way through run_convert: given by `RowIo::read`, converted by a worker, handed to
// `RowIo::take` in input order. Jobs are reused: read sees one cleared (line empty, no row).
struct RowJob {
  size_t index = 0;   // the caller's number for the row (the CLI: its line number)
  std::string line;   // a JSON line, parsed by the worker as convert_line does ...
  Value row;          // ... or, with has_row, a row given as a Value (freed by the worker)
  bool has_row = false;
  RowResult result;
};

// Where run_convert's rows come from and go: the CLI's files, or the Python module's iterables
// and lists. read and take run on the calling thread, never under a lock; workers convert meanwhile.
struct RowIo {
  std::function<bool(RowJob&)> read;  // fills the next job; false: no more rows
  std::function<bool(RowJob&)> take;  // a converted job, in input order; false stops the run (nothing more is read or taken)
  std::function<void()> after_batch;  // optional: after each batch is taken (progress)
  // Optional: how an error that stops the run names its row ("FILE:LINE", "rows[3]"); else "row N".
  std::function<std::string(size_t index)> locate;
  // Optional: runs `f`, which blocks (waiting for a worker; loading the model), e.g. with the GIL released.
  std::function<void(const std::function<void()>& f)> blocking;
};

// The run itself: loads the tokenizer and one labeler per thread (throws Error for a bad model
// before any row is read), then reads, converts over cfg.threads workers and takes rows in input
// order, at most 4 batches of cfg.batch_rows per worker in flight (bounded memory). Returns the
// counts of the rows taken (seconds unset). cfg.input/output/on_progress are not used here.
ConvertStats run_convert(const ConvertConfig& cfg, const RowIo& io);

// Adds a row's (or a batch's) counts to a total.
void add_stats(ConvertStats& into, const ConvertStats& s);

// The closing summary: counts, speed and the train = serve line(s), for people.
std::string summary_text(const ConvertStats& s);

// A mismatch reason without its position details ("... , at char 12: 'x' vs 'y'" dropped), so
// that reasons group in the summary.
std::string reason_kind(const std::string& reason);

}  // namespace toolchat::convert
