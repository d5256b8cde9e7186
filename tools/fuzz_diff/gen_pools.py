"""Value pools and probe patterns of the fuzz case generator (gen_cases.py): words, literals,
the construct probes, and the types of the context's global variables."""

WORDS = ["hello", "world", "foo", "bar", "Baz", "QUX", "a", "b", "x", "it's",
         "say \"hi\"", "héllo", "naïve", "日本語", "😀", "👍🏽", "e\u0301", "ǅ", "İ", "ﬁ",
         "straße", "Ωmega", "tab\there", "two words", "  pad  ", "", "42", "3.14",
         "-7", "0x1A", "True", "none", "a,b,c", "line1\nline2", "<b>bold</b>",
         "a&b", "%s", "{x}", "}}", "{%", "#}", "\u00a0nbsp\u3000", "x\u2028y",
         "user", "assistant", "system", "tool", "ABC def", "MiXeD cAsE"]
SAFE_WORDS = [w for w in WORDS if w and "\n" not in w]
ROLES = ["user", "assistant", "system", "tool"]
TEXT_PIECES = ["Hello", " ", "  ", "\n", "\n\n", "\t", "world", "<|im_start|>", "<|im_end|>",
               "[INST]", "[/INST]", "<s>", "</s>", "<start_of_turn>", "### ", ": ", ", ",
               "é", "日本", "😀", "e\u0301", "}", "%", "#", "-", "}}", "%}", "#}", "+",
               "{\"a\": 1}", "'", "\"", "\\", "\\n", "(", ")", "[", "]", "|", "~", "*",
               "\r\n", "   \n", "\u00a0", "x", "1.0", "null", "endif"]

INT_LITS = ["0", "1", "2", "3", "5", "7", "10", "42", "100", "1_000", "0x1f", "0o17",
            "0b101", "255", "9223372036854775807", "18446744073709551616", "12345678901234567890"]
FLOAT_LITS = ["0.0", "1.0", "1.5", "0.1", "0.2", "2.5", "3.5", "2.675", "1e3", "1E3",
              "1.5e-7", "1e20", "1e-05", "2.5e+3", "123456789012345678.0", "1_000.5",
              "0.30000000000000004", "3.14159", "100.0", "1e16", "6.02e23", "0.000123"]
STRFTIME = ["%Y-%m-%d", "%d %b %Y", "%H:%M:%S", "%A, %B %d", "%y%m%d", "%I:%M %p",
            "%j", "%a %b", "%Y-%m-%dT%H:%M:%S", "%%", "Today is %d %B %Y", "%U %w"]

