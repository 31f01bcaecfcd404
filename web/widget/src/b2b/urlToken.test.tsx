import { fireEvent } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { createPkcePair } from '../api/pkce';
import { getCookie, IST_COOKIE, SESSION_COOKIE } from '../session/cookies';
import { ACME, apiError, json, loggedInResponse } from '../test/fakeServer';
import { acmeServer, renderLogin, TOKEN } from '../test/harness';
import { importPart } from './parts';
import { readUrlToken } from './urlToken';

const AUTH = '/b2b/magic_links/authenticate';
const IMPERSONATE = '/b2b/impersonation/authenticate';
const PKCE_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:magic_links`;
const PKCE_PASSWORDS_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:passwords`;

describe('readUrlToken', () => {
  it('reads known token types', () => {
    expect(readUrlToken('?stytch_token_type=multi_tenant_magic_links&token=abc')).toEqual({ type: 'multi_tenant_magic_links', token: 'abc' });
    expect(readUrlToken('?stytch_token_type=sso&token=abc')).toEqual({ type: 'sso', token: 'abc' });
    expect(readUrlToken('?stytch_token_type=multi_tenant_impersonation&token=abc')).toEqual({
      type: 'multi_tenant_impersonation',
      token: 'abc',
    });
  });
  it('ignores unknown types, missing tokens and password-reset redirects', () => {
    expect(readUrlToken('?stytch_token_type=multi_tenant_passwords&token=abc')).toBeNull();
    expect(readUrlToken('?stytch_token_type=multi_tenant_magic_links')).toBeNull();
    expect(readUrlToken('?stytch_token_type=multi_tenant_magic_links&token=abc&stytch_redirect_type=reset_password')).toBeNull();
  });
});

