#!/usr/bin/env python3
"""Hostile rows for convert's fast paths (the line path's skeleton match, the row reader's cut, the
render cache's text cuts): each input line is written as it is (so that its shape is learned) and
again in variants a json.dumps never writes but json::parse reads the same (or refuses): texts
spelt with raw escapes (\\u0000, lone and paired surrogates, upper-case hex, \\/), raw bytes that
are not UTF-8 (overlong, encoded surrogates, past U+10FFFF, cut short), DEL and controls, a
duplicated key, members in another order, compact or spaced separators, extra numeric members
(1e5, -0, 1.0), content null / missing / "" / [] / a parts list, CRLF line ends and trailing
blanks. Compare two builds' output and stderr with cmp.

  python3 tests/convert/hostile_rows.py --seed 1 < rows.jsonl > hostile.jsonl
"""
import argparse
import json
import random
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from edit_rows import texts  # noqa: E402 (the same texts edit_rows.py edits)

RAW_TEXTS = [
    r"\u0000", r"a\u0000b", r"\ud800", r"x\udc00", r"\ud83d\ude00", r"\uD83D\uDE00", r"\ud83dx", r"\u00E9",
    r"\u00e9t\u00e9", r"\/", r"a\/b", r"\u0041BC", r"\"", r"\\", r"a\\", r"\\\"", r"\b\f\n\r\t", r"\x", r"\u12",
    r"\U0041", r"\'", r"\u007f", r"\u2028", r"\u00a0x", r"x\u00a0", r"\u0020x", r"x\u0020", r"\ue000",
    r"\u003c/think\u003e", r"</think>", r"<think>\n", r"\n</think>\n\n", r"a</think>b", r"</think></think>",
    r"<tool_call>", r"<|im_end|>", r"<|eot_id|>", r"<|python_tag|>", r"[TOOL_CALLS]", r"<|start_header_id|>",
]
RAW_BYTES = [
    b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\xe2\x82",
    b"\x80", b"\x7f", b"a\x7f", b"\x7fa", b"\x1f", b"\t", b"\xe2\x80\xa8", b"\xc2\xa0", b"\xef\xbb\xbf",
    b"\xf0\x9f\x98\x80", b"\xee\x80\x80",
]
def raw_text(rng, original):
    """A text's contents as raw JSON bytes."""
    pieces = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        if rng.random() < 0.6:
            pieces.append(rng.choice(RAW_TEXTS).encode())
        else:
            pieces.append(rng.choice(RAW_BYTES))
    body = json.dumps(original, ensure_ascii=False)[1:-1].encode()
    where = rng.random()
    glue = b"".join(pieces)
    if where < 0.3:
        return glue
    if where < 0.55:
        return glue + body
    if where < 0.8:
        return body + glue
    at = rng.randint(0, len(body))
    while at > 0 and (body[at - 1:at] == b"\\" or (body[at] & 0xC0) == 0x80 if at < len(body) else False):
        at -= 1
    return body[:at] + glue + body[at:]


def placeholder_line(rng, row):
    """The row with one to three texts replaced by raw spellings."""
    found = []
    texts(row.get("messages"), found)
    if not found:
        return None
    subs = {}
    for n, (node, key) in enumerate(rng.sample(found, min(len(found), rng.choice((1, 1, 2, 3))))):
        ph = "@@PH%d@@" % n
        subs[ph] = raw_text(rng, node[key])
        node[key] = ph
    line = json.dumps(row, ensure_ascii=rng.random() < 0.3).encode()
    for ph, raw in subs.items():
        line = line.replace(ph.encode(), raw)
    return line


