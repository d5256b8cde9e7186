#!/usr/bin/env python3
"""Calls Template.apply on every tenth corpus pair that renders, CALLS times each, for callgrind:

  valgrind --tool=callgrind --toggle-collect='*apply_entry*' --callgrind-out-file=F \
      env PYTHONPATH=build/python-lib /usr/bin/python3 bench/apply_profile.py [--calls 3] [--every 10]

Instructions per call = the collected total / the number of calls printed on stdout.
"""
import argparse
import os
import sys

import toolchat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from conftest import CORPUS, apply_args, corpus_case, corpus_pairs  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=3)
    ap.add_argument("--every", type=int, default=10)
    opts = ap.parse_args()
    loaded, calls = {}, []
    for i, (name, ctx) in enumerate(corpus_pairs()):
        if i % opts.every:
            continue
        source, context, tokens, expected = corpus_case(name, ctx)
        if "text" not in expected:
            continue
        if name not in loaded:
            loaded[name] = toolchat.load_template(os.path.join(CORPUS, "templates", name + ".jinja"))
        args, kwargs = apply_args(context, tokens)
        calls.append((loaded[name], {**args, **kwargs}, expected["text"]))
    for tpl, kw, want in calls:
        assert tpl.apply(**kw) == want
    for _ in range(opts.calls - 1):
        for tpl, kw, _ in calls:
            tpl.apply(**kw)
    print(f"{len(calls)} pairs x {opts.calls} calls = {len(calls) * opts.calls}")


if __name__ == "__main__":
    main()
