/**
 * The password sign-in effects (api-reference 3.3, "B2B UI password flow"): the email step and its
 * member lookup, password login in an organization or in discovery, and the emails that let a
 * member set a password (reset link, or a magic link that verifies a new member first). The reset
 * page itself is passwordReset.ts. A part loaded on demand (parts/passwords.ts); the screens reach
 * it through passwordActions.ts.
 */
import { magicLinkEmailLoginOrSignup } from '../api/operations';
import {
  passwordAuthenticate,
  passwordDiscoveryAuthenticate,
  passwordDiscoveryResetStart,
  passwordResetByEmailStart,
  searchMember,
} from '../api/passwordSignIn';
import type { Organization } from '../api/types';
import type { DiscoveryEntry } from './discoveryFlow';
import { isValidEmail } from './email';
import { EventType } from './events';
import type { ActionResult, FlowCore } from './flowCore';
import { emailEligibleForJit } from './passwordRules';
import type { ResetEmailStore } from './resetEmail';
import { isDiscovering } from './selectors';

const ok: ActionResult = { ok: true };

export class PasswordFlow {
  constructor(
    private readonly core: FlowCore,
    private readonly discovery: DiscoveryEntry,
    private readonly resetEmail: ResetEmailStore,
  ) {}

  /**
   * The email step. In an organization the member lookup decides: a member goes on to the
   * password, anyone else to the link that verifies the address (if the organization admits them).
   */
  async submitEmail(typed: string): Promise<ActionResult> {
    const { store, backend } = this.core.deps;
    const email = typed.trim();
    const invalid = this.invalidEmail(email);
    if (invalid) return invalid;
    const state = store.getState();
    const organization = state.flowState.organization;
    if (!organization) {
      if (!isDiscovering(state)) return this.core.failInline(null);
      store.dispatch({ type: 'passwordAuthenticateRequested', email });
      return ok;
    }
    let member: unknown;
    try {
      ({ member } = await searchMember(backend.http, { email_address: email, organization_id: organization.organization_id }));
    } catch (err) {
      return this.core.failInline(err, email);
    }
    if (member) {
      store.dispatch({ type: 'passwordAuthenticateRequested', email });
      return ok;
    }
    return this.sendVerifyLink(email, organization);
  }

  /** Password Authenticate's Continue: an organization login, or discovery of the email's organizations. */
  async authenticate(typed: string, password: string): Promise<ActionResult> {
    const { store, backend, getConfig, emit } = this.core.deps;
    const email = typed.trim();
    const invalid = this.invalidEmail(email);
    if (invalid) return invalid;
    if (!password) return { ok: false, message: this.core.deps.getTranslate()('password.required') };
    const state = store.getState();
    const organization = state.flowState.organization;
    if (!organization) {
      if (!isDiscovering(state)) return this.core.failInline(null);
      let resp;
      try {
        resp = await passwordDiscoveryAuthenticate(backend.http, { email_address: email, password });
      } catch (err) {
        return this.core.failInline(err, email);
      }
      backend.lastUsedMethod.set('passwords');
      await this.discovery.authenticated(resp, EventType.B2BPasswordDiscoveryAuthenticate);
      return ok;
    }
    const config = getConfig();
    let resp;
    try {
      resp = await passwordAuthenticate(backend.http, {
        organization_id: organization.organization_id,
        email_address: email,
        password,
        session_duration_minutes: config.sessionDurationMinutes,
        locale: config.passwordOptions.locale,
        intermediate_session_token: this.core.intermediateSessionToken(),
      });
    } catch (err) {
      return this.core.failInline(err, email);
    }
    backend.session.applyAuthResponse(resp);
    backend.lastUsedMethod.set('passwords');
    emit.event(EventType.B2BPasswordAuthenticate, resp);
    this.core.completePrimary(resp);
    return ok;
  }

