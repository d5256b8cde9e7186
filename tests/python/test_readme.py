"""The README's Python section works as written: its `>>>` session is run as a doctest by the
command the README gives (`PYTHONPATH=$PWD/build/python-lib /usr/bin/python3`, taken from the
section itself) from the repository root, with no PYTHONPATH of the test's own."""
import os
import re
import subprocess

import pytest

from conftest import ROOT

SESSION = r'''
import doctest, os, sys
import toolchat
assert os.path.dirname(toolchat.__file__) == os.path.join(os.getcwd(), "build", "python-lib", "toolchat"), toolchat.__file__
with open("README.md", encoding="utf-8") as f:
    readme = f.read()
start = readme.index("\n## Python\n")
section = readme[start:readme.index("\n## ", start + 1)]
test = doctest.DocTestParser().get_doctest(section, {}, "README.md#python", "README.md", 0)
assert len(test.examples) >= 8, len(test.examples)
runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
runner.run(test)
failed, attempted = runner.summarize(verbose=False)
print(f"{attempted} examples, {failed} failed")
sys.exit(1 if failed else 0)
'''


def readme_section():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    start = readme.index("\n## Python\n")
    return readme[start:readme.index("\n## ", start + 1)]


def test_readme_python_session_with_the_documented_command():
    built = os.environ.get("PYTHONPATH", "")
    if os.path.realpath(built) != os.path.realpath(os.path.join(ROOT, "build", "python-lib")):
        pytest.skip(f"the README's command names build/python-lib; this module is in {built}")
    blocks = re.findall(r"```sh\n(.*?)```", readme_section(), re.S)
    command = next(line for block in blocks for line in block.splitlines() if line.startswith("PYTHONPATH="))
    assert command == "PYTHONPATH=$PWD/build/python-lib /usr/bin/python3"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(["bash", "-c", command + " -"], input=SESSION, cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ", 0 failed" in proc.stdout
