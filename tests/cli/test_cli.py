#!/usr/bin/env python3
"""The toolchat program as a user runs it: help, version, errors and their exit codes, convert's
safety (same file, atomic output, --strict), template errors with a caret, random call ids.

  test_cli.py --toolchat PATH [unittest options]

Standard library only (any python3). Run from the repository root (ctest does).
"""
import json
import os
import pty
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

TOOLCHAT = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "examples", "qwen2.5")
MESSAGES = os.path.join(ROOT, "examples", "tool_use.json")
SHAREGPT = os.path.join(ROOT, "examples", "convert", "sharegpt_tools.jsonl")
VERBS = ["render", "detect", "parse", "check", "convert", "serve", "tokenize", "completion"]
HERMES_OUT = ('Let me look.<tool_call>\n{"name": "get_current_weather", "arguments": {"location": "Paris"}}\n'
              '</tool_call><tool_call>\n{"name": "web_search", "arguments": {"query": "umbrella"}}\n</tool_call>')


def run(*args, stdin=None, env=None, cwd=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCHAT_")}
    full_env.update(env or {})
    return subprocess.run([TOOLCHAT, *args], input=stdin, capture_output=True, text=True, env=full_env,
                          cwd=cwd or ROOT, timeout=120)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


class Tmp(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="toolchat_cli_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)


class Help(unittest.TestCase):
    def test_verb_help_on_stdout_with_defaults_env_and_example(self):
        expected = {  # option -> a default its help line must show
            "render": {"--model": None, "--now": None, "--repeat": "0"},
            "detect": {"--template": None, "--name": None, "--tokens": None},
            "parse": {"--dialect": None, "--seed": None, "--chunk": "0", "--tools": None},
            "check": {"--template": None, "--infer": None},
            "convert": {"--from": None, "--threads": "2", "--strict": None, "--no-progress": None,
                        "--now": "2026-01-15T09:30:00"},
            "serve": {"--port": "8080", "--host": "127.0.0.1", "--max-body-bytes": str(4 << 20),
                      "--request-timeout": "600", "--backend-kind": "llamacpp", "--threads": "256"},
            "tokenize": {"--tokenizer": None, "--threads": None},
            "completion": {},
        }
        for verb in VERBS:
            p = run(verb, "--help")
            self.assertEqual(p.returncode, 0, verb)
            self.assertEqual(p.stderr, "", verb)
            self.assertIn("Example:", p.stdout, verb)
            self.assertIn("toolchat " + verb, p.stdout.split("Example:")[1], verb)
            for opt, default in expected[verb].items():
                line = next((l for l in p.stdout.splitlines() if l.strip().startswith((opt + " ", opt + ",")) or l.strip() == opt
                             or l.strip().startswith(opt + "\t")), None)
                self.assertIsNotNone(line, f"{verb} --help lacks {opt}:\n{p.stdout}")
                env = ("TOOLCHAT_" if verb == "serve" else "TOOLCHAT_" + verb.upper() + "_") + opt[2:].upper().replace("-", "_")
                self.assertIn(env, p.stdout, f"{verb} {opt}")
                if default is not None:
                    self.assertIn(default, line, f"{verb} {opt} default")

    def test_readme_shows_every_verb_help_as_printed(self):
        readme = read(os.path.join(ROOT, "README.md"))
        for verb in VERBS:
            block = f"<summary><code>toolchat {verb} --help</code></summary>\n\n```\n{run(verb, '--help').stdout.rstrip()}\n```"
            self.assertIn(block, readme, f"README's `toolchat {verb} --help` block is not the program's "
                          "(tools/readme_help.py --toolchat build/toolchat writes them)")

    def test_bash_completion_knows_verbs_options_and_choices(self):
        script = run("completion", "bash")
        self.assertEqual(script.returncode, 0, script.stderr)

        def complete(*words):  # what bash offers for the last word, the script sourced as a user does
            line = " ".join(["toolchat", *words])
            prog = (script.stdout + f"\nCOMP_WORDS=(toolchat {' '.join(repr(w) for w in words)}); "
                    f"COMP_CWORD={len(words)}; COMP_LINE={line!r}; _toolchat; printf '%s\\n' \"${{COMPREPLY[@]}}\"\n")
            p = subprocess.run(["bash", "--norc", "-c", prog], capture_output=True, text=True, cwd=ROOT, timeout=30)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout.split()

        self.assertEqual(set(complete("")), {"--help", "--version", *VERBS})
        self.assertEqual(complete("con"), ["convert"])
        self.assertEqual(complete("convert", "--fr"), ["--from"])
        self.assertEqual(complete("convert", "--from", "sh"), ["sharegpt"])
        self.assertIn("--max-length", complete("convert", "--"))
        self.assertEqual(complete("serve", "--backend-k"), ["--backend-kind"])
        self.assertEqual(set(complete("serve", "--backend-kind", "ll")), {"llamacpp", "llama.cpp"})
        self.assertEqual(complete("render", "--template", "examples/qwen2.5/chat_t"), ["examples/qwen2.5/chat_template.jinja"])
        self.assertEqual(complete("completion", ""), ["bash"])
        self.assertEqual(run("completion", "zsh").returncode, 2)

    def test_toplevel_help_and_version(self):
        p = run("--help")
        self.assertEqual(p.returncode, 0)
        for verb in VERBS:
            self.assertIn(verb, p.stdout)
        p = run("--version")
        self.assertEqual(p.returncode, 0)
        version = re.search(r"project\(toolchat VERSION ([0-9.]+)", read(os.path.join(ROOT, "CMakeLists.txt"))).group(1)
        self.assertEqual(p.stdout.strip(), version)

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_output_that_cannot_be_written_is_exit_1_for_help_version_and_verbs(self):
        # A full disk behind stdout: help and version said nothing and exited 0.
        for args, who in [(["--help"], "toolchat"), (["--version"], "toolchat"), (["detect", "--help"], "toolchat detect"),
                          (["completion", "bash"], "toolchat completion"),
                          (["detect", "--template", MODEL], "toolchat detect"),
                          (["convert", "--from", "sharegpt", "--model", MODEL, SHAREGPT, "-"], "toolchat convert")]:
            full_env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCHAT_")}
            with open("/dev/full", "w") as full:
                p = subprocess.run([TOOLCHAT, *args], stdout=full, stderr=subprocess.PIPE, text=True, env=full_env,
                                   cwd=ROOT, timeout=60)
            self.assertEqual(p.returncode, 1, args)
            self.assertIn(who + ": cannot write the output: No space left on device", p.stderr, args)

    def test_no_verb_is_a_usage_error(self):
        p = run()
        self.assertEqual(p.returncode, 2)
        self.assertIn("render", p.stderr)
        self.assertEqual(p.stdout, "")


class UsageErrors(unittest.TestCase):
    def test_unknown_option_suggests_the_nearest(self):
        for args, wanted in [(["render", "--tempalte", "x"], "--template"),
                             (["serve", "--prot", "1"], "--port"),
                             (["convert", "--strcit"], "--strict"),
                             (["parse", "--dialet=hermes"], "--dialect"),
                             (["detect", "--templat", "x"], "--template")]:
            p = run(*args)
            self.assertEqual(p.returncode, 2, args)
            self.assertIn("unknown option " + args[1].split("=")[0], p.stderr, args)
            self.assertIn("did you mean " + wanted + "?", p.stderr, args)

    def test_unknown_verb_suggests_the_nearest(self):
        p = run("rendr")
        self.assertEqual(p.returncode, 2)
        self.assertIn("did you mean 'render'?", p.stderr)

    def test_unexpected_positional_is_an_error(self):
        p = run("detect", "--template", os.path.join(MODEL, "chat_template.jinja"), "stray")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unexpected argument 'stray'", p.stderr)
        p = run("parse", "--dialect", "hermes", "a.txt", "b.txt")
        self.assertEqual(p.returncode, 2)
        self.assertIn("unexpected argument 'b.txt'", p.stderr)

    def test_bad_values_are_usage_errors(self):
        for args in [["render", "--model", MODEL, "--messages", MESSAGES, "--kwargs", "{bad"],
                     ["render", "--model", MODEL, "--messages", MESSAGES, "--kwargs", "[1]"],
                     ["convert", "--from", "nope", "--model", MODEL, SHAREGPT, "-"],
                     ["convert", "--from", "sharegpt", "--model", MODEL, "--threads", "0", SHAREGPT, "-"],
                     ["serve", "--model", MODEL, "--backend", "http://127.0.0.1:9", "--port", "70000"],
                     ["parse", "--dialect", "hermes", "--template", MODEL],
                     ["parse", "--dialect", "hermez"],
                     ["render", "--template", MODEL],
                     # the friendly form's options would be ignored by the oracle form: refused
                     ["render", "--template", MODEL, "--context", MESSAGES, "--tools", MESSAGES],
                     ["render", "--template", MODEL, "--context", MESSAGES, "--add-generation-prompt"],
                     ["parse", "--dialect", "hermes", "--name", "tool_use"],
                     # serve's --dialect and --backend are command-line values too (they were exit 1)
                     ["serve", "--model", MODEL, "--backend", "http://127.0.0.1:9", "--dialect", "hermez", "--port", "0"],
                     ["serve", "--model", MODEL, "--backend", "127.0.0.1:9", "--port", "0"]]:
            p = run(*args, stdin="")
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr}")
            self.assertEqual(p.stdout, "", args)
        for verb in (["parse"], ["serve", "--model", MODEL, "--backend", "http://127.0.0.1:9", "--port", "0"]):
            p = run(*verb, "--dialect", "hermez", stdin="")
            self.assertIn("unknown dialect 'hermez'; did you mean 'hermes'?", p.stderr, verb)
        p = run("serve", "--model", MODEL, "--backend", "127.0.0.1:9", "--port", "0")
        self.assertIn("--backend: backend URL must start with http:// or https:// (got '127.0.0.1:9')", p.stderr)

    def test_numbers_out_of_their_range_are_refused_by_name_with_the_range(self):
        # CLI11's own checks read every value as a double: an unsigned option took -1 (wrapped to
        # 2^64 - 1, no limit at all), a timeout took nan or 1e300, and the message printed
        # "0.000000 to 17976931348623157081...".
        serve = ["serve", "--model", MODEL, "--backend", "http://127.0.0.1:9", "--port", "0"]
        for args, option, wanted in [
                (serve + ["--max-tools", "-1"], "--max-tools", "a whole number of at least 0"),
                (serve + ["--max-body-bytes", "99999999999999999999999"], "--max-body-bytes", "a whole number of at least 1"),
                (serve + ["--max-messages", "0"], "--max-messages", "a whole number of at least 1"),
                (serve + ["--request-timeout", "nan"], "--request-timeout", "a number of seconds above 0 to 1000000000"),
                (serve + ["--backend-timeout", "1e300"], "--backend-timeout", "a number of seconds above 0 to 1000000000"),
                (serve + ["--connect-timeout", "0"], "--connect-timeout", "a number of seconds above 0 to 1000000000"),
                (serve + ["--retry-after", "-1"], "--retry-after", "a number of seconds from 0 to 1000000000"),
                (serve[:-1] + ["abc"], "--port", "a whole number from 0 to 65535"),
                (["parse", "--dialect", "hermes", "--chunk", "1.5"], "--chunk", "a whole number of at least 0"),
                (["render", "--template", MODEL, "--context", MESSAGES, "--repeat", "-1"], "--repeat", "a whole number of at least 0"),
                (["convert", "--from", "sharegpt", "--model", MODEL, "--max-length", "0", SHAREGPT, "-"], "--max-length",
                 "a whole number of at least 1"),
                (["tokenize", "--tokenizer", "x", "--threads", "0"], "--threads", "a whole number from 1 to 256")]:
            p = run(*args, stdin="")
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr}")
            self.assertIn(f"{option}: expected {wanted}, got '{args[args.index(option) + 1]}'", p.stderr, args)
            self.assertNotIn("0.000000", p.stderr, args)
        # The same check holds for a value from the environment.
        p = run(*serve, env={"TOOLCHAT_MAX_TOOLS": "-1"})
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--max-tools: expected a whole number of at least 0, got '-1'", p.stderr)


