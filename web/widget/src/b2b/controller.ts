/**
 * The login flow's effects: every network call, storage access and callback of the widget runs
 * here, outside the screens. Screens call these methods and render the store. Discovery and the
 * methods that leave the page live in discoveryFlow.ts and redirects.ts.
 */
import {
  magicLinkDiscoverySend,
  magicLinkEmailLoginOrSignup,
  otpEmailAuthenticate,
  otpEmailDiscoveryAuthenticate,
  otpEmailDiscoverySend,
  otpEmailLoginOrSignup,
  searchOrganization,
} from '../api/operations';
import type { AuthenticateResponseWithMFA, DiscoveryAuthenticateResponse } from '../api/types';
import { AuthFlowType, B2BProducts } from './config';
import type { DiscoveryEntry, DiscoveryFlow } from './discoveryFlow';
import { EventType } from './events';
import { FlowCore, type ActionResult, type ControllerDeps } from './flowCore';
import type { MfaFlow } from './mfaFlow';
import { importPart, type PartModules, type PartName } from './parts';
import { PasswordActions } from './passwordActions';
import type { PasswordFlow } from './passwordFlow';
import type { PasswordResetFlow } from './passwordReset';
import { resetEntry, stripResetParams } from './passwordRules';
import { Redirects } from './redirects';
import { ResetEmailStore } from './resetEmail';
import type { SsoDiscoveryFlow } from './sso/ssoDiscoveryFlow';
import { isDiscovering, selectEmailMethods } from './selectors';
import { slugFromURL } from './slug';
import { ErrorType, Screen } from './state/types';
import { readUrlToken, stripUrlToken, type UrlToken } from './urlToken';

export type { ActionResult, ControllerDeps, Emitter, LoginBackend } from './flowCore';

/** Lifetime the UI assumes for an emailed passcode (spec section 9). */
export const EMAIL_OTP_LIFETIME_MS = 10 * 60 * 1000;

export class LoginController {
  private started = false;
  private readonly core: FlowCore;
  /** OAuth and SSO starts, and the entries whose screens come later. */
  readonly redirects: Redirects;
  /** Password sign-in, and the emails that let a member set a password (effects in their part). */
  readonly passwords: PasswordActions;
  /** The email a reset link went to, for the reset page's strength check (resetEmail.ts). */
  private readonly resetEmail: ResetEmailStore;
  /** The parts loaded so far (parts.ts), and the flows they brought. */
  private readonly parts: Partial<PartModules> = {};
  private discoveryFlow: DiscoveryFlow | null = null;
  private mfaFlow: MfaFlow | null = null;
  private passwordFlow: PasswordFlow | null = null;
  private resetFlow: PasswordResetFlow | null = null;
  private ssoFlow: SsoDiscoveryFlow | null = null;

  constructor(private readonly deps: ControllerDeps) {
    this.core = new FlowCore(deps);
    this.redirects = new Redirects(this.core);
    this.core.onMfaEntered = () => {
      this.loadPart('mfa').then(
        () => this.mfa.begin(),
        (err: unknown) => this.partFailed(err),
      );
    };
    this.resetEmail = new ResetEmailStore(deps.backend.publicToken);
    this.passwords = new PasswordActions(this.core, () => this.loadPasswordFlow());
  }

  /** What follows a discovery authenticate, in whichever flow: the discovery part, loaded first. */
  private readonly discoveryEntry: DiscoveryEntry = {
    authenticated: async (resp, event) => {
      try {
        await this.loadPart('discovery');
      } catch (err) {
        this.partFailed(err);
        return;
      }
      await this.discovery.authenticated(resp, event);
    },
  };

  /** The password effects, their part loaded first. */
  private async loadPasswordFlow(): Promise<PasswordFlow> {
    await this.loadPart('passwords');
    if (!this.passwordFlow) throw new Error('Latchkey: the passwords part brought no flow');
    return this.passwordFlow;
  }

  /** The organization list: choose, create, or be logged in directly. Present once its part is loaded. */
  get discovery(): DiscoveryFlow {
    if (!this.discoveryFlow) throw new Error('Latchkey: the discovery part is not loaded');
    return this.discoveryFlow;
  }

  /** Multi-factor authentication after a primary login. Its screens render once its part is loaded. */
  get mfa(): MfaFlow {
    if (!this.mfaFlow) throw new Error('Latchkey: the MFA part is not loaded');
    return this.mfaFlow;
  }

  /** The reset page and the strength check of a new password. Present once its part is loaded. */
  get passwordReset(): PasswordResetFlow {
    if (!this.resetFlow) throw new Error('Latchkey: the password reset part is not loaded');
    return this.resetFlow;
  }

  /** SSO discovery: the email's connections, the slug fallback. Present once its part is loaded. */
  get ssoDiscovery(): SsoDiscoveryFlow {
    if (!this.ssoFlow) throw new Error('Latchkey: the SSO discovery part is not loaded');
    return this.ssoFlow;
  }

  /** A loaded part, so a screen of it renders without waiting. */
  loadedPart<K extends PartName>(name: K): PartModules[K] | undefined {
    return this.parts[name];
  }

