import { cleanup, fireEvent, render, waitFor, within } from '@testing-library/react';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { B2BIdentityProvider } from '../react';
import { getCookie, SESSION_COOKIE, setCookie } from '../session/cookies';
import { apiError, FakeServer, json, loggedInResponse, type Reply } from '../test/fakeServer';
import { acmeServer, newClient, TOKEN } from '../test/harness';
import type { IdentityProviderOptions } from './IdentityProviderApp';
import { readIdpRequest } from './params';

const AUTHORIZE = '/authorize?client_id=app-1&redirect_uri=https%3A%2F%2Frp.test%2Fcb&scope=openid%20email%20offline_access&state=s1&nonce=n1&code_challenge=c1&max_age=300';
const CLIENT = { client_id: 'app-1', client_type: 'third_party', client_name: 'Agent', client_description: 'An agent', client_logo_url: 'https://rp.test/logo.png' };

function results(blocked: string[] = []) {
  return ['openid', 'email', 'offline_access', ...blocked].map((scope) => ({
    scope,
    description: `server text for ${scope}`,
    is_grantable: !blocked.includes(scope),
  }));
}

function loggedIn() {
  const r = loggedInResponse();
  setCookie(SESSION_COOKIE, 'session-token-1', new Date(Date.now() + 3600_000));
  localStorage.setItem(`stytch_sdk_state_${TOKEN}`, JSON.stringify({ member: r.member, organization: r.organization, session: r.member_session }));
}

function renderIdp(server: FakeServer, address: string, options: IdentityProviderOptions = {}, strict = false) {
  window.history.replaceState(null, '', address);
  const navigate = vi.fn<(url: string) => void>();
  const { client } = newClient(server, undefined, navigate);
  const onEvent = vi.fn();
  const onError = vi.fn();
  const widget = <B2BIdentityProvider client={client} callbacks={{ onEvent, onError }} {...options} />;
  const result = render(strict ? <StrictMode>{widget}</StrictMode> : widget);
  const host = result.container.querySelector<HTMLElement>('[data-latchkey-widget]')!;
  const root = host.shadowRoot!.querySelector<HTMLElement>('.lk-root')!;
  return { ...within(root), root, server, navigate, onEvent, onError, client };
}

afterEach(() => {
  window.history.replaceState(null, '', '/');
  localStorage.clear();
  document.cookie = `${SESSION_COOKIE}=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/`;
});

describe('readIdpRequest', () => {
  it('reads authorize and logout requests and names missing parameters', () => {
    const a = readIdpRequest('?client_id=c&redirect_uri=https%3A%2F%2Fx&resource=r1&resource=r2');
    expect(a).toEqual({
      flow: 'authorize',
      body: expect.objectContaining({ client_id: 'c', response_type: 'code', scopes: ['openid', 'email', 'profile'], resources: ['r1', 'r2'] }),
    });
    expect(readIdpRequest('?client_id=c&post_logout_redirect_uri=https%3A%2F%2Fx&state=s')).toEqual({
      flow: 'logout',
      body: { client_id: 'c', post_logout_redirect_uri: 'https://x', state: 's', id_token_hint: undefined },
    });
    expect(readIdpRequest('?redirect_uri=x')).toEqual({ flow: 'invalid', missing: 'client_id' });
  });

  it('a logout requires client_id and post_logout_redirect_uri (spec), and no marker makes one', () => {
    expect(readIdpRequest('?post_logout_redirect_uri=x')).toEqual({ flow: 'invalid', missing: 'client_id' });
    expect(readIdpRequest('?post_logout_redirect_uri=x&id_token_hint=h')).toEqual({ flow: 'invalid', missing: 'client_id' });
    expect(readIdpRequest('?client_id=c&post_logout_redirect_uri=')).toEqual({ flow: 'invalid', missing: 'post_logout_redirect_uri' });
    // A post_logout_redirect_uri selects Logout; end_session=1 is just another parameter of an authorization.
    expect(readIdpRequest('?end_session=1&client_id=c')).toEqual({ flow: 'invalid', missing: 'redirect_uri' });
  });

  it('forwards code_challenge_method as sent, and leaves it out when absent', () => {
    const body = (search: string) => {
      const r = readIdpRequest(search);
      return r.flow === 'authorize' ? r.body : null;
    };
    expect(body('?client_id=c&redirect_uri=x&code_challenge=c1&code_challenge_method=plain')?.code_challenge_method).toBe('plain');
    // As sent: JSON leaves an undefined field out.
    expect(JSON.stringify(body('?client_id=c&redirect_uri=x&code_challenge=c1'))).not.toContain('code_challenge_method');
  });
});

