/** Errors raised by the SDK client (api-reference section 1.6). */

/** A JSON error answered by the server (status >= 300). */
export class APIError extends Error {
  readonly status_code: number;
  readonly request_id: string | undefined;
  readonly error_type: string;
  readonly error_message: string;
  readonly error_url: string;
  readonly error_details: unknown;

  constructor(body: Record<string, unknown>, status: number) {
    // Without a text from the server error_message stays empty and the screen shows the strings
    // table's (b2b/errorMessages.ts); the Error's own message is for developers.
    const message = typeof body.error_message === 'string' ? body.error_message : '';
    super(message || 'Unknown error');
    this.name = 'APIError';
    this.status_code = typeof body.status_code === 'number' ? body.status_code : status;
    this.request_id = typeof body.request_id === 'string' ? body.request_id : undefined;
    this.error_type = typeof body.error_type === 'string' ? body.error_type : 'unknown_error';
    this.error_message = message;
    this.error_url = typeof body.error_url === 'string' ? body.error_url : '';
    this.error_details = body.error_details;
  }
}

/** A request-validation error whose JSON carries `body`, `params` or `query` issue lists. */
export class APISchemaError extends Error {
  readonly status_code: number;
  readonly issues: { dataPath: string; message: string }[];

  constructor(body: Record<string, unknown>, status: number) {
    const issues: { dataPath: string; message: string }[] = [];
    for (const key of ['body', 'params', 'query']) {
      const list = body[key];
      if (!Array.isArray(list)) continue;
      for (const item of list as Record<string, unknown>[]) {
        issues.push({ dataPath: String(item.dataPath ?? key), message: String(item.message ?? '') });
      }
    }
    // For developers when there is no issue; the screen then shows the strings table's text.
    super(issues.map((i) => `${i.dataPath}: ${i.message}`).join('\n') || 'Invalid request');
    this.name = 'APISchemaError';
    this.status_code = status;
    this.issues = issues;
  }
}

/** Why the server could not be used at all; `kind` selects the user-facing string. */
export type UnreachableKind = 'unreachable' | 'invalidJson' | 'invalidResponse';

const UNREACHABLE_MESSAGES: Record<UnreachableKind, string> = {
  unreachable: 'Unable to contact our servers.',
  invalidJson: 'Invalid JSON response from our servers.',
  invalidResponse: 'Invalid response from our servers.',
};

export class APIUnreachableError extends Error {
  readonly kind: UnreachableKind;
  constructor(kind: UnreachableKind) {
    super(UNREACHABLE_MESSAGES[kind]);
    this.name = 'APIUnreachableError';
    this.kind = kind;
  }
}

/** Schemes never followed, even as an app's own: each runs script or shows content in the page's place. */
const SCRIPT_SCHEMES = ['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'filesystem:'];

/**
 * `url`, a URL from a server answer that the browser is to follow, if it is https or http, or with
 * `appSchemes` an app's private-use scheme too (a native app's redirect URI, RFC 8252, which the server
 * registers for connected apps). Anything else is a bad answer (invalidResponse) and is never followed: a
 * hostile or broken server, or a proxy, answering `javascript:` would run script in the host page. The
 * scheme checked is the one the browser would use (`new URL` drops leading spaces and lowercases it).
 */
export function navigable(url: string, appSchemes = false): string {
  let scheme = '';
  try {
    scheme = new URL(url).protocol;
  } catch {
    // Not an absolute URL: a bad answer as well.
  }
  if (scheme === 'https:' || scheme === 'http:' || (appSchemes && scheme && !SCRIPT_SCHEMES.includes(scheme))) return url;
  throw new APIUnreachableError('invalidResponse');
}

/** A public client method called with an argument of the wrong type (spec section 8; usage.ts). */
export class SDKUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SDKUsageError';
  }
}

/** Error types after which a stored session can never become valid again (api-reference 1.6). */
export const UNRECOVERABLE_ERROR_TYPES: ReadonlySet<string> = new Set([
  'unauthorized_credentials',
  'user_unauthenticated',
  'invalid_secret_authentication',
  'session_not_found',
]);

export function isUnrecoverable(err: unknown): boolean {
  return err instanceof APIError && UNRECOVERABLE_ERROR_TYPES.has(err.error_type);
}
