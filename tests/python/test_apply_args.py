"""Template.apply's arguments as a transformers user passes them: Python values reach the template
exactly as Jinja2 sees them (checked against the live oracle), bad values are refused naming their
place, and apply_chat_template's parameters behave as transformers' do (tools as functions,
documents, continue_final_message, kwargs, its tokenizer parameters, a batch)."""
import enum
import inspect
import math
from typing import Literal

import pytest

import toolchat
from conftest import QWEN


def template(tmp_path, source, name="t.jinja"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    return toolchat.load_template(str(path))


class Text(str):
    pass


class Level(enum.IntEnum):
    HIGH = 3


class Ratio(float):
    pass


VALUES = {
    "bigint": 2**80,
    "negative_bigint": -(2**70) - 1,
    "int64_edges": [2**63 - 1, -(2**63), 2**63, -(2**63) - 1],
    "floats": [0.1, 1e300, -0.0, 1e-7, 123456789.0],
    "nan": math.nan,
    "infinities": [math.inf, -math.inf],
    "tuple": (1, "a", (None,)),
    "str_subclass": Text("héllo"),
    "int_subclass": Level.HIGH,
    "float_subclass": Ratio(2.5),
    "non_str_keys": {1: "a", None: "b", 2.5: "c", False: "d", "k": "e"},
    "unicode": "é\U0001F600\u2028\x00",
    "bools": [True, False],
}
PROBE = ("{% set v = messages[0].v %}{{ v }}|{{ v | tojson }}|{{ v is number }}|{{ v is string }}|"
         "{{ v is mapping }}|{{ v is sequence }}|{{ v | string | length }}")


@pytest.mark.parametrize("kind", sorted(VALUES))
def test_python_values_reach_the_template_as_jinja2_sees_them(kind, oracle, tmp_path):
    ctx = {"messages": [{"role": "user", "v": VALUES[kind]}]}
    want = oracle.render_case(PROBE, ctx, {})
    assert "text" in want, want
    assert toolchat.render(PROBE, ctx) == want["text"]
    assert template(tmp_path, PROBE).apply(ctx["messages"]) == want["text"]


def test_dict_items_keep_order_and_key_types(oracle):
    src = "{% for k, v in messages[0].items() %}{{ k }}:{{ v }}:{{ k is string }};{% endfor %}"
    ctx = {"messages": [VALUES["non_str_keys"]]}
    assert toolchat.render(src, ctx) == oracle.render_case(src, ctx, {})["text"]


def nested(depth):
    v = "leaf"
    for _ in range(depth):
        v = [v]
    return v


def test_deep_nesting_up_to_the_limit_and_a_clear_error_past_it(tmp_path):
    tpl = template(tmp_path, "{{ messages[0].content | length }}")
    # messages -> message -> content: 3 levels before the nested lists
    assert tpl.apply([{"content": nested(500)}]) == "1"
    with pytest.raises(ValueError, match=r"^messages\[0\]\.content(\[0\])+: nested deeper than 512 levels"):
        tpl.apply([{"content": nested(600)}])


READS_ALL = "{{ flag }}{{ extra }}{{ tools }}{{ documents }}"


def test_cycles_are_refused_with_their_path(tmp_path):
    tpl = template(tmp_path, READS_ALL)
    d = {"role": "user"}
    d["self"] = d
    with pytest.raises(ValueError, match=r"^messages\[0\](\.self)+: nested deeper than 512"):
        tpl.apply([d])
    tools = [{"type": "function"}]
    tools[0]["function"] = tools
    with pytest.raises(ValueError, match=r"^tools\[0\]\.function\[0\]\.function"):
        tpl.apply([], tools=tools)
    with pytest.raises(ValueError, match=r"^extra\.loop(\.loop)+: nested deeper"):
        loop = {}
        loop["loop"] = loop
        tpl.apply([], extra=loop)


def test_bad_values_name_their_place(tmp_path):
    tpl = template(tmp_path, READS_ALL)
    with pytest.raises(TypeError, match=r"^flag: expected a JSON value .* not object$"):
        tpl.apply([], flag=object())
    with pytest.raises(TypeError, match=r"^messages\[0\]\['a b'\]\[1\]: expected .* not bytes$"):
        tpl.apply([{"a b": [1, b"x"]}])
    with pytest.raises(TypeError, match=r"^messages\[0\]\[1\]: keys must be str, int, float, bool or None, not tuple$"):
        tpl.apply([{1: {(1,): 2}}])
    with pytest.raises(TypeError, match=r"^special_tokens: expected a dict, not str$"):
        tpl.apply([], special_tokens="<s>")


def test_variables_the_template_never_names_are_not_converted(tmp_path, oracle):
    # As Jinja2, which never reads them: no error for a value it could not render, and the tools
    # (given) still choose the tool_use template.
    (tmp_path / "chat_template.json").write_text(
        '{"chat_template": [{"name": "default", "template": "D{{ flag }}"}, {"name": "tool_use", "template": "T"}]}')
    tpl = toolchat.load_template(str(tmp_path / "chat_template.json"))
    odd = {"a": object()}
    assert tpl.apply([], tools=[odd], documents=[odd], unused={1, 2}) == "T"
    with pytest.raises(TypeError, match=r"^flag: expected a JSON value"):
        tpl.apply([], flag={1, 2})
    # the shape transformers checks is still checked
    with pytest.raises(ValueError, match=r"^tools\[0\]: expected a tool's JSON schema"):
        tpl.apply([], tools=[1])
    with pytest.raises(TypeError, match=r"^documents\[0\]: expected a dict"):
        tpl.apply([], documents=[1])
    # the names come from the compiled template: a word in a comment or a string is not one
    assert template(tmp_path, "{# flag #}{{ 'flag' }}").apply([], flag=object()) == "flag"
    with pytest.raises(TypeError, match="^flag: "):
        template(tmp_path, "{{ 'x' if flag is defined }}").apply([], flag=object())


# ---- apply_chat_template's parameters ----

def test_kwargs_are_template_variables_over_the_special_tokens(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "tokenizer_config.json").write_text(
        '{"bos_token": "<s>", "eos_token": "</s>", "chat_template": "{{ bos_token }}{{ eos_token }}{% if bar is defined %}{{ foo }}{{ bar.x }}{% endif %}"}')
    tpl = toolchat.load_template(str(tmp_path / "m"))
    assert tpl.apply([], foo=1, bar={"x": [2]}) == "<s></s>1[2]"
    assert tpl.apply([], bos_token="B") == "B</s>"
    assert tpl.apply([], special_tokens={"bos_token": "B", "eos_token": "E"}, eos_token="F") == "BF"
    # chat_template= a template's text: rendered instead, with the model's special tokens
    assert tpl.apply([], chat_template="[{{ bos_token }}{{ foo }}]", foo=7) == "[<s>7]"


def test_positional_and_keyword_arguments_as_transformers_signature(tmp_path):
    tpl = template(tmp_path, "{{ tools | length if tools else '-' }}{{ documents | length if documents else '-' }}"
                             "{{ add_generation_prompt }}")
    msgs = [{"role": "user", "content": "hi"}]
    assert tpl.apply(msgs, [{"a": 1}], [{"title": "t", "text": "x"}], True) == "11True"
    assert tpl.apply(messages=msgs) == "--False"
    assert tpl.apply(msgs, add_generation_prompt=1) == "--1"  # passed as given, as transformers does
    with pytest.raises(TypeError, match="multiple values for argument 'tools'"):
        tpl.apply(msgs, None, tools=None)
    with pytest.raises(TypeError, match="missing required argument 'messages'"):
        tpl.apply(tools=None)
    with pytest.raises(TypeError, match="from 1 to 5 positional arguments but 6 were given"):
        tpl.apply(msgs, None, None, False, False, 1)
    params = inspect.signature(toolchat.Template.apply).parameters
    assert list(params) == ["self", "messages", "tools", "documents", "add_generation_prompt",
                            "continue_final_message", "kwargs"]
    assert params["kwargs"].kind is inspect.Parameter.VAR_KEYWORD


def test_continue_final_message_as_transformers(tmp_path, oracle):
    tpl = toolchat.load_template(QWEN)
    msgs = [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "The answer is "}]
    full = tpl.apply(msgs)
    assert tpl.apply(msgs, continue_final_message=True) == oracle.continue_final(full, msgs)
    assert tpl.apply(msgs, continue_final_message=True).endswith("<|im_start|>assistant\nThe answer is ")
    with pytest.raises(ValueError, match="continue_final_message and add_generation_prompt"):
        tpl.apply(msgs, add_generation_prompt=True, continue_final_message=True)
    hidden = template(tmp_path, "{% for m in messages %}{{ m.role }}{% endfor %}")
    with pytest.raises(ValueError, match="final message not found"):
        hidden.apply(msgs, continue_final_message=True)


