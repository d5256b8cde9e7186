#!/usr/bin/env node
// The tokenizer reference: Hugging Face tokenizers' node binding (npm `tokenizers`, pinned in
// tests/tools/package.json). Reads JSON lines {"id", "text"} on stdin and writes, per line,
// {"id", "ids", "offsets", "ids_special", "decoded", "decoded_skip"}: the encoding without and
// with add_special_tokens (offsets of the former, in code points), and the decode of
// ids_special with skip_special_tokens false and true.
//
// Usage: node tests/tokenize/hf_reference.mjs TOKENIZER_JSON < lines.jsonl > out.jsonl
import { createRequire } from 'node:module'
import path from 'node:path'
import readline from 'node:readline'
import url from 'node:url'

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '../..')
const require = createRequire(path.join(root, 'tests/tools/package.json'))
const { Tokenizer } = require('tokenizers')

const file = process.argv[2]
if (!file) {
  process.stderr.write('usage: hf_reference.mjs TOKENIZER_JSON < lines.jsonl\n')
  process.exit(2)
}
const tok = Tokenizer.fromFile(file)
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
const out = []
const CHUNK = 256
let pending = []

async function flush() {
  if (!pending.length) return
  const texts = pending.map((r) => r.text)
  const plain = await tok.encodeBatch(texts, { addSpecialTokens: false })
  const special = await tok.encodeBatch(texts, { addSpecialTokens: true })
  const idsSpecial = special.map((e) => e.getIds())
  const decoded = await tok.decodeBatch(idsSpecial, false)
  const decodedSkip = await tok.decodeBatch(idsSpecial, true)
  pending.forEach((r, i) => {
    out.push(JSON.stringify({
      id: r.id, ids: plain[i].getIds(), offsets: plain[i].getOffsets(), ids_special: idsSpecial[i],
      decoded: decoded[i], decoded_skip: decodedSkip[i],
    }))
  })
  pending = []
  process.stdout.write(out.join('\n') + '\n')
  out.length = 0
}

for await (const line of rl) {
  if (!line.trim()) continue
  pending.push(JSON.parse(line))
  if (pending.length >= CHUNK) await flush()
}
await flush()
