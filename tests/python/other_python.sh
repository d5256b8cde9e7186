#!/usr/bin/env bash
# The module's tests with the `python3` first on PATH, when it is another interpreter than the one
# the module is built for (argument 1). Exit 77 (skipped) with the reason when that cannot be done:
# it is the same interpreter, its ABI differs from the build's (CMake builds the module for one
# interpreter; build another tree with -DTOOLCHAT_MODULE_PYTHON=$(command -v python3) for it), or
# it has no pytest (the pyenv python3 here has none, and PyPI is out of reach): then the corpus
# check (smoke_corpus.py, standard library only) runs with it instead of pytest.
# Environment: PYTHONPATH (the built module), TOOLCHAT_CLI.
set -euo pipefail
built_for=$1
other=$(command -v python3 || true)
if [ -z "$other" ]; then echo "skipped: no python3 on PATH"; exit 77; fi
if [ "$(readlink -f "$other")" = "$(readlink -f "$built_for")" ] ||
   [ "$("$other" -c 'import sys; print(sys.executable)')" = "$("$built_for" -c 'import sys; print(sys.executable)')" ]; then
  echo "skipped: python3 on PATH is $built_for, which the python_module test runs"; exit 77
fi
abi() { "$1" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))'; }
if [ "$(abi "$other")" != "$(abi "$built_for")" ]; then
  echo "skipped: python3 on PATH ($other, $(abi "$other")) has another ABI than the build's ($built_for, $(abi "$built_for"))"
  exit 77
fi
echo "python3 on PATH: $other ($("$other" --version 2>&1)); module built for $built_for ($("$built_for" --version 2>&1))"
if "$other" -c 'import pytest' 2>/dev/null; then
  exec "$other" -m pytest -q -p no:cacheprovider tests/python --ignore=tests/python/test_dask.py
fi
echo "no pytest in $other: running tests/python/smoke_corpus.py (standard library) with it"
exec "$other" tests/python/smoke_corpus.py
