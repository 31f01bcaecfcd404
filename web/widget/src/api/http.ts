import { base64Utf8 } from './encoding';
import { APIError, APISchemaError, APIUnreachableError } from './errors';
import { buildTelemetry, type TelemetryIds } from './telemetry';

export interface HttpClientOptions {
  /** Origin (optionally with a path prefix) of the Latchkey server, without a trailing slash. */
  baseURL: string;
  publicToken: string;
  /** The session token from the `stytch_session` cookie, when one exists. */
  getSessionToken: () => string | null;
  /** Member and session ids of the current session, reported in telemetry. */
  getTelemetryIds?: () => TelemetryIds;
  fetch?: typeof fetch;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Drops undefined fields explicitly so the wire body never depends on serializer quirks. */
function compact(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (v !== undefined) out[k] = v;
  return out;
}

/** The typed fetch wrapper behind every /sdk/v1 call (api-reference 1.4–1.6). */
export class HttpClient {
  constructor(private readonly opts: HttpClientOptions) {}

  get baseURL(): string {
    return this.opts.baseURL;
  }

  sdkURL(path: string): string {
    return `${this.opts.baseURL}/sdk/v1${path}`;
  }

  headers(): Record<string, string> {
    const { publicToken } = this.opts;
    // Logged out, the Basic-auth password is the public token again (api-reference 1.5).
    const secret = this.opts.getSessionToken() || publicToken;
    return {
      Authorization: `Basic ${base64Utf8(`${publicToken}:${secret}`)}`,
      'Content-Type': 'application/json',
      'X-SDK-Client': base64Utf8(JSON.stringify(buildTelemetry(this.opts.getTelemetryIds?.()))),
      'X-SDK-Parent-Host': window.location.origin,
    };
  }

  /** Sends a request and resolves with the `data` payload of a 2xx answer. */
  async request<T>(method: Method, path: string, body?: Record<string, unknown>): Promise<T> {
    const init: RequestInit = { method, headers: this.headers(), credentials: 'include' };
    if (body !== undefined && method !== 'GET' && method !== 'DELETE') {
      init.body = JSON.stringify(compact(body));
    }
    const doFetch = this.opts.fetch ?? globalThis.fetch;
    let res: Response;
    try {
      res = await doFetch(this.sdkURL(path), init);
    } catch {
      throw new APIUnreachableError('unreachable');
    }
    return parseResponse<T>(res);
  }

  post<T>(path: string, body?: Record<string, unknown>): Promise<T> {
    return this.request<T>('POST', path, body);
  }

  get<T>(path: string): Promise<T> {
    return this.request<T>('GET', path);
  }
}

export async function parseResponse<T>(res: Response): Promise<T> {
  if (res.status <= 299) {
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new APIUnreachableError('invalidJson');
    }
    if (json === null || typeof json !== 'object' || !('data' in json)) {
      throw new APIUnreachableError('invalidJson');
    }
    return (json as { data: T }).data;
  }
  const contentType = res.headers.get('Content-Type') ?? '';
  if (contentType.includes('application/json')) {
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      throw new APIUnreachableError('invalidResponse');
    }
    if (json !== null && typeof json === 'object') {
      const body = json as Record<string, unknown>;
      if ('body' in body || 'params' in body || 'query' in body) throw new APISchemaError(body, res.status);
      throw new APIError(body, res.status);
    }
  }
  throw new APIUnreachableError('invalidResponse');
}
