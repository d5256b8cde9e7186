"""The README's Python section works as written: its `>>>` session is run as a doctest from the
repository root (the README's paths are relative to it)."""
import doctest
import os

from conftest import ROOT


def test_readme_python_session(monkeypatch):
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    start = readme.index("\n## Python\n")
    section = readme[start:readme.index("\n## ", start + 1)]
    monkeypatch.chdir(ROOT)
    test = doctest.DocTestParser().get_doctest(section, {}, "README.md#python", "README.md", 0)
    assert len(test.examples) >= 8
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
