// `toolchat serve` streams a tool call while the model writes it, and answers a call cut short by
// max_tokens by the one truncation rule (issue 12 §1, §2; docs/design.md §3.2 "a call cut short").
// A scripted backend (scripted_backend) plays the model:
//  1. a hermes call with a 4 KB string argument, sent in 8-byte pieces, after which the backend stops
//     sending halfway through the value and waits: the client must already hold the call's name and
//     the first part of the value (read as raw SSE with fetch) while the backend is still sending;
//  2. the same call cut by max_tokens (finish "length"): streamed, the call's name and partial
//     arguments then finish_reason "length"; whole, the call's text as content, no call,
//     finish_reason "length"; with tool_choice "required", a 200 (not a 502) with "length".
//  3. the same for the other call syntaxes through `serve --dialect` (llama3_json, mistral, qwen3_coder,
//     gpt_oss), read with the official `openai` npm client when it is installed: a write_file call with
//     a long string argument (quotes and line breaks in it) is announced and half its value has
//     reached the client while the backend, stopped halfway through the value, is still sending; sent
//     whole in small pieces, the concatenated argument deltas equal the non-streamed answer's
//     arguments and the compact JSON of what the model wrote.
// Loopback only, every wait bounded (a bound to fail rather than hang, not a timing assertion).
//
//   node streaming_calls.mjs --toolchat BIN --backend BIN --root REPO
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (i % 2 ? acc : [...acc, [a.replace(/^--/, ''), all[i + 1]]]), []));
const root = args.root;
const children = [];
let failures = 0;
function check(cond, what, detail) {
  if (!cond) {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + JSON.stringify(detail).slice(0, 600)}`);
  }
}
function cleanup() { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); }
process.on('exit', cleanup);
setTimeout(() => { console.log('FAIL the test ran over 120 s'); cleanup(); process.exit(1); }, 120_000).unref();

function start(bin, argv) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(p);
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${err}`)), 15_000);
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on (?:http:\/\/[\d.]+:)?(\d+)/.exec(err);
      if (m) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]) }); }
    });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${bin} exited with ${code}: ${err}`)); });
  });
}

let value = '';
for (let i = 0; value.length < 4000; i++) value += `line ${i} of the report, `;
const head = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "';
const full = `${head}${value}"}}\n</tool_call>`;
const cut = `${head}${value.slice(0, 1500)}`;
const scripts = {
  default: { text: 'nothing' },
  long_call_hangs: { text: full, chunk: 8, hang_after: head.length + Math.floor(value.length / 2) },
  cut_call: { text: cut, chunk: 16, finish: 'length' },
};

// Part 3's families: the template the gateway renders with, and how the model writes a call whose
// argument values are already in the family's own encoding (`enc`: JSON string text, or raw text for
// an XML parameter).
let text3 = '';
for (let i = 0; text3.length < 6000; i++) text3 += `line ${i}: "quoted" and \\ back\n`;
text3 += 'the end';
const jsonText = (v) => JSON.stringify(v).slice(1, -1);
const FAMILIES = [
  { dialect: 'llama3_json', model: 'tests/corpus/templates/vllm-llama3.1_json.jinja', enc: jsonText,
    head: '{"name": "write_file", "parameters": {"path": "notes.txt", "content": "', tail: '"}}' },
  { dialect: 'mistral', model: 'tests/corpus/templates/vllm-mistral_official.jinja', enc: jsonText,
    head: '[TOOL_CALLS][{"name": "write_file", "arguments": {"path": "notes.txt", "content": "', tail: '"}}]' },
  { dialect: 'qwen3_coder', model: 'tests/corpus/templates/vllm-qwen3coder.jinja', enc: (v) => v,
    head: '<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.txt\n</parameter>\n<parameter=content>\n',
    tail: '\n</parameter>\n</function>\n</tool_call>' },
  { dialect: 'gpt_oss', model: 'tests/dialects/templates/openai-gpt-oss-120b.jinja', enc: jsonText,
    head: '<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"path": "notes.txt", "content": "', tail: '"}<|call|>' },
];
for (const f of FAMILIES) {
  const written = f.enc(text3);
  f.half = Math.floor(written.length / 2);
  scripts[`${f.dialect}_hangs`] = { text: f.head + written + f.tail, chunk: 7, hang_after: f.head.length + f.half };
  scripts[`${f.dialect}_whole`] = { text: f.head + written + f.tail, chunk: 5 };
}
const dir = mkdtempSync(`${tmpdir()}/toolchat-stream-`);
writeFileSync(`${dir}/scripts.json`, JSON.stringify(scripts));
const be = await start(args.backend, ['--scripts', `${dir}/scripts.json`, '--port', '0']);
rmSync(dir, { recursive: true, force: true });
const gw = await start(args.toolchat, ['serve', '--model', `${root}/examples/qwen2.5`, '--backend', `http://127.0.0.1:${be.port}`,
  '--backend-kind', 'llamacpp', '--port', '0', '--threads', '4', '--model-name', 'test']);
