// End-to-end test of `toolchat serve` with the official `openai` npm client: a scripted backend
// (scripted_backend, every protocol) replays model outputs: hermes through every backend protocol,
// and every registered dialect's parser fixtures through `serve --dialect`; the client's assembled
// streaming tool calls must equal the non-streaming ones and the script's / fixture's expectation.
// Also: tool_choice / parallel_tool_calls, a catalogue of malformed requests (status + param),
// backend failures (refused, garbage, HTTP errors, slow, killed mid-stream), client disconnect,
// 200 concurrent streams. Loopback only; every wait is bounded. Exit 77 when `openai` is missing.
//
//   node gateway_openai.mjs --toolchat BIN --backend BIN --root REPO [--example BIN]
import { execFile, spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (i % 2 ? acc : [...acc, [a.replace(/^--/, ''), all[i + 1]]]), []));
const root = args.root;
const clientPath = `${root}/tests/tools/node_modules/openai/index.mjs`;
if (!existsSync(clientPath)) {
  console.log('skip: the openai npm package is not installed (tests/tools/install_node_deps.sh)');
  process.exit(77);
}
const { default: OpenAI, APIError } = await import(pathToFileURL(clientPath).href);
const scripts = JSON.parse(readFileSync(`${root}/tests/gateway/scripts.json`, 'utf8'));
const MODEL = `${root}/examples/qwen2.5`;
const SERVED = 'qwen2.5';  // the model name the gateways serve (the --model path's last part)

// Fixture cases (dialect/case) that cannot go through the gateway, with the reason. The test fails
// when one of them starts passing, so the list stays true.
const GATEWAY_EXCEPTIONS = {
};

const children = [];
let failures = 0, checks = 0;
function check(cond, what, detail) {
  checks++;
  if (!cond) {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail))}`);
  }
}
function cleanup() { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); }
process.on('exit', cleanup);
const overall = setTimeout(() => { console.log('FAIL the test ran over 300 s'); cleanup(); process.exit(1); }, 300_000);

// Starts a process and waits (at most 15 s) for "listening on ... PORT" on its stderr; log() is
// everything it wrote to stderr so far (the access log). `env` is added to the environment.
function start(bin, argv, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
    children.push(p);
    let err = '';
    const timer = setTimeout(() => reject(new Error(`${bin} did not start: ${err}`)), 15_000);
    p.stderr.on('data', (d) => {
      const first = err === '' || !/listening on/.test(err);
      err += d;
      const m = /listening on (?:http:\/\/[\d.]+:)?(\d+)/.exec(err);
      if (m && first) { clearTimeout(timer); resolve({ proc: p, port: Number(m[1]), log: () => err }); }
    });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`${bin} exited with ${code}: ${err}`)); });
  });
}
const backend = () => start(args.backend, ['--scripts', `${root}/tests/gateway/scripts.json`, '--port', '0']);
const gateway = (beUrl, kind, extra = []) =>
  start(args.toolchat, ['serve', '--model', MODEL, '--backend', beUrl, '--backend-kind', kind, '--port', '0', '--threads', '32', ...extra]);
const freePort = () => new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });
const get = async (port, path) => (await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) }));
const client = (port) => new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'unused', maxRetries: 0, timeout: 30_000 });

const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'array', items: { type: 'integer' } } }, required: ['city'] } } },
  { type: 'function', function: { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { tz: { type: 'string' } }, required: ['tz'] } } },
];
const ask = (script, extra = {}) => ({ model: SERVED, messages: [{ role: 'user', content: `Please help. SCRIPT:${script}` }], tools: TOOLS, ...extra });

async function streamed(c, params) {
  const out = { content: '', reasoning: '', calls: [], finish: null, shapeOk: true };
  const stream = await c.chat.completions.create({ ...params, stream: true });
  for await (const chunk of stream) {
    const ch = chunk.choices[0];
    if (!ch) continue;
    const d = ch.delta ?? {};
    if (d.content) out.content += d.content;
    if (d.reasoning_content) out.reasoning += d.reasoning_content;
    for (const tc of d.tool_calls ?? []) {
      if (!out.calls[tc.index]) {
        // The first fragment of a call carries id, type and the whole name.
        if (!tc.id || tc.type !== 'function' || !tc.function?.name) out.shapeOk = false;
        out.calls[tc.index] = { id: tc.id, name: tc.function?.name, arguments: tc.function?.arguments ?? '' };
      } else {
        if (tc.id || tc.function?.name) out.shapeOk = false;
        out.calls[tc.index].arguments += tc.function?.arguments ?? '';
      }
    }
    if (d.toolchat_warnings) out.warnings = d.toolchat_warnings;
    if (ch.finish_reason) out.finish = ch.finish_reason;
  }
  return out;
}
const whole = async (c, params) => {
  const r = await c.chat.completions.create(params);
  const m = r.choices[0].message;
  return { model: r.model, warnings: m.toolchat_warnings, content: m.content, reasoning: m.reasoning_content ?? '', calls: (m.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments })), finish: r.choices[0].finish_reason, usage: r.usage };
};
const callsOf = (calls) => calls.map((c) => { try { return [c.name, JSON.parse(c.arguments)]; } catch { return [c.name, `unparsable: ${c.arguments}`]; } });

async function compareScript(label, c, script, extra = {}) {
  const exp = scripts[script].expect;
  let w, s;
  try {
    w = await whole(c, ask(script, extra));
    s = await streamed(c, ask(script, extra));
  } catch (e) {
    check(false, `${label} ${script}: request failed`, String(e));
    return;
  }
  check(isDeepStrictEqual(callsOf(w.calls), exp.calls), `${label} ${script}: non-streaming calls`, callsOf(w.calls));
  check(isDeepStrictEqual(callsOf(s.calls), callsOf(w.calls)), `${label} ${script}: streamed calls equal non-streaming`, { s: s.calls, w: w.calls });
  check(s.shapeOk, `${label} ${script}: id/type/name only in each call's first fragment`);
  check(w.calls.every((x) => x.id) && new Set(w.calls.map((x) => x.id)).size === w.calls.length, `${label} ${script}: call ids present and distinct`, w.calls);
  if ('content' in exp) {
    check(w.content === exp.content, `${label} ${script}: content`, w.content);
    check(s.content === (exp.content ?? ''), `${label} ${script}: streamed content`, s.content);
  }
  if ('reasoning' in exp) {
    check(w.reasoning === exp.reasoning && s.reasoning === exp.reasoning, `${label} ${script}: reasoning_content`, [w.reasoning, s.reasoning]);
  }
  const finish = exp.calls.length ? 'tool_calls' : (scripts[script].finish ?? 'stop');
  check(w.finish === finish && s.finish === finish, `${label} ${script}: finish_reason`, [w.finish, s.finish]);
  check(w.usage && w.usage.total_tokens === w.usage.prompt_tokens + w.usage.completion_tokens && w.usage.prompt_tokens > 0, `${label} ${script}: usage`, w.usage);
}

async function expectError(label, promise, status, code) {
  try {
    await promise;
    check(false, `${label}: expected HTTP ${status} ${code}, got success`);
  } catch (e) {
    const got = e instanceof APIError ? [e.status, e.code ?? e.error?.code] : [undefined, String(e)];
    check(got[0] === status && got[1] === code, `${label}: error`, { want: [status, code], got });
    return e;
  }
}

async function raw(port, body, { method = 'POST', path = '/v1/chat/completions' } = {}) {
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: method === 'POST' ? body : undefined, signal: AbortSignal.timeout(15_000) });
  let j = null;
  try { j = await r.json(); } catch { /* checked below */ }
  return { status: r.status, j };
}

