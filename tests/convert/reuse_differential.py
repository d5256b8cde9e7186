#!/usr/bin/env python3
"""convert's fast paths against its slow path: every row written with render reuse (the render
cache, text cuts, the label memo, the line path) must equal the row written by rendering every
conversation for real (`--no-render-reuse`), and so must stderr (less the rate and `reuse:`
lines) and the exit code.

Rows: the first ROWS conversations of tests/convert/make_conversations.py, the same rows with every
user text made equal to the first (texts compared with each other), the same rows randomly
edited (edit_rows.py: escapes, non-ASCII, whitespace at the ends, `</think>`, special-token text,
empty texts) and hostile spellings of them (hostile_rows.py: raw escapes, bytes that are not
UTF-8, duplicate keys, other member orders and separators, CRLF). Templates: the three bench
models and corpus templates whose reuse is refused or cut for a reason (a text compared with
another one, texts split on tags, content parts shown as a repr, tool calls as JSON).

  reuse_differential.py --toolchat build/toolchat [--rows 600] [--threads 2]
Exit 0 when every pair is equal, 1 naming the first difference per template and input.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TEMPLATES = os.path.join(ROOT, "tests", "corpus", "templates")
MODELS = [
    "examples/qwen2.5/chat_template.jinja",
    "tests/corpus/templates/ollama-llama3.1-8b.jinja",
    "tests/corpus/templates/ollama-qwen3-0.6b.jinja",
    "tests/corpus/templates/vllm-mistral.jinja",          # compares whole messages
    "tests/corpus/templates/ollama-mistral-small-24b.jinja",
    "tests/corpus/templates/ollama-deepseek-r1-8b.jinja",  # splits answers on </think>
    "tests/corpus/templates/vllm-hermes.jinja",
    "tests/corpus/templates/ollama-command-r7b-7b.jinja",
    "tests/corpus/templates/ollama-granite3.2-8b.jinja",
]


def convert(tool, model, rows, extra, threads):
    cmd = [tool, "convert", "--from", "openai", "--model", os.path.join(ROOT, model), "--threads", str(threads),
           "--no-progress"]
    tokens = os.path.join(ROOT, model[: -len(".jinja")] + ".tokens.json")
    if os.path.exists(tokens):
        cmd += ["--special-tokens", tokens]
    cmd += extra + [rows, "-"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    err = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if not l.startswith(("convert:", "reuse:"))]
    return p.returncode, p.stdout, err


def same_texts(src, dst):
    """Each row twice: as it is, and with every user text equal to the first one (a template that
    compares two texts sees them equal in one and unequal in the other, in one shape)."""
    with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as out:
        for line in f:
            row = json.loads(line)
            out.write(line)
            users = [m for m in row.get("messages", []) if m.get("role") == "user" and isinstance(m.get("content"), str)]
            for m in users[1:]:
                m["content"] = users[0]["content"]
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return dst


def first_difference(a, b):
    la, lb = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"output row {i + 1}: {x[:160]!r} vs {y[:160]!r}"
    return f"output rows: {len(la)} vs {len(lb)}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--rows", type=int, default=600)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "rows.jsonl")
        with open(base, "wb") as f:
            subprocess.run([py, os.path.join(HERE, "make_conversations.py"), "--count", str(args.rows)], stdout=f,
                           check=True)
        inputs = {"bench": base, "same texts": same_texts(base, os.path.join(tmp, "same.jsonl"))}
        for name, script in (("edited", "edit_rows.py"), ("hostile", "hostile_rows.py")):
            path = os.path.join(tmp, name + ".jsonl")
            with open(base, "rb") as src, open(path, "wb") as out:
                subprocess.run([py, os.path.join(HERE, script), "--seed", "1"], stdin=src, stdout=out, check=True)
            inputs[name] = path
        failures, pairs, rows_out = [], 0, 0
        for model in MODELS:
            for name, path in inputs.items():
                fast = convert(args.toolchat, model, path, [], args.threads)
                slow = convert(args.toolchat, model, path, ["--no-render-reuse"], args.threads)
                pairs += 1
                rows_out += fast[1].count(b"\n")
                where = f"{os.path.basename(model)} on {name} rows"
                if fast[0] != slow[0]:
                    failures.append(f"{where}: exit {fast[0]} with reuse, {slow[0]} without")
                elif fast[1] != slow[1]:
                    failures.append(f"{where}: {first_difference(fast[1], slow[1])}")
                elif fast[2] != slow[2]:
                    diff = next((f"{x!r} vs {y!r}" for x, y in zip(fast[2], slow[2]) if x != y),
                                f"{len(fast[2])} vs {len(slow[2])} lines")
                    failures.append(f"{where}: stderr differs: {diff}")
        if rows_out == 0:
            failures.append("no row was written at all: the comparison compared nothing")
    for f in failures:
        print("reuse_differential: " + f)
    print(f"reuse_differential: {pairs - len(failures)} of {pairs} template x input pairs equal "
          f"({rows_out} rows written with reuse)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
