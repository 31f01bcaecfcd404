import type { ReactNode } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { installStyles } from './theme/styles';

export const LOGIN_TAG = 'stytch-b2b-ui';
export const IDP_TAG = 'stytch-b2b-identity-provider';

/** The custom element API used by mount(): hand it a React tree to show in its shadow root. */
export interface WidgetElement extends HTMLElement {
  renderTree(tree: ReactNode): void;
}

/**
 * Classes are created on first use, not at import, so importing the ESM build in a non-DOM
 * environment (server rendering) does not touch HTMLElement.
 */
function createElementClass() {
  return class LatchkeyWidgetElement extends HTMLElement implements WidgetElement {
    private root: Root | null = null;
    private tree: ReactNode = null;
    private readonly container: HTMLDivElement;

    constructor() {
      super();
      const shadow = this.attachShadow({ mode: 'open' });
      installStyles(shadow);
      this.container = document.createElement('div');
      shadow.appendChild(this.container);
    }

    renderTree(tree: ReactNode): void {
      this.tree = tree;
      if (this.isConnected) this.paint();
    }

    connectedCallback(): void {
      if (this.tree !== null) this.paint();
    }

    disconnectedCallback(): void {
      // Unmounting runs effects' cleanups (timers, subscriptions) when the host removes the widget.
      this.root?.unmount();
      this.root = null;
    }

    private paint(): void {
      this.root ??= createRoot(this.container);
      this.root.render(this.tree);
    }
  };
}

export function defineWidgetElements(): void {
  if (typeof customElements === 'undefined') return;
  // One class per tag: the registry rejects registering the same constructor twice.
  if (!customElements.get(LOGIN_TAG)) customElements.define(LOGIN_TAG, createElementClass());
  if (!customElements.get(IDP_TAG)) customElements.define(IDP_TAG, createElementClass());
}

/**
 * Finds (or creates) the widget element inside the element matched by `selector` and renders
 * `tree` into it. A second call for the same selector re-renders the existing widget.
 */
export function mountInto(selector: string, tag: string, apiName: string, tree: (el: WidgetElement) => ReactNode): WidgetElement {
  const target = document.querySelector(selector);
  if (!target) {
    throw new Error(
      `The selector you specified (${selector}) applies to no DOM elements that are currently on the page. Make sure the element exists on the page before calling ${apiName}()`,
    );
  }
  defineWidgetElements();
  let el = Array.from(target.children).find((child) => child.localName === tag) as WidgetElement | undefined;
  if (!el || typeof el.renderTree !== 'function') {
    el = document.createElement(tag) as WidgetElement;
    target.appendChild(el);
  }
  el.renderTree(tree(el));
  return el;
}

/** Removes every widget element mounted inside the element matched by `selector`. */
export function unmountFrom(selector: string): void {
  const target = document.querySelector(selector);
  if (!target) return;
  for (const child of Array.from(target.children)) {
    if (child.localName === LOGIN_TAG || child.localName === IDP_TAG) child.remove();
  }
}
