"""A Template used from many threads at once (the GIL released while it renders) gives every
thread the oracle's text; render(), parse and convert_rows likewise."""
import os
import threading

import toolchat
from conftest import CORPUS, QWEN, ROOT, apply_args, corpus_case, corpus_pairs

NAME = "deepseek-ai-DeepSeek-V3"


def run_threads(n, fn):
    errors = []
    barrier = threading.Barrier(n)

    def body(k):
        try:
            barrier.wait()
            fn(k)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_one_template_many_threads():
    tpl = toolchat.load_template(os.path.join(CORPUS, "templates", NAME + ".jinja"))
    cases = []
    for name, ctx in corpus_pairs():
        if name == NAME:
            _, context, tokens, expected = corpus_case(name, ctx)
            if "text" in expected:
                cases.append((apply_args(context, tokens), expected["text"]))
    assert len(cases) >= 5
    wrong = []

    def work(k):
        for i in range(200):
            (args, kwargs), want = cases[(i + k) % len(cases)]
            if tpl.apply(**args, **kwargs) != want:
                wrong.append((k, i))

    run_threads(8, work)
    assert not wrong


def test_render_parse_convert_from_threads():
    src = "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}"
    text = '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'
    want_parse = toolchat.parse(text, "hermes", seed=1)
    rows = [{"messages": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]}
            for i in range(20)]
    want_rows = toolchat.convert_rows(rows, "openai", QWEN, as_json=True)
    wrong = []

    def work(k):
        for i in range(100):
            msgs = [{"role": "user", "content": f"{k}-{i}"}]
            if toolchat.render(src, {"messages": msgs}) != f"<user>{k}-{i}":
                wrong.append(("render", k, i))
            if toolchat.parse(text, "hermes", seed=1) != want_parse:
                wrong.append(("parse", k, i))
        if toolchat.convert_rows(rows, "openai", QWEN, as_json=True, threads=2) != want_rows:
            wrong.append(("convert", k))

    run_threads(6, work)
    assert not wrong
