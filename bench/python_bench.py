#!/usr/bin/env python3
"""The Python module's speed, against its peers in the same process and run:

1. Template.apply against Jinja2 with each template compiled once in transformers' environment
   (the oracle's make_environment(), tests/oracle/hf_render.py), per call, on every corpus pair that
   renders: the variables apply_chat_template passes, continue_final_message applied on both sides.
2. convert_rows rows/s against `toolchat convert` (the CLI, process start and template loading
   included, as a user runs it) on the same generated rows, 1 and 2 threads.

  PYTHONPATH=build/python-lib /usr/bin/python3 bench/python_bench.py [--toolchat build/toolchat]
      [--repeat 20] [--rows 20000] [--convert-only] [--out bench/out/python.md]
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import toolchat

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "python"))
from conftest import CORPUS, QWEN, apply_args, corpus_case, corpus_pairs, load_oracle  # noqa: E402


def per_call(fn, repeat):
    """Seconds per call: the best of 3 rounds of `repeat` calls (after a warm-up call)."""
    fn()
    best = math.inf
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t0) / repeat)
    return best


def bench_apply(repeat):
    oracle = load_oracle()
    env = oracle.make_environment()
    compiled, loaded, rows = {}, {}, []
    for name, ctx in corpus_pairs():
        source, context, tokens, expected = corpus_case(name, ctx)
        if "text" not in expected:
            continue
        if name not in compiled:
            compiled[name] = env.from_string(source)
            loaded[name] = toolchat.load_template(os.path.join(CORPUS, "templates", name + ".jinja"))
        args, kwargs = apply_args(context, tokens)
        tpl, jtpl = loaded[name], compiled[name]
        variables = {k: args[k] for k in ("messages", "tools", "documents", "add_generation_prompt")}
        variables.update(kwargs)

        def jinja2_call():
            text = jtpl.render(**variables)
            if args["continue_final_message"]:
                text = oracle.continue_final(text, args["messages"])
            return text

        def ours():
            return tpl.apply(**args, **kwargs)

        assert ours() == expected["text"] == jinja2_call(), f"{name}__{ctx}"
        rows.append((f"{name}__{ctx}", per_call(jinja2_call, repeat), per_call(ours, repeat)))
    return rows


def bench_convert(cli, n_rows):
    with open(os.path.join(ROOT, "examples", "convert", "sharegpt_tools.jsonl"), encoding="utf-8") as f:
        base = [json.loads(line) for line in f if line.strip()][:2]  # its third row is bad on purpose
    lines = []
    for i in range(n_rows):
        row = json.loads(json.dumps(base[i % len(base)]))
        row["conversations"][0]["value"] += f" #{i}"
        lines.append(json.dumps(row, ensure_ascii=False))
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "in.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        for threads in (1, 2):
            out = os.path.join(tmp, "out.jsonl")
            t0 = time.perf_counter()
            subprocess.run([cli, "convert", "--from", "sharegpt", "--model", QWEN, "--threads", str(threads),
                            "--no-progress", src, out], check=True, capture_output=True)
            cli_s = time.perf_counter() - t0
            with open(out, encoding="utf-8") as f:
                want = f.read().splitlines()
            t0 = time.perf_counter()
            got = toolchat.convert_rows(lines, "sharegpt", QWEN, threads=threads, as_json=True)
            py_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            toolchat.convert_rows(lines, "sharegpt", QWEN, threads=threads)
            py_dict_s = time.perf_counter() - t0
            assert got == want
            results.append((threads, n_rows / cli_s, n_rows / py_s, n_rows / py_dict_s))
    return results


def apply_table(repeat):
    rows = bench_apply(repeat)
    ratios = [j / t for _, j, t in rows]
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    worst = min(rows, key=lambda r: r[1] / r[2])
    return [
        "",
        f"## Template.apply vs Jinja2 compiled once (transformers' environment), {len(rows)} corpus pairs",
        "",
        "| | Jinja2 µs/call | Template.apply µs/call | ratio |",
        "|---|---|---|---|",
        f"| median over pairs | {statistics.median(j for _, j, _ in rows) * 1e6:.1f} | "
        f"{statistics.median(t for _, _, t in rows) * 1e6:.1f} | {statistics.median(ratios):.1f}x |",
        f"| geometric mean of ratios | | | {geo:.1f}x |",
        f"| slowest ratio ({worst[0]}) | {worst[1] * 1e6:.1f} | {worst[2] * 1e6:.1f} | {worst[1] / worst[2]:.1f}x |",
        f"| pairs at >= 10x | | | {sum(r >= 10 for r in ratios)} of {len(ratios)} |",
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--toolchat", default=os.path.join(ROOT, "build", "toolchat"))
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "python.md"))
    ap.add_argument("--convert-only", action="store_true", help="only the convert_rows part (2.)")
    args = ap.parse_args()

    lines = [f"# Python module ({sys.executable}, Python {sys.version.split()[0]}, toolchat {toolchat.__version__})"]
    if not args.convert_only:
        lines += apply_table(args.repeat)
    lines += [
        "",
        f"## convert_rows vs `toolchat convert`, {args.rows} sharegpt rows, examples/qwen2.5",
        "",
        "| threads | CLI rows/s (process + load included) | convert_rows rows/s (as_json) | convert_rows rows/s (dicts) |",
        "|---|---|---|---|",
    ]
    for threads, cli_rate, py_rate, dict_rate in bench_convert(args.toolchat, args.rows):
        lines.append(f"| {threads} | {cli_rate:,.0f} | {py_rate:,.0f} | {dict_rate:,.0f} |")
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
