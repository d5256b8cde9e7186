"""Deliberate template errors for the fuzz case generator (about error_frac of the cases)."""


class ErrorSnippets:
    """Snippets that make Jinja2 fail in each error class (a mixin of Gen)."""

    # -- errors --------------------------------------------------------------
    ERRORS = [
        ("undefined-attr", ["{{ missing.attr }}", "{{ messages[0].nope.x }}", "{{ cfg.nope.deeper }}",
                            "{{ none.a.b }}", "{{ nothing.attr.b }}", "{{ nums[0].foo.bar }}", "{{ missing[0] }}",
                            "{{ missing + 1 }}", "{{ -missing }}", "{{ missing() }}", "{{ missing|tojson }}",
                            "{% for m in messages %}{{ m.nope.x }}{% endfor %}", "{{ messages[99].content }}",
                            "{% if cfg.nope.x is defined %}y{% endif %}", "{{ missing < 1 }}", "{{ len(words) }}"]),
        ("type", ["{{ 'a' + 1 }}", "{{ 1 + 'a' }}", "{{ nums + 'x' }}", "{{ none + 1 }}", "{{ s * 'x' }}",
                  "{{ 1 < 'a' }}", "{{ [1, 'a']|sort }}", "{{ {[1]: 2} }}", "{{ n|int(1, 2, 3) }}",
                  "{{ cfg + cfg }}", "{{ range('3') }}", "{{ words|sum }}", "{{ x // 'a' }}", "{{ n.upper() }}",
                  "{{ loop.cycle() }}{% for i in [1] %}{{ loop.cycle() }}{% endfor %}", "{{ '{}'.format() }}",
                  "{{ (1, 2)|join(none) }}", "{{ cfg.get() }}", "{{ mac_missing(1) }}", "{{ s.split(1) }}",
                  "{% macro mm(a) %}{{ a }}{% endmacro %}{{ mm(1, 2) }}", "{% macro mm(a) %}{{ a }}{% endmacro %}{{ mm(b=1) }}",
                  "{{ 'a'|format(1, 2) }}", "{{ {'a': 1}|sort }}", "{{ '%d' % 'x' }}"]),
        ("zerodiv", ["{{ 1 / 0 }}", "{{ n // 0 }}", "{{ 5 % (n - n) }}", "{{ x / 0 }}", "{{ 0 ** -1 }}",
                     "{{ nums|sum / (n - n) }}", "{{ [1]|slice(0)|list }}", "{{ 1.0 // 0 }}"]),
        ("syntax", ["{% if true %}unclosed", "{{ 1 + }}", "{% endfor %}", "{% foo %}", "{{ x | }}",
                    "{{ x|nofilter }}", "{{ x is nosuchtest }}", "{% do x %}", "{% else %}", "{{ 'abc }}",
                    "{% for %}{% endfor %}", "{% set %}", "{{ }}", "{% endraw %}", "{{ '\\x4' }}",
                    "{{ (1, 2 }}", "{% for x in y %}{% endif %}", "{{ a b }}", "{% macro %}{% endmacro %}",
                    "{{ 1 = 2 }}", "{% if x %}{% elif %}{% endif %}", "{{ x.0y }}", "{{ [1, 2][1:2:3:4] }}",
                    "{% generation %}no end", "{# unclosed comment", "{{ 'a' ~ }}", "{% raw %}no end",
                    "{% include 'x' %}", "{% extends 'base' %}", "{% import 'x' as y %}", "{{ 1 if }}",
                    "{% if x %}{% if y %}{% endif %}", "{{ foo(**) }}", "{{ .5 }}", "{% set a.b.c = 1 %}"]),
        ("raise", ["{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}",
                   "{% if messages|length > 0 %}{{ raise_exception('bad: ' ~ messages[0].role) }}{% endif %}",
                   "{{ raise_exception(s) }}", "{{ raise_exception(n) }}"]),
        ("security", ["{{ messages.append(1) }}", "{{ ''.__class__.__mro__ }}", "{{ cfg.update({}) }}",
                      "{{ nums.pop() }}", "{{ words.sort() }}", "{{ {}.setdefault('a', 1) }}",
                      "{{ messages.__len__() }}", "{{ (''|attr('__class__')).mro() }}", "{{ cfg.clear() }}"]),
        ("runtime", ["{% set c = cfg %}{% set c.name = 'a' %}", "{{ range(1, 10, 0)|list }}",
                     "{{ range(100001)|length }}", "{{ 'x'|round(1, 'bogus') }}", "{{ [1, 2]|batch(-1)|list }}",
                     "{{ nums|sum(attribute='x') }}", "{{ 1.5|round(1, 'up') }}", "{{ x|int|list }}",
                     "{{ (10 ** 400)|float }}", "{{ 'x'|indent('a') }}"]),
    ]

    def error_snippet(self):
        kind, snippets = self.ch(self.ERRORS)
        self.f("err:" + kind)
        return self.ch(snippets)
