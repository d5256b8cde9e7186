#!/usr/bin/env python3
"""Writes the oracle goldens for the Jinja construct test suite.

Case file format (tests/jinja/cases/<group>/<name>.txt):
  a JSON object (the oracle context; must contain "messages"), then a line
  consisting exactly of `---`, then the template source: every byte after
  that line's "\n" (the file's final newline, if any, is part of the
  template; \r and \r\n inside the template are kept as they are).

Golden: the same path with `.txt` replaced by `.expected.json`, holding the
oracle's result object ({"text", "generation_spans"} or {"error", "message"})
as json.dumps(obj, ensure_ascii=False) followed by one "\n".

All cases go through ONE oracle process (--batch), run twice; a case whose
two results differ, or whose result contains nondeterministic text
(memory addresses, function/generator reprs, ...), is reported and gets no
golden (an existing golden for it is removed).

  python3 tools/gen_case_goldens.py            # write goldens, report problems
  python3 tools/gen_case_goldens.py --check    # compare with goldens on disk, write nothing
  python3 tools/gen_case_goldens.py --only GROUP/NAME-PREFIX ...   # print results, write nothing

Exit status: 0 when every case has a good golden (and, with --check, all
goldens on disk match), 1 otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "jinja", "cases")
NOW = "2026-01-15T09:30:00"

NONDETERMINISTIC = [
    (re.compile(r"0x[0-9a-fA-F]{6,}"), "memory address"),
    (re.compile(r"\bat 0x"), "object repr with address"),
    (re.compile(r"<function\b"), "function repr"),
    (re.compile(r"<generator object"), "generator repr"),
    (re.compile(r"<built-in"), "builtin repr"),
    (re.compile(r"<bound method"), "bound method repr"),
    (re.compile(r"<method\b"), "method repr"),
    (re.compile(r"<(jinja2|markupsafe)\.[\w.]+ object"), "object repr"),
    (re.compile(r"<class '"), "class repr"),
    (re.compile(r"<module '"), "module repr"),
]


def oracle_path():
    return os.path.join(ROOT, "tests", "oracle", "hf_render.py")


def split_case(data):
    """data: the file's text (newline='' so \r is kept). Returns (context_text, template)."""
    if data.startswith("---\n"):
        raise ValueError("missing JSON context before ---")
    idx = data.find("\n---\n")
    if idx >= 0:
        return data[:idx], data[idx + 5:]
    if data.endswith("\n---"):
        return data[:-4], ""
    raise ValueError("no line consisting exactly of ---")


def read_case(path):
    with open(path, encoding="utf-8", newline="") as f:
        data = f.read()
    ctx_text, template = split_case(data)
    ctx = json.loads(ctx_text)
    if not isinstance(ctx, dict):
        raise ValueError("context is not a JSON object")
    if "messages" not in ctx:
        raise ValueError('context has no "messages"')
    return ctx, template


def collect(only=None):
    out = []
    for dirpath, dirnames, filenames in os.walk(CASES):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith(".txt"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, CASES)
            if only and not any(rel.startswith(p) for p in only):
                continue
            out.append((rel, path))
    return out


def run_oracle(cases):
    """cases: list of (id, template, ctx). Returns {id: result-without-id}."""
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", suffix=".jsonl", delete=False) as f:
        for cid, template, ctx in cases:
            f.write(json.dumps({"id": cid, "template": template, "context": ctx}, ensure_ascii=False) + "\n")
        batch = f.name
    try:
        proc = subprocess.run(
            [sys.executable, oracle_path(), "--batch", batch, "--now", NOW],
            capture_output=True, text=True, encoding="utf-8",
        )
    finally:
        os.unlink(batch)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"oracle failed with status {proc.returncode}")
    results = {}
    for line in proc.stdout.split("\n"):  # not splitlines(): U+2028 etc. occur raw
        if not line.strip():
            continue
        obj = json.loads(line)
        cid = obj.pop("id")
        results[cid] = obj
    missing = [cid for cid, _, _ in cases if cid not in results]
    if missing:
        raise SystemExit(f"oracle gave no result for {len(missing)} cases, e.g. {missing[:3]}")
    return results


def nondeterminism(obj):
    blob = json.dumps(obj, ensure_ascii=False)
    return [why for rx, why in NONDETERMINISTIC if rx.search(blob)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with goldens on disk, write nothing")
    ap.add_argument("--only", nargs="*", help="case path prefixes (relative to tests/jinja/cases); print results")
    args = ap.parse_args()

    files = collect(args.only)
    problems = []
    cases = []
    for rel, path in files:
        try:
            ctx, template = read_case(path)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"{rel}: bad case file: {exc}")
            continue
        cases.append((rel, template, ctx))

    first = run_oracle(cases)
    second = run_oracle(cases)

    if args.only is not None:
        for rel, _, _ in cases:
            print(rel, json.dumps(first[rel], ensure_ascii=False))
        for p in problems:
            print("PROBLEM", p)
        return 0

    good = {}
    for rel, _, _ in cases:
        res = first[rel]
        if res != second[rel]:
            problems.append(f"{rel}: result differs between two oracle runs")
            continue
        why = nondeterminism(res)
        if why:
            problems.append(f"{rel}: nondeterministic text in result ({', '.join(why)}): "
                            f"{json.dumps(res, ensure_ascii=False)[:200]}")
            continue
        good[rel] = json.dumps(res, ensure_ascii=False) + "\n"

    def golden_path(rel):
        return os.path.join(CASES, rel[: -len(".txt")] + ".expected.json")

    mismatched = 0
    if args.check:
        for rel, text in good.items():
            gp = golden_path(rel)
            old = open(gp, encoding="utf-8").read() if os.path.exists(gp) else None
            if old != text:
                mismatched += 1
                problems.append(f"{rel}: golden on disk {'differs' if old else 'missing'}")
    else:
        for rel, text in good.items():
            gp = golden_path(rel)
            old = open(gp, encoding="utf-8").read() if os.path.exists(gp) else None
            if old != text:
                with open(gp, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
        for rel, _, _ in cases:
            if rel not in good and os.path.exists(golden_path(rel)):
                os.unlink(golden_path(rel))

    # goldens without a case file
    if args.only is None:
        for dirpath, _, filenames in os.walk(CASES):
            for fn in filenames:
                if fn.endswith(".expected.json"):
                    txt = os.path.join(dirpath, fn[: -len(".expected.json")] + ".txt")
                    if not os.path.exists(txt):
                        problems.append(f"{os.path.relpath(txt, CASES)}: golden without case file")

    groups = {}
    errors = 0
    for rel, _, _ in cases:
        g = rel.split(os.sep)[0]
        groups.setdefault(g, [0, 0])
        groups[g][0] += 1
        if "error" in first[rel]:
            groups[g][1] += 1
            errors += 1
    for g in sorted(groups):
        print(f"{g:12s} {groups[g][0]:4d} cases ({groups[g][1]} errors)")
    print(f"{'total':12s} {len(cases):4d} cases ({errors} errors), {len(good)} goldens "
          f"{'checked' if args.check else 'written'}")
    for p in problems:
        print("PROBLEM", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
