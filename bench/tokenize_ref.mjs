#!/usr/bin/env node
// Hugging Face tokenizers (npm `tokenizers`) encode timing, the peer of tokenize_encode:
// node bench/tokenize_ref.mjs TOKENIZER TEXT_FILE REPEAT -> {"load_s", "load_cpu_s", "first_s", "encode_s", "encode_cpu_s", "tokens", "bytes"}
// (load_cpu_s: the CPU time of the process during Tokenizer.fromFile, which runs on the main thread)
import { createRequire } from 'node:module'
import fs from 'node:fs'
import path from 'node:path'
import url from 'node:url'

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..')
const require = createRequire(path.join(root, 'tests/tools/package.json'))
const { Tokenizer } = require('tokenizers')
const [file, textFile, repeatArg] = process.argv.slice(2)
const text = fs.readFileSync(textFile, 'utf8')
const repeat = Math.max(1, parseInt(repeatArg || '3', 10))
let t0 = process.hrtime.bigint()
const l0 = process.cpuUsage()
const tok = Tokenizer.fromFile(file)
const lc = process.cpuUsage(l0)
const loadS = Number(process.hrtime.bigint() - t0) / 1e9
const loadCpuS = (lc.user + lc.system) / 1e6
t0 = process.hrtime.bigint()
let enc = await tok.encode(text, null, { addSpecialTokens: false })
const firstS = Number(process.hrtime.bigint() - t0) / 1e9
// encode_cpu_s: the CPU time of the whole process (the encode runs on a libuv worker thread).
let best = Infinity
let bestCpu = Infinity
for (let r = 0; r < repeat; r++) {
  t0 = process.hrtime.bigint()
  const c0 = process.cpuUsage()
  enc = await tok.encode(text, null, { addSpecialTokens: false })
  const c = process.cpuUsage(c0)
  bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6)
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9)
}
console.log(JSON.stringify({ load_s: loadS, load_cpu_s: loadCpuS, first_s: firstS, encode_s: best, encode_cpu_s: bestCpu, tokens: enc.getIds().length, bytes: Buffer.byteLength(text) }))
