import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../api/http';
import type { AuthenticateResponse } from '../api/types';
import { systemClock, type Clock } from '../clock';
import { apiError, FakeServer, json, loggedInResponse, ORIGIN } from '../test/fakeServer';
import { getCookie, IST_COOKIE, SESSION_COOKIE, SESSION_JWT_COOKIE, setCookie } from './cookies';
import { backoffDelay, REFRESH_INTERVAL_MS, SessionManager } from './manager';

const KEY = 'stytch_sdk_state_public-token-test-1';
const REFRESH = '/b2b/sessions/authenticate';

function setup(server: FakeServer, random = 0.5) {
  const clock: Clock = { ...systemClock, random: () => random };
  let manager: SessionManager;
  const http = new HttpClient({
    baseURL: ORIGIN,
    publicToken: 'public-token-test-1',
    getSessionToken: () => manager.sessionToken(),
    fetch: server.fetch,
  });
  manager = new SessionManager({ http, stateKey: KEY, clock });
  return manager;
}

const login = () => loggedInResponse() as unknown as AuthenticateResponse;

describe('backoffDelay', () => {
  it('doubles from 2000 ms, caps the exponent at 7 and adds at most ±175 ms', () => {
    expect(backoffDelay(0, () => 0.5)).toBe(2000);
    expect(backoffDelay(1, () => 0.5)).toBe(4000);
    expect(backoffDelay(7, () => 0.5)).toBe(256000);
    expect(backoffDelay(12, () => 0.5)).toBe(256000);
    expect(backoffDelay(0, () => 0)).toBe(1825);
    expect(backoffDelay(0, () => 0.999999)).toBe(2175);
  });
});

