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

afterEach(() => {
  cleanup();
  document.body.innerHTML = '';
  vi.useRealTimers();
  vi.unstubAllGlobals();
});
