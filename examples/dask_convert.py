#!/usr/bin/env python3
"""Convert a folder of JSON-lines shards of training data on a Dask cluster, one task per shard,
with toolchat's converter (the rows `toolchat convert` writes, byte for byte).

  dask_convert.py IN_DIR OUT_DIR --from FORMAT --model PATH [--scheduler ADDRESS] [--workers N]
                  [--name NAME] [--polyfill LIST] [--kwargs JSON] [--special-tokens FILE]
                  [--train-on-prompt] [--last-turn-only] [--split] [--threads N]

Every IN_DIR/*.jsonl shard becomes OUT_DIR/<same name> (the output rows of its rows, in order)
and OUT_DIR/<name>.report.json (its counts and bad rows). OUT_DIR/_summary.json adds them up,
with each bad row's shard, line and reason; the same summary is printed.

- Cluster: a LocalCluster of --workers processes on this machine (loopback only) by default, or
  the running scheduler at --scheduler tcp://HOST:PORT. Workers must import toolchat (installed,
  or on PYTHONPATH) and read the --model and shard paths (a shared file system).
- Resumable: a shard whose report exists, written by a run with the same settings over the same
  input (size and modification time), is skipped. Outputs and reports are written to a
  temporary file and renamed, so an interrupted run leaves finished shards or none.
- Exit status: 0 when every shard converted (bad rows are reported, not fatal, as in `toolchat
  convert`), 1 when a shard failed or no row converted at all, 2 for a wrong command line.
"""
import argparse
import json
import os
import sys
import tempfile
import time

REPORT_SUFFIX = ".report.json"


def write_atomically(path, data):
    """Writes beside `path` and renames over it: readers see the old file or the new one."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def input_identity(path):
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def finished_report(in_path, out_path, settings):
    """The shard's report when a previous run finished it with these settings on this input."""
    try:
        with open(out_path + REPORT_SUFFIX, encoding="utf-8") as f:
            report = json.load(f)
    except (OSError, ValueError):
        return None
    if report.get("settings") != settings or report.get("input") != input_identity(in_path):
        return None
    return report if os.path.exists(out_path) else None


def convert_shard(in_path, out_path, settings):
    """One shard, on a worker: its rows converted, the output and its report written."""
    import toolchat  # on the worker

    started = time.time()
    with open(in_path, "rb") as f:
        data = f.read()
    # Lines as the CLI reads them: split at "\n" only (a row may hold U+2028 and the like).
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    bad, stats = [], {}
    options = dict(settings["options"])
    rows = toolchat.convert_rows(lines, settings["fmt"], settings["model"], bad_rows=bad, stats=stats,
                                 as_json=True, **options)
    write_atomically(out_path, "".join(r + "\n" for r in rows).encode("utf-8"))
    report = {
        "shard": os.path.basename(in_path),
        "input": input_identity(in_path),
        "settings": settings,
        "rows": stats["rows"],
        "converted": stats["converted"],
        "extra_rows": stats["extra_rows"],
        "output_rows": len(rows),
        "turns": stats["turns"],
        "served": stats["served"],
        "bad": [{"line": b["index"] + 1, "error": b["error"], "message": b["message"]} for b in bad],
        "seconds": round(time.time() - started, 3),
    }
    write_atomically(out_path + REPORT_SUFFIX, json.dumps(report, ensure_ascii=False, indent=1).encode("utf-8"))
    return report


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    ap.add_argument("in_dir", metavar="IN_DIR", help="folder of *.jsonl shards")
    ap.add_argument("out_dir", metavar="OUT_DIR", help="folder for the converted shards (created if missing)")
    ap.add_argument("--from", dest="fmt", required=True, choices=["sharegpt", "chatglm3", "openai", "qwen-agent"])
    ap.add_argument("--model", required=True, help="the chat template: folder, .jinja, tokenizer_config.json, .gguf")
    ap.add_argument("--scheduler", help="address of a running dask scheduler (default: a LocalCluster)")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--threads", type=int, default=1, help="converter threads per task (default 1)")
    ap.add_argument("--name")
    ap.add_argument("--polyfill")
    ap.add_argument("--kwargs", help="a JSON object of template variables")
    ap.add_argument("--special-tokens", help="a JSON file: an object of special tokens")
    ap.add_argument("--train-on-prompt", action="store_true")
    ap.add_argument("--last-turn-only", action="store_true")
    ap.add_argument("--split", action="store_true")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.in_dir):
        ap.error(f"IN_DIR {args.in_dir}: not a folder")
    if os.path.isdir(args.out_dir) and os.path.samefile(args.in_dir, args.out_dir):
        ap.error("OUT_DIR is IN_DIR: the outputs would replace the shards; choose another folder")
    if args.workers < 1 or args.threads < 1:
        ap.error("--workers and --threads must be at least 1")
    options = {"threads": args.threads}
    for key in ("name", "polyfill"):
        if getattr(args, key) is not None:
            options[key] = getattr(args, key)
    for key in ("train_on_prompt", "last_turn_only", "split"):
        if getattr(args, key):
            options[key] = True
    try:
        if args.kwargs is not None:
            options["kwargs"] = json.loads(args.kwargs)
        if args.special_tokens is not None:
            with open(args.special_tokens, encoding="utf-8") as f:
                options["special_tokens"] = json.load(f)
    except (OSError, ValueError) as exc:
        ap.error(str(exc))
    settings = {"fmt": args.fmt, "model": os.path.abspath(args.model), "options": options}
    return args, settings


