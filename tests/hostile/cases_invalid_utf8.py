"""Invalid UTF-8 in template and context files: the CLI must fail as the oracle's codec does."""

from catalogue_defs import RAW


def add_cases():
    RAW("utf8_tpl_ff", "utf8", "0xFF in a template file", template_bytes=b"\xff{{ 1 }}")
    RAW("utf8_tpl_trunc", "utf8", "truncated 2-byte sequence inside a string", template_bytes=b"{{ '\xc3' }}")
    RAW("utf8_tpl_overlong", "utf8", "overlong encoding of '/'", template_bytes=b"{{ '\xc0\xaf' }}")
    RAW("utf8_tpl_surrogate", "utf8", "UTF-8-encoded surrogate", template_bytes=b"a\xed\xa0\x80b")
    RAW("utf8_tpl_eof", "utf8", "truncated 4-byte sequence at the end", template_bytes=b"abc\xf0\x9f\x98")
    RAW("utf8_tpl_toobig", "utf8", "code point beyond U+10FFFF", template_bytes=b"\xf4\x90\x80\x80")
    RAW("utf8_ctx_ff", "utf8", "0xFF inside a context string", context_bytes=b'{"messages":[{"role":"user","content":"\xff"}]}')
    RAW("utf8_ctx_key", "utf8", "invalid UTF-8 in a context key", context_bytes=b'{"messages":[],"\xc3(":1}')
    RAW("utf8_ctx_surrogate", "utf8", "UTF-8-encoded surrogate in context",
        context_bytes=b'{"messages":[{"role":"user","content":"\xed\xb0\x80"}]}')
    RAW("utf8_ctx_bom", "utf8", "a BOM before the context JSON (json.load of a str rejects it)",
        context_bytes=b'\xef\xbb\xbf{"messages":[]}')