const url = `http://127.0.0.1:${gw.port}/v1/chat/completions`;
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const body = (script, extra = {}) => JSON.stringify({ model: 'test', messages: [{ role: 'user', content: `Go. SCRIPT:${script}` }], tools: TOOLS, ...extra });

// Reads SSE events from a streamed answer until `enough(state)` or the end; the state assembles the
// deltas as a client does.
async function readStream(script, enough, extra = {}) {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), 30_000);
  const st = { name: null, args: '', content: '', finish: null, done: false };
  try {
    const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(script, { stream: true, ...extra }), signal: ac.signal });
    const reader = r.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    while (!enough(st)) {
      const { value: bytes, done } = await reader.read();
      if (done) break;
      buf += dec.decode(bytes, { stream: true });
      let nl;
      while ((nl = buf.indexOf('\n\n')) >= 0) {
        const ev = buf.slice(0, nl).replace(/^data: /, '');
        buf = buf.slice(nl + 2);
        if (ev === '[DONE]') { st.done = true; continue; }
        const ch = JSON.parse(ev).choices?.[0];
        if (!ch) continue;
        for (const tc of ch.delta?.tool_calls ?? []) {
          if (tc.function?.name) st.name = tc.function.name;
          st.args += tc.function?.arguments ?? '';
        }
        st.content += ch.delta?.content ?? '';
        if (ch.finish_reason) st.finish = ch.finish_reason;
      }
    }
  } catch (e) {
    if (!ac.signal.aborted) throw e;
  } finally {
    clearTimeout(timer);
    ac.abort();  // the backend of the first script never ends: going away cancels it
  }
  return st;
}

// 1. Deltas while the backend is still sending (it stops halfway through the value and waits).
{
  const want = `{"city":"${value.slice(0, Math.floor(value.length / 2) - 16)}`;
  const st = await readStream('long_call_hangs', (s) => s.args.length >= want.length);
  check(st.name === 'get_weather', 'the call\'s name reached the client mid-generation', st.name);
  check(st.args.startsWith(want), 'the first half of the argument reached the client mid-generation', st.args.slice(0, 80));
  check(!st.finish && !st.done, 'the answer had not finished', st.finish);
}

// 2. A call cut by max_tokens.
{
  const st = await readStream('cut_call', (s) => s.done, { max_tokens: 400 });
  check(st.name === 'get_weather', 'streamed: the cut call was announced', st);
  check(st.args === `{"city":"${value.slice(0, 1500)}`, 'streamed: what the model wrote of the arguments', st.args.slice(-60));
  check(st.finish === 'length', 'streamed: finish_reason length', st.finish);

  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('cut_call', { max_tokens: 400 }) });
  const j = await r.json();
  const m = j.choices?.[0]?.message ?? {};
  check(r.status === 200, 'whole: status 200', r.status);
  check(m.content === cut, 'whole: the cut call\'s text is the content', m.content?.slice(0, 80));
  check(!(m.tool_calls?.length), 'whole: no half-parsed call', m.tool_calls);
  check(j.choices?.[0]?.finish_reason === 'length', 'whole: finish_reason length', j.choices?.[0]?.finish_reason);

  for (const tool_choice of ['required', { type: 'function', function: { name: 'get_weather' } }]) {
    const r2 = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body('cut_call', { max_tokens: 400, tool_choice }) });
    const j2 = await r2.json();
    check(r2.status === 200, `tool_choice ${JSON.stringify(tool_choice)}: a call cut by max_tokens is a 200`, [r2.status, j2]);
    check(j2.choices?.[0]?.finish_reason === 'length', `tool_choice ${JSON.stringify(tool_choice)}: finish_reason length`, j2.choices?.[0]);
  }
}

