#!/usr/bin/env node
// Helper of tools/gen_tokenize_normalization.py: reads lines "FORM HEX_CODE_POINTS" on stdin
// (FORM one of NFC NFD NFKC NFKD LOWER) and prints, per line, the hex code points that Hugging
// Face tokenizers' normalizer of that form (npm `tokenizers`) makes of the text. LOWER is the
// Lowercase normalizer's mapping, reached through the BERT normalizer with lowercasing alone on
// (the binding has no Lowercase normalizer of its own; both call the same lowercase).
import { createRequire } from 'node:module'
import path from 'node:path'
import readline from 'node:readline'
import url from 'node:url'

const root = path.resolve(path.dirname(url.fileURLToPath(import.meta.url)), '..')
const require = createRequire(path.join(root, 'tests/tools/package.json'))
const tk = require('tokenizers')
const forms = {
  NFC: tk.nfcNormalizer(), NFD: tk.nfdNormalizer(), NFKC: tk.nfkcNormalizer(), NFKD: tk.nfkdNormalizer(),
  LOWER: tk.bertNormalizer({ cleanText: false, handleChineseChars: false, stripAccents: false, lowercase: true }),
}
const out = []
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity })
for await (const line of rl) {
  const [form, ...hex] = line.trim().split(' ')
  const s = String.fromCodePoint(...hex.map((h) => parseInt(h, 16)))
  const r = forms[form].normalizeString(s)
  out.push(Array.from(r).map((c) => c.codePointAt(0).toString(16)).join(' '))
  if (out.length >= 4096) { process.stdout.write(out.join('\n') + '\n'); out.length = 0 }
}
if (out.length) process.stdout.write(out.join('\n') + '\n')
