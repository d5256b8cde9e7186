#!/usr/bin/env bash
# `make bench` entry: bench/run.sh [BUILD_DIR]   (or TOOLCHAT_BUILD_DIR=...; default build/)
#   1. installs the JS peers (bench/peers/install.sh; offline when already installed)
#   2. writes bench/out/pairs.jsonl + expected.jsonl from tests/corpus (bench/make_pairs.py)
#   3. compares rendering and compiling: BUILD_DIR/toolchat against Jinja2 (the oracle's
#      environment), @huggingface/jinja and minijinja-js (bench/compare.py), writing
#      bench/out/render_compare.{md,json}
#   4. runs every Google Benchmark binary BUILD_DIR/bench/bench_* (JSON copies in bench/out/)
#   5. times `toolchat convert` on 100,000 conversations made from the corpus contexts next to the
#      oracle's rendering of the same rows (bench/convert_bench.py -> bench/out/convert_bench.md);
#      BENCH_CONVERT_ROWS / BENCH_CONVERT_ORACLE_ROWS / BENCH_CONVERT_JINJA2_ROWS change the counts,
#      BENCH_CONVERT_ROUNDS the rounds (default 3; each side its fastest round)
#   6. times tokenizer loading and encoding against Hugging Face tokenizers (bench/tokenize_bench.py ->
#      bench/out/tokenize_load.md, bench/out/tokenize.md; GGUF load rows when make e2e wrote build-e2e/models)
#   7. times the Python module (Debian's /usr/bin/python3): Template.apply against Jinja2 compiled
#      once, convert_rows against the CLI (bench/python_bench.py -> bench/out/python.md)
#   8. measures the gateway's overhead with wrk (bench/gateway.sh, bench/out/gateway.md)
# Environment: BENCH_REPEAT (warm renders per pair, default 50), BENCH_BUDGET_MS (per-pair render
# time cap for the peers, default 40), BENCH_ROUNDS (alternating passes of the render comparison,
# default 3; per pair the fastest of them, or the middle one with BENCH_COMBINE=median), BENCH_PEERS (subset, e.g. "jinja2,minijinja"),
# BENCH_GBENCH_ARGS (extra Google Benchmark flags), TOOLCHAT_CORPUS / TOOLCHAT_ORACLE (override
# tests/corpus and tests/oracle/hf_render.py).
# Exits non-zero when a step fails (a missing toolchat binary is not a failure: peers only).
set -uo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
PY="${PYTHON:-python3}"
mkdir -p "$OUT"
status=0
fail() { echo "bench: FAILED: $*" >&2; status=1; }

echo "== bench: peers" >&2
peers="${BENCH_PEERS:-jinja2,hf-jinja,minijinja}"
if ! bash "$HERE/peers/install.sh"; then
  fail "JS peers could not be installed; comparing with Jinja2 only"
  peers="$(echo "$peers" | tr ',' '\n' | grep -x jinja2 | paste -sd, -)"
fi

echo "== bench: pairs" >&2
if ! "$PY" "$HERE/make_pairs.py" --out "$OUT/pairs.jsonl"; then
  fail "make_pairs.py"
  exit 1
fi

echo "== bench: render/compile comparison" >&2
"$PY" "$HERE/compare.py" --ours "$BUILD_DIR/toolchat" --pairs "$OUT/pairs.jsonl" --out-dir "$OUT" --peers "$peers" \
  || fail "compare.py"

shopt -s nullglob
gbench=("$BUILD_DIR"/bench/bench_*)
if [ ${#gbench[@]} -gt 0 ]; then
  for b in "${gbench[@]}"; do
    [ -f "$b" ] && [ -x "$b" ] || continue
    name="$(basename "$b")"
    echo "== bench: $name" >&2
    # shellcheck disable=SC2086
    (cd "$ROOT" && "$b" --benchmark_out="$OUT/$name.json" --benchmark_out_format=json ${BENCH_GBENCH_ARGS:-}) \
      || fail "$name"
  done
else
  echo "== bench: no Google Benchmark binaries in $BUILD_DIR/bench/" >&2
fi

if [ -x "$BUILD_DIR/toolchat" ]; then
  echo "== bench: convert" >&2
  "$PY" "$HERE/convert_bench.py" --ours "$BUILD_DIR/toolchat" --out-dir "$OUT" || fail "convert_bench.py"
fi

if [ -x "$BUILD_DIR/bench/tokenize_encode" ]; then
  echo "== bench: tokenizer load and encode vs Hugging Face tokenizers" >&2
  "$PY" "$HERE/tokenize_bench.py" --ours "$BUILD_DIR/bench/tokenize_encode" --out-dir "$OUT" \
    || fail "tokenize_bench.py"
fi

if [ -d "$BUILD_DIR/python-lib/toolchat" ] && [ -x "$BUILD_DIR/toolchat" ]; then
  echo "== bench: Python module vs Jinja2 and the CLI" >&2
  PYTHONPATH="$BUILD_DIR/python-lib" /usr/bin/python3 "$HERE/python_bench.py" --toolchat "$BUILD_DIR/toolchat" \
    --out "$OUT/python.md" || fail "python_bench.py"
fi

echo "== bench: gateway overhead (wrk)" >&2
bash "$HERE/gateway.sh" "$BUILD_DIR" || fail "gateway.sh"

exit $status
