"""Scalar expressions for the fuzz case generator: strings, ints, floats, booleans, none, tests."""

import re

from gen_pools import STRFTIME, ALIASES, GEN_TYPES


class ScalarExprs:
    """e(t) and the e_<type> generators of scalar types (a mixin of Gen)."""

    # -- expressions ---------------------------------------------------------
    def e(self, t, d=2):
        """An expression of (roughly) type t."""
        vs = self.vars_of(t)
        if d <= 0 or self.p(0.3):
            return self.atom(t, vs)
        meth = getattr(self, "e_" + t)
        return meth(d - 1, vs)

    def atom(self, t, vs):
        if vs and self.p(0.6):
            v = self.ch(vs)
            self.f("var")
            return v
        if t == "S":
            return self.str_lit()
        if t in ("I",):
            return self.int_lit()
        if t == "IS":
            return self.int_lit(small=True)
        if t == "F":
            return self.float_lit()
        if t == "B":
            self.f("lit:bool")
            return self.ch(["true", "false", "True", "False"])
        if t == "N":
            self.f("lit:none")
            return self.ch(["none", "None"])
        if t == "LS":
            self.f("lit:list")
            return "[" + ", ".join(self.str_lit() for _ in range(self.r.randint(0, 3))) + "]"
        if t == "LI":
            self.f("lit:list")
            return "[" + ", ".join(self.int_lit() for _ in range(self.r.randint(0, 4))) + "]"
        if t == "D":
            self.f("lit:dict")
            return "{" + ", ".join("%s: %s" % (self.str_lit(self.ch(["a", "b", "k", "role", "é"])), self.atom(self.ch(["S", "I", "F", "B", "N"]), []))
                                   for _ in range(self.r.randint(0, 3))) + "}"
        if t == "LM":
            return "messages"
        if t == "LP":
            return "pairs"
        if t == "M":
            return "messages[0]"
        if t == "LT":
            return "tree"
        return self.atom("S", [])

    def any(self, d=2):
        loose = self.vars_of("A") + self.vars_of("T") + self.vars_of("M")
        if loose and self.p(0.15):
            self.f("var")
            return self.ch(loose)
        t = self.ch(GEN_TYPES + ["S", "S", "I", "TUP"])
        if t == "TUP":
            self.f("lit:tuple")
            k = self.r.randint(0, 3)
            items = [self.e(self.ch(["S", "I", "F", "B"]), d - 1) for _ in range(k)]
            return "(" + ", ".join(items) + ("," if k == 1 else "") + ")"
        return self.e(t, d)

    def cond(self, d):
        return self.e("B", d)

    def e_S(self, d, vs):
        k = self.r.randint(0, 30)
        S = lambda: self.e("S", d)
        if k == 0:
            self.f("op:tilde")
            return "(%s ~ %s)" % (self.any(d), self.any(d))
        if k == 1:
            self.f("op:add-str")
            return "(%s + %s)" % (S(), S())
        if k == 2:
            flt = self.ch(["upper", "lower", "title", "capitalize", "trim", "striptags", "e", "escape",
                           "forceescape", "string", "urlencode", "wordcount|string", "reverse", "first",
                           "last", "length|string", "safe", "center(12)", "indent(2)", "indent(2, true)",
                           "indent(width=3, first=true, blank=true)", "truncate(9)", "truncate(5, true, '..', 0)",
                           "wordwrap(6)", "replace('a', 'A')", "replace('o', '0', 1)", "trim('x')", "default('dflt')",
                           "d('D', true)", "format", "lower|capitalize", "list|join('.')", "tojson", "pprint"])
            self.f("filter:" + ALIASES.get(re.split(r"[(|]", flt)[0], re.split(r"[(|]", flt)[0]))
            return "%s|%s" % (S(), flt)
        if k == 3:
            m = self.ch(["upper()", "lower()", "strip()", "lstrip()", "rstrip()", "strip('x! ')", "title()",
                         "capitalize()", "swapcase()", "casefold()", "center(9, '*')", "ljust(6, '.')",
                         "rjust(6)", "zfill(5)", "replace('l', 'L')", "replace('a', '')", "split()|join('_')",
                         "split(',')|join('|')", "rsplit(' ', 1)|join('+')", "splitlines()|join('/')",
                         "partition(' ')|join('#')", "expandtabs(4)", "removeprefix('he')", "removesuffix('o')",
                         "format()", "lstrip('h')", "join(['1', '2'])", "encode('utf-8')|string"])
            self.f("method:str." + m.split("(")[0])
            return "%s.%s" % (self.post(S()), m)
        if k == 4:
            self.f("op:slice")
            return "%s[%s]" % (self.post(S()), self.ch(["1:3", "::-1", "::2", ":2", "-2:", "1:", ":-1", "0", "-1", "10:", "1:-1:2"]))
        if k == 5:
            self.f("expr:cond")
            return "(%s if %s else %s)" % (S(), self.cond(d), S())
        if k == 6:
            self.f("filter:join")
            return "%s|join(%s)" % (self.e("LS", d), self.ch(["", "', '", "'-'", "''", "'\\n'"]))
        if k == 7:
            self.f("filter:join")
            return "%s|join(',')" % self.e("LI", d)
        if k == 8:
            self.f("filter:string")
            return "%s|string" % self.any(d)
        if k == 9:
            self.f("filter:tojson")
            return "%s|tojson%s" % (self.any(d), self.ch(["", "", "(indent=2)", "(ensure_ascii=true)", "(sort_keys=true)",
                                                       "(separators=(',', ':'))", "(indent=1, sort_keys=true)"]))
        if k == 10:
            self.f("filter:format")
            return "%s|format(%s, %s)" % (self.ch(["'%s=%d'", "'%s-%s'", "'[%5s|%-3d]'", "'%r %i'"]), S(), self.e("I", d))
        if k == 11:
            self.f("op:percent-format")
            return "(%s %% (%s, %s))" % (self.ch(["'%s:%s'", "'%s/%r'", "'<%s,%s>'"]), S(), self.any(d))
        if k == 12:
            self.f("method:str.format")
            return "%s.format(%s, x=%s)" % (self.ch(["'{} and {x}'", "'{0}{0}-{x!r}'", "'{:>6}|{x}'", "'{x}'"]), S(), self.any(d))
        plain = [m for m in self.macros if not m["caller"]]
        if k == 13 and plain:
            return self.macro_call(d, self.ch(plain))
        if k == 14:
            self.f("global:strftime_now")
            return "strftime_now(%s)" % self.str_lit(self.ch(STRFTIME))
        if k == 15 and self.loops:
            self.f("loop.cycle")
            return "loop.cycle(%s, %s)" % (S(), S())
        if k == 16:
            self.f("attr:dict")
            return self.ch(["cfg.name", "cfg['name']", "cfg.get('name', 'dflt')", "cfg.nested.k", "cfg['nested']['k']",
                            "cfg.get('missing', 'dflt')", "cfg.missing|default('m')", "cfg._hidden", "cfg['items']",
                            "cfg.items|string|length|string", "cfg.nested.get('k')"])
        if k == 17:
            self.f("attr:message")
            return "%s.%s" % (self.post(self.e("M", d)), self.ch(["role", "role", "content|string", "get('content', '')|string"]))
        if k == 18:
            self.f("filter:default")
            return self.ch(["opt|default(%s)", "opt|d(%s, true)", "(opt if opt is defined else %s)", "opt|default(%s)|upper"]) % S()
        if k == 19:
            self.f("op:mul-str")
            return "(%s * %s)" % (S(), self.int_lit(small=True))
        if k == 20:
            self.f("filter:pipeline")
            return "%s|%s|join(%s)" % (self.e("LS", d), self.ch(["sort", "unique", "sort(reverse=true)", "reverse",
                                                               "map('upper')", "map('trim')", "select('lower')",
                                                               "reject('upper')", "batch(2)|map('join')",
                                                               "slice(2)|map('join', '+')", "sort(case_sensitive=true)",
                                                               "unique(case_sensitive=true)"]), self.str_lit(" "))
        if k == 21:
            self.f("filter:string")
            return "%s|string" % self.e(self.ch(["I", "F", "B", "N"]), d)
        if k == 22 and self.loops:
            self.f("loop.attrs")
            return "(%s|string)" % self.ch(["loop.index", "loop.index0", "loop.revindex", "loop.revindex0",
                                            "loop.first", "loop.last", "loop.length", "loop.depth", "loop.depth0",
                                            "loop.previtem", "loop.nextitem"])
        if k == 23:
            self.f("filter:map")
            return "%s|map(attribute='role')|join(',')" % self.e("LM", d)
        if k == 24:
            self.f("filter:dictsort")
            return "%s|dictsort%s|string" % (self.ch(["{'b': 1, 'a': 2, 'B': 0}", "{'b': 1, 'a': 2, 'B': 0}", "cfg.nested", "cfg"]),
                                             self.ch(["(by='value')", "(true)", "(reverse=true)", "", "", ""]))
        if k == 25:
            self.f("filter:xmlattr")
            return "{'class': %s, 'id': 3, 'skip': none}|xmlattr" % S()
        if k == 26:
            self.f("filter:filesizeformat")
            return "%s|filesizeformat%s" % (self.e("I", d), self.ch(["", "(true)"]))
        if k == 27:
            self.f("filter:attr")
            return "(%s|attr('role'))|default('attr-undef')" % self.e("M", d)
        if k == 28:
            self.f("filter:groupby")
            return "%s|groupby('role')|map(attribute='grouper')|join(' ')" % self.e("LM", d)
        if k == 29:
            self.f("filter:items")
            return "cfg.nested|items|list|string"
        return self.atom("S", vs)

    def e_I(self, d, vs):
        k = self.r.randint(0, 22)
        I = lambda: self.e("I", d)
        if k == 0:
            op = self.ch(["+", "-", "+", "-"])
            self.f("op:" + {"+": "add", "-": "sub"}[op])
            return "(%s %s %s)" % (I(), op, I())
        if k == 1:
            self.f("op:mul")
            return "(%s * %s)" % (I(), self.e("IS", d))
        if k == 2:
            op = self.ch(["//", "%"])
            self.f("op:" + {"//": "floordiv", "%": "mod"}[op])
            return "(%s %s %s)" % (I(), op, self.ch(["2", "3", "-2", "7", "(n + 1)", "neg"]))
        if k == 3:
            self.f("op:pow")
            return "(%s ** %s)" % (self.e("IS", d), self.ch(["0", "1", "2", "3"]))
        if k == 4:
            self.f("op:neg")
            return "-%s" % self.post(I())
        if k == 5:
            self.f("filter:length")
            self.f("filter:length")
            return "%s|%s" % (self.e(self.ch(["S", "LS", "LI", "D", "LM"]), d), self.ch(["length", "count"]))
        if k == 6:
            flt = self.ch(["sum", "max", "min", "sum(start=10)", "length"])
            self.f("filter:" + flt.split("(")[0])
            return "%s|%s" % (self.e("LI", d), flt)
        if k == 19:
            self.f("op:bigint")
            return "(%s * %s)" % (self.ch(["big", "9223372036854775807", "-2**63"]), self.ch(["2", "big", "-1", "n"]))
        if k == 7:
            self.f("filter:int")
            return "%s|int" % self.ch([self.e("F", d), self.str_lit(self.ch(["42", "-3", "3.7", "abc", " 12 ", "0x1A", "1e3", "٣"])),
                                       "'ff'|int(base=16)", "'z'|int(7)", "true", "'0b11'|int(0, 2)"])
        if k == 8:
            self.f("method:str.count")
            return "%s.%s(%s)" % (self.post(self.e("S", d)), self.ch(["count", "find", "rfind"]), self.str_lit(self.ch(["a", "l", "", "o"])))
        if k == 9:
            self.f("filter:abs")
            return "%s|abs" % I()
        if k == 10 and self.loops:
            self.f("loop.attrs")
            return self.ch(["loop.index", "loop.index0", "loop.revindex", "loop.revindex0", "loop.length", "loop.depth"])
        if k == 11:
            self.f("global:range")
            return "range(%s)|sum" % self.e("IS", d)
        if k == 12:
            self.f("expr:cond")
            return "(%s if %s else %s)" % (I(), self.cond(d), I())
        if k == 13:
            self.f("op:subscript")
            return self.ch(["nums[0]", "nums[-1]", "nums|first", "nums|last", "cfg.count", "cfg['count']",
                            "cfg.get('count', 0)", "cfg.nested.deep.z", "(nums|sort)[0]"])
        if k == 14:
            self.f("filter:round")
            return "%s|round|int" % self.e("F", d)
        if k == 15:
            self.f("op:pos")
            return "+%s" % self.post(I())
        if k == 16:
            self.f("method:list.index")
            return "[3, 1, 2].index(%s)" % self.ch(["1", "2", "3"])
        if k == 17:
            self.f("filter:wordcount")
            return "%s|wordcount" % self.e("S", d)
        return self.atom("I", vs)

    def e_IS(self, d, vs):
        k = self.r.randint(0, 5)
        if k == 0:
            return "(n %% %s)" % self.ch(["2", "3", "4"])
        if k == 1 and self.loops:
            return "loop.index0"
        if k == 2:
            return "([%s, 2]|min)" % self.int_lit(small=True)
        if k == 3:
            return "(words|length % 4)"
        return self.atom("IS", vs)

    def e_F(self, d, vs):
        k = self.r.randint(0, 12)
        F = lambda: self.e("F", d)
        if k == 0:
            self.f("op:truediv")
            return "(%s / %s)" % (self.e(self.ch(["I", "F"]), d), self.ch(["2", "3", "4.0", "-8", "(n + 1)", "0.1", "7"]))
        if k == 1:
            op = self.ch(["+", "-", "*"])
            self.f("op:float-arith")
            return "(%s %s %s)" % (F(), op, self.e(self.ch(["F", "IS"]), d))
        if k == 2:
            self.f("filter:round")
            return "%s|round(%s)" % (F(), self.ch(["", "0", "1", "2", "3", "0, 'floor'", "1, 'ceil'", "2, 'common'", "method='floor'"]))
        if k == 3:
            self.f("filter:float")
            return "%s|float" % self.ch([self.e("I", d), self.str_lit(self.ch(["3.14", "1e3", "abc", "-0", "inf", " 2.5 ", "1_0.5"])), "'x'|float(1.5)"])
        if k == 4:
            self.f("filter:abs")
            return "%s|abs" % F()
        if k == 5:
            self.f("op:neg")
            return "-%s" % self.post(F())
        if k == 6:
            self.f("op:pow")
            return "(%s ** 2)" % F()
        if k == 7:
            self.f("filter:sum")
            return "[%s, %s]|sum" % (F(), F())
        if k == 8:
            self.f("attr:dict")
            return "cfg.ratio"
        return self.atom("F", vs)

    def test_expr(self, d):
        k = self.r.randint(0, 12)
        if k == 0:
            t = self.ch(["defined", "undefined", "none", "string", "number", "integer", "float", "mapping",
                         "iterable", "sequence", "boolean", "true", "false", "callable", "escaped"])
            self.f("test:" + t)
            return "%s is %s%s" % (self.any(d), self.ch(["", "", "not "]), t)
        if k == 1:
            t = self.ch(["odd", "even", "divisibleby(3)", "eq(2)", "equalto(0)", "ne(1)", "lt(5)", "le(0)", "gt(-1)",
                         "ge(3)", "eq 1", "ne 2", "gt 1", "sameas(1)", "divisibleby 2"])
            self.f("test:" + re.split(r"[( ]", t)[0])
            return "%s is %s" % (self.e("I", d), t)
        if k == 2:
            t = self.ch(["lower", "upper", "in(['a', 'hello'])", "in 'hello world'", "string"])
            self.f("test:" + re.split(r"[( ]", t)[0])
            return "%s is %s" % (self.e("S", d), t)
        if k == 3:
            self.f("test:defined")
            return self.ch(["opt is defined", "opt is undefined", "missing is defined", "cfg.nope is defined",
                            "messages[0].tool_calls is defined", "tools is none", "tools is not none",
                            "documents is none", "unk_token is defined", "cfg.none is none"])
        if k == 4:
            self.f("test:filter")
            return self.ch(["'upper' is filter", "'nope' is filter", "'odd' is test", "'tojson' is filter"])
        if k == 5:
            return "%s is sameas(%s)" % (self.any(d), self.ch(["none", "true", "false"]))
        return "%s is %s" % (self.any(d), self.ch(["string", "none", "number", "mapping", "sequence"]))

    def e_B(self, d, vs):
        k = self.r.randint(0, 16)
        if k <= 2:
            t = self.ch(["I", "I", "F", "S", "IF"])
            op = self.ch(["==", "!=", "<", ">", "<=", ">="])
            self.f("op:cmp" + op)
            if t == "IF":
                return "(%s %s %s)" % (self.e("I", d), op, self.e("F", d))
            if self.p(0.2):
                self.f("op:chained-cmp")
                return "(%s %s %s %s %s)" % (self.e(t, d), op, self.e(t, d), self.ch(["<", "<=", "==", "!="]), self.e(t, d))
            return "(%s %s %s)" % (self.e(t, d), op, self.e(t, d))
        if k == 3:
            self.f("op:in")
            a, b = self.ch([("S", "S"), ("S", "LS"), ("I", "LI"), ("S", "D")])
            return "(%s %s %s)" % (self.e(a, d), self.ch(["in", "in", "not in"]), self.e(b, d))
        if k <= 6:
            self.f("test")
            return "(%s)" % self.test_expr(d)
        if k == 7:
            self.f("op:not")
            return "not %s" % self.e("B", d)
        if k == 8:
            op = self.ch(["and", "or"])
            self.f("op:" + op)
            return "(%s %s %s)" % (self.e("B", d), op, self.e("B", d))
        if k == 9:
            self.f("method:str.startswith")
            return "%s.%s(%s)" % (self.post(self.e("S", d)), self.ch(["startswith", "endswith"]), self.e("S", d))
        if k == 10:
            m = self.ch(["isdigit", "isalpha", "isspace", "isupper", "islower", "isalnum", "istitle", "isnumeric"])
            self.f("method:str." + m)
            return "%s.%s()" % (self.post(self.e("S", d)), m)
        if k == 11 and self.loops:
            self.f("loop.changed")
            return "loop.changed(%s)" % self.any(d)
        if k == 12:
            self.f("op:truthiness")
            return "(%s)" % self.ch(["words", "nums", "cfg.tags", "tools", "opt", "s", "nothing", "n", "x", "messages"])
        return self.atom("B", vs)

    def e_N(self, d, vs):
        return self.atom("N", vs)
