/** Sign-in methods that leave the page: OAuth and SSO start URLs (api-reference 3.5, 3.6). */
import { oauthBase, oauthStartURL, ssoStartURL } from '../api/startUrls';
import type { OAuthProvider } from './config';
import type { ActionResult, FlowCore } from './flowCore';
import { ssoLastUsed } from './lastUsed';
import { isDiscovering } from './selectors';

/** Providers that accept the known email as a login hint (api-reference 3.5). */
const LOGIN_HINT_PROVIDERS: ReadonlySet<OAuthProvider> = new Set(['google', 'microsoft']);

export class Redirects {
  constructor(private readonly core: FlowCore) {}

  /** Navigates to the provider's start URL, with a fresh PKCE challenge when the project requires one. */
  async startOAuth(provider: OAuthProvider): Promise<ActionResult> {
    const { backend, store, getConfig } = this.core.deps;
    const state = store.getState();
    const config = getConfig();
    const options = config.oauthStart[provider] ?? { customScopes: [], providerParams: {} };
    const providerParams = { ...options.providerParams };
    const email = state.primary?.email;
    if (email && LOGIN_HINT_PROVIDERS.has(provider) && !('login_hint' in providerParams)) {
      providerParams.login_hint = email;
    }
    let url: string;
    try {
      const bootstrap = await backend.bootstrap();
      url = oauthStartURL({
        base: oauthBase(backend.http.baseURL, bootstrap.cnameDomain),
        provider,
        publicToken: backend.publicToken,
        discovery: isDiscovering(state),
        organizationId: state.flowState.organization?.organization_id,
        organizationSlug: config.organizationSlug,
        customScopes: options.customScopes,
        providerParams,
        pkceCodeChallenge: await this.challenge('oauth', bootstrap.pkceRequiredForOAuth),
        loginRedirectURL: config.oauthRedirects.loginRedirectURL,
        signupRedirectURL: config.oauthRedirects.signupRedirectURL,
        discoveryRedirectURL: config.oauthRedirects.discoveryRedirectURL,
      });
    } catch (err) {
      return this.core.failInline(err);
    }
    backend.lastUsedMethod.set(provider);
    backend.navigate(url);
    return { ok: true };
  }

  /** Navigates to the SSO start URL of a connection (never through the custom domain). */
  async startSso(connectionId: string): Promise<ActionResult> {
    const { backend, getConfig } = this.core.deps;
    const options = getConfig().ssoOptions;
    let url: string;
    try {
      const bootstrap = await backend.bootstrap();
      url = ssoStartURL({
        base: backend.http.baseURL,
        publicToken: backend.publicToken,
        connectionId,
        providerParams: options.providerParams,
        pkceCodeChallenge: await this.challenge('sso', bootstrap.pkceRequiredForSso),
        loginRedirectURL: options.loginRedirectURL,
        signupRedirectURL: options.signupRedirectURL,
      });
    } catch (err) {
      return this.core.failInline(err);
    }
    backend.lastUsedMethod.set(ssoLastUsed(connectionId));
    backend.navigate(url);
    return { ok: true };
  }

  /** Each start gets a new pair; without the requirement any old pair is dropped (api-reference 3.5). */
  async challenge(kind: 'oauth' | 'sso', required: boolean): Promise<string | undefined> {
    const { pkce } = this.core.deps.backend;
    if (!required) {
      pkce.clear(kind);
      return undefined;
    }
    return (await pkce.renew(kind)).code_challenge;
  }
}
