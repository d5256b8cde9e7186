"""toolchat: chat templates rendered exactly as Hugging Face transformers renders them, tool calls
parsed out of model output, and training data converted with loss spans, from C++ (toolchat's own
engine), with the GIL released while it works.

    import toolchat
    tpl = toolchat.load_template("examples/qwen2.5")
    prompt = tpl.apply(messages, tools=tools, add_generation_prompt=True)
    msg = toolchat.parse(model_output, "hermes")      # {"content", "tool_calls", ...}

See help() of each name, and the README's Python section.
"""

from toolchat._errors import (
    BadRowWarning,
    FilterArgumentError,
    LimitError,
    SecurityError,
    TemplateAssertionError,
    TemplateError,
    TemplateRuntimeError,
    TemplateSyntaxError,
    TokenWarning,
    UndefinedError,
)
from toolchat import _errors
from toolchat._schema import get_json_schema
from toolchat._core import (
    StreamParser,
    Template,
    __version__,
    convert_rows,
    dialect_names,
    load_template,
    parse,
    render,
)

__all__ = [
    "__version__",
    "render",
    "load_template",
    "Template",
    "parse",
    "StreamParser",
    "dialect_names",
    "convert_rows",
    "get_json_schema",
    *_errors.__all__,
]
