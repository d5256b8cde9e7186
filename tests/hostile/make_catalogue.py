#!/usr/bin/env python3
"""Builds the hostile-input catalogue: tests/hostile/template.jsonl and tests/hostile/json.jsonl.

  make_catalogue.py [--only ID_SUBSTR]

The cases are defined in cases_*.py (one module a family of attack, catalogue_defs.py has the
record helpers); this file puts them in catalogue order, marks the known issues and computes
the expectations. Expectations:
- "oracle" cases: the exact result of the reference renderer (tests/oracle/hf_render.py's
  render_case, i.e. Jinja2's ImmutableSandboxedEnvironment as transformers configures it),
  computed here, each in a forked child under a 2 GiB address-space limit and a 30 s timeout.
  With "or_limit" our engine may also answer with a limit error (it is allowed to be stricter).
- "limit" cases (resource bombs, deep nesting beyond our limits): any error whose "Class: message"
  matches LIMIT_RE, within max_seconds. Jinja2 hangs, allocates gigabytes or hits RecursionError.
- "bounded" cases: any output, or a limit error, within max_seconds (Jinja2 itself does not finish).
- "fail" cases (raw bytes that are not UTF-8, in a template or context file): the oracle cannot even
  read such a file; its exception (class and message, e.g. UnicodeDecodeError: 'utf-8' codec can't
  decode byte ...) is recorded, and the CLI must exit 1 or 3 cleanly naming the same class and message.
JSON cases: the parsed value must dump (json.dumps, ensure_ascii=True) exactly as Python's
json.loads + json.dumps does, or fail with Python's exact error; "error_match" cases (depth,
invalid UTF-8) only need an error matching a regex.

Needs python3 with jinja2 3.1.x (the oracle's). Takes about a minute.
"""
import argparse
import base64
import hashlib
import json
import os
import resource
import signal
import sys
import time
from pathlib import Path

import cases_context
import cases_invalid_utf8
import cases_json
import cases_nesting
import cases_numbers
import cases_resource_bombs
import cases_sandbox
import cases_syntax
from catalogue_defs import D, JSON_CASES, LIMIT_RE, ROOT, TPL_CASES, G, materialize, serialize

sys.path.insert(0, str(ROOT / "tests" / "oracle"))
import hf_render  # noqa: E402

hf_render.FIXED_NOW = __import__("datetime").datetime.fromisoformat("2026-01-15T09:30:00")

BIG_TEXT = 4096  # outputs longer than this are stored as length + sha256

# The families in catalogue order (the order of the lines in template.jsonl and json.jsonl).
ADD_CASES = [
    cases_sandbox.add_cases,
    cases_resource_bombs.add_cases,
    cases_nesting.add_cases,
    cases_resource_bombs.add_range_and_loop_cases,
    cases_numbers.add_cases,
    cases_syntax.add_cases,
    cases_invalid_utf8.add_cases,
    cases_context.add_cases,
    cases_json.add_cases,
]


# ============================================================================ known issues
# Findings of this catalogue that are not fixed yet (issue 7 / issue 2). The driver reports them as
# KNOWN instead of failing, and says when one starts passing. Delete an entry once it is fixed.
KNOWN = {
    "esc_templateref": "no `self` (TemplateReference) object",
    "esc_templateref_print": "no `self` (TemplateReference) object",
    "esc_config_request": "no `self` (TemplateReference) object",
    "break_after_one": "range() charges one step per item when created: 10^5 inner range(100000) hit the step limit",
    "int_digits_dead": "Jinja2 constant-folds 10**5000 at compile time even in a dead branch",
    "nan_compare": "[x] == [x] with x NaN: Python compares list items by identity first (True)",
    "syn_bom_in_expr": "U+FEFF inside a tag is accepted as whitespace; Jinja2: unexpected char",
    "ctx_chatml_special_tokens_list": "chat layer ignores a special_tokens that is not a dict (oracle: ValueError)",
    "ctx_tools_special_tokens_list": "chat layer ignores a special_tokens that is not a dict",
    "ctx_chatml_special_tokens_str": "chat layer ignores a special_tokens that is not a dict",
    "ctx_tools_special_tokens_str": "chat layer ignores a special_tokens that is not a dict",
    "ctx_chatml_special_tokens_null": "chat layer ignores special_tokens null (oracle: TypeError)",
    "ctx_tools_special_tokens_null": "chat layer ignores special_tokens null (oracle: TypeError)",
}


def build_cases():
    """Fills TPL_CASES and JSON_CASES, marking the known issues."""
    for add in ADD_CASES:
        add()
    for c in TPL_CASES + JSON_CASES:
        if c["id"] in KNOWN:
            c["known_issue"] = KNOWN[c["id"]]


