/** Vite's `?inline` suffix imports a CSS file as a string (see theme/styles.ts). */
declare module '*.css?inline' {
  const css: string;
  export default css;
}