def structural(rng, row, line):
    kind = rng.randrange(13)
    msgs = row.get("messages") or []
    if kind == 0:  # a duplicated content key (first or last wins?)
        m = re.search(rb'"content": ("(?:[^"\\]|\\.)*"|null)', line)
        if m:
            dup = rng.choice((b'"content": "dup", ', b'"content": null, ', b'"content": "", '))
            return line[:m.start()] + dup + line[m.start():]
    if kind == 1:  # members in another order
        for m in msgs:
            items = list(m.items())
            rng.shuffle(items)
            m.clear()
            m.update(items)
        return json.dumps(row).encode()
    if kind == 2:  # compact separators
        return json.dumps(row, separators=(",", ":")).encode()
    if kind == 3:  # spaced, tabs
        return json.dumps(row, separators=(" ,\t", " : ")).encode()
    if kind == 4 and msgs:  # extra numbers
        rng.choice(msgs)["score"] = rng.choice((1e5, -0.0, 1.0, 0, -1, 1e-7, 12345678901234567890))
        line = json.dumps(row).encode()
        return line.replace(b"100000.0", rng.choice((b"1e5", b"1E+5", b"100000.0")))
    if kind == 5 and msgs:  # content null / missing / "" / [] / parts
        m = rng.choice(msgs)
        c = rng.randrange(5)
        if c == 0:
            m["content"] = None
        elif c == 1:
            m.pop("content", None)
        elif c == 2:
            m["content"] = ""
        elif c == 3:
            m["content"] = []
        else:
            m["content"] = [{"type": "text", "text": m.get("content") or ""}, {"type": "text", "text": " "}]
        return json.dumps(row).encode()
    if kind == 6:  # CRLF / trailing blanks
        return line + rng.choice((b"\r", b" ", b"\t", b" \r"))
    if kind == 7 and msgs:  # arguments as an object, or a string of odd JSON
        for m in msgs:
            for c in m.get("tool_calls") or []:
                f = c.get("function", {})
                a = f.get("arguments")
                if isinstance(a, str):
                    try:
                        f["arguments"] = json.loads(a) if rng.random() < 0.5 else a.replace(" ", "") + " "
                    except ValueError:
                        pass
                elif isinstance(a, dict):
                    f["arguments"] = json.dumps(a)
        return json.dumps(row).encode()
    if kind == 8:  # a reasoning_content
        for m in msgs:
            if m.get("role") == "assistant":
                m["reasoning_content"] = rng.choice(("think", "", " ", "a</think>b", "\n"))
                break
        return json.dumps(row).encode()
    if kind == 9:  # deep nesting in tools
        deep = 0
        for _ in range(rng.choice((5, 60, 130, 300))):
            deep = [deep]
        row["extra"] = deep
        return json.dumps(row).encode()
    if kind == 11 and msgs:  # long texts: offsets past 10,000 and 100,000, bytes past code points
        m = rng.choice(msgs)
        if isinstance(m.get("content"), str):
            m["content"] = rng.choice(("x", "\u00e9", "ab ", "\U0001F600")) * rng.choice((4000, 9999, 60000)) + m["content"]
        return json.dumps(row, ensure_ascii=rng.random() < 0.5).encode()
    if kind == 10:  # escaped keys
        return line.replace(b'"role"', b'"r\\u006fle"', 1)
    return line.replace(b'"messages"', rng.choice((b'"messages"', b'"messages" ')), 1)


ALPHABET = [
    b"\\u", b"\\", b"\\\\", b'\\"', b"\\/", b"\\n", b"\\x", b"d8", b"D8", b"dc", b"00", b"0", b"7f", b"e9", b"ud",
    b"a", b"Z", b" ", b"<", b"/", b">", b"think", b"\x7f", b"\xc2", b"\xa0", b"\x80", b"\xbf", b"\xe2", b"\xf0",
    b"\x9f", b"\xed", b"\xa0", b"\xc0", b"\xff", b"\x01", b"\t", b"\xee",
]


VALID = [
    b"\\u00e9", b"\\u00E9", b"\\ud83d\\ude00", b"\\uD83D\\uDE00", b"\\u0000", b"\\u001f", b"\\u007f", b"\\u00a0",
    b"\\u2028", b"\\ue000", b"\\n", b"\\t", b"\\r", b"\\b", b"\\f", b"\\/", b'\\"', b"\\\\", b"\xc3\xa9",
    b"\xf0\x9f\x98\x80", b"\xc2\xa0", b"\xc2\x85", b"\xe2\x80\xa8", b"\xe3\x80\x80", b"\xee\x80\x81", b"\x7f",
    b"\xef\xbb\xbf", b"a", b"bc", b" ", b"<", b">", b"</think>", b"<think>", b"\\u003c", b"{", b"'",
]


def fuzz_text(rng):
    """Random raw bytes for a text: most of them valid JSON string contents (escapes, UTF-8, DEL,
    marker and space characters), some made of pieces that form escapes and UTF-8 or break them."""
    pieces = VALID if rng.random() < 0.8 else ALPHABET
    return b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12)))


def fuzz_lines(rng, lines, count, out):
    """Each line, then `count` copies with one text's contents replaced by fuzz_text, each followed by
    the line again."""
    for line in lines:
        out.write(line + b"\n")
        for _ in range(count):
            row = json.loads(line)
            found = []
            texts(row.get("messages"), found)
            if not found:
                break
            node, key = rng.choice(found)
            node[key] = "@@PH@@"
            out.write(json.dumps(row).encode().replace(b"@@PH@@", fuzz_text(rng)) + b"\n")
            out.write(line + b"\n")  # keeps the line path on (it turns off where few lines take it)


def main():
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--fuzz", type=int, default=0, help="instead: this many fuzzed texts per line")
    options.add_argument("--seed", type=int, default=1)
    args = options.parse_args()
    rng, out = random.Random(args.seed), sys.stdout.buffer
    if args.fuzz:
        fuzz_lines(rng, [l.rstrip(b"\n") for l in sys.stdin.buffer if l.strip()], args.fuzz, out)
        return
    for line in sys.stdin.buffer:
        line = line.rstrip(b"\n")
        if not line:
            continue
        out.write(line + b"\n")  # the shape learned
        row = json.loads(line)
        for _ in range(rng.choice((1, 2, 3))):
            r = rng.random()
            copy = json.loads(line)
            if r < 0.6:
                v = placeholder_line(rng, copy)
            else:
                v = structural(rng, copy, json.dumps(copy).encode())
            if v is not None:
                out.write(v + b"\n")
    # a last line without its newline
    out.write(b'{"messages": [{"role": "user", "content": "last"}, {"role": "assistant", "content": "x\\u0000"}]}')


if __name__ == "__main__":
    main()
