/**
 * The login flow's effects: every network call, storage access and callback of the widget runs
 * here, outside the screens. Screens call these methods and render the store.
 */
import type { BootstrapData } from '../api/bootstrap';
import { APIError } from '../api/errors';
import type { HttpClient } from '../api/http';
import {
  magicLinkAuthenticate,
  magicLinkEmailLoginOrSignup,
  otpEmailAuthenticate,
  otpEmailLoginOrSignup,
  searchOrganization,
} from '../api/operations';
import type { PkceStore } from '../api/pkce';
import type { AuthenticateResponseWithMFA } from '../api/types';
import type { Clock } from '../clock';
import type { SessionManager } from '../session/manager';
import type { Translate } from '../strings/t';
import { AuthFlowType, type NormalizedConfig } from './config';
import { errorMessage, errorPayload, errorScreenMessage, type WidgetErrorPayload } from './errorMessages';
import { EventType } from './events';
import { selectEmailMethods } from './selectors';
import { slugFromURL } from './slug';
import type { Store } from './state/store';
import { ErrorType, Screen } from './state/types';
import { readUrlToken, stripUrlToken } from './urlToken';

/** Lifetime the UI assumes for an emailed passcode (spec section 9). */
export const EMAIL_OTP_LIFETIME_MS = 10 * 60 * 1000;

/** What the controller needs from the client; B2BClient implements it. */
export interface LoginBackend {
  http: HttpClient;
  session: Pick<SessionManager, 'applyAuthResponse' | 'intermediateSessionToken'>;
  pkce: PkceStore;
  bootstrap(): Promise<BootstrapData>;
  logEvent(name: string, details: unknown): void;
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

export class LoginController {
  private started = false;

  constructor(private readonly deps: ControllerDeps) {}

  /** Runs once per mounted widget: URL token, organization lookup, render telemetry. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { backend, getConfig, getRawConfig } = this.deps;
    const config = getConfig();
    if (config.unsupportedProducts.length > 0) {
      console.warn(`Latchkey: products not available in this build yet: ${config.unsupportedProducts.join(', ')}`);
    }
    void backend.bootstrap().then((bootstrap) =>
      backend.logEvent('render_b2b_login_screen', { options: getRawConfig(), bootstrap }),
    );
    if (config.authFlowType === AuthFlowType.PasswordReset) {
      console.error('Latchkey: the PasswordReset flow is not available in this build yet.');
      this.fail(null, ErrorType.Default, false);
      return;
    }
    void this.authenticateUrlToken();
    void this.lookupOrganization();
  }

  back(): void {
    this.deps.store.dispatch({ type: 'back' });
  }

  returnToMain(): void {
    this.deps.store.dispatch({ type: 'returnToMain' });
  }

  /** Email form submission: method selection when both email methods are offered, else send. */
  async submitEmail(email: string): Promise<ActionResult> {
    const { magicLink, otp } = selectEmailMethods(this.deps.store.getState(), this.deps.getConfig());
    if (magicLink && otp) {
      this.deps.store.dispatch({ type: 'emailMethodSelectionRequested', email });
      return { ok: true };
    }
    if (magicLink) return this.sendMagicLink(email);
    if (otp) return this.sendOtp(email);
    return this.failInline(null);
  }

  async sendMagicLink(email: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.deps;
    const organization = store.getState().flowState.organization;
    if (!organization) return this.failInline(null);
    const opts = getConfig().emailMagicLinksOptions;
    try {
      const bootstrap = await backend.bootstrap();
      const challenge = bootstrap.pkceRequiredForEmailMagicLinks
        ? (await backend.pkce.getOrCreate('magic_links')).code_challenge
        : undefined;
      await magicLinkEmailLoginOrSignup(backend.http, {
        email_address: email,
        organization_id: organization.organization_id,
        login_redirect_url: opts.loginRedirectURL,
        signup_redirect_url: opts.signupRedirectURL,
        login_template_id: opts.loginTemplateId,
        signup_template_id: opts.signupTemplateId,
        locale: opts.locale,
        pkce_code_challenge: challenge,
      });
    } catch (err) {
      return this.failInline(err, email);
    }
    store.dispatch({ type: 'magicLinkSent', email });
    this.deps.emit.event(EventType.B2BMagicLinkEmailLoginOrSignup, { email_address: email });
    return { ok: true };
  }

  async sendOtp(email: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.deps;
    const organization = store.getState().flowState.organization;
    if (!organization) return this.failInline(null);
    const opts = getConfig().emailOtpOptions;
    try {
      await otpEmailLoginOrSignup(backend.http, {
        organization_id: organization.organization_id,
        email_address: email,
        login_template_id: opts.loginTemplateId,
        signup_template_id: opts.signupTemplateId,
        locale: opts.locale,
      });
    } catch (err) {
      return this.failInline(err, email);
    }
    store.dispatch({ type: 'otpSent', email, codeExpiration: backend.clock.now() + EMAIL_OTP_LIFETIME_MS });
    this.deps.emit.event(EventType.B2BOTPEmailLoginOrSignup, { email_address: email });
    return { ok: true };
  }

  resendMagicLink(): Promise<ActionResult> {
    return this.sendMagicLink(this.deps.store.getState().formState.emailState.userSuppliedEmail);
  }

