"""Random render contexts for the fuzz case generator: messages (with tool calls, content parts and
reasoning), tools, and the fixed globals the generated templates read (n, big, x, words, cfg, tree, ...)."""

import json

from gen_pools import WORDS, SAFE_WORDS


def rand_text(r, n=None):
    n = r.randint(0, 6) if n is None else n
    out = []
    for _ in range(n):
        out.append(r.choice(WORDS))
    return r.choice([" ", "", "\n", " "]).join(out)


def rand_scalar(r):
    k = r.randint(0, 7)
    if k == 0:
        return r.randint(-10, 10)
    if k == 1:
        return r.choice([2 ** 63, -2 ** 63, 2 ** 64 + 1, 10 ** 15, -1])
    if k == 2:
        return r.choice([0.1, 1.0, -0.0, 1e20, 1.5e-7, 2.5, 123456789.123, 1e-5, 3.0, 0.30000000000000004])
    if k == 3:
        return r.choice([True, False])
    if k == 4:
        return None
    return r.choice(WORDS)


def rand_args(r):
    d = {}
    for _ in range(r.randint(0, 3)):
        d[r.choice(["location", "unit", "q", "n", "flag", "nested", "ünï", "list"])] = (
            {"k": rand_scalar(r)} if r.random() < 0.15 else
            [rand_scalar(r), rand_scalar(r)] if r.random() < 0.15 else rand_scalar(r))
    return d


def rand_content(r, role):
    k = r.random()
    if k < 0.7:
        return rand_text(r, r.randint(0, 8))
    if k < 0.82 and role == "assistant":
        return None
    if k < 0.95:
        parts = []
        for _ in range(r.randint(0, 3)):
            if r.random() < 0.7:
                parts.append({"type": "text", "text": rand_text(r)})
            else:
                parts.append({"type": "image", "image": "http://x/%d.png" % r.randint(0, 9)})
        return parts
    return ""


def rand_messages(r):
    msgs = []
    if r.random() < 0.015:
        return msgs
    if r.random() < 0.4:
        msgs.append({"role": "system", "content": rand_text(r, r.randint(1, 5))})
    nturns = r.randint(1, 4)
    for t in range(nturns):
        msgs.append({"role": "user", "content": rand_content(r, "user")})
        if t == nturns - 1 and r.random() < 0.5:
            break
        m = {"role": "assistant", "content": rand_content(r, "assistant")}
        if r.random() < 0.2:
            m["reasoning_content"] = rand_text(r, 3)
        if r.random() < 0.3:
            calls = []
            for j in range(r.randint(1, 2)):
                args = rand_args(r)
                fn = {"name": r.choice(["get_weather", "search", "calc", "ünïcode_fn"]),
                      "arguments": args if r.random() < 0.6 else json.dumps(args, ensure_ascii=r.random() < 0.5)}
                call = {"type": "function", "function": fn}
                if r.random() < 0.7:
                    call["id"] = "call_%d%d" % (t, j)
                calls.append(call)
            m["tool_calls"] = calls
            msgs.append(m)
            for c in calls:
                tm = {"role": "tool", "content": rand_text(r, 2)}
                if r.random() < 0.5:
                    tm["tool_call_id"] = c.get("id", "x")
                if r.random() < 0.3:
                    tm["name"] = c["function"]["name"]
                msgs.append(tm)
        else:
            msgs.append(m)
    if r.random() < 0.05:  # odd role order sometimes
        r.shuffle(msgs)
    return msgs


def rand_tools(r):
    if r.random() < 0.4:
        return None
    tools = []
    for i in range(r.randint(0, 3)):
        props = {}
        for p in r.sample(["location", "unit", "query", "n", "ünï"], r.randint(0, 3)):
            props[p] = {"type": r.choice(["string", "integer", "number", "boolean"]),
                        "description": rand_text(r, 2)}
            if r.random() < 0.2:
                props[p]["enum"] = ["a", "b"]
        tools.append({"type": "function", "function": {
            "name": "tool_%d" % i, "description": rand_text(r, 3),
            "parameters": {"type": "object", "properties": props, "required": list(props)[:1]}}})
    return tools


def rand_tree(r, depth=0):
    nodes = []
    for i in range(r.randint(0 if depth else 1, 3 if depth < 2 else 1)):
        node = {"name": r.choice(SAFE_WORDS) or "n%d" % i, "v": r.randint(-3, 9)}
        node["children"] = rand_tree(r, depth + 1) if depth < 2 and r.random() < 0.5 else []
        nodes.append(node)
    return nodes


def rand_context(r):
    ctx = {"messages": rand_messages(r)}
    if r.random() < 0.8:
        ctx["tools"] = rand_tools(r)
    ctx["add_generation_prompt"] = r.random() < 0.5
    if r.random() < 0.97:
        ctx["bos_token"] = r.choice(["<s>", "<|begin_of_text|>", "", "<bos>"])
    if r.random() < 0.97:
        ctx["eos_token"] = r.choice(["</s>", "<|eot_id|>", "<eos>"])
    ctx["n"] = r.randint(0, 5)
    ctx["neg"] = r.randint(-9, -1)
    ctx["big"] = r.choice([2 ** 63, 2 ** 64, -2 ** 63 - 1, 10 ** 18 + 7, 9007199254740993])
    ctx["x"] = r.choice([0.1, 1.0, -0.0, 1e20, 1.5e-7, 2.5, 123456789.123, 1e-5, 3.0, -2.75, 0.5])
    ctx["flag"] = r.random() < 0.5
    ctx["nothing"] = None
    ctx["s"] = r.choice(WORDS)
    ctx["words"] = [r.choice(WORDS) for _ in range(r.randint(1, 5))]
    ctx["nums"] = [r.randint(-5, 20) for _ in range(r.randint(1, 6))]
    ctx["cfg"] = {"name": r.choice(WORDS), "count": r.randint(0, 9), "ratio": r.choice([0.5, 1e-3, 2.0]),
                  "on": r.random() < 0.5, "none": None, "tags": [r.choice(SAFE_WORDS) for _ in range(r.randint(0, 3))],
                  "nested": {"k": r.choice(WORDS), "deep": {"z": r.randint(0, 3)}}, "items": "shadow"}
    if r.random() < 0.3:
        ctx["cfg"]["_hidden"] = "underscore"
    ctx["tree"] = rand_tree(r)
    ctx["pairs"] = [[r.choice(SAFE_WORDS), r.randint(-3, 9)] for _ in range(r.randint(0, 4))]
    if r.random() < 0.5:
        ctx["opt"] = r.choice(WORDS)
    if r.random() < 0.1:
        ctx["special_tokens"] = {"unk_token": "<unk>"}
    if r.random() < 0.05:
        ctx["documents"] = [{"title": "t", "text": rand_text(r, 3)}]
    keys = [k for k in ctx if k not in ("messages",)]
    r.shuffle(keys)  # key order is part of the data (dict iteration order)
    return {"messages": ctx["messages"], **{k: ctx[k] for k in keys}}


# ----------------------------------------------------------------------------
