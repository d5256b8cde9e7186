"""examples/dask_convert.py on a 2-worker LocalCluster (processes, loopback only) over generated
shards: every output shard equals `toolchat convert` on the same shard, row for row, the bad rows
are the CLI's (same lines, same reasons), and a second run skips what the first finished."""
import json
import os
import subprocess
import sys

import pytest

from conftest import QWEN, ROOT, run_cli

EXAMPLE = os.path.join(ROOT, "examples", "dask_convert.py")
BASE = os.path.join(ROOT, "examples", "convert", "sharegpt_tools.jsonl")


def make_shards(folder, count=4, rows=30):
    with open(BASE, encoding="utf-8") as f:
        base = [json.loads(line) for line in f if line.strip()][:2]  # its third row is bad on purpose
    for s in range(count):
        lines = []
        for r in range(rows):
            row = json.loads(json.dumps(base[r % len(base)]))
            row["conversations"][0]["value"] += f" (shard {s}, row {r}\u2028é)"
            lines.append(json.dumps(row, ensure_ascii=(r % 2 == 0)))
            if r == 7:
                lines.append("")                    # blank: skipped, not a row
            if r == 11 and s % 2 == 0:
                lines.append('{"conversations": [')  # bad JSON
            if r == 19:
                lines.append('{"conversations": [{"from": "alien", "value": "x"}]}')  # wrong shape
        with open(os.path.join(folder, f"part-{s:03d}.jsonl"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")


def run_example(in_dir, out_dir, *extra):
    env = dict(os.environ)
    return subprocess.run([sys.executable, EXAMPLE, str(in_dir), str(out_dir), "--from", "sharegpt", "--model", QWEN,
                           "--workers", "2", *extra], capture_output=True, text=True, env=env, timeout=600)


def test_dask_convert_equals_cli(tmp_path):
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    make_shards(src)
    proc = run_example(src, out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = json.loads((out / "_summary.json").read_text())
    assert summary["shards"] == 4 and summary["skipped"] == [] and summary["failed"] == {}
    want_bad = []
    for shard in sorted(os.listdir(src)):
        cli_out = tmp_path / f"cli-{shard}"
        cli = run_cli("convert", "--from", "sharegpt", "--model", QWEN, "--no-progress", str(src / shard), str(cli_out))
        assert (out / shard).read_bytes() == cli_out.read_bytes(), shard
        prefix = str(src / shard) + ":"
        want_bad += [f"{shard}:{line[len(prefix):]}" for line in cli.stderr.decode().splitlines()
                     if line.startswith(prefix)]
    got_bad = [f"{b['shard']}:{b['line']}: {b['message']}" for b in summary["bad"]]
    assert got_bad == want_bad and len(got_bad) == 6
    assert summary["rows"] == 4 * 30 + 6 and summary["converted"] == 4 * 30
    for line in got_bad:
        assert line in proc.stderr

    # Resumable: a second run skips every finished shard and rewrites none.
    stamps = {n: os.stat(out / n).st_mtime_ns for n in os.listdir(out) if n.endswith(".jsonl")}
    (out / "part-002.jsonl.report.json").unlink()  # as if the run had stopped before this one finished
    proc = run_example(src, out)
    assert proc.returncode == 0, proc.stderr
    summary2 = json.loads((out / "_summary.json").read_text())
    assert summary2["skipped"] == ["part-000.jsonl", "part-001.jsonl", "part-003.jsonl"]
    assert summary2["bad"] == summary["bad"] and summary2["converted"] == summary["converted"]
    for n, t in stamps.items():
        assert (os.stat(out / n).st_mtime_ns == t) == (n != "part-002.jsonl"), n


def test_refuses_out_dir_that_is_in_dir(tmp_path):
    make_shards(tmp_path, count=1, rows=3)
    before = (tmp_path / "part-000.jsonl").read_bytes()
    proc = run_example(tmp_path, tmp_path)
    assert proc.returncode == 2 and "OUT_DIR is IN_DIR" in proc.stderr
    assert (tmp_path / "part-000.jsonl").read_bytes() == before
