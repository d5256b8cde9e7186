"""A Python function as a tool's JSON schema, the way transformers' get_json_schema builds it (so
that `Template.apply(..., tools=[fn])` sees what `apply_chat_template(..., tools=[fn])` sees): the
name, the first part of the docstring as the description, each parameter's type from its type hint
and its description from the docstring's Google-style `Args:` block, `(choices: [...])` at the end
of a description as an enum, parameters without a default as required, and the `Returns:` block
with the return hint as "return"."""
import inspect
import json
import re
import types
import typing

__all__ = ["get_json_schema"]

_SECTION = re.compile(r"^\s*(Args|Returns|Raises):\s*$", re.MULTILINE)
_ARG_LINE = re.compile(r"^\s*(\w+):\s*(.*)$")
_UNION_TYPE = getattr(types, "UnionType", None)  # `int | str` (Python 3.10+)
_CHOICES = re.compile(r"\(choices:\s*(.*?)\)\s*$", re.IGNORECASE)


class SchemaError(ValueError):
    """A function that cannot be described as a tool: a missing docstring, type hint or argument
    description, or a type hint with no JSON schema."""


def _sections(doc):
    """The docstring split into its description and its Args / Returns / Raises blocks."""
    parts = _SECTION.split(doc)
    out = {"description": parts[0].strip()}
    for name, body in zip(parts[1::2], parts[2::2]):
        out[name] = body.strip("\n")
    return out


def _arg_descriptions(block):
    """`name: text` entries of an Args block; a line that does not start an entry continues the
    previous one (joined with a space)."""
    args, current = {}, None
    for line in block.splitlines():
        if not line.strip():
            continue
        m = _ARG_LINE.match(line)
        if m:
            current = m.group(1)
            args[current] = m.group(2).strip()
        elif current is not None:
            args[current] = (args[current] + " " + line.strip()).strip()
    return args


def _basic(hint):
    if hint is typing.Any:
        return {}
    for py, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string")):
        if hint is py:
            return {"type": name}
    if hint is type(None):
        return {"type": "null"}
    return None


def _hint_schema(hint, fn):
    basic = _basic(hint)
    if basic is not None:
        return basic
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        kinds = sorted({_basic(type(a))["type"] for a in args})
        return {"type": kinds[0] if len(kinds) == 1 else kinds, "enum": list(args)}
    if origin is typing.Union or (_UNION_TYPE is not None and origin is _UNION_TYPE):
        subs = [_hint_schema(a, fn) for a in args if a is not type(None)]
        if all(set(sub) == {"type"} and isinstance(sub["type"], str) for sub in subs):
            kinds = sorted({sub["type"] for sub in subs})  # plain types merge: list | tuple is one "array"
            out = {"type": kinds[0] if len(kinds) == 1 else kinds}
        elif len(subs) == 1:
            out = dict(subs[0])
        else:
            out = {"anyOf": subs}
        if type(None) in args:
            out["nullable"] = True
        return out
    if origin is list or hint is list:
        return {"type": "array", "items": _hint_schema(args[0], fn)} if args else {"type": "array"}
    if origin is tuple or hint is tuple:
        if not args:
            return {"type": "array"}
        if len(args) == 1 or Ellipsis in args:
            raise SchemaError(f"{fn.__name__}: tuple hint {hint!r}: give each element's type (or use a list)")
        return {"type": "array", "prefixItems": [_hint_schema(a, fn) for a in args]}
    if origin is dict or hint is dict:
        out = {"type": "object"}
        if len(args) == 2:
            out["additionalProperties"] = _hint_schema(args[1], fn)
        return out
    if origin is None and isinstance(hint, type):
        return {"type": "object"}  # a class of the caller's: an object, as transformers says
    raise SchemaError(f"{fn.__name__}: no JSON schema for the type hint {hint!r}")


def get_json_schema(fn):
    """The tool schema ``{"type": "function", "function": {...}}`` of a Python function, as
    transformers' ``get_json_schema`` makes it (type hints and a Google-style docstring)."""
    doc = inspect.getdoc(fn)
    if not doc:
        raise SchemaError(f"{fn.__name__}: a tool function needs a docstring (its description)")
    sections = _sections(doc.strip())
    described = _arg_descriptions(sections.get("Args", ""))
    hints = typing.get_type_hints(fn)
    properties, required = {}, []
    for i, (name, param) in enumerate(inspect.signature(fn).parameters.items()):
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if i == 0 and name in ("self", "cls") and param.annotation is inspect.Parameter.empty:
            continue  # a method taken from its class
        if param.annotation is inspect.Parameter.empty:
            raise SchemaError(f"{fn.__name__}: argument {name!r} has no type hint")
        if name not in described:
            raise SchemaError(f"{fn.__name__}: the docstring's Args: block does not describe {name!r}")
        schema = dict(_hint_schema(hints[name], fn))
        text = described[name]
        choices = _CHOICES.search(text)
        if choices:
            schema["enum"] = [c.strip() if isinstance(c, str) else c for c in json.loads(choices.group(1))]
            text = text[: choices.start()].strip()
        schema["description"] = text
        properties[name] = schema
        if param.default is inspect.Parameter.empty:
            required.append(name)
    parameters = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    function = {"name": fn.__name__, "description": sections["description"] or None, "parameters": parameters}
    if "return" in hints:
        ret = dict(_hint_schema(hints["return"], fn))
        if sections.get("Returns", "").strip():
            ret["description"] = sections["Returns"].strip()
        function["return"] = ret
    return {"type": "function", "function": function}


def tool_schema(fn, where):
    """get_json_schema for Template.apply's tools, the error naming the tool's place."""
    try:
        return get_json_schema(fn)
    except SchemaError as exc:
        raise SchemaError(f"{where}: {exc}") from None
