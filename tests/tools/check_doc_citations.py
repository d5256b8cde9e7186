#!/usr/bin/env python3
"""Checks that every citation of the project's documents points at something that exists.

  check_doc_citations.py [--root DIR] [--self-test]

A citation is `docs/NAME.md`, optionally followed on the same line by section references
(`docs/dialects.md §3.1`, `§4.1-4.2`, `§5.1, §7.1`, `§3.4 and §8`). Rules, for every tracked text
file outside third-party data (tests/corpus/, tests/dialects/templates/):
  - docs/NAME.md must exist;
  - each §N (each end of a range) must be a heading of that file: `## N. Title` or `### N Title`;
  - a section reference binds to the last document named before it on its line, else to the first
    one after it ("§2 of docs/x.md"), else to one named on the two lines before it; inside docs/NAME.md a bare § refers to NAME.md itself; after "issue N" it is the
    issue's and is not checked;
  - outside docs/, the project's documents are cited with their path (`docs/dialects.md`, not
    `dialects.md`), and nothing cites the reference material outside the repository
    (`../shared/docs`, its corpus and oracle; `../shared/third_party`, a test dependency built like
    a Debian package, may be named).
Exit status 0 when every citation holds, 1 otherwise (one line per problem: file:line: what).
Standard library only; any python3 runs it.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

SKIP_DIRS = ("tests/corpus/", "tests/dialects/templates/", "fuzz/seeds/", "build", ".git/", "node_modules/")
# This file spells out the patterns it looks for.
SKIP_FILES = ("tests/tools/check_doc_citations.py",)
TEXT_EXT = {".cpp", ".hpp", ".h", ".c", ".cc", ".def", ".py", ".sh", ".mjs", ".js", ".json", ".md",
            ".txt", ".cmake", ".tsv", ""}
# Documents that lived outside the repository before; a bare mention is a citation of them.
PROJECT_DOCS = {"design", "dialects", "reliability", "style"}

DOC_RE = re.compile(r"(?<![\w/.-])((?:\.\./)*(?:docs/)?)([A-Za-z0-9_-]+)\.md\b")
SECTION_RE = re.compile(r"§\s*(\d+(?:\.\d+)*)(?:\s*[-–]\s*(\d+(?:\.\d+)*))?")
# "issue 12 §6": a section of an issue, not of a document.
ISSUE_RE = re.compile(r"\bissues?\s*#?\d+")
OUTSIDE_RE = re.compile(r"(\.\./shared/(?:docs|corpus|oracle)\b|/work/shared/(?:docs|corpus|oracle)\b|shared docs/)")
HEADING_RE = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?(?:\s|$)")


def list_files(root, use_git=True):
    files = []
    if use_git and os.path.isdir(os.path.join(root, ".git")) or os.path.isfile(os.path.join(root, ".git")):
        try:
            # Tracked files and new ones not ignored yet, so a citation is checked before its commit.
            out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                 capture_output=True, check=True).stdout
            # (a set: during a merge, a conflicted file is listed once per stage)
            files = sorted({f for f in out.decode("utf-8", "replace").split("\0")
                            if f and os.path.isfile(os.path.join(root, f))})
        except (OSError, subprocess.CalledProcessError):
            files = []
    if not files:
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if not x.startswith(".") and not x.startswith("build") and x != "node_modules"]
            for n in names:
                files.append(os.path.relpath(os.path.join(d, n), root).replace(os.sep, "/"))
    keep = []
    for f in files:
        if f in SKIP_FILES or any(f.startswith(s) or ("/" + s) in f for s in SKIP_DIRS):
            continue
        base = os.path.basename(f)
        ext = os.path.splitext(base)[1]
        if ext in TEXT_EXT or base in ("Makefile", "CMakeLists.txt"):
            keep.append(f)
    return sorted(keep)


def headings(path):
    """Section numbers of a markdown file (headings inside code fences are not sections)."""
    out = set()
    fence = None
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            s = line.lstrip()
            for mark in ("```", "~~~"):
                if s.startswith(mark):
                    if fence is None:
                        fence = mark
                    elif fence == mark:
                        fence = None
                    break
            else:
                if fence is None:
                    m = HEADING_RE.match(line)
                    if m:
                        out.add(m.group(1))
    return out


def check(root):
    problems = []
    cache = {}

    def sections_of(name):
        if name not in cache:
            p = os.path.join(root, "docs", name + ".md")
            cache[name] = headings(p) if os.path.isfile(p) else None
        return cache[name]

    cited = 0
    for rel in list_files(root):
        path = os.path.join(root, rel)
        try:
            with open(path, encoding="utf-8") as fh:
                lines = fh.read().split("\n")
        except (UnicodeDecodeError, OSError):
            continue
        in_docs = rel.startswith("docs/") and rel.endswith(".md")
        self_doc = os.path.splitext(os.path.basename(rel))[0] if in_docs else None
        recent = []  # (line number, document) of the last mentions, for a § on a following line
        for no, line in enumerate(lines, 1):
            where = "%s:%d" % (rel, no)
            m = OUTSIDE_RE.search(line)
            if m:
                problems.append("%s: cites %r, outside the repository" % (where, m.group(1)))
            # Documents named on this line, by position.
            docs = []
            for d in DOC_RE.finditer(line):
                prefix, name = d.group(1), d.group(2)
                if prefix.startswith("../"):
                    continue  # a relative path of some other tree; OUTSIDE_RE reports ../shared
                if prefix == "docs/":
                    if sections_of(name) is None:
                        problems.append("%s: docs/%s.md does not exist" % (where, name))
                    docs.append((d.start(), name))
                elif name in PROJECT_DOCS or (in_docs and sections_of(name) is not None):
                    if not in_docs:
                        problems.append("%s: cite %s.md as docs/%s.md" % (where, name, name))
                    if sections_of(name) is None:
                        problems.append("%s: docs/%s.md does not exist" % (where, name))
                    docs.append((d.start(), name))
            named = bool(docs)
            docs += [(i.start(), None) for i in ISSUE_RE.finditer(line)]
            docs.sort(key=lambda d: d[0])
            for s in SECTION_RE.finditer(line):
                before = [n for pos, n in docs if pos < s.start()]
                if before:
                    doc = before[-1]
                    if doc is None:
                        continue  # an issue's section
                elif named:  # "§2 of docs/dialects.md"
                    doc = [n for pos, n in docs if pos > s.start() and n is not None][0]
                elif self_doc is not None and not named:
                    doc = self_doc
                elif recent and no - recent[-1][0] <= 2:
                    doc = recent[-1][1]
                else:
                    if not in_docs and not named:
                        problems.append("%s: §%s names no document" % (where, s.group(1)))
                    continue
                have = sections_of(doc)
                if have is None:
                    continue
                for num in filter(None, (s.group(1), s.group(2))):
                    if s.group(2) and num == s.group(2) and "." not in num and "." in s.group(1):
                        num = s.group(1).rsplit(".", 1)[0] + "." + num  # §4.1-2 means §4.1 to §4.2
                    cited += 1
                    if num not in have:
                        problems.append("%s: docs/%s.md has no section %s" % (where, doc, num))
            if named:
                recent.append((no, [n for _, n in docs if n is not None][-1]))
    return problems, cited


def self_test():
    """The checker must catch each kind of broken citation (else this test could never fail)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.makedirs(os.path.join(tmp, "docs"))
        os.makedirs(os.path.join(tmp, "src"))
        with open(os.path.join(tmp, "docs", "dialects.md"), "w", encoding="utf-8") as fh:
            fh.write("# t\n## 1. One\n### 1.1 Sub\n```\n## 9. In a fence\n```\n## 2. Two\n")
        cases = {
            "// docs/dialects.md §1.1 and §2": 0,
            "// docs/dialects.md §1.1-1.1, §1": 0,
            "// docs/dialects.md §3": 1,
            "// docs/dialects.md §9": 1,
            "// docs/dialects.md §1.2": 1,
            "// dialects.md §1": 1,
            "// docs/nothing.md": 1,
            "// see /work/shared/docs/x.md": 1,
            "// see ../shared/docs/dialects.md": 1,
            "# built from ../shared/third_party/llama.cpp-x.tar.gz": 0,
            "// docs/dialects.md\n// (§2)": 0,
            "// docs/dialects.md\n//\n//\n// §2": 1,
            "// issue 12 §6": 0,
            "// (issue 12 §1, §2) and docs/dialects.md §2, §7": 1,
            "// §2 of docs/dialects.md": 0,
            "// §7 of docs/dialects.md": 1,
        }
        bad = []
        for text, want in cases.items():
            with open(os.path.join(tmp, "src", "a.cpp"), "w", encoding="utf-8") as fh:
                fh.write(text + "\n")
            got = len(check(tmp)[0])
            if got != want:
                bad.append("self-test: %r gave %d problems, expected %d" % (text, got, want))
        return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument("--self-test", action="store_true", help="only check the checker")
    a = ap.parse_args()
    bad = self_test()
    if not a.self_test:
        problems, cited = check(a.root)
        bad += problems
    for p in bad:
        print(p)
    if bad:
        print("%d citation problem(s)" % len(bad), file=sys.stderr)
        return 1
    if not a.self_test:
        print("%d section references, all present" % cited)
    return 0


if __name__ == "__main__":
    sys.exit(main())
