#!/bin/sh
# Stand-in for the toolchat CLI that forwards to the Python oracle, so run.py can be
# validated before the engine exists (0 mismatches expected).
#   oracle_as_toolchat.sh render --batch FILE --now ISO
# Oracle path: $FUZZ_ORACLE, else <repo>/tests/oracle/hf_render.py.
if [ "$1" != "render" ]; then
  echo "usage: $0 render --batch FILE --now ISO" >&2
  exit 2
fi
shift
here=$(cd "$(dirname "$0")" && pwd)
oracle=${FUZZ_ORACLE:-$here/../../tests/oracle/hf_render.py}
exec python3 "$oracle" "$@"