// ---------------------------------------------------------------------------------------------
const be = await backend();
const beUrl = `http://127.0.0.1:${be.port}`;
const [gwL, gwO, gwG, gwC] = await Promise.all([
  gateway(beUrl, 'llamacpp', ['--threads', '256']),
  gateway(`${beUrl}/v1`, 'openai'),
  gateway(beUrl, 'ollama'),
  gateway(beUrl, 'ollama-chat'),
]);
const lastBody = async () => JSON.parse(await (await get(be.port, '/_last')).text());
const stats = async () => (await get(be.port, '/_stats')).json();

// 1. Every backend protocol, streaming and not.
for (const [label, gw] of [['llamacpp', gwL], ['openai', gwO], ['ollama', gwG], ['ollama-chat', gwC]]) {
  for (const s of ['hermes_two', 'hermes_text_and_call', 'think_answer', 'plain', 'length']) await compareScript(label, client(gw.port), s);
}
{
  const b = await lastBody();  // ollama-chat: tools travel inside the system message
  check(Array.isArray(b.messages) && b.messages[0].role === 'system' && b.messages[0].content.includes('get_weather'), 'ollama-chat: tool prompt in the system message', b.messages?.[0]);
}

// llama-server before stop_type (b4xxx) said stopped_limit: still read as finish_reason length.
await compareScript('llamacpp (stopped_* fields)', client(gwL.port), 'length_legacy');

// ollama-chat needs no template when the dialect is named (Ollama applies the model's own).
{
  const gw = await start(args.toolchat, ['serve', '--backend', beUrl, '--backend-kind', 'ollama-chat', '--dialect', 'hermes', '--port', '0', '--threads', '8', '--model-name', SERVED]);
  await compareScript('ollama-chat without --model', client(gw.port), 'hermes_two');
}

// 2. Every registered dialect (src/dialects/list.def), from its parser fixtures: each case with
// tool calls, no warnings and no reasoning_open (the gateway derives that from the rendered prompt,
// which for this model never ends inside <think>) is replayed in small chunks by a second backend
// through `serve --dialect NAME`; the client's calls must equal the fixture's, streamed and not alike.
{
  const registered = [...readFileSync(`${root}/src/dialects/list.def`, 'utf8').matchAll(/^DIALECT\((\w+)\)/gm)].map((m) => m[1]);
  const fixtureDir = `${root}/tests/dialects/fixtures`;
  const missing = registered.filter((d) => !existsSync(`${fixtureDir}/${d}.json`));
  check(registered.length > 0 && missing.length === 0, 'every registered dialect has a fixture file', missing);
  const toolsFor = (c) => c.tools ?? [...new Set(c.tool_calls.map((t) => t.name))].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object' } } }));
  const plan = [];  // {dialect, script, caseName, tools, content, reasoning, calls, ids}
  const replay = {};
  for (const dialect of registered.filter((d) => !missing.includes(d))) {
    const fx = JSON.parse(readFileSync(`${fixtureDir}/${dialect}.json`, 'utf8'));
    fx.cases.forEach((c, i) => {
      if (!c.tool_calls?.length || c.warnings?.length || c.reasoning_open) return;
      const script = `fx_${dialect}_${i}`;
      replay[script] = { text: c.input, chunk: 1 + (i % 5) };
      plan.push({ dialect, script, caseName: c.name, tools: toolsFor(c), content: c.content ?? '', reasoning: c.reasoning_content ?? '', calls: c.tool_calls.map((t) => [t.name, JSON.parse(t.arguments)]), ids: c.tool_calls.map((t) => t.id) });
    });
  }
  const perDialect = registered.map((d) => [d, plan.filter((p) => p.dialect === d).length]);
  check(perDialect.every(([, n]) => n > 0), 'every registered dialect has at least one replayable fixture case', perDialect.filter(([, n]) => !n));
  const dir = mkdtempSync(`${tmpdir()}/toolchat-gw-`);
  writeFileSync(`${dir}/fixtures.json`, JSON.stringify(replay));
  const fxBe = await start(args.backend, ['--scripts', `${dir}/fixtures.json`, '--port', '0']);
  rmSync(dir, { recursive: true, force: true });
  const fxUrl = `http://127.0.0.1:${fxBe.port}`;
  const failing = new Map();  // "dialect/case" -> what went wrong
  const runDialect = async (dialect) => {
    let gw;
    try {
      gw = await gateway(fxUrl, 'llamacpp', ['--dialect', dialect, '--threads', '4']);
    } catch (e) {
      for (const p of plan.filter((x) => x.dialect === dialect)) failing.set(`${dialect}/${p.caseName}`, `serve --dialect ${dialect} did not start: ${e.message}`);
      return;
    }
    const c = client(gw.port);
    for (const p of plan.filter((x) => x.dialect === dialect)) {
      const params = { model: SERVED, messages: [{ role: 'user', content: `Go. SCRIPT:${p.script}` }], tools: p.tools };
      const problems = [];
      try {
        const w = await whole(c, params), s = await streamed(c, params);
        if (!isDeepStrictEqual(callsOf(w.calls), p.calls)) problems.push(`non-streaming calls ${JSON.stringify(callsOf(w.calls))}`);
        if (!isDeepStrictEqual(callsOf(s.calls), callsOf(w.calls))) problems.push(`streamed calls ${JSON.stringify(callsOf(s.calls))}`);
        if (s.content !== (w.content ?? '') || s.reasoning !== w.reasoning) problems.push(`streamed text ${JSON.stringify([s.content, s.reasoning])} vs ${JSON.stringify([w.content, w.reasoning])}`);
        if ((w.content ?? '') !== p.content || w.reasoning !== p.reasoning) problems.push(`text ${JSON.stringify([w.content, w.reasoning])}, the fixture has ${JSON.stringify([p.content, p.reasoning])}`);
        const idsOk = (calls) => p.ids.every((id, k) => id === undefined || calls[k]?.id === id);  // ids the model wrote are kept
        if (!idsOk(w.calls) || !idsOk(s.calls)) problems.push(`call ids ${JSON.stringify([w.calls.map((x) => x.id), s.calls.map((x) => x.id)])}, the fixture has ${JSON.stringify(p.ids)}`);
        if (!s.shapeOk) problems.push('id/type/name outside a call\'s first fragment');
        if (w.finish !== 'tool_calls' || s.finish !== 'tool_calls') problems.push(`finish_reason ${w.finish}/${s.finish}`);
      } catch (e) {
        problems.push(`request failed: ${e}`);
      }
      if (problems.length) failing.set(`${dialect}/${p.caseName}`, problems.join('; '));
    }
  };
  await Promise.all(registered.filter((d) => !missing.includes(d)).map(runDialect));
  for (const p of plan) {
    const key = `${p.dialect}/${p.caseName}`, known = GATEWAY_EXCEPTIONS[key];
    if (known) check(failing.has(key), `${key}: listed as failing through the gateway (${known}) but passes now; remove it from the list`);
    else check(!failing.has(key), `fixture ${key} through the gateway`, failing.get(key));
  }
  for (const key of Object.keys(GATEWAY_EXCEPTIONS))
    check(plan.some((p) => `${p.dialect}/${p.caseName}` === key), `listed exception ${key} names no replayable fixture case`);
  console.log(`fixtures through the gateway: ${plan.length} cases of ${registered.length} dialects, ${Object.keys(GATEWAY_EXCEPTIONS).length} listed exceptions`);
}