def main(argv=None):
    args, settings = parse_args(argv)
    from dask.distributed import Client, LocalCluster, as_completed

    os.makedirs(args.out_dir, exist_ok=True)
    shards = sorted(n for n in os.listdir(args.in_dir) if n.endswith(".jsonl"))
    reports, todo = {}, []
    for name in shards:
        in_path = os.path.abspath(os.path.join(args.in_dir, name))
        out_path = os.path.abspath(os.path.join(args.out_dir, name))
        done = finished_report(in_path, out_path, settings)
        if done:
            reports[name] = dict(done, skipped=True)
        else:
            todo.append((name, in_path, out_path))
    print(f"dask_convert: {len(shards)} shards, {len(reports)} finished before, {len(todo)} to convert", flush=True)

    failed = {}
    if todo:
        cluster = None
        if args.scheduler:
            client = Client(args.scheduler)
        else:
            cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
            client = Client(cluster)
        try:
            futures = {client.submit(convert_shard, i, o, settings, pure=False, key=f"convert-{n}-{time.time_ns()}"): n
                       for n, i, o in todo}
            for fut in as_completed(futures):
                name = futures[fut]
                try:
                    r = fut.result()
                except Exception as exc:  # the shard failed as a whole (a template error, I/O)
                    failed[name] = f"{type(exc).__name__}: {exc}"
                    print(f"  {name}: FAILED: {failed[name]}", flush=True)
                    continue
                reports[name] = r
                print(f"  {name}: {r['rows']} rows, {r['converted']} converted, {len(r['bad'])} bad "
                      f"({r['seconds']} s)", flush=True)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()

    summary = {
        "shards": len(shards),
        "skipped": sorted(n for n, r in reports.items() if r.get("skipped")),
        "failed": failed,
        "rows": sum(r["rows"] for r in reports.values()),
        "converted": sum(r["converted"] for r in reports.values()),
        "output_rows": sum(r["output_rows"] for r in reports.values()),
        "turns": sum(r["turns"] for r in reports.values()),
        "served": sum(r["served"] for r in reports.values()),
        "bad": [dict(shard=n, **b) for n in sorted(reports) for b in reports[n]["bad"]],
    }
    write_atomically(os.path.join(args.out_dir, "_summary.json"),
                     json.dumps(summary, ensure_ascii=False, indent=1).encode("utf-8"))
    for b in summary["bad"]:
        print(f"{b['shard']}:{b['line']}: {b['message']}", file=sys.stderr)
    print(f"dask_convert: {summary['rows']} rows in {len(shards)} shards: {summary['converted']} converted "
          f"({summary['output_rows']} output rows), {len(summary['bad'])} bad, {len(failed)} shards failed; "
          f"train = serve for {summary['served']} of {summary['turns']} assistant turns", flush=True)
    if failed or (summary["rows"] and not summary["converted"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