def test_tokenizer_parameters_accepted_at_their_text_values(tmp_path):
    tpl = template(tmp_path, "{{ tokenize is defined }}")
    assert tpl.apply([], tokenize=False, return_dict=False, padding=False, truncation=None,
                     max_length=None, return_tensors=None, return_assistant_tokens_mask=False) == "False"
    for name, value in (("tokenize", True), ("return_dict", True), ("return_tensors", "pt"), ("max_length", 8)):
        with pytest.raises(ValueError, match=f"^{name}=.*returns the text"):
            tpl.apply([], **{name: value})


def test_chat_template_by_name(tmp_path):
    (tmp_path / "chat_template.json").write_text(
        '{"chat_template": [{"name": "default", "template": "D"}, {"name": "tool_use", "template": "T"}]}')
    tpl = toolchat.load_template(str(tmp_path / "chat_template.json"))
    assert tpl.apply([]) == "D"
    assert tpl.apply([], tools=[]) == "T"  # given (even empty), tools select tool_use, as transformers
    assert tpl.apply([], chat_template="tool_use") == "T"
    assert tpl.apply([], tools=[], chat_template="default") == "D"


def test_documents_and_tools_are_checked_as_transformers_checks_them(tmp_path):
    tpl = template(tmp_path, "x")
    with pytest.raises(TypeError, match=r"^documents\[1\]: expected a dict"):
        tpl.apply([], documents=[{"title": "a", "text": "b"}, "text"])
    with pytest.raises(TypeError, match=r"^documents: expected a list of dicts, not str"):
        tpl.apply([], documents="text")
    with pytest.raises(ValueError, match=r"^tools\[1\]: expected a tool's JSON schema \(a dict\) or a Python function"):
        tpl.apply([], tools=[{"type": "function"}, "get_weather"])
    with pytest.raises(TypeError, match=r"^tools: expected a list"):
        tpl.apply([], tools={"type": "function"})


