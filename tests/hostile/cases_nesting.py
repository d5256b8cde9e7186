"""Deep nesting beyond our limits (limit errors) and legitimate depths that must render as in Jinja2."""

from catalogue_defs import D, R, T, B


def add_cases():
    N = 100000
    deep = [
        ("parens", "{{ " + R("(", N) + "1" + R(")", N) + " }}", "nested parentheses"),
        ("lists", "{{ " + R("[", N) + R("]", N) + " }}", "nested list literals"),
        ("dicts", "{{ " + R("{'a': ", N) + "1" + R("}", N) + " }}", "nested dict literals"),
        ("tuples", "{{ " + R("(1, ", N) + "1" + R(")", N) + " }}", "nested tuple literals"),
        ("unary_minus", "{{ " + R("-", N) + "1 }}", "unary minus chain"),
        ("unary_not", "{{ " + R("not ", N) + "1 }}", "not chain"),
        ("plus_chain", "{{ 1" + R(" + 1", N) + " }}", "left-assoc + chain (deep left tree)"),
        ("concat_chain", "{{ 'a'" + R(" ~ 'a'", N) + " }}", "~ chain"),
        ("pow_chain", "{{ 1" + R(" ** 1", N) + " }}", "** chain"),
        ("and_chain", "{{ 1" + R(" and 1", N) + " }}", "and chain"),
        ("cmp_chain", "{{ 1" + R(" < 2", N) + " }}", "chained comparison"),
        ("cond_chain", "{{ " + R("1 if 1 else ", N) + "1 }}", "conditional expression chain"),
        ("filter_chain", "{{ 'a'" + R("|upper", N) + " }}", "filter chain"),
        ("test_chain", "{{ 1" + " is number" * 1000 + " }}", "test chain (a syntax error after the first)"),
        ("attr_chain", "{{ messages" + R(".x", N) + " }}", "attribute chain"),
        ("subscript_chain", "{{ messages" + R("[0]", N) + " }}", "subscript chain"),
        ("subscript_nested", "{{ " + R("messages[", N) + "0" + R("]", N) + " }}", "nested subscripts"),
        ("call_chain", "{{ lipsum" + R("()", N) + " }}", "call chain"),
        ("call_nested", "{{ " + R("range(", N) + "1" + R(")", N) + " }}", "nested calls"),
        ("ifs", R("{% if true %}", 10000) + "x" + R("{% endif %}", 10000), "nested if blocks"),
        ("fors", R("{% for a in [1] %}", 10000) + "x" + R("{% endfor %}", 10000), "nested for blocks"),
        ("withs", R("{% with %}", 10000) + "x" + R("{% endwith %}", 10000), "nested with blocks"),
        ("filter_blocks", R("{% filter upper %}", 10000) + "x" + R("{% endfilter %}", 10000), "nested filter blocks"),
        ("set_blocks", R("{% set x %}", 10000) + "x" + R("{% endset %}", 10000), "nested block sets"),
        ("macros", R("{% macro m() %}", 10000) + "x" + R("{% endmacro %}", 10000), "nested macro definitions"),
        ("call_blocks", "{% macro m() %}{{ caller() }}{% endmacro %}" + R("{% call m() %}", 10000) + "x" +
         R("{% endcall %}", 10000), "nested call blocks"),
        ("generation", R("{% generation %}", 10000) + "x" + R("{% endgeneration %}", 10000), "nested generation blocks"),
        ("elifs", "{% if false %}" + R("{% elif false %}", N) + "{% endif %}x", "a long elif chain (flat, may render)"),
        ("unclosed_ifs", R("{% if true %}", N), "many unclosed ifs"),
        ("unclosed_parens", "{{ " + R("(", N), "many unclosed parentheses"),
        ("unclosed_lists", "{{ " + R("[", N), "many unclosed brackets"),
    ]
    for d in deep:
        if d[0] in ("elifs", "concat_chain", "cmp_chain"):  # flat in our tree: rendering is fine too
            T("deep_" + d[0], "nesting", d[1], d[2], kind="bounded")
        elif d[0] == "test_chain":  # Jinja2's own syntax error comes first
            T("deep_" + d[0], "nesting", d[1], d[2], or_limit=True)
        else:
            B("deep_" + d[0], "nesting", d[1], d[2])

    # legitimate depths, as deep as Jinja2 itself renders (docs/reliability.md §1.4): must render
    T("depth_ok_parens", "nesting", "{{ " + "(" * 60 + "1" + ")" * 60 + " }}", "60 parentheses render in Jinja2")
    T("depth_ok_lists", "nesting", "{{ " + "[" * 60 + "]" * 60 + " }}", "60 nested lists render")
    T("depth_ok_ifs", "nesting", "{% if true %}" * 90 + "x" + "{% endif %}" * 90, "90 nested ifs render")
    T("depth_ok_fors", "nesting", "{% for a in [1] %}" * 18 + "x" + "{% endfor %}" * 18, "18 nested fors render")
    T("depth_ok_macro", "nesting", "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{% else %}bottom{% endif %}{% endmacro %}"
      "{{ f(100) }}", "macro recursion 100 deep renders")
    T("depth_ok_plus", "nesting", "{{ 1" + " + 1" * 400 + " }}", "a 400-term sum renders")
    T("depth_ok_filters", "nesting", "{{ 'a'" + "|upper" * 300 + " }}", "300 chained filters render")
    T("depth_ok_recursive_loop", "nesting",
      "{% for x in d recursive %}{{ x.n }}{% if x.c %}({{ loop(x.c) }}){% endif %}{% endfor %}",
      "a recursive loop over nested data 40 deep",
      {**D, "d": (lambda: (lambda f: f(f, 40))(lambda f, n: [{"n": n, "c": f(f, n - 1) if n else []}]))()})
