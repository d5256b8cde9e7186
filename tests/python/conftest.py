"""Shared paths and helpers of the Python module's tests (pytest; run by ctest, see
tests/python/README.md). The module comes from PYTHONPATH (build/python-lib); the reference
program is the CLI named by TOOLCHAT_CLI (default build/toolchat)."""
import json
import os
import subprocess

try:  # smoke_corpus.py imports this file with an interpreter that may have no pytest
    import pytest
except ImportError:
    pytest = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "corpus")
QWEN = os.path.join(ROOT, "examples", "qwen2.5")
CLI = os.environ.get("TOOLCHAT_CLI", os.path.join(ROOT, "build", "toolchat"))


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def run_cli(*args, stdin=None, check=True):
    """The toolchat program with its environment settings removed (they would change options)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCHAT_")}
    proc = subprocess.run([CLI, *args], input=stdin, capture_output=True, env=env, cwd=ROOT, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"toolchat {' '.join(args)} exited {proc.returncode}: {proc.stderr.decode()}")
    return proc


def corpus_pairs():
    """(template name, context name) for every golden the oracle wrote in tests/corpus/expected/."""
    pairs = []
    for fn in sorted(os.listdir(os.path.join(CORPUS, "expected"))):
        name, ctx = fn[: -len(".json")].rsplit("__", 1)
        pairs.append((name, ctx))
    return pairs


def corpus_case(name, ctx):
    """(template source, context, special tokens, expected) of one corpus pair."""
    with open(os.path.join(CORPUS, "templates", name + ".jinja"), encoding="utf-8") as f:
        source = f.read()
    tokens_path = os.path.join(CORPUS, "templates", name + ".tokens.json")
    tokens = read_json(tokens_path) if os.path.exists(tokens_path) else {}
    context = read_json(os.path.join(CORPUS, "contexts", ctx + ".json"))
    expected = read_json(os.path.join(CORPUS, "expected", f"{name}__{ctx}.json"))
    return source, context, tokens, expected


def apply_args(context, tokens):
    """A corpus context as Template.apply's arguments: the oracle's context form spelled as a
    transformers call (special tokens, then the context's own overrides and kwargs, as keywords)."""
    ctx = dict(context)
    args = {
        "messages": ctx.pop("messages"),
        "tools": ctx.pop("tools", None),
        "documents": ctx.pop("documents", None),
        "add_generation_prompt": ctx.pop("add_generation_prompt", False),
        "continue_final_message": ctx.pop("continue_final_message", False),
    }
    kwargs = {**tokens, **ctx.pop("special_tokens", {}), **ctx}
    return args, kwargs


def outcome(fn):
    """What a call gives, in the oracle's terms: {"text"} or {"error", "message"}."""
    try:
        return {"text": fn()}
    except Exception as exc:  # the oracle records every failure the same way
        return {"error": type(exc).__name__, "message": str(exc)}


def load_oracle():
    """tests/oracle/hf_render.py imported: Jinja2 with transformers' environment."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("hf_render", os.path.join(ROOT, "tests", "oracle", "hf_render.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    import datetime

    mod.FIXED_NOW = datetime.datetime.fromisoformat("2026-01-15T09:30:00")
    return mod


if pytest is not None:
    @pytest.fixture(scope="session")
    def oracle():
        return load_oracle()
