"""What the hostile catalogue is made of: the case records (T, B, RAW, J append to TPL_CASES and
JSON_CASES), the default context, the limit-error pattern, and G, a long string kept small in the
catalogue files. The cases themselves are in cases_*.py, one module a family of attack."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

LIMIT_RE = r"(?i)(limit|budget|exceed|too (big|large|deep|many)|recursion|depth|timeout|memory)"
D = {"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": True,
     "bos_token": "<s>", "eos_token": "</s>"}

TPL_CASES = []
JSON_CASES = []


class G:
    """A long string kept small in the catalogue: {"$gen": [["lit", s], ["rep", s, n], ...]}."""

    def __init__(self, parts):
        self.parts = parts

    def __add__(self, o):
        return G(self.parts + (o.parts if isinstance(o, G) else [["lit", o]]))

    def __radd__(self, o):
        return G([["lit", o]] + self.parts)

    def text(self):
        return "".join(p[1] if p[0] == "lit" else p[1] * p[2] for p in self.parts)


def R(s, n):
    return G([["rep", s, n]])


def materialize(o):
    if isinstance(o, G):
        return o.text()
    if isinstance(o, dict):
        return {k: materialize(v) for k, v in o.items()}
    if isinstance(o, list):
        return [materialize(v) for v in o]
    return o


def serialize(o):
    if isinstance(o, G):
        return {"$gen": o.parts}
    if isinstance(o, dict):
        return {k: serialize(v) for k, v in o.items()}
    if isinstance(o, list):
        return [serialize(v) for v in o]
    return o


def corpus_template(name):
    return (ROOT / "tests" / "corpus" / "templates" / (name + ".jinja")).read_text(encoding="utf-8")


def T(cid, group, template, why, ctx=None, kind="oracle", or_limit=False, max_seconds=2.0):
    TPL_CASES.append(dict(id=cid, group=group, template=template, context=ctx if ctx is not None else D,
                          kind=kind, or_limit=or_limit, max_seconds=max_seconds, why=why))


def B(cid, group, template, why, ctx=None, max_seconds=2.0):
    """A resource bomb or nesting beyond our limits: a limit-class error within max_seconds."""
    T(cid, group, template, why, ctx, kind="limit", max_seconds=max_seconds)


def RAW(cid, group, why, template_bytes=None, context_bytes=None):
    TPL_CASES.append(dict(id=cid, group=group, template_bytes=template_bytes, context_bytes=context_bytes,
                          kind="fail", why=why))


def J(cid, group, data, why, error_match=None):
    JSON_CASES.append(dict(id=cid, group=group, data=data, why=why, error_match=error_match))