// 3. Request fields reach the backend.
{
  const c = client(gwL.port);
  await c.chat.completions.create({ ...ask('plain'), max_tokens: 7, temperature: 0.5, top_p: 0.9, seed: 42, stop: ['END'] });
  const b = await lastBody();
  check(b.n_predict === 7 && b.temperature === 0.5 && b.top_p === 0.9 && b.seed === 42 && isDeepStrictEqual(b.stop, ['END']), 'llamacpp: sampling fields forwarded', b);
  await client(gwO.port).chat.completions.create({ ...ask('plain'), max_completion_tokens: 9 });
  const o = await lastBody();
  check(o.max_tokens === 9 && typeof o.prompt === 'string' && o.prompt.includes('SCRIPT:plain'), 'openai: max_completion_tokens forwarded as max_tokens', o);
  await client(gwG.port).chat.completions.create({ ...ask('plain'), max_tokens: 5 });
  const g = await lastBody();
  check(g.raw === true && g.options?.num_predict === 5, 'ollama: raw prompt and num_predict', g);
}

// 4. tool_choice and parallel_tool_calls.
{
  const c = client(gwL.port);
  const none = await whole(c, ask('hermes_two', { tool_choice: 'none' }));
  const b = await lastBody();
  check(!b.prompt.includes('get_weather'), 'tool_choice none: tools not in the prompt');
  check(none.calls.length === 0 && none.content.includes('get_weather'), 'tool_choice none: no tool_calls, the call stays visible as content', none);

  let before = (await stats()).requests;
  const req = await whole(c, ask('complies_on_retry', { tool_choice: 'required' }));
  check(isDeepStrictEqual(callsOf(req.calls), [['get_weather', { city: 'Paris' }]]) && req.finish === 'tool_calls', 'tool_choice required: retried once with a stricter instruction', req);
  check((await stats()).requests - before === 2, 'tool_choice required: exactly one retry');
  const g = (await lastBody()).grammar ?? '';
  check(g.startsWith('root ::= ') && g.includes('"\\"get_weather\\""') && g.includes('"<tool_call>"'), 'tool_choice required: llama.cpp gets the dialect\'s GBNF', g.slice(0, 300));
  await c.chat.completions.create(ask('plain'));
  check(!('grammar' in (await lastBody())), 'tool_choice auto: no grammar');
  await c.chat.completions.create(ask('hermes_text_and_call', { tool_choice: { type: 'function', function: { name: 'get_time' } } })).catch(() => {});
  const gn = (await lastBody()).grammar ?? '';
  check(gn.includes('"\\"get_time\\""') && !gn.includes('"\\"get_weather\\""'), 'named tool_choice: the grammar allows only that tool', gn.slice(0, 300));
  // A backend without a grammar (openai kind, --backend-grammar auto): streams are checked first.
  const reqS = await streamed(client(gwO.port), ask('complies_on_retry', { tool_choice: 'required' }));
  check(isDeepStrictEqual(callsOf(reqS.calls), [['get_weather', { city: 'Paris' }]]), 'tool_choice required (stream, no grammar): the complying answer', reqS);
  check(!('grammar' in (await lastBody())) && !('ebnf' in (await lastBody())) && !('structured_outputs' in (await lastBody())), 'openai kind by default: no grammar field');
  // Cut by max_tokens (here before "arguments", as a grammar-bound answer can be): the answer asked
  // for, finish_reason "length", no retry.
  before = (await stats()).requests;
  const cut = await c.chat.completions.create(ask('cut_before_arguments', { tool_choice: 'required' }));
  check(cut.choices[0].finish_reason === 'length' && !cut.choices[0].message.tool_calls && (await stats()).requests - before === 1,
    'tool_choice required, answer cut by max_tokens: 200 length, not retried', [cut.choices[0], (await stats()).requests - before]);
  before = (await stats()).requests;
  const cutText = await c.chat.completions.create(ask('length', { tool_choice: 'required' }));
  check(cutText.choices[0].finish_reason === 'length' && (await stats()).requests - before === 1,
    'tool_choice required, text cut by max_tokens: 200 length, not retried', [cutText.choices[0], (await stats()).requests - before]);
  await expectError('tool_choice required, never complies', c.chat.completions.create(ask('never_complies', { tool_choice: 'required' })), 502, 'tool_choice_not_honoured');
  await expectError('tool_choice required, never complies (stream, no grammar)', streamed(client(gwO.port), ask('never_complies', { tool_choice: 'required' })), 502, 'tool_choice_not_honoured');
  const named = await whole(c, ask('wrong_tool', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
  check(isDeepStrictEqual(callsOf(named.calls), [['get_weather', { city: 'Paris' }]]), 'named tool_choice: a call to another tool is retried', named);
  const okNamed = await whole(c, ask('hermes_text_and_call', { tool_choice: { type: 'function', function: { name: 'get_weather' } } }));
  check(okNamed.calls.length === 1, 'named tool_choice: a complying answer passes', okNamed);

  const one = await whole(c, ask('hermes_two', { parallel_tool_calls: false }));
  const oneS = await streamed(c, ask('hermes_two', { parallel_tool_calls: false }));
  check(isDeepStrictEqual(callsOf(one.calls), [['get_weather', { city: 'Paris' }]]) && one.finish === 'tool_calls', 'parallel_tool_calls false: one call', one);
  check(isDeepStrictEqual(callsOf(oneS.calls), [['get_weather', { city: 'Paris' }]]) && oneS.finish === 'tool_calls', 'parallel_tool_calls false (stream): one call', oneS);
}

// 4b. tool_choice on a backend that takes the grammar: the call streams as generated (the backend
// below sends the call, then neither ends the generation nor sends more; the client must get the
// call meanwhile), the
// grammar bounds the number of calls, --backend-timeout is the longest silence (not the whole
// generation), a non-streaming client that leaves cancels the generation, and every grammar form.
{
  const r = await fetch(`http://127.0.0.1:${gwL.port}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...ask('call_then_hang', { tool_choice: 'required' }), stream: true }), signal: AbortSignal.timeout(20_000) });
  const reader = r.body.getReader();
  let sse = '';
  try {
    while (!sse.includes('"tool_calls"')) { const { value, done } = await reader.read(); if (done) break; sse += new TextDecoder().decode(value); }
  } catch { /* timed out: checked below */ }
  check(r.status === 200 && sse.includes('"name":"get_weather"'), 'tool_choice required with a grammar: the call streams while the backend still generates', sse.slice(0, 300));
  reader.cancel().catch(() => {});

  const one = (await lastBody()).grammar ?? '';
  await client(gwL.port).chat.completions.create(ask('hermes_two', { tool_choice: 'required', parallel_tool_calls: false }));
  const single = (await lastBody()).grammar ?? '';
  check(/\{0,7\}/.test(one) && !/\{0,7\}/.test(single) && !/\)[*+]/.test(single.split('\n')[0]),
    'tool_choice grammar: at most 8 calls, exactly one with parallel_tool_calls false', [one.split('\n')[0], single.split('\n')[0]]);

  const gwT = await gateway(beUrl, 'llamacpp', ['--backend-timeout', '1']);
  const slow = await whole(client(gwT.port), ask('slow_call', { tool_choice: 'required' }));
  check(isDeepStrictEqual(callsOf(slow.calls), [['get_weather', { city: 'Paris' }]]), '--backend-timeout 1: a 3 s generation with short pauses completes (non-streaming tool_choice)', slow);

  const before = (await stats()).cancelled;
  const ac = new AbortController();
  const pending = fetch(`http://127.0.0.1:${gwL.port}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(ask('slow_stream')), signal: ac.signal }).catch(() => {});
  await new Promise((res) => setTimeout(res, 400));
  ac.abort();
  await pending;
  let cancelled = false;
  for (let i = 0; i < 100 && !cancelled; i++) { await new Promise((res) => setTimeout(res, 100)); cancelled = (await stats()).cancelled > before; }
  check(cancelled, 'client disconnect (not streaming): the backend generation was cancelled');

  for (const [form, field] of [['llamacpp', (b) => b.grammar], ['vllm', (b) => b.structured_outputs?.grammar], ['sglang', (b) => b.ebnf]]) {
    const gw = await gateway(`${beUrl}/v1`, 'openai', ['--backend-grammar', form]);
    await client(gw.port).chat.completions.create(ask('hermes_two', { tool_choice: 'required' }));
    const b = await lastBody();
    const g = field(b) ?? '';
    const others = ['grammar', 'ebnf', 'structured_outputs'].filter((k) => k in b).length;
    check(g.startsWith('root ::= ') && g.includes('"<tool_call>"') && others === 1, `openai kind, --backend-grammar ${form}: the grammar in that form only`, Object.keys(b));
  }
}

// 4c. tool_choice on Ollama (no grammar, but a JSON schema in `format`): the calls are asked for as
// {"tool_calls": [{"name", "arguments"}]} under the tools' schemas and read back as calls, streamed
// as generated; with --backend-grammar none, checked and retried as for other backends without one.
{
  for (const [label, gw] of [['ollama', gwG], ['ollama-chat', gwC]]) {
    const r = await whole(client(gw.port), ask('json_calls', { tool_choice: 'required' }));
    const b = await lastBody();
    check(isDeepStrictEqual(callsOf(r.calls), [['get_weather', { city: 'Paris' }]]) && r.finish === 'tool_calls', `${label} tool_choice required: the JSON calls read back`, r);
    const f = b.format ?? {};
    const items = f.properties?.tool_calls?.items;
    const names = (items?.anyOf ?? [items]).map((i) => i?.properties?.name?.enum?.[0]);
    check(f.type === 'object' && isDeepStrictEqual(f.required, ['tool_calls']) && isDeepStrictEqual(names, TOOLS.map((t) => t.function.name)) &&
          isDeepStrictEqual(items.anyOf[0].properties.arguments, TOOLS[0].function.parameters) && f.properties.tool_calls.maxItems === 8,
          `${label} tool_choice required: format is the calls' JSON schema`, f);
    const text = JSON.stringify(b.messages ?? b.prompt);
    check(text.includes('{\\"tool_calls\\"'), `${label} tool_choice required: the prompt asks for the JSON object`, text.slice(-300));
    const s = await streamed(client(gw.port), ask('json_calls', { tool_choice: { type: 'function', function: { name: 'get_weather' } }, parallel_tool_calls: false }));
    const fn = (await lastBody()).format ?? {};
    check(isDeepStrictEqual(callsOf(s.calls), [['get_weather', { city: 'Paris' }]]) && s.finish === 'tool_calls', `${label} named tool_choice (stream): the call`, s);
    check(fn.properties?.tool_calls?.maxItems === 1 && fn.properties.tool_calls.items?.properties?.name?.enum?.[0] === 'get_weather',
          `${label} named tool_choice, parallel_tool_calls false: one call of that tool only`, fn);
  }
  const before = (await stats()).requests;
  const plainG = await whole(client(gwG.port), ask('hermes_two'));
  check(!('format' in (await lastBody())) && plainG.calls.length === 2, 'ollama tool_choice auto: no format, the dialect parses the answer', plainG);
  const gwN = await gateway(beUrl, 'ollama', ['--backend-grammar', 'none']);
  const n = await whole(client(gwN.port), ask('complies_on_retry', { tool_choice: 'required' }));
  check(isDeepStrictEqual(callsOf(n.calls), [['get_weather', { city: 'Paris' }]]) && !('format' in (await lastBody())),
        'ollama --backend-grammar none: no format, checked and retried', n);
  check((await stats()).requests - before === 3, 'ollama --backend-grammar none: exactly one retry');
}

// 5. Multi-turn: a tool result rendered by the template.
{
  const c = client(gwL.port);
  await c.chat.completions.create({
    model: SERVED, tools: TOOLS, messages: [
      { role: 'user', content: 'Weather? SCRIPT:plain' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'RESULT-sunny-21C' },
    ],
  });
  const b = await lastBody();
  check(b.prompt.includes('<tool_response>\nRESULT-sunny-21C\n</tool_response>'), 'multi-turn: tool result in the template\'s form', b.prompt.slice(-300));
}

// 6. ReAct (when the react dialect is in this build).
{
  let gw = null;
  try { gw = await gateway(beUrl, 'llamacpp', ['--dialect', 'react']); } catch { console.log('note: no react dialect in this build, ReAct cases skipped'); }
  if (gw) {
    await compareScript('react', client(gw.port), 'react_one');
    const b = await lastBody();
    check(Array.isArray(b.stop) && b.stop.includes('Observation:'), 'react: stops at Observation:', b.stop);
    await client(gw.port).chat.completions.create({
      model: SERVED, tools: TOOLS, messages: [
        { role: 'user', content: 'Weather? SCRIPT:plain' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
    });
    const b2 = await lastBody();
    check(b2.prompt.includes('Action: get_weather') && b2.prompt.includes('Observation: sunny'), 'react: the tool result rendered as the observation', b2.prompt.slice(-400));
  }
}

// 7. Malformed requests: status and the JSON path in error.param.
{
  const u = { role: 'user', content: 'hi SCRIPT:plain' };
  const tool = (f) => ({ type: 'function', function: f });
  const cases = [
    ['not JSON', '{"messages": [', 400, null],
    ['array body', '[]', 400, null],
    ['no messages', {}, 400, 'messages'],
    ['messages not an array', { messages: 'hi' }, 400, 'messages'],
    ['empty messages', { messages: [] }, 400, 'messages'],
    ['message not an object', { messages: [1] }, 400, 'messages[0]'],
    ['role missing', { messages: [{ content: 'x' }] }, 400, 'messages[0].role'],
    ['unknown role', { messages: [{ role: 'robot', content: 'x' }] }, 400, 'messages[0].role'],
    ['arguments a number', { messages: [u, { role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: 5 } }] }] }, 400, 'messages[1].tool_calls[0].function.arguments'],
    ['tools not an array', { messages: [u], tools: {} }, 400, 'tools'],
    ['tool without function', { messages: [u], tools: [{ type: 'function' }] }, 400, 'tools[0].function'],
    ['tool without name', { messages: [u], tools: [tool({ parameters: {} })] }, 400, 'tools[0].function.name'],
    ['tool name with a space', { messages: [u], tools: [tool({ name: 'get weather' })] }, 400, 'tools[0].function.name'],
    ['tool parameters a string', { messages: [u], tools: [tool({ name: 'f', parameters: 'x' })] }, 400, 'tools[0].function.parameters'],
    ['tool_choice unknown word', { messages: [u], tools: TOOLS, tool_choice: 'sometimes' }, 400, 'tool_choice'],
    ['tool_choice unknown function', { messages: [u], tools: TOOLS, tool_choice: { type: 'function', function: { name: 'nope' } } }, 400, 'tool_choice.function.name'],
    ['tool_choice required without tools', { messages: [u], tool_choice: 'required' }, 400, 'tool_choice'],
    ['stream not a boolean', { messages: [u], stream: 'yes' }, 400, 'stream'],
    ['temperature out of range', { messages: [u], temperature: 3 }, 400, 'temperature'],
    ['temperature a string', { messages: [u], temperature: 'hot' }, 400, 'temperature'],
    ['max_tokens zero', { messages: [u], max_tokens: 0 }, 400, 'max_tokens'],
    ['max_tokens fractional', { messages: [u], max_tokens: 1.5 }, 400, 'max_tokens'],
    ['stop with a number', { messages: [u], stop: ['a', 1] }, 400, 'stop[1]'],
    ['n = 2', { messages: [u], n: 2 }, 400, 'n'],
    ['parallel_tool_calls a string', { messages: [u], parallel_tool_calls: 'no' }, 400, 'parallel_tool_calls'],
    ['chat_template_kwargs an array', { messages: [u], chat_template_kwargs: [] }, 400, 'chat_template_kwargs'],
    ['nesting too deep', `{"messages": [${'['.repeat(200)}${']'.repeat(200)}]}`, 400, null],
    ['too many messages', { messages: Array(2049).fill(u) }, 400, 'messages'],
    ['too many tools', { messages: [u], tools: Array(513).fill(tool({ name: 'f' })) }, 400, 'tools'],
    // What the OpenAI API refuses (issue 11).
    ['tool message without tool_call_id', { messages: [u, { role: 'tool', content: 'r' }] }, 400, 'messages[1].tool_call_id'],
    ['tool message answering no call', { messages: [u, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] }, { role: 'tool', tool_call_id: 'call_9', content: 'r' }] }, 400, 'messages[2].tool_call_id'],
    ['unknown content part type', { messages: [{ role: 'user', content: [{ type: 'txt', text: 'a' }] }] }, 400, 'messages[0].content[0].type'],
    ['text part without text', { messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 400, 'messages[0].content[0].text'],
    ['image part on a text model', { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] }, 400, 'messages[0].content[0].type'],
    ['tool schema with a bad pattern', { messages: [u], tools: [tool({ name: 'f', parameters: { type: 'object', properties: { a: { type: 'string', pattern: '([' } } } })] }, 400, 'tools[0].function.parameters.properties.a.pattern'],
    ['tool schema type 123', { messages: [u], tools: [tool({ name: 'f', parameters: { type: 123 } })] }, 400, 'tools[0].function.parameters.type'],
    ['lone surrogate escape', '{"messages": [{"role": "user", "content": "a \\ud800 b"}]}', 400, 'messages[0].content'],
    ['chat_template in chat_template_kwargs', { messages: [u], chat_template_kwargs: { chat_template: '{{ 1 }}' } }, 400, 'chat_template_kwargs.chat_template'],
    ['NaN', '{"messages": [{"role": "user", "content": "x"}], "temperature": NaN}', 400, 'temperature'],
    ['Infinity deep inside', '{"messages": [{"role": "user", "content": "x"}], "metadata": {"a": [-Infinity]}}', 400, 'metadata.a[0]'],
    ['top_logprobs without logprobs', { messages: [u], top_logprobs: 2 }, 400, 'top_logprobs'],
    ['response_format while tools are shown', { messages: [u], tools: TOOLS, response_format: { type: 'json_object' } }, 400, 'response_format'],
    ['response_format schema not a schema', { messages: [u], response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'obj' } } } }, 400, 'response_format.json_schema.schema.type'],
  ];
  for (const [label, body, status, param] of cases) {
    const r = await raw(gwL.port, typeof body === 'string' ? body : JSON.stringify(body));
    const e = r.j?.error;
    check(r.status === status && e && typeof e.message === 'string' && e.message.length > 0 && 'type' in e && 'code' in e && (e.param ?? null) === param,
      `malformed: ${label}`, { status: r.status, error: e });
  }
  const big = await raw(gwL.port, JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(5 << 20) }] }));
  check(big.status === 413 && big.j?.error?.code === 'request_too_large', 'malformed: body over 4 MiB -> 413', { status: big.status, j: big.j });
  const nf = await raw(gwL.port, '', { method: 'GET', path: '/v1/nothing' });
  check(nf.status === 404 && nf.j?.error?.code === 'not_found', 'unknown route -> 404', nf);
}

