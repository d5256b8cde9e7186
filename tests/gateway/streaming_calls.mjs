// `toolchat serve` streams a tool call while the model writes it, and answers a call cut short by
// max_tokens by the one truncation rule (issue 12 §1, §2; docs/design.md §3.2 "a call cut short").
// A scripted backend (scripted_backend) plays the model:
//  1. a hermes call with a 4 KB string argument, sent in 8-byte pieces, after which the backend stops
//     sending halfway through the value and waits: the client must already hold the call's name and
//     the first part of the value (read as raw SSE with fetch) while the backend is still sending;
//  2. the same call cut by max_tokens (finish "length"): streamed, the call's name and partial
//     arguments then finish_reason "length"; whole, the call's text as content, no call,
//     finish_reason "length"; with tool_choice "required", a 200 (not a 502) with "length".
// Loopback only, every wait bounded (a bound to fail rather than hang, not a timing assertion).
//
//   node streaming_calls.mjs --toolchat BIN --backend BIN --root REPO
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

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

console.log(failures ? `${failures} check(s) failed` : 'ok');
cleanup();
process.exit(failures ? 1 : 0);
