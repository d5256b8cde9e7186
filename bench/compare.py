#!/usr/bin/env python3
"""Render/compile benchmark: toolchat against its peers on the same (template, context) pairs.

  compare.py [--ours "BUILD/toolchat"] [--pairs bench/out/pairs.jsonl] [--repeat R] [--rounds K]
             [--combine min|median] [--peers jinja2,hf-jinja,minijinja] [--out-dir bench/out]

Runs, one after the other (never concurrently, so they don't disturb each other's timing):
  toolchat    OURS render --batch PAIRS --repeat R (skipped when the binary is missing)
  jinja2      python3 bench/peers/jinja2_bench.py  (the oracle's environment, tests/oracle/hf_render.py)
  hf-jinja    node bench/peers/hf_jinja.mjs        (@huggingface/jinja)
  minijinja   node bench/peers/minijinja.mjs       (minijinja-js)

Rounds: that sequence is one round, run K times (--rounds, BENCH_ROUNDS, default 3), so the engines'
passes alternate (toolchat, peers, toolchat, peers, ...) and a slow spell of the machine lands on
both sides rather than on one engine's whole pass. Each pass is a fresh process that warms up every
pair itself. Per pair and engine, render_us and compile_us are the minimum (--combine min, the
default: interference only ever adds time) or the median (--combine median) over the rounds of that
round's value, and the pair counts as rendered / matching the oracle only when it did so in every
round. The summary is computed from those per-pair values; each round's own medians and ratios are
listed beside it (field "rounds"), so the spread between rounds is visible.

Each engine's per-pair results land in bench/out/render_<engine>.jsonl (the combined values, with
"render_us_rounds"), each round's in render_<engine>.round<N>.jsonl. The summary table, printed
and written to bench/out/render_compare.md (Markdown) and bench/out/render_compare.json, has per
engine: pairs rendered, golden match % (text equal to the oracle's, over all pairs), median and p90
render_us over the pairs it rendered, median compile_us over distinct templates, and the ratios
peer / toolchat: of the medians, and the median of per-pair (per-template for compile) ratios over
the pairs both rendered; with more than one round also the render median and ratio of each round.

toolchat's side of the contract: `toolchat render --batch PAIRS --repeat R` prints one JSON line
per input line, in input order: {"id", "text", "generation_spans", "render_us", "compile_us"}
(render_us: median of R warm renders after one warm-up; compile_us: median of a few compiles of the
template), or {"id", "error", "message"[, "compile_us"]} for a pair it fails on.
"""
import argparse
import datetime
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

PEERS = {
    "jinja2": ("Jinja2 (Python, oracle env)", lambda a: [sys.executable, os.path.join(HERE, "peers", "jinja2_bench.py")]),
    "hf-jinja": ("@huggingface/jinja", lambda a: ["node", os.path.join(HERE, "peers", "hf_jinja.mjs")]),
    "minijinja": ("minijinja-js", lambda a: ["node", os.path.join(HERE, "peers", "minijinja.mjs")]),
}
OURS = "toolchat"