// 8. Backend failures.
{
  const dead = await gateway(`http://127.0.0.1:${await freePort()}`, 'llamacpp');
  const refused = await expectError('backend refused', client(dead.port).chat.completions.create(ask('plain')), 502, 'backend_unreachable');
  // The OS's reason, not cpp-httplib's "Connection": what the user can act on.
  check(/^backend unreachable: connection refused at http:\/\/127\.0\.0\.1:\d+$/.test(refused?.error?.message ?? ''),
    'backend refused: the message names the reason and the address', { message: refused?.error?.message });
  await expectError('backend refused (stream): an HTTP status, nothing was sent yet', streamed(client(dead.port), ask('plain')), 502, 'backend_unreachable');
  const c = client(gwL.port);
  await expectError('backend garbage', c.chat.completions.create(ask('garbage')), 502, 'backend_invalid_response');
  // A 200 whose body is not an SSE stream is an invalid response, streaming or not (the backend is always asked to stream).
  await expectError('backend garbage (stream)', streamed(c, ask('garbage')), 502, 'backend_invalid_response');
  await expectError('backend HTTP 500 (stream)', streamed(c, ask('server_error')), 502, 'backend_error');
  await expectError('backend HTTP 500', c.chat.completions.create(ask('server_error')), 502, 'backend_error');
  await expectError('backend HTTP 400', c.chat.completions.create(ask('backend_400')), 400, 'backend_rejected');
  // A real llama-server's stream for a generation cut inside a UTF-8 character: its partial records,
  // then its own chat parser's error (tests/gateway/recorded/README.md). The answer is what it
  // streamed, finish_reason length, and a backend_error_after_output warning; not a 502 losing the text.
  const utf8Cut = readFileSync(`${root}/tests/gateway/recorded/llamacpp_completion_utf8_cut.sse`, 'utf8')
    .split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)));
  const utf8CutText = utf8Cut.map((r) => r.content ?? '').join('');
  const utf8CutTokens = Math.max(...utf8Cut.map((r) => r.tokens_predicted ?? 0));
  for (const [label, run] of [['whole', () => whole(c, ask('utf8_cut'))], ['stream', () => streamed(c, ask('utf8_cut'))]]) {
    const r = await run();
    check(utf8CutText.length > 0 && r.content === utf8CutText && r.finish === 'length' &&
      r.warnings?.length === 1 && r.warnings[0].kind === 'backend_error_after_output' && /Content-only/.test(r.warnings[0].detail) &&
      (label === 'stream' || r.usage?.completion_tokens === utf8CutTokens),
      `llama-server fails after the generation (${label}): the text it streamed, finish_reason length, a warning`, r);
  }
  await expectError('backend dies mid-stream', streamed(c, ask('die_midstream')), undefined, 'backend_connection_lost');
  const slow = await gateway(beUrl, 'llamacpp', ['--backend-timeout', '0.5']);
  await expectError('backend slower than --backend-timeout', client(slow.port).chat.completions.create(ask('sleepy')), 504, 'backend_timeout');

  const short = await gateway(beUrl, 'llamacpp', ['--request-timeout', '0.5', '--max-output-bytes', '12']);
  await expectError('request over --request-timeout (stream)', streamed(client(short.port), ask('slow_stream')), undefined, 'backend_timeout');
  const cut = await whole(client(short.port), ask('plain'));
  check(cut.finish === 'length' && cut.content.length <= 12 && 'Hello there, how can I help?'.startsWith(cut.content), 'output over --max-output-bytes: cut with finish_reason length', cut);

  // A backend process killed while it streams: the client gets an error event, the gateway lives on.
  const be2 = await backend();
  const gwK = await gateway(`http://127.0.0.1:${be2.port}`, 'llamacpp');
  const s = await client(gwK.port).chat.completions.create({ ...ask('hang_midstream'), stream: true });
  let got = '', error = null;
  try {
    for await (const chunk of s) {
      got += chunk.choices[0]?.delta?.content ?? '';
      if (got.length >= 8 && be2.proc.exitCode === null) be2.proc.kill('SIGKILL');
    }
  } catch (e) { error = e; }
  check(got === 'Some wor', 'backend killed: what was generated before reached the client', got);
  check(error instanceof APIError && (error.code ?? error.error?.code) === 'backend_connection_lost', 'backend killed mid-stream: error event', String(error));
  check((await get(gwK.port, '/live')).status === 200, 'backend killed: gateway still alive');
  check((await get(gwK.port, '/health')).status === 503, 'backend killed: /health says the backend is gone');
  await expectError('backend killed: next request', client(gwK.port).chat.completions.create(ask('plain')), 502, 'backend_unreachable');
}

