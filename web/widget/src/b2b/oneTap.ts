/**
 * Google One Tap (api-reference 3.5). With `{type:'google', one_tap:true}` the widget asks the server for
 * the project's Google client id, loads Google's GSI script and shows its prompt. The ID token Google hands
 * back is submitted to the server, which verifies it against Google's keys and answers the URL the browser
 * follows, as after an OAuth callback; the page's token is then redeemed as any `oauth` token.
 *
 * The "Continue with Google" button stays: browsers suppress the prompt after it is dismissed, and a person
 * must still be able to sign in. Setup problems (spec section 8) are developer guidance: they are logged,
 * never shown to the person, who keeps the other methods.
 */
import { oneTapDiscoverySubmit, oneTapStart, oneTapSubmit } from '../api/operations';
import { APIError, navigable } from '../api/errors';
import type { FlowCore } from './flowCore';
import type { Redirects } from './redirects';
import { isDiscovering } from './selectors';
import { ErrorType, Screen } from './state/types';

export const GSI_SCRIPT_URL = 'https://accounts.google.com/gsi/client';

/** The part of Google's `google.accounts.id` API the widget uses. */
export interface GsiId {
  initialize(options: {
    client_id: string;
    callback: (response: { credential?: string }) => void;
    cancel_on_tap_outside?: boolean;
    itp_support?: boolean;
    use_fedcm_for_prompt?: boolean;
  }): void;
  prompt(): void;
}

type GsiWindow = Window & { google?: { accounts?: { id?: GsiId } } };

/** Setup errors with a guidance message each (spec section 8: each sets a configuration warning). */
const SETUP_GUIDANCE: Record<string, string> = {
  oauth_config_not_found: 'Google is not configured for this project: run `latchkey project oauth --provider google`.',
  default_provider_not_allowed: 'Google One Tap needs the project\'s own Google client credentials.',
  unregistered_origin: 'this page\'s origin is not registered for the project, or not with Google.',
  invalid_client: 'Google rejected the client id.',
  no_login_redirect_urls_set: 'the project has no login redirect URL.',
  no_signup_redirect_urls_set: 'the project has no signup redirect URL.',
  no_discovery_redirect_urls_set: 'the project has no discovery redirect URL.',
};

function warnSetup(kind: string): void {
  console.warn(`Latchkey: Google One Tap is off: ${SETUP_GUIDANCE[kind] ?? kind}`);
}

/** Loads GSI once per page; resolves with its API, or null when it cannot load (offline, blocked). */
export function loadGsi(win: GsiWindow = window): Promise<GsiId | null> {
  const ready = win.google?.accounts?.id;
  if (ready) return Promise.resolve(ready);
  return new Promise((resolve) => {
    let script = win.document.querySelector<HTMLScriptElement>(`script[src="${GSI_SCRIPT_URL}"]`);
    if (!script) {
      script = win.document.createElement('script');
      script.src = GSI_SCRIPT_URL;
      script.async = true;
      win.document.head.appendChild(script);
    }
    script.addEventListener('load', () => resolve(win.google?.accounts?.id ?? null), { once: true });
    script.addEventListener('error', () => resolve(null), { once: true });
  });
}

export class OneTapFlow {
  constructor(
    private readonly core: FlowCore,
    private readonly redirects: Redirects,
    private readonly load: () => Promise<GsiId | null> = () => loadGsi(),
  ) {}

  /** Shows the prompt when configured: in discovery, or once the organization is known. */
  async start(): Promise<void> {
    const { backend, store, getConfig } = this.core.deps;
    if (!getConfig().oneTap.enabled) return;
    const state = store.getState();
    if (state.screen !== Screen.Main || (!isDiscovering(state) && !state.flowState.organization)) return;
    let clientId: string;
    try {
      clientId = (await oneTapStart(backend.http)).google_client_id;
    } catch (err) {
      warnSetup(err instanceof APIError ? err.error_type : 'oauth_config_not_found');
      return;
    }
    if (!clientId) {
      warnSetup('oauth_config_not_found');
      return;
    }
    const gsi = await this.load();
    if (!gsi) {
      console.warn('Latchkey: Google One Tap is off: the Google script could not load.');
      return;
    }
    gsi.initialize({
      client_id: clientId,
      callback: (response) => void this.submit(response.credential ?? ''),
      cancel_on_tap_outside: getConfig().oneTap.cancelOnTapOutside,
      itp_support: true,
      use_fedcm_for_prompt: true,
    });
    gsi.prompt();
  }

  /** Sends Google's ID token; the answer is where the browser goes next. */
  async submit(idToken: string): Promise<void> {
    const { backend, store, getConfig } = this.core.deps;
    const config = getConfig();
    const state = store.getState();
    try {
      const bootstrap = await backend.bootstrap();
      const pkce_code_challenge = await this.redirects.challenge('oauth', bootstrap.pkceRequiredForOAuth);
      const organization = state.flowState.organization;
      const { redirect_url } = isDiscovering(state) || !organization
        ? await oneTapDiscoverySubmit(backend.http, {
            id_token: idToken,
            discovery_redirect_url: config.oauthRedirects.discoveryRedirectURL,
            pkce_code_challenge,
          })
        : await oneTapSubmit(backend.http, {
            id_token: idToken,
            organization_id: organization.organization_id,
            login_redirect_url: config.oauthRedirects.loginRedirectURL,
            signup_redirect_url: config.oauthRedirects.signupRedirectURL,
            pkce_code_challenge,
          });
      // A project redirect URL is https or http; anything else is a bad answer, never followed.
      navigable(redirect_url);
      backend.lastUsedMethod.set('google');
      backend.navigate(redirect_url);
    } catch (err) {
      if (err instanceof APIError && err.error_type in SETUP_GUIDANCE) warnSetup(err.error_type);
      this.core.fail(err, ErrorType.Default, true);
    }
  }
}
