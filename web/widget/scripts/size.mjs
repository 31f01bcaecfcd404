// Gzipped bundle-size budget check used by CI and the benchmark report.
// Usage: node scripts/size.mjs [--json]
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

// Issue 12's targets: what every page downloads. Parts loaded on demand (dist/esm/*.js besides
// index.js, dist/standalone/*.js) are listed but have no budget of their own.
const budgets = [
  { key: 'iife_gzip_bytes', file: 'dist/latchkey.js', limit: 80 * 1024 },
  { key: 'esm_gzip_bytes', file: 'dist/esm/index.js', limit: 30 * 1024 },
];
const root = fileURLToPath(new URL('../', import.meta.url));
const json = process.argv.includes('--json');

const results = {};
let failed = false;
for (const b of budgets) {
  let bytes;
  try {
    bytes = gzipSync(readFileSync(root + b.file), { level: 9 }).length;
  } catch (err) {
    console.error(`size: cannot read ${b.file} (run "npm run build" first): ${err.message}`);
    process.exit(2);
  }
  results[b.key] = bytes;
  const over = bytes > b.limit;
  failed ||= over;
  if (!json) {
    const kb = (n) => (n / 1024).toFixed(1) + ' KB';
    console.log(`${over ? 'FAIL' : 'ok  '} ${b.file}: ${kb(bytes)} gzip (${bytes} bytes, budget ${kb(b.limit)})`);
  }
}
if (!json) {
  for (const dir of ['dist/esm/', 'dist/standalone/']) {
    for (const name of readdirSync(root + dir).sort()) {
      const file = dir + name;
      if (!name.endsWith('.js') || budgets.some((b) => b.file === file)) continue;
      const bytes = gzipSync(readFileSync(root + file), { level: 9 }).length;
      console.log(`     ${file}: ${(bytes / 1024).toFixed(1)} KB gzip, loaded on demand`);
    }
  }
}
if (json) console.log(JSON.stringify(results));
if (failed) {
  console.error('size: bundle size budget exceeded');
  process.exit(1);
}
