"""List, dict and message expressions for the fuzz case generator."""


class ContainerExprs:
    """The e_<type> generators of lists, dicts, messages, pairs and trees (a mixin of Gen)."""

    def e_LS(self, d, vs):
        k = self.r.randint(0, 14)
        if k == 0:
            self.f("method:str.split")
            return "%s.split(%s)" % (self.post(self.e("S", d)), self.ch(["", "','", "' '", "'l'"]))
        if k == 1:
            flt = self.ch(["sort", "sort(reverse=true)", "unique|list", "reverse|list", "map('upper')|list",
                           "reject('equalto', 'a')|list", "select('string')|list", "list", "batch(2)|map('join')|list",
                           "map('length')|map('string')|list", "sort(attribute='length')", "slice(3)|map('first')|list"])
            self.f("filter:" + flt.split("(")[0].split("|")[0])
            return "%s|%s" % (self.e("LS", d), flt)
        if k == 2:
            self.f("op:add-list")
            return "(%s + %s)" % (self.e("LS", d), self.e("LS", d))
        if k == 3:
            self.f("op:slice")
            return "%s[%s]" % (self.post(self.e("LS", d)), self.ch(["1:", "::-1", ":2", "-1:"]))
        if k == 4:
            self.f("filter:list")
            return "%s|list" % self.e("S", d)
        if k == 5:
            self.f("method:dict.keys")
            return self.ch(["cfg.keys()|list", "cfg|list", "cfg.nested|list", "cfg.tags"])
        if k == 6:
            self.f("filter:map")
            return "%s|map(attribute='role')|list" % self.e("LM", d)
        if k == 7:
            self.f("global:range")
            return "range(%s)|map('string')|list" % self.e("IS", d)
        if k == 8:
            self.f("filter:selectattr")
            return "tree|%s('children')|map(attribute='name')|list" % self.ch(["selectattr", "rejectattr"])
        return self.atom("LS", vs)

    def e_LI(self, d, vs):
        k = self.r.randint(0, 12)
        if k == 0:
            self.f("global:range")
            return "range(%s)|list" % self.ch(["n", "3", "1, 4", "10, 0, -3", "-2, 2", "0", "5, 1"])
        if k == 1:
            flt = self.ch(["sort", "sort(reverse=true)", "unique|list", "select('odd')|list", "reject('even')|list",
                           "map('abs')|list", "select('gt', 2)|list", "select('divisibleby', 3)|list",
                           "reverse|list", "list", "map('string')|map('int')|list", "batch(2)|map('sum')|list"])
            self.f("filter:" + flt.split("(")[0].split("|")[0])
            return "%s|%s" % (self.e("LI", d), flt)
        if k == 2:
            self.f("op:add-list")
            return "(%s + %s)" % (self.e("LI", d), self.e("LI", d))
        if k == 3:
            self.f("op:slice")
            return "%s[%s]" % (self.post(self.e("LI", d)), self.ch(["1:3", "::-1", "::2", "-2:"]))
        if k == 4:
            self.f("filter:map")
            return "%s|map('length')|list" % self.e("LS", d)
        if k == 5:
            self.f("filter:map")
            return "tree|map(attribute='v')|list"
        return self.atom("LI", vs)

    def e_D(self, d, vs):
        k = self.r.randint(0, 6)
        if k == 0:
            self.f("global:dict")
            return "dict(%s)" % ", ".join("%s=%s" % (self.ch(["a", "b", "role", "k"]), self.e(self.ch(["S", "I", "B"]), d)) for _ in range(self.r.randint(0, 3)))
        if k == 1:
            return self.ch(["cfg", "cfg.nested", "cfg.nested.deep"])
        if k == 2:
            self.f("lit:dict")
            return "{%s: %s, 'k': %s}" % (self.e("S", d), self.any(d), self.e("LI", d))
        if k == 3:
            return self.e("M", d)
        return self.atom("D", vs)

    def e_M(self, d, vs):
        k = self.r.randint(0, 3)
        if k == 0:
            return self.ch(["messages[0]", "(messages|first)", "(messages|last)", "messages[-1]"])
        return self.atom("M", vs)

    def e_LM(self, d, vs):
        k = self.r.randint(0, 6)
        if k == 0:
            self.f("filter:selectattr")
            return "messages|%s('role', %s)|list" % (self.ch(["selectattr", "rejectattr"]),
                                                     self.ch(["'equalto', 'user'", "'eq', 'assistant'", "'ne', 'system'", "'in', ['user', 'tool']"]))
        if k == 1:
            self.f("op:slice")
            return "messages[%s]" % self.ch(["1:", "::-1", ":2", "-2:"])
        if k == 2:
            self.f("filter:sort")
            return "messages|sort(attribute='role')"
        if k == 3:
            self.f("filter:selectattr")
            return "messages|selectattr('tool_calls', 'defined')|list"
        return self.atom("LM", vs)

    def e_LP(self, d, vs):
        k = self.r.randint(0, 4)
        if k == 0:
            self.f("filter:dictsort")
            return "cfg.nested|dictsort"
        if k == 1:
            self.f("method:dict.items")
            return "{'a': 1, 'b': 2}.items()|list"
        if k == 2:
            self.f("filter:items")
            return "{'z': 0, 'y': -1}|items|list"
        return self.atom("LP", vs)

    def e_LT(self, d, vs):
        return self.atom("LT", vs)