describe('consent', () => {
  it('shows the app, its logo and each scope, and Allow submits consent and leaves for the redirect', async () => {
    loggedIn();
    const server = acmeServer({ project_name: 'Acme Cloud' })
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?code=abc&state=s1', authorization_code: 'abc' }));
    const ui = renderIdp(server, AUTHORIZE);
    expect(await ui.findByRole('heading', { name: 'Agent wants to access your Acme Cloud account' })).toBeTruthy();
    expect(ui.getByAltText('Agent logo').getAttribute('src')).toBe('https://rp.test/logo.png');
    for (const text of ['Confirm your identity', 'View your email address', 'Stay signed in and access your account while you are away']) {
      expect(ui.getByText(text)).toBeTruthy();
    }
    const start = server.callsTo('/idp/b2b/oauth/authorize/start')[0]!.body;
    expect(start).toEqual(expect.objectContaining({ client_id: 'app-1', scopes: ['openid', 'email', 'offline_access'], state: 's1', nonce: 'n1', code_challenge: 'c1', max_age: '300' }));
    fireEvent.click(ui.getByRole('button', { name: 'Allow' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?code=abc&state=s1'));
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')[0]!.body).toEqual(expect.objectContaining({ consent_granted: true, state: 's1' }));
  });

  it('Deny submits without consent and says access was denied', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?error=access_denied&state=s1' }));
    const ui = renderIdp(server, AUTHORIZE);
    fireEvent.click(await ui.findByRole('button', { name: 'Deny' }));
    expect(await ui.findByText('Access to the application was denied.')).toBeTruthy();
    expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?error=access_denied&state=s1');
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')[0]!.body).toEqual(expect.objectContaining({ consent_granted: false }));
  });

  it('lists scopes the member cannot grant and blocks Allow', async () => {
    loggedIn();
    const server = acmeServer({ rbac_policy: { roles: [], resources: [], scopes: [{ scope: 'write:docs', description: 'Edit your documents', permissions: [] }] } })
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results(['write:docs']) }));
    const ui = renderIdp(server, AUTHORIZE);
    const blocked = await ui.findByRole('alert', { name: 'You do not have permission to grant:' });
    expect(within(blocked).getByText('Edit your documents')).toBeTruthy();
    expect((ui.getByRole('button', { name: 'Allow' }) as HTMLButtonElement).disabled).toBe(true);
    expect((ui.getByRole('button', { name: 'Deny' }) as HTMLButtonElement).disabled).toBe(false);
  });

  it('uses getIDPConsentManifest for the list', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }));
    const manifest = vi.fn(({ clientName }: { scopes: string[]; clientName: string }) => [
      { header: `${clientName} asks for`, items: ['Your name', { text: 'Your files', details: ['Read only'] }] },
    ]);
    const ui = renderIdp(server, AUTHORIZE, { getIDPConsentManifest: manifest });
    expect(await ui.findByText('Agent asks for')).toBeTruthy();
    expect(ui.getByText('Read only')).toBeTruthy();
    expect(manifest).toHaveBeenCalledWith({ scopes: ['openid', 'email', 'offline_access'], clientName: 'Agent' });
  });

  it('submits at once when no consent is needed', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: false, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?code=x' }));
    const ui = renderIdp(server, AUTHORIZE);
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?code=x'));
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')[0]!.body).toEqual(expect.objectContaining({ consent_granted: false }));
  });

  // The redirect URI is where the browser goes, so a hostile or broken server (or a proxy) answering a
  // script URL would run it in the page: only the web and an app's private-use scheme (a native app's
  // redirect URI, RFC 8252, which the server registers) are followed; anything else is a bad answer.
  it.each([
    'javascript:alert(document.domain)',
    ' JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'blob:https://rp.test/0b6a',
    '/cb?code=x',
  ])('never follows the authorization redirect_uri %j', async (redirect_uri) => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: false, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri }));
    const ui = renderIdp(server, AUTHORIZE);
    expect(await ui.findByText('Invalid response from our servers.')).toBeTruthy();
    expect(ui.navigate).not.toHaveBeenCalled();
    expect(ui.onError).toHaveBeenCalled();
  });

  it('follows a native app\'s private-use redirect_uri', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: false, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'com.example.app:/cb?code=x' }));
    const ui = renderIdp(server, AUTHORIZE);
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('com.example.app:/cb?code=x'));
  });

  it('shows the server message when start fails', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/start', apiError(400, 'invalid_redirect_uri', 'The redirect URI does not match.'));
    const ui = renderIdp(server, AUTHORIZE);
    expect(await ui.findByText('The redirect URI does not match.')).toBeTruthy();
    expect(ui.onError).toHaveBeenCalled();
  });

  it('shows the server error_message for a preflight error even when the catalogue has a text for its type', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/start',
      apiError(403, 'unauthorized_action', 'An impersonated session cannot authorize a connected app.'));
    const ui = renderIdp(server, AUTHORIZE);
    expect(await ui.findByText('An impersonated session cannot authorize a connected app.')).toBeTruthy();
    expect(ui.queryByText('Unauthorized action.')).toBeNull();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'An impersonated session cannot authorize a connected app.', error_type: 'unauthorized_action' }));
  });

  it('a preflight error without error_message shows the strings table\'s text, not an empty screen', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/start', { status: 500, json: { status_code: 500, error_type: 'internal_server_error' } });
    const ui = renderIdp(server, AUTHORIZE);
    const text = 'Something went wrong. Try again later or contact your admin for help.';
    expect(await ui.findByText(text)).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: text, error_type: 'internal_server_error' }));
  });

  it('forwards code_challenge_method to start and submit, so the server can refuse plain', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: false, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?error=invalid_request' }));
    const ui = renderIdp(server, AUTHORIZE + '&code_challenge_method=plain');
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?error=invalid_request'));
    for (const path of ['/idp/b2b/oauth/authorize/start', '/idp/b2b/oauth/authorize/submit']) {
      expect(server.callsTo(path)[0]!.body).toEqual(expect.objectContaining({ code_challenge: 'c1', code_challenge_method: 'plain' }));
    }
  });

  it('without a session asks to log in, and goes on with the authorization once the member has logged in', async () => {
    const server = acmeServer()
      .on('POST', '/b2b/sessions/authenticate', json(loggedInResponse()))
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }));
    const ui = renderIdp(server, AUTHORIZE);
    expect(await ui.findByText('No active session detected. Please log in to continue.')).toBeTruthy();
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(0);
    // The page's login (here the session API of the same client) logs the member in.
    loggedIn();
    await ui.client.session.authenticate();
    expect(await ui.findByRole('button', { name: 'Allow' })).toBeTruthy();
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(1);
  });

  it('a session too old for prompt=login or max_age shows the server error with Log in again, which ends it, and goes on once the member is back', async () => {
    loggedIn();
    let starts = 0;
    const server = acmeServer()
      .on('POST', '/b2b/sessions/revoke', json({}))
      .on('POST', '/b2b/sessions/authenticate', json(loggedInResponse()))
      .on('POST', '/idp/b2b/oauth/authorize/start', () => (++starts === 1
        ? apiError(401, 'login_required', 'The member must log in again before authorizing this app.')
        : json({ consent_required: false, client: CLIENT, scope_results: results() })))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?code=fresh&state=s1' }));
    const ui = renderIdp(server, AUTHORIZE + '&prompt=login');
    // The preflight error screen (the server's error_message, reported as any error), and below it the action.
    const error = await ui.findByRole('alert');
    expect(error.textContent).toBe('The member must log in again before authorizing this app.');
    const again = ui.getByRole('button', { name: 'Log in again' });
    expect(error.compareDocumentPosition(again) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'login_required', message: 'The member must log in again before authorizing this app.' }));
    fireEvent.click(again);
    expect(await ui.findByText('No active session detected. Please log in to continue.')).toBeTruthy();
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(1);
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    loggedIn();
    await ui.client.session.authenticate();
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?code=fresh&state=s1'));
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(2);
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')[0]!.body).toEqual(expect.objectContaining({ prompt: 'login' }));
  });

  it('other preflight errors offer no Log in again', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/start', apiError(400, 'invalid_redirect_uri', 'The redirect URI does not match.'));
    const ui = renderIdp(server, AUTHORIZE + '&prompt=login');
    expect(await ui.findByText('The redirect URI does not match.')).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
  });

  it('without a session asks to log in, unless prompt=none sends the answer to the client', async () => {
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?error=login_required' }));
    const ui = renderIdp(server, AUTHORIZE + '&prompt=none');
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?error=login_required'));
  });

  it('prompt=none with a stale session cookie goes straight to submit, whose answer goes to the client', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?error=login_required' }));
    const ui = renderIdp(server, AUTHORIZE + '&prompt=none');
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/cb?error=login_required'));
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(0);
  });

  it('attests a trusted auth token first: revoke, then attest', async () => {
    const { r, server } = await attestOverSession(json({}));
    expect(sessionAndIdpPaths(server)).toEqual(['/b2b/sessions/revoke', '/b2b/sessions/attest', '/idp/b2b/oauth/authorize/start']);
    expect(server.callsTo('/b2b/sessions/attest')[0]!.body).toEqual({
      token: 'tat', profile_id: 'profile-1', organization_id: r.organization.organization_id, session_duration_minutes: 60,
    });
  });
});

