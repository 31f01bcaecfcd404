/**
 * Turns a code-split ES build of src/iife.ts into the standalone <script> (dist/latchkey.js) plus
 * chunks it loads on demand (dist/standalone/*.js).
 *
 * Why: Rollup's IIFE output cannot split code, so every screen a page might show (MFA, password
 * reset, the organization list, the identity-provider consent...) would be in the one file every
 * page downloads. Instead the standalone build is an ordinary ES build with React inside, whose
 * entry chunk has no static imports (shared code stays in it: preserveEntrySignatures
 * "allow-extension"). This plugin then
 *   - writes that entry chunk as a classic script: wrapped in a function, its public exports
 *     (those of src/iife.ts) returned as `var Latchkey`, and every export the lazy chunks need
 *     put in a registry on globalThis under a key unique to this build;
 *   - makes the entry's dynamic imports resolve against the script's own URL (a classic script's
 *     import() resolves against the page);
 *   - replaces the entry chunk file with a bridge module that re-exports from that registry, so
 *     the lazy chunks (real ES modules importing "./host.js") share the script's instances of
 *     React, contexts, error classes and state instead of loading copies.
 * Chunk names carry a content hash, so a page never pairs a script with chunks of another build.
 */
import { createHash } from 'node:crypto';

/** The variable, inside the script's wrapper, holding the URL chunk paths are relative to. */
const BASE = '__latchkeyChunkBase';
const PURE = /\/\* @__PURE__ \*\/ ?/g;

/** @returns {import('vite').Plugin} */
export function standaloneScript({ fileName = 'latchkey.js', globalName = 'Latchkey' } = {}) {
  return {
    name: 'latchkey-standalone-script',
    apply: 'build',
    renderDynamicImport({ chunk }) {
      // Lazy chunks are real ES modules: their relative import() already resolves correctly.
      if (!chunk?.isEntry) return null;
      return { left: 'import(new URL(', right: `,${BASE}).href)` };
    },
    generateBundle(_options, bundle) {
      const entries = Object.values(bundle).filter((c) => c.type === 'chunk' && c.isEntry);
      if (entries.length !== 1) this.error(`standalone: expected one entry chunk, found ${entries.length}`);
      const host = entries[0];
      if (host.imports.length > 0) this.error(`standalone: the entry chunk imports ${host.imports.join(', ')} statically`);
      if (/\bimport\.meta\b/.test(host.code)) this.error('standalone: the entry chunk uses import.meta, which a classic script cannot');
      const match = /export\s*\{([^}]*)\}\s*;?\s*$/.exec(host.code);
      if (!match) this.error('standalone: cannot find the export statement of the entry chunk');
      const exported = match[1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
        .map((s) => {
          const [local, name = local] = s.split(/\s+as\s+/);
          return { local, name };
        });
      const publicNames = new Set(this.getModuleInfo(host.facadeModuleId)?.exports ?? []);
      const missing = [...publicNames].filter((n) => !exported.some((e) => e.name === n));
      if (missing.length > 0) this.error(`standalone: public exports missing from the entry chunk: ${missing.join(', ')}`);
      // Pure annotations help bundlers; nothing bundles a <script>, so they are only bytes.
      const body = host.code.slice(0, match.index).replace(PURE, '');
      for (const c of Object.values(bundle)) if (c.type === 'chunk' && c !== host) c.code = c.code.replace(PURE, '');
      const buildId = createHash('sha256').update(host.code).digest('hex').slice(0, 16);
      const key = `Symbol.for(${JSON.stringify(`latchkey.standalone.${buildId}`)})`;
      const object = (list) => `{${list.map((e) => `${JSON.stringify(e.name)}:${e.local}`).join(',')}}`;
      // The entry chunk's own path: the lazy chunks' relative paths start from there.
      const hostPath = JSON.stringify(host.fileName);
      const script =
        `var ${globalName}=(function(){` +
        `var ${BASE}=(function(){var s=typeof document<"u"?document.currentScript:null;` +
        `return new URL(${hostPath},s&&s.src?s.src:location.href).href})();\n` +
        body +
        `\nglobalThis[${key}]=${object(exported)};` +
        `return ${object(exported.filter((e) => publicNames.has(e.name)))}})();\n`;
      this.emitFile({ type: 'asset', fileName, source: script });
      host.code =
        `// Bridge to the standalone script's shared code; load ${fileName} first.\n` +
        `export const{${exported.map((e) => e.name).join(',')}}=globalThis[${key}];\n`;
    },
  };
}
