// Validates Mermaid pictures with the real Mermaid parser (the version
// package-lock.json pins): every *.mmd file under the directories given.
// Beyond parsing, it checks what a hostile name must never achieve: every
// node and box has a generated id (n0, k0, s0, legend), no node has a
// style, a link, a click callback or a tooltip, and the only classes are
// the fixed ones below (replaced and deleted nodes' colours), defined
// exactly so, on `class` lines that name generated ids only. It measures each picture against the limits Mermaid renders
// within: its length against maxTextSize (50,000 characters: parsing does
// not check it, rendering shows an error instead) and its edges against
// maxEdges (500). A NAME.expect.json beside NAME.mmd ({"vertices": N, "texts":
// [...]}) pins the node count and labels that must read as plain text.
// Usage: node check.mjs DIR...   (exit 1 on the first kind of failure)
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';

// Mermaid needs a DOM even to parse (its sanitizer loads with it).
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false, securityLevel: 'strict' });
// The limits GitHub's renderer keeps to: Mermaid's defaults.
const { maxTextSize, maxEdges } = mermaid.mermaidAPI.getConfig();
const version = JSON.parse(readFileSync(new URL('./node_modules/mermaid/package.json', import.meta.url))).version;

// The fixed class definitions a picture may have, and nothing else:
// internal/blast's ClassDefs (a Go test holds the two equal).
const allowedClasses = new Map([
  ['replaced', 'classDef replaced fill:#fde68a,stroke:#92400e,color:#1f2937'],
  ['deleted', 'classDef deleted fill:#fecaca,stroke:#991b1b,color:#1f2937'],
]);

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p));
    else if (name.endsWith('.mmd')) out.push(p);
  }
  return out;
}

// decode turns the flowchart db's entity placeholders back into characters.
const decode = (s) => s.replace(/ﬂ°°(\d+)¶ß/g, (_, n) => String.fromCodePoint(Number(n))).replace(/ﬂ°(\w+)¶ß/g, '&$1;');

async function check(path) {
  const src = readFileSync(path, 'utf8');
  const errs = [];
  if (src.includes('%%')) errs.push('holds %% (a comment or directive)');
  // Mermaid measures the source in UTF-16 code units, as String.length does.
  if (src.length > maxTextSize) errs.push(`is ${src.length} characters long, more than maxTextSize (${maxTextSize}): Mermaid renders an error instead`);
  for (const raw of src.split('\n')) {
    const line = raw.trim();
    if (/^classDef\b/.test(line) && ![...allowedClasses.values()].includes(line)) errs.push(`defines a class other than the fixed ones: ${JSON.stringify(line)}`);
    if (/^class\b/.test(line) && !/^class [nk]\d+(,[nk]\d+)* (replaced|deleted)$/.test(line)) errs.push(`has a class line other than ours: ${JSON.stringify(line)}`);
    if (/^(style|linkStyle|click)\b/.test(line)) errs.push(`has a ${line.split(/\s/)[0]} line`);
  }
  await mermaid.parse(src); // throws on a diagram Mermaid cannot read (past maxEdges too)
  const { db, type } = await mermaid.mermaidAPI.getDiagramFromText(src);
  if (!String(type).startsWith('flowchart')) errs.push(`is a ${type}, not a flowchart`);
  const vmap = db.getVertices();
  const vertices = vmap instanceof Map ? [...vmap.values()] : Object.values(vmap); // a Map from Mermaid 11, an object before
  for (const v of vertices) {
    if (!/^(n|k)\d+$/.test(v.id)) errs.push(`node id ${JSON.stringify(v.id)} is not generated`);
    if (v.styles.length) errs.push(`node ${v.id} has a style`);
    for (const c of v.classes) if (!allowedClasses.has(c)) errs.push(`node ${v.id} has the class ${JSON.stringify(c)}, not a fixed one`);
    if (v.link || v.haveCallback) errs.push(`node ${v.id} has a link or click`);
    if (db.getTooltip && db.getTooltip(v.id)) errs.push(`node ${v.id} has a tooltip`);
  }
  for (const s of db.getSubGraphs()) {
    if (!/^(s\d+|legend)$/.test(s.id)) errs.push(`box id ${JSON.stringify(s.id)} is not generated`);
  }
  const edges = db.getEdges().length;
  if (edges > maxEdges) errs.push(`has ${edges} edges, more than maxEdges (${maxEdges})`);
  const classes = db.getClasses();
  for (const c of classes instanceof Map ? classes.values() : Object.values(classes)) {
    const want = allowedClasses.get(c.id);
    if (!want || want !== `classDef ${c.id} ${c.styles.join(',')}`) errs.push(`defines the class ${JSON.stringify(c.id)} as ${JSON.stringify(c.styles)}, not a fixed one`);
  }
  const expect = path.replace(/\.mmd$/, '.expect.json');
  if (existsSync(expect)) {
    const want = JSON.parse(readFileSync(expect, 'utf8'));
    const texts = [...vertices.map((v) => decode(v.text)), ...db.getSubGraphs().map((s) => decode(s.title))];
    if (want.vertices !== undefined && vertices.length !== want.vertices) {
      errs.push(`has ${vertices.length} nodes, want ${want.vertices}`);
    }
    if (want.edges !== undefined && edges !== want.edges) errs.push(`has ${edges} edges, want ${want.edges}`);
    for (const t of want.texts ?? []) {
      if (!texts.some((x) => x.includes(t))) errs.push(`no label reads ${JSON.stringify(t)} as text; labels: ${JSON.stringify(texts)}`);
    }
  }
  return errs;
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error('usage: node check.mjs DIR...');
  process.exit(2);
}
let n = 0;
let failed = 0;
for (const dir of dirs) {
  for (const f of files(dir)) {
    n++;
    let errs;
    try {
      errs = await check(f);
    } catch (e) {
      errs = [`does not parse: ${String(e.message ?? e).split('\n').slice(0, 3).join(' ')}`];
    }
    for (const e of errs) console.error(`${f}: ${e}`);
    if (errs.length) failed++;
  }
}
if (n === 0) {
  console.error(`mermaid-check: no .mmd file under ${dirs.join(', ')}`);
  process.exit(1);
}
console.log(`mermaid-check: ${n - failed} of ${n} pictures pass (mermaid ${version}, at most ${maxTextSize} characters and ${maxEdges} edges each)`);
process.exit(failed ? 1 : 0);