def read_jsonl(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    pass
    return out


def pct(xs, q):
    s = sorted(xs)
    if not s:
        return None
    k = (len(s) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def template_of(pair_id):
    return pair_id.rsplit("__", 1)[0]


def package_version(name):
    p = os.path.join(HERE, "peers", "node_modules", *name.split("/"), "package.json")
    try:
        with open(p, encoding="utf-8") as f:
            return json.load(f).get("version")
    except OSError:
        return None


def round_path(args, key, rnd):
    return os.path.join(args.out_dir, f"render_{key}.round{rnd}.jsonl")


def run_peer(key, args, rnd):
    label, cmd = PEERS[key]
    out = round_path(args, key, rnd)
    cmd = cmd(args) + [args.pairs, "--expected", args.expected, "--out", out,
                       "--repeat", str(args.repeat), "--budget-ms", str(args.budget_ms)]
    print(f"[compare] {label} (round {rnd}): {' '.join(shlex.quote(c) for c in cmd)}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    try:
        proc = subprocess.run(cmd, timeout=args.timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    except FileNotFoundError as exc:
        return None, f"{label}: cannot run ({exc})"
    except subprocess.TimeoutExpired:
        return None, f"{label}: timed out after {args.timeout}s"
    dt = time.monotonic() - t0
    if proc.returncode != 0:
        return None, f"{label}: exit {proc.returncode}: {proc.stderr.strip()[-2000:]}"
    rows = read_jsonl(out)
    print(f"[compare] {label} (round {rnd}): {len(rows)} pairs in {dt:.1f}s", file=sys.stderr, flush=True)
    return {r["id"]: r for r in rows}, None


def run_ours(args, expected, rnd):
    cmd = shlex.split(args.ours)
    exe = cmd[0]
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)) and not shutil.which(exe):
        print(f"[compare] toolchat: {exe} not found; showing the peers only", file=sys.stderr)
        return None, None
    cmd = cmd + ["render", "--batch", args.pairs, "--repeat", str(args.repeat)]
    print(f"[compare] toolchat (round {rnd}): {' '.join(shlex.quote(c) for c in cmd)}", file=sys.stderr, flush=True)
    raw = os.path.join(args.out_dir, "render_toolchat_raw.jsonl")  # texts: the last round's (checked every round)
    t0 = time.monotonic()
    try:
        with open(raw, "w", encoding="utf-8") as f:
            proc = subprocess.run(cmd, timeout=args.timeout, stdout=f, stderr=subprocess.PIPE, text=True)
    except subprocess.TimeoutExpired:
        return None, f"toolchat: timed out after {args.timeout}s"
    dt = time.monotonic() - t0
    rows = read_jsonl(raw)
    if proc.returncode != 0 and not rows:
        return None, f"toolchat: exit {proc.returncode}: {proc.stderr.strip()[-2000:]}"
    results = {}
    for r in rows:
        gold = expected.get(r.get("id"))
        ok = "error" not in r and "text" in r
        res = {"id": r.get("id"), "ok": ok, "compile_us": r.get("compile_us"),
               "render_us": r.get("render_us") if ok else None,
               "matches_golden": bool(ok and gold and r["text"] == gold["text"]),
               "spans_match": bool(ok and gold and r.get("generation_spans", []) == gold.get("generation_spans", []))}
        if not ok:
            res["error"] = f"{r.get('error')}: {r.get('message')}"
        if ok and r.get("render_us") is None:
            res["error"] = "no render_us in output (is --repeat implemented?)"
        results[res["id"]] = res
    write_jsonl(round_path(args, OURS, rnd), results.values())
    print(f"[compare] toolchat (round {rnd}): {len(results)} pairs in {dt:.1f}s (exit {proc.returncode})",
          file=sys.stderr, flush=True)
    return results, None


def write_jsonl(path, rows):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


COMBINE = {"min": min, "median": statistics.median}


def combine_rounds(rounds, ids, how):
    """One engine's per-pair results over its rounds: the min or median (how) of the rounds'
    render_us and compile_us; rendered / matching the oracle only when it was so in every round."""
    pick = COMBINE[how]
    out = {}
    for i in ids:
        rows = [r.get(i) for r in rounds]
        present = [r for r in rows if r]
        if not present:
            continue
        c = dict(present[0])
        ok = len(present) == len(rows) and all(r.get("ok") and r.get("render_us") is not None for r in rows)
        c["render_us_rounds"] = [r.get("render_us") if r else None for r in rows]
        c["render_us"] = pick(c["render_us_rounds"]) if ok else None
        compiles = [r["compile_us"] for r in present if r.get("compile_us") is not None]
        c["compile_us"] = pick(compiles) if compiles else None
        c["ok"] = ok
        c["matches_golden"] = ok and all(r.get("matches_golden") for r in rows)
        if any("spans_match" in r for r in present):
            c["spans_match"] = ok and all(r.get("spans_match") for r in rows)
        if not ok and "error" not in c:
            errs = [r["error"] for r in present if r.get("error")]
            done = sum(1 for r in rows if r and r.get("ok"))
            c["error"] = errs[0] if errs else f"rendered in {done} of {len(rows)} rounds"
        out[i] = c
    return out


ROUND_FIELDS = ("render_us_median", "compile_us_median", "golden_match", "render_ratio_of_medians",
                "render_ratio_median_per_pair", "compile_ratio_of_medians")


def summarize(key, label, res, ids, ours):
    rows = [res.get(i) for i in ids]
    ok = [r for r in rows if r and r.get("ok") and r.get("render_us") is not None]
    renders = [r["render_us"] for r in ok]
    per_tpl = {}
    for r in rows:
        if r and r.get("compile_us") is not None:
            per_tpl.setdefault(template_of(r["id"]), r["compile_us"])
    s = {
        "engine": key, "label": label, "pairs": len(ids), "rendered": len(ok),
        "golden_match": sum(1 for r in rows if r and r.get("matches_golden")),
        "render_us_median": med(renders), "render_us_p90": pct(renders, 0.9),
        "compile_us_median": med(per_tpl.values()), "templates_compiled": len(per_tpl),
    }
    s["golden_match_pct"] = 100.0 * s["golden_match"] / len(ids) if ids else None
    if ours is not None and key != OURS:
        o = ours["summary"]
        s["render_ratio_of_medians"] = (s["render_us_median"] / o["render_us_median"]
                                        if s["render_us_median"] and o["render_us_median"] else None)
        s["compile_ratio_of_medians"] = (s["compile_us_median"] / o["compile_us_median"]
                                         if s["compile_us_median"] and o["compile_us_median"] else None)
        pr = [r["render_us"] / ours["res"][r["id"]]["render_us"] for r in ok
              if ours["res"].get(r["id"], {}).get("ok") and ours["res"][r["id"]].get("render_us")]
        s["render_ratio_median_per_pair"] = med(pr)
        s["render_ratio_pairs"] = len(pr)
        cr = [c / ours["tpl"][t] for t, c in per_tpl.items() if ours["tpl"].get(t)]
        s["compile_ratio_median_per_template"] = med(cr)
        s["compile_ratio_templates"] = len(cr)
    if key == OURS:
        s["spans_match"] = sum(1 for r in rows if r and r.get("spans_match"))
    return s, per_tpl


def fmt(x, kind):
    if x is None:
        return "—"
    if kind == "us":
        return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"
    if kind == "ratio":
        return f"{x:.1f}x" if x < 100 else f"{x:,.0f}x"
    if kind == "pct":
        return f"{x:.1f}%"
    return str(x)


def per_round(s, field, kind):
    return " / ".join("failed" if r.get("failed") else fmt(r.get(field), kind) for r in s.get("rounds", []))


def table(summaries, have_ours, rounds):
    head = ["engine", "rendered", "golden match", "render µs median", "render µs p90", "compile µs median"]
    if have_ours:
        head += ["render ratio (medians)", "render ratio (median per pair)",
                 "compile ratio (medians)", "compile ratio (median per template)"]
    if rounds > 1:
        head += ["render µs median per round"] + (["render ratio (medians) per round"] if have_ours else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|"]
    for s in summaries:
        cells = [s["label"], f"{s['rendered']}/{s['pairs']}", fmt(s["golden_match_pct"], "pct"),
                 fmt(s["render_us_median"], "us"), fmt(s["render_us_p90"], "us"), fmt(s["compile_us_median"], "us")]
        if have_ours:
            if s["engine"] == OURS:
                cells += ["1x", "1x", "1x", "1x"]
            else:
                cells += [fmt(s.get("render_ratio_of_medians"), "ratio"), fmt(s.get("render_ratio_median_per_pair"), "ratio"),
                          fmt(s.get("compile_ratio_of_medians"), "ratio"), fmt(s.get("compile_ratio_median_per_template"), "ratio")]
        if rounds > 1:
            cells.append(per_round(s, "render_us_median", "us"))
            if have_ours:
                cells.append(" / ".join("1x" for _ in s["rounds"]) if s["engine"] == OURS
                             else per_round(s, "render_ratio_of_medians", "ratio"))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--ours", default=os.path.join(ROOT, "build", "toolchat"), help="toolchat command (binary path)")
    ap.add_argument("--pairs", default=os.path.join(HERE, "out", "pairs.jsonl"))
    ap.add_argument("--expected", default=None, help="goldens (default: expected.jsonl beside --pairs)")
    ap.add_argument("--out-dir", default=os.path.join(HERE, "out"))
    ap.add_argument("--repeat", "-r", type=int, default=int(os.environ.get("BENCH_REPEAT", "50")),
                    help="warm renders per pair (median reported)")
    ap.add_argument("--budget-ms", type=float, default=float(os.environ.get("BENCH_BUDGET_MS", "40")),
                    help="peers stop repeating a pair after this much render time (min 3 reps)")
    ap.add_argument("--peers", default=os.environ.get("BENCH_PEERS", ",".join(PEERS)),
                    help="comma-separated subset of " + ",".join(PEERS) + " (empty: none)")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("BENCH_ROUNDS", "3")),
                    help="full passes per engine, alternating between the engines; per pair the median over them")
    ap.add_argument("--combine", choices=sorted(COMBINE), default=os.environ.get("BENCH_COMBINE", "min"),
                    help="per pair, the rounds' fastest (min, default) or middle (median) value")
    ap.add_argument("--timeout", type=float, default=300, help="seconds allowed per engine run")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    args.expected = args.expected or os.path.join(os.path.dirname(os.path.abspath(args.pairs)), "expected.jsonl")
    os.makedirs(args.out_dir, exist_ok=True)

    if not os.path.exists(args.pairs):
        sys.exit(f"compare: {args.pairs} missing (run bench/make_pairs.py)")
    ids = [json.loads(l)["id"] for l in open(args.pairs, encoding="utf-8") if l.strip()]
    expected = {e["id"]: e for e in read_jsonl(args.expected)} if os.path.exists(args.expected) else {}

    failures = []
    keys = [p.strip() for p in args.peers.split(",") if p.strip()]
    for key in keys:
        if key not in PEERS:
            sys.exit(f"compare: unknown peer {key!r}; have {','.join(PEERS)}")
    for e in [OURS] + keys:  # a previous run's extra rounds would read as this run's
        for n in range(args.rounds + 1, 1000):
            if not os.path.exists(round_path(args, e, n)):
                break
            os.remove(round_path(args, e, n))
    # Full passes alternate: toolchat, the peers, toolchat, the peers, ...
    per_round = []  # per round: {engine: {id: row}}
    for rnd in range(1, args.rounds + 1):
        got = {}
        res, err = run_ours(args, expected, rnd)
        if err:
            failures.append(f"round {rnd}: {err}")
        if res is not None:
            got[OURS] = res
        for key in keys:
            res, err = run_peer(key, args, rnd)
            if err:
                failures.append(f"round {rnd}: {err}")
            else:
                got[key] = res
        per_round.append(got)

    def ours_of(results):
        if OURS not in results:
            return None
        s, per_tpl = summarize(OURS, "toolchat (C++)", results[OURS], ids, None)
        return {"res": results[OURS], "tpl": per_tpl, "summary": s}

    engines = [e for e in [OURS] + keys if any(e in r for r in per_round)]
    combined = {}
    for e in engines:
        combined[e] = combine_rounds([r[e] for r in per_round if e in r], ids, args.combine)
        write_jsonl(os.path.join(args.out_dir, f"render_{e}.jsonl"), combined[e].values())
    ours = ours_of(combined)
    round_ours = [ours_of(r) for r in per_round]
    summaries = []
    for e in engines:
        label = "toolchat (C++)" if e == OURS else PEERS[e][0]
        s = ours["summary"] if e == OURS else summarize(e, label, combined[e], ids, ours)[0]
        s["rounds"] = []
        for rnd, (results, o) in enumerate(zip(per_round, round_ours), 1):
            if e not in results:
                s["rounds"].append({"round": rnd, "failed": True})
                continue
            rs = o["summary"] if e == OURS else summarize(e, label, results[e], ids, o)[0]
            s["rounds"].append({"round": rnd, **{k: rs[k] for k in ROUND_FIELDS if k in rs}})
        summaries.append(s)

    md = table(summaries, ours is not None, args.rounds)
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "")
    except OSError:
        pass
    try:
        import jinja2
        j2 = jinja2.__version__
    except ImportError:
        j2 = None
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip() if shutil.which("node") else None
    env = {"date": datetime.datetime.now().isoformat(timespec="seconds"), "cpu": cpu, "cores": os.cpu_count(),
           "python": platform.python_version(), "jinja2": j2, "node": node,
           "@huggingface/jinja": package_version("@huggingface/jinja"), "minijinja-js": package_version("minijinja-js"),
           "pairs": len(ids), "repeat": args.repeat, "budget_ms": args.budget_ms, "rounds": args.rounds,
           "combine": args.combine}
    rounds_note = (f"per pair the {args.combine} over {args.rounds} rounds (each engine's passes alternating) of the "
                   if args.rounds > 1 else "")
    note = (f"{len(ids)} corpus pairs the oracle renders; render = {rounds_note}median of up to {args.repeat} warm renders "
            f"after 1 warm-up (template compiled once); compile = median over distinct templates. "
            f"Golden match: output text equal to the oracle's. Ratios: engine / toolchat (higher = toolchat faster). "
            f"{cpu}, {os.cpu_count()} cores; Python {env['python']} + Jinja2 {j2}; Node {node}; "
            f"@huggingface/jinja {env['@huggingface/jinja']}; minijinja-js {env['minijinja-js']}.")
    with open(os.path.join(args.out_dir, "render_compare.md"), "w", encoding="utf-8") as f:
        f.write(md + "\n\n" + note + "\n")
    with open(os.path.join(args.out_dir, "render_compare.json"), "w", encoding="utf-8") as f:
        json.dump({"environment": env, "engines": summaries, "failures": failures}, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(md)
    print()
    print(note)
    if ours and ours["summary"]["spans_match"] is not None:
        print(f"toolchat generation spans equal to the oracle's: {ours['summary']['spans_match']}/{len(ids)}")
    for e in failures:
        print(f"[compare] FAILED: {e}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
