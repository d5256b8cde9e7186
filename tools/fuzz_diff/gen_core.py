"""The generator's state and shared helpers: scopes of typed variables, feature marks, tags and
literals. Gen (gen_cases.py) is GenCore plus the expression, statement and chat mixins."""

import re

from gen_pools import WORDS, INT_LITS, FLOAT_LITS, GLOBALS


class GenCore:
    """Random state, variable scopes and the tag / literal helpers the other mixins build on."""

    def __init__(self, r, error_frac=0.1, chat_frac=0.3):
        self.r = r
        self.error_frac = error_frac
        self.chat_frac = chat_frac
        self.feats = set()
        self.scopes = [dict(GLOBALS)]
        self.loops = []       # stack of dicts {"recursive": bool, "elem": type}
        self.macros = []      # list of macro info dicts (visible ones)
        self.mstack = []
        self.uid = 0
        self.in_macro = None  # macro info while generating its body
        self.pretty = r.random() < 0.6
        self.ws_rate = r.choice([0.0, 0.1, 0.3, 0.6])
        self.stmts = 0

    # -- helpers -------------------------------------------------------------
    def f(self, name):
        self.feats.add(name)

    def ch(self, seq):
        return self.r.choice(seq)

    def p(self, prob):
        return self.r.random() < prob

    def post(self, e):
        """e made safe to be followed by .attr / [sub] / (call)."""
        if re.fullmatch(r"[A-Za-z_][\w.]*|\w+\[[^\[\]]*\]|'[^'\\]*'|\"[^\"\\]*\"|\([^()]*\)", e) and "|" not in e:
            return e
        return "(" + e + ")"

    def fresh(self, base):
        self.uid += 1
        return "%s%d" % (base, self.uid)

    def vars_of(self, t):
        out = []
        for sc in self.scopes:
            for k, v in sc.items():
                if v == t or (t == "I" and v == "IS"):
                    out.append(k)
        return out

    def bind(self, name, t):
        self.scopes[-1][name] = t

    def push(self):
        self.scopes.append({})
        self.mstack.append(len(self.macros))

    def pop(self):
        self.scopes.pop()
        del self.macros[self.mstack.pop():]

    def tag(self, body):
        lm = rm = ""
        if self.p(self.ws_rate):
            lm = self.ch(["-", "-", "+"])
            self.f("ws:block-" + ("minus" if lm == "-" else "plus"))
        if self.p(self.ws_rate):
            rm = self.ch(["-", "-", "+"])
            self.f("ws:block-" + ("minus" if rm == "-" else "plus"))
        pre = ""
        if self.pretty:
            pre = "\n" + "  " * self.r.randint(0, 2) if self.p(0.5) else ("  " if self.p(0.1) else "")
        post = "\n" if self.pretty and self.p(0.5) else ""
        return "%s{%%%s %s %s%%}%s" % (pre, lm, body, rm, post)

    def out(self, e):
        lm = rm = ""
        if self.p(self.ws_rate):
            lm = self.ch(["-", "+"])
            self.f("ws:var-" + ("minus" if lm == "-" else "plus"))
        if self.p(self.ws_rate):
            rm = "-"
            self.f("ws:var-minus")
        sp = self.ch([" ", " ", "", "  "])
        if e[:1] in "{}" or e[-1:] in "{}":
            sp = " "
        return "{{%s%s%s%s%s}}" % (lm, sp, e, sp, rm)

    # -- literals ------------------------------------------------------------
    def str_lit(self, content=None):
        self.f("lit:str")
        if content is None:
            content = self.ch(WORDS) if self.p(0.8) else self.ch(WORDS) + self.ch(WORDS)
        q = self.ch(["'", "'", '"'])
        out = []
        for c in content:
            if c == "\\":
                out.append("\\\\")
            elif c == q:
                out.append("\\" + q)
            elif c == "\n":
                out.append("\\n")
            elif c == "\t":
                out.append(self.ch(["\\t", "\t"]))
            else:
                out.append(c)
        if self.p(0.15):
            esc = self.ch(["\\n", "\\t", "\\u00e9", "\\x41", "\\U0001F600", "\\N{BULLET}", "\\q",
                           "\\\\", "\\r", "\\0", "\\u2028", "\\'" if q == "'" else '\\"'])
            out.insert(self.r.randint(0, len(out)), esc)
            self.f("lit:str-escape")
        return q + "".join(out) + q

    def int_lit(self, small=False):
        self.f("lit:int")
        if small:
            return self.ch(["0", "1", "2", "3", "4"])
        v = self.ch(INT_LITS)
        if self.p(0.1):
            v = "-" + v
        return v

    def float_lit(self):
        self.f("lit:float")
        v = self.ch(FLOAT_LITS)
        if "e" in v.lower():
            self.f("lit:float-exp")
        if self.p(0.1):
            v = "-" + v
        return v
