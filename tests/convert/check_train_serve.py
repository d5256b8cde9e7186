#!/usr/bin/env python3
"""Train = serve over every corpus template, checked with the oracle (tests/oracle/hf_render.py).

For each template, the corpus conversations (make_conversations.py: every context ending with an
assistant turn) go through `toolchat convert --from openai --check`. Then, independently of our
renderer, the oracle renders for every assistant turn i
    P_i  the prompt a gateway sends (messages[:i], add_generation_prompt) and
    F_i  the conversation ending with the turn (messages[:i+1]),
and the script asserts:
  - the training text is the oracle's rendering of the whole conversation;
  - each train span starts where some P_i ends, P_i is a prefix of the text, and the span is
    what F_i has after P_i (the turn as rendered when it is the last turn), followed in F_i only
    by whitespace or by text the full conversation also ends with;
  - every assistant turn is trained or reported (--check), and a reported turn really fails:
    either F_i after P_i does not show the message's content or calls, or P_i + F_i's turn is
    not a prefix of the text;
  - with {% generation %}, the train spans are the oracle's generation spans;
  - for templates that rewrite earlier turns, a second run with --split writes, after each
    conversation's row, one row per rewritten turn: the oracle's F_i, trained from the end of
    the oracle's P_i to the end of the turn, showing the message.
It prints the templates where train = serve does not hold for some turn, with the reasons.
Exit 0 when every assertion holds, 1 otherwise, 77 when jinja2 is missing.

  check_train_serve.py --toolchat build/toolchat [--corpus tests/corpus] [--only NAME]
"""
import argparse
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))

try:
    import hf_render  # noqa: E402
except ImportError as exc:  # jinja2 missing
    print(f"skipped: {exc}")
    sys.exit(77)
import make_conversations  # noqa: E402

GEN_TAG = re.compile(r"\{%[-+]?\s*generation\s*[-+]?%\}")
MISMATCH = re.compile(r":(\d+): messages\[(\d+)\] \(template ([^)]*)\): (.*)$")
BAD_ROW = re.compile(r":(\d+): (.*)$")


def cache_compiles():
    """hf_render compiles the template for every render; one environment with compiled
    templates cached by source renders the same (the tracker is re-armed per render)."""
    env = hf_render.make_environment()
    compiled = {}
    from_string = env.from_string

    def cached(source):
        if source not in compiled:
            compiled[source] = from_string(source)
        return compiled[source]

    env.from_string = cached
    hf_render.make_environment = lambda: env


def flat_context(row):
    """The context `--from openai` renders: messages, tools, documents, kwargs flattened."""
    ctx = {"messages": row["messages"]}
    for key in ("tools", "documents"):
        if key in row:
            ctx[key] = row[key]
    ctx.update(row.get("chat_template_kwargs", {}))
    return ctx


def render(source, ctx, special, count, agp):
    c = dict(ctx)
    c["messages"] = ctx["messages"][:count]
    c["add_generation_prompt"] = agp
    return hf_render.render_case(source, c, special)


def content_text(m):
    c = m.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def shows_message(m, target):
    """The oracle-side view of 'the template shows this turn': content and call names."""
    text = content_text(m).strip()
    if text and text not in target:
        return False
    for call in m.get("tool_calls") or []:
        if call.get("function", call).get("name", "") not in target:
            return False
    return True


def run_convert(tool, path, in_path, extra=()):
    """(output rows, bad line numbers, {line: {message: reason}}, error or None)."""
    tok_path = path[: -len(".jinja")] + ".tokens.json"
    cmd = [tool, "convert", "--from", "openai", "--model", path, "--check", "--threads", "1", "--no-progress", *extra]
    if os.path.exists(tok_path):
        cmd += ["--special-tokens", tok_path]
    with tempfile.NamedTemporaryFile("r", suffix=".jsonl", encoding="utf-8") as out:
        proc = subprocess.run(cmd + [in_path, out.name], capture_output=True, text=True)
        # Exit 1 with "no row converted" when every row is bad (the output is left untouched): the
        # bad rows are still listed on stderr, and checked below like any others.
        nothing = proc.returncode == 1 and "toolchat convert: no row converted" in proc.stderr
        if proc.returncode == 3 and "TemplateSyntaxError" in proc.stderr:
            # No template the rows could use compiles: refused before the first row, every row is bad.
            with open(in_path, encoding="utf-8") as f:
                return [], {i + 1 for i, l in enumerate(f.read().splitlines()) if l.strip()}, {}, None
        if proc.returncode != 0 and not nothing:
            return None, None, None, f"toolchat convert exited {proc.returncode}: {proc.stderr.strip()}"
        # By name: convert replaces the file (a new inode renamed over it), the handle holds the old one.
        with open(out.name, encoding="utf-8") as f:
            out_rows = [json.loads(line) for line in f.read().splitlines() if line.strip()]
    bad, flagged = set(), collections.defaultdict(dict)
    for line in proc.stderr.splitlines():
        if not line.startswith(in_path):
            continue
        m = MISMATCH.search(line)
        if m:
            flagged[int(m.group(1))][int(m.group(2))] = m.group(4)
            continue
        m = BAD_ROW.search(line)
        if m:
            bad.add(int(m.group(1)))
    return out_rows, bad, flagged, None


