// Gzipped bundle-size budget check used by CI, and the only measure of the widget's size: the
// benchmark report (bench/latchkey/widget.go) prints the figures of `--json` instead of gzipping
// the files itself, so the two cannot disagree (they once did: Go's compressor packs worse).
// Usage: node scripts/size.mjs [--json] [--root DIR]  (DIR holds dist/; the widget's own by default)
import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const rootArg = args.indexOf('--root');
const root = rootArg >= 0 ? posix.join(args[rootArg + 1], '/') : fileURLToPath(new URL('../', import.meta.url));
const json = args.includes('--json');
const gzipBytes = (file) => gzipSync(readFileSync(root + file), { level: 9 }).length;

// `from"./x.js"` and `import"./x.js"` (static imports), not the `import("./x.js")` of a lazy chunk.
const staticImport = /(?:\bfrom|\bimport)\s*["'](\.\/[^"']+)["']/g;

/**
 * What a page downloads before the widget can run: `entry` and every file it imports statically,
 * transitively. Today the entry imports nothing of its own, but a chunk that vite splits out of it
 * would be downloaded first as well, so it counts.
 */
function firstLoad(entry) {
  const files = [];
  const walk = (file) => {
    if (files.includes(file)) return;
    files.push(file);
    const code = readFileSync(root + file, 'utf8');
    for (const [, spec] of code.matchAll(staticImport)) walk(posix.join(posix.dirname(file), spec));
  };
  walk(entry);
  files.sort();
  return { files, bytes: files.reduce((sum, f) => sum + gzipBytes(f), 0) };
}

// Issue 12's targets: what every page downloads first. Parts loaded on demand (the other files of
// dist/esm/ and dist/standalone/) are listed but have no budget of their own.
const budgets = [
  { key: 'iife', entry: 'dist/latchkey.js', limit: 80 * 1024 },
  { key: 'esm', entry: 'dist/esm/index.js', limit: 30 * 1024 },
];

const results = {};
let failed = false;
for (const b of budgets) {
  let load;
  try {
    load = firstLoad(b.entry);
  } catch (err) {
    console.error(`size: cannot read ${b.entry} (run "npm run build" first): ${err.message}`);
    process.exit(2);
  }
  const over = load.bytes > b.limit;
  failed ||= over;
  results[`${b.key}_gzip_bytes`] = load.bytes;
  results[`${b.key}_first_load_files`] = load.files;
  results[`${b.key}_limit_bytes`] = b.limit;
  if (!json) {
    const kb = (n) => (n / 1024).toFixed(1) + ' KB';
    const what = load.files.join(' + ');
    console.log(`${over ? 'FAIL' : 'ok  '} ${what}: ${kb(load.bytes)} gzip (${load.bytes} bytes, budget ${kb(b.limit)})`);
  }
}

const firstLoadFiles = new Set(budgets.flatMap((b) => results[`${b.key}_first_load_files`]));
const lazy = {};
for (const dir of ['dist/esm/', 'dist/standalone/']) {
  for (const name of readdirSync(root + dir).sort()) {
    const file = dir + name;
    if (name.endsWith('.js') && !firstLoadFiles.has(file)) lazy[file] = gzipBytes(file);
  }
}
results.lazy_gzip_bytes = lazy;

if (json) console.log(JSON.stringify(results));
else for (const [file, bytes] of Object.entries(lazy)) console.log(`     ${file}: ${(bytes / 1024).toFixed(1)} KB gzip, loaded on demand`);
if (failed) {
  console.error('size: bundle size budget exceeded');
  process.exit(1);
}