  resendOtp(): Promise<ActionResult> {
    return this.sendOtp(this.deps.store.getState().formState.emailState.userSuppliedEmail);
  }

  async authenticateOtp(code: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.deps;
    const state = store.getState();
    const organization = state.flowState.organization;
    const email = state.formState.emailState.userSuppliedEmail;
    if (!organization) return this.failInline(null);
    let resp: AuthenticateResponseWithMFA;
    try {
      resp = await otpEmailAuthenticate(backend.http, {
        code,
        email_address: email,
        organization_id: organization.organization_id,
        session_duration_minutes: getConfig().sessionDurationMinutes,
        intermediate_session_token: backend.session.intermediateSessionToken() ?? undefined,
      });
    } catch (err) {
      return this.failInline(err, email);
    }
    backend.session.applyAuthResponse(resp);
    this.deps.emit.event(EventType.B2BOTPEmailAuthenticate, resp);
    this.completePrimary(resp);
    return { ok: true };
  }

  /** Spec section 4: a token in the page address is authenticated once, then removed. */
  private async authenticateUrlToken(): Promise<void> {
    const urlToken = readUrlToken(window.location.search);
    if (!urlToken) return;
    // Removed before the call so a reload cannot replay a token that is being redeemed.
    stripUrlToken();
    const { backend, store, getConfig } = this.deps;
    if (urlToken.type !== 'multi_tenant_magic_links') {
      console.error(`Latchkey: "${urlToken.type}" tokens are not supported by this build yet.`);
      this.fail(null, ErrorType.Default, false);
      return;
    }
    store.dispatch({ type: 'urlTokenAuthenticating', active: true });
    let resp: AuthenticateResponseWithMFA;
    try {
      resp = await magicLinkAuthenticate(backend.http, {
        magic_links_token: urlToken.token,
        session_duration_minutes: getConfig().sessionDurationMinutes,
        pkce_code_verifier: backend.pkce.get('magic_links')?.code_verifier,
        intermediate_session_token: backend.session.intermediateSessionToken() ?? undefined,
      });
    } catch (err) {
      const adBlocker = err instanceof APIError && err.error_type === 'ad_blocker_detected';
      this.fail(err, adBlocker ? ErrorType.AdBlockerDetected : ErrorType.EmailMagicLink, false);
      return;
    }
    backend.pkce.clear('magic_links');
    backend.session.applyAuthResponse(resp);
    this.deps.emit.event(EventType.B2BMagicLinkAuthenticate, resp);
    this.completePrimary(resp);
  }

  /** Spec section 4: lookup by slug runs on Main, in the Organization flow, without an organization. */
  private async lookupOrganization(): Promise<void> {
    const { backend, store, getConfig } = this.deps;
    const state = store.getState();
    if (getConfig().authFlowType !== AuthFlowType.Organization || state.flowState.organization) return;
    store.dispatch({ type: 'organizationLookupStarted' });
    let slug = getConfig().organizationSlug;
    if (!slug) slug = slugFromURL((await backend.bootstrap()).slugPattern, window.location.href);
    if (!slug) {
      this.reportOrganizationMissing();
      return;
    }
    try {
      const { organization } = await searchOrganization(backend.http, { organization_slug: slug });
      if (!organization) {
        this.reportOrganizationMissing();
        return;
      }
      store.dispatch({ type: 'organizationResolved', organization });
      this.deps.emit.event(EventType.B2BOrganizationsGetBySlug, { organization });
    } catch (err) {
      this.fail(err, ErrorType.Default, false);
    }
  }

  private reportOrganizationMissing(): void {
    this.deps.store.dispatch({ type: 'organizationMissing' });
    this.deps.emit.error({ message: this.deps.getTranslate()('error.screen.Organization') });
  }

  private completePrimary(resp: AuthenticateResponseWithMFA): void {
    const { store, emit, getTranslate } = this.deps;
    store.dispatch({ type: 'primaryAuthSucceeded', response: resp });
    if (resp.member_session) {
      emit.event(EventType.AuthenticateFlowComplete, {});
      return;
    }
    const state = store.getState();
    if (state.screen !== Screen.Error || !state.error) return;
    if (!resp.primary_required) {
      console.error('Latchkey: this login needs multi-factor authentication, which this build does not support yet.');
    }
    emit.error({ message: errorScreenMessage(state.error.type, getTranslate(), this.context().organizationName) });
  }

  /** Moves to the Error screen and reports the failure. */
  private fail(err: unknown, type: ErrorType, canGoBack: boolean): void {
    this.deps.store.dispatch({ type: 'errorOccurred', errorType: type, canGoBack });
    const t = this.deps.getTranslate();
    const message = err ? errorMessage(err, t, this.context()) : errorScreenMessage(type, t, this.context().organizationName);
    this.deps.emit.error(errorPayload(err, message));
  }

  /** Reports a failure that the current screen shows under its field. */
  private failInline(err: unknown, email?: string): ActionResult {
    const message = errorMessage(err, this.deps.getTranslate(), this.context(email));
    this.deps.emit.error(errorPayload(err, message));
    return { ok: false, message };
  }

  private context(email?: string) {
    const state = this.deps.store.getState();
    return {
      email: email ?? state.formState.emailState.userSuppliedEmail,
      organizationName: state.flowState.organization?.organization_name ?? '',
    };
  }
}
