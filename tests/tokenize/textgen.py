"""Texts for checking the tokenizer against Hugging Face tokenizers (stdlib only).

corpus(root, specials): the fixed corpus: the rendered prompts of tests/corpus/expected, many
scripts and languages, emoji and ZWJ sequences, combining marks, code, long runs of spaces,
digits and newlines, and the tokenizer's own added tokens inside words.
fuzz(seed, count, specials): random texts made of the same ingredients, cut and mixed.
"""
import glob
import json
import os
import random

SCRIPTS = [
    "The quick brown fox jumps over the lazy dog. It's, isn't it? We'll see; they'd've LOVED it!",
    "Ça va? Où est la bibliothèque? Élève, naïve, cœur, façade.",
    "Größe, Straße, Äpfel, Übermut; ẞ and ß.",
    "Съешь же ещё этих мягких французских булок, да выпей чаю.",
    "Γαζέες καὶ μυρτιὲς δὲν θὰ βρῶ πιὰ στὸ χρυσαφὶ ξέφωτο. ΣΊΣΥΦΟΣ σίσυφος",
    "我能吞下玻璃而不伤身体。你好，世界！这是一个测试：１２３。",
    "日本語のテキスト、ひらがな、カタカナ、漢字。ｶﾀｶﾅ半角 ｱｲｳ",
    "한국어 텍스트입니다. 안녕하세요, 세계! 각 글자는 음절입니다.",
    "العربية: مرحبا بالعالم، هذا اختبار. ١٢٣٤٥ الأرقام",
    "עברית: שלום עולם, זהו מבחן.",
    "हिन्दी: नमस्ते दुनिया, यह एक परीक्षण है। क्षत्रिय",
    "ไทย: สวัสดีชาวโลก นี่คือการทดสอบ",
    "Tiếng Việt: Xin chào thế giới, đây là một bài kiểm tra.",
    "ქართული ენა, Հայերեն լեզու, ᎠᏍᎦᏯ, ⴰⵣⵓⵍ",
    "Türkçe: İstanbul, ıI iİ; Azərbaycan dili",
    "ꦧꦱꦗꦮ 𐌰𐌱𐌲 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛 ⅠⅡⅢ ½ ¼ ²³",
    "ﬁ ﬂ ﬃ ㍿ ㌀ ℃ ™ Ω Å ǅ ǈ ǋ ﾊﾝｶｸ",
]
EMOJI = [
    "😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "❤️", "🇯🇵🇫🇷", "👩🏻‍💻", "🧑‍🤝‍🧑", "1️⃣", "#️⃣", "🫠", "🐈‍⬛",
]
COMBINING = [
    "e\u0301", "a\u0308\u0304", "n\u0303", "\u0041\u030a", "q\u0323\u0307", "\u1100\u1161\u11a8",
    "o\u031b\u0300", "Z\u0351\u0352\u0353\u0354", "\u0915\u094d\u0937", "\u0e01\u0e34\u0e4a",
]
CODE = [
    "def f(x):\n    return x ** 2  # square\n\nprint(f(3))\n",
    "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
    "const re = /^[a-z]+$/i; let s = `${a}-${b}`; x => x?.y ?? 0;",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name;",
    "<div class=\"x\"><a href='https://example.com/?q=1&r=2'>link</a></div>",
    "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}",
    "$ ls -la | grep '\\.py$' && echo \"done\" >> log.txt 2>&1",
    "x=1;y=2\r\nz=3\r\n\r\n",
]
RUNS = [
    " " * 37, "\n" * 9, "\t" * 5, "1234567890" * 5, " \n \n  \n", "\r\n" * 4, "  \u00a0\u3000 ",
    "9" * 41, "...", "!!!???", "----", "____", "\u2028\u2029\u0085", "\u200b\u200d\ufeff",
]
WORDS = ["hello", "world", "Tokenizer", "don't", "I'M", "you'RE", "they'll", "ſ", "K", "123abc", "x1y2",
         "snake_case", "CamelCase", "URL", "co-op", "naïve", "ﬁne"]