  /** Loads a part (once) and creates its flow for this widget. */
  async loadPart<K extends PartName>(name: K): Promise<PartModules[K]> {
    const loaded = this.parts[name];
    if (loaded) return loaded;
    const part = await importPart[name]();
    this.parts[name] ??= part;
    // The flows a part brings, created once per widget.
    const m: PartModules[PartName] = part;
    if ('DiscoveryFlow' in m) this.discoveryFlow ??= new m.DiscoveryFlow(this.core, this.redirects);
    if ('MfaFlow' in m) this.mfaFlow ??= new m.MfaFlow(this.core);
    if ('SsoDiscoveryFlow' in m) this.ssoFlow ??= new m.SsoDiscoveryFlow(this.core, this.redirects);
    if ('PasswordFlow' in m) this.passwordFlow ??= new m.PasswordFlow(this.core, this.discoveryEntry, this.resetEmail);
    if ('PasswordResetFlow' in m) {
      this.resetFlow ??= new m.PasswordResetFlow(this.core, this.discoveryEntry, this.resetEmail);
    }
    return part;
  }

  /** A part could not be loaded (offline, a deploy in between): the Error screen, with a way back. */
  partFailed(err: unknown): void {
    console.error('Latchkey: a part of the widget could not be loaded', err);
    this.core.fail(null, ErrorType.Default, true);
  }

  /** Runs once per mounted widget: last used method, URL token, organization lookup, telemetry. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const { backend, store, getConfig, getRawConfig } = this.deps;
    const config = getConfig();
    if (config.unsupportedProducts.length > 0) {
      console.warn(`Latchkey: products not available in this build yet: ${config.unsupportedProducts.join(', ')}`);
    }
    store.dispatch({ type: 'lastUsedMethodLoaded', method: backend.lastUsedMethod.get() });
    void backend.bootstrap().then((bootstrap) =>
      backend.logEvent('render_b2b_login_screen', { options: getRawConfig(), bootstrap }),
    );
    // A reset page handles its own token (spec section 4: URL tokens are skipped for resets). The
    // token leaves the address at once and waits in memory for the reset part.
    const reset = resetEntry(window.location.search, config.authFlowType);
    if (reset) {
      window.history.replaceState(window.history.state, '', stripResetParams(window.location.href));
      store.dispatch({ type: 'passwordResetEntered', tokenType: reset.tokenType });
      // A magic link to the reset page (a member verifying the address to set a first password)
      // logs the member in before the form shows, redeemed as a login link is (urlTokenFlow.ts),
      // in the locale the link was sent in (PasswordFlow.sendVerifyLink prefers the password one).
      const link = reset.tokenType === 'multi_tenant_magic_links' ? reset.token : null;
      if (link) this.loadPart('urlToken').catch(() => undefined); // fetched beside the reset part
      this.loadPart('passwordReset').then(
        () => {
          this.passwordReset.enter(reset.token);
          if (link) {
            const locale = config.passwordOptions.locale ?? config.emailMagicLinksOptions.locale;
            void this.redeemUrlToken({ type: 'multi_tenant_magic_links', token: link }, locale);
          }
        },
        (err: unknown) => this.partFailed(err),
      );
      return;
    }
    // Floating One Tap only: no form, and the page's token is left to the page (api-reference 3.6).
    // A page that carries a token is the end of a login, so it does not prompt for another one.
    const landing = readUrlToken(window.location.search) !== null;
    if (!config.oneTap.floatingOnly) void this.authenticateUrlToken();
    void this.lookupOrganization().then(() => (landing ? undefined : this.startOneTap()));
    // Fetched now, while the member reads the first screen, so a password Continue does not wait
    // for it. A failure is left to the first action, which loads it again.
    if (config.products.includes(B2BProducts.passwords)) this.loadPart('passwords').catch(() => undefined);
  }

  /**
   * 'Continue with SSO' in discovery: loads the SSO discovery part, then shows its email step (the
   * button stays busy meanwhile, and a failed load is its inline error).
   */
  async startSsoDiscovery(): Promise<ActionResult> {
    try {
      await this.loadPart('ssoDiscovery');
    } catch (err) {
      return this.core.failInline(err);
    }
    this.deps.store.dispatch({ type: 'ssoDiscoveryStarted' });
    return { ok: true };
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
    return this.core.failInline(null);
  }

  /** Sends a login link: for the organization, or in discovery a link to the organization list. */
  async sendMagicLink(email: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.deps;
    const state = store.getState();
    const organization = state.flowState.organization;
    const discovering = isDiscovering(state);
    if (!organization && !discovering) return this.core.failInline(null);
    const opts = getConfig().emailMagicLinksOptions;
    try {
      const bootstrap = await backend.bootstrap();
      const challenge = bootstrap.pkceRequiredForEmailMagicLinks
        ? (await backend.pkce.getOrCreate('magic_links')).code_challenge
        : undefined;
      if (organization) {
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
      } else {
        await magicLinkDiscoverySend(backend.http, {
          email_address: email,
          discovery_redirect_url: opts.discoveryRedirectURL,
          login_template_id: opts.loginTemplateId,
          locale: opts.locale,
          pkce_code_challenge: challenge,
        });
      }
    } catch (err) {
      return this.core.failInline(err, email);
    }
    store.dispatch({ type: 'magicLinkSent', email });
    backend.lastUsedMethod.set('emailMagicLinks');
    const event = organization ? EventType.B2BMagicLinkEmailLoginOrSignup : EventType.B2BMagicLinkEmailDiscoverySend;
    this.deps.emit.event(event, { email_address: email });
    return { ok: true };
  }