class Environment(unittest.TestCase):
    def test_a_services_settings_do_not_leak_into_other_verbs(self):
        # TOOLCHAT_MODEL configures `serve`; `render` with the oracle form must not see a --model.
        p = run("render", "--template", MODEL, "--context", MESSAGES, env={"TOOLCHAT_MODEL": MODEL})
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("render", "--context", MESSAGES, env={"TOOLCHAT_RENDER_TEMPLATE": MODEL})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, run("render", "--template", MODEL, "--context", MESSAGES).stdout)


class FileErrors(Tmp):
    def test_directory_gives_the_os_reason_everywhere(self):
        d = self.tmp
        out = self.path("out.jsonl")
        for args in [["render", "--template", MODEL, "--context", d],
                     ["render", "--model", MODEL, "--messages", d],
                     ["render", "--model", MODEL, "--messages", MESSAGES, "--tools", d],
                     ["render", "--batch", d],
                     ["detect", "--template", MODEL, "--tokens", d],
                     ["parse", "--dialect", "hermes", "--tools", d],
                     ["parse", "--dialect", "hermes", d],
                     ["convert", "--from", "sharegpt", "--model", MODEL, d, out],
                     ["convert", "--from", "sharegpt", "--model", MODEL, "--special-tokens", d, SHAREGPT, out]]:
            p = run(*args, stdin="")
            self.assertEqual(p.returncode, 1, f"{args}: {p.stderr}")
            self.assertIn(d + ": cannot read file: Is a directory", p.stderr, args)
            self.assertNotIn("too large", p.stderr, args)
        self.assertFalse(os.path.exists(out))

    def test_missing_file_is_exit_1_in_every_form(self):
        missing = self.path("missing.json")
        for args in [["render", "--template", MODEL, "--context", missing],
                     ["render", "--template", missing, "--context", MESSAGES],
                     ["render", "--model", missing, "--messages", MESSAGES],
                     ["render", "--model", MODEL, "--messages", missing],
                     ["detect", "--template", missing],
                     ["check", "--template", missing],
                     ["parse", "--template", missing],
                     ["convert", "--from", "sharegpt", "--model", missing, SHAREGPT, self.path("o.jsonl")],
                     ["convert", "--from", "sharegpt", "--model", MODEL, missing, self.path("o.jsonl")]]:
            p = run(*args, stdin="")
            self.assertEqual(p.returncode, 1, f"{args}: {p.stderr}")
            self.assertIn("No such file or directory", p.stderr, args)