def load_template(path):
    with open(path, encoding="utf-8") as f:
        source = f.read()
    tok_path = path[: -len(".jinja")] + ".tokens.json"
    special = {}
    if os.path.exists(tok_path):
        with open(tok_path, encoding="utf-8") as f:
            special = json.load(f)
    return source, special


def check_split(tool, path, rows, in_path, failures):
    """--split: after each conversation's row, one row per rewritten turn i, which must be the
    oracle's conversation ending with that turn, trained on what it adds to the oracle's P_i."""
    name = os.path.basename(path)[: -len(".jinja")]
    source, special = load_template(path)
    out_rows, bad, flagged, error = run_convert(tool, path, in_path, ["--split"])
    if error:
        failures.append(f"{name} --split: {error}")
        return 0
    good_lines = [i + 1 for i in range(len(rows)) if i + 1 not in bad]
    fulls = [render(source, flat_context(rows[n - 1][1]), special, len(rows[n - 1][1]["messages"]), False).get("text")
             for n in good_lines]
    at, checked = 0, 0
    for k, line_no in enumerate(good_lines):
        where = f"{name} --split line {line_no}"
        if at >= len(out_rows) or out_rows[at]["text"] != fulls[k]:
            failures.append(f"{where}: the conversation's row is missing or differs from the oracle")
            return checked
        at += 1
        ctx = flat_context(rows[line_no - 1][1])
        msgs = ctx["messages"]
        ends = {i: render(source, ctx, special, i + 1, False).get("text") for i in flagged.get(line_no, {})}
        while at < len(out_rows) and (k + 1 >= len(fulls) or out_rows[at]["text"] != fulls[k + 1]):
            row = out_rows[at]
            at += 1
            turn = next((i for i, t in ends.items() if t == row["text"]), None)
            if turn is None:
                failures.append(f"{where}: a split row is no reported turn's conversation as rendered by the oracle")
                continue
            prompt = render(source, ctx, special, turn, True).get("text", "")
            trained = [(s["start"], s["end"]) for s in row["spans"] if s["train"]]
            if len(trained) != 1 or trained[0][0] != len(prompt) or not row["text"].startswith(prompt):
                failures.append(f"{where}: messages[{turn}]'s row is not trained right after the oracle's prompt")
            elif row["text"][trained[0][1]:].strip():
                failures.append(f"{where}: messages[{turn}]'s row has text after its target")
            elif not shows_message(msgs[turn], row["text"][trained[0][0]:trained[0][1]]):
                failures.append(f"{where}: messages[{turn}]'s target does not show the message")
            checked += 1
    if at != len(out_rows):
        failures.append(f"{name} --split: {len(out_rows) - at} rows left over")
    return checked