// 3. The other families, through the openai client (what most users stream with).
const clientPath = `${root}/tests/tools/node_modules/openai/index.mjs`;
if (!existsSync(clientPath)) {
  console.log('skip part 3: the openai npm package is not installed (tests/tools/install_node_deps.sh)');
} else {
  const { default: OpenAI } = await import(pathToFileURL(clientPath).href);
  const WRITE = [{ type: 'function', function: { name: 'write_file', description: 'Writes a file.', parameters: { type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] } } }];
  const expected = JSON.stringify({ path: 'notes.txt', content: text3 });
  for (const f of FAMILIES) {
    const fgw = await start(args.toolchat, ['serve', '--model', `${root}/${f.model}`, '--dialect', f.dialect, '--backend',
      `http://127.0.0.1:${be.port}`, '--backend-kind', 'llamacpp', '--port', '0', '--threads', '4', '--model-name', 'test']);
    const oa = new OpenAI({ baseURL: `http://127.0.0.1:${fgw.port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 30_000 });
    const ask = (script, extra = {}) => ({ model: 'test', messages: [{ role: 'user', content: `Write it. SCRIPT:${script}` }], tools: WRITE, ...extra });
    // Assembles the streamed deltas until `enough`; leaving the loop closes the stream (and so the backend).
    const collect = async (script, enough) => {
      const st = { name: null, args: '', finish: null, chunks: 0 };
      const stream = await oa.chat.completions.create(ask(script, { stream: true }));
      for await (const chunk of stream) {
        const ch = chunk.choices?.[0];
        st.chunks++;
        for (const tc of ch?.delta?.tool_calls ?? []) {
          if (tc.function?.name) st.name = tc.function.name;
          st.args += tc.function?.arguments ?? '';
        }
        if (ch?.finish_reason) st.finish = ch.finish_reason;
        if (enough(st)) break;
      }
      return st;
    };
    // The longest start of the value whose encoding the backend sends before it stops, less a margin
    // for what may still be held (a partial escape or end marker).
    let k = 0;
    while (k < text3.length && f.enc(text3.slice(0, k + 1)).length <= f.half - 24) k++;
    const want = JSON.stringify({ path: 'notes.txt', content: text3.slice(0, k) }).slice(0, -2);
    try {
      const mid = await collect(`${f.dialect}_hangs`, (s) => s.args.length >= want.length);
      check(mid.name === 'write_file', `${f.dialect}: the call's name reached the client while the backend was sending`, mid.name);
      check(mid.args.startsWith(want) && expected.startsWith(mid.args),
        `${f.dialect}: the first half of the argument reached the client while the backend was sending`, [mid.args.length, want.length, mid.args.slice(-60)]);
      check(mid.finish === null, `${f.dialect}: the answer had not finished`, mid.finish);

      const all = await collect(`${f.dialect}_whole`, () => false);
      const whole = await oa.chat.completions.create(ask(`${f.dialect}_whole`));
      const calls = whole.choices?.[0]?.message?.tool_calls ?? [];
      check(calls.length === 1 && calls[0].function.name === 'write_file' && calls[0].function.arguments === expected,
        `${f.dialect}: the whole answer's call`, calls.map((c) => [c.function.name, c.function.arguments.slice(0, 60)]));
      check(all.name === 'write_file' && all.args === calls[0]?.function.arguments && all.args === expected,
        `${f.dialect}: the concatenated argument deltas equal the final arguments`, [all.name, all.args.length, expected.length, all.args.slice(-60)]);
      check(all.finish === 'tool_calls', `${f.dialect}: streamed finish_reason tool_calls`, all.finish);
      check(all.chunks > 20, `${f.dialect}: the arguments came in many deltas`, all.chunks);
    } catch (e) {
      check(false, `${f.dialect}: request failed`, String(e));
    }
    fgw.proc.kill('SIGKILL');
  }
}

console.log(failures ? `${failures} check(s) failed` : 'ok');
cleanup();
process.exit(failures ? 1 : 0);
