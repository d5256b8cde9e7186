"""Syntax: truncated, unterminated or odd template text."""

from catalogue_defs import T


def add_cases():
    syn = [
        ("open_var", "{{"), ("open_var_expr", "{{ 1"), ("open_var_space", "{{ messages "),
        ("open_block", "{%"), ("if_no_cond", "{% if %}x{% endif %}"), ("if_unclosed", "{% if true %}x"),
        ("for_unclosed", "{% for x in messages %}x"), ("for_no_in", "{% for x %}{% endfor %}"),
        ("comment_unterminated", "a{# never closed"), ("comment_nested", "{# a {# b #} c #}"),
        ("raw_unterminated", "{% raw %}abc"), ("raw_inner_tags", "{% raw %}{{ x }}{% if %}{% endraw %}"),
        ("str_unterminated_sq", "{{ 'abc }}"), ("str_unterminated_dq", '{{ "abc'),
        ("str_newline", "{{ 'a\nb' }}"), ("macro_no_name", "{% macro %}{% endmacro %}"),
        ("endif_alone", "{% endif %}"), ("else_alone", "{% else %}"), ("endfor_mismatch", "{% if true %}{% endfor %}"),
        ("plus_dangling", "{{ 1 + }}"), ("close_paren", "{{ ) }}"), ("list_unclosed", "{{ [1, 2 }}"),
        ("dict_unclosed", "{{ {1: }}"), ("set_empty", "{% set %}"), ("for_empty", "{% for %}"),
        ("cond_dangling", "{{ 1 if }}"), ("pipe_dangling", "{{ x| }}"), ("is_dangling", "{{ x is }}"),
        ("call_no_args", "{% call %}{% endcall %}"), ("escape_x", "{{ '\\x4' }}"),
        ("escape_name", "{{ '\\N{NOT A REAL NAME}' }}"), ("escape_unknown", "{{ 'a\\qb' }}"),
        ("escape_u", "{{ '\\u00e9\\U0001F600\\x41' }}"), ("escape_surrogate", "{{ '\\ud800'|length }}"),
        ("generation_unclosed", "{% generation %}x"), ("break_outside", "{% break %}"),
        ("continue_outside", "{% continue %}"), ("include", "{% include 'x' %}"), ("extends", "{% extends 'x' %}"),
        ("import", "{% import 'x' as y %}"), ("from_import", "{% from 'x' import y %}"), ("do_tag", "{% do x %}"),
        ("block_tag", "{% block a %}x{% endblock %}"), ("unknown_tag", "{% foo %}"), ("unknown_filter", "{{ 1|madeup }}"),
        ("unknown_filter_if", "{% if false %}{{ 1|madeup }}{% endif %}ok"), ("unknown_test", "{{ 1 is madeup }}"),
        ("extra_close", "{{ 1 }}}"), ("tag_close_only", "%}"), ("var_close_only", "}}x"),
        ("minus_markers", "a  {%- if true -%}  b  {%- endif -%}  c"), ("plus_marker", "a\n  {%+ if true %}b{% endif %}"),
        ("empty_template", ""), ("only_newline", "\n"), ("crlf", "{% if true %}\r\na\r\n{% endif %}\r\nb\r\n"),
        ("lone_cr", "a\rb{% if true %}\rc{% endif %}\r"), ("null_byte_text", "a\x00b{{ '\x00'|length }}"),
        ("null_byte_expr", "{{ 1\x00 }}"), ("control_chars", "\x1b[31m{{ '\x07\x7f' }}\x1b[0m"),
        ("bom_start", "\ufeff{{ 1 }}"), ("bom_in_expr", "{{\ufeff1 }}"), ("bom_in_string", "{{ '\ufeff'|length }}"),
        ("unicode_ws_expr", "{{\u00a01 }}"), ("line_sep", "a\u2028b\u0085c{{ 'x\u2028y'.splitlines() }}"),
        ("lone_surrogate_text", "a\ud800b{{ '\udc00'|length }}"), ("tab_ws", "{{\t1\t}}{%\tif\ttrue\t%}x{%\tendif\t%}"),
        ("unicode_name", "{{ café }}"), ("keyword_name", "{{ true.real }}|{{ None }}|{{ True }}"),
    ]
    for s in syn:
        T("syn_" + s[0], "syntax", s[1], "truncated, unterminated or odd template text")
