"""parse / StreamParser against the CLI (`toolchat parse`, `parse --events`), the reference
interface, on every dialect fixture's model outputs (tests/dialects/fixtures)."""
import json
import os

import pytest

import toolchat
from conftest import CORPUS, ROOT, read_json, run_cli

FIXTURES = os.path.join(ROOT, "tests", "dialects", "fixtures")
CASES = []
for fn in sorted(os.listdir(FIXTURES)):
    fx = read_json(os.path.join(FIXTURES, fn))
    for case in fx.get("cases", []):
        if isinstance(case.get("input"), str):
            CASES.append((fx["dialect"], case["name"], case["input"], case.get("reasoning_open", False),
                          case.get("tools")))

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def cli_message(text, dialect, *extra):
    out = json.loads(run_cli("parse", "--dialect", dialect, "--seed", "7", *extra, stdin=text.encode()).stdout)
    out.setdefault("warnings", [])  # the CLI prints the key only when there are warnings
    return out


def cli_events(text, dialect, chunk, *extra):
    out = run_cli("parse", "--dialect", dialect, "--seed", "7", "--events", "--chunk", str(chunk), *extra,
                  stdin=text.encode()).stdout.decode()
    return [json.loads(line) for line in out.splitlines()]


def cli_extra(tmp_path, reasoning_open, tools):
    extra = ["--reasoning-open"] if reasoning_open else []
    if tools is not None:
        path = tmp_path / "tools.json"
        path.write_text(json.dumps(tools))
        extra += ["--tools", str(path)]
    return extra


@pytest.mark.parametrize("dialect,name,text,reasoning_open,tools", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_parse_equals_cli(dialect, name, text, reasoning_open, tools, tmp_path):
    want = cli_message(text, dialect, *cli_extra(tmp_path, reasoning_open, tools))
    assert toolchat.parse(text, dialect, tools, seed=7, reasoning_open=reasoning_open) == want


@pytest.mark.parametrize("dialect,name,text,reasoning_open,tools", CASES[::3], ids=[f"{c[0]}-{c[1]}" for c in CASES[::3]])
def test_stream_events_equal_cli(dialect, name, text, reasoning_open, tools, tmp_path):
    extra = cli_extra(tmp_path, reasoning_open, tools)
    data = text.encode()
    p = toolchat.StreamParser(dialect, tools, seed=7, reasoning_open=reasoning_open)
    events = []
    for i in range(0, len(data), 5):  # bytes: a chunk may cut a character, as a network stream does
        events += p.feed(data[i:i + 5])
    events += p.finish()
    assert events == cli_events(text, dialect, 5, *extra)
    with pytest.raises(ValueError, match="finished"):
        p.feed("more")


def test_tools_check_names_like_cli(tmp_path):
    text = '<tool_call>\n{"name": "get_wether", "arguments": {"city": "Paris"}}\n</tool_call>'
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": TOOLS}))
    want = cli_message(text, "hermes", "--tools", str(tools))
    assert want["warnings"]  # the reference flags the unknown name
    assert toolchat.parse(text, "hermes", TOOLS, seed=7) == want
    assert toolchat.parse(text, "hermes", {"tools": TOOLS}, seed=7) == want


def test_template_as_dialect_equals_cli_template():
    path = os.path.join(CORPUS, "templates", "deepseek-ai-DeepSeek-V3.jinja")
    text = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
            '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
    want = json.loads(run_cli("parse", "--template", path, "--seed", "3", stdin=text.encode()).stdout)
    want.setdefault("warnings", [])
    got = toolchat.parse(text, toolchat.load_template(path), seed=3)
    assert got == want and got["tool_calls"][0]["function"]["name"] == "get_weather"


def test_bad_dialect_and_arguments():
    with pytest.raises(ValueError, match="unknown dialect 'hermez'.*hermes"):
        toolchat.parse("x", "hermez")
    with pytest.raises(TypeError, match="dialect"):
        toolchat.parse("x", 3)
    with pytest.raises(TypeError, match=r"^tools\[0\]\.function: expected a JSON value"):
        toolchat.parse("x", "hermes", [{"function": lambda: 1}])
    assert "hermes" in toolchat.dialect_names()


def test_random_ids_without_seed():
    text = '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'
    a = toolchat.parse(text, "hermes")["tool_calls"][0]["id"]
    b = toolchat.parse(text, "hermes")["tool_calls"][0]["id"]
    assert a != b and a.startswith("call_")
