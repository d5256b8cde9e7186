#!/usr/bin/env bash
# Builds llama.cpp's common library from the snapshot (tests/e2e/build_llama_server.sh, target
# llama-common, into $LLAMA_BUILD, default build-llama), then bench/llama_compare.cpp against it in
# $BENCH_BUILD (default build-bench), and runs it: the speed and accuracy tables go to stdout and to
# bench/out/llama_compare.md. Extra arguments go to llama_compare (--all, --only FAMILY).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
llama_build=${LLAMA_BUILD:-build-llama}
bench_build=${BENCH_BUILD:-build-bench}
jobs=${JOBS:-2}
server=$(LLAMA_TARGET=llama-common JOBS=$jobs bash tests/e2e/build_llama_server.sh "$llama_build")
llama_src=$(cd "$(dirname "$server")/../.." && pwd)
cmake -S . -B "$bench_build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTOOLCHAT_BENCH=ON -DBUILD_TESTING=OFF \
  -DLLAMA_CPP_DIR="$llama_src" >&2
cmake --build "$bench_build" -j "$jobs" --target llama_compare >&2
mkdir -p bench/out
"$bench_build/bench/llama_compare" --markdown bench/out/llama_compare.md "$@"
