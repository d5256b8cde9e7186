"""Chat-template-like templates for the fuzz case generator (ChatML, Llama-3, Mistral, Gemma, plain)."""

from gen_pools import STRFTIME


class ChatTemplates:
    """A message loop in one of the real chat-template styles (a mixin of Gen)."""

    # -- chat-template-like mode --------------------------------------------
    def chat_template(self):
        self.f("mode:chat")
        r = self.r
        style = self.ch(["chatml", "llama3", "mistral", "gemma", "plain"])
        self.f("chat:" + style)
        T = self.tag
        o = self.out
        if style == "chatml":
            start = lambda role: "<|im_start|>" + role + "\n"
            end = "<|im_end|>\n"
        elif style == "llama3":
            start = lambda role: "<|start_header_id|>" + role + "<|end_header_id|>\n\n"
            end = "<|eot_id|>"
        elif style == "gemma":
            start = lambda role: "<start_of_turn>" + role + "\n"
            end = "<end_of_turn>\n"
        elif style == "mistral":
            start = lambda role: "[" + role.upper() + "]"
            end = "[/END]"
        else:
            start = lambda role: "### " + role + ":\n"
            end = "\n\n"
        s = ""
        if self.p(0.5):
            s += o("bos_token") if self.p(0.7) else o("bos_token|default('')")
        if self.p(0.3):
            self.f("global:strftime_now")
            s += T("set date_string = strftime_now(%s)" % self.str_lit(self.ch(STRFTIME)))
            s += "Date: " + o("date_string") + "\n"
        sysfirst = self.p(0.5)
        if sysfirst:
            s += T("if messages and messages[0]['role'] == 'system'") if self.p(0.5) else T("if messages[0]['role'] == 'system'")
            s += T("set system_message = messages[0]['content']") + T("set loop_messages = messages[1:]")
            s += T("else") + T("set loop_messages = messages") + T("endif")
        else:
            s += T("set loop_messages = messages")
        if self.p(0.5):
            self.f("chat:tools")
            s += T("if tools is not none and tools|length > 0" if self.p(0.5) else "if tools")
            s += start("system") + "Tools:\n"
            if self.p(0.5):
                s += T("for tool in tools") + o(self.ch(["tool|tojson", "tool.function|tojson(indent=2)", "tool.function.name ~ ': ' ~ tool.function.description",
                                                         "tool['function']['parameters']|tojson(sort_keys=true)"])) + "\n" + T("endfor")
            else:
                s += o("tools|tojson") + "\n"
            s += end + T("endif")
        if sysfirst and self.p(0.7):
            s += T("if system_message is defined") + start("system") + o("system_message" + self.ch(["", "|trim", "|string"])) + end + T("endif")
        if self.p(0.4):
            self.f("namespace")
            s += T("set ns = namespace(last_user=-1, idx=0)")
            s += T("for m in loop_messages") + T("if m.role == 'user'") + T("set ns.last_user = loop.index0") + T("endif") + T("endfor")
        s += T("for message in loop_messages")
        self.push()
        self.bind("message", "M")
        self.loops.append({"recursive": False})
        if self.p(0.08):
            self.f("chat:alternation-check")
            s += T("if (message['role'] == 'user') != (loop.index0 % 2 == 0)")
            s += o("raise_exception('Conversation roles must alternate user/assistant/user/assistant/...')") + T("endif")
        content_render = self.ch([
            o("message['content']"),
            o("message.content|trim"),
            T("if message.content is string") + o("message.content") + T("elif message.content is not none") +
            T("for part in message.content") + T("if part.type == 'text'") + o("part.text") +
            T("elif part['type'] == 'image'") + "<image>" + T("endif") + T("endfor") + T("endif"),
            o("message.content if message.content is string else message.content|tojson"),
            o("(message.content or '')|string"),
        ])
        s += T("if message.role == 'user'") + start("user") + content_render + end
        s += T("elif message.role == 'assistant'") + start("assistant")
        if self.p(0.4):
            self.f("chat:reasoning")
            s += T("if message.reasoning_content is defined and message.reasoning_content") + "<think>" + o("message.reasoning_content|trim") + "</think>\n" + T("endif")
        gen = self.p(0.4)
        if gen:
            self.f("generation")
            s += T("generation")
        s += content_render
        if self.p(0.7):
            self.f("chat:tool_calls")
            s += T("if message.tool_calls is defined and message.tool_calls")
            s += T("for tool_call in message.tool_calls")
            s += T("if tool_call.function is defined") + T("set tool_call = tool_call.function") + T("endif")
            s += "<tool_call>" + self.ch([
                o("{'name': tool_call.name, 'arguments': tool_call.arguments}|tojson"),
                '{"name": "' + o("tool_call.name") + '", "arguments": ' + T("if tool_call.arguments is string") + o("tool_call.arguments") + T("else") + o("tool_call.arguments|tojson") + T("endif") + "}",
                o("tool_call.name") + "(" + T("for k, v in (tool_call.arguments.items() if tool_call.arguments is mapping else [])") + o("k") + "=" + o("v|tojson") + T("if not loop.last") + ", " + T("endif") + T("endfor") + ")",
            ]) + "</tool_call>" + T("if not loop.last") + "\n" + T("endif") + T("endfor") + T("endif")
        s += end if not gen else end[:1] + T("endgeneration") + end[1:]
        s += T("elif message.role == 'tool'") + start(self.ch(["tool", "ipython", "user"])) + o("message.content|string")
        if self.p(0.3):
            s += T("if message.tool_call_id is defined") + " id=" + o("message.tool_call_id") + T("endif")
        s += end
        s += T("elif message.role == 'system'") + start("system") + o("message.content") + end
        if self.p(0.5):
            s += T("else") + o("raise_exception('Unknown role: ' ~ message.role)")
        s += T("endif")
        if self.p(0.4):  # sprinkle some grammar noise inside the loop
            s += self.block(2, 1)
        self.loops.pop()
        self.pop()
        s += T("endfor")
        s += T("if add_generation_prompt") + start("assistant") + (o("'<think>\\n'") if self.p(0.2) else "") + T("endif")
        if self.p(0.3):
            s += o("eos_token") if self.p(0.5) else T("if not add_generation_prompt") + o("eos_token") + T("endif")
        return s
