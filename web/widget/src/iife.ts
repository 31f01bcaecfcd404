/**
 * Entry of the standalone <script> build, exposed as `window.Latchkey`. React is bundled; the
 * React components are left to the ESM build, whose users already have React.
 */
import { B2BClient as BaseClient, type ClientOptions } from './client';
import { setPhoneLibURL } from './phone/load';

/**
 * The server that served this script is the default API server: the Go binary embeds the bundle,
 * so pages need only `<script src="https://auth.example.com/widget/latchkey.js">`. Captured during
 * module evaluation, the only moment document.currentScript points at this script.
 */
const scriptOrigin: string = (() => {
  const script = typeof document !== 'undefined' ? document.currentScript : null;
  if (script instanceof HTMLScriptElement && script.src) {
    try {
      // The phone library is the ESM build's chunk next to this file (src/phone/load.ts).
      setPhoneLibURL(new URL('esm/phone.js', script.src).href);
      return new URL(script.src).origin;
    } catch {
      // Fall through to the page origin.
    }
  }
  return window.location.origin;
})();

export class B2BClient extends BaseClient {
  constructor(publicToken: string, options: ClientOptions = {}) {
    super(publicToken, { ...options, baseURL: options.baseURL ?? scriptOrigin });
  }
}

export { AuthFlowType, B2BMFAProducts, B2BProducts } from './b2b/config';
export { EventType } from './b2b/events';
export { APIError, APISchemaError, APIUnreachableError, SDKUsageError } from './api/errors';
export { SDK_VERSION as version } from './version';
