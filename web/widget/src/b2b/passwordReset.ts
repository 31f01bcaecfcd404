/**
 * The reset page (spec sections 2 and 4, api-reference 3.3): entered from an emailed link or a page
 * mounted with the PasswordReset flow, it sets the new password with the link's token or with the
 * member's session. Also the live strength check, debounced 500 ms, that gates its Continue.
 */
import {
  passwordDiscoveryReset,
  passwordResetByEmail,
  passwordResetBySession,
  passwordStrengthCheck,
} from '../api/passwords';
import type { AuthenticateResponseWithMFA } from '../api/types';
import type { Clock } from '../clock';
import { AuthFlowType } from './config';
import type { DiscoveryEntry } from './discoveryFlow';
import { EventType } from './events';
import type { ActionResult, FlowCore } from './flowCore';
import type { ResetEmailStore } from './resetEmail';

/** Spec section 9: the default debounce. */
export const STRENGTH_DEBOUNCE_MS = 500;

/** Runs `fn` once calls stop for `ms`; each call replaces the pending one. */
export class Debouncer {
  private handle: unknown = null;

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
  ) {}

  schedule(fn: () => void): void {
    this.cancel();
    this.handle = this.clock.setTimeout(() => {
      this.handle = null;
      fn();
    }, this.ms);
  }

  cancel(): void {
    if (this.handle !== null) this.clock.clearTimeout(this.handle);
    this.handle = null;
  }
}

export class PasswordResetFlow {
  /** The emailed token, held in memory only: it is removed from the address at once. */
  private token: string | null = null;
  private readonly strength: Debouncer;

  constructor(
    private readonly core: FlowCore,
    private readonly discovery: DiscoveryEntry,
    private readonly resetEmail: ResetEmailStore,
  ) {
    this.strength = new Debouncer(core.deps.backend.clock, STRENGTH_DEBOUNCE_MS);
  }

  /**
   * At mount, once the page was found to reset a password (the controller has already taken the
   * token out of the address, entered the reset form, and redeems a magic link itself): keeps the
   * token for the form.
   */
  enter(token: string | null): void {
    this.token = token;
  }

  /** The reset form's Continue: sets the password the way this page was entered. */
  async submit(password: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.core.deps;
    const reset = store.getState().passwordReset;
    if (!reset) return this.core.failInline(null);
    const config = getConfig();
    // The login goes on in the page's own flow (an organization when the page is only for resets).
    const flow = config.authFlowType === AuthFlowType.PasswordReset ? AuthFlowType.Organization : config.authFlowType;
    const verifier = backend.pkce.get('passwords')?.code_verifier;
    try {
      switch (reset.tokenType) {
        case 'discovery': {
          const resp = await passwordDiscoveryReset(backend.http, {
            password_reset_token: this.token ?? '',
            password,
            pkce_code_verifier: verifier,
          });
          this.done();
          store.dispatch({ type: 'passwordResetCompleted', flow: AuthFlowType.Discovery });
          await this.discovery.authenticated(resp, EventType.B2BPasswordDiscoveryReset);
          return { ok: true };
        }
        case 'multi_tenant_passwords': {
          const resp = await passwordResetByEmail(backend.http, {
            password_reset_token: this.token ?? '',
            password,
            session_duration_minutes: config.sessionDurationMinutes,
            locale: config.passwordOptions.locale,
            code_verifier: verifier,
            intermediate_session_token: this.core.intermediateSessionToken(),
          });
          this.finish(resp, EventType.B2BPasswordResetByEmail, flow);
          return { ok: true };
        }
        case 'multi_tenant_magic_links':
        case 'session': {
          const resp = await passwordResetBySession(backend.http, { password });
          // Always a logged-in answer: the session already passed any MFA.
          const loggedIn = { ...resp, member_authenticated: true, intermediate_session_token: '', mfa_required: null, primary_required: null };
          this.finish(loggedIn, EventType.B2BPasswordResetBySession, flow);
          return { ok: true };
        }
        default: {
          const never: never = reset.tokenType;
          throw new Error(`unknown reset ${String(never)}`);
        }
      }
    } catch (err) {
      return this.core.failInline(err, this.knownEmail());
    }
  }

  private finish(resp: AuthenticateResponseWithMFA, event: EventType, flow: AuthFlowType): void {
    const { backend, store, emit } = this.core.deps;
    this.done();
    backend.session.applyAuthResponse(resp);
    emit.event(event, resp);
    store.dispatch({ type: 'passwordResetCompleted', flow });
    this.core.completePrimary(resp);
  }

  /** The token is spent, and so are the PKCE pair and the remembered email that went with it. */
  private done(): void {
    this.token = null;
    this.core.deps.backend.pkce.clear('passwords');
    this.core.deps.backend.lastUsedMethod.set('passwords');
    this.resetEmail.clear();
  }

  /**
   * The address whose password is being set, or '' when unknown: the one this page's flow asked
   * for, else the one remembered when the reset link was sent (the link may open in a new tab).
   */
  knownEmail(): string {
    return this.core.deps.store.getState().formState.passwordState.email || this.resetEmail.get() || '';
  }

  /** Asks the server about `password` once typing pauses; an empty field clears the verdict. */
  checkStrength(password: string): void {
    if (!password) {
      this.strength.cancel();
      this.core.deps.store.dispatch({ type: 'passwordStrengthCleared' });
      return;
    }
    this.strength.schedule(() => void this.runStrengthCheck(password));
  }

  /** The reset form is gone: a pending check is dropped. */
  cancelStrengthCheck(): void {
    this.strength.cancel();
  }

  private async runStrengthCheck(password: string): Promise<void> {
    const { backend, store } = this.core.deps;
    const email = this.knownEmail() || undefined;
    store.dispatch({ type: 'passwordStrengthChecking', password });
    try {
      const result = await passwordStrengthCheck(backend.http, { password, email_address: email });
      store.dispatch({ type: 'passwordStrengthChecked', password, result });
    } catch (err) {
      store.dispatch({ type: 'passwordStrengthFailed', password });
      // The meter says the check failed; the integrator hears why.
      this.core.failInline(err);
    }
  }
}
