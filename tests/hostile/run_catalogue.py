#!/usr/bin/env python3
"""Runs the hostile-input catalogue (tests/hostile/template.jsonl) through `toolchat render`.

  run_catalogue.py --toolchat PATH [--catalogue FILE] [--filter SUBSTR] [--show N]
                   [--time-scale X] [--bounded [--rlimit-as BYTES]]

Expectation kinds (see make_catalogue.py):
  output / error   exact oracle result (one `render --batch` run for all of them); "or_limit" also
                   accepts a limit-class error
  limit            a limit-class error ("Class: message" matches the case's regex) within
                   max_seconds (x --time-scale) of CPU time, one process per case
  bounded          any output or a limit-class error within max_seconds of CPU time, one process
                   per case
  fail             raw bytes that are not UTF-8 (files): exit status 1 or 3, no signal, no output
                   text, and stderr names the oracle's exception class and message

Times are the child's CPU time (user + system), so that a loaded machine does not fail a bound
the engine keeps; a wall-clock timeout (5x the bound, at least 10 s) still catches hangs.

--bounded runs only the limit and bounded cases, each in a child under an address-space limit
(RLIMIT_AS, default 1 GiB): the engine must answer with its own limit error before memory runs
out (a MemoryError, i.e. bad_alloc at the address-space limit, fails), never abort or be killed. Under AddressSanitizer RLIMIT_AS cannot work (the shadow memory alone is larger),
so --bounded exits 77 (skipped) when the binary is instrumented.

Cases with "known_issue" (open findings, listed in make_catalogue.py's KNOWN) are reported as
KNOWN and do not fail the run. Exit status 0 when every other case passes, 1 otherwise. Only the standard library is used.
"""
import argparse
import base64
import hashlib
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def expand(o):
    if isinstance(o, dict):
        if set(o) == {"$gen"}:
            return "".join(p[1] if p[0] == "lit" else p[1] * p[2] for p in o["$gen"])
        return {k: expand(v) for k, v in o.items()}
    if isinstance(o, list):
        return [expand(v) for v in o]
    return o


def load(path):
    cases = []
    with open(path, encoding="ascii") as f:
        for line in f:
            if line.strip():
                cases.append(json.loads(line))
    return cases


def decode_out(data):
    return data.decode("utf-8", "surrogatepass")


def batch_line(c):
    return json.dumps({"id": c["id"], "template": expand(c["template"]), "context": expand(c["context"])},
                      ensure_ascii=True)


def describe(res):
    if res is None:
        return "no result"
    if "text" in res:
        t = res["text"]
        return "output %r%s" % (t[:300], "..." if len(t) > 300 else "")
    return "%s: %s" % (res.get("error"), str(res.get("message"))[:300])


def check_result(c, res, elapsed):
    """Returns None when res meets c's expectation, else a reason."""
    e = c["expect"]
    kind = e["kind"]
    if res is None:
        return "no result"
    if kind in ("limit", "bounded"):
        if elapsed is not None and elapsed > e["max_seconds"] * ARGS.time_scale:
            return "took %.2f s of CPU (limit %.1f s)" % (elapsed, e["max_seconds"] * ARGS.time_scale)
        if "text" in res:
            return None if kind == "bounded" else "rendered instead of a limit error: " + describe(res)
        msg = "%s: %s" % (res["error"], res["message"])
        if ARGS.bounded and res["error"] == "MemoryError":
            return "ran out of address space (MemoryError) before an engine limit stopped it"
        return None if re.search(e["match"], msg) else "not a limit error: " + msg[:300]
    if kind == "output":
        if "text" in res:
            if "sha256" in e:
                t = res["text"]
                if len(t) != e["length"] or hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() != e["sha256"]:
                    return "output differs (length %d, expected %d)" % (len(t), e["length"])
            elif res["text"] != e["text"]:
                return "output %r, expected %r" % (res["text"][:300], e["text"][:300])
            if res.get("generation_spans") != e["generation_spans"]:
                return "spans %r, expected %r" % (res.get("generation_spans"), e["generation_spans"])
            return None
    elif kind == "error":
        if "error" in res and res["error"] == e["error"] and res["message"] == e["message"]:
            return None
    if "or_limit" in e and "error" in res and re.search(e["or_limit"], "%s: %s" % (res["error"], res["message"])):
        return None
    want = ("output %r" % e.get("text", "<%d code points>" % e.get("length", 0))[:300]) if kind == "output" \
        else "%s: %s" % (e["error"], e["message"][:300])
    return "got %s; expected %s" % (describe(res), want)


