#!/usr/bin/env python3
"""Rows with randomly edited message texts, for checking that convert's fast paths give the rows
the slow path gives (compare two builds' output and stderr with cmp).

Reads JSON lines (e.g. make_conversations.py's) and writes each line again, most with one or two
of their message texts edited: a piece inserted at the start, the end or inside (escapes, quotes,
non-ASCII and astral characters, control characters, whitespace of every kind, marker characters,
special-token and think tags), or the text emptied. Some lines are written with ensure_ascii, some
keep their text but spell it with other escapes, some get a broken escape or byte; a few stay as
they were so that their shapes are learned.

  python3 tests/convert/edit_rows.py --seed 1 < rows.jsonl > edited.jsonl
"""
import argparse
import json
import random
import sys

PIECES = [
    '"', "'", "\\", "\n", "\t", "\r", "\x01", "\x1f", "\x7f", "\u00a0", "\u0085", "\u2028", "\u200b", "\u3000",
    "\ue000", "\ue001", "\ue03f", "é", "日本語", "😀", "👩\u200d💻", " ", "  ", "</think>", "<think>", "<|im_end|>",
    "<|eot_id|>", "<tool_call>", "[", "{", "'text': '", "<", "|", "END", "null", "\\u0041", "{\"a\": 1}", "",
]
KEYS = ("content", "text", "reasoning_content")


def texts(node, out):
    """Every string under the messages' texts: (container, key) pairs."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, str) and k in KEYS:
                out.append((node, k))
            elif k == "arguments" and isinstance(v, str):
                out.append((node, k))
            else:
                texts(v, out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            texts(v, out)


def edit(rng, s):
    kind = rng.random()
    if kind < 0.1:
        return ""
    piece = rng.choice(PIECES) * rng.choice((1, 1, 2))
    if kind < 0.4:
        return piece + s
    if kind < 0.7:
        return s + piece
    at = rng.randint(0, len(s))
    return s[:at] + piece + s[at:]


def spelt_otherwise(rng, line):
    """The same row with some characters written as \\u escapes or \\/ (json.dumps never does)."""
    out = []
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\":
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif in_string and c.isalpha() and c.isascii() and rng.random() < 0.05:
            c = "\\u%04x" % ord(c)
        elif in_string and c == "/" and rng.random() < 0.5:
            c = "\\/"
        out.append(c)
        i += 1
    return "".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", type=float, default=0.3, help="share of lines written unedited")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line or rng.random() < args.keep:
            print(line)
            continue
        row = json.loads(line)
        found = []
        texts(row.get("messages"), found)
        for node, key in rng.sample(found, min(len(found), rng.choice((1, 1, 2)))):
            node[key] = edit(rng, node[key])
        out = json.dumps(row, ensure_ascii=rng.random() < 0.3)
        r = rng.random()
        if r < 0.1:
            out = spelt_otherwise(rng, out)
        elif r < 0.13:  # a broken escape or byte inside a text
            at = out.find('"content": "')
            if at >= 0:
                at += len('"content": "')
                bad = rng.choice(("\\x", "\\u12", "\\ud800", "\\udc00x", "\udcff", "\t"))  # \udcff: byte 0xFF
                out = out[:at] + bad + out[at:]
        sys.stdout.buffer.write(out.encode("utf-8", "surrogateescape") + b"\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
