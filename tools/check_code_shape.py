#!/usr/bin/env python3
"""Lists the code-shape findings docs/design.md asks to keep at zero (issue 14):

  long     functions (lambdas included) longer than --max-lines lines (default 120)
  bools    calls that pass a bare `true`/`false` to a function with two or more bool parameters
  file     source files over --max-file-lines lines (default 800), generated tables excepted

Function extents and signatures come from Universal Ctags (Debian package `universal-ctags`);
calls are matched to functions by name, so an overload set counts when any of its members has two
or more bool parameters. Standard library only. Prints one finding per line
(`KIND path:line: what`) and exits 1 when there is any, 0 when there is none.

  tools/check_code_shape.py [--max-lines N] [--max-file-lines N] [--exclude DIR ...] [PATH ...]
"""
import argparse
import os
import re
import subprocess
import sys

SOURCE_EXT = (".cpp", ".hpp", ".h", ".cc", ".def")
# Tables written by tools/gen_* (their size is data, not code).
GENERATED = re.compile(r"(normalization_data|unicode_classes|unicode_data|unicode_names)\.")


def source_files(paths, excludes):
    for root in paths:
        if os.path.isfile(root):
            yield root
            continue
        for d, dirs, files in os.walk(root):
            dirs[:] = sorted(x for x in dirs if os.path.join(d, x) not in excludes)
            for f in sorted(files):
                if f.endswith(SOURCE_EXT):
                    yield os.path.join(d, f)


def ctags(files):
    out = subprocess.run(["ctags", "--output-format=json", "--fields=+neS", "--c++-kinds=fp", "-o", "-", *files],
                         check=True, capture_output=True, text=True).stdout
    import json
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def split_top_level(text):
    """The comma-separated parts of `text`, commas inside brackets (<>, (), [], {}) kept."""
    depth, cur, parts = 0, "", []
    for c in text:
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    parts.append(cur)
    return parts


def bool_params(signature):
    """How many parameters of a ctags signature "(bool a, int b = 0, ...)" are bool."""
    params = split_top_level(signature.strip()[1:-1])
    return sum(1 for p in params if re.match(r"\s*(const\s+)?bool\b(?!\s*[*&])", p))


def strip_comments_and_strings(text):
    """The text with comments and string/char literal contents blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def call_args(text, open_paren):
    """Top-level arguments of the call whose '(' is at open_paren, or None when unbalanced."""
    depth = 0
    for i in range(open_paren, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                # '<' and '>' are comparisons in arguments, not brackets: split on ( [ { only.
                return split_top_level(text[open_paren + 1:i].replace("<", " ").replace(">", " "))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", default=["src", "include"])
    ap.add_argument("--max-lines", type=int, default=120)
    ap.add_argument("--max-file-lines", type=int, default=800)
    ap.add_argument("--exclude", action="append", default=[], help="a directory to skip (repeatable)")
    a = ap.parse_args()
    files = list(source_files(a.paths, set(os.path.normpath(x) for x in a.exclude)))
    if not files:
        print("check_code_shape: no source files under " + " ".join(a.paths), file=sys.stderr)
        return 2
    findings = []
    tags = ctags(files)
    multi_bool = set()
    for t in tags:
        if "signature" in t and bool_params(t["signature"]) >= 2:
            multi_bool.add(t["name"])
        if t.get("kind") != "function" or "end" not in t:
            continue
        n = t["end"] - t["line"] + 1
        if n > a.max_lines:
            name = t["name"] if not t["name"].startswith("__anon") else "lambda in " + t.get("scope", "?")
            findings.append(("long", t["path"], t["line"], "%s: %d lines" % (name, n)))
    call = re.compile(r"(?<![\w.])(?:[\w:]+::|\.|->)?(\w+)\s*\(")
    for f in files:
        with open(f, encoding="utf-8", errors="replace") as fh:
            raw = fh.read()
        lines = raw.count("\n") + (0 if raw.endswith("\n") else 1)
        if lines > a.max_file_lines and not GENERATED.search(os.path.basename(f)):
            findings.append(("file", f, 1, "%d lines" % lines))
        text = strip_comments_and_strings(raw)
        for m in call.finditer(text):
            if m.group(1) not in multi_bool:
                continue
            args = call_args(text, m.end() - 1)
            if not args:
                continue
            bare = [i for i, x in enumerate(args) if x.strip() in ("true", "false")]
            # A declaration or definition lists types, not values.
            if bare and not re.search(r"\bbool\b", ",".join(args)):
                line = text.count("\n", 0, m.start()) + 1
                findings.append(("bools", f, line, "%s(...) gets bare %s as argument %s" % (
                    m.group(1), "/".join(sorted({args[i].strip() for i in bare})),
                    ", ".join(str(i + 1) for i in bare))))
    for kind, path, line, what in sorted(findings, key=lambda x: (x[0], x[1], x[2])):
        print("%-5s %s:%d: %s" % (kind, path, line, what))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