def test_a_batch_gives_a_list_of_texts(tmp_path):
    tpl = template(tmp_path, "{% for m in messages %}{{ m.content }}{% endfor %}{{ x }}")
    batch = ([{"content": "a"}], [{"content": "b"}, {"content": "c"}])
    assert tpl.apply(batch, x="!") == ["a!", "bc!"]
    assert tpl.apply(list(batch), x="?") == ["a?", "bc?"]
    with pytest.raises(TypeError, match=r"^messages\[1\]\[0\]\.content: expected a JSON value"):
        tpl.apply([[{"content": "a"}], [{"content": {1}}]])


# ---- tools as Python functions: the schemas transformers' get_json_schema gives ----
# (the expected schemas are those of transformers' own tests, tests/utils/test_chat_template_utils.py)

def fn_everything(x: str, y: list[str | int] | None, z: tuple[str | int, str] = (42, "hello")) -> tuple[int, str]:
    """
    Test function with multiple args, and docstring args that we have to strip out.

    Args:
        x: The first input. It's got a big multiline
           description and also contains
           (choices: ["a", "b", "c"])

        y: The second input. It's a big list with a single-line description.

        z: The third input. It's some kind of tuple with a default arg.

    Returns:
        The output. The return description is also a big multiline
        description that spans multiple lines.
    """