/**
 * A trusted-auth attestation over a stored session whose revoke answers `revoke`; the attested session
 * then reaches a consent screen.
 */
async function attestOverSession(revoke: Parameters<ReturnType<typeof acmeServer>['on']>[2]) {
  loggedIn();
  const r = loggedInResponse();
  const server = acmeServer()
    .on('POST', '/b2b/sessions/revoke', revoke)
    .on('POST', '/b2b/sessions/attest', json({ ...r, session_token: 'attested', session_jwt: 'jwt' }))
    .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }));
  const ui = renderIdp(server, AUTHORIZE, { trustedAuthTokenParams: { trustedAuthToken: 'tat', tokenProfileID: 'profile-1' } });
  await ui.findByRole('button', { name: 'Allow' });
  return { r, server, ui };
}

/** The session and IdP calls the page made, in order. */
function sessionAndIdpPaths(server: ReturnType<typeof acmeServer>) {
  return server.calls.map((c) => c.path).filter((p) => p.startsWith('/b2b/sessions') || p.startsWith('/idp'));
}

describe('trusted auth when the old session cannot be revoked', () => {
  it('reports the failed revoke, forgets the old session and still attests the trusted token', async () => {
    const { server, ui } = await attestOverSession(apiError(404, 'session_not_found'));
    expect(sessionAndIdpPaths(server)).toEqual(['/b2b/sessions/revoke', '/b2b/sessions/attest', '/idp/b2b/oauth/authorize/start']);
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_SESSION_ATTEST' }));
    expect(getCookie(SESSION_COOKIE)).toBe('attested');
  });
});

