import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { standaloneScript } from './scripts/standalone.mjs';

// React 18.3 for the standalone script, installed by scripts/react18.mjs (see `resolve` below).
const react18 = fileURLToPath(new URL('./react18/node_modules', import.meta.url));

/**
 * Vite keeps `/* @__PURE__ *\/` annotations in an ES library's minified output (it forces terser's
 * preserve_annotations), so that a bundler downstream could drop unused top-level calls. Here they
 * would drop next to nothing: every export leads to the same code (B2BClient mounts the login and
 * identity provider apps, B2BLogin and B2BIdentityProvider are those apps), while 200 of them cost
 * about 200 bytes of the 30 KB gzip budget every visitor downloads. They are removed after
 * minification.
 */
function dropPureAnnotations(): Plugin {
  return {
    name: 'latchkey-drop-pure-annotations',
    enforce: 'post',
    generateBundle(_options, bundle) {
      for (const file of Object.values(bundle)) {
        if (file.type === 'chunk') file.code = file.code.replaceAll('/* @__PURE__ */', '');
      }
    },
  };
}

// Two build runs (see package.json "build"): the default mode emits the ESM library with React
// external; `--mode iife` emits the self-contained <script> (dist/latchkey.js) with React inside,
// and the chunks it loads on demand (dist/standalone/). Rollup's `external` applies to every output
// format of one run, so one run cannot do both. IIFE output cannot code-split, so the standalone
// run is an ES build that scripts/standalone.mjs turns into a classic script.
export default defineConfig(({ command, mode }) => {
  const iife = mode === 'iife';
  return {
    esbuild: { jsx: 'automatic' },
    plugins: iife ? [standaloneScript()] : [dropPureAnnotations()],
    // The standalone script bundles React 18.3 instead of 19: about 20 KB gzip smaller, which keeps
    // the whole widget (discovery, passwords, MFA) inside its 100 KB budget. The widget uses only
    // APIs both versions share (createRoot, createPortal, hooks, Context.Provider, refs on DOM
    // elements), and the browser tests run against this bundle. The ESM build keeps React a peer
    // dependency, so applications bring their own React 18.3 or 19.
    resolve: iife
      ? {
          alias: [
            { find: /^react-dom(\/.*)?$/, replacement: `${react18}/react-dom$1` },
            { find: /^react(\/.*)?$/, replacement: `${react18}/react$1` },
          ],
        }
      : {},
    // Library mode does not replace process.env.NODE_ENV, and the bundled React needs it. Only for
    // builds: defining it under Vitest would load React's production build (no React.act).
    define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
    build: {
      outDir: 'dist',
      // dist/.keep is tracked by git and must survive; scripts/clean.mjs removes stale outputs.
      emptyOutDir: false,
      target: 'es2020',
      sourcemap: false,
      // terser: a few KB smaller than esbuild on this bundle, which keeps the widget within its
      // size budget; and unlike esbuild it also minifies whitespace in the ES library output.
      minify: 'terser',
      terserOptions: { compress: { passes: 2 }, format: { comments: false } },
      lib: iife
        ? { entry: 'src/iife.ts', formats: ['es'], fileName: () => 'standalone/host.js' }
        : {
            // phone.js is the lazily loaded phone library (src/phone/load.ts); the standalone
            // script imports the same file at run time.
            entry: { index: 'src/index.ts', phone: 'src/phone/lib.ts' },
            formats: ['es'],
            fileName: (_format, name) => `esm/${name}.js`,
          },
      // Screens most visitors never see are dynamic imports: chunks of their own (esm/IdpScreens.js,
      // ...) that the main bundle loads on demand. allow-extension keeps the shared code in the
      // entry (which then exports it to the chunks) instead of moving it to a third chunk.
      rollupOptions: iife
        ? {
            preserveEntrySignatures: 'allow-extension',
            output: { chunkFileNames: 'standalone/[name]-[hash].js' },
          }
        : {
            external: [/^react($|\/)/, /^react-dom($|\/)/],
            preserveEntrySignatures: 'allow-extension',
            output: { chunkFileNames: 'esm/[name].js' },
          },
    },
    test: {
      environment: 'jsdom',
      // scripts/*.test.mjs: the build scripts' own tests (plain JS, run in Node).
      include: ['src/**/*.test.{ts,tsx}', 'scripts/**/*.test.mjs'],
      setupFiles: ['src/test/setup.ts'],
      // One jsdom per worker, not one per test file: building a jsdom cost ~1 s a file, 48 of the
      // 100 s the suite took on two cores (now ~20 s). The price is that files share a document and
      // module state, so src/test/setup.ts resets what tests change (storage, cookies, URL, body,
      // focus, timers, stubs) after every test; the suite passes in shuffled orders
      // (`npx vitest run --sequence.shuffle`), which is how a leak between files shows itself.
      isolate: false,
      restoreMocks: true,
      // Matches asyncUtilTimeout in src/test/setup.ts, with room for the test's own steps.
      testTimeout: 20000,
      // Process the widget CSS so `?inline` imports yield the real stylesheet in tests.
      css: { include: [/widget\.css/] },
    },
  };
});
