// ctest gbnf_crosscheck (tests/crosscheck/gbnf_crosscheck.cpp): every *.gbnf file in a folder is
// loaded by llama.cpp's own grammar parser, through node-llama-cpp's prebuilt binding (CPU only, no
// model needed). Prints one JSON line per file: {"file", "ok", "error"}. Exit 77 when the binding
// cannot be loaded (ctest: skipped).
//   node gbnf_check.mjs DIR
import fs from "node:fs";
import path from "node:path";

let getLlama, LlamaGrammar;
try {
  ({getLlama, LlamaGrammar} = await import("node-llama-cpp"));
} catch (e) {
  console.error(`gbnf_check: node-llama-cpp is not installed (${e.message})`);
  process.exit(77);
}
// llama.cpp prints why it refused a grammar on stderr (left to the test's output).
let llama;
try {
  llama = await getLlama({gpu: false, build: "never", progressLogs: false, logLevel: "error"});
} catch (e) {
  console.error(`gbnf_check: llama.cpp binding cannot be loaded (${e.message})`);
  process.exit(77);
}

const dir = process.argv[2];
for (const name of fs.readdirSync(dir).filter((n) => n.endsWith(".gbnf")).sort()) {
  const grammar = fs.readFileSync(path.join(dir, name), "utf8");
  try {
    new LlamaGrammar(llama, {grammar});
    console.log(JSON.stringify({file: name, ok: true}));
  } catch (e) {
    console.log(JSON.stringify({file: name, ok: false, error: String(e.message || e)}));
  }
}
await llama.dispose();