describe('SessionManager', () => {
  let server: FakeServer;
  beforeEach(() => {
    vi.useFakeTimers();
    server = new FakeServer();
  });
  afterEach(() => vi.useRealTimers());

  it('writes cookies and state on login and notifies listeners', () => {
    const m = setup(server);
    setCookie(IST_COOKIE, 'old-ist', new Date(Date.now() + 60000));
    const seen: unknown[] = [];
    m.onChange((s) => seen.push(s?.member_session.member_session_id ?? null));
    m.applyAuthResponse(login());
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(getCookie(SESSION_JWT_COOKIE)).toBe('session-jwt-1');
    expect(getCookie(IST_COOKIE)).toBeNull();
    expect(JSON.parse(localStorage.getItem(KEY)!).session.member_session_id).toBe('member-session-test-1');
    expect(m.getSync()).toMatchObject({ member: { member_id: 'member-test-1' }, session_token: 'session-token-1', session_jwt: 'session-jwt-1' });
    expect(seen).toEqual(['member-session-test-1']);
  });

  it('keeps only the intermediate session token when there is no member session', () => {
    const m = setup(server);
    m.applyAuthResponse(login());
    m.applyAuthResponse({ ...login(), member_session: null, intermediate_session_token: 'ist-1' });
    expect(getCookie(IST_COOKIE)).toBe('ist-1');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    expect(m.getSync()).toBeNull();
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('a discovery answer logs out locally and keeps its intermediate session token for 10 minutes', () => {
    const m = setup(server);
    m.applyAuthResponse(login());
    m.applyDiscoveryResponse({ intermediate_session_token: 'ist-discovery' });
    expect(getCookie(IST_COOKIE)).toBe('ist-discovery');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    expect(getCookie(SESSION_JWT_COOKIE)).toBeNull();
    expect(m.getSync()).toBeNull();
    m.applyDiscoveryResponse({ intermediate_session_token: '' });
    expect(getCookie(IST_COOKIE)).toBeNull();
  });

  it('refreshes every 3 minutes with an empty body', async () => {
    server.on('POST', REFRESH, json(loggedInResponse({ session_jwt: 'session-jwt-2' })));
    const m = setup(server);
    m.applyAuthResponse(login());
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS - 1);
    expect(server.callsTo(REFRESH)).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo(REFRESH)).toHaveLength(1);
    expect(server.callsTo(REFRESH)[0]!.body).toEqual({});
    expect(server.callsTo(REFRESH)[0]!.headers.Authorization).toBe(`Basic ${btoa('public-token-test-1:session-token-1')}`);
    expect(getCookie(SESSION_JWT_COOKIE)).toBe('session-jwt-2');
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    expect(server.callsTo(REFRESH)).toHaveLength(2);
  });

  it('retries recoverable failures with exponential backoff and keeps the session', async () => {
    let failures = 3;
    server.on('POST', REFRESH, () => (failures-- > 0 ? { status: 503, text: 'unavailable' } : json(loggedInResponse())));
    const m = setup(server);
    m.applyAuthResponse(login());
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    expect(server.callsTo(REFRESH)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1999);
    expect(server.callsTo(REFRESH)).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(server.callsTo(REFRESH)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(4000);
    expect(server.callsTo(REFRESH)).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(8000);
    expect(server.callsTo(REFRESH)).toHaveLength(4);
    expect(m.getSync()).not.toBeNull();
    // Success resets the cycle to the regular interval.
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    expect(server.callsTo(REFRESH)).toHaveLength(5);
  });

  it.each(['unauthorized_credentials', 'user_unauthenticated', 'invalid_secret_authentication', 'session_not_found'])(
    'logs out locally on the unrecoverable error %s and stops refreshing',
    async (errorType) => {
      server.on('POST', REFRESH, apiError(401, errorType));
      const m = setup(server);
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      m.applyAuthResponse(login());
      const changes: unknown[] = [];
      m.onChange((s) => changes.push(s));
      await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
      expect(changes).toEqual([null]);
      expect(getCookie(SESSION_COOKIE)).toBeNull();
      expect(getCookie(SESSION_JWT_COOKIE)).toBeNull();
      expect(localStorage.getItem(KEY)).toBeNull();
      expect(warn).toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS * 3);
      expect(server.callsTo(REFRESH)).toHaveLength(1);
    },
  );

  it('logs out locally when a refresh answers 2xx without a member session', async () => {
    server.on('POST', REFRESH, json(loggedInResponse({ member_session: null })));
    const m = setup(server);
    m.applyAuthResponse(login());
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    expect(m.getSync()).toBeNull();
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('discards a refresh answer that arrives after a newer login', async () => {
    let answer: (v: unknown) => void = () => undefined;
    server.on('POST', REFRESH, () => new Promise((resolve) => (answer = resolve)).then(() => apiError(404, 'session_not_found')));
    const m = setup(server);
    m.applyAuthResponse(login());
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    m.applyAuthResponse(loggedInResponse({ session_token: 'session-token-new' }) as unknown as AuthenticateResponse);
    answer(null);
    await vi.advanceTimersByTimeAsync(0);
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-new');
    expect(m.getSync()).not.toBeNull();
  });

  it('refreshes at once on startup when a session cookie exists', async () => {
    server.on('POST', REFRESH, json(loggedInResponse()));
    setCookie(SESSION_COOKIE, 'session-token-1', new Date(Date.now() + 3600000));
    const m = setup(server);
    m.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(server.callsTo(REFRESH)).toHaveLength(1);
    expect(m.getSync()?.member.member_id).toBe('member-test-1');
    m.stop();
  });

  it('drops cached state on startup without a session cookie and makes no call', async () => {
    localStorage.setItem(KEY, JSON.stringify({ member: {}, organization: {}, session: { member_session_id: 'x' } }));
    const m = setup(server);
    expect(m.getSync()).not.toBeNull();
    m.start();
    await vi.advanceTimersByTimeAsync(REFRESH_INTERVAL_MS);
    expect(m.getSync()).toBeNull();
    expect(localStorage.getItem(KEY)).toBeNull();
    expect(server.calls).toHaveLength(0);
    m.stop();
  });

  it('revoke ends the session on the server, then clears every cookie and the state', async () => {
    server.on('POST', '/b2b/sessions/revoke', json({}));
    const m = setup(server);
    m.applyAuthResponse(login());
    setCookie(IST_COOKIE, 'ist', new Date(Date.now() + 60000));
    await m.revoke();
    expect(server.callsTo('/b2b/sessions/revoke')[0]!.headers.Authorization).toBe(`Basic ${btoa('public-token-test-1:session-token-1')}`);
    expect([getCookie(SESSION_COOKIE), getCookie(SESSION_JWT_COOKIE), getCookie(IST_COOKIE)]).toEqual([null, null, null]);
    expect(m.getSync()).toBeNull();
  });

  it('keeps the session when revoke fails for a recoverable reason', async () => {
    server.on('POST', '/b2b/sessions/revoke', 'network-error');
    const m = setup(server);
    m.applyAuthResponse(login());
    await expect(m.revoke()).rejects.toThrow('Unable to contact our servers.');
    expect(m.getSync()).not.toBeNull();
  });
});
