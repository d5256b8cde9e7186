#!/usr/bin/env python3
"""Writes each verb's `toolchat VERB --help` output into README.md's <details> blocks (the ctest
`cli` checks that they are the program's). A verb without a block gets one after the last.

  tools/readme_help.py --toolchat build/toolchat [--readme README.md]
"""
import argparse
import os
import re
import subprocess

VERBS = ["render", "detect", "parse", "check", "convert", "serve", "tokenize", "completion"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--readme", default="README.md")
    a = ap.parse_args()
    with open(a.readme, encoding="utf-8") as f:
        text = f.read()
    for verb in VERBS:
        help_text = subprocess.run([a.toolchat, verb, "--help"], capture_output=True, text=True, check=True).stdout.rstrip()
        head = f"<details><summary><code>toolchat {verb} --help</code></summary>\n\n```\n"
        block = head + help_text + "\n```\n</details>"
        pattern = re.compile(re.escape(head) + r".*?\n```\n</details>", re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: block, text, count=1)
        else:
            last = [m.end() for m in re.finditer(r"<details><summary><code>toolchat \w+ --help</code></summary>.*?\n```\n</details>", text, re.S)][-1]
            text = text[:last] + "\n\n" + block + text[last:]
    with open(a.readme + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(a.readme + ".tmp", a.readme)


if __name__ == "__main__":
    main()