def check_template(tool, path, rows, in_path, failures, listing):
    name = os.path.basename(path)[: -len(".jinja")]
    source, special = load_template(path)
    out_rows, bad, flagged, error = run_convert(tool, path, in_path)
    if error:
        failures.append(f"{name}: {error}")
        return
    good_lines = [i + 1 for i in range(len(rows)) if i + 1 not in bad]
    if len(good_lines) != len(out_rows):
        failures.append(f"{name}: {len(out_rows)} rows written for {len(good_lines)} good input rows")
        return
    generation = bool(GEN_TAG.search(source))
    turns = served = 0
    reasons = collections.Counter()
    for line_no, out_row in zip(good_lines, out_rows):
        where = f"{name} line {line_no}"
        ctx = flat_context(rows[line_no - 1][1])
        msgs = ctx["messages"]
        text = out_row["text"]
        full = render(source, ctx, special, len(msgs), False)
        if "error" in full:
            failures.append(f"{where}: converted, but the oracle fails: {full['error']}: {full['message']}")
            continue
        if full["text"] != text:
            failures.append(f"{where}: text differs from the oracle's rendering")
            continue
        trained = [(s["start"], s["end"]) for s in out_row["spans"] if s["train"]]
        mine = flagged.get(line_no, {})
        if generation and not mine and trained != [tuple(s) for s in full["generation_spans"]]:
            failures.append(f"{where}: train spans {trained} != oracle generation spans {full['generation_spans']}")
        assistants = [i for i, m in enumerate(msgs) if m.get("role") == "assistant"]
        prompts = {i: render(source, ctx, special, i, True) for i in assistants}
        ends = {i: render(source, ctx, special, i + 1, False) for i in assistants}
        covered = set()
        for start, end in trained:
            match = None
            for i in assistants:
                p = prompts[i].get("text")
                if p is not None and len(p) == start and text.startswith(p) and i not in covered:
                    match = i
                    break
            if match is None:
                failures.append(f"{where}: train span [{start}, {end}) does not start where any turn's prompt ends")
                continue
            covered.add(match)
            if generation:
                continue
            f_text = ends[match].get("text", "")
            if f_text[start:end] != text[start:end]:
                failures.append(f"{where}: messages[{match}]: the train span is not the turn as rendered last")
                continue
            # After the span, F_i may only have whitespace or what the template adds after the
            # last message, which the full text ends with too but does not continue with here.
            rest = f_text[end:].rstrip()
            after = text[end:]
            if rest and (not text.rstrip().endswith(rest) or (after.startswith(rest) and after.rstrip() != rest)):
                failures.append(f"{where}: messages[{match}]: the span stops before the turn ends ({rest[:30]!r} left)")
        for i in assistants:
            turns += 1
            if i in covered:
                served += 1
                if i in mine:
                    failures.append(f"{where}: messages[{i}] trained and reported: {mine[i]}")
                continue
            if i not in mine:
                failures.append(f"{where}: messages[{i}] neither trained nor reported")
                continue
            reasons[hf_reason(mine[i])] += 1
            p, fe = prompts[i], ends[i]
            if "error" in p or "error" in fe:
                continue  # the oracle fails to render it as well
            naive_holds = fe["text"].startswith(p["text"]) and text.startswith(fe["text"].rstrip())
            target = fe["text"][len(p["text"]):] if fe["text"].startswith(p["text"]) else ""
            if naive_holds and shows_message(msgs[i], target) and "does not show" not in mine[i]:
                failures.append(f"{where}: messages[{i}] reported ({mine[i]}) but the oracle finds it served")
    if served != turns:
        listing.append((name, served, turns, reasons))
    if any(r.startswith("later turns") or r.startswith("the turn renders differently") for r in reasons):
        return check_split(tool, path, rows, in_path, failures)
    return 0


def hf_reason(reason):
    for marker in (", at char", " (", ", "):
        p = reason.find(marker)
        if p >= 0:
            reason = reason[:p]
    return reason


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests", "corpus"))
    ap.add_argument("--only", help="one template name")
    args = ap.parse_args()
    hf_render.FIXED_NOW = datetime.datetime.fromisoformat("2026-01-15T09:30:00")
    cache_compiles()
    rows = make_conversations.base_rows(args.corpus)
    folder = os.path.join(args.corpus, "templates")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".jinja"))
    if args.only:
        names = [n for n in names if n[: -len(".jinja")] == args.only]
    failures, listing = [], []
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", encoding="utf-8", delete=False) as f:
        for _, row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        in_path = f.name
    try:
        split_rows = 0
        for n in names:
            split_rows += check_template(args.toolchat, os.path.join(folder, n), rows, in_path, failures, listing) or 0
    finally:
        os.unlink(in_path)
    print(f"train = serve holds for every assistant turn in {len(names) - len(listing)} of {len(names)} templates; "
          f"not in {len(listing)}:")
    for name, served, turns, reasons in listing:
        why = "; ".join(f"{n} x {r}" for r, n in reasons.most_common())
        print(f"  {name}: {turns - served} of {turns} turns: {why}")
    print(f"--split rows checked against the oracle: {split_rows}")
    if failures:
        print(f"\n{len(failures)} FAILURES:")
        for f in failures[:60]:
            print("  " + f)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
