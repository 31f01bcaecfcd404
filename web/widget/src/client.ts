import { createElement } from 'react';
import { DEFAULT_BOOTSTRAP, mapBootstrap, type BootstrapData } from './api/bootstrap';
import { HttpClient } from './api/http';
import { fetchBootstrap } from './api/operations';
import { PkceStore } from './api/pkce';
import { buildTelemetry, EventLogger } from './api/telemetry';
import type { AuthenticateResponse } from './api/types';
import { LoginApp, type LoginOptions } from './b2b/LoginApp';
import type { LoginBackend } from './b2b/controller';
import { LastUsedMethodStore } from './b2b/lastUsed';
import { systemClock, type Clock } from './clock';
import { IDP_TAG, LOGIN_TAG, mountInto, unmountFrom } from './elements';
import { IdentityProviderApp, type IdentityProviderOptions, type IdpBackend } from './idp/IdentityProviderApp';
import { allPermissions, isAuthorized, parsePolicy, type PermissionsMap, type RBACPolicy, type RBACRole } from './rbac';
import { SessionManager, type SessionSnapshot } from './session/manager';
import { stateKey } from './session/storage';
import { checkArgs } from './usage';

export interface ClientOptions {
  /** Origin of the Latchkey server. ESM default: the page's origin. */
  baseURL?: string;
  /** For tests: time source and timers. */
  clock?: Clock;
  /** For tests: the fetch implementation. */
  fetch?: typeof fetch;
  /** For tests: how the page leaves for an OAuth or SSO start URL (default: location.assign). */
  navigate?: (url: string) => void;
}

export type MountLoginOptions = LoginOptions & { elementId: string };
export type MountIdentityProviderOptions = IdentityProviderOptions & { elementId: string };

/**
 * The headless session API for host pages. Each method throws an SDKUsageError at the call (not as
 * a rejected promise) when an argument has the wrong type.
 */
export interface SessionAPI {
  getSync(): SessionSnapshot | null;
  onChange(callback: (session: SessionSnapshot | null) => void): () => void;
  revoke(options?: { forceClear?: boolean }): Promise<void>;
  authenticate(options?: { session_duration_minutes?: number }): Promise<AuthenticateResponse>;
}

/**
 * `client.rbac` (api-reference 3.13): answered locally from the bootstrap policy, the session's
 * roles and the organization's custom roles; no request is made. Arguments that are not strings
 * throw an SDKUsageError at the call.
 */
export interface RBACAPI {
  isAuthorized(resourceId: string, action: string): Promise<boolean>;
  /** Answers from the policy already loaded (false before the bootstrap arrives). */
  isAuthorizedSync(resourceId: string, action: string): boolean;
  allPermissions(): Promise<PermissionsMap>;
}

type Backend = LoginBackend & IdpBackend & { id: string };

// Kept off the public class so the wiring is not part of the API surface.
const backends = new WeakMap<B2BClient, Backend>();
// One refreshing session manager per public token and page (api-reference section 4).
const activeManagers = new Map<string, SessionManager>();
let clientCount = 0;

export function backendOf(client: B2BClient): Backend {
  const backend = backends.get(client);
  if (!backend) throw new Error('Latchkey: expected a B2BClient instance');
  return backend;
}

