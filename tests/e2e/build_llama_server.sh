#!/usr/bin/env bash
# Builds llama-server from the llama.cpp snapshot tarball beside the repository (../shared/third_party),
# once, into the directory given as $1 (default build-e2e). Prints the binary's path on stdout.
# Exit 0 with the path; exit 3 when there is no snapshot (the caller skips); other codes are build failures.
set -euo pipefail
out=${1:-build-e2e}
jobs=${JOBS:-2}
root=$(cd "$(dirname "$0")/../.." && pwd)
shopt -s nullglob
# LLAMA_CPP_SNAPSHOT names the tarball when the checkout has no ../shared beside it (a git worktree).
if [ -n "${LLAMA_CPP_SNAPSHOT:-}" ]; then
  tarballs=("$LLAMA_CPP_SNAPSHOT")
else
  tarballs=("$root"/../shared/third_party/llama.cpp-*.tar.gz)
fi
if [ ${#tarballs[@]} -eq 0 ] || [ ! -f "${tarballs[-1]}" ]; then
  echo "e2e: no llama.cpp snapshot (looked for ${LLAMA_CPP_SNAPSHOT:-$root/../shared/third_party/llama.cpp-*.tar.gz})" >&2
  exit 3
fi
tarball=${tarballs[-1]}
name=$(basename "$tarball" .tar.gz)
mkdir -p "$out"
src="$out/$name"
bin="$src/build/bin/llama-server"
if [ ! -f "$src/.extracted" ]; then
  rm -rf "$src" "$out/llama.cpp"
  tar xzf "$tarball" -C "$out"
  # The archive unpacks to llama.cpp/; keep one directory per snapshot so a new tarball rebuilds.
  mv "$out/llama.cpp" "$src"
  touch "$src/.extracted"
fi
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# The snapshot is not a git checkout: without a ceiling, llama.cpp's CMake would ask git and get
# the commit of the repository around build-e2e/, compile it into every object, and so miss the
# compiler cache after each of our commits. The commit comes from the tarball's name instead.
export GIT_CEILING_DIRECTORIES=$(cd "$out" && pwd)
commit=${name#llama.cpp-}
if [ ! -f "$src/build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$src/build" "${generator[@]}" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_BUILD_COMMIT="$commit" -DLLAMA_BUILD_NUMBER=0 \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=ON -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF >&2
fi
# LLAMA_TARGET: another target of the same build (bench/llama_compare.sh builds llama-common).
cmake --build "$src/build" -j "$jobs" --target "${LLAMA_TARGET:-llama-server}" >&2
echo "$bin"
