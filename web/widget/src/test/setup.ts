import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach, vi } from 'vitest';

// React warns unless it knows it runs under a test harness that flushes act() scopes.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

// findBy/waitFor give up after 1 s by default. A lazy chunk's first import (the phone parser, the
// identity-provider screens) can take longer on a loaded CI machine; the wait ends as soon as the
// expectation holds, so a longer ceiling costs nothing when the code is right.
configure({ asyncUtilTimeout: 8000 });

function clearCookies() {
  for (const part of document.cookie.split(';')) {
    const name = part.split('=')[0]?.trim();
    if (name) document.cookie = `${name}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/`;
  }
}

beforeEach(() => {
  localStorage.clear();
  clearCookies();
  window.history.replaceState(null, '', '/');
});

/** The focused element itself, inside the shadow roots that hold it (the widget renders in one). */
function focusedElement(): Element | null {
  let el = document.activeElement;
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
  return el;
}

afterEach(() => {
  // Test files share one document (isolate: false in vite.config.ts). jsdom leaves a document whose
  // focused element was removed with no active element at all, not the body, so the focus goes back
  // to the body before the test's tree is removed.
  (focusedElement() as HTMLElement | null)?.blur?.();
  cleanup();
  document.body.innerHTML = '';
  vi.useRealTimers();
  vi.unstubAllGlobals();
});
