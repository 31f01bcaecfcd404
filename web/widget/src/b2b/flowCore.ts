/**
 * What every part of the login controller shares: its dependencies, and the few steps that end a
 * flow the same way everywhere (error screen, inline error, completion of a primary login).
 */
import type { BootstrapData } from '../api/bootstrap';
import type { HttpClient } from '../api/http';
import type { PkceStore } from '../api/pkce';
import type { AuthenticateResponseWithMFA } from '../api/types';
import type { Clock } from '../clock';
import type { SessionManager } from '../session/manager';
import type { Translate } from '../strings/t';
import type { NormalizedConfig } from './config';
import { errorMessage, errorPayload, errorScreenMessage, type WidgetErrorPayload } from './errorMessages';
import { EventType } from './events';
import type { LastUsedMethodStore } from './lastUsed';
import type { Store } from './state/store';
import { Screen, type ErrorType } from './state/types';

/** What the controller needs from the client; B2BClient implements it. */
export interface LoginBackend {
  http: HttpClient;
  session: Pick<SessionManager, 'applyAuthResponse' | 'applyDiscoveryResponse' | 'intermediateSessionToken'>;
  pkce: PkceStore;
  lastUsedMethod: Pick<LastUsedMethodStore, 'get' | 'set'>;
  bootstrap(): Promise<BootstrapData>;
  logEvent(name: string, details: unknown): void;
  /** Leaves the page for an OAuth or SSO start URL. */
  navigate(url: string): void;
  publicToken: string;
  clock: Clock;
}

export interface Emitter {
  event(type: EventType, data: unknown): void;
  error(payload: WidgetErrorPayload): void;
}

export type ActionResult = { ok: true } | { ok: false; message: string };

export interface ControllerDeps {
  backend: LoginBackend;
  store: Store;
  getConfig: () => NormalizedConfig;
  /** The raw `config` option, reported in the render telemetry event. */
  getRawConfig: () => unknown;
  getTranslate: () => Translate;
  emit: Emitter;
}

export class FlowCore {
  /** Set by the controller: starts what the first multi-factor screen needs (mfaFlow.ts). */
  onMfaEntered: (() => void) | null = null;

  constructor(readonly deps: ControllerDeps) {}

  /** The intermediate session token for IST-flagged calls (api-reference 3), from its cookie. */
  intermediateSessionToken(): string | undefined {
    return this.deps.backend.session.intermediateSessionToken() ?? undefined;
  }

  /** Applies a primary-authentication answer and reports the outcome. */
  completePrimary(resp: AuthenticateResponseWithMFA): void {
    const { store, emit, getTranslate, getConfig, backend } = this.deps;
    const config = getConfig();
    store.dispatch({
      type: 'primaryAuthSucceeded',
      response: resp,
      mfa: { now: backend.clock.now(), productOrder: config.mfaProductOrder, productInclude: config.mfaProductInclude },
    });
    if (resp.member_session) {
      emit.event(EventType.AuthenticateFlowComplete, {});
      return;
    }
    const state = store.getState();
    if (state.mfa.primaryInfo) {
      this.onMfaEntered?.();
      return;
    }
    if (state.screen !== Screen.Error || !state.error) return;
    if (!resp.primary_required) {
      console.error('Latchkey: multi-factor authentication is required, but no method can be used or enrolled.');
    }
    emit.error({ message: errorScreenMessage(state.error.type, getTranslate(), this.context().organizationName) });
  }

  /** Moves to the Error screen and reports the failure. */
  fail(err: unknown, type: ErrorType, canGoBack: boolean): void {
    this.deps.store.dispatch({ type: 'errorOccurred', errorType: type, canGoBack });
    const t = this.deps.getTranslate();
    const message = err ? errorMessage(err, t, this.context()) : errorScreenMessage(type, t, this.context().organizationName);
    this.deps.emit.error(errorPayload(err, message));
  }

  /** Reports a failure that the current screen shows under its field. */
  failInline(err: unknown, email?: string): ActionResult {
    const message = errorMessage(err, this.deps.getTranslate(), this.context(email));
    this.deps.emit.error(errorPayload(err, message));
    return { ok: false, message };
  }

  context(email?: string) {
    const state = this.deps.store.getState();
    return {
      email: email ?? state.formState.emailState.userSuppliedEmail,
      organizationName: state.flowState.organization?.organization_name ?? '',
    };
  }
}
