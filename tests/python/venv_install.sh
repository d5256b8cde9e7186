#!/usr/bin/env bash
# The README's offline install into a virtual environment, exactly as documented:
#   python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation .
# run from a copy-free checkout (the repository root), into WORK/.venv, then the installed module
# used from outside the source tree. setup.py builds the extension with CMake; here it reuses the
# ctest build tree (TOOLCHAT_CMAKE_BUILD_DIR) so that the test costs a link, not a second build;
# without it (a user's install) setup.py configures and builds its own tree.
# Arguments: PYTHON BUILD_DIR WORK.
set -euo pipefail
python=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$python" -m venv --system-site-packages "$work/.venv"
TOOLCHAT_CMAKE_BUILD_DIR=$build "$work/.venv/bin/pip" install --no-build-isolation -q . 2>&1 | tail -20
cd "$work"
unset PYTHONPATH
"$work/.venv/bin/python" - <<'PY'
import os, sys
import toolchat
where = os.path.dirname(toolchat.__file__)
assert where.startswith(sys.prefix), where  # the venv's copy, not the build tree's
msgs = [{"role": "user", "content": "hi"}]
text = toolchat.render("{% for m in messages %}[{{ m.role }}] {{ m.content }}{% endfor %}", {"messages": msgs})
assert text == "[user] hi", text
for f in ("_core.pyi", "py.typed", "__init__.py", "_errors.py", "_schema.py"):
    assert os.path.exists(os.path.join(where, f)), f
print("installed", toolchat.__version__, "in", where)
PY
"$work/.venv/bin/pip" uninstall -y -q toolchat
