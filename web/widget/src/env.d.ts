/** Vite's `?inline` suffix imports a CSS file as a string (see theme/styles.ts). */
declare module '*.css?inline' {
  const css: string;
  export default css;
}

/** Vite replaces `import.meta.env.MODE` at build time ("iife" for the standalone script). */
interface ImportMeta {
  readonly env: { readonly MODE: string };
}
