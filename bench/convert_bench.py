#!/usr/bin/env python3
"""`toolchat convert` speed next to the oracle's rendering speed on the same rows.

  convert_bench.py --ours build/toolchat [--baseline OLD/toolchat] [--rows 100000] [--oracle-rows 1000]
                   [--jinja2-rows 10000] [--rounds 3] [--out-dir bench/out]

1. Generates ROWS training conversations from the corpus contexts
   (tests/convert/make_conversations.py --count ROWS, OpenAI format).
2. For each model template below, times `toolchat convert --from openai` over all of them with
   2 threads (labels, train = serve check and JSON output included): conversations/s.
3. Times the oracle (tests/oracle/hf_render.py --batch, one Python process) rendering the first
   ORACLE-ROWS of the same rows once each (the whole conversation, no spans, no checks):
   renders/s. The oracle compiles the template for each row, as its batch mode does; the ratio
   is ours / oracle. A second column renders the same rows with Jinja2 and the template
   compiled once (the oracle's environment, in this process), the ratio without compile costs.
   Each of our conversations takes several renders (every prefix, every prompt) plus the
   checks, or none when an earlier conversation of its shape lends its renders
   (src/convert/render_cache.hpp); each oracle row one render. "per thread" divides our rate by
   the threads. A second table puts CPU seconds side by side (ours: user + system time of the
   convert process, all threads; Jinja2: this process' CPU time over its renders), so that the
   ratio "per CPU second" holds up on a loaded machine where wall times do not.
4. With --baseline, times another toolchat binary (an older build) on the same rows in the same
   run: the before/after columns.
5. Rounds: the timed runs of step 2, 4 and the compiled-once Jinja2 renders (JINJA2-ROWS rows, the
   first of the same rows) alternate ROUNDS times per model, and each side's figures (wall and CPU
   seconds) are its fastest round: interference from the rest of a shared machine only adds time,
   and often lasts a whole run, so the fastest round is the undisturbed figure, taken the same way
   for every side (bench/compare.py does the same for renders). Each round's own ratio per CPU
   second is kept in the JSON and printed. The oracle's batch (a template compile per row) runs once.
Writes OUT_DIR/convert_bench.{md,json} and prints the table.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = [
    ("Qwen2.5", "examples/qwen2.5/chat_template.jinja", None),
    ("Llama 3.1", "tests/corpus/templates/ollama-llama3.1-8b.jinja", "tests/corpus/templates/ollama-llama3.1-8b.tokens.json"),
    ("Qwen3", "tests/corpus/templates/ollama-qwen3-0.6b.jinja", "tests/corpus/templates/ollama-qwen3-0.6b.tokens.json"),
]


def run_ours(tool, model, tokens, rows_path, threads):
    cmd = [tool, "convert", "--from", "openai", "--model", os.path.join(ROOT, model), "--threads", str(threads),
           "--no-progress", rows_path, os.devnull]
    if tokens and os.path.exists(os.path.join(ROOT, tokens)):
        cmd[4:4] = ["--special-tokens", os.path.join(ROOT, tokens)]
    cpu0 = children_cpu()
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    secs = time.perf_counter() - t0
    cpu = children_cpu() - cpu0
    if p.returncode != 0:
        raise SystemExit(f"toolchat convert failed: {p.stderr[-500:]}")
    summary = [line for line in p.stderr.splitlines() if line.split(":")[0] in ("convert", "reuse", "train=serve")]
    return secs, cpu, summary


def children_cpu():
    """CPU seconds (user + system) of the finished child processes: what the other load of a
    shared machine inflates less than wall time."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def load_model(model, tokens):
    """The template source and its special tokens (the .tokens.json beside it, if any)."""
    with open(os.path.join(ROOT, model), encoding="utf-8") as f:
        source = f.read()
    special = {}
    if tokens and os.path.exists(os.path.join(ROOT, tokens)):
        with open(os.path.join(ROOT, tokens), encoding="utf-8") as f:
            special = json.load(f)
    return source, special