def limit_as(nbytes):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
    return f


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_one_process(c, tmp, rlimit):
    """One case in its own process (limit/bounded): (result, CPU seconds, problem)."""
    path = Path(tmp) / "case.jsonl"
    path.write_text(batch_line(c) + "\n", encoding="ascii")
    # Wall time only catches a hang: the bound is the CPU time below. At a load average of 15 on
    # 2 cores a case using 1.6 s of CPU took 15 s of wall time, so the kill waits longer than that.
    timeout = max(60.0, c["expect"]["max_seconds"] * ARGS.time_scale * 5)
    t0 = time.monotonic()
    cpu0 = children_cpu()
    try:
        p = subprocess.run([ARGS.toolchat, "render", "--batch", str(path)], capture_output=True, timeout=timeout,
                           preexec_fn=limit_as(rlimit) if rlimit else None)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - t0, "killed after %.0f s (hang)" % timeout
    elapsed = children_cpu() - cpu0
    if p.returncode != 0:
        tail = p.stderr.decode("utf-8", "replace")[-400:]
        return None, elapsed, "exit status %d (signal or abort); stderr: %s" % (p.returncode, tail)
    lines = [l for l in decode_out(p.stdout).split("\n") if l.strip()]
    if len(lines) != 1:
        return None, elapsed, "expected one result line, got %d" % len(lines)
    return json.loads(lines[0]), elapsed, None


def run_fail_case(c, tmp):
    tp = Path(tmp) / "t.jinja"
    cp = Path(tmp) / "c.json"
    tp.write_bytes(base64.b64decode(c["template_b64"]))
    cp.write_bytes(base64.b64decode(c["context_b64"]))
    try:
        p = subprocess.run([ARGS.toolchat, "render", "--template", str(tp), "--context", str(cp), "--json"],
                           capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        return "hang"
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in (1, 3) or (p.returncode == 1 and p.stdout):
        return "exit status %d; stdout %r; stderr %r" % (p.returncode, p.stdout[:200], p.stderr[:200])
    e = c["expect"]
    if "error" in e:
        out = p.stdout.decode("utf-8", "replace") + err
        if e["error"] not in out or e["message"] not in out:
            return "expected %s: %s; got stdout %r, stderr %r" % (e["error"], e["message"], p.stdout[:200], err[:300])
    return None


def is_asan(binary):
    try:
        with open(binary, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--catalogue", default=str(HERE / "template.jsonl"))
    ap.add_argument("--filter", default=None)
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--time-scale", type=float, default=float(os.environ.get("HOSTILE_TIME_SCALE", "1")))
    ap.add_argument("--bounded", action="store_true")
    ap.add_argument("--rlimit-as", type=int, default=1 << 30)
    ARGS = ap.parse_args()
    if ARGS.bounded and is_asan(ARGS.toolchat):
        print("skipped: %s is built with AddressSanitizer, RLIMIT_AS cannot be used" % ARGS.toolchat)
        return 77
    cases = load(ARGS.catalogue)
    if ARGS.filter:
        cases = [c for c in cases if ARGS.filter in c["id"]]
    if ARGS.bounded:
        cases = [c for c in cases if c["expect"]["kind"] in ("limit", "bounded")]
    failures = []
    slowest = []
    with tempfile.TemporaryDirectory() as tmp:
        batch = [c for c in cases if c["expect"]["kind"] in ("output", "error")]
        if batch:
            path = Path(tmp) / "batch.jsonl"
            path.write_text("".join(batch_line(c) + "\n" for c in batch), encoding="ascii")
            try:
                p = subprocess.run([ARGS.toolchat, "render", "--batch", str(path)], capture_output=True,
                                   timeout=600 * ARGS.time_scale)
                results = {}
                for line in decode_out(p.stdout).split("\n"):
                    if line.strip():
                        r = json.loads(line)
                        results[r["id"]] = r
                if p.returncode != 0:
                    failures.append(("<batch>", "exit status %d: %s" % (
                        p.returncode, p.stderr.decode("utf-8", "replace")[-600:])))
            except subprocess.TimeoutExpired:
                results = {}
                failures.append(("<batch>", "timed out"))
            for c in batch:
                why = check_result(c, results.get(c["id"]), None)
                if why:
                    failures.append((c["id"], why))
        for c in cases:
            k = c["expect"]["kind"]
            if k in ("limit", "bounded"):
                res, elapsed, problem = run_one_process(c, tmp, ARGS.rlimit_as if ARGS.bounded else None)
                slowest.append((elapsed, c["id"]))
                why = problem or check_result(c, res, elapsed)
                if why:
                    failures.append((c["id"], why))
            elif k == "fail" and not ARGS.bounded:
                why = run_fail_case(c, tmp)
                if why:
                    failures.append((c["id"], why))
    known_ids = {c["id"]: c["known_issue"] for c in cases if c.get("known_issue")}
    known = [(cid, why) for cid, why in failures if cid in known_ids]
    failures = [(cid, why) for cid, why in failures if cid not in known_ids]
    fixed = sorted(set(known_ids) - {cid for cid, _ in known})
    for cid, why in known:
        print("KNOWN %s (%s): %s" % (cid, known_ids[cid], why[:200]))
    for cid in fixed:
        print("NOW PASSES %s: drop its known_issue entry in make_catalogue.py" % cid)
    for cid, why in failures[: ARGS.show]:
        print("FAIL %s: %s" % (cid, why))
    if slowest:
        slowest.sort(reverse=True)
        print("slowest limit cases (CPU): " + ", ".join("%s %.2fs" % (i, t) for t, i in slowest[:5]))
    print("%d passed, %d known issues, %d failed%s" % (len(cases) - len(failures) - len(known), len(known),
                                        len(failures),
                                        " (bounded mode, RLIMIT_AS %d MiB)" % (ARGS.rlimit_as >> 20)
                                        if ARGS.bounded else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
