"""Numbers: huge ints, float edge cases, repetition counts, NaN / Infinity from the JSON context."""

from catalogue_defs import D, T


def add_cases():
    T("int_digits_print", "numbers", "{{ 10**4300 }}", "4301 digits cannot be printed (Python 3.11 limit)", or_limit=True)
    T("int_digits_ok", "numbers", "{{ (10**4299)|string|length }}", "4300 digits print")
    T("int_digits_dead", "numbers", "{% if false %}{{ 10**5000 }}{% endif %}ok",
      "Jinja2 folds constants at compile time, even in a dead branch", or_limit=True)
    T("pow_left_assoc", "numbers", "{{ 2**3**2 }}|{{ -2**2 }}|{{ 9**9**9 }}", "** is left-associative in Jinja")
    T("str_times_negative", "numbers", "{{ 'a' * -5 }}|{{ [1] * -1 }}|{{ 'a' * 0 }}", "non-positive repetition")
    T("str_times_float", "numbers", "{{ 'a' * 2.0 }}", "repetition by a float")
    T("str_times_bool", "numbers", "{{ 'ab' * true }}", "repetition by a bool")

    nums = [
        ("big_literal", "{{ 123456789012345678901234567890 * 2 }}"),
        ("int64_overflow", "{{ 9223372036854775807 + 1 }}|{{ -9223372036854775808 - 1 }}"),
        ("int64_min_div", "{{ -9223372036854775808 // -1 }}|{{ -9223372036854775808 % -1 }}"),
        ("int64_min_abs", "{{ (-9223372036854775807 - 1)|abs }}"),
        ("int64_min_neg", "{{ -(-9223372036854775807 - 1) }}"),
        ("pow_64", "{{ 2**64 }}|{{ 2**63 - 1 }}|{{ (2**64)|int }}"),
        ("float_inf_literal", "{{ 1e400 }}|{{ -1e400 }}|{{ 1e-400 }}"),
        ("float_inf_arith", "{{ 1e308 * 10 }}|{{ (1e308 * 10) - (1e308 * 10) }}"),
        ("int_to_float_overflow", "{{ 10**400 * 1.0 }}"),
        ("bigint_truediv", "{{ 2**1000 / 3 }}"),
        ("bigint_truediv_overflow", "{{ 10**400 / 1 }}"),
        ("div_zero", "{{ 1 / 0 }}"),
        ("floordiv_zero", "{{ 1 // 0 }}"),
        ("mod_zero", "{{ 1 % 0 }}"),
        ("float_div_zero", "{{ 1.0 / 0 }}"),
        ("zero_neg_pow", "{{ 0 ** -1 }}"),
        ("neg_pow", "{{ 2 ** -1 }}|{{ (-8) ** 2 }}|{{ 4 ** 0.5 }}"),
        ("int_filter_inf", "{{ (1e308 * 10)|int }}"),
        ("int_filter_nan", "{{ (1e400 - 1e400)|int }}"),
        ("int_filter_str_big", "{{ '99999999999999999999999'|int }}|{{ '1e400'|float }}|{{ 'abc'|int }}"),
        ("round_huge", "{{ (2**64)|round }}|{{ 1e300|round(2) }}|{{ 2.5|round }}|{{ 2.675|round(2) }}"),
        ("round_inf", "{{ 1e400|round }}|{{ (1e400 - 1e400)|round }}"),
        ("percent_d_inf", "{{ '%d' % (1e308 * 10) }}"),
        ("percent_c_range", "{{ '%c' % 1114112 }}"),
        ("chr_like", "{{ '%c' % 1114111 }}|{{ '%c' % 55296 }}"),
        ("float_repr", "{{ 0.1 + 0.2 }}|{{ 1e20 }}|{{ 1.5e-7 }}|{{ 123456789012345678.0 }}|{{ -0.0 }}|{{ 1_000 }}"),
        ("filesizeformat_huge", "{{ (10**30)|filesizeformat }}|{{ 1e400|filesizeformat }}"),
        ("abs_huge", "{{ (-10**30)|abs }}|{{ (-1e400)|abs }}"),
        ("sum_huge", "{{ [2**62, 2**62, 2**62]|sum }}"),
        ("max_mixed", "{{ [1, 1e400, 2**70]|max }}|{{ [1, 1e400, 2**70]|min }}"),
        ("compare_big_float", "{{ 2**53 + 1 == 2.0**53 }}|{{ 10**400 > 1e308 }}|{{ 10**400 < 1e400 }}"),
        ("format_big", "{{ '{:,}'.format(10**30) }}|{{ '%x' % 2**70 }}|{{ '{:e}'.format(10**30) }}"),
    ]
    for n in nums:
        T("num_" + n[0], "numbers", n[1], "huge numbers / float edge cases")

    # NaN / Infinity from the JSON context (Python's json accepts them)
    nan_ctx = {**D, "x": float("nan"), "inf": float("inf"), "ninf": float("-inf"), "big": 2**70}
    for cid, tpl in [
        ("print", "{{ x }}|{{ inf }}|{{ ninf }}|{{ big }}"),
        ("compare", "{{ x == x }}|{{ x != x }}|{{ inf > big }}|{{ [x] == [x] }}"),
        ("tojson", "{{ [x, inf, ninf, big]|tojson }}"),
        ("int", "{{ x|int }}"),
        ("int_inf", "{{ inf|int }}"),
        ("sort", "{{ [3, x, 1]|sort }}|{{ [inf, ninf, 0]|sort }}"),
        ("arith", "{{ inf - inf }}|{{ x + 1 }}|{{ inf * 0 }}|{{ big * big }}"),
        ("format", "{{ '%d' % x }}"),
        ("round", "{{ x|round }}|{{ inf|round }}"),
        ("string", "{{ x|string }}|{{ [x]|string }}|{{ inf|string|upper }}"),
    ]:
        T("nan_" + cid, "numbers", tpl, "NaN/Infinity/bigint context values", nan_ctx)