  /**
   * Password Forgot Form (also its confirmation's resend): in discovery a discovery reset link; in
   * an organization a reset link for a member, otherwise the verification link of a new member.
   */
  async forgot(typed: string): Promise<ActionResult> {
    const { store, backend, getConfig } = this.core.deps;
    const email = typed.trim();
    const invalid = this.invalidEmail(email);
    if (invalid) return invalid;
    const state = store.getState();
    const organization = state.flowState.organization;
    const opts = getConfig().passwordOptions;
    const common = {
      email_address: email,
      reset_password_redirect_url: opts.resetPasswordRedirectURL,
      reset_password_expiration_minutes: opts.resetPasswordExpirationMinutes,
      reset_password_template_id: opts.resetPasswordTemplateId,
      verify_email_template_id: opts.verifyEmailTemplateId,
      locale: opts.locale,
    };
    if (!organization) {
      if (!isDiscovering(state)) return this.core.failInline(null);
      try {
        await passwordDiscoveryResetStart(backend.http, {
          ...common,
          discovery_redirect_url: opts.discoveryRedirectURL ?? getConfig().emailMagicLinksOptions.discoveryRedirectURL,
          pkce_code_challenge: await this.resetChallenge(),
        });
      } catch (err) {
        return this.core.failInline(err, email);
      }
      return this.resetLinkSent(email, EventType.B2BPasswordDiscoveryResetStart);
    }
    try {
      const { member } = await searchMember(backend.http, { email_address: email, organization_id: organization.organization_id });
      if (!member) return await this.sendVerifyLink(email, organization);
      await passwordResetByEmailStart(backend.http, {
        ...common,
        organization_id: organization.organization_id,
        login_redirect_url: opts.loginRedirectURL,
        code_challenge: await this.resetChallenge(),
      });
    } catch (err) {
      return this.core.failInline(err, email);
    }
    return this.resetLinkSent(email, EventType.B2BPasswordResetByEmailStart);
  }

  private resetLinkSent(email: string, event: EventType): ActionResult {
    this.resetEmail.set(email);
    this.core.deps.emit.event(event, { email_address: email });
    this.core.deps.store.dispatch({ type: 'passwordResetLinkSent', email });
    return ok;
  }

  /**
   * A non-member: if the organization admits the address, a magic link to the reset page verifies
   * it (the member then sets a password with that session); otherwise the access message.
   */
  private async sendVerifyLink(email: string, organization: Organization): Promise<ActionResult> {
    const { store, backend, getConfig, getTranslate, emit } = this.core.deps;
    if (!emailEligibleForJit(organization, email)) {
      const message = getTranslate()('email.jitNotAllowed', { email, organizationName: organization.organization_name });
      emit.error({ message });
      return { ok: false, message };
    }
    const config = getConfig();
    const redirect = config.passwordOptions.resetPasswordRedirectURL;
    const eml = config.emailMagicLinksOptions;
    // Stored first: the reset page opened from the email reads it (api-reference 3.3).
    this.resetEmail.set(email);
    try {
      const bootstrap = await backend.bootstrap();
      const challenge = bootstrap.pkceRequiredForEmailMagicLinks
        ? (await backend.pkce.getOrCreate('magic_links')).code_challenge
        : undefined;
      await magicLinkEmailLoginOrSignup(backend.http, {
        email_address: email,
        organization_id: organization.organization_id,
        login_redirect_url: redirect,
        signup_redirect_url: redirect,
        login_template_id: eml.loginTemplateId,
        signup_template_id: eml.signupTemplateId,
        locale: config.passwordOptions.locale ?? eml.locale,
        pkce_code_challenge: challenge,
      });
    } catch (err) {
      return this.core.failInline(err, email);
    }
    emit.event(EventType.B2BMagicLinkEmailLoginOrSignup, { email_address: email });
    store.dispatch({ type: 'passwordVerifyLinkSent', email });
    return ok;
  }

  /** The PKCE challenge of a reset start, when the project requires one (kept for the reset page). */
  private async resetChallenge(): Promise<string | undefined> {
    const { backend } = this.core.deps;
    if (!(await backend.bootstrap()).pkceRequiredForPasswordResets) return undefined;
    return (await backend.pkce.getOrCreate('passwords')).code_challenge;
  }

  /** Spec section 5: 'Invalid email address' before anything is sent. */
  private invalidEmail(email: string): ActionResult | null {
    return isValidEmail(email) ? null : { ok: false, message: this.core.deps.getTranslate()('email.invalid') };
  }
}