def fn_literal(temperature_format: Literal["celsius", "fahrenheit"],
               booleanish: Literal[True, False, 0, 1, "y", "n"] = False):
    """
    Test function

    Args:
        temperature_format: The temperature format to use
        booleanish: A value that can be regarded as boolean
    """


def fn_unions(x: str | list[str], y: Literal["a", "b"] | int | None = None, w: list | tuple | dict | None = None):
    """
    Test function

    Args:
        x: The input
        y: Also the input
        w: Another
    """


class Tool:
    def method(self, x: int) -> None:
        """
        Test function

        Args:
            x: The input
        """


def test_get_json_schema_as_transformers():
    assert toolchat.get_json_schema(fn_everything) == {"type": "function", "function": {
        "name": "fn_everything",
        "description": "Test function with multiple args, and docstring args that we have to strip out.",
        "parameters": {"type": "object", "properties": {
            "x": {"type": "string", "enum": ["a", "b", "c"],
                  "description": "The first input. It's got a big multiline description and also contains"},
            "y": {"type": "array", "items": {"type": ["integer", "string"]}, "nullable": True,
                  "description": "The second input. It's a big list with a single-line description."},
            "z": {"type": "array", "prefixItems": [{"type": ["integer", "string"]}, {"type": "string"}],
                  "description": "The third input. It's some kind of tuple with a default arg."}},
            "required": ["x", "y"]},
        "return": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}],
                   "description": "The output. The return description is also a big multiline\n"
                                  "    description that spans multiple lines."}}}
    props = toolchat.get_json_schema(fn_literal)["function"]["parameters"]["properties"]
    assert props["temperature_format"] == {"type": "string", "enum": ["celsius", "fahrenheit"],
                                           "description": "The temperature format to use"}
    assert props["booleanish"] == {"type": ["boolean", "integer", "string"], "enum": [True, False, 0, 1, "y", "n"],
                                   "description": "A value that can be regarded as boolean"}
    props = toolchat.get_json_schema(fn_unions)["function"]["parameters"]["properties"]
    assert props["x"] == {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                          "description": "The input"}
    assert props["y"] == {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "integer"}], "nullable": True,
                          "description": "Also the input"}
    assert props["w"] == {"type": ["array", "object"], "nullable": True, "description": "Another"}
    for method in (Tool.method, Tool().method):
        f = toolchat.get_json_schema(method)["function"]
        assert f["parameters"] == {"type": "object", "properties": {"x": {"type": "integer", "description": "The input"}},
                                   "required": ["x"]}
        assert f["return"] == {"type": "null"}


def test_tools_given_as_functions_render_their_schemas():
    tpl = toolchat.load_template(QWEN)
    msgs = [{"role": "user", "content": "hi"}]
    assert tpl.apply(msgs, tools=[fn_literal, Tool().method]) == tpl.apply(
        msgs, tools=[toolchat.get_json_schema(fn_literal), toolchat.get_json_schema(Tool().method)])

    def undocumented(x: int):
        return x

    def untyped(x):
        """Doc.

        Args:
            x: The input
        """

    with pytest.raises(ValueError, match=r"^tools\[1\]: undocumented: a tool function needs a docstring"):
        tpl.apply(msgs, tools=[fn_literal, undocumented])
    with pytest.raises(ValueError, match=r"^tools\[0\]: untyped: argument 'x' has no type hint"):
        tpl.apply(msgs, tools=[untyped])
