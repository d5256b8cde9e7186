"""The one tokenization rule (template text with special tokens, message texts as plain text)
computed by Hugging Face tokenizers alone (npm `tokenizers` through hf_reference.mjs), as the
golden for convert's token rows and the gateway's token-id prompts.

HF splits a text at its added tokens before the model sees it; HF's encode_special_tokens drops
the special ones from that split. So the rule's ids for a text are: the text cut at the special
tokens outside the message texts (their ids), and each piece between them encoded by a copy of
the tokenizer.json whose special added tokens are renamed to text that never occurs (non-special
added tokens still split). Exact for tokenizers whose pipeline does not depend on where a piece
starts (byte-level BPE; not Metaspace's prepend_scheme "first").
"""
import json
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.join(HERE, "hf_reference.mjs")


def hf(tokenizer_json, texts):
    """[(ids, offsets)] for each text (add_special_tokens off), from HF tokenizers."""
    if not texts:
        return []
    lines = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts))
    out = subprocess.run(["node", REF, tokenizer_json], input=lines, capture_output=True, text=True, check=True)
    res = {}
    for line in out.stdout.split("\n"):
        if line.strip():
            d = json.loads(line)
            res[d["id"]] = (d["ids"], d["offsets"])
    return [res[i] for i in range(len(texts))]


def plain_tokenizer(tokenizer_json, tmp):
    """(path of the copy without matchable special tokens, {special content: id})."""
    with open(tokenizer_json, encoding="utf-8") as f:
        tj = json.load(f)
    specials = {t["content"]: t["id"] for t in tj["added_tokens"] if t["special"]}
    # Renamed, not removed: HF numbers added tokens in order, so removing some would move the ids
    # of the others; renamed in the model's vocabulary too when it holds them (one more entry
    # there would move them as well).
    vocab = tj["model"]["vocab"]
    for t in tj["added_tokens"]:
        if t["special"]:
            new = f"\u0000never-{t['id']}\u0000"
            if t["content"] in vocab:
                vocab[new] = vocab.pop(t["content"])
            t["content"] = new
    path = os.path.join(tmp, os.path.basename(os.path.dirname(os.path.dirname(tokenizer_json))) + "-plain.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(tj, f, ensure_ascii=False)
    return path, specials


def text_ranges(text, texts):
    """Character ranges of the message texts in the rendered text (as is, stripped, JSON-escaped)."""
    ranges = []
    for t in texts:
        for form in (t, t.strip(), json.dumps(t, ensure_ascii=False)[1:-1]):
            at = text.find(form)
            if form and at >= 0:
                ranges.append((at, at + len(form)))
                break
    return ranges


def special_matches(text, specials):
    if not specials:
        return []
    alt = "|".join(re.escape(s) for s in sorted(specials, key=len, reverse=True))
    return [(m.start(), m.end(), m.group()) for m in re.finditer(alt, text)]


def plan(text, inside, specials):
    """The text cut at special tokens outside `inside`: [("special", start, id) | ("piece", start, text)]."""
    out, at = [], 0
    for s, e, tok in special_matches(text, specials):
        if any(s < b and e > a for a, b in inside):
            continue  # in a message: plain text
        if s > at:
            out.append(("piece", at, text[at:s]))
        out.append(("special", s, (specials[tok], e)))
        at = e
    if at < len(text):
        out.append(("piece", at, text[at:]))
    return out


def rule_encode(plain_path, plans):
    """[(ids, offsets)] for each plan, the pieces encoded by HF with the plain copy."""
    pieces = [x for p in plans for kind, _, x in p if kind == "piece"]
    enc = iter(hf(plain_path, pieces))
    out = []
    for p in plans:
        ids, offs = [], []
        for kind, start, x in p:
            if kind == "special":
                ids.append(x[0])
                offs.append([start, x[1]])
            else:
                pi, po = next(enc)
                ids += pi
                offs += [[start + s, start + e] for s, e in po]
        out.append((ids, offs))
    return out