describe('token in the page address', () => {
  it('shows "Logging in...", removes the token before the call, authenticates and logs in', async () => {
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_magic_links&token=ml-token&keep=1');
    let urlDuringCall = '';
    let release: () => void = () => undefined;
    const server = acmeServer().on('POST', AUTH, () => {
      urlDuringCall = window.location.href;
      return new Promise((r) => (release = () => r(json(loggedInResponse()))));
    });
    const ui = renderLogin(server);
    expect(await ui.findByRole('heading', { name: 'Logging in...' })).toBeTruthy();
    // Focus was free, so the heading took it and is read from there: the status region stays quiet.
    expect(ui.host.shadowRoot!.activeElement?.textContent).toBe('Logging in...');
    expect(ui.root.querySelector('p.lk-visually-hidden[aria-live]:not([role])')?.textContent).toBe('');
    // The token is gone from the address at once; the call follows once the part that redeems it loads.
    expect(window.location.href).toBe('http://localhost:3000/login?keep=1');
    await vi.waitFor(() => expect(server.callsTo(AUTH)).toHaveLength(1));
    expect(urlDuringCall).toBe('http://localhost:3000/login?keep=1');
    expect(server.callsTo(AUTH)[0]!.body).toEqual({ magic_links_token: 'ml-token', session_duration_minutes: 30 });
    release();
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_MAGIC_LINK_AUTHENTICATE' }));
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'AUTHENTICATE_FLOW_COMPLETE', data: {} });
  });

  /**
   * A magic link from the page address with both email PKCE pairs stored; the server accepts only the
   * verifier of `accepted` and refuses any other with a pkce_mismatch saying `refusal`.
   */
  async function redeemWithBothPairs(accepted: 'reset' | 'links', refusal: string) {
    const reset = await createPkcePair();
    const links = await createPkcePair();
    localStorage.setItem(PKCE_PASSWORDS_KEY, JSON.stringify(reset));
    localStorage.setItem(PKCE_KEY, JSON.stringify(links));
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_magic_links&token=ml');
    const want = (accepted === 'reset' ? reset : links).code_verifier;
    const server = acmeServer().on('POST', AUTH, (call) =>
      (call.body as Record<string, string>).pkce_code_verifier === want ? json(loggedInResponse()) : apiError(400, 'pkce_mismatch', refusal),
    );
    return { reset, links, server, ui: renderLogin(server) };
  }

  // Spec section 7: magic links authenticate carries magic_links_token, session_duration_minutes, locale.
  it('sends the magic links locale when one is configured', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=ml-token');
    const server = acmeServer().on('POST', AUTH, json(loggedInResponse()));
    const ui = renderLogin(server, {
      config: {
        products: ['emailMagicLinks'],
        organizationSlug: 'acme',
        sessionOptions: { sessionDurationMinutes: 30 },
        emailMagicLinksOptions: { locale: 'pt-br' },
        passwordOptions: { locale: 'de' },
      },
    });
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH)[0]!.body).toEqual({ magic_links_token: 'ml-token', session_duration_minutes: 30, locale: 'pt-br' });
  });

  it('sends the stored PKCE verifier and clears the pair on success', async () => {
    const pair = await createPkcePair();
    localStorage.setItem(PKCE_KEY, JSON.stringify(pair));
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const server = acmeServer().on('POST', AUTH, json(loggedInResponse()));
    const ui = renderLogin(server);
    await ui.findByRole('heading', { name: 'Success!' });
    expect((server.callsTo(AUTH)[0]!.body as Record<string, string>).pkce_code_verifier).toBe(pair.code_verifier);
    expect(localStorage.getItem(PKCE_KEY)).toBeNull();
  });

  it('a login link from a password-reset email redeems with the reset PKCE pair, and both email pairs are cleared', async () => {
    // The reset email's "log in without a password" link carries the reset start's challenge.
    const { reset, server, ui } = await redeemWithBothPairs('reset',
      'This link needs the PKCE code verifier of the browser that started it.');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH).map((c) => (c.body as Record<string, string>).pkce_code_verifier)).toEqual([reset.code_verifier]);
    expect(localStorage.getItem(PKCE_PASSWORDS_KEY)).toBeNull();
    expect(localStorage.getItem(PKCE_KEY)).toBeNull();
  });

  it('a magic link falls back to the magic-link pair when the reset pair is refused for PKCE', async () => {
    const { reset, links, server, ui } = await redeemWithBothPairs('links', 'The PKCE code verifier does not match.');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH).map((c) => (c.body as Record<string, string>).pkce_code_verifier)).toEqual([
      reset.code_verifier,
      links.code_verifier,
    ]);
    expect(ui.onError).not.toHaveBeenCalled();
  });

  it('a failed magic link shows the EmailMagicLink error without back', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=used');
    const server = acmeServer().on('POST', AUTH, apiError(401, 'unable_to_auth_magic_link'));
    const ui = renderLogin(server);
    expect(await ui.findByText(/login link may have expired/)).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Looks like there was an error!' })).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'unable_to_auth_magic_link' }));
  });

  it('an ad blocker error shows the AdBlockerDetected screen', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const ui = renderLogin(acmeServer().on('POST', AUTH, apiError(400, 'ad_blocker_detected')));
    expect(await ui.findByText(/ad blocker is preventing you/)).toBeTruthy();
  });

  it('primary_required keeps the intermediate session and returns to Main restricted', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const response = loggedInResponse({
      member_session: null,
      session_token: '',
      session_jwt: '',
      intermediate_session_token: 'ist-123',
      member_authenticated: false,
      primary_required: { allowed_auth_methods: ['email_otp'] },
    });
    const ui = renderLogin(acmeServer().on('POST', AUTH, json(response)));
    expect(await ui.findByRole('button', { name: 'Email me a code' })).toBeTruthy();
    expect(ui.queryByRole('button', { name: 'Email me a link' })).toBeNull();
    expect(ui.queryByLabelText('Email')).toBeNull();
    expect(getCookie(IST_COOKIE)).toBe('ist-123');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('MFA-required answers lead to multi-factor authentication, never a success', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const response = loggedInResponse({
      member_session: null,
      intermediate_session_token: 'ist-mfa',
      mfa_required: { member_options: null, secondary_auth_initiated: null },
    });
    const ui = renderLogin(acmeServer().on('POST', AUTH, json(response)));
    expect(await ui.findByRole('heading', { name: 'Set up multi-factor authentication' })).toBeTruthy();
    expect(ui.queryByText('Success!')).toBeNull();
    expect(getCookie(IST_COOKIE)).toBe('ist-mfa');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('MFA that nothing can satisfy is an error', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=t');
    const response = loggedInResponse({
      member_session: null,
      intermediate_session_token: 'ist-mfa',
      mfa_required: { member_options: null, secondary_auth_initiated: null },
      organization: { ...ACME, mfa_methods: 'RESTRICTED', allowed_mfa_methods: [] },
    });
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ui = renderLogin(acmeServer().on('POST', AUTH, json(response)));
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.queryByText('Success!')).toBeNull();
    expect(error).toHaveBeenCalled();
  });

  it('an impersonation link authenticates its token alone and logs in', async () => {
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_impersonation&token=imp-token');
    const server = acmeServer().on('POST', IMPERSONATE, json(loggedInResponse()));
    const ui = renderLogin(server);
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(window.location.search).toBe('');
    // The server fixes an impersonated session's length: no duration, no intermediate session.
    expect(server.callsTo(IMPERSONATE).map((c) => c.body)).toEqual([{ impersonation_token: 'imp-token' }]);
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_IMPERSONATION_AUTHENTICATE' }));
  });

  it('a failed impersonation link shows the default error without back', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_impersonation&token=spent');
    const server = acmeServer().on('POST', IMPERSONATE, apiError(401, 'unable_to_auth_impersonation_token'));
    const ui = renderLogin(server);
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
    expect(window.location.search).toBe('');
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'unable_to_auth_impersonation_token' }));
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  // An impersonation link lands on the project's default login URL, which may be an organization
  // page that finds no slug of its own: the token, not the missing organization, decides the screen.
  it('an impersonation link on an organization page without a slug logs in with no Organization error', async () => {
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_impersonation&token=imp-token');
    let release: () => void = () => undefined;
    const server = acmeServer().on('POST', IMPERSONATE, () => new Promise((r) => (release = () => r(json(loggedInResponse())))));
    const ui = renderLogin(server, { config: { products: ['emailOtp'] } });
    // The lookup settles (no slug anywhere) while the token is still being redeemed.
    await vi.waitFor(() => expect(server.callsTo(`/projects/bootstrap/${TOKEN}`).length).toBeGreaterThan(0));
    await new Promise((r) => setTimeout(r, 20));
    expect(ui.getByRole('heading', { name: 'Logging in...' })).toBeTruthy();
    release();
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.onError).not.toHaveBeenCalled();
  });

  it('a spent impersonation link on an organization page without a slug reports the link, once', async () => {
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_impersonation&token=spent');
    let release: () => void = () => undefined;
    const refusal = apiError(401, 'unable_to_auth_impersonation_token');
    const server = acmeServer().on('POST', IMPERSONATE, () => new Promise((r) => (release = () => r(refusal))));
    const ui = renderLogin(server, { config: { products: ['emailOtp'] } });
    await vi.waitFor(() => expect(server.callsTo(`/projects/bootstrap/${TOKEN}`).length).toBeGreaterThan(0));
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'unable_to_auth_impersonation_token' }));
  });

  /**
   * A magic link in the page address and an organization lookup that are both held; the lookup fails
   * with a 503 when released.
   */
  function landingWithFailingLookup() {
    window.history.replaceState(null, '', '/?stytch_token_type=multi_tenant_magic_links&token=ml');
    let login: () => void = () => undefined;
    let lookup: () => void = () => undefined;
    const server = acmeServer()
      .on('POST', AUTH, () => new Promise((r) => (login = () => r(json(loggedInResponse())))))
      .on('POST', '/b2b/organizations/search', () => new Promise((r) => (lookup = () => r(apiError(503, 'internal_server_error')))));
    const ui = renderLogin(server);
    return { ui, login: () => login(), lookup: () => lookup(), server };
  }

  it('a lookup that fails after the link logged the member in leaves Logged In, and is reported', async () => {
    const { ui, login, lookup, server } = landingWithFailingLookup();
    await vi.waitFor(() => expect(server.callsTo('/b2b/organizations/search')).toHaveLength(1));
    await vi.waitFor(() => expect(server.callsTo(AUTH)).toHaveLength(1));
    login();
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    lookup();
    await vi.waitFor(() => expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'internal_server_error', status_code: 503 })));
    expect(ui.getByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.queryByRole('heading', { name: 'Looks like there was an error!' })).toBeNull();
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
  });

  it('a lookup that fails while the link is redeemed keeps "Logging in...", and the link decides the screen', async () => {
    const { ui, login, lookup, server } = landingWithFailingLookup();
    expect(await ui.findByRole('heading', { name: 'Logging in...' })).toBeTruthy();
    await vi.waitFor(() => expect(server.callsTo(AUTH)).toHaveLength(1));
    lookup();
    await vi.waitFor(() => expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'internal_server_error' })));
    expect(ui.getByRole('heading', { name: 'Logging in...' })).toBeTruthy();
    login();
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'AUTHENTICATE_FLOW_COMPLETE', data: {} });
  });

  it('leaves unknown token types and password-reset redirects alone', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=something_else&token=t');
    const ui = renderLogin(acmeServer());
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
    expect(window.location.search).toBe('?stytch_token_type=something_else&token=t');
  });
});

