import { describe, expect, it } from 'vitest';
import { oauthBase, oauthStartURL, ssoStartURL } from './startUrls';

const TOKEN = 'public-token-test-1';

describe('oauthStartURL', () => {
  it('builds the organization URL with the reference parameter order', () => {
    const url = oauthStartURL({
      base: 'https://auth.example.com',
      provider: 'google',
      publicToken: TOKEN,
      discovery: false,
      organizationId: 'organization-test-acme',
      organizationSlug: 'acme',
      customScopes: ['a', 'b'],
      providerParams: { prompt: 'select_account', login_hint: 'ada@acme.test' },
      pkceCodeChallenge: 'challenge',
      loginRedirectURL: 'https://app.test/login',
      signupRedirectURL: 'https://app.test/signup',
      discoveryRedirectURL: 'https://app.test/discovery',
    });
    expect(url).toBe(
      'https://auth.example.com/v1/b2b/public/oauth/google/start?public_token=public-token-test-1' +
        '&organization_id=organization-test-acme&custom_scopes=a+b&provider_prompt=select_account' +
        '&provider_login_hint=ada%40acme.test&pkce_code_challenge=challenge' +
        '&login_redirect_url=https%3A%2F%2Fapp.test%2Flogin&signup_redirect_url=https%3A%2F%2Fapp.test%2Fsignup',
    );
  });

  it('falls back to the slug and omits empty parameters', () => {
    expect(oauthStartURL({ base: 'http://127.0.0.1:8080', provider: 'github', publicToken: TOKEN, discovery: false, organizationSlug: 'acme' })).toBe(
      'http://127.0.0.1:8080/v1/b2b/public/oauth/github/start?public_token=public-token-test-1&slug=acme',
    );
  });

  it('builds the discovery URL without organization or login/signup redirects', () => {
    const url = oauthStartURL({
      base: 'https://auth.example.com',
      provider: 'microsoft',
      publicToken: TOKEN,
      discovery: true,
      organizationId: 'ignored',
      customScopes: ['openid'],
      pkceCodeChallenge: 'c',
      loginRedirectURL: 'https://app.test/login',
      discoveryRedirectURL: 'https://app.test/discovery',
    });
    expect(url).toBe(
      'https://auth.example.com/v1/b2b/public/oauth/microsoft/discovery/start?public_token=public-token-test-1' +
        '&custom_scopes=openid&pkce_code_challenge=c&discovery_redirect_url=https%3A%2F%2Fapp.test%2Fdiscovery',
    );
  });

  it('uses the custom domain for OAuth when the bootstrap names one', () => {
    expect(oauthBase('http://localhost:8080', 'login.example.com')).toBe('https://login.example.com');
    expect(oauthBase('http://localhost:8080', null)).toBe('http://localhost:8080');
  });
});

describe('ssoStartURL', () => {
  it('builds the start URL with the reference parameter order', () => {
    expect(
      ssoStartURL({
        base: 'https://auth.example.com/prefix',
        publicToken: TOKEN,
        connectionId: 'saml-connection-test-1',
        providerParams: { login_hint: 'ada@acme.test' },
        pkceCodeChallenge: 'c',
        loginRedirectURL: 'https://app.test/login',
        signupRedirectURL: 'https://app.test/signup',
      }),
    ).toBe(
      'https://auth.example.com/prefix/v1/public/sso/start?public_token=public-token-test-1' +
        '&connection_id=saml-connection-test-1&provider_login_hint=ada%40acme.test&pkce_code_challenge=c' +
        '&login_redirect_url=https%3A%2F%2Fapp.test%2Flogin&signup_redirect_url=https%3A%2F%2Fapp.test%2Fsignup',
    );
    expect(ssoStartURL({ base: 'http://localhost:3000', publicToken: TOKEN, connectionId: 'c1' })).toBe(
      'http://localhost:3000/v1/public/sso/start?public_token=public-token-test-1&connection_id=c1',
    );
  });
});