# ============================================================================ evaluation
def run_limited(fn, timeout=30):
    """fn() in a forked child under 2 GiB of address space; returns its JSON-able result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
            out = json.dumps(fn(), ensure_ascii=True).encode()
        except BaseException as e:  # noqa: BLE001
            out = json.dumps({"error": type(e).__name__, "message": str(e), "harness": True}).encode()
        with os.fdopen(w, "wb") as f:
            f.write(out)
        os._exit(0)
    os.close(w)
    data = b""
    start = time.time()
    with os.fdopen(r, "rb") as f:
        os.set_blocking(f.fileno(), False)
        while True:
            try:
                chunk = f.read()
            except BlockingIOError:
                chunk = None
            if chunk:
                data += chunk
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done:
                rest = f.read()
                if rest:
                    data += rest
                break
            if time.time() - start > timeout:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return {"timeout": True}
            time.sleep(0.002)
    return json.loads(data) if data else {"error": "Crash", "message": "no output"}


def oracle_case(template, ctx):
    def fn():
        try:
            c = dict(ctx)
            if "messages" not in c:
                return {"error": "KeyError", "message": "'messages'"}
            return hf_render.render_case(template, c, {})
        except BaseException as e:  # noqa: BLE001 (outside the oracle's own try: special_tokens etc.)
            return {"error": type(e).__name__, "message": str(e)}
    return run_limited(fn)


def oracle_file_error(template_bytes, context_bytes):
    """The oracle's CLI on files holding these bytes: the exception it dies with (it must die)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        tp, cp = Path(tmp) / "t.jinja", Path(tmp) / "c.json"
        tp.write_bytes(template_bytes)
        cp.write_bytes(context_bytes)
        p = subprocess.run([sys.executable, str(ROOT / "tests" / "oracle" / "hf_render.py"), "--template", str(tp),
                            "--context", str(cp), "--json"], capture_output=True, timeout=60)
    last = p.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
    cls, sep, msg = last[0].partition(": ")
    if p.returncode == 0 or not sep:
        sys.exit(f"the oracle read a bad file without an exception: {p.returncode} {last}")
    return {"error": cls.rsplit(".", 1)[-1], "message": msg}


def expect_of(res):
    if "text" in res:
        e = {"kind": "output", "generation_spans": res["generation_spans"]}
        if len(res["text"]) > BIG_TEXT:
            enc = res["text"].encode("utf-8", "surrogatepass")
            e["length"] = len(res["text"])
            e["sha256"] = hashlib.sha256(enc).hexdigest()
        else:
            e["text"] = res["text"]
        return e
    return {"kind": "error", "error": res["error"], "message": res["message"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default=None)
    args = ap.parse_args()
    build_cases()
    out_dir = Path(__file__).resolve().parent
    seen = set()
    lines = []
    for c in TPL_CASES:
        assert c["id"] not in seen, c["id"]
        seen.add(c["id"])
        if args.only and args.only not in c["id"]:
            continue
        rec = {"id": c["id"], "group": c["group"], "why": c["why"]}
        if c.get("known_issue"):
            rec["known_issue"] = c["known_issue"]
        if c["kind"] == "fail":
            tb = c["template_bytes"] or b"{{ messages[0].content }}"
            cb = c["context_bytes"] or json.dumps(D).encode()
            rec["template_b64"] = base64.b64encode(tb).decode()
            rec["context_b64"] = base64.b64encode(cb).decode()
            rec["expect"] = {"kind": "fail", **oracle_file_error(tb, cb)}
        else:
            rec["template"] = serialize(c["template"])
            rec["context"] = serialize(c["context"])
            if c["kind"] in ("limit", "bounded"):
                rec["expect"] = {"kind": c["kind"], "match": LIMIT_RE, "max_seconds": c["max_seconds"]}
            else:
                t0 = time.time()
                res = oracle_case(materialize(c["template"]), materialize(c["context"]))
                dt = time.time() - t0
                if "timeout" in res or res.get("harness") or res.get("error") == "MemoryError":
                    sys.exit(f"{c['id']}: the oracle did not finish cleanly ({res}); make it a limit case")
                if dt > 5:
                    print(f"note: {c['id']} took the oracle {dt:.1f} s", file=sys.stderr)
                rec["expect"] = expect_of(res)
                if c["or_limit"]:
                    rec["expect"]["or_limit"] = LIMIT_RE
        lines.append(json.dumps(rec, ensure_ascii=True))
    jlines = []
    for c in JSON_CASES:
        assert c["id"] not in seen, c["id"]
        seen.add(c["id"])
        data = c["data"]
        rec = {"id": c["id"], "group": c["group"], "why": c["why"]}
        if c.get("known_issue"):
            rec["known_issue"] = c["known_issue"]
        if isinstance(data, G):
            rec["input_gen"] = data.parts
            data = data.text().encode("utf-8")
        elif isinstance(data, bytes):
            rec["input_b64"] = base64.b64encode(data).decode()
        else:
            rec["input"] = data
            data = data.encode("utf-8", "surrogatepass")
        if c["error_match"]:
            rec["expect"] = {"kind": "error_match", "match": c["error_match"]}
        else:
            def fn(data=data):
                try:
                    v = json.loads(data.decode("utf-8"))
                    return {"dumps": json.dumps(v)}
                except Exception as e:  # noqa: BLE001
                    return {"error": type(e).__name__, "message": str(e)}
            res = run_limited(fn)
            if "dumps" in res:
                rec["expect"] = {"kind": "value", "dumps": res["dumps"]}
            else:
                rec["expect"] = {"kind": "error", "error": res["error"], "message": res["message"]}
        jlines.append(json.dumps(rec, ensure_ascii=True))
    if args.only:
        print("\n".join(lines + jlines))
        return
    (out_dir / "template.jsonl").write_text("\n".join(lines) + "\n", encoding="ascii")
    (out_dir / "json.jsonl").write_text("\n".join(jlines) + "\n", encoding="ascii")
    print(f"{len(lines)} template cases, {len(jlines)} JSON cases", file=sys.stderr)


if __name__ == "__main__":
    main()