import { isUnrecoverable } from '../api/errors';
import type { HttpClient } from '../api/http';
import { sessionsAuthenticate, sessionsRevoke } from '../api/operations';
import type { AuthenticateResponse, Member, MemberSession, Organization } from '../api/types';
import { systemClock, type Clock } from '../clock';
import {
  getCookie,
  IST_COOKIE,
  IST_LIFETIME_MS,
  removeCookie,
  SESSION_COOKIE,
  SESSION_JWT_COOKIE,
  setCookie,
} from './cookies';
import { parseStoredState, readStoredState, writeStoredState, type StoredState } from './storage';

/** What `client.session.getSync()` returns and `onChange` listeners receive. */
export interface SessionSnapshot {
  member_session: MemberSession;
  member: Member;
  organization: Organization;
  session_token?: string;
  session_jwt?: string;
}

export const REFRESH_INTERVAL_MS = 3 * 60 * 1000;
const BACKOFF_BASE_MS = 2000;
const BACKOFF_MAX_EXPONENT = 7;
const BACKOFF_JITTER_MS = 175;

/** Retry delay after the n-th consecutive refresh failure: 2000 ms × 2^min(n, 7) ± 175 ms. */
export function backoffDelay(attempt: number, random: () => number): number {
  const exp = Math.min(attempt, BACKOFF_MAX_EXPONENT);
  return BACKOFF_BASE_MS * 2 ** exp + Math.round((random() * 2 - 1) * BACKOFF_JITTER_MS);
}

export interface SessionManagerDeps {
  http: HttpClient;
  stateKey: string;
  clock?: Clock;
}

type Listener = (session: SessionSnapshot | null) => void;

/**
 * Owns the local login state: cookies, the cached state in localStorage, change notification and
 * the background refresh that keeps the session alive (api-reference section 4).
 */
export class SessionManager {
  private state: StoredState | null;
  private readonly listeners = new Set<Listener>();
  private readonly clock: Clock;
  private timer: unknown = null;
  private failures = 0;
  /** Bumped on every state change so a refresh answer for an older state is discarded. */
  private generation = 0;
  private stopped = false;
  private readonly onStorage = (e: StorageEvent) => {
    if (e.key !== this.deps.stateKey) return;
    this.setState(parseStoredState(e.newValue), false);
  };

  constructor(private readonly deps: SessionManagerDeps) {
    this.clock = deps.clock ?? systemClock;
    this.state = readStoredState(deps.stateKey);
  }

  /** Startup: refresh at once when a session cookie exists, otherwise drop the stale cached state. */
  start(): void {
    window.addEventListener('storage', this.onStorage);
    if (getCookie(SESSION_COOKIE)) {
      this.schedule(0);
    } else if (this.state) {
      this.state = null;
      writeStoredState(this.deps.stateKey, null);
    }
  }

  /** Stops timers and listeners; the cookies and stored state stay for the next page. */
  stop(): void {
    this.stopped = true;
    this.cancelTimer();
    window.removeEventListener('storage', this.onStorage);
    this.listeners.clear();
  }

  getSync(): SessionSnapshot | null {
    if (!this.state) return null;
    const snapshot: SessionSnapshot = {
      member_session: this.state.session,
      member: this.state.member,
      organization: this.state.organization,
    };
    const token = getCookie(SESSION_COOKIE);
    const jwt = getCookie(SESSION_JWT_COOKIE);
    if (token) snapshot.session_token = token;
    if (jwt) snapshot.session_jwt = jwt;
    return snapshot;
  }

  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** The session token readable by JS, used as the Basic-auth password. */
  sessionToken(): string | null {
    return getCookie(SESSION_COOKIE);
  }

  intermediateSessionToken(): string | null {
    return getCookie(IST_COOKIE);
  }

  telemetryIds(): { memberId?: string; memberSessionId?: string } {
    if (!this.state) return {};
    return { memberId: this.state.member.member_id, memberSessionId: this.state.session.member_session_id };
  }

