import { defineConfig } from 'vitest/config';

// Two build runs (see package.json "build"): the default mode emits the ESM library with React
// external; `--mode iife` emits the self-contained <script> bundle. Rollup's `external` applies to
// every output format of one run, and IIFE output cannot code-split, so one run cannot do both.
export default defineConfig(({ command, mode }) => {
  const iife = mode === 'iife';
  return {
    esbuild: { jsx: 'automatic' },
    // Library mode does not replace process.env.NODE_ENV, and the bundled React needs it. Only for
    // builds: defining it under Vitest would load React's production build (no React.act).
    define: command === 'build' ? { 'process.env.NODE_ENV': JSON.stringify('production') } : {},
    build: {
      outDir: 'dist',
      // dist/.keep is tracked by git and must survive; scripts/clean.mjs removes stale outputs.
      emptyOutDir: false,
      target: 'es2020',
      sourcemap: false,
      lib: iife
        ? { entry: 'src/iife.ts', name: 'Latchkey', formats: ['iife'], fileName: () => 'latchkey.js' }
        : {
            // phone.js is the lazily loaded phone library (src/phone/load.ts); the standalone
            // script imports the same file at run time.
            entry: { index: 'src/index.ts', phone: 'src/phone/lib.ts' },
            formats: ['es'],
            fileName: (_format, name) => `esm/${name}.js`,
          },
      rollupOptions: iife ? {} : { external: [/^react($|\/)/, /^react-dom($|\/)/] },
    },
    test: {
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['src/test/setup.ts'],
      restoreMocks: true,
      // Process the widget CSS so `?inline` imports yield the real stylesheet in tests.
      css: { include: [/widget\.css/] },
    },
  };
});
