#!/usr/bin/env python3
"""The e2e suite's token checks against a real llama-server (called by tests/e2e/run.sh):

  tokenize   for each test model (MODELS/qwen.gguf, MODELS/llama.gguf), `toolchat tokenize
             --tokenizer MODEL.gguf` gives the ids llama-server's /tokenize gives for the same
             text (parse_special on, as its default), with and without add_special, over the
             tokenizer corpus of tests/tokenize/textgen.py (rendered prompts, scripts, emoji,
             combining marks, code, runs of spaces/digits/newlines, special-token strings in words).

  tokens_check.py --toolchat BIN --llama-server BIN --models DIR [--only tokenize]
Any python3 (stdlib). Exit 1 on a mismatch.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests/tokenize"))
import textgen  # noqa: E402

SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>", "<|begin_of_text|>",
            "<|eot_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|python_tag|>"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url, body, timeout=60):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


class LlamaServer:
    def __init__(self, binary, model, ctx=2048):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([binary, "-m", model, "--port", str(self.port), "-c", str(ctx), "-t", "1",
                                      "--host", "127.0.0.1"], stdout=self.log, stderr=self.log)
        for _ in range(600):
            if self.proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except Exception:
                pass
            time.sleep(0.1)
        self.stop()
        self.log.seek(0)
        raise RuntimeError(f"llama-server did not start for {model}: {self.log.read().decode(errors='replace')[-2000:]}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def toolchat_ids(toolchat, model, texts, add_special):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
        path = f.name
    try:
        cmd = [toolchat, "tokenize", "--tokenizer", model, "--batch", path] + (["--add-special-tokens"] if add_special else [])
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)
    return [json.loads(l)["ids"] for l in out.split("\n") if l.strip()]


def check_tokenize(a, name, model):
    texts = [t for t in textgen.corpus(ROOT, SPECIALS) if t]
    server = LlamaServer(a.llama_server, model)
    failures = 0
    try:
        for add_special in (False, True):
            ours = toolchat_ids(a.toolchat, model, texts, add_special)
            bad = 0
            for t, ids in zip(texts, ours):
                status, body = post(server.url + "/tokenize", {"content": t, "add_special": add_special})
                if status != 200 or body.get("tokens") != ids:
                    if bad < 3:
                        print(f"FAIL tokenize {name} add_special={add_special}: {t[:60]!r}\n  llama-server {body.get('tokens')}\n  toolchat     {ids}")
                    bad += 1
            print(f"tokenize {name} add_special={str(add_special).lower()}: {len(texts) - bad}/{len(texts)} texts equal llama-server's /tokenize")
            failures += bad
    finally:
        server.stop()
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--llama-server", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    failures = 0
    for name in ("qwen", "llama"):
        model = os.path.join(a.models, name + ".gguf")
        if not only or "tokenize" in only:
            failures += check_tokenize(a, name, model)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