// 9. Client disconnect cancels the backend request.
{
  const before = (await stats()).cancelled;
  const ac = new AbortController();
  const r = await fetch(`http://127.0.0.1:${gwL.port}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...ask('slow_stream'), stream: true }), signal: ac.signal });
  const reader = r.body.getReader();
  await reader.read();
  ac.abort();
  let cancelled = false;
  for (let i = 0; i < 100 && !cancelled; i++) {  // at most ~10 s
    await new Promise((res) => setTimeout(res, 100));
    cancelled = (await stats()).cancelled > before;
  }
  check(cancelled, 'client disconnect: the backend stream was cancelled');
  let idle = false;
  for (let i = 0; i < 100 && !idle; i++) {
    await new Promise((res) => setTimeout(res, 100));
    idle = /toolchat_active_streams 0\n/.test(await (await get(gwL.port, '/metrics')).text());
  }
  check(idle, 'client disconnect: no stream left active');
}

// 10. 200 concurrent streaming clients.
{
  const c = client(gwL.port);
  const results = await Promise.allSettled(Array.from({ length: 200 }, () => streamed(c, ask('hermes_two'))));
  const good = results.filter((r) => r.status === 'fulfilled' && isDeepStrictEqual(callsOf(r.value.calls), scripts.hermes_two.expect.calls)).length;
  check(good === 200, '200 concurrent streams all assembled the right calls', { good, firstError: String(results.find((r) => r.status === 'rejected')?.reason) });
}

// 11. Models, health, metrics.
{
  const models = await client(gwL.port).models.list();
  check(models.data.length === 1 && models.data[0].id === 'qwen2.5', '/v1/models', models.data);
  const h = await (await get(gwL.port, '/health')).json();
  check(h.status === 'ok' && h.dialect === 'hermes', '/health', h);
  const m = await (await get(gwL.port, '/metrics')).text();
  check(/toolchat_requests_total\{endpoint="chat_completions",stream="true"\} [1-9]/.test(m) && /toolchat_errors_total\{kind="tool_choice_not_honoured",status="502"\} [1-9]/.test(m) &&
    /toolchat_request_seconds_bucket\{stream="false",le="\+Inf"\} [1-9]/.test(m) && /toolchat_completion_tokens_total [1-9]/.test(m), '/metrics counters and histograms', m.slice(0, 400));
}

// 12. The C++ client's example agent (include/toolchat/agent.hpp) against the same backend.
if (args.example) {
  const out = await new Promise((resolve) => execFile(args.example, ['--model', MODEL, '--backend', beUrl, 'Weather in Paris? SCRIPT:agent_demo'],
    { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code ?? 1 : 0, stdout, stderr })));
  check(out.code === 0 && out.stdout.includes('answer after 2 model call(s): It is 18 °C and sunny in Paris.') && out.stdout.includes('"content": "Paris: 18 °C, sunny"'),
    'example_agent: call run, result fed back, final answer', out);
}

// 13. The gateway as OpenAI clients and operators expect it (issue 11).
{
  const c = client(gwL.port);
  const testStart = Math.floor(Date.now() / 1000);
  const fromBackend = async () => (await get(be.port, '/_last_auth')).text();

  // A second server on a port in use is refused, with the port named.
  const second = await new Promise((resolve) => execFile(args.toolchat, ['serve', '--model', MODEL, '--backend', beUrl, '--port', String(gwL.port)],
    { timeout: 15_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr })));
  check(typeof second.code === 'number' && second.code !== 0 && second.stderr.includes(`port ${gwL.port} is in use`), 'serve on a port in use: refused, exit non-zero', second);

  // developer = system for a template without a developer role.
  await c.chat.completions.create({ model: SERVED, messages: [{ role: 'developer', content: 'DEV-RULES' }, { role: 'user', content: 'hi SCRIPT:plain' }] });
  const dev = (await lastBody()).prompt;
  check(dev.startsWith('<|im_start|>system\nDEV-RULES<|im_end|>\n<|im_start|>user\nhi SCRIPT:plain'), 'developer role rendered as the system message', dev.slice(0, 200));

  // Without tools, and with tool_choice none, the answer is the model's text as written.
  const plainAsk = (script, extra = {}) => ({ model: SERVED, messages: [{ role: 'user', content: `SCRIPT:${script}` }], ...extra });
  for (const [label, params, text] of [
    ['no tools', plainAsk('hermes_two'), scripts.hermes_two.text],
    ['tool_choice none', ask('hermes_text_and_call', { tool_choice: 'none' }), scripts.hermes_text_and_call.text],
  ]) {
    const w = await whole(c, params), s = await streamed(c, params);
    check(w.calls.length === 0 && w.content === text && w.finish === 'stop', `${label}: no tool_calls, the text as written`, w);
    check(s.calls.length === 0 && s.content === text && s.finish === 'stop', `${label} (stream): no tool_calls, the text as written`, s);
  }

  // response_format: sent to each backend under its own field, and the answer checked.
  const schema = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'number' } }, required: ['city'], additionalProperties: false };
  const rfSchema = { type: 'json_schema', json_schema: { name: 'weather', schema, strict: true } };
  const j = await whole(c, plainAsk('json_answer', { response_format: rfSchema }));
  check(j.content && JSON.parse(j.content).city === 'Paris', 'response_format json_schema: the answer', j);
  check(isDeepStrictEqual((await lastBody()).json_schema, schema), 'response_format: llama.cpp gets json_schema', await lastBody());
  const js = await streamed(c, plainAsk('json_answer', { response_format: rfSchema }));
  check(js.content === scripts.json_answer.text, 'response_format (stream): the answer', js);
  await client(gwO.port).chat.completions.create(plainAsk('json_answer', { response_format: { type: 'json_object' } }));
  check(isDeepStrictEqual((await lastBody()).response_format, { type: 'json_object' }), 'response_format: an OpenAI backend gets response_format', await lastBody());
  await client(gwG.port).chat.completions.create(plainAsk('json_answer', { response_format: { type: 'json_object' } }));
  check((await lastBody()).format === 'json', 'response_format: Ollama gets format "json"', await lastBody());
  await client(gwC.port).chat.completions.create(plainAsk('json_answer', { response_format: rfSchema }));
  check(isDeepStrictEqual((await lastBody()).format, schema), 'response_format: Ollama chat gets the schema as format', await lastBody());
  await expectError('response_format: an answer that is not JSON', c.chat.completions.create(plainAsk('not_json', { response_format: { type: 'json_object' } })), 502, 'response_format_not_honoured');
  await expectError('response_format: an answer against the schema', c.chat.completions.create(plainAsk('json_wrong', { response_format: rfSchema })), 502, 'response_format_not_honoured');
  await expectError('response_format (stream): an answer against the schema', streamed(c, plainAsk('json_wrong', { response_format: rfSchema })), 502, 'response_format_not_honoured');

  // Fields the gateway cannot honour: 400 naming them, through the client.
  await expectError('n = 2', c.chat.completions.create(plainAsk('plain', { n: 2 })), 400, 'unsupported_parameter');
  // logprobs, penalties and logit_bias go to backends that take them, under their names there.
  await c.chat.completions.create(plainAsk('plain', { logprobs: true, top_logprobs: 2, frequency_penalty: 0.5, presence_penalty: -0.5, logit_bias: { '42': -100 } }));
  {
    const b = await lastBody();
    check(b.n_probs === 2 && b.frequency_penalty === 0.5 && b.presence_penalty === -0.5 && b.logit_bias?.['42'] === -100,
      'logprobs / penalties / logit_bias reach llama-server as n_probs, frequency_penalty, presence_penalty, logit_bias', b);
  }
  await expectError('logprobs: the ollama backend has none', client(gwG.port).chat.completions.create(plainAsk('plain', { logprobs: true })), 400, 'unsupported_parameter');
  await expectError('logit_bias: the ollama backend has none', client(gwC.port).chat.completions.create(plainAsk('plain', { logit_bias: { '42': -100 } })), 400, 'unsupported_parameter');
  await expectError('image part', c.chat.completions.create({ model: SERVED, messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }] }), 400, 'unsupported_content_part');
  const ignored = await whole(c, plainAsk('plain', { user: 'u-1', store: false, metadata: { k: 'v' } }));
  check(ignored.content === scripts.plain.text, 'user, store, metadata: accepted and ignored', ignored);
  const noModel = await raw(gwL.port, JSON.stringify({ messages: [{ role: 'user', content: 'SCRIPT:plain' }] }));
  check(noModel.status === 200 && noModel.j?.model === SERVED, 'no model: the served model', noModel);

  // model: 404 for other names; aliases; GET /v1/models/{id}; created is the start time.
  await expectError('unknown model', c.chat.completions.create({ ...plainAsk('plain'), model: 'gpt-4o' }), 404, 'model_not_found');
  const one = await c.models.retrieve(SERVED);
  check(one.id === SERVED && one.object === 'model', 'GET /v1/models/{id}', one);
  await expectError('GET /v1/models/{unknown}', c.models.retrieve('gpt-4o'), 404, 'model_not_found');
  const list1 = await c.models.list();
  await new Promise((res) => setTimeout(res, 1100));
  const list2 = await c.models.list();
  check(list1.data[0].created === list2.data[0].created && list1.data[0].created <= testStart && list1.data[0].created > testStart - 600,
    'models: created is the start time (fixed, before this section)', [list1.data[0].created, list2.data[0].created, testStart]);
  const gwA = await gateway(beUrl, 'llamacpp', ['--model-name', 'main-name', '--model-name', 'alias-b']);
  const ca = client(gwA.port);
  check(isDeepStrictEqual((await ca.models.list()).data.map((m) => m.id), ['main-name', 'alias-b']), 'repeated --model-name: listed in order');
  const viaAlias = await whole(ca, { ...plainAsk('plain'), model: 'alias-b' });
  check(viaAlias.model === 'alias-b' && viaAlias.content === scripts.plain.text, 'a request for an alias is served under that name', viaAlias);
  await expectError('the path name is no longer served once --model-name is given', ca.chat.completions.create(plainAsk('plain')), 404, 'model_not_found');

  // Keys, environment variables, the access log as JSON.
  const port = await freePort();
  const gwK = await start(args.toolchat, ['serve', '--model', MODEL, '--backend', beUrl, '--threads', '8'],
    { TOOLCHAT_PORT: String(port), TOOLCHAT_API_KEY: 'sekret', TOOLCHAT_BACKEND_API_KEY: 'backend-key', TOOLCHAT_LOG_FORMAT: 'json' });
  check(gwK.port === port, 'TOOLCHAT_PORT sets the port', [gwK.port, port]);
  const keyed = (key) => new OpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: key, maxRetries: 0, timeout: 30_000 });
  await expectError('wrong API key', keyed('sekreT').chat.completions.create(plainAsk('plain')), 401, 'invalid_api_key');
  await expectError('wrong API key: models too', keyed('x').models.list(), 401, 'invalid_api_key');
  const noKey = await raw(port, JSON.stringify(plainAsk('plain')));
  check(noKey.status === 401 && noKey.j?.error?.code === 'invalid_api_key', 'no API key: 401', noKey);
  const okKey = await whole(keyed('sekret'), plainAsk('plain'));
  check(okKey.content === scripts.plain.text, 'right API key: served', okKey);
  check(await fromBackend() === 'Bearer backend-key', 'TOOLCHAT_BACKEND_API_KEY sent to the backend', await fromBackend());
  check((await get(port, '/live')).status === 200, '/live needs no key');
  check((await get(port, '/health')).status === 200, '/health needs no key (load balancers probe it)');
  check((await get(port, '/metrics')).status === 401, '/metrics needs the key');
  const jsonLines = gwK.log().split('\n').filter((l) => l.startsWith('{'));
  const chatLine = jsonLines.map((l) => JSON.parse(l)).find((l) => l.status === 200 && l.path === '/v1/chat/completions');
  check(chatLine && /^chatcmpl-/.test(chatLine.id) && chatLine.prompt_tokens > 0 && chatLine.completion_tokens > 0 && chatLine.model === SERVED && typeof chatLine.seconds === 'number',
    'access log (json): one line per request with id, status, latency, tokens', jsonLines.slice(-3));
  check(jsonLines.some((l) => JSON.parse(l).status === 401), 'access log (json): refused requests are logged too', jsonLines);

  // A backend that needs a key: --backend-api-key on generation and on /health's probe.
  const beKeyed = await start(args.backend, ['--scripts', `${root}/tests/gateway/scripts.json`, '--port', '0', '--require-key', 'bk2']);
  for (const kind of ['llamacpp', 'openai']) {
    const url = `http://127.0.0.1:${beKeyed.port}${kind === 'openai' ? '/v1' : ''}`;
    const withKey = await gateway(url, kind, ['--backend-api-key', 'bk2']);
    const withoutKey = await gateway(url, kind);
    check((await get(withKey.port, '/health')).status === 200, `${kind}: /health probes the backend with --backend-api-key`);
    check((await whole(client(withKey.port), plainAsk('plain'))).content === scripts.plain.text, `${kind}: generation with --backend-api-key`);
    const hk = await get(withoutKey.port, '/health');
    const hkj = await hk.json();
    check(hk.status === 503 && /HTTP 401/.test(hkj.reason), `${kind}: /health 503 when the backend refuses the key`, [hk.status, hkj]);
    await expectError(`${kind}: a backend refusing the key`, client(withoutKey.port).chat.completions.create(plainAsk('plain')), 502, 'backend_auth_failed');
  }

  // The text access log, parser warnings in it and on the message.
  const trunc = await whole(c, ask('truncated_call'));
  check(trunc.calls.length === 0 && trunc.warnings?.[0]?.kind === 'truncated_call', 'parser warning on the message (toolchat_warnings)', trunc);
  const truncS = await streamed(c, ask('truncated_call'));
  check(truncS.warnings?.[0]?.kind === 'truncated_call', 'parser warning in the stream\'s finish chunk', truncS);
  // A line is written once its answer is complete, just after the client got the last byte: wait
  // (at most 10 s) for the stream's line to show up.
  const streamLine = / chatcmpl-\w+ POST \/v1\/chat\/completions 200 [\d.]+s model=qwen2\.5 stream=1 prompt_tokens=\d+ completion_tokens=\d+ finish=stop warnings=truncated_call$/m;
  for (let i = 0; i < 100 && !streamLine.test(gwL.log()); i++) await new Promise((res) => setTimeout(res, 100));
  const textLines = gwL.log().split('\n').filter((l) => l.includes(' POST /v1/chat/completions '));
  check(textLines.some((l) => / chatcmpl-\w+ POST \/v1\/chat\/completions 200 [\d.]+s model=qwen2\.5 stream=0 prompt_tokens=\d+ completion_tokens=\d+ finish=stop warnings=truncated_call$/.test(l)),
    'access log (text): the warning in the request\'s line', textLines.slice(-4));
  check(textLines.some((l) => streamLine.test(l)),
    'access log (text): a stream\'s line, written once it ended, with its tokens', textLines.slice(-4));

  // --quiet: no access log; --log-prompts: the rendered prompt and the raw output.
  const gwQ = await gateway(beUrl, 'llamacpp', ['--quiet', '--log-prompts']);
  await client(gwQ.port).chat.completions.create(plainAsk('hermes_two'));
  const qlog = gwQ.log();
  check(!/ POST \/v1\/chat\/completions /.test(qlog), '--quiet: no access log line', qlog.slice(-300));
  check(/--- prompt chatcmpl-\w+\n<\|im_start\|>system\n[^]*<\|im_start\|>user\nSCRIPT:hermes_two<\|im_end\|>\n<\|im_start\|>assistant\n\n--- end prompt/.test(qlog) &&
    qlog.includes(`--- output `) && qlog.includes(`${scripts.hermes_two.text}\n--- end output`), '--log-prompts: prompt and raw output', qlog.slice(-600));

  // CORS, 405, the read timeout.
  const gwX = await gateway(beUrl, 'llamacpp', ['--cors', 'https://app.example', '--read-timeout', '1']);
  const pre = await fetch(`http://127.0.0.1:${gwX.port}/v1/chat/completions`, { method: 'OPTIONS', headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' }, signal: AbortSignal.timeout(10_000) });
  check(pre.status === 204 && pre.headers.get('access-control-allow-origin') === 'https://app.example' && /Authorization/.test(pre.headers.get('access-control-allow-headers') ?? ''), '--cors: preflight', [pre.status, [...pre.headers]]);
  const post = await fetch(`http://127.0.0.1:${gwX.port}/v1/chat/completions`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(plainAsk('plain')), signal: AbortSignal.timeout(10_000) });
  check(post.status === 200 && post.headers.get('access-control-allow-origin') === 'https://app.example', '--cors: the header on answers');
  check((await get(gwL.port, '/health')).headers.get('access-control-allow-origin') === null, 'no --cors: no CORS header');
  const g405 = await raw(gwL.port, '', { method: 'GET' });
  check(g405.status === 405 && g405.j?.error?.code === 'method_not_allowed', 'GET on a POST route: 405', g405);
  const p405 = await raw(gwL.port, '{}', { path: '/v1/models' });
  check(p405.status === 405, 'POST on a GET route: 405', p405);
  // A client that sends part of its request and goes silent: 408 (or the connection closed).
  const slowClient = (text) => new Promise((resolve) => {
    const sock = connect(gwX.port, '127.0.0.1', () => sock.write(text));
    let got = '';
    const t = setTimeout(() => { sock.destroy(); resolve({ closed: false, got }); }, 15_000);
    const done = (closed) => { clearTimeout(t); sock.destroy(); resolve({ closed, got }); };
    sock.on('data', (d) => { got += d; if (/^HTTP\/1\.1 \d+[^]*\r\n\r\n\{[^]*\}$/.test(got)) done(false); });
    sock.on('close', () => done(true));
    sock.on('error', () => {});
  });
  const timedOut = (r) => (r.closed && r.got === '') || (/^HTTP\/1\.1 408 /.test(r.got) && /"code":"request_timeout"/.test(r.got));
  const slowBody = await slowClient('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"mess');
  check(timedOut(slowBody), 'a client slower than --read-timeout with its body: 408 (or closed)', slowBody);
  const slowHeaders = await slowClient('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n');
  check(timedOut(slowHeaders), 'a client slower than --read-timeout with its headers: 408 (or closed)', slowHeaders);

  // Backend 503: stays 503 with Retry-After (the backend's, or ours); backend errors are server_error.
  const busy = await fetch(`http://127.0.0.1:${gwL.port}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(plainAsk('busy')), headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(10_000) });
  const busyBody = await busy.json();
  check(busy.status === 503 && busy.headers.get('retry-after') === '7' && busyBody.error?.type === 'server_error', 'backend 503: 503 with its Retry-After', [busy.status, busy.headers.get('retry-after'), busyBody]);
  const busy2 = await fetch(`http://127.0.0.1:${gwL.port}/v1/chat/completions`, { method: 'POST', body: JSON.stringify(plainAsk('busy_plain')), headers: { 'Content-Type': 'application/json' }, signal: AbortSignal.timeout(10_000) });
  check(busy2.status === 503 && /^\d+$/.test(busy2.headers.get('retry-after') ?? ''), 'backend 503 without Retry-After: ours', [busy2.status, busy2.headers.get('retry-after')]);
  const dead = await gateway(`http://127.0.0.1:${await freePort()}`, 'llamacpp');
  const deadErr = await expectError('backend refused: server_error', client(dead.port).chat.completions.create(plainAsk('plain')), 502, 'backend_unreachable');
  check(deadErr?.type === 'server_error', 'backend errors have type server_error', deadErr?.type);
  const h = await get(dead.port, '/health');
  const hj = await h.json();
  check(h.status === 503 && hj.status === 'unavailable' && /unreachable/.test(hj.reason), '/health: 503 with the reason when the backend is down', [h.status, hj]);
  check((await get(dead.port, '/live')).status === 200, '/live: 200 while the backend is down');
  check((await get(gwL.port, '/health')).status === 200, '/health: 200 when the backend answers');

  // https backends: the certificate is verified; --backend-ca names the CA to trust.
  const dir = mkdtempSync(`${tmpdir()}/toolchat-tls-`);
  const made = await new Promise((resolve) => execFile('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`,
    '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { timeout: 30_000 }, (err) => resolve(!err)));
  if (!made) {
    console.log('note: openssl could not make a certificate; https backend cases skipped');
  } else {
    const tls = await start(args.backend, ['--scripts', `${root}/tests/gateway/scripts.json`, '--port', '0', '--tls-cert', `${dir}/cert.pem`, '--tls-key', `${dir}/key.pem`]);
    const untrusted = await gateway(`https://127.0.0.1:${tls.port}`, 'llamacpp');
    await expectError('https backend with an untrusted certificate', client(untrusted.port).chat.completions.create(plainAsk('plain')), 502, 'backend_tls_failed');
    check((await get(untrusted.port, '/health')).status === 503, 'https backend with an untrusted certificate: /health 503');
    const trusted = await gateway(`https://127.0.0.1:${tls.port}`, 'llamacpp', ['--backend-ca', `${dir}/cert.pem`, '--backend-api-key', 'over-tls']);
    const ok = await whole(client(trusted.port), plainAsk('plain'));
    check(ok.content === scripts.plain.text, 'https backend verified with --backend-ca', ok);
  }
  rmSync(dir, { recursive: true, force: true });
}

clearTimeout(overall);
console.log(`${checks - failures}/${checks} checks passed`);
cleanup();
process.exit(failures ? 1 : 0);