SPACES = [" ", "  ", "\n", "\t", "", "", "", " \n", "\u00a0", "\u3000"]


def rendered_prompts(root):
    texts = []
    for path in sorted(glob.glob(os.path.join(root, "tests/corpus/expected/*.json"))):
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        if isinstance(d, dict) and isinstance(d.get("text"), str):
            texts.append(d["text"])
    return texts


def with_specials(specials):
    out = []
    for s in specials[:40]:
        out += [f"word{s}word", f" {s} ", f"a {s}b", f"{s}", f"x{s}{s}y", f"\n{s}\n", f"  {s}  tail"]
        if len(s) > 2:
            out.append(s[:-1])  # a prefix of it: not the token
    return out


def corpus(root, specials):
    texts = rendered_prompts(root)
    texts += SCRIPTS + EMOJI + COMBINING + CODE + RUNS + WORDS
    texts.append(" ".join(SCRIPTS))
    texts.append("".join(EMOJI))
    texts.append("".join(COMBINING))
    texts += [" " * n + "x" for n in range(0, 20)] + ["x" + " " * n for n in range(1, 20)]
    texts += ["\n" * n + "x" + "\n" * n for n in range(1, 8)]
    texts += [str(10 ** n) for n in range(0, 25)] + ["3.14159", "1,000,000", "2024-01-01T12:00:00Z"]
    texts += [w + "'s" for w in WORDS] + [w + "'LL" for w in WORDS] + ["'s", "''s", "'", "ſ's", "'ſ"]
    texts += with_specials(specials)
    texts.append("")
    return texts


def random_char(rng):
    r = rng.random()
    ranges = [
        (0x20, 0x7E), (0x09, 0x0D), (0xA0, 0x24F), (0x300, 0x36F), (0x370, 0x52F), (0x590, 0x6FF),
        (0x900, 0x97F), (0xE00, 0xE7F), (0x1100, 0x11FF), (0x1E00, 0x1FFF), (0x2000, 0x206F),
        (0x2070, 0x2BFF), (0x3000, 0x30FF), (0x3130, 0x318F), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3),
        (0xF900, 0xFAFF), (0xFB00, 0xFDFF), (0xFE00, 0xFE0F), (0xFF00, 0xFFEF), (0x10000, 0x1D7FF),
        (0x1F000, 0x1FAFF), (0x20000, 0x2FA1F), (0x30000, 0x3347F), (0xE0000, 0xE007F),
        (0xE000, 0xF8FF), (0xFFF0, 0xFFFF), (0x10FFF0, 0x10FFFF),
    ]
    if r < 0.5:
        lo, hi = ranges[0]
    else:
        lo, hi = rng.choice(ranges)
    c = rng.randint(lo, hi)
    if 0xD800 <= c <= 0xDFFF:
        c = 0xFFFD
    return chr(c)


def fuzz_text(rng, pool):
    parts = []
    for _ in range(rng.randint(1, 12)):
        k = rng.random()
        if k < 0.35:
            parts.append("".join(random_char(rng) for _ in range(rng.randint(1, 12))))
        elif k < 0.7:
            s = rng.choice(pool)
            if len(s) > 40:
                a = rng.randrange(len(s))
                s = s[a:a + rng.randint(1, 80)]
            parts.append(s)
        elif k < 0.85:
            parts.append(rng.choice(SPACES))
        else:
            parts.append(rng.choice(WORDS + EMOJI + COMBINING + ["'s", "'T", "'ve", "1", "22", "333"]))
    return "".join(parts)


def fuzz(root, seed, count, specials):
    rng = random.Random(seed)
    pool = SCRIPTS + CODE + RUNS + with_specials(specials) + rendered_prompts(root)[:200]
    return [fuzz_text(rng, pool) for _ in range(count)]
