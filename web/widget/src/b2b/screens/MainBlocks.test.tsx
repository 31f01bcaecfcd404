import { fireEvent, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { codeChallengeFor } from '../../api/pkce';
import { ACME, apiError, json, loggedInResponse } from '../../test/fakeServer';
import { acmeServer, renderLogin, TOKEN } from '../../test/harness';
import type { LoginOptions } from '../LoginApp';

const LAST_USED_KEY = `stytch_sdk_state_${TOKEN}::b2b_last_used_method`;
const OAUTH_PKCE_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:oauth`;
const SSO_PKCE_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:sso`;
const ALL_PROVIDERS = ['google', 'microsoft', 'hubspot', 'slack', 'github'] as const;
const CONNECTIONS = [
  { connection_id: 'saml-connection-test-okta', display_name: 'Acme Okta', identity_provider: 'okta' },
  { connection_id: 'oidc-connection-test-entra', display_name: 'Acme Entra', identity_provider: 'microsoft-entra' },
];
const ACME_SSO = { ...ACME, sso_active_connections: CONNECTIONS };

const orgConfig = (config: Partial<LoginOptions['config']>): Partial<LoginOptions> => ({
  config: { products: ['emailMagicLinks'], organizationSlug: 'acme', ...config },
});

/** The widget's top-level blocks in order: 'email', 'buttons:<names>', 'or', 'password'. */
function layout(root: HTMLElement): string[] {
  const screen = root.querySelector('.lk-screen')!;
  const out: string[] = [];
  for (const el of Array.from(screen.children)) {
    if (el.classList.contains('lk-divider')) out.push(el.textContent ?? '');
    else if (el.classList.contains('lk-button-group')) {
      out.push(`buttons:${within(el as HTMLElement).getAllByRole('button').map((b) => b.textContent).join('|')}`);
    } else if (el.tagName === 'FORM' && el.querySelector('#email-input') && !el.textContent?.includes('Continue with email')) {
      out.push('password'); // the password form's email step, in place
    } else if (el.querySelector('#email-input') || el.textContent?.includes('Email me')) {
      out.push(el.textContent?.includes('Use a password instead') ? 'email+password' : 'email');
    } else if (el.textContent?.includes('Use a password instead')) out.push('password');
  }
  return out;
}

describe('OAuth buttons', () => {
  it('renders "Continue with <provider>" for each configured provider with a decorative icon', async () => {
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['oauth'], oauthOptions: { providers: [...ALL_PROVIDERS] } }));
    for (const name of ['Google', 'Microsoft', 'HubSpot', 'Slack', 'GitHub']) {
      const button = await ui.findByRole('button', { name: `Continue with ${name}` });
      const svg = button.querySelector('svg')!;
      expect(svg.getAttribute('aria-hidden')).toBe('true');
      expect(svg.getAttribute('focusable')).toBe('false');
    }
    expect(ui.queryByLabelText('Email')).toBeNull();
  });

  it('navigates to the organization start URL and remembers the provider', async () => {
    const ui = renderLogin(
      acmeServer(),
      orgConfig({
        products: ['oauth'],
        oauthOptions: {
          providers: [{ type: 'google', customScopes: ['openid', 'email'], providerParams: { prompt: 'select_account' } }],
          loginRedirectURL: 'https://app.test/login',
          signupRedirectURL: 'https://app.test/signup',
        },
      }),
    );
    fireEvent.click(await ui.findByRole('button', { name: 'Continue with Google' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate).toHaveBeenCalledWith(
      `http://localhost:3000/v1/b2b/public/oauth/google/start?public_token=${TOKEN}&organization_id=${ACME.organization_id}` +
        '&custom_scopes=openid+email&provider_prompt=select_account' +
        '&login_redirect_url=https%3A%2F%2Fapp.test%2Flogin&signup_redirect_url=https%3A%2F%2Fapp.test%2Fsignup',
    );
    expect(localStorage.getItem(LAST_USED_KEY)).toBe('google');
    expect(localStorage.getItem(OAUTH_PKCE_KEY)).toBeNull();
  });

  it('adds a fresh PKCE challenge when the project requires it', async () => {
    localStorage.setItem(OAUTH_PKCE_KEY, JSON.stringify({ code_verifier: 'old', code_challenge: 'old' }));
    const ui = renderLogin(acmeServer({ pkce_required_for_oauth: true }), orgConfig({ products: ['oauth'], oauthOptions: { providers: ['github'] } }));
    fireEvent.click(await ui.findByRole('button', { name: 'Continue with GitHub' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    const pair = JSON.parse(localStorage.getItem(OAUTH_PKCE_KEY)!) as { code_verifier: string; code_challenge: string };
    expect(pair.code_verifier).not.toBe('old');
    expect(await codeChallengeFor(pair.code_verifier)).toBe(pair.code_challenge);
    expect(ui.navigate).toHaveBeenCalledWith(
      `http://localhost:3000/v1/b2b/public/oauth/github/start?public_token=${TOKEN}&organization_id=${ACME.organization_id}` +
        `&pkce_code_challenge=${pair.code_challenge}`,
    );
  });

  it('uses the discovery start URL, and the custom domain, in the Discovery flow', async () => {
    const ui = renderLogin(acmeServer({ cname_domain: 'login.example.com' }), {
      config: {
        products: ['oauth'],
        authFlowType: 'Discovery',
        oauthOptions: { providers: ['microsoft'], discoveryRedirectURL: 'https://app.test/discover', loginRedirectURL: 'https://app.test/x' },
      },
    });
    fireEvent.click(await ui.findByRole('button', { name: 'Continue with Microsoft' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate).toHaveBeenCalledWith(
      `https://login.example.com/v1/b2b/public/oauth/microsoft/discovery/start?public_token=${TOKEN}` +
        '&discovery_redirect_url=https%3A%2F%2Fapp.test%2Fdiscover',
    );
  });

  it('passes the known email as login hint to Google after primary_required', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const response = loggedInResponse({
      member_session: null,
      intermediate_session_token: 'ist-1',
      primary_required: { allowed_auth_methods: ['google_oauth'] },
    });
    const server = acmeServer().on('POST', '/b2b/magic_links/authenticate', json(response));
    const ui = renderLogin(server, orgConfig({ products: ['emailMagicLinks', 'oauth'], oauthOptions: { providers: ['google', 'slack'] } }));
    fireEvent.click(await ui.findByRole('button', { name: 'Continue with Google' }));
    expect(ui.queryByRole('button', { name: 'Continue with Slack' })).toBeNull();
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate.mock.calls[0]![0]).toContain('&provider_login_hint=ada%40acme.test');
  });
});

describe('OAuth tokens in the page address', () => {
  it('redeem an oauth token with the stored PKCE verifier, then log in', async () => {
    localStorage.setItem(OAUTH_PKCE_KEY, JSON.stringify({ code_verifier: 'v-123', code_challenge: 'c' }));
    window.history.replaceState(null, '', '/?stytch_token_type=oauth&token=oauth-t');
    const server = acmeServer().on('POST', '/b2b/oauth/authenticate', json(loggedInResponse()));
    const ui = renderLogin(server, orgConfig({ products: ['oauth'], oauthOptions: { providers: ['google'] } }));
    expect(await ui.findByText('You have successfully logged in.')).toBeTruthy();
    const call = server.callsTo('/b2b/oauth/authenticate')[0]!;
    expect(call.body).toMatchObject({ oauth_token: 'oauth-t', pkce_code_verifier: 'v-123' });
    expect(window.location.search).toBe('');
    expect(localStorage.getItem(OAUTH_PKCE_KEY)).toBeNull();
  });

  it('show the default error when an oauth token is refused', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=oauth&token=used');
    const server = acmeServer().on('POST', '/b2b/oauth/authenticate', apiError(404, 'oauth_token_not_found'));
    const ui = renderLogin(server, orgConfig({ products: ['oauth'], oauthOptions: { providers: ['google'] } }));
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
  });
});

describe('SSO buttons', () => {
  it('render from the organization\'s active connections and start SSO', async () => {
    const ui = renderLogin(
      acmeServer({ pkce_required_for_sso: true, cname_domain: 'login.example.com' }, ACME_SSO),
      orgConfig({ products: ['sso'], ssoOptions: { signupRedirectURL: 'https://app.test/new' } }),
    );
    expect(await ui.findByRole('button', { name: 'Continue with Acme Okta' })).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Continue with Acme Entra' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    const pair = JSON.parse(localStorage.getItem(SSO_PKCE_KEY)!) as { code_challenge: string };
    // SSO never uses the custom domain.
    expect(ui.navigate).toHaveBeenCalledWith(
      `http://localhost:3000/v1/public/sso/start?public_token=${TOKEN}&connection_id=oidc-connection-test-entra` +
        `&pkce_code_challenge=${pair.code_challenge}&signup_redirect_url=https%3A%2F%2Fapp.test%2Fnew`,
    );
    expect(localStorage.getItem(LAST_USED_KEY)).toBe('sso:oidc-connection-test-entra');
  });

  it('are absent without active connections', async () => {
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['sso', 'emailOtp'] }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['email']);
  });
});

