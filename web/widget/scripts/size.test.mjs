import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';

// scripts/size.mjs is CI's budget check and the figure make bench prints (bench/latchkey/widget.go).
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'size.mjs');
const gz = (s) => gzipSync(s, { level: 9 }).length;

/** A dist/ with the given ESM files (the standalone script is small and fixed). */
function dist(esm) {
  const root = mkdtempSync(join(tmpdir(), 'latchkey-size-'));
  mkdirSync(join(root, 'dist/esm'), { recursive: true });
  mkdirSync(join(root, 'dist/standalone'));
  writeFileSync(join(root, 'dist/latchkey.js'), 'var Latchkey=1;');
  for (const [name, code] of Object.entries(esm)) writeFileSync(join(root, 'dist/esm', name), code);
  return root;
}

/** Runs the script with --json; it exits 1 over budget and still prints its figures. */
function sizes(root) {
  try {
    return { status: 0, out: JSON.parse(execFileSync('node', [SCRIPT, '--json', '--root', root], { encoding: 'utf8' })) };
  } catch (err) {
    return { status: err.status, out: JSON.parse(err.stdout) };
  }
}

describe('size.mjs', () => {
  it('counts the entry and what it imports statically, transitively, but not the lazy chunks', () => {
    const esm = {
      'index.js': 'import{s as a}from"./shared.js";export const b=()=>import("./lazy.js");export{a};',
      'shared.js': 'import"./deeper.js";export const s="shared code vite split out of the entry";',
      'deeper.js': 'globalThis.deeper=1;',
      'lazy.js': 'export const l="a screen loaded on demand";',
    };
    const { status, out } = sizes(dist(esm));
    expect(status).toBe(0);
    expect(out.esm_first_load_files).toEqual(['dist/esm/deeper.js', 'dist/esm/index.js', 'dist/esm/shared.js']);
    expect(out.esm_gzip_bytes).toBe(gz(esm['index.js']) + gz(esm['shared.js']) + gz(esm['deeper.js']));
    expect(out.lazy_gzip_bytes).toEqual({ 'dist/esm/lazy.js': gz(esm['lazy.js']) });
    expect(out.esm_limit_bytes).toBe(30 * 1024);
  });

  it('over the budget it exits 1 with its figures, so the bench can still report them', () => {
    // 40,000 distinct numbers: far over 30 KB gzipped.
    const big = Array.from({ length: 40000 }, (_, i) => ((i * 2654435761) % 4294967296).toString(36)).join(',');
    const { status, out } = sizes(dist({ 'index.js': `export const n="${big}";` }));
    expect(status).toBe(1);
    expect(out.esm_gzip_bytes).toBeGreaterThan(30 * 1024);
  });
});
