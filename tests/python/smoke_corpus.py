#!/usr/bin/env python3
"""Standard library only: Template.apply on every corpus pair against the oracle's goldens, and
parse against the fixtures' expected calls, for an interpreter without pytest (other_python.sh)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toolchat  # noqa: E402
from conftest import CORPUS, ROOT, apply_args, corpus_case, corpus_pairs, outcome, read_json  # noqa: E402


def main():
    wrong, count, templates = [], 0, {}
    for name, ctx in corpus_pairs():
        source, context, tokens, expected = corpus_case(name, ctx)
        if name not in templates:
            templates[name] = toolchat.load_template(os.path.join(CORPUS, "templates", name + ".jinja"))
        args, kwargs = apply_args(context, tokens)
        got = outcome(lambda: templates[name].apply(**args, **kwargs))
        want = {"text": expected["text"]} if "text" in expected else expected
        count += 1
        if got != want:
            wrong.append(f"{name}__{ctx}")
    fixtures = os.path.join(ROOT, "tests", "dialects", "fixtures")
    calls = 0
    for fn in sorted(os.listdir(fixtures)):
        fx = read_json(os.path.join(fixtures, fn))
        for case in fx.get("cases", []):
            if "tool_calls" not in case or not isinstance(case.get("input"), str):
                continue
            got = toolchat.parse(case["input"], fx["dialect"], case.get("tools"),
                                 reasoning_open=case.get("reasoning_open", False), seed=1)
            names = [(c["function"]["name"], c["function"]["arguments"]) for c in got["tool_calls"]]
            want = [(c["name"], c["arguments"]) for c in case["tool_calls"]]
            calls += 1
            if names != want:
                wrong.append(f"{fn}:{case['name']}")
    print(f"{sys.executable} {sys.version.split()[0]}: {count} corpus pairs, {calls} parse cases, {len(wrong)} wrong")
    for w in wrong[:20]:
        print("  wrong:", w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