# (construct, input type, pattern with X = a generated expression of that type)
PROBES = [
    ("filter:upper", "S", "X|upper"), ("filter:lower", "S", "X|lower"), ("filter:title", "S", "X|title"),
    ("filter:capitalize", "S", "X|capitalize"), ("filter:trim", "S", "X|trim"), ("filter:trim", "S", "X|trim('xé ')"),
    ("filter:striptags", "S", "('<p>a  <i>b</i></p> &amp; ' ~ X)|striptags"), ("filter:escape", "S", "X|e"),
    ("filter:escape", "S", "(X|escape) ~ (X|forceescape) ~ ('<a>'|safe|e)"), ("filter:safe", "S", "X|safe"),
    ("filter:urlencode", "S", "X|urlencode"), ("filter:urlencode", "S", "{'a b': X, 'c': 1}|urlencode"),
    ("filter:wordcount", "S", "X|wordcount"), ("filter:reverse", "S", "X|reverse"), ("filter:first", "S", "X|first"),
    ("filter:last", "LS", "X|last"), ("filter:center", "S", "X|center(11)"), ("filter:indent", "S", "X|indent(3, true, true)"),
    ("filter:indent", "S", "('a\\n\\nb\\n' ~ X)|indent(2)"), ("filter:truncate", "S", "(X ~ ' and some more words here')|truncate(12, false, '…', 2)"),
    ("filter:truncate", "S", "X|truncate(4, true)"), ("filter:wordwrap", "S", "(X ~ ' lorem ipsum dolor sit amet')|wordwrap(7, true, '/')"),
    ("filter:wordwrap", "S", "(X ~ ' averyveryverylongword b')|wordwrap(5, false)"),
    ("filter:replace", "S", "X|replace('o', 'OO')"), ("filter:replace", "S", "X|replace('', '.', 2)"),
    ("filter:format", "S", "'%-6s|%3d|%.2f|%x'|format(X, 7, 2.5, 255)"), ("filter:string", "A", "X|string"),
    ("filter:pprint", "A", "X|pprint"), ("filter:tojson", "A", "X|tojson"), ("filter:tojson", "A", "X|tojson(indent=2, sort_keys=true)"),
    ("filter:tojson", "A", "X|tojson(ensure_ascii=true, separators=(',', ':'))"),
    ("filter:default", "A", "missing|default(X)"), ("filter:default", "A", "X|default('dflt', true)"), ("filter:default", "A", "cfg.none|d(X)"),
    ("filter:list", "S", "X|list"), ("filter:int", "S", "X|int"), ("filter:int", "S", "X|int(-1)"), ("filter:int", "F", "X|int"),
    ("filter:float", "S", "X|float"), ("filter:float", "I", "X|float"), ("filter:round", "F", "X|round"),
    ("filter:round", "F", "X|round(2, 'floor')"), ("filter:round", "F", "X|round(1, 'ceil')"), ("filter:abs", "I", "X|abs"),
    ("filter:abs", "F", "X|abs"), ("filter:filesizeformat", "I", "X|filesizeformat"), ("filter:filesizeformat", "F", "X|filesizeformat(true)"),
    ("filter:join", "LS", "X|join(', ')"), ("filter:join", "LM", "X|join('|', attribute='role')"), ("filter:join", "LI", "X|join"),
    ("filter:sort", "LS", "X|sort"), ("filter:sort", "LI", "X|sort(reverse=true)"), ("filter:sort", "LM", "X|sort(attribute='role')|map(attribute='role')|list"),
    ("filter:sort", "LS", "X|sort(case_sensitive=true)"), ("filter:unique", "LS", "X|unique|list"), ("filter:unique", "LS", "X|unique(case_sensitive=true)|list"),
    ("filter:unique", "LM", "X|unique(attribute='role')|map(attribute='role')|list"),
    ("filter:min", "LI", "X|min"), ("filter:max", "LI", "X|max"), ("filter:max", "LS", "X|max"), ("filter:min", "LS", "X|min(case_sensitive=true)"),
    ("filter:min", "LM", "X|min(attribute='role')"), ("filter:sum", "LI", "X|sum"), ("filter:sum", "LT", "X|sum(attribute='v')"),
    ("filter:batch", "LI", "X|batch(2)|list"), ("filter:batch", "LS", "X|batch(3, '-')|list"), ("filter:slice", "LI", "X|slice(2)|list"),
    ("filter:slice", "LS", "X|slice(3, 'z')|list"), ("filter:groupby", "LM", "X|groupby('role')|list"),
    ("filter:groupby", "LT", "X|groupby('v')|map(attribute='list')|map('length')|list"),
    ("filter:groupby", "LM", "X|groupby('name', default='?')|map(attribute='grouper')|list"),
    ("filter:map", "LS", "X|map('upper')|list"), ("filter:map", "LM", "X|map(attribute='role')|list"),
    ("filter:map", "LM", "X|map(attribute='name', default='anon')|list"), ("filter:map", "LI", "X|map('string')|join('+')"),
    ("filter:select", "LI", "X|select('odd')|list"), ("filter:select", "LI", "X|select('ge', 3)|list"), ("filter:select", "LS", "X|select|list"),
    ("filter:reject", "LI", "X|reject('even')|list"), ("filter:reject", "LS", "X|reject('in', ['a', 'b'])|list"),
    ("filter:selectattr", "LM", "X|selectattr('role', 'equalto', 'user')|list|length"), ("filter:selectattr", "LM", "X|selectattr('tool_calls')|map(attribute='role')|list"),
    ("filter:rejectattr", "LM", "X|rejectattr('content')|map(attribute='role')|list"),
    ("filter:rejectattr", "LT", "X|rejectattr('children')|map(attribute='name')|join"),
    ("filter:dictsort", "D", "X|dictsort"), ("filter:dictsort", "S", "{'b': 1, 'a': 3, X: 2}|dictsort(false, 'value')"),
    ("filter:dictsort", "D", "X|dictsort(reverse=true)|map('first')|list"),
    ("filter:items", "D", "X|items|list"), ("filter:xmlattr", "S", "{'class': X, 'n': 1, 'x': none}|xmlattr"),
    ("filter:xmlattr", "S", "{'data-x': X}|xmlattr(false)"),
    ("filter:attr", "M", "X|attr('role')"), ("filter:length", "LS", "X|count"), ("filter:length", "D", "X|length"), ("filter:length", "S", "X|length"), ("filter:length", "LS", "X|length"),
    ("filter:reverse", "LI", "X|reverse|list"), ("filter:first", "LI", "X|first"), ("filter:last", "LI", "X|last"),
    ("filter:list", "D", "X|list"), ("filter:urlize", "S", "('see http://x.org/a?b=1 and www.y.com ' ~ X)|urlize"),
    ("filter:urlize", "S", "('mail a@b.com or https://q.io/' ~ X)|urlize(10, true)"),
    ("method:str.upper", "S", "X.upper()"), ("method:str.lower", "S", "X.lower()"), ("method:str.strip", "S", "X.strip()"),
    ("method:str.strip", "S", "X.strip('ax ')"), ("method:str.lstrip", "S", "X.lstrip()"), ("method:str.rstrip", "S", "X.rstrip('\\n ')"),
    ("method:str.split", "S", "X.split()"), ("method:str.split", "S", "X.split(' ', 1)"), ("method:str.rsplit", "S", "X.rsplit('a', 1)"),
    ("method:str.splitlines", "S", "('a\\r\\nb\\n' ~ X).splitlines()"), ("method:str.splitlines", "S", "X.splitlines(true)"),
    ("method:str.join", "LS", "'-'.join(X)"), ("method:str.replace", "S", "X.replace('a', '[a]')"),
    ("method:str.startswith", "S", "X.startswith(('a', 'h'))"), ("method:str.endswith", "S", "X.endswith('o')"),
    ("method:str.find", "S", "X.find('o')"), ("method:str.rfind", "S", "X.rfind('')"), ("method:str.count", "S", "X.count('')"),
    ("method:str.center", "S", "X.center(10, '=')"), ("method:str.ljust", "S", "X.ljust(8, '.')"), ("method:str.rjust", "S", "X.rjust(8)"),
    ("method:str.zfill", "S", "X.zfill(6)"), ("method:str.title", "S", "X.title()"), ("method:str.capitalize", "S", "X.capitalize()"),
    ("method:str.swapcase", "S", "X.swapcase()"), ("method:str.casefold", "S", "X.casefold()"),
    ("method:str.isdigit", "S", "X.isdigit()"), ("method:str.isalpha", "S", "X.isalpha()"), ("method:str.isspace", "S", "X.isspace()"), ("method:str.isalnum", "S", "X.isalnum()"), ("method:str.isupper", "S", "X.isupper()"),
    ("method:str.partition", "S", "X.partition('o')"), ("method:str.rpartition", "S", "X.rpartition(' ')"),
    ("method:str.expandtabs", "S", "('a\\tb' ~ X).expandtabs(3)"), ("method:str.removeprefix", "S", "X.removeprefix('h')"),
    ("method:str.removesuffix", "S", "X.removesuffix('o')"), ("method:str.format", "S", "'<{0!r:>8}|{1:.3f}|{n}>'.format(X, 2.5, n=-1)"),
    ("method:str.encode", "S", "X.encode()"), ("method:str.index", "S", "(X ~ 'z').index('z')"),
    ("method:dict.get", "D", "X.get('name', 'dflt')"), ("method:dict.items", "D", "X.items()|list"), ("method:dict.keys", "D", "X.keys()"),
    ("method:dict.values", "D", "X.values()|list"), ("method:dict.copy", "D", "X.copy()"),
    ("method:list.index", "LI", "(X + [99]).index(99)"), ("method:list.count", "LS", "X.count('a')"), ("method:list.copy", "LI", "X.copy()"),
    ("test:defined", "A", "X is defined"), ("test:undefined", "A", "X is undefined"), ("test:none", "A", "X is none"),
    ("test:string", "A", "X is string"), ("test:number", "A", "X is number"), ("test:integer", "A", "X is integer"),
    ("test:float", "A", "X is float"), ("test:mapping", "A", "X is mapping"), ("test:iterable", "A", "X is iterable"),
    ("test:sequence", "A", "X is sequence"), ("test:boolean", "A", "X is boolean"), ("test:true", "A", "X is true"),
    ("test:false", "A", "X is false"), ("test:callable", "A", "X is callable"), ("test:escaped", "S", "X is escaped"),
    ("test:odd", "I", "X is odd"), ("test:even", "I", "X is not even"), ("test:divisibleby", "I", "X is divisibleby 3"),
    ("test:eq", "I", "X is eq 3"), ("test:equalto", "S", "X is equalto 'a'"), ("test:ne", "A", "X is ne(none)"),
    ("test:lt", "I", "X is lt 0"), ("test:le", "F", "X is le(1)"), ("test:gt", "I", "X is gt(2)"), ("test:ge", "F", "X is ge 0.1"),
    ("test:in", "S", "X is in ['a', 'hello', '']"), ("test:lower", "S", "X is lower"), ("test:upper", "S", "X is upper"),
    ("test:sameas", "A", "X is sameas none"), ("test:filter", "S", "X is filter"), ("test:test", "S", "X is test"),
    ("global:range", "IS", "range(X)"), ("global:range", "IS", "range(X, 10, 3)|list"), ("global:range", "IS", "range(-X, X)|list"),
    ("global:dict", "S", "dict(a=X, b=[1])"), ("global:namespace", "S", "namespace(a=X)"),
    ("op:floordiv", "I", "X // -3"), ("op:mod", "I", "X % -3"), ("op:mod", "F", "X % 2.5"), ("op:pow", "F", "(X|abs) ** 0.5"),
    ("op:truediv", "I", "X / 3"), ("op:pow", "IS", "2 ** X"), ("op:pow", "I", "(X|abs + 1) ** -2"), ("op:mul-list", "LI", "X * 2"),
    ("op:in", "S", "X in 'hello world'"), ("op:in", "S", "X not in cfg"), ("expr:cond", "S", "X if X else 'empty'"),
    ("op:tilde", "A", "X ~ '|' ~ X"), ("op:cmp-str", "S", "X < 'm'"), ("op:add-tuple", "S", "(X, 1) + (2,)"),
    ("op:float-arith", "F", "X * 3 - 0.1"), ("op:bigint", "I", "X * 9223372036854775807 + 1"),
    # generators (map/select/... results): no len, not reversible, not JSON, consumed once, always true
    ("gen:length", "LI", "X|map('string')|length"), ("gen:last", "LM", "X|selectattr('name')|last"),
    ("gen:tojson", "LI", "X|select|tojson"), ("gen:first", "LI", "X|reject('odd')|first"),
    ("gen:truth", "LI", "'yes' if X|select('gt', 100) else 'no'"), ("gen:in", "LI", "1 in X|map('int')"),
    ("gen:twice", "LS", "[X|unique]|map('list')|list"), ("gen:batch", "LI", "X|batch(2)|list|length"),
    ("gen:reverse", "LI", "X|reverse|list"), ("gen:reverse-len", "LI", "X|reverse|length"),
    ("gen:items", "D", "X|items|map('first')|list"), ("gen:slice", "LI", "(X|slice(2)|list)[0]"),
    ("gen:sum", "LI", "X|map('abs')|sum"), ("gen:join", "LS", "X|reject('none')|join(',')"),
    # bytes from str.encode()
    ("bytes:truth", "S", "'t' if X.encode() else 'f'"), ("bytes:len", "S", "X.encode()|length"),
    ("bytes:iter", "S", "X.encode()|list"), ("bytes:decode", "S", "X.encode('utf-8').decode()"),
    ("bytes:repr", "S", "[X.encode(), ''.encode()]"), ("bytes:eq", "S", "X.encode() == X.encode()"),
    # markupsafe.Markup methods
    ("markup:split", "S", "(X|safe).split()"), ("markup:rsplit", "S", "(X|safe).rsplit('o', 1)"),
    ("markup:partition", "S", "(X|safe).partition(' ')"), ("markup:replace", "S", "[(X|safe).replace('o', '<')]"),
    ("markup:upper", "S", "(X|safe).upper() + '&'"), ("markup:slice", "S", "[(X|safe)[1:3], (X|safe)[0:1] + '<']"),
    ("markup:join", "S", "[(X|safe).join(['<', 1])]"), ("markup:center", "S", "[(X|safe).center(9, '.')]"),
    # complex numbers from ** with a negative base
    ("op:pow-complex", "F", "(-(X|abs) - 1) ** 0.5"), ("op:pow-complex", "I", "[(-(X|abs) - 2) ** (1/3)]"),
    # constant folding: inf/nan become bare names in Jinja2's generated code
    ("fold:inf", "S", "[X, 1e999]"), ("fold:nan", "S", "X ~ ('nan'|float)"), ("fold:inf-out", "S", "1e999"),
    ("fold:equal-nan", "S", "[X|float(0) * 0 + ('nan' ~ '')|float] == [X]"),
]

ALIASES = {"d": "default", "e": "escape", "forceescape": "escape", "count": "length"}

GEN_TYPES = ["S", "I", "F", "B", "N", "LS", "LI", "D", "LM", "LP"]


# The context's globals (gen_context.rand_context) by the type the expression generators treat them as.
GLOBALS = {
    "messages": "LM", "add_generation_prompt": "B", "bos_token": "S", "eos_token": "S",
    "n": "IS", "neg": "I", "big": "I", "x": "F", "flag": "B", "nothing": "N", "s": "S",
    "words": "LS", "nums": "LI", "cfg": "D", "tree": "LT", "pairs": "LP",
}
