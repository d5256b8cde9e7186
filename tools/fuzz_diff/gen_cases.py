#!/usr/bin/env python3
"""Seeded grammar-based generator of random Jinja chat-template cases (batch JSONL).

  gen_cases.py --seed S --count N [--start K] [--out FILE] [--no-oracle-filter]
               [--oracle PATH] [--error-frac 0.1] [--chat-frac 0.3] [--stats]

Each output line is {"id", "template", "context"}, the batch contract of
hf_render.py --batch and `toolchat render --batch`.

Determinism: case i of seed S is generated from random.Random("S:i:attempt")
only, so the file depends on (seed, start, count) and nothing else (chunking
does not matter). With the oracle filter (default on) candidates whose oracle
output contains a memory address / object repr (or is huge, or hits Python
recursion/memory limits) are regenerated with attempt+1; the oracle is
deterministic given --now, so the filtered file is deterministic too.

The grammar lives in the gen_*.py modules beside this file (pools, contexts, and the Gen
mixins: core, expressions, statements, errors, chat templates); this file puts Gen together
and holds the oracle filter and the command line.

Python 3 stdlib only.
"""
import argparse
import collections
import json
import os
import random
import re
import subprocess
import sys
import tempfile

from gen_chat import ChatTemplates
from gen_context import rand_context
from gen_core import GenCore
from gen_errors import ErrorSnippets
from gen_expr import ScalarExprs
from gen_expr_containers import ContainerExprs
from gen_stmt import Statements

HERE = os.path.dirname(os.path.abspath(__file__))
NOW = "2026-01-15T09:30:00"


def default_oracle():
    repo = os.path.dirname(os.path.dirname(HERE))
    return os.path.join(repo, "tests", "oracle", "hf_render.py")


# ----------------------------------------------------------------------------
# templates
# ----------------------------------------------------------------------------

class Gen(GenCore, ScalarExprs, ContainerExprs, Statements, ErrorSnippets, ChatTemplates):
    """One random template: a chat-template-like loop or grammar noise, maybe with a deliberate error."""

    # -- top level -----------------------------------------------------------
    def template(self):
        if self.p(self.chat_frac):
            parts = [self.chat_template()]
            if self.p(0.3):
                parts.insert(0, self.block(2, self.r.randint(1, 2)))
            if self.p(0.5):
                parts.append(self.s_probe(1))
        else:
            self.f("mode:grammar")
            kinds = ["stmt"] * self.r.randint(2, 7) + ["probe"] * self.r.randint(2, 5)
            self.r.shuffle(kinds)
            parts = [self.stmt(self.r.randint(2, 4)) if k == "stmt" else self.s_probe(1) for k in kinds]
        if self.p(self.error_frac):
            self.f("mode:error")
            parts.insert(self.r.randint(0, len(parts)), self.error_snippet())
        t = "".join(parts)
        if self.p(0.3):
            t += "\n"
        return t



# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------

BAD_RE = re.compile(r"0x[0-9a-f]{6,}|<(function|generator|bound method|built-in|jinja2\.|.* object at )")
MAX_TEXT = 200_000


def make_case(seed, i, attempt, error_frac, chat_frac):
    r = random.Random("%s:%d:%d" % (seed, i, attempt))
    g = Gen(r, error_frac, chat_frac)
    tpl = g.template()
    ctx = rand_context(r)
    return {"id": "s%s-%d" % (seed, i), "template": tpl, "context": ctx}, g.feats


def is_bad(res):
    if res is None:
        return True
    if "error" in res:
        if res["error"] in ("RecursionError", "MemoryError", "SyntaxError", "IndentationError"):
            return True  # implementation limits / Python-compiler specifics
        return bool(BAD_RE.search(res.get("message", "")))
    return len(res["text"]) > MAX_TEXT or bool(BAD_RE.search(res["text"]))


