// Gzipped bundle-size budget check used by CI and the benchmark report.
// Usage: node scripts/size.mjs [--json]
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const budgets = [
  { key: 'iife_gzip_bytes', file: 'dist/latchkey.js', limit: 102400 },
  { key: 'esm_gzip_bytes', file: 'dist/esm/index.js', limit: 35840 },
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
if (json) console.log(JSON.stringify(results));
if (failed) {
  console.error('size: bundle size budget exceeded');
  process.exit(1);
}