  /** Sends an email passcode: for the organization, or in discovery one that lists organizations. */
  async sendOtp(email: string): Promise<ActionResult> {
    const { backend, store, getConfig } = this.deps;
    const state = store.getState();
    const organization = state.flowState.organization;
    if (!organization && !isDiscovering(state)) return this.core.failInline(null);
    const opts = getConfig().emailOtpOptions;
    try {
      if (organization) {
        await otpEmailLoginOrSignup(backend.http, {
          organization_id: organization.organization_id,
          email_address: email,
          login_template_id: opts.loginTemplateId,
          signup_template_id: opts.signupTemplateId,
          locale: opts.locale,
        });
      } else {
        await otpEmailDiscoverySend(backend.http, {
          email_address: email,
          login_template_id: opts.loginTemplateId,
          locale: opts.locale,
        });
      }
    } catch (err) {
      return this.core.failInline(err, email);
    }
    store.dispatch({ type: 'otpSent', email, codeExpiration: backend.clock.now() + EMAIL_OTP_LIFETIME_MS });
    backend.lastUsedMethod.set('emailOtp');
    const event = organization ? EventType.B2BOTPEmailLoginOrSignup : EventType.B2BOTPEmailDiscoverySend;
    this.deps.emit.event(event, { email_address: email });
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
    if (!organization) {
      if (isDiscovering(state)) return this.authenticateDiscoveryOtp(code, email);
      return this.core.failInline(null);
    }
    let resp: AuthenticateResponseWithMFA;
    try {
      resp = await otpEmailAuthenticate(backend.http, {
        code,
        email_address: email,
        organization_id: organization.organization_id,
        session_duration_minutes: getConfig().sessionDurationMinutes,
        intermediate_session_token: this.core.intermediateSessionToken(),
      });
    } catch (err) {
      return this.core.failInline(err, email);
    }
    backend.session.applyAuthResponse(resp);
    this.deps.emit.event(EventType.B2BOTPEmailAuthenticate, resp);
    this.core.completePrimary(resp);
    return { ok: true };
  }

  private async authenticateDiscoveryOtp(code: string, email: string): Promise<ActionResult> {
    let resp: DiscoveryAuthenticateResponse;
    try {
      resp = await otpEmailDiscoveryAuthenticate(this.deps.backend.http, { code, email_address: email });
    } catch (err) {
      return this.core.failInline(err, email);
    }
    await this.discoveryEntry.authenticated(resp, EventType.B2BOTPEmailDiscoveryAuthenticate);
    return { ok: true };
  }

  /**
   * Spec section 4: a token in the page address is authenticated once, then removed. Its redemption
   * is a part (urlTokenFlow.ts) that loads while "Logging in..." shows.
   */
  private async authenticateUrlToken(): Promise<void> {
    const urlToken = readUrlToken(window.location.search);
    if (!urlToken) return;
    // Removed before the call so a reload cannot replay a token that is being redeemed.
    stripUrlToken();
    await this.redeemUrlToken(urlToken);
  }

  /** Shows "Logging in..." while the URL-token part loads, then redeems `urlToken` with it. */
  private async redeemUrlToken(urlToken: UrlToken, emailLocale?: string): Promise<void> {
    this.deps.store.dispatch({ type: 'urlTokenAuthenticating', active: true });
    let part: PartModules['urlToken'];
    try {
      part = await this.loadPart('urlToken');
    } catch (err) {
      this.partFailed(err);
      return;
    }
    await part.redeemUrlToken(this.core, this.discoveryEntry, urlToken, emailLocale);
  }

  /** Google One Tap, when configured; its code is a lazy chunk, as most pages never use it. */
  private async startOneTap(): Promise<void> {
    if (!this.deps.getConfig().oneTap.enabled) return;
    const { OneTapFlow } = await import('./oneTap');
    await new OneTapFlow(this.core, this.redirects).start();
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
      // The Error screen only while the lookup still decides the screen: a token from the page
      // address may be logging the member in, or have done so already. Reported either way.
      store.dispatch({ type: 'organizationMissing', errorType: ErrorType.Default });
      this.core.failInline(err);
    }
  }

  private reportOrganizationMissing(): void {
    const { store, emit, getTranslate } = this.deps;
    store.dispatch({ type: 'organizationMissing' });
    // Reported only when it became the screen: a page landing with a token reports that token's outcome.
    const { screen, error } = store.getState();
    if (screen !== Screen.Error || error?.type !== ErrorType.Organization) return;
    emit.error({ message: getTranslate()('error.screen.Organization') });
  }
}