def run_oracle(oracle, cases, now=NOW, timeout=600):
    """Runs the oracle --batch on cases; returns list of result dicts (by position)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        for c in cases:
            fh.write(json.dumps(c, ensure_ascii=False) + "\n")
        path = fh.name
    try:
        p = subprocess.run([sys.executable, oracle, "--batch", path, "--now", now],
                           capture_output=True, timeout=timeout)
        out = {}
        for line in p.stdout.decode("utf-8").split("\n"):
            if line.strip():
                o = json.loads(line)
                out[o["id"]] = o
        if p.returncode != 0 and len(out) < len(cases):
            sys.stderr.write("oracle failed (rc=%d): %s\n" % (p.returncode, p.stderr.decode()[-2000:]))
        return [out.get(c["id"]) for c in cases]
    finally:
        os.unlink(path)


def generate(seed, start, count, oracle_filter=True, oracle=None, error_frac=0.1, chat_frac=0.3,
             max_attempts=6, now=NOW):
    """Returns (cases, feats, results). results are oracle outputs (None without filter)."""
    oracle = oracle or default_oracle()
    slots = {}
    for i in range(start, start + count):
        slots[i] = (0,) + make_case(seed, i, 0, error_frac, chat_frac)
    results = {}
    pending = list(slots)
    if oracle_filter:
        for attempt in range(max_attempts):
            if not pending:
                break
            res = run_oracle(oracle, [slots[i][1] for i in pending], now)
            again = []
            for i, rv in zip(pending, res):
                if is_bad(rv):
                    again.append(i)
                else:
                    results[i] = rv
            for i in again:
                slots[i] = (attempt + 1,) + make_case(seed, i, attempt + 1, error_frac, chat_frac)
            pending = again
        for i in pending:  # still bad after all attempts: drop
            del slots[i]
    order = sorted(slots)
    return ([slots[i][1] for i in order], [slots[i][2] for i in order],
            [results.get(i) for i in order] if oracle_filter else None)


def stats(cases, feats, results, out=sys.stderr):
    n = len(cases)
    cnt = collections.Counter()
    for fs in feats:
        cnt.update(fs)
    out.write("%d cases\n\nconstruct coverage (cases using it):\n" % n)
    for k in sorted(cnt):
        out.write("  %-28s %6d  %5.1f%%\n" % (k, cnt[k], 100.0 * cnt[k] / max(n, 1)))
    low = [k for k in cnt if cnt[k] < 0.01 * n]
    out.write("\nconstructs under 1%%: %s\n" % (", ".join(sorted(low)) or "none"))
    if results is not None:
        ec = collections.Counter(r["error"] for r in results if r and "error" in r)
        tot = sum(ec.values())
        out.write("\noracle outcomes: %d ok, %d errors (%.1f%%)\n" % (n - tot, tot, 100.0 * tot / max(n, 1)))
        for k, v in ec.most_common():
            out.write("  %-28s %6d\n" % (k, v))
        gen = sum(1 for r in results if r and r.get("generation_spans"))
        out.write("  with generation spans       %6d\n" % gen)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--out", default="-")
    ap.add_argument("--oracle", default=None)
    ap.add_argument("--oracle-filter", dest="oracle_filter", action="store_true", default=True)
    ap.add_argument("--no-oracle-filter", dest="oracle_filter", action="store_false")
    ap.add_argument("--error-frac", type=float, default=0.1)
    ap.add_argument("--chat-frac", type=float, default=0.3)
    ap.add_argument("--now", default=NOW)
    ap.add_argument("--stats", action="store_true", help="print construct / error-class distribution to stderr")
    a = ap.parse_args()
    cases, feats, results = generate(a.seed, a.start, a.count, a.oracle_filter, a.oracle,
                                     a.error_frac, a.chat_frac, now=a.now)
    fh = sys.stdout if a.out == "-" else open(a.out, "w", encoding="utf-8")
    for c in cases:
        fh.write(json.dumps(c, ensure_ascii=False) + "\n")
    if fh is not sys.stdout:
        fh.close()
    if a.stats:
        stats(cases, feats, results)


if __name__ == "__main__":
    main()
