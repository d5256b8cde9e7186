"""JSON input: values that must read as Python's json.loads reads them, or fail with its exact error."""

from catalogue_defs import R, J


def add_cases():
    J("ok_empty_obj", "valid", "{}", "empty object")
    J("ok_ws", "valid", " \t\r\n[ 1 , 2 ]\n ", "JSON whitespace")
    J("ok_lone_high", "surrogate", '"\\ud800"', "lone high surrogate escape")
    J("ok_lone_low", "surrogate", '"\\udc00"', "lone low surrogate escape")
    J("ok_reversed_pair", "surrogate", '"\\udc00\\ud800"', "reversed surrogate pair")
    J("ok_pair", "surrogate", '"\\ud83d\\ude00"', "surrogate pair")
    J("ok_high_then_char", "surrogate", '"\\ud83dx"', "high surrogate followed by a char")
    J("ok_high_then_escape", "surrogate", '"\\ud83d\\u0041"', "high surrogate then a BMP escape")
    J("ok_high_high", "surrogate", '"\\ud800\\ud800"', "two high surrogates")
    J("ok_surrogate_key", "surrogate", '{"\\ud800": 1, "\\ud800": 2}', "lone surrogate keys, duplicated")
    J("ok_nul_escape", "control", '"\\u0000a"', "NUL escape")
    J("ok_escapes", "control", '"\\" \\\\ \\/ \\b \\f \\n \\r \\t"', "all escapes")
    J("ok_del_raw", "control", '"a\x7fb"', "DEL is allowed raw")
    J("ok_u2028_raw", "control", '"a\u2028b\u2029"', "U+2028/2029 raw")
    J("ok_nonchar", "control", '"\\uffff\\ufffe\ufdd0"', "noncharacters")
    J("ok_inf", "numbers", "1e400", "overflowing float is inf")
    J("ok_neg_inf", "numbers", "[-1e400, 1e-400, -0.0, -0, 0.0]", "float edge values")
    J("ok_nan", "numbers", "[NaN, Infinity, -Infinity]", "Python's json accepts these")
    J("ok_big_exp", "numbers", "[1e999999999999999999, 1e-999999999999999999, 1E+2, 1e-2]", "huge exponents")
    J("ok_bigint", "numbers", "[123456789012345678901234567890, -9223372036854775809, 18446744073709551616]", "big ints")
    J("ok_4300_digits", "numbers", R("1", 4300), "4300 digits is the limit")
    J("ok_long_float", "numbers", "0." + R("1", 5000), "a 5000-digit fraction")
    J("ok_long_float_int_part", "numbers", R("1", 5000) + ".0", "a float with 5000 integer digits")
    J("ok_precision", "numbers", "[0.1, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 9007199254740993]",
      "float round trip")
    J("ok_dup_keys", "dup", '{"a": 1, "b": 2, "a": 3}', "duplicate key: first position, last value")
    J("ok_dup_escaped", "dup", '{"a": 1, "\\u0061": 2}', "duplicate through an escape")
    J("ok_dup_nested", "dup", '{"a": {"x": 1}, "a": {"y": 2}}', "duplicate object keys are not merged")
    J("ok_depth_500", "depth", R("[", 500) + R("]", 500), "500 levels parse")
    J("ok_depth_obj_500", "depth", R('{"a":', 500) + "1" + R("}", 500), "500 object levels parse")
    J("ok_scalars", "valid", '"x"', "a top-level string")
    J("ok_null", "valid", "null", "a top-level null")
    J("ok_unicode", "valid", '"héllo 😀 \\u00e9"', "raw and escaped non-ASCII")
    J("ok_long_string", "valid", '"' + R("x", 100000) + '"', "a 100 kB string")
    J("ok_many_items", "valid", "[" + R("1,", 99999) + "1]", "10^5 items")
    J("ok_many_keys", "valid", "{" + ",".join('"k%d":%d' % (i, i) for i in range(3000)) + "}", "3000 keys")
    # errors with Python's exact messages
    for cid, text in [
        ("empty", ""), ("space", "   "), ("obj_open", "{"), ("obj_key_colon", '{"a":'), ("arr_open", "[1,"),
        ("str_open", '"abc'), ("str_escape_eof", '"\\'), ("u_short", '"\\u12"'), ("u_bad", '"\\u00zz"'),
        ("bad_escape", '"\\x41"'), ("bad_escape_U", '"\\U0001F600"'), ("true_trunc", "tru"), ("null_trunc", "nul"),
        ("missing_comma", "[1 2]"), ("missing_colon", '{"a" 1}'), ("single_quotes", "{'a': 1}"),
        ("trailing_comma_arr", "[1,]"), ("trailing_comma_obj", '{"a":1,}'), ("leading_zero", "01"),
        ("dot_end", "1."), ("dot_start", ".5"), ("plus", "+1"), ("double_minus", "--1"), ("exp_empty", "1e"),
        ("hex", "0x10"), ("extra_data", "[1] [2]"), ("nan_lower", "nan"), ("inf_lower", "inf"), ("Infinity_plus", "+Infinity"),
        ("key_int", "{1: 2}"), ("key_null", "{null: 1}"), ("raw_ctrl", '"a\x01b"'), ("raw_tab", '"a\tb"'),
        ("raw_newline", '"a\nb"'), ("raw_nul", '"a\x00b"'), ("nul_after", "[1]\x00"), ("nbsp_ws", "\u00a01"),
        ("formfeed_ws", "\x0c1"), ("bom_str", "\ufeff[]"), ("4301_digits", R("1", 4301)),
        ("neg_4301_digits", "-" + R("1", 4301)), ("comment", "[1] // c"), ("unclosed_obj_arr", '{"a": [1, 2}'),
        ("colon_only", ":"), ("comma_only", ","), ("close_only", "]"), ("big_unclosed", R("[", 300)),
        ("ctrl_in_key", '{"a\x1f": 1}'), ("lone_minus", "-"), ("minus_space", "- 1"), ("emoji_bare", "😀"),
    ]:
        J("err_" + cid, "errors", text, "malformed JSON: Python's exact JSONDecodeError/ValueError")
    DEPTH_RE = r"(?i)(depth|recursion|too deep|nest)"
    J("deep_arr_100k", "depth", R("[", 100000) + R("]", 100000), "100k levels: a depth error, no stack overflow", DEPTH_RE)
    J("deep_obj_100k", "depth", R('{"a":', 100000) + "1" + R("}", 100000), "100k object levels", DEPTH_RE)
    J("deep_unclosed_100k", "depth", R("[", 100000), "100k unclosed levels", r"(?i)(depth|recursion|too deep|nest|expecting)")
    J("deep_mixed_100k", "depth", R('[{"a":', 50000) + "1" + R("}]", 50000), "mixed nesting", DEPTH_RE)
    J("deep_600", "depth", R("[", 600) + R("]", 600), "deeper than our limit (512) but fine in Python: we refuse", DEPTH_RE)
    UTF8_RE = r"(?i)(utf-?8|unicode|decode|byte)"
    for cid, data in [("ff", b'"\xff"'), ("trunc", b'"\xc3"'), ("overlong", b'"\xc0\xaf"'), ("surrogate", b'"\xed\xa0\x80"'),
                      ("toobig", b'"\xf4\x90\x80\x80"'), ("five_byte", b'"\xf8\x88\x80\x80\x80"'), ("eof", b'"\xf0\x9f\x98'),
                      ("bare", b"\x80"), ("key", b'{"\xfe": 1}'), ("bom_bytes", b"\xef\xbb\xbf{}")]:
        J("utf8_" + cid, "utf8", data, "invalid UTF-8 (or a BOM) in raw bytes", UTF8_RE if cid != "bom_bytes" else
          r"(?i)(bom|utf-?8|expecting)")