describe('trusted auth under StrictMode', () => {
  // StrictMode runs the flow's effect twice (mount, cleanup, mount). The server refuses a trusted
  // auth token it has seen (a replay), so a second attestation is refused and reported to the host.
  it('attests the token once and reports no error', async () => {
    const r = loggedInResponse();
    const server = acmeServer()
      .on('POST', '/b2b/sessions/attest', json({ ...r, session_token: 'attested', session_jwt: 'jwt' }))
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }));
    const ui = renderIdp(server, AUTHORIZE, { trustedAuthTokenParams: { trustedAuthToken: 'tat', tokenProfileID: 'profile-1' } }, true);
    await ui.findByRole('button', { name: 'Allow' });
    expect(server.callsTo('/b2b/sessions/attest')).toHaveLength(1);
    expect(ui.onError).not.toHaveBeenCalled();
  });
});

describe('trusted auth token refused or incomplete', () => {
  const PARAMS = { trustedAuthTokenParams: { trustedAuthToken: 'tat', tokenProfileID: 'profile-1', organization_id: 'organization-test-acme' } };

  it('a refused token is reported and the flow goes on without a session', async () => {
    const server = acmeServer().on('POST', '/b2b/sessions/attest', apiError(401, 'invalid_trusted_auth_token'));
    const ui = renderIdp(server, AUTHORIZE, PARAMS);
    expect(await ui.findByText('No active session detected. Please log in to continue.')).toBeTruthy();
    expect(ui.onError).toHaveBeenCalled();
    // No member was stored, so nothing was revoked; the host's organization_id was sent.
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(0);
    expect(server.callsTo('/b2b/sessions/attest')[0]!.body).toEqual(expect.objectContaining({ organization_id: 'organization-test-acme' }));
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(0);
  });

  it('an attestation that needs MFA (an IST, no session) does not authorize', async () => {
    const r = loggedInResponse();
    const server = acmeServer().on('POST', '/b2b/sessions/attest', json({ ...r, member_session: null, session_token: '', session_jwt: '',
      member_authenticated: false, intermediate_session_token: 'ist-1' }));
    const ui = renderIdp(server, AUTHORIZE, PARAMS);
    expect(await ui.findByText('No active session detected. Please log in to continue.')).toBeTruthy();
    expect(server.callsTo('/idp/b2b/oauth/authorize/start')).toHaveLength(0);
  });
});

