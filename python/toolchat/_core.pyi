# Type stub of the extension module toolchat._core (python/src/); toolchat/__init__.py re-exports it.
import datetime
from typing import Any, Callable, Iterable, Literal, Mapping, Sequence, overload

__version__: str

JSONValue = Any  # dict / list / tuple / str / int / float / bool / None, nested
Message = Mapping[str, JSONValue]
Now = str | datetime.datetime | datetime.date | None  # None: 2026-01-15T09:30:00; "real": the clock

def render(template_source: str, context: Mapping[str, JSONValue], *, now: Now = None) -> str: ...

class Template:
    @property
    def names(self) -> list[str]: ...
    @property
    def name(self) -> str | None: ...
    @property
    def path(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def special_tokens(self) -> dict[str, JSONValue]: ...
    @overload
    def apply(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, JSONValue] | Callable[..., Any]] | None = None,
        documents: Sequence[Mapping[str, JSONValue]] | None = None,
        add_generation_prompt: JSONValue = False,
        continue_final_message: bool = False,
        **kwargs: JSONValue,
    ) -> str: ...
    @overload
    def apply(
        self,
        messages: Sequence[Sequence[Message]],
        tools: Sequence[Mapping[str, JSONValue] | Callable[..., Any]] | None = None,
        documents: Sequence[Mapping[str, JSONValue]] | None = None,
        add_generation_prompt: JSONValue = False,
        continue_final_message: bool = False,
        **kwargs: JSONValue,
    ) -> list[str]: ...
    def detect(self) -> dict[str, Any]: ...

def load_template(path: str, name: str | None = None, *, now: Now = None) -> Template: ...

def parse(
    text: str | bytes,
    dialect: str | Template,
    tools: Sequence[Mapping[str, JSONValue]] | Mapping[str, JSONValue] | None = None,
    *,
    reasoning_open: bool = False,
    seed: int | None = None,
) -> dict[str, Any]: ...

class StreamParser:
    def __init__(
        self,
        dialect: str | Template,
        tools: Sequence[Mapping[str, JSONValue]] | Mapping[str, JSONValue] | None = None,
        *,
        reasoning_open: bool = False,
        seed: int | None = None,
    ) -> None: ...
    def feed(self, text: str | bytes) -> list[dict[str, Any]]: ...
    def finish(self) -> list[dict[str, Any]]: ...

def dialect_names() -> list[str]: ...

@overload
def convert_rows(
    rows: Iterable[Mapping[str, JSONValue] | str | bytes],
    fmt: Literal["sharegpt", "chatglm3", "openai", "qwen-agent"],
    model: str,
    *,
    name: str | None = None,
    polyfill: str | None = None,
    kwargs: Mapping[str, JSONValue] | None = None,
    special_tokens: Mapping[str, JSONValue] | None = None,
    now: Now = None,
    train_on_prompt: bool = False,
    last_turn_only: bool = False,
    split: bool = False,
    check: list[dict[str, Any]] | None = None,
    strict: bool = False,
    tokenizer: str | None = None,
    max_length: int = 0,
    reuse_renders: bool = True,
    bad_rows: list[dict[str, Any]] | None = None,
    stats: dict[str, Any] | None = None,
    threads: int = 1,
    as_json: Literal[False] = False,
) -> list[dict[str, Any]]: ...
@overload
def convert_rows(
    rows: Iterable[Mapping[str, JSONValue] | str | bytes],
    fmt: Literal["sharegpt", "chatglm3", "openai", "qwen-agent"],
    model: str,
    *,
    name: str | None = None,
    polyfill: str | None = None,
    kwargs: Mapping[str, JSONValue] | None = None,
    special_tokens: Mapping[str, JSONValue] | None = None,
    now: Now = None,
    train_on_prompt: bool = False,
    last_turn_only: bool = False,
    split: bool = False,
    check: list[dict[str, Any]] | None = None,
    strict: bool = False,
    tokenizer: str | None = None,
    max_length: int = 0,
    reuse_renders: bool = True,
    bad_rows: list[dict[str, Any]] | None = None,
    stats: dict[str, Any] | None = None,
    threads: int = 1,
    as_json: Literal[True],
) -> list[str]: ...
