#!/usr/bin/env bash
# Seeds for the libFuzzer targets, from the test fixtures (not committed, regenerate with this script):
#   fuzz/corpus/template_compile/  every corpus template and every construct-case template
#   fuzz/corpus/template_render/   construct cases as "template\n---\ncontext", corpus templates alone
#   fuzz/corpus/render_case/       corpus template x one context, "template\n---\ncontext\n---\ntokens"
#   fuzz/corpus/json_read/         corpus contexts, tokens files, construct-case contexts
#   fuzz/corpus/dialect_stream/    every dialect fixture case: "dialect\n" + seed byte + model output
#   fuzz/corpus/gguf_read/         GGUF headers carrying corpus templates and their special tokens
#   fuzz/corpus/openai_request/    corpus contexts and the hostile catalogue's contexts
#   fuzz/corpus/chat_request/      the same, as request bodies for the gateway's decoder
# The handful of committed seeds in fuzz/seeds/<target>/ are copied in as well.
# Usage: fuzz/make_seeds.sh [OUT_DIR]   (default fuzz/corpus)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/fuzz/corpus}
mkdir -p "$out"/{template_compile,template_render,render_case,json_read,dialect_stream,gguf_read,openai_request,chat_request}
python3 - "$root" "$out" <<'PY'
import hashlib, json, sys
from pathlib import Path
root, out = Path(sys.argv[1]), Path(sys.argv[2])
def put(target, data):
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if len(data) > 64 * 1024:          # libFuzzer's -max_len default is far smaller; keep seeds useful
        data = data[:64 * 1024]
    (out / target / hashlib.sha1(data).hexdigest()).write_bytes(data)
corpus = root / "tests" / "corpus"
templates = sorted((corpus / "templates").glob("*.jinja"))
contexts = sorted((corpus / "contexts").glob("*.json"))
for i, t in enumerate(templates):
    src = t.read_bytes()
    put("template_compile", src)
    put("template_render", src)
    ctx = contexts[i % len(contexts)].read_bytes()
    tok = t.with_name(t.name[:-len(".jinja")] + ".tokens.json")
    put("render_case", src + b"\n---\n" + ctx + (b"\n---\n" + tok.read_bytes() if tok.exists() else b""))
    if tok.exists():
        put("json_read", tok.read_bytes())
for c in contexts:
    put("json_read", c.read_bytes())
for case in sorted((root / "tests" / "jinja" / "cases").rglob("*.txt")):
    raw = case.read_bytes()
    head, sep, tpl = raw.partition(b"\n---\n")
    if not sep:
        continue
    put("template_compile", tpl)
    put("template_render", tpl + b"\n---\n" + head)
    put("render_case", tpl + b"\n---\n" + head)
    put("json_read", head)
# dialect_stream: the seed byte is bit 0 reasoning_open, bit 1 the fuzzer's tools list
for fx in sorted((root / "tests" / "dialects" / "fixtures").glob("*.json")):
    d = json.loads(fx.read_text(encoding="utf-8"))
    for i, c in enumerate(d.get("cases", [])):
        flags = (1 if c.get("reasoning_open") else 0) | (2 if c.get("tools") else 0) | (i << 2 & 0xFC)
        put("dialect_stream", d["dialect"].encode() + b"\n" + bytes([flags]) +
            c["input"].encode("utf-8", "surrogatepass"))
# openai_request
for c in contexts:
    put("openai_request", c.read_bytes())
    put("chat_request", c.read_bytes())
hostile = root / "tests" / "hostile" / "template.jsonl"
if hostile.exists():
    for line in hostile.read_text(encoding="ascii").splitlines():
        rec = json.loads(line)
        ctx = rec.get("context")
        if isinstance(ctx, dict) and "$gen" not in json.dumps(ctx):
            put("openai_request", json.dumps(ctx, ensure_ascii=False))
            put("chat_request", json.dumps(ctx, ensure_ascii=False))
# gguf_read: GGUF v3 / v2 headers (little-endian) as llama.cpp writes them
import struct
def gstr(b):
    return struct.pack("<Q", len(b)) + b
def gval(t, v):
    if t == 8: return gstr(v)
    if t == 9:
        et, items = v
        return struct.pack("<IQ", et, len(items)) + b"".join(gval(et, x) for x in items)
    return struct.pack({0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?",
                        10: "<Q", 11: "<q", 12: "<d"}[t], v)
def gguf(kvs, version=3):
    out = b"GGUF" + struct.pack("<IQQ", version, 0, len(kvs))
    for k, t, v in kvs:
        out += gstr(k.encode()) + struct.pack("<I", t) + gval(t, v)
    return out
small = sorted(templates, key=lambda t: t.stat().st_size)[:12]
for i, t in enumerate(small):
    src = t.read_bytes()
    toks = [b"<unk>", b"<s>", b"</s>"]
    tok = t.with_name(t.name[:-len(".jinja")] + ".tokens.json")
    if tok.exists():
        for v in json.loads(tok.read_text(encoding="utf-8")).values():
            if isinstance(v, str) and v.encode() not in toks:
                toks.append(v.encode())
    kvs = [("general.architecture", 8, b"llama"), ("general.alignment", 4, 32),
           ("tokenizer.ggml.tokens", 9, (8, toks)), ("tokenizer.ggml.scores", 9, (6, [0.0] * len(toks))),
           ("tokenizer.ggml.bos_token_id", 4, 1), ("tokenizer.ggml.eos_token_id", 4, 2),
           ("tokenizer.ggml.add_bos_token", 7, True), ("tokenizer.chat_template", 8, src)]
    if i % 3 == 0:
        kvs.append(("tokenizer.chat_template.tool_use", 8, src))
        kvs.append(("test.nested", 9, (9, [(4, [1, 2]), (4, [3])])))
        kvs.append(("test.numbers", 9, (12, [1.5, -0.0])))
    put("gguf_read", gguf(kvs, 3 if i % 2 == 0 else 2))
seeds = root / "fuzz" / "seeds"
if seeds.is_dir():
    for d in seeds.iterdir():
        for f in d.iterdir():
            put(d.name, f.read_bytes())
for d in sorted(out.iterdir()):
    print(f"{d.name}: {sum(1 for _ in d.iterdir())} seeds")
PY
