import css from './widget.css?inline';

let shared: CSSStyleSheet | null = null;

/**
 * Installs the widget CSS in a shadow root. Constructable stylesheets are shared by every widget on
 * the page; browsers without them (and jsdom) get a <style> element instead.
 */
export function installStyles(root: ShadowRoot): void {
  const canAdopt =
    'adoptedStyleSheets' in root && typeof CSSStyleSheet !== 'undefined' && 'replaceSync' in CSSStyleSheet.prototype;
  if (canAdopt) {
    if (!shared) {
      shared = new CSSStyleSheet();
      shared.replaceSync(css);
    }
    if (!root.adoptedStyleSheets.includes(shared)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, shared];
    return;
  }
  if (root.querySelector('style[data-latchkey]')) return;
  const style = document.createElement('style');
  style.setAttribute('data-latchkey', '');
  style.textContent = css;
  root.prepend(style);
}