class TemplateErrors(Tmp):
    BAD = "{{ bos_token }}\n{% for m in messages %}{{ m.content }{% endfor %}\n"

    def test_friendly_forms_print_file_line_col_and_a_caret(self):
        t = self.path("bad.jinja")
        write(t, self.BAD)
        for args in [["render", "--model", t, "--messages", MESSAGES],
                     ["detect", "--template", t],
                     ["check", "--template", t],
                     ["convert", "--from", "openai", "--model", t, os.path.join(ROOT, "tests", "convert", "openai.jsonl"),
                      self.path("out.jsonl")]]:
            p = run(*args)
            self.assertEqual(p.returncode, 3, f"{args}: {p.stderr}")
            self.assertRegex(p.stderr, re.escape(t) + r":2:\d+: TemplateSyntaxError: ", args)
            lines = p.stderr.splitlines()
            self.assertIn("{% for m in messages %}{{ m.content }{% endfor %}", lines[1], args)
            self.assertRegex(lines[2], r"^\s*\^$", args)
            self.assertEqual(p.stdout, "", args)

    def test_model_form_sees_todays_date_oracle_forms_the_fixed_one(self):
        # apply_chat_template gives strftime_now the real clock; hf_render.py fixes it (its goldens).
        t = self.path("now.jinja")
        write(t, "{{ strftime_now('%Y-%m-%d') }}")
        before = time.strftime("%Y-%m-%d")
        p = run("render", "--model", t, "--messages", MESSAGES)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(p.stdout, {before, time.strftime("%Y-%m-%d")})  # a run across midnight sees either
        self.assertEqual(run("render", "--model", t, "--messages", MESSAGES, "--now", "2020-02-03").stdout, "2020-02-03")
        self.assertEqual(run("render", "--template", t, "--context", "-", stdin='{"messages": []}').stdout, "2026-01-15")

    def test_convert_keeps_the_fixed_instant_unless_told(self):
        # A dataset renders the same on every run and machine; --now real gives today's date.
        t = self.path("now.jinja")
        write(t, "{% for m in messages %}{{ m.content }}{% endfor %}{{ strftime_now('%Y-%m-%d') }}")
        rows = self.path("rows.jsonl")
        write(rows, json.dumps({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}) + "\n")
        for extra, want in [([], {"2026-01-15"}), (["--now", "2020-02-03"], {"2020-02-03"}),
                            (["--now", "real"], {time.strftime("%Y-%m-%d"), time.strftime("%Y-%m-%d", time.localtime(time.time() + 60))})]:
            out = self.path("out.jsonl")
            p = run("convert", "--from", "sharegpt", "--model", t, *extra, rows, out)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertIn(json.loads(read(out))["text"][-10:], want, extra)
        p = run("convert", "--from", "sharegpt", "--model", t, "--now", "yesterday", rows, self.path("o2.jsonl"))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("--now", p.stderr)

    def test_no_render_reuse_renders_every_conversation(self):
        # Renders are reused across conversations of one shape unless told not to. A template that
        # branches on a text's length is one the reuse must see: its proof render is watched
        # (src/value/text_watch.hpp), so the output is the same with and without reuse.
        t = self.path("len.jinja")
        write(t, "{% for m in messages %}[{% if m.content|length > 200 %}LONG{% else %}{{ m.content }}{% endif %}]"
                 "{% endfor %}")
        rows = self.path("rows.jsonl")
        long_text = "x" * 300
        write(rows, "".join(json.dumps({"conversations": [{"from": "human", "value": q}, {"from": "gpt", "value": a}]}) + "\n"
                            for q, a in [("hi", "yo"), ("hey", long_text)]))
        out = self.path("out.jsonl")
        p = run("convert", "--from", "sharegpt", "--model", t, "--no-render-reuse", rows, out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual([json.loads(l)["text"] for l in read(out).splitlines()], ["[hi][yo]", "[hey][LONG]"])
        reused = self.path("reused.jsonl")
        p = run("convert", "--from", "sharegpt", "--model", t, rows, reused)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(read(reused), read(out))

    def test_special_tokens_file_has_one_name_in_every_verb(self):
        # detect/check/parse called it --tokens, convert --special-tokens: both names work everywhere.
        t = self.path("bos.jinja")
        write(t, "{{ bos_token }}{% for m in messages %}{{ m.content }}{% endfor %}")
        tokens = self.path("tokens.json")
        write(tokens, json.dumps({"bos_token": "<BOS>"}))
        rows = self.path("rows.jsonl")
        write(rows, json.dumps({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}) + "\n")
        for name in ["--tokens", "--special-tokens"]:
            p = run("detect", "--template", t, name, tokens)
            self.assertEqual(p.returncode, 0, (name, p.stderr))
            out = self.path("out.jsonl")
            p = run("convert", "--from", "sharegpt", "--model", t, name, tokens, rows, out)
            self.assertEqual(p.returncode, 0, (name, p.stderr))
            self.assertTrue(json.loads(read(out))["text"].startswith("<BOS>"), name)

    def test_template_inside_a_config_is_named_with_its_template(self):
        cfg = self.path("tokenizer_config.json")
        write(cfg, json.dumps({"chat_template": self.BAD}))
        p = run("render", "--model", cfg, "--messages", MESSAGES)
        self.assertEqual(p.returncode, 3)
        self.assertIn(cfg + " (template default):2:", p.stderr)

    def test_oracle_form_keeps_json_on_stdout(self):
        t = self.path("bad.jinja")
        write(t, self.BAD)
        p = run("render", "--template", t, "--context", MESSAGES)
        self.assertEqual(p.returncode, 3)
        self.assertEqual(json.loads(p.stdout)["error"], "TemplateSyntaxError")
        raising = self.path("raise.jinja")
        write(raising, "{{ raise_exception('no tools here') }}")
        p = run("render", "--template", raising, "--context", MESSAGES)
        self.assertEqual(p.returncode, 3)
        self.assertEqual(json.loads(p.stdout), {"error": "TemplateError", "message": "no tools here"})
        p = run("render", "--model", raising, "--messages", MESSAGES)
        self.assertEqual(p.returncode, 3)
        self.assertIn("TemplateError: no tools here", p.stderr)


    def test_a_limit_is_the_templates_when_reached_while_rendering_else_the_inputs(self):
        # One rule (is_template_failure): a LimitError with a template position is exit 3, one an
        # input meets (here a template file over max_template_bytes, 8 MiB) exit 1.
        bomb = self.path("bomb.jinja")
        write(bomb, "{% for i in range(99999) %}{% for j in range(99999) %}{{ i }}{% endfor %}{% endfor %}")
        p = run("render", "--model", bomb, "--messages", MESSAGES)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertRegex(p.stderr, re.escape(bomb) + r":1:\d+: LimitError: ")
        big = self.path("big.jinja")
        write(big, "x" * (8 * 1024 * 1024 + 1))
        p = run("render", "--model", big, "--messages", MESSAGES)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("LimitError: ", p.stderr)
        self.assertEqual(p.stdout, "")

def instrumented(binary):
    """A sanitizer's runtime reserves terabytes of address space: an address-space limit cannot work."""
    with open(binary, "rb") as f:
        data = f.read()
    return b"__asan_init" in data or b"__tsan_init" in data


def run_limited(args, megabytes):
    """The program under an address-space limit (RLIMIT_AS), so that memory runs out where we say;
    one malloc arena, so that worker threads do not each reserve 64 MB of it."""
    limit = megabytes << 20
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCHAT_")}
    env["MALLOC_ARENA_MAX"] = "1"
    return subprocess.run([TOOLCHAT, *args], capture_output=True, text=True, timeout=120, env=env,
                          preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))


