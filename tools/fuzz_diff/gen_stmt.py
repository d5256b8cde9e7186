"""Statements for the fuzz case generator: probes, macros, call blocks, if / for / set / with / filter
/ raw / generation / namespace / cycler / joiner."""

import re

from gen_pools import TEXT_PIECES, PROBES, GEN_TYPES, GLOBALS


class Statements:
    """The s_<kind> statement generators and macro / probe helpers (a mixin of Gen)."""

    def probe(self):
        feat, t, pat = self.ch(PROBES)
        self.f(feat)
        self.f("probe")
        if t == "A":
            x = lambda: self.post(self.any(1))
        else:
            x = lambda: self.post(self.e(t, 1))
        out = []
        for piece in re.split(r"(\bX\b)", pat):
            out.append(x() if piece == "X" else piece)
        return "".join(out)

    def s_probe(self, d):
        e = self.probe()
        if self.p(0.15):
            return self.tag("if (%s)" % e) + "T" + self.tag("else") + "F" + self.tag("endif")
        return self.out(e)

    # -- macros --------------------------------------------------------------
    def macro_call(self, d, mi=None):
        mi = mi or self.ch(self.macros)
        self.f("macro:call")
        args = []
        nreq = mi["nreq"]
        for pt in mi["ptypes"][:nreq]:
            args.append(self.e(pt, max(d - 1, 0)))
        kw = []
        for name, pt in zip(mi["pnames"][nreq:], mi["ptypes"][nreq:]):
            if self.p(0.4):
                if self.p(0.5) and not kw:
                    args.append(self.e(pt, max(d - 1, 0)))
                else:
                    kw.append("%s=%s" % (name, self.e(pt, max(d - 1, 0))))
                    self.f("macro:kwarg")
        if kw:
            args = args[:len(mi["pnames"])]
        if mi["varargs"] and not kw and len(args) == len(mi["pnames"]) and self.p(0.7):
            args.append(self.any(0))
            self.f("macro:varargs")
        if mi["kwargs"] and self.p(0.7):
            kw.append("extra_%d=%s" % (self.r.randint(0, 2), self.any(0)))
            self.f("macro:kwargs")
        return "%s(%s)" % (mi["name"], ", ".join(args + kw))

    def macro_def(self, d):
        name = self.fresh("mac")
        np_ = self.r.randint(0, 3)
        pnames = [self.fresh("p") for _ in range(np_)]
        ptypes = [self.ch(["S", "S", "I", "F", "B", "LS"]) for _ in range(np_)]
        nreq = self.r.randint(0, np_)
        params = []
        for i, (pn, pt) in enumerate(zip(pnames, ptypes)):
            if i >= nreq:
                params.append("%s=%s" % (pn, self.atom(pt, [])))
                self.f("macro:default")
            else:
                params.append(pn)
        mi = {"name": name, "pnames": pnames, "ptypes": ptypes, "nreq": nreq,
              "varargs": self.p(0.2), "kwargs": self.p(0.2), "caller": self.p(0.3) and self.in_macro is None,
              "caller_args": 0}
        if mi["caller"] and self.p(0.4):
            mi["caller_args"] = self.r.randint(1, 2)
        saved = (self.scopes, self.loops, self.in_macro, len(self.macros), self.mstack)
        self.scopes = [dict(GLOBALS)]
        self.mstack = []
        self.loops = []
        self.in_macro = mi
        for pn, pt in zip(pnames, ptypes):
            self.bind(pn, pt)
        self.f("macro:def")
        body = self.block(d - 1, self.r.randint(1, 3))
        if mi["varargs"]:
            body += self.out("varargs|join(',')")
        if mi["kwargs"]:
            body += self.out("kwargs|dictsort|string")
        if mi["caller"]:
            self.f("macro:caller")
            cargs = ", ".join(self.e("S", 1) for _ in range(mi["caller_args"]))
            body = self.ch(["", body]) + self.out("caller(%s)" % cargs) + body
        self.scopes, self.loops, self.in_macro, nm, self.mstack = saved
        del self.macros[nm:]
        s = self.tag("macro %s(%s)" % (name, ", ".join(params))) + body + self.tag("endmacro")
        self.macros.append(mi)
        return s

    def call_block(self, d):
        cands = [m for m in self.macros if m["caller"]]
        if not cands:
            return ""
        mi = self.ch(cands)
        self.f("call-block")
        call = self.macro_call(1, mi)
        self.push()
        head = "call"
        if mi["caller_args"]:
            cn = [self.fresh("c") for _ in range(mi["caller_args"])]
            for c in cn:
                self.bind(c, "S")
            head = "call(%s)" % ", ".join(cn)
            self.f("call-block:args")
        body = self.block(d - 1, self.r.randint(1, 2))
        self.pop()
        return self.tag("%s %s" % (head, call)) + body + self.tag("endcall")

    # -- statements ----------------------------------------------------------
    def text(self):
        self.f("text")
        return "".join(self.ch(TEXT_PIECES) for _ in range(self.r.randint(1, 4)))

    def block(self, d, n):
        return "".join(self.stmt(d) for _ in range(n))

    def stmt(self, d):
        self.stmts += 1
        if d <= 0 or self.stmts > 60:
            return self.ch([self.text, lambda: self.out(self.e(self.ch(["S", "I"]), 1))])()
        kinds = [("text", 8), ("print", 14), ("if", 6), ("for", 6), ("set", 4), ("setblock", 1.5),
                 ("ns", 2), ("macro", 1.5), ("call", 1.5), ("filter", 1.5), ("with", 1.2),
                 ("raw", 0.8), ("gen", 1.5), ("comment", 1.5), ("cycler", 1), ("joiner", 1),
                 ("settuple", 1.2), ("probe", 6)]
        if self.loops:
            kinds += [("break", 1.5), ("continue", 1.5)]
        tot = sum(w for _, w in kinds)
        x = self.r.random() * tot
        for k, w in kinds:
            x -= w
            if x < 0:
                break
        return getattr(self, "s_" + k)(d)

    def s_text(self, d):
        return self.text()

    def s_print(self, d):
        self.f("print")
        if self.p(0.05):
            self.f("expr:cond-noelse")
            return self.out("%s if %s" % (self.e("S", d), self.cond(1)))
        return self.out(self.any(min(d, 2) + 1))

    def s_if(self, d):
        self.f("if")
        s = self.tag("if %s" % self.cond(2))
        self.push()
        s += self.block(d - 1, self.r.randint(1, 3))
        self.pop()
        for _ in range(self.r.choice([0, 0, 1, 2])):
            self.f("elif")
            s += self.tag("elif %s" % self.cond(2))
            self.push()
            s += self.block(d - 1, self.r.randint(1, 2))
            self.pop()
        if self.p(0.4):
            self.f("else")
            s += self.tag("else")
            self.push()
            s += self.block(d - 1, self.r.randint(1, 2))
            self.pop()
        return s + self.tag("endif")

    def s_for(self, d):
        self.f("for")
        if len(self.loops) >= 3:
            return self.s_print(d)
        k = self.r.randint(0, 10)
        v = self.fresh("it")
        recursive = False
        binds = []
        if k == 0:
            self.f("for:unpack-items")
            v2 = self.fresh("val")
            head = "%s, %s in %s" % (v, v2, self.ch(["cfg.nested.items()", "cfg|dictsort", "{'b': 2, 'a': [1]}.items()", "cfg.items()", "cfg.nested|items"]))
            binds = [(v, "S"), (v2, "A")]
        elif k == 1:
            self.f("for:unpack")
            v2 = self.fresh("val")
            head = "%s, %s in %s" % (v, v2, self.e("LP", 1))
            binds = [(v, "S"), (v2, "A")]
        elif k == 2 and not self.in_macro:
            self.f("for:recursive")
            recursive = True
            head = "%s in %s recursive" % (v, self.ch(["tree", "tree|sort(attribute='v')", "tree|reverse"]))
            binds = [(v, "T")]
        elif k == 3:
            self.f("for:groupby")
            v2 = self.fresh("grp")
            head = "%s, %s in messages|groupby('role')" % (v, v2)
            binds = [(v, "S"), (v2, "LM")]
        elif k in (4, 5):
            head = "%s in %s" % (v, self.e("LM", 1))
            binds = [(v, "M")]
        elif k == 6:
            head = "%s in %s" % (v, self.e("LI", 1))
            binds = [(v, "I")]
        elif k == 7:
            self.f("global:range")
            head = "%s in range(%s)" % (v, self.ch(["n", "3", "1, 5, 2", "4, 0, -1", "0"]))
            binds = [(v, "I")]
        elif k == 8:
            head = "%s in %s" % (v, self.e("S", 1))
            binds = [(v, "S")]
        else:
            head = "%s in %s" % (v, self.e("LS", 1))
            binds = [(v, "S")]
        self.push()
        for b, t in binds:
            self.bind(b, t)
        if self.p(0.2) and not recursive:
            self.f("for:filter")
            head += " if %s" % self.cond(1)
        self.loops.append({"recursive": recursive})
        body = self.block(d - 1, self.r.randint(1, 3))
        if recursive:
            body += self.out("%s.name" % v)
            body += self.tag("if %s.children" % v) + self.ch(["[", "("]) + self.out("loop(%s.children)" % v) + "]" + self.tag("endif")
            self.f("loop.depth")
            body += self.out(self.ch(["loop.depth", "loop.depth0", "loop.index ~ '/' ~ loop.length"]))
        if self.p(0.3):
            self.f("loop.attrs")
            body += self.out(self.ch(["loop.index", "loop.first", "loop.last", "loop.revindex", "loop.previtem",
                                      "loop.nextitem", "loop.cycle('odd', 'even')", "loop.changed(%s)" % v,
                                      "loop.length", "loop.index0 ~ ':' ~ loop.revindex0"]))
            for nm in ("previtem", "nextitem", "cycle", "changed"):
                if nm in body:
                    self.f("loop." + nm)
        self.loops.pop()
        self.pop()
        s = self.tag("for " + head) + body
        if self.p(0.25):
            self.f("for:else")
            self.push()
            s += self.tag("else") + self.block(d - 1, 1)
            self.pop()
        return s + self.tag("endfor")

    def s_break(self, d):
        kw = self.ch(["break", "continue"])
        return self.s_loopctl(kw)

    def s_continue(self, d):
        return self.s_loopctl("continue")

    def s_loopctl(self, kw):
        self.f(kw)
        if self.p(0.8):
            return self.tag("if %s" % self.cond(1)) + self.tag(kw) + self.tag("endif")
        return self.tag(kw)

    def s_set(self, d):
        self.f("set")
        t = self.ch(GEN_TYPES)
        v = self.fresh("v")
        s = self.tag("set %s = %s" % (v, self.e(t, 2)))
        self.bind(v, t)
        if self.p(0.6):
            s += self.out(v)
        return s

    def s_settuple(self, d):
        self.f("set:tuple")
        a, b = self.fresh("ta"), self.fresh("tb")
        ta, tb = self.ch(["S", "I"]), self.ch(["S", "I", "F"])
        rhs = self.ch(["%s, %s", "(%s, %s)", "[%s, %s]"]) % (self.e(ta, 1), self.e(tb, 1))
        self.bind(a, ta)
        self.bind(b, tb)
        return self.tag("set %s, %s = %s" % (a, b, rhs)) + self.out("%s ~ '|' ~ %s" % (a, b))

    def s_setblock(self, d):
        self.f("set:block")
        v = self.fresh("blk")
        flt = ""
        if self.p(0.4):
            self.f("set:block-filter")
            flt = " | " + self.ch(["upper", "trim", "replace('o', '0')", "indent(2)", "striptags|lower", "length|string"])
        self.push()
        body = self.block(d - 1, self.r.randint(1, 2))
        self.pop()
        self.bind(v, "S")
        return self.tag("set %s%s" % (v, flt)) + body + self.tag("endset") + self.out(self.ch([v, v + "|length", v + "|tojson"]))

    def s_ns(self, d):
        self.f("namespace")
        ns = self.fresh("ns")
        s = self.tag("set %s = namespace(%s)" % (ns, self.ch(["count=0, text=''", "count=n, text=s", "count=0, text='', flag=false"])))
        self.push()
        it = self.fresh("it")
        self.bind(it, "I")
        self.f("for")
        s += self.tag("for %s in %s" % (it, self.ch(["nums", "range(n)", "[3, 1, 2]", "messages|map(attribute='role')|map('length')|list"])))
        self.loops.append({"recursive": False})
        s += self.tag("set %s.count = %s.count + %s" % (ns, ns, it))
        if self.p(0.5):
            s += self.tag("set %s.text = %s.text ~ %s" % (ns, ns, self.e("S", 1)))
        if self.p(0.3):
            s += self.block(d - 1, 1)
        self.loops.pop()
        self.pop()
        s += self.tag("endfor")
        s += self.out("%s.count" % ns) + self.out("%s.text" % ns)
        if self.p(0.1):
            s += self.out(ns)
        return s

    def s_macro(self, d):
        s = self.macro_def(d)
        mi = self.macros[-1]
        if mi["caller"]:
            return s + self.call_block(d)
        return s + self.out(self.macro_call(1))

    def s_call(self, d):
        if not any(m["caller"] for m in self.macros):
            return self.s_macro(d)
        return self.call_block(d)

    def s_filter(self, d):
        self.f("filter-block")
        flt = self.ch(["upper", "lower", "trim", "indent(4)", "replace('\\n', ' ')", "title", "center(30)",
                       "truncate(20)", "wordwrap(10)", "e", "striptags", "upper|trim"])
        self.push()
        body = self.block(d - 1, self.r.randint(1, 2))
        self.pop()
        return self.tag("filter %s" % flt) + body + self.tag("endfilter")

    def s_with(self, d):
        self.f("with")
        self.push()
        binds = []
        later = []
        for _ in range(self.r.randint(0, 2)):
            v = self.fresh("w")
            t = self.ch(["S", "I", "LS"])
            binds.append("%s = %s" % (v, self.e(t, 1)))
            later.append((v, t))
        for v, t in later:
            self.bind(v, t)
        body = self.block(d - 1, self.r.randint(1, 2))
        self.pop()
        return self.tag("with %s" % ", ".join(binds)) + body + self.tag("endwith")

    def s_raw(self, d):
        self.f("raw")
        inner = self.ch(["{{ not_evaluated }}", "{% if %}", "{# x #}", "a {{- b -}} c", "\n  text\n", "{{ '}}' }}"])
        return self.tag("raw").replace("+%}", "%}") + inner + self.tag("endraw").replace("+%}", "%}")

    def s_gen(self, d):
        self.f("generation")
        self.push()
        body = self.block(d - 1, self.r.randint(1, 2))
        self.pop()
        return self.tag("generation") + body + self.tag("endgeneration")

    def s_comment(self, d):
        self.f("comment")
        lm = self.ch(["", "", "-"])
        rm = self.ch(["", "", "-"])
        return "{#%s %s %s#}" % (lm, self.ch(["note", "{{ x }}", "multi\nline", "{% if %}", "é😀"]), rm) + ("\n" if self.p(0.4) else "")

    def s_cycler(self, d):
        self.f("global:cycler")
        c = self.fresh("cyc")
        s = self.tag("set %s = cycler(%s)" % (c, ", ".join(self.e("S", 0) for _ in range(self.r.randint(1, 3)))))
        for _ in range(self.r.randint(1, 3)):
            s += self.out(self.ch(["%s.next()", "%s.current", "%s.next() ~ %s.next()"]).replace("%s", c))
        if self.p(0.3):
            s += self.out("%s.reset()" % c)
        return s

    def s_joiner(self, d):
        self.f("global:joiner")
        j = self.fresh("join")
        s = self.tag("set %s = joiner(%s)" % (j, self.ch(["", "', '", "'|'"])))
        it = self.fresh("it")
        s += self.tag("for %s in %s" % (it, self.e("LS", 1))) + self.out("%s()" % j) + self.out(it) + self.tag("endfor")
        return s
