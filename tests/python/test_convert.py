"""convert_rows against `toolchat convert` on the same rows: the same output rows, byte for byte,
and the same bad rows with the same reasons."""
import json
import os
import warnings

import pytest

import toolchat
from conftest import CORPUS, QWEN, ROOT, run_cli

FORMATS = {"sharegpt": "sharegpt", "chatglm3": "chatglm3", "openai": "openai", "qwen-agent": "qwen_agent"}
MODELS = [QWEN, os.path.join(CORPUS, "templates", "ollama-command-r7b-7b.jinja"),
          os.path.join(CORPUS, "templates", "deepseek-ai-DeepSeek-V3.jinja")]


def lines_of(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def try_json(line):
    try:
        return json.loads(line)
    except ValueError:
        return None


def cli_bad_rows(proc, src):
    return [line for line in proc.stderr.decode().splitlines() if line.startswith(f"{src}:")]


def cli_convert(in_path, out_path, fmt, model, *flags):
    proc = run_cli("convert", "--from", fmt, "--model", model, "--no-progress", *flags, str(in_path), str(out_path),
                   check=False)
    out = lines_of(out_path) if os.path.exists(out_path) else []
    return proc, out


@pytest.mark.parametrize("model", MODELS, ids=os.path.basename)
@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_rows_equal_cli(fmt, model, tmp_path):
    src = os.path.join(ROOT, "tests", "convert", FORMATS[fmt] + ".jsonl")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", fmt, model)
    # exit 1 only when no row converted (then OUT is left untouched: no output rows)
    assert proc.returncode == 0 or b"no row converted" in proc.stderr, proc.stderr
    lines = lines_of(src)
    bad = []
    assert toolchat.convert_rows(lines, fmt, model, as_json=True, bad_rows=bad) == want
    assert [f"{src}:{b['index'] + 1}: {b['message']}" for b in bad] == cli_bad_rows(proc, src)
    # Rows given as dicts (json.loads) come out the same, as dicts (the lines that are not JSON
    # objects are bad rows for both).
    rows = [r for r in map(try_json, lines) if isinstance(r, dict)]
    assert toolchat.convert_rows(rows, fmt, model, threads=3, bad_rows=[]) == [json.loads(x) for x in want]


OPTION_SETS = [
    ({"split": True}, ["--split"]),
    ({"train_on_prompt": True}, ["--train-on-prompt"]),
    ({"last_turn_only": True}, ["--last-turn-only"]),
    ({"polyfill": "all"}, ["--polyfill", "all"]),
    ({"polyfill": "none"}, ["--polyfill", "none"]),
    ({"kwargs": {"enable_thinking": False}}, ["--kwargs", '{"enable_thinking": false}']),
]


@pytest.mark.parametrize("options,flags", OPTION_SETS, ids=lambda x: json.dumps(x) if isinstance(x, dict) else None)
def test_options_equal_cli_flags(options, flags, tmp_path):
    src = os.path.join(ROOT, "tests", "convert", "openai.jsonl")
    model = os.path.join(CORPUS, "templates", "ollama-qwen3-0.6b.jinja")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "openai", model, *flags)
    assert proc.returncode == 0, proc.stderr
    assert toolchat.convert_rows(lines_of(src), "openai", model, as_json=True, bad_rows=[], **options) == want


def test_special_tokens_equal_cli(tmp_path):
    src = os.path.join(ROOT, "tests", "convert", "sharegpt.jsonl")
    model = os.path.join(CORPUS, "templates", "deepseek-ai-DeepSeek-V3.jinja")
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps({"bos_token": "<BOS>", "eos_token": "<EOS>"}))
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "sharegpt", model, "--special-tokens", str(tokens))
    assert proc.returncode == 0 and "<BOS>" in want[0]
    got = toolchat.convert_rows(lines_of(src), "sharegpt", model, special_tokens={"bos_token": "<BOS>", "eos_token": "<EOS>"},
                                as_json=True, bad_rows=[])
    assert got == want


def test_bad_rows_equal_cli(tmp_path):
    good = lines_of(os.path.join(ROOT, "tests", "convert", "sharegpt.jsonl"))
    lines = [good[0], "{not json", "", '{"conversations": "nope"}',
             '{"conversations": [{"from": "function_call", "value": "not json"}]}', good[1]]
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "sharegpt", QWEN)
    assert proc.returncode == 0
    cli_bad = [line[len(str(src)) + 1:] for line in proc.stderr.decode().splitlines() if line.startswith(str(src) + ":")]
    bad, stats = [], {}
    got = toolchat.convert_rows(lines, "sharegpt", QWEN, as_json=True, bad_rows=bad, stats=stats)
    assert got == want
    assert [f"{b['index'] + 1}: {b['message']}" for b in bad] == cli_bad and len(bad) == 3
    assert stats["rows"] == 5 and stats["converted"] == 2 and stats["bad"] == 3
    # Without a bad_rows list, each skipped row is a warning (never dropped silently).
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert toolchat.convert_rows(lines, "sharegpt", QWEN, as_json=True) == want
    assert [str(w.message) for w in caught] == [f"rows[{b['index']}]: {b['message']}" for b in bad]
    assert all(issubclass(w.category, toolchat.BadRowWarning) for w in caught)
    # strict: the first bad row raises, naming it (as --strict stops there).
    with pytest.raises(ValueError, match=r"^rows\[1\]: "):
        toolchat.convert_rows(lines, "sharegpt", QWEN, strict=True)
    with pytest.raises(ValueError, match=r"^rows\[0\]: conversations"):
        toolchat.convert_rows(lines[3:], "sharegpt", QWEN, strict=True)


def test_template_errors(tmp_path):
    bad = tmp_path / "bad.jinja"
    bad.write_text("{% for m in messages %}\n{{ m.content }{% endfor %}")
    with pytest.raises(toolchat.TemplateSyntaxError) as e:
        toolchat.convert_rows([{"messages": [{"role": "user", "content": "a"}]}], "openai", str(bad))
    assert e.value.lineno == 2
    raising = tmp_path / "raising.jinja"
    raising.write_text("{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}x")
    rows = [{"messages": [{"role": "system", "content": "s"}, {"role": "assistant", "content": "a"}]}]
    with pytest.raises(toolchat.TemplateError, match=r"^rows\[0\]: .*no system$"):
        toolchat.convert_rows(rows, "openai", str(raising), strict=True)


def test_bad_arguments():
    with pytest.raises(ValueError, match="fmt: unknown format 'alpaca'"):
        toolchat.convert_rows([], "alpaca", QWEN)
    with pytest.raises(TypeError, match=r"^rows\[1\]: expected a dict or a JSON line"):
        toolchat.convert_rows([{}, 3], "openai", QWEN)
    with pytest.raises(TypeError, match=r"^rows\[0\]\.messages\[0\]\.content: expected a JSON value"):
        toolchat.convert_rows([{"messages": [{"content": object()}]}], "openai", QWEN)
    with pytest.raises(ValueError, match="polyfill: "):
        toolchat.convert_rows([], "openai", QWEN, polyfill="nope")
    with pytest.raises(TypeError, match="kwargs: expected a dict"):
        toolchat.convert_rows([], "openai", QWEN, kwargs=[1])
    with pytest.raises(ValueError, match="threads"):
        toolchat.convert_rows([], "openai", QWEN, threads=0)
