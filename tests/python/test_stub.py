"""The type stub python/toolchat/_core.pyi describes the module as built: the same public names,
and for every function and method the same parameters (names, order, positional / keyword-only,
which have defaults), read from the extension's signatures (pybind11's docstring line, or
inspect.signature where the function carries a text signature)."""
import ast
import inspect
import os

import toolchat
import toolchat._core as core
from conftest import ROOT

STUB = os.path.join(ROOT, "python", "toolchat", "_core.pyi")


def split_top_level(text):
    """`a: Dict[str, int] = {}, *, b: int` -> its comma-separated parts, brackets respected."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def runtime_params(fn):
    """[(name, kind, has_default)] of an extension function or method."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty) for p in sig.parameters.values()]
    line = fn.__doc__.splitlines()[0]  # pybind11: "name(arg: type = default, *, ...) -> ret"
    inner = line[line.index("(") + 1: line.rindex(") ->")]
    out, kind = [], "POSITIONAL_OR_KEYWORD"
    for part in split_top_level(inner):
        if part == "*":
            kind = "KEYWORD_ONLY"
            continue
        name = part.split(":")[0].strip()
        out.append((name, kind, "=" in part))
    return out


def stub_params(node):
    a = node.args
    out = [(x.arg, "POSITIONAL_ONLY", False) for x in a.posonlyargs]
    defaults = [False] * (len(a.args) - len(a.defaults)) + [True] * len(a.defaults)
    out += [(x.arg, "POSITIONAL_OR_KEYWORD", d) for x, d in zip(a.args, defaults)]
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", False))
    out += [(x.arg, "KEYWORD_ONLY", d is not None) for x, d in zip(a.kwonlyargs, a.kw_defaults)]
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", False))
    return out


def normalized(params):
    # `self` is positional-only in a text signature and positional-or-keyword in the stub
    return [("self", "POSITIONAL_OR_KEYWORD", False) if p[0] == "self" else p for p in params]


def same(node, runtime):
    """The stub's def spells the runtime's parameters; an @overload may drop a default (it narrows
    a parameter to one value, `as_json: Literal[True]`)."""
    stub, real = normalized(stub_params(node)), normalized(runtime_params(runtime))
    if any(isinstance(d, ast.Name) and d.id == "overload" for d in node.decorator_list):
        return [p[:2] for p in stub] == [p[:2] for p in real]
    return stub == real


def stub_tree():
    with open(STUB, encoding="utf-8") as f:
        return ast.parse(f.read())


def public(names):
    return {n for n in names if not n.startswith("_")}


def test_stub_names_are_the_module_names():
    tree = stub_tree()
    stub = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stub.add(node.name)
        elif isinstance(node, ast.AnnAssign):  # declared values (plain assignments are type aliases)
            stub.add(node.target.id)
    assert stub == public(dir(core)) | {"__version__"}
    # the package re-exports the extension's names
    assert public(dir(core)) <= set(toolchat.__all__)


def test_stub_signatures_are_the_module_signatures():
    checked = 0
    for node in stub_tree().body:
        if isinstance(node, ast.FunctionDef):
            assert same(node, getattr(core, node.name)), node.name
            checked += 1
        if isinstance(node, ast.ClassDef):
            cls = getattr(core, node.name)
            members = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.setdefault(item.name, []).append(item)
            assert public(members) == public(dir(cls)), node.name
            for name, defs in members.items():
                runtime = getattr(cls, name)
                if isinstance(runtime, property):
                    assert any(isinstance(d, ast.Name) and d.id == "property" for d in defs[0].decorator_list), name
                    continue
                for d in defs:  # every overload spells the same parameters
                    assert same(d, runtime), f"{node.name}.{name}"
                    checked += 1
    assert checked >= 8