function normalizeBaseURL(value: string): string {
  const url = new URL(value, window.location.href);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Entry point for host pages: `new B2BClient(publicToken)`, then `mountLogin({...})`. */
export class B2BClient {
  readonly publicToken: string;
  readonly baseURL: string;
  readonly session: SessionAPI;
  readonly rbac: RBACAPI;

  constructor(publicToken: string, options: ClientOptions = {}) {
    checkArgs('B2BClient', [['publicToken', publicToken, 'string'], ['options', options, 'object']]);
    if (publicToken === '') {
      throw new Error('Latchkey: B2BClient needs the project public token as its first argument.');
    }
    if (!publicToken.startsWith('public-token-')) {
      console.warn('Latchkey: the public token does not look like one (expected "public-token-...").');
    }
    this.publicToken = publicToken;
    this.baseURL = normalizeBaseURL(options.baseURL ?? window.location.origin);
    const clock = options.clock ?? systemClock;
    const key = stateKey(publicToken);

    let manager: SessionManager | null = null;
    const http = new HttpClient({
      baseURL: this.baseURL,
      publicToken,
      getSessionToken: () => manager?.sessionToken() ?? null,
      getTelemetryIds: () => manager?.telemetryIds() ?? {},
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    manager = new SessionManager({ http, stateKey: key, clock });
    const session = manager;
    const events = new EventLogger({
      url: http.sdkURL('/events'),
      publicToken,
      telemetry: () => buildTelemetry(session.telemetryIds()),
      clock,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });

    const bootstrap: Promise<BootstrapData> = fetchBootstrap(http, publicToken)
      .then(mapBootstrap)
      .catch((err: unknown) => {
        console.error('Latchkey: could not load project settings; using defaults.', err);
        return DEFAULT_BOOTSTRAP;
      });

    backends.set(this, {
      id: `client-${++clientCount}`,
      http,
      session,
      pkce: new PkceStore(key),
      lastUsedMethod: new LastUsedMethodStore(key),
      navigate: options.navigate ?? ((url) => window.location.assign(url)),
      publicToken,
      bootstrap: () => bootstrap,
      logEvent: (name, details) => events.log(name, details),
      clock,
    });
    let policy: RBACPolicy | null = null;
    const policyReady = bootstrap.then((b) => {
      policy = parsePolicy(b.rbacPolicy);
      if (!policy) console.error('Latchkey: no RBAC policy from the server; assuming no permissions.');
      return policy;
    });
    const who = (): [string[], RBACRole[] | undefined] => {
      const s = session.getSync();
      return [s?.member_session.roles ?? [], (s?.organization as { custom_roles?: RBACRole[] } | undefined)?.custom_roles];
    };
    const rbacArgs = (method: string, res: unknown, action: unknown) =>
      checkArgs(`rbac.${method}`, [['resourceId', res, 'string'], ['action', action, 'string']]);
    // Not async: a usage error is thrown at the call, not as a rejection.
    this.rbac = {
      isAuthorized: (res, action) => {
        rbacArgs('isAuthorized', res, action);
        return policyReady.then((p) => isAuthorized(p, who()[1], who()[0], res, action));
      },
      isAuthorizedSync: (res, action) => {
        rbacArgs('isAuthorizedSync', res, action);
        return isAuthorized(policy, who()[1], who()[0], res, action);
      },
      allPermissions: async () => allPermissions(await policyReady, who()[1], who()[0]),
    };
    this.session = {
      getSync: () => session.getSync(),
      onChange: (cb) => {
        checkArgs('session.onChange', [['callback', cb, 'function']]);
        return session.onChange(cb);
      },
      revoke: (opts) => {
        checkArgs('session.revoke', [['options', opts, 'object?'], ['forceClear', opts?.forceClear, 'boolean?']]);
        return session.revoke(opts);
      },
      authenticate: (opts) => {
        checkArgs('session.authenticate', [['options', opts, 'object?'], ['session_duration_minutes', opts?.session_duration_minutes, 'number?']]);
        return session.authenticate(opts);
      },
    };

    const previous = activeManagers.get(publicToken);
    if (previous) {
      console.warn('Latchkey: another B2BClient for this public token exists; only the newest refreshes the session.');
      previous.stop();
    }
    activeManagers.set(publicToken, session);
    events.log('b2b_sdk_instance_instantiated', {});
    session.start();
  }

  /** Mounts (or re-renders) the login widget in the element matched by `options.elementId`. */
  mountLogin(options: MountLoginOptions): void {
    checkArgs('mountLogin', [['options', options, 'object'], ['elementId', options?.elementId, 'string'], ['config', options?.config, 'object']]);
    const { elementId, ...rest } = options;
    const backend = backendOf(this);
    mountInto(elementId, LOGIN_TAG, 'mountLogin', (el) =>
            // Keyed by client: mounting another client into the same element starts a fresh flow.
      createElement(LoginApp, { key: backend.id, backend, options: rest, eventTarget: el }),
    );
  }

  /** Mounts (or re-renders) the identity-provider widget. */
  mountIdentityProvider(options: MountIdentityProviderOptions): void {
    checkArgs('mountIdentityProvider', [['options', options, 'object'], ['elementId', options?.elementId, 'string']]);
    const { elementId, ...rest } = options;
    const backend = backendOf(this);
    mountInto(elementId, IDP_TAG, 'mountIdentityProvider', () =>
      createElement(IdentityProviderApp, { key: backend.id, backend, options: rest }),
    );
  }

  /** Removes the widgets mounted in the element matched by `elementId`. */
  unmount(elementId: string): void {
    checkArgs('unmount', [['elementId', elementId, 'string']]);
    unmountFrom(elementId);
  }
}
