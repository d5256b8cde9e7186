"""The exceptions toolchat raises, named and arranged as Jinja2's (jinja2.exceptions), so that code
written against transformers' apply_chat_template catches the same classes by the same names.

A failing template operation raises what Jinja2 would: the TemplateError family below, or the
builtin exception of the operation (TypeError, KeyError, ZeroDivisionError ...). Where the error
has a place in the template, the exception carries it: ``lineno`` and ``colno`` (1-based, columns
in characters), ``name`` (the template's name: its file, or "FILE (template NAME)"), and a note
with the source line and a caret, shown under the traceback.
"""

import ast

__all__ = [
    "TemplateError",
    "TemplateSyntaxError",
    "TemplateAssertionError",
    "TemplateRuntimeError",
    "UndefinedError",
    "SecurityError",
    "FilterArgumentError",
    "LimitError",
    "BadRowWarning",
    "TokenWarning",
]


class TemplateError(Exception):
    """Base class of the template errors; ``raise_exception(msg)`` in a chat template raises it."""

    lineno = None
    colno = None
    name = None
    filename = None

    def __init__(self, message=None):
        super().__init__(message)

    @property
    def message(self):
        return self.args[0] if self.args else None

    def __str__(self):
        return self.message or ""


class TemplateSyntaxError(TemplateError):
    """The template does not compile. ``lineno`` is the line of the fault."""

    def __init__(self, message, lineno, name=None, filename=None):
        super().__init__(message)
        self.lineno = lineno
        self.name = name
        self.filename = filename
        self.source = None


class TemplateAssertionError(TemplateSyntaxError):
    """A compile-time check failed (a filter or test that does not exist, a bad assignment)."""


class TemplateRuntimeError(TemplateError):
    """A generic error while rendering."""


class UndefinedError(TemplateRuntimeError):
    """An undefined value was used where a value is needed."""


class SecurityError(TemplateRuntimeError):
    """The sandbox refused an operation (an unsafe attribute, mutating a value)."""


class FilterArgumentError(TemplateRuntimeError):
    """A filter got arguments it cannot use."""


class LimitError(TemplateError):
    """A resource limit was reached: output size, steps, call depth, value size, input size
    (toolchat's own; Jinja2 has none and would run out of memory or time instead)."""


class BadRowWarning(UserWarning):
    """convert_rows skipped a row it could not convert (given no ``bad_rows`` list to report it in)."""


class TokenWarning(UserWarning):
    """convert_rows with a tokenizer: a converted row whose message text holds special-token text (kept
    as text in its input_ids; a whole-text tokenization, as transformers does it, reads it as special
    tokens). The CLI reports the same row on stderr."""


# Shown as toolchat.TemplateSyntaxError (their public home) in reprs and tracebacks.
for _cls in (TemplateError, TemplateSyntaxError, TemplateAssertionError, TemplateRuntimeError, UndefinedError,
             SecurityError, FilterArgumentError, LimitError, BadRowWarning, TokenWarning):
    _cls.__module__ = "toolchat"


def _make(cls, message, lineno, colno, name, note):
    """The exception instance for an error from the C++ side (called by toolchat._core)."""
    if issubclass(cls, TemplateSyntaxError):
        exc = cls(message, lineno, name, name)
    elif cls is KeyError:
        # The message is repr(key), as str(KeyError(key)) shows it: raise with the key itself.
        try:
            exc = KeyError(ast.literal_eval(message))
        except (ValueError, SyntaxError):
            exc = KeyError(message)
    else:
        exc = cls(message)
    if lineno is not None:
        exc.lineno = lineno
        exc.colno = colno
        exc.name = name
        exc.filename = name
    if note and hasattr(exc, "add_note"):  # Python 3.11+
        exc.add_note(note)
    return exc