describe('logout', () => {
  const LOGOUT = '/authorize?client_id=app-1&post_logout_redirect_uri=https%3A%2F%2Frp.test%2Fbye&state=s2';

  it('asks "Log out?"; Yes revokes the session and returns to the app', async () => {
    loggedIn();
    const server = acmeServer({ project_name: 'Acme Cloud' })
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const ui = renderIdp(server, LOGOUT);
    expect(await ui.findByRole('heading', { name: 'Log out?' })).toBeTruthy();
    expect(ui.getByText('Are you sure you want to log out of your Acme Cloud account?')).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/bye?state=s2'));
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(1);
  });

  it('never follows a logout redirect_uri that could run script', async () => {
    loggedIn();
    const server = acmeServer({ project_name: 'Acme Cloud' })
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'javascript:alert(document.domain)', consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const ui = renderIdp(server, LOGOUT);
    fireEvent.click(await ui.findByRole('button', { name: 'Yes' }));
    expect(await ui.findByText('Invalid response from our servers.')).toBeTruthy();
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  it('without a session the server asks no confirmation: nothing is revoked and the member returns to the app', async () => {
    // The server answers consent_required=false without a session, and a revoke would be user_unauthenticated.
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: false }))
      .on('POST', '/b2b/sessions/revoke', apiError(401, 'user_unauthenticated'));
    const ui = renderIdp(server, LOGOUT);
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/bye?state=s2'));
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(0);
    expect(ui.onError).not.toHaveBeenCalled();
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'IDP_OAUTH_LOGOUT', data: { redirect_uri: 'https://rp.test/bye?state=s2' } });
  });

  it('a session without confirmation (the ID token hint names its member) whose revoke fails is reported, cleared, and left', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: false }))
      .on('POST', '/b2b/sessions/revoke', apiError(404, 'session_not_found'));
    const ui = renderIdp(server, LOGOUT);
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/bye?state=s2'));
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(1);
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    expect(localStorage.getItem(`stytch_sdk_state_${TOKEN}`)).toBeNull();
  });

  it('Yes whose revoke fails reports the error, clears the local session and still returns to the app', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', apiError(500, 'internal_server_error'));
    const ui = renderIdp(server, LOGOUT);
    fireEvent.click(await ui.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/bye?state=s2'));
    expect(ui.onError).toHaveBeenCalledTimes(1);
    expect(getCookie(SESSION_COOKIE)).toBeNull();
    expect(localStorage.getItem(`stytch_sdk_state_${TOKEN}`)).toBeNull();
  });

  it('Yes revokes a session known only by its cookie (stored state not loaded yet)', async () => {
    setCookie(SESSION_COOKIE, 'session-token-1', new Date(Date.now() + 3600_000));
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye', consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const ui = renderIdp(server, LOGOUT);
    fireEvent.click(await ui.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith('https://rp.test/bye'));
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(1);
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('a logout without client_id names the missing parameter and calls nothing (spec: logout requires it)', async () => {
    loggedIn();
    const server = acmeServer();
    const ui = renderIdp(server, '/authorize?id_token_hint=idt&post_logout_redirect_uri=https%3A%2F%2Frp.test%2Fbye');
    expect(await ui.findByText('Required parameter is missing: client_id. Please reach out to the application developer.')).toBeTruthy();
    expect(server.callsTo('/b2b/oauth/logout/start')).toHaveLength(0);
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(0);
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  it("the provider's logged-out page (end_session without a post_logout_redirect_uri) is left for after Yes like any other", async () => {
    loggedIn();
    const page = 'https://auth.test/v1/public/project-1/oauth2/logged_out';
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: page, consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const ui = renderIdp(server, `/authorize?client_id=app-1&post_logout_redirect_uri=${encodeURIComponent(page)}`);
    fireEvent.click(await ui.findByRole('button', { name: 'Yes' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledWith(page));
    expect(server.callsTo('/b2b/oauth/logout/start')[0]!.body).toEqual({ client_id: 'app-1', post_logout_redirect_uri: page });
  });

  it('No keeps the session', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye', consent_required: true }));
    const ui = renderIdp(server, LOGOUT);
    fireEvent.click(await ui.findByRole('button', { name: 'No' }));
    expect(await ui.findByText('You have not been logged out. You may close this page.')).toBeTruthy();
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(0);
    expect(ui.navigate).not.toHaveBeenCalled();
  });
});

describe('focus and announcements', () => {
  const active = (ui: ReturnType<typeof renderIdp>) => (ui.root.getRootNode() as ShadowRoot).activeElement;

  function consentServer(submit: () => Reply | Promise<Reply>) {
    return acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', submit);
  }

  it('Deny keeps focus while it runs, ignores another press, and hands focus to the message that replaces it', async () => {
    loggedIn();
    let release: () => void = () => undefined;
    const server = consentServer(() => new Promise((r) => (release = () => r(json({ redirect_uri: 'https://rp.test/cb?error=access_denied' })))));
    const ui = renderIdp(server, AUTHORIZE);
    const deny = (await ui.findByRole('button', { name: 'Deny' })) as HTMLButtonElement;
    const allow = ui.getByRole('button', { name: 'Allow' }) as HTMLButtonElement;
    deny.focus();
    fireEvent.click(deny);
    await waitFor(() => expect(deny.getAttribute('aria-disabled')).toBe('true'));
    expect(deny.disabled).toBe(false);
    expect(allow.getAttribute('aria-disabled')).toBe('true');
    expect(allow.disabled).toBe(false);
    expect(active(ui)).toBe(deny);
    fireEvent.click(deny);
    fireEvent.click(allow);
    release();
    const message = await ui.findByText('Access to the application was denied.');
    expect(active(ui)).toBe(message);
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')).toHaveLength(1);
  });

  it('a failed Allow leaves focus on Allow, with the error below', async () => {
    loggedIn();
    const ui = renderIdp(consentServer(() => apiError(500, 'internal_server_error', 'Try later.')), AUTHORIZE);
    const allow = (await ui.findByRole('button', { name: 'Allow' })) as HTMLButtonElement;
    allow.focus();
    fireEvent.click(allow);
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Try later.'));
    expect(allow.getAttribute('aria-disabled')).toBeNull();
    expect(active(ui)).toBe(allow);
  });

  it('a press that did not hold focus (the host page had it) takes none', async () => {
    loggedIn();
    const ui = renderIdp(consentServer(() => json({ redirect_uri: 'https://rp.test/cb?error=access_denied' })), AUTHORIZE);
    fireEvent.click(await ui.findByRole('button', { name: 'Deny' }));
    await ui.findByText('Access to the application was denied.');
    expect(active(ui)).toBeNull();
  });

  it('No hands focus to the message that replaces it', async () => {
    loggedIn();
    const server = acmeServer().on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye', consent_required: true }));
    const ui = renderIdp(server, '/authorize?client_id=app-1&post_logout_redirect_uri=https%3A%2F%2Frp.test%2Fbye&state=s2');
    const no = await ui.findByRole('button', { name: 'No' });
    no.focus();
    fireEvent.click(no);
    const message = await ui.findByText('You have not been logged out. You may close this page.');
    expect(active(ui)).toBe(message);
  });

  /** The page's login widget: a shadow root with the focus on its "Success!" heading. */
  function loginWidgetWithFocus() {
    const host = document.createElement('div');
    document.body.append(host);
    const shadow = host.attachShadow({ mode: 'open' });
    shadow.innerHTML = '<div class="lk-root"><h1 tabindex="-1">Success!</h1></div>';
    shadow.querySelector<HTMLElement>('h1')!.focus();
    return host;
  }

  it('a login in the page’s login widget hands focus to the consent heading that follows', async () => {
    const server = consentServer(() => json({ redirect_uri: 'https://rp.test/cb' })).on('POST', '/b2b/sessions/authenticate', json(loggedInResponse()));
    const ui = renderIdp(server, AUTHORIZE);
    await ui.findByText('No active session detected. Please log in to continue.');
    const login = loginWidgetWithFocus();
    try {
      loggedIn();
      await ui.client.session.authenticate();
      const heading = await ui.findByRole('heading', { name: 'Agent wants to access your Latchkey Demo account' });
      await waitFor(() => expect(active(ui)).toBe(heading));
    } finally {
      login.remove();
    }
  });

  it('a session that arrives while the host page has the focus takes none', async () => {
    const server = consentServer(() => json({ redirect_uri: 'https://rp.test/cb' })).on('POST', '/b2b/sessions/authenticate', json(loggedInResponse()));
    const ui = renderIdp(server, AUTHORIZE);
    await ui.findByText('No active session detected. Please log in to continue.');
    const field = document.createElement('input');
    document.body.append(field);
    try {
      field.focus();
      loggedIn();
      await ui.client.session.authenticate();
      await ui.findByRole('button', { name: 'Allow' });
      expect(document.activeElement).toBe(field);
      expect(active(ui)).toBeNull();
    } finally {
      field.remove();
    }
  });

  it('Log in again hands focus to the message that replaces it', async () => {
    loggedIn();
    const server = acmeServer()
      .on('POST', '/b2b/sessions/revoke', json({}))
      .on('POST', '/idp/b2b/oauth/authorize/start', apiError(401, 'login_required', 'Log in again, please.'));
    const ui = renderIdp(server, AUTHORIZE + '&prompt=login');
    const again = await ui.findByRole('button', { name: 'Log in again' });
    again.focus();
    fireEvent.click(again);
    const message = await ui.findByText('No active session detected. Please log in to continue.');
    expect(active(ui)).toBe(message);
  });
});

describe('framed (RFC 9700 4.16, clickjacking)', () => {
  const FRAMED = 'For your security, this page cannot be shown inside another page. Please open it in its own window.';
  const LOGOUT = '/authorize?client_id=app-1&post_logout_redirect_uri=https%3A%2F%2Frp.test%2Fbye&state=s2';
  // Inside a frame the page's window is not the top one.
  const framed = () => vi.spyOn(window, 'top', 'get').mockReturnValue({} as Window);
  afterEach(() => vi.restoreAllMocks());

  it('consent is not shown, so there is no Allow to press, and nothing is submitted', async () => {
    framed();
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: true, client: CLIENT, scope_results: results() }))
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?code=abc&state=s1' }));
    const ui = renderIdp(server, AUTHORIZE);
    expect((await ui.findByRole('alert')).textContent).toBe(FRAMED);
    expect(ui.queryByRole('button', { name: 'Allow' })).toBeNull();
    expect(ui.queryByRole('button', { name: 'Deny' })).toBeNull();
    expect(server.callsTo('/idp/b2b/oauth/authorize/submit')).toHaveLength(0);
    expect(ui.navigate).not.toHaveBeenCalled();
  });

  it('the logout confirmation is not shown, and nothing is revoked', async () => {
    framed();
    loggedIn();
    const server = acmeServer()
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: true }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const ui = renderIdp(server, LOGOUT);
    expect((await ui.findByRole('alert')).textContent).toBe(FRAMED);
    expect(ui.queryByRole('button', { name: 'Yes' })).toBeNull();
    expect(server.callsTo('/b2b/sessions/revoke')).toHaveLength(0);
  });

  it('flows with no screen still run framed: prompt=none, no consent needed, no confirmation needed', async () => {
    framed();
    loggedIn();
    const server = acmeServer()
      .on('POST', '/idp/b2b/oauth/authorize/submit', json({ redirect_uri: 'https://rp.test/cb?code=x' }))
      .on('POST', '/idp/b2b/oauth/authorize/start', json({ consent_required: false, client: CLIENT, scope_results: results() }))
      .on('POST', '/b2b/oauth/logout/start', json({ redirect_uri: 'https://rp.test/bye?state=s2', consent_required: false }))
      .on('POST', '/b2b/sessions/revoke', json({}));
    const none = renderIdp(server, AUTHORIZE + '&prompt=none');
    await waitFor(() => expect(none.navigate).toHaveBeenCalledWith('https://rp.test/cb?code=x'));
    cleanup();
    const noConsent = renderIdp(server, AUTHORIZE);
    await waitFor(() => expect(noConsent.navigate).toHaveBeenCalledWith('https://rp.test/cb?code=x'));
    cleanup();
    const logout = renderIdp(server, LOGOUT);
    await waitFor(() => expect(logout.navigate).toHaveBeenCalledWith('https://rp.test/bye?state=s2'));
  });
});