describe('SSO token in the page address', () => {
  const SSO_AUTH = '/b2b/sso/authenticate';
  const SSO_PKCE_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:sso`;

  it('authenticates with the stored SSO verifier, clears it and logs in', async () => {
    const pair = await createPkcePair();
    localStorage.setItem(SSO_PKCE_KEY, JSON.stringify(pair));
    // The magic-link pair is another flow's and must survive.
    localStorage.setItem(PKCE_KEY, JSON.stringify(await createPkcePair()));
    window.history.replaceState(null, '', '/?stytch_token_type=sso&token=sso-token');
    const server = acmeServer().on('POST', SSO_AUTH, json(loggedInResponse()));
    const ui = renderLogin(server);
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(SSO_AUTH)[0]!.body).toEqual({
      sso_token: 'sso-token',
      session_duration_minutes: 30,
      pkce_code_verifier: pair.code_verifier,
    });
    expect(window.location.search).toBe('');
    expect(localStorage.getItem(SSO_PKCE_KEY)).toBeNull();
    expect(localStorage.getItem(PKCE_KEY)).not.toBeNull();
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_SSO_AUTHENTICATE' }));
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'AUTHENTICATE_FLOW_COMPLETE', data: {} });
  });

  it('sends the intermediate session of an earlier step, and MFA follows when required', async () => {
    document.cookie = `${IST_COOKIE}=ist-before; path=/`;
    window.history.replaceState(null, '', '/?stytch_token_type=sso&token=sso-token');
    const response = loggedInResponse({
      member_session: null,
      session_token: '',
      session_jwt: '',
      intermediate_session_token: 'ist-mfa',
      member_authenticated: false,
      mfa_required: { member_options: null, secondary_auth_initiated: null },
    });
    const server = acmeServer().on('POST', SSO_AUTH, json(response));
    const ui = renderLogin(server);
    expect(await ui.findByRole('heading', { name: 'Set up multi-factor authentication' })).toBeTruthy();
    expect((server.callsTo(SSO_AUTH)[0]!.body as Record<string, string>).intermediate_session_token).toBe('ist-before');
    expect(getCookie(IST_COOKIE)).toBe('ist-mfa');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('a failed SSO token shows the default error without back and keeps no session', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=sso&token=used');
    const server = acmeServer().on('POST', SSO_AUTH, apiError(404, 'sso_token_not_found', 'The SSO token could not be found.'));
    const ui = renderLogin(server);
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Looks like there was an error!' })).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'sso_token_not_found' }));
  });
});

describe('the part that redeems a token from the page address', () => {
  it('a failed download is the Error screen, reported, with the token already gone and a way back', async () => {
    const load = vi.spyOn(importPart, 'urlToken').mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module'));
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    window.history.replaceState(null, '', '/login?stytch_token_type=multi_tenant_magic_links&token=ml-token');
    const server = acmeServer();
    const ui = renderLogin(server);
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(1);
    expect(window.location.search).toBe('');
    expect(server.callsTo(AUTH)).toHaveLength(0);
    expect(ui.onError).toHaveBeenCalledTimes(1);
    fireEvent.click(ui.getByRole('button', { name: 'Go back' }));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });
});