class OutOfMemory(Tmp):
    """Memory running out is no verdict on a row: the run fails, names where, and keeps the old output."""

    SMALL = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})

    def setUp(self):
        super().setUp()
        if instrumented(TOOLCHAT):
            self.skipTest("an address-space limit cannot work under a sanitizer")

    def test_convert_stops_at_the_row_it_could_not_convert(self):
        # The template lists a message's characters: a 10 MB text needs about 16 bytes per
        # character while rendering, so a worker runs out at 160 MB and the reader (a 10 MB line) does not.
        model = self.path("chars.jinja")
        write(model, "{%- for m in messages -%}<|{{ m['role'] }}|>{{ m['content'] }}{{ m['content']|list|length }}"
                     "<|end|>{%- endfor -%}{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}")
        big = json.dumps({"messages": [{"role": "user", "content": "x" * 10_000_000},
                                       {"role": "assistant", "content": "y"}]})
        inp = self.path("rows.jsonl")
        write(inp, "\n".join([self.SMALL] * 20 + [big] + [self.SMALL] * 20) + "\n")
        out = self.path("out.jsonl")
        write(out, "old\n")
        p = run_limited(["convert", "--from", "openai", "--model", model, "--threads", "2", "--no-progress", inp, out], 160)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(inp + ":21: out of memory", p.stderr)
        self.assertEqual(read(out), "old\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["chars.jinja", "out.jsonl", "rows.jsonl"])

    def test_a_line_too_long_to_read_fails_the_run(self):
        inp = self.path("rows.jsonl")
        with open(inp, "w", encoding="utf-8") as f:  # line 2 cannot be read into 128 MB of address space
            f.write(self.SMALL + "\n" + "x" * 200_000_000 + "\n" + self.SMALL + "\n")
        out = self.path("out.jsonl")
        write(out, "old\n")
        p = run_limited(["convert", "--from", "openai", "--model", MODEL, "--no-progress", inp, out], 128)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(inp + ": read error after line 1: the input was not read to its end", p.stderr)
        self.assertEqual(read(out), "old\n")
        p = run_limited(["render", "--batch", inp], 128)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(inp + ": read error after line 1", p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 1)  # line 1's result; line 3 was never read


class Convert(Tmp):
    def convert(self, inp, out, *extra, env=None):
        return run("convert", "--from", "sharegpt", "--model", MODEL, *extra, inp, out, env=env)

    def copy_input(self):
        inp = self.path("in.jsonl")
        shutil.copy(SHAREGPT, inp)
        return inp

    def test_refuses_the_input_as_output_through_links(self):
        inp = self.copy_input()
        original = read(inp)
        sym = self.path("sym.jsonl")
        os.symlink(inp, sym)
        hard = self.path("hard.jsonl")
        os.link(inp, hard)
        for out in [inp, sym, hard, os.path.join(self.tmp, ".", "in.jsonl")]:
            p = self.convert(inp, out)
            self.assertNotEqual(p.returncode, 0, out)
            self.assertIn("is the same file as the input", p.stderr, out)
            self.assertEqual(read(inp), original, out)
        with open(inp, encoding="utf-8") as f:  # stdin is the input file, stdout the same file
            p = subprocess.run([TOOLCHAT, "convert", "--from", "sharegpt", "--model", MODEL, "-", inp], stdin=f,
                               capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(read(inp), original)
        self.assertEqual(sorted(os.listdir(self.tmp)), ["hard.jsonl", "in.jsonl", "sym.jsonl"])

    def test_output_replaced_whole_and_no_temporary_left(self):
        inp = self.copy_input()
        out = self.path("out.jsonl")
        write(out, "old\n")
        p = self.convert(inp, out)
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = [json.loads(l) for l in read(out).splitlines()]
        self.assertEqual(len(rows), 2)  # the third row of the example is bad
        self.assertIn("text", rows[0])
        self.assertEqual(sorted(os.listdir(self.tmp)), ["in.jsonl", "out.jsonl"])

    def test_killed_run_leaves_the_old_output(self):
        inp = self.path("big.jsonl")
        row = read(SHAREGPT).splitlines()[0]
        write(inp, (row + "\n") * 200000)
        out = self.path("out.jsonl")
        write(out, "old\n")
        proc = subprocess.Popen([TOOLCHAT, "convert", "--from", "sharegpt", "--model", MODEL, "--threads", "1", inp, out],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            temp = None
            while proc.poll() is None and temp is None:  # until the run has written into its temporary file
                for name in os.listdir(self.tmp):
                    if name.startswith(".out.jsonl.tmp-") and os.path.getsize(os.path.join(self.tmp, name)) > 0:
                        temp = name
                time.sleep(0.01)
            self.assertIsNotNone(temp, "the run ended before writing its temporary file")
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait()
        self.assertEqual(read(out), "old\n")

    def test_no_row_converted_is_a_failure_and_keeps_the_output(self):
        inp = self.path("bad.jsonl")
        write(inp, '{"conversations": 1}\nnot json\n')
        out = self.path("out.jsonl")
        write(out, "old\n")
        p = self.convert(inp, out)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no row converted: all 2 rows are bad", p.stderr)
        self.assertIn(inp + ":1:", p.stderr)
        self.assertEqual(read(out), "old\n")
        empty = self.path("empty.jsonl")
        write(empty, "\n")
        p = self.convert(empty, out)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(read(out), "old\n")

    def test_strict_stops_at_the_first_bad_row(self):
        inp = self.copy_input()  # rows 1-2 good, row 3 bad
        with open(inp, "a", encoding="utf-8") as f:
            f.write("not json\n")
        out = self.path("out.jsonl")
        p = self.convert(inp, out, "--strict")
        self.assertEqual(p.returncode, 1)
        self.assertIn(inp + ":3:", p.stderr)
        self.assertIn("stopped at the first bad row", p.stderr)
        self.assertNotIn(inp + ":4:", p.stderr)
        self.assertFalse(os.path.exists(out))
        p = self.convert(inp, out, env={"TOOLCHAT_CONVERT_STRICT": "1"})
        self.assertEqual(p.returncode, 1)
        self.assertFalse(os.path.exists(out))
        p = self.convert(inp, out)
        self.assertEqual(p.returncode, 0)
        self.assertIn("4 rows, 2 converted, 2 bad", p.stderr)

    def test_progress_only_on_a_terminal(self):
        inp = self.path("many.jsonl")
        write(inp, (read(SHAREGPT).splitlines()[0] + "\n") * 3000)
        p = self.convert(inp, self.path("o1.jsonl"))
        self.assertEqual(p.returncode, 0)
        self.assertNotIn("\r", p.stderr)
        self.assertNotIn("rows/s", p.stderr)
        self.assertIn("3000 rows, 3000 converted", p.stderr)
        # The same run with stderr on a pseudo-terminal draws the line (and clears it).
        master, slave = pty.openpty()
        proc = subprocess.Popen([TOOLCHAT, "convert", "--from", "sharegpt", "--model", MODEL, inp,
                                 self.path("o2.jsonl")], stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        seen = b""
        while True:
            r, _, _ = select.select([master], [], [], 60)
            if not r:
                break
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        proc.wait()
        os.close(master)
        self.assertEqual(proc.returncode, 0)
        self.assertIn(b"rows/s", seen)
        self.assertIn(b"\r", seen)
        self.assertIn(b"3000 rows, 3000 converted", seen)


class Parse(Tmp):
    def parse(self, *args, env=None):
        p = run("parse", "--dialect", "hermes", *args, stdin=HERMES_OUT, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)

    @staticmethod
    def ids(msg):
        return [c["id"] for c in msg["tool_calls"]]

    def test_ids_are_random_per_run_and_seeded_on_demand(self):
        a, b = self.parse(), self.parse()
        self.assertEqual(len(self.ids(a)), 2)
        self.assertEqual(len(set(self.ids(a) + self.ids(b))), 4)
        for i in self.ids(a) + self.ids(b):
            self.assertRegex(i, r"^call_[A-Za-z0-9]{24}$")
        self.assertEqual(self.parse("--seed", "7"), self.parse("--seed", "7"))
        self.assertNotEqual(self.ids(self.parse("--seed", "7")), self.ids(self.parse("--seed", "8")))
        self.assertEqual(self.parse("--seed", "7"), self.parse(env={"TOOLCHAT_PARSE_SEED": "7"}))

    def test_input_file_as_positional(self):
        f = self.path("out.txt")
        write(f, HERMES_OUT)
        p = run("parse", "--dialect", "hermes", "--seed", "3", f)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout), self.parse("--seed", "3"))

    def test_a_bad_tool_is_refused_alike_by_parse_and_render(self):
        # parse read the list's shape only, so a tool that render refused was taken (and ignored).
        for bad, why in [([1], "[0]: expected object"), ([{"type": "function"}], "[0]: missing function")]:
            path = self.path("bad_tools.json")
            write(path, json.dumps({"tools": bad}))
            for args in (["parse", "--dialect", "hermes", "--tools", path],
                         ["render", "--model", MODEL, "--messages", MESSAGES, "--tools", path]):
                p = run(*args, stdin=HERMES_OUT)
                self.assertEqual(p.returncode, 1, f"{args}: {p.stderr}")
                self.assertIn(f"{path}: {why}", p.stderr, args)
                self.assertEqual(p.stdout, "", args)

    def test_tools_file_both_shapes(self):
        with open(MESSAGES, encoding="utf-8") as f:
            tools = json.load(f)["tools"]
        as_list, as_object = self.path("list.json"), self.path("object.json")
        write(as_list, json.dumps(tools))
        write(as_object, json.dumps({"tools": tools}))
        only_weather = self.path("one.json")
        write(only_weather, json.dumps({"tools": tools[:1]}))
        a = self.parse("--seed", "1", "--tools", as_list)
        self.assertEqual(a, self.parse("--seed", "1", "--tools", as_object))
        self.assertNotIn("warnings", a)
        warned = self.parse("--seed", "1", "--tools", only_weather)
        self.assertIn("web_search", json.dumps(warned["warnings"]))
        r1 = run("render", "--model", MODEL, "--messages", MESSAGES, "--tools", as_list)
        r2 = run("render", "--model", MODEL, "--messages", MESSAGES, "--tools", as_object)
        self.assertEqual(r1.returncode, 0, r1.stderr)
        self.assertEqual(r1.stdout, r2.stdout)
        bad = self.path("bad.json")
        write(bad, '{"functions": []}')
        for args in [["parse", "--dialect", "hermes", "--tools", bad],
                     ["render", "--model", MODEL, "--messages", MESSAGES, "--tools", bad]]:
            p = run(*args, stdin="")
            self.assertEqual(p.returncode, 1, args)
            self.assertIn(bad + ': expected a list of tools or an object with "tools"', p.stderr)


class Serve(unittest.TestCase):
    def serve_stderr(self, backend_url):
        """Starts serve (port from the environment), stops it with SIGTERM: (exit status, stderr)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLCHAT_")}
        env["TOOLCHAT_PORT"] = "0"  # from the environment, as documented
        proc = subprocess.Popen([TOOLCHAT, "serve", "--model", MODEL, "--backend", backend_url],
                                stderr=subprocess.PIPE, text=True, env=env)
        try:
            line = proc.stderr.readline()
            self.assertRegex(line, r"^toolchat serve: listening on http://127\.0\.0\.1:\d+ ")
            self.assertNotIn(":0 ", line)
            proc.send_signal(signal.SIGTERM)
            return proc.wait(timeout=30), line + proc.stderr.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stderr.close()

    def test_sigterm_stops_the_server_and_a_dead_backend_is_named(self):
        with socket.socket() as s:  # a port nothing listens on
            s.bind(("127.0.0.1", 0))
            dead = "http://127.0.0.1:%d" % s.getsockname()[1]
        rc, err = self.serve_stderr(dead)
        self.assertEqual(rc, 0)
        self.assertIn("warning: connection refused at " + dead, err)
        with socket.socket() as s:  # a backend that accepts connections
            s.bind(("127.0.0.1", 0))
            s.listen(8)
            rc, err = self.serve_stderr("http://127.0.0.1:%d/v1" % s.getsockname()[1])
        self.assertEqual(rc, 0)
        self.assertNotIn("warning", err)

    def test_bad_model_fails_without_listening(self):
        p = run("serve", "--model", "/nonexistent/model", "--backend", "http://127.0.0.1:9", "--port", "0")
        self.assertEqual(p.returncode, 1)
        self.assertIn("No such file or directory", p.stderr)


if __name__ == "__main__":
    args = sys.argv[1:]
    if "--toolchat" in args:
        i = args.index("--toolchat")
        TOOLCHAT = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if not TOOLCHAT or not os.access(TOOLCHAT, os.X_OK):
        sys.exit("test_cli.py: --toolchat PATH is required")
    unittest.main(argv=[sys.argv[0], *args], verbosity=2)