describe('Main layout', () => {
  it('merges adjacent button groups and puts "or" between buttons and forms', async () => {
    const ui = renderLogin(
      acmeServer({}, ACME_SSO),
      orgConfig({ products: ['oauth', 'sso', 'emailMagicLinks'], oauthOptions: { providers: ['google'] } }),
    );
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['buttons:Continue with Google|Continue with Acme Okta|Continue with Acme Entra', 'or', 'email']);
    expect(ui.root.querySelectorAll('.lk-button-group')).toHaveLength(1);
  });

  it('separated button groups each get their divider', async () => {
    const ui = renderLogin(acmeServer({}, ACME_SSO), orgConfig({ products: ['sso', 'emailOtp', 'oauth'], oauthOptions: { providers: ['slack'] } }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['buttons:Continue with Acme Okta|Continue with Acme Entra', 'or', 'email', 'or', 'buttons:Continue with Slack']);
  });

  it('moves the last used method first and labels it "Last used"', async () => {
    localStorage.setItem(LAST_USED_KEY, 'github');
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['emailMagicLinks', 'oauth'], oauthOptions: { providers: ['google', 'github'] } }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['buttons:Continue with GitHub|Continue with Google', 'or', 'email']);
    const github = ui.getByRole('button', { name: 'Continue with GitHub' });
    const badge = ui.getByText('Last used');
    expect(github.getAttribute('aria-describedby')).toBe(badge.id);
    expect(ui.getAllByText('Last used')).toHaveLength(1);
    expect(ui.getByRole('button', { name: 'Continue with Google' }).getAttribute('aria-describedby')).toBeNull();
  });

  it('labels the email form when an email method was used last', async () => {
    localStorage.setItem(LAST_USED_KEY, 'emailMagicLinks');
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['oauth', 'emailMagicLinks'], oauthOptions: { providers: ['google'] } }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['email', 'or', 'buttons:Continue with Google']);
    const badge = ui.getByText('Last used');
    expect(ui.getByRole('button', { name: 'Continue with email' }).getAttribute('aria-describedby')).toBe(badge.id);
  });

  it('ignores a remembered method that is not offered', async () => {
    localStorage.setItem(LAST_USED_KEY, 'sso:gone');
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['emailMagicLinks', 'oauth'], oauthOptions: { providers: ['google'] } }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['email', 'or', 'buttons:Continue with Google']);
    expect(ui.queryByText('Last used')).toBeNull();
  });

  it('offers "Use a password instead" only with passwords; it opens the password screen with the typed email', async () => {
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['emailOtp', 'passwords'] }));
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    expect(layout(ui.root)).toEqual(['email+password']);
    fireEvent.click(ui.getByRole('button', { name: 'Use a password instead' }));
    expect(await ui.findByRole('heading', { name: 'Log in with your password' })).toBeTruthy();
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });

  it('passwords alone show the password form in place, after the buttons', async () => {
    const ui = renderLogin(acmeServer(), orgConfig({ products: ['passwords', 'oauth'], oauthOptions: { providers: ['google'] } }));
    await ui.findByLabelText('Email');
    expect(layout(ui.root)).toEqual(['password', 'or', 'buttons:Continue with Google']);
    expect(ui.getByRole('button', { name: 'Continue' })).toBeTruthy();
  });

  it('has no password entry without the passwords product', async () => {
    const ui = renderLogin(acmeServer());
    await ui.findByLabelText('Email');
    expect(ui.queryByRole('button', { name: 'Use a password instead' })).toBeNull();
  });

  it('a restricted organization shows only its allowed methods', async () => {
    const restricted = { ...ACME_SSO, auth_methods: 'RESTRICTED', allowed_auth_methods: ['sso', 'github_oauth'] };
    const ui = renderLogin(
      acmeServer({}, restricted),
      orgConfig({ products: ['emailMagicLinks', 'oauth', 'sso'], oauthOptions: { providers: ['google', 'github'] } }),
    );
    await ui.findByRole('button', { name: 'Continue with GitHub' });
    expect(layout(ui.root)).toEqual(['buttons:Continue with GitHub|Continue with Acme Okta|Continue with Acme Entra']);
  });
});
