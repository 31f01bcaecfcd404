/**
 * OAuth and SSO start URLs (api-reference 3.5, 3.6). The browser navigates to them; they are not
 * /sdk/v1 calls. The query parameter order follows the reference so URLs compare exactly.
 */

export interface OAuthStartInput {
  /** The API base: `https://{cname_domain}` when the bootstrap names one, else the client's base URL. */
  base: string;
  provider: string;
  publicToken: string;
  /** Discovery: no organization yet; the redirect carries a discovery token. */
  discovery: boolean;
  organizationId?: string | null | undefined;
  organizationSlug?: string | null | undefined;
  customScopes?: string[] | undefined;
  providerParams?: Record<string, string> | undefined;
  pkceCodeChallenge?: string | undefined;
  loginRedirectURL?: string | undefined;
  signupRedirectURL?: string | undefined;
  discoveryRedirectURL?: string | undefined;
}

function setIf(q: URLSearchParams, key: string, value: string | null | undefined): void {
  if (value) q.set(key, value);
}

function addProviderParams(q: URLSearchParams, params: Record<string, string> | undefined): void {
  for (const [key, value] of Object.entries(params ?? {})) {
    if (typeof value === 'string') q.set(`provider_${key}`, value);
  }
}

export function oauthStartURL(input: OAuthStartInput): string {
  const q = new URLSearchParams();
  q.set('public_token', input.publicToken);
  if (!input.discovery) {
    if (input.organizationId) q.set('organization_id', input.organizationId);
    else setIf(q, 'slug', input.organizationSlug);
  }
  const scopes = (input.customScopes ?? []).filter((s) => typeof s === 'string' && s !== '');
  if (scopes.length > 0) q.set('custom_scopes', scopes.join(' '));
  addProviderParams(q, input.providerParams);
  setIf(q, 'pkce_code_challenge', input.pkceCodeChallenge);
  if (input.discovery) {
    setIf(q, 'discovery_redirect_url', input.discoveryRedirectURL);
  } else {
    setIf(q, 'login_redirect_url', input.loginRedirectURL);
    setIf(q, 'signup_redirect_url', input.signupRedirectURL);
  }
  const path = input.discovery ? 'discovery/start' : 'start';
  return `${input.base}/v1/b2b/public/oauth/${encodeURIComponent(input.provider)}/${path}?${q.toString()}`;
}

export interface SSOStartInput {
  /** Always the client's base URL: `cname_domain` does not apply to SSO. */
  base: string;
  publicToken: string;
  connectionId: string;
  providerParams?: Record<string, string> | undefined;
  pkceCodeChallenge?: string | undefined;
  loginRedirectURL?: string | undefined;
  signupRedirectURL?: string | undefined;
}

export function ssoStartURL(input: SSOStartInput): string {
  const q = new URLSearchParams();
  q.set('public_token', input.publicToken);
  q.set('connection_id', input.connectionId);
  addProviderParams(q, input.providerParams);
  setIf(q, 'pkce_code_challenge', input.pkceCodeChallenge);
  setIf(q, 'login_redirect_url', input.loginRedirectURL);
  setIf(q, 'signup_redirect_url', input.signupRedirectURL);
  return `${input.base}/v1/public/sso/start?${q.toString()}`;
}

/** OAuth (not SSO) start URLs move to the project's custom domain when it has one. */
export function oauthBase(apiBase: string, cnameDomain: string | null): string {
  return cnameDomain ? `https://${cnameDomain}` : apiBase;
}