  /**
   * Applies an authenticate-type answer (`updateStateAndTokens`, api-reference 1.7): a member
   * session logs in and writes both session cookies; otherwise local state is cleared and the
   * intermediate session token is kept for the next step.
   */
  applyAuthResponse(resp: Pick<AuthenticateResponse, 'member_session' | 'member' | 'organization' | 'session_token' | 'session_jwt' | 'intermediate_session_token'>): void {
    if (resp.member_session) {
      const expires = new Date(resp.member_session.expires_at);
      if (resp.session_token && resp.session_jwt && !Number.isNaN(expires.getTime())) {
        setCookie(SESSION_COOKIE, resp.session_token, expires);
        setCookie(SESSION_JWT_COOKIE, resp.session_jwt, expires);
      } else {
        // HttpOnly mode: the server manages the cookies and the JS copies must not go stale.
        removeCookie(SESSION_COOKIE);
        removeCookie(SESSION_JWT_COOKIE);
      }
      removeCookie(IST_COOKIE);
      this.setState({ session: resp.member_session, member: resp.member, organization: resp.organization }, true);
      return;
    }
    this.keepIntermediate(resp.intermediate_session_token);
  }

  /**
   * Applies a discovery answer: it never carries a session, only the intermediate session token
   * that the organization create and exchange calls then present.
   */
  applyDiscoveryResponse(resp: { intermediate_session_token?: string }): void {
    this.keepIntermediate(resp.intermediate_session_token);
  }

  private keepIntermediate(ist: string | undefined): void {
    removeCookie(SESSION_COOKIE);
    removeCookie(SESSION_JWT_COOKIE);
    if (typeof ist === 'string' && ist !== '') {
      setCookie(IST_COOKIE, ist, new Date(this.clock.now() + IST_LIFETIME_MS));
    } else {
      removeCookie(IST_COOKIE);
    }
    this.setState(null, true);
  }

  /** Local logout after an unrecoverable refresh error: session cookies and state go. */
  destroySession(): void {
    removeCookie(SESSION_COOKIE);
    removeCookie(SESSION_JWT_COOKIE);
    this.setState(null, true);
  }

  /** Full local logout (revoke): the intermediate session token goes too. */
  destroyState(): void {
    removeCookie(IST_COOKIE);
    this.destroySession();
  }

  /** `client.session.authenticate()`: validates (and optionally extends) the session now. */
  async authenticate(opts: { session_duration_minutes?: number } = {}): Promise<AuthenticateResponse> {
    try {
      const resp = await sessionsAuthenticate(this.deps.http, opts);
      this.applyAuthResponse(resp);
      return resp;
    } catch (err) {
      if (isUnrecoverable(err)) this.destroySession();
      throw err;
    }
  }

  /** `client.session.revoke()`: ends the session on the server, then forgets it locally. */
  async revoke(opts: { forceClear?: boolean } = {}): Promise<void> {
    try {
      await sessionsRevoke(this.deps.http);
    } catch (err) {
      if (opts.forceClear || isUnrecoverable(err)) this.destroyState();
      throw err;
    }
    this.destroyState();
  }

  private setState(next: StoredState | null, persist: boolean): void {
    this.state = next;
    this.generation++;
    if (persist) writeStoredState(this.deps.stateKey, next);
    // Every state change restarts the refresh cycle; no session, no refresh.
    this.failures = 0;
    if (next) this.schedule(REFRESH_INTERVAL_MS);
    else this.cancelTimer();
    const snapshot = this.getSync();
    for (const listener of [...this.listeners]) {
      try {
        listener(snapshot);
      } catch (err) {
        console.error('Latchkey: session listener failed', err);
      }
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.cancelTimer();
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, ms);
  }

  private cancelTimer(): void {
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
  }

  private async refresh(): Promise<void> {
    const generation = this.generation;
    let resp: AuthenticateResponse;
    try {
      resp = await sessionsAuthenticate(this.deps.http, {});
    } catch (err) {
      if (this.stopped || generation !== this.generation) return;
      if (isUnrecoverable(err)) {
        console.warn('Latchkey: session refresh failed; logging out locally.', err);
        this.destroySession();
        return;
      }
      this.schedule(backoffDelay(this.failures++, () => this.clock.random()));
      return;
    }
    // A login or logout happened while the call was in flight: its own timer is already running.
    if (this.stopped || generation !== this.generation) return;
    this.applyAuthResponse(resp);
  }
}
