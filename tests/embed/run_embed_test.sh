#!/usr/bin/env bash
# examples/embed built the way a user builds it, then run and checked:
#   --mode installed   toolchat installed into a fresh prefix (cmake --install), the example
#                      configured against that prefix alone (find_package), and compiled once more
#                      with nothing but `pkg-config --cflags --libs toolchat`;
#   --mode subdir      the example pulling toolchat's sources in with add_subdirectory().
# The prompt must equal tests/embed/expected_prompt.txt (rendered by the Jinja2 oracle,
# tests/oracle/hf_render.py, from tests/embed/conversation.json, the same conversation main.cpp
# builds) and the sample answer must parse into the one call it holds.
set -euo pipefail

mode="" src="" build="" work="" build_type="" launcher="" sanitize="" generator="Ninja" cxx="c++"
while [ $# -gt 0 ]; do
  case "$1" in
    --mode) mode="$2"; shift 2 ;;
    --source) src="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --build-type) build_type="$2"; shift 2 ;;
    --launcher) launcher="$2"; shift 2 ;;
    --sanitize) sanitize="$2"; shift 2 ;;
    --generator) generator="$2"; shift 2 ;;
    --cxx) cxx="$2"; shift 2 ;;
    *) echo "run_embed_test: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$mode" ] && [ -n "$src" ] && [ -n "$work" ] || { echo "usage: --mode installed|subdir --source DIR --work DIR [--build DIR]" >&2; exit 2; }

rm -rf "$work"
mkdir -p "$work"
common=(-G "$generator" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
# No build type by default: no optimization, the quickest build of the libraries in subdir mode.
[ -n "$build_type" ] && common+=(-DCMAKE_BUILD_TYPE="$build_type")
[ -n "$launcher" ] && common+=(-DCMAKE_CXX_COMPILER_LAUNCHER="$launcher")
san_flags=""
if [ "$sanitize" = ON ]; then
  san_flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
fi

check_output() {  # $1: the program's stdout file
  local out="$1" fail=0
  # The text between the markers, byte for byte (the prompt ends with a newline of its own).
  python3 - "$out" "$src/tests/embed/expected_prompt.txt" <<'PY' || fail=1
import sys
out = open(sys.argv[1], encoding="utf-8").read()
want = open(sys.argv[2], encoding="utf-8").read()
begin, end = "--- prompt ---\n", "\n--- end prompt ---\n"
if begin not in out or end not in out:
    sys.exit("embed: no prompt markers in the output")
got = out[out.index(begin) + len(begin):out.index(end)]
if got != want:
    import difflib
    sys.stdout.writelines(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "oracle", "embed"))
    sys.exit("embed: the prompt differs from the oracle's")
PY
  local calls
  calls=$(grep -E '^(call|warning|dialect|content)' "$out" || true)
  # vLLM's hermes parser keeps the text before <tool_call> as is, its newline included.
  local want_calls='dialect: hermes
content: "I'"'"'ll look that up.\n"
call 0: get_weather {"city": "Paris", "unit": "celsius"}'
  if [ "$calls" != "$want_calls" ]; then
    echo "embed: parsed answer differs"; echo "--- expected"; echo "$want_calls"; echo "--- got"; echo "$calls"; fail=1
  fi
  return $fail
}

if [ "$mode" = installed ]; then
  [ -n "$build" ] || { echo "--mode installed needs --build" >&2; exit 2; }
  prefix="$work/prefix"
  cmake --install "$build" --prefix "$prefix" >"$work/install.log"
  # Configured against the prefix alone: no package registry, no source tree.
  cmake -S "$src/examples/embed" -B "$work/build" "${common[@]}" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
        -DCMAKE_CXX_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" >"$work/configure.log"
  cmake --build "$work/build" -j "${JOBS:-2}" >"$work/build.log" || { cat "$work/build.log"; exit 1; }
  if grep -q -e "$src/include" -e "$src/src" "$work/build/compile_commands.json"; then
    echo "embed: the installed build still includes from the source tree:"; cat "$work/build/compile_commands.json"; exit 1
  fi
  "$work/build/embed" "$src/examples/qwen2.5" >"$work/out.txt"
  check_output "$work/out.txt"

  # The same program from toolchat.pc alone.
  export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib64/pkgconfig:$prefix/share/pkgconfig"
  pc_libdir=$(ls -d "$prefix"/lib*/pkgconfig | head -1)
  [ -f "$pc_libdir/toolchat.pc" ] || { echo "embed: no toolchat.pc installed"; exit 1; }
  # shellcheck disable=SC2046
  ${launcher:+$launcher} "$cxx" $san_flags -o "$work/embed_pc" "$src/examples/embed/main.cpp" \
      $(pkg-config --cflags --libs toolchat)
  "$work/embed_pc" "$src/examples/qwen2.5" >"$work/out_pc.txt"
  check_output "$work/out_pc.txt"
  echo "embed (installed prefix + pkg-config): ok"
elif [ "$mode" = subdir ]; then
  san=()
  [ "$sanitize" = ON ] && san=(-DTOOLCHAT_SANITIZE=ON)
  cmake -S "$src/examples/embed" -B "$work/build" "${common[@]}" "${san[@]}" \
        -DTOOLCHAT_SOURCE_DIR="$src" >"$work/configure.log" || { cat "$work/configure.log"; exit 1; }
  if grep -q "is skipped" "$work/configure.log"; then
    echo "embed: a layer was skipped under add_subdirectory:"; cat "$work/configure.log"; exit 1
  fi
  cmake --build "$work/build" -j "${JOBS:-2}" --target embed >"$work/build.log" || { tail -50 "$work/build.log"; exit 1; }
  "$work/build/embed" "$src/examples/qwen2.5" >"$work/out.txt"
  check_output "$work/out.txt"
  echo "embed (add_subdirectory): ok"
else
  echo "run_embed_test: --mode is installed or subdir" >&2; exit 2
fi