def run_oracle(model, tokens, rows, py):
    source, special = load_model(model, tokens)
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as f:
        for i, row in enumerate(rows):
            ctx = {"messages": row["messages"], "special_tokens": special}
            for key in ("tools", "documents"):
                if key in row:
                    ctx[key] = row[key]
            ctx.update(row.get("chat_template_kwargs", {}))
            f.write(json.dumps({"id": i, "template": source, "context": ctx}, ensure_ascii=False) + "\n")
        path = f.name
    try:
        t0 = time.perf_counter()
        p = subprocess.run([py, os.path.join(ROOT, "tests", "oracle", "hf_render.py"), "--batch", path],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        secs = time.perf_counter() - t0
    finally:
        os.unlink(path)
    if p.returncode != 0:
        raise SystemExit(f"oracle failed: {p.stderr[-500:]}")
    return secs


def run_jinja2_compiled_once(model, tokens, rows):
    """The oracle's rendering with the template compiled once (in this process): what Python
    Jinja2 costs per render when compiling is not counted."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
    import hf_render  # noqa: E402

    source, special = load_model(model, tokens)
    env = hf_render.make_environment()
    template = env.from_string(source)
    t0, cpu0 = time.perf_counter(), time.process_time()
    for row in rows:
        kwargs = dict(special)
        kwargs.update(row.get("chat_template_kwargs", {}))
        try:
            template.render(messages=row["messages"], tools=row.get("tools"), documents=row.get("documents"),
                            add_generation_prompt=False, **kwargs)
        except Exception:  # rows the template refuses cost their time too
            pass
    return time.perf_counter() - t0, time.process_time() - cpu0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--baseline", help="another toolchat binary timed on the same rows (before/after)")
    ap.add_argument("--rows", type=int, default=int(os.environ.get("BENCH_CONVERT_ROWS", "100000")))
    ap.add_argument("--oracle-rows", type=int, default=int(os.environ.get("BENCH_CONVERT_ORACLE_ROWS", "1000")))
    ap.add_argument("--jinja2-rows", type=int, default=int(os.environ.get("BENCH_CONVERT_JINJA2_ROWS", "10000")),
                    help="rows rendered by Jinja2 with the template compiled once (the first of the same rows)")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_CONVERT_ROUNDS", "3")))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out-dir", default=os.path.join(HERE, "out"))
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be 1 or more")
    os.makedirs(args.out_dir, exist_ok=True)
    rows_path = os.path.join(args.out_dir, "convert_rows.jsonl")
    with open(rows_path, "w", encoding="utf-8") as f:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "convert", "make_conversations.py"),
                        "--count", str(args.rows)], stdout=f, check=True)
    with open(rows_path, encoding="utf-8") as f:
        once_sample = [json.loads(next(f)) for _ in range(min(max(args.oracle_rows, args.jinja2_rows), args.rows))]
    sample = once_sample[:min(args.oracle_rows, args.rows)]
    once_sample = once_sample[:min(args.jinja2_rows, args.rows)]
    results = []
    for label, model, tokens in MODELS:
        rounds = []  # per round: (base secs, base cpu, secs, cpu, once secs, once cpu)
        for _ in range(args.rounds):
            b_secs, b_cpu, _ = run_ours(args.baseline, model, tokens, rows_path, args.threads) if args.baseline else (None, None, None)
            r_secs, r_cpu, summary = run_ours(args.ours, model, tokens, rows_path, args.threads)
            o_secs, o_cpu = run_jinja2_compiled_once(model, tokens, once_sample)
            rounds.append((b_secs, b_cpu, r_secs, r_cpu, o_secs, o_cpu))
        fastest = [min(col) if col[0] is not None else None for col in zip(*rounds)]
        base_secs, base_cpu, secs, cpu, once_secs, once_cpu = fastest
        oracle_secs = run_oracle(model, tokens, sample, sys.executable)
        ours_rate = args.rows / secs
        oracle_rate = len(sample) / oracle_secs
        once_rate = len(once_sample) / once_secs
        results.append({"model": label, "template": model, "rows": args.rows, "seconds": round(secs, 3),
                        "conversations_per_s": round(ours_rate), "oracle_rows": len(sample),
                        "oracle_renders_per_s": round(oracle_rate, 1), "ratio": round(ours_rate / oracle_rate, 1),
                        "jinja2_compiled_once_renders_per_s": round(once_rate), "ratio_compiled_once": round(ours_rate / once_rate, 1),
                        "ratio_compiled_once_per_thread": round(ours_rate / args.threads / once_rate, 1),
                        "jinja2_rows": len(once_sample), "rounds": args.rounds,
                        "cpu_seconds": round(cpu, 3), "jinja2_cpu_seconds": round(once_cpu, 3),
                        "ratio_compiled_once_per_cpu_second": round((args.rows / cpu) / (len(once_sample) / once_cpu), 1),
                        "ratio_per_cpu_second_by_round": [round((args.rows / r[3]) / (len(once_sample) / r[5]), 1) for r in rounds],
                        "summary": summary})
        if base_secs:
            base_rate = args.rows / base_secs
            results[-1].update({"baseline_cpu_seconds": round(base_cpu, 3),
                                "baseline_ratio_compiled_once_per_cpu_second": round((args.rows / base_cpu) / (len(once_sample) / once_cpu), 1),
                                "baseline_seconds": round(base_secs, 3), "baseline_conversations_per_s": round(base_rate),
                                "baseline_ratio_compiled_once_per_thread": round(base_rate / args.threads / once_rate, 1)})
    t = args.threads
    base = " | before (--baseline) | per thread" if args.baseline else ""
    lines = [f"| model{base} | toolchat convert ({t} threads) | oracle hf_render.py --batch | ratio "
             "| Jinja2, template compiled once | ratio | per thread |", "|---|---|---|---|---|---|---|" + ("---|---|" if base else "")]
    for r in results:
        before = (f" | {r['baseline_conversations_per_s']:,} conversations/s ({r['baseline_seconds']} s) "
                  f"| {r['baseline_ratio_compiled_once_per_thread']}x") if args.baseline else ""
        lines.append(f"| {r['model']}{before} | {r['conversations_per_s']:,} conversations/s ({r['rows']:,} in {r['seconds']} s) "
                     f"| {r['oracle_renders_per_s']:,} renders/s ({r['oracle_rows']:,} rows) | {r['ratio']}x "
                     f"| {r['jinja2_compiled_once_renders_per_s']:,} renders/s | {r['ratio_compiled_once']}x "
                     f"| {r['ratio_compiled_once_per_thread']}x |")
    lines += ["", f"| model{' | before: CPU s | per CPU second' if args.baseline else ''} | toolchat convert: CPU s "
              "| Jinja2 compiled once: CPU s (rows) | per CPU second | per CPU second, each round alone |",
              "|---|" + ("---|---|" if args.baseline else "") + "---|---|---|---|"]
    for r in results:
        before = (f" | {r['baseline_cpu_seconds']} s | {r['baseline_ratio_compiled_once_per_cpu_second']}x"
                  if args.baseline else "")
        lines.append(f"| {r['model']}{before} | {r['cpu_seconds']} s ({r['rows']:,} rows) "
                     f"| {r['jinja2_cpu_seconds']} s ({r['jinja2_rows']:,}) | {r['ratio_compiled_once_per_cpu_second']}x "
                     f"| {' / '.join(f'{x}x' for x in r['ratio_per_cpu_second_by_round'])} |")
    table = "\n".join(lines)
    print(table)
    for r in results:
        for s in r["summary"]:
            print(f"  {r['model']}: {s}")
    with open(os.path.join(args.out_dir, "convert_bench.md"), "w", encoding="utf-8") as f:
        f.write(table + "\n")
    with open(os.path.join(args.out_dir, "convert_bench.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    os.unlink(rows_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
