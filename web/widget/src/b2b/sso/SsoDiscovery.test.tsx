import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ACME, apiError, json } from '../../test/fakeServer';
import { acmeServer, renderLogin, TOKEN } from '../../test/harness';
import type { LoginOptions } from '../LoginApp';

const CONNECTIONS_PATH = '/b2b/sso/discovery/connections';
const SEARCH = '/b2b/organizations/search';
const SSO_PKCE_KEY = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:sso`;
const LAST_USED_KEY = `stytch_sdk_state_${TOKEN}::b2b_last_used_method`;
const OKTA = { connection_id: 'saml-connection-test-okta', display_name: 'Acme Okta', identity_provider: 'okta' };
const ENTRA = { connection_id: 'oidc-connection-test-entra', display_name: 'Acme Entra', identity_provider: 'microsoft-entra' };
const DEFAULT_TEXT = 'Something went wrong. Try again later or contact your admin for help.';

const discoveryConfig = (extra: Partial<LoginOptions> = {}): Partial<LoginOptions> => ({
  config: {
    products: ['emailOtp', 'sso'],
    authFlowType: 'Discovery',
    ssoOptions: { loginRedirectURL: 'https://app.test/sso' },
  },
  ...extra,
});

/** Discovery Main, then 'Continue with SSO' to the SSO Discovery Email screen. */
async function openEmailStep(server = acmeServer(), extra: Partial<LoginOptions> = {}) {
  const ui = renderLogin(server, discoveryConfig(extra));
  fireEvent.click(await ui.findByRole('button', { name: 'Continue with SSO' }));
  await ui.findByRole('heading', { name: 'Log in with single sign-on' });
  return ui;
}

type UI = Awaited<ReturnType<typeof openEmailStep>>;

function submitEmail(ui: UI, email: string) {
  fireEvent.change(ui.getByLabelText('Email'), { target: { value: email } });
  fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
}

function connectionsServer(connections: unknown[], bootstrap: Record<string, unknown> = {}) {
  return acmeServer(bootstrap).on('GET', CONNECTIONS_PATH, json({ request_id: 'r', status_code: 200, connections }));
}

describe('SSO Discovery Email', () => {
  it('opens from discovery Main with the email field focused and a way back', async () => {
    const ui = await openEmailStep();
    expect(ui.root.getRootNode() instanceof ShadowRoot).toBe(true);
    expect((ui.root.getRootNode() as ShadowRoot).activeElement).toBe(ui.getByLabelText('Email'));
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
  });

  it('checks the email before asking the server', async () => {
    const server = connectionsServer([]);
    const ui = await openEmailStep(server);
    submitEmail(ui, 'not-an-email');
    // The alert region is always there (ErrorText): wait for its text.
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid email address'));
    expect(ui.getByLabelText('Email').getAttribute('aria-invalid')).toBe('true');
    expect(server.callsTo(CONNECTIONS_PATH)).toHaveLength(0);
  });

  it('no connection leads to the slug fallback, which names the email', async () => {
    const server = connectionsServer([]);
    const ui = await openEmailStep(server);
    submitEmail(ui, ' ada+sso@acme.test ');
    expect(await ui.findByRole('heading', { name: 'We couldn’t find a single sign-on connection for ada+sso@acme.test' })).toBeTruthy();
    const call = server.callsTo(CONNECTIONS_PATH)[0]!;
    expect(call.method).toBe('GET');
    expect(new URL(call.url).searchParams.get('email_address')).toBe('ada+sso@acme.test');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_SSO_DISCOVER_CONNECTIONS' }));
    // A slug is not the company name that autocomplete="organization" would offer.
    expect(ui.getByLabelText('Organization slug').getAttribute('autocomplete')).toBe('off');
  });

  it('one connection starts SSO at once, with a PKCE challenge when the project requires it', async () => {
    const server = connectionsServer([OKTA], { pkce_required_for_sso: true });
    const ui = await openEmailStep(server);
    submitEmail(ui, 'ada@acme.test');
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    const pair = JSON.parse(localStorage.getItem(SSO_PKCE_KEY)!) as { code_challenge: string };
    expect(ui.navigate).toHaveBeenCalledWith(
      `http://localhost:3000/v1/public/sso/start?public_token=${TOKEN}&connection_id=${OKTA.connection_id}` +
        `&pkce_code_challenge=${pair.code_challenge}&login_redirect_url=https%3A%2F%2Fapp.test%2Fsso`,
    );
    expect(localStorage.getItem(LAST_USED_KEY)).toBe(`sso:${OKTA.connection_id}`);
  });

  it('several connections lead to the menu, whose buttons start SSO; back keeps the email', async () => {
    localStorage.setItem(LAST_USED_KEY, `sso:${ENTRA.connection_id}`);
    const ui = await openEmailStep(connectionsServer([OKTA, ENTRA]));
    submitEmail(ui, 'ada@acme.test');
    expect(await ui.findByRole('heading', { name: 'Select a connection to continue' })).toBeTruthy();
    expect(ui.getByText('Connections that ada@acme.test can log in with:')).toBeTruthy();
    expect(ui.getByText('Last used')).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Continue with Acme Entra' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate.mock.calls[0]![0]).toContain(`connection_id=${ENTRA.connection_id}`);

    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Log in with single sign-on' })).toBeTruthy();
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
  });

  it('an error the catalogue does not name shows the default text; a known one its catalogue text', async () => {
    const server = acmeServer().on('GET', CONNECTIONS_PATH, apiError(500, 'internal_server_error', 'boom'));
    const ui = await openEmailStep(server);
    submitEmail(ui, 'ada@acme.test');
    expect(await ui.findByText(DEFAULT_TEXT)).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'internal_server_error', message: DEFAULT_TEXT }));

    server.on('GET', CONNECTIONS_PATH, apiError(400, 'invalid_email'));
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByText('Email format is invalid.')).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Log in with single sign-on' })).toBeTruthy();
  });

  it('texts can be overridden through the strings option', async () => {
    const ui = renderLogin(acmeServer(), discoveryConfig({ strings: { 'ssoDiscovery.email.title': 'Find your sign-on' } }));
    fireEvent.click(await ui.findByRole('button', { name: 'Continue with SSO' }));
    expect(await ui.findByRole('heading', { name: 'Find your sign-on' })).toBeTruthy();
  });
});

describe('SSO Discovery Fallback', () => {
  async function openFallback(server = connectionsServer([])) {
    const ui = await openEmailStep(server);
    submitEmail(ui, 'ada@acme.test');
    await ui.findByLabelText('Organization slug');
    return ui;
  }

  function submitSlug(ui: UI, slug: string) {
    fireEvent.change(ui.getByLabelText('Organization slug'), { target: { value: slug } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
  }

  it('requires a slug', async () => {
    const server = connectionsServer([]);
    const ui = await openFallback(server);
    const searches = server.callsTo(SEARCH).length;
    submitSlug(ui, '  ');
    expect(await ui.findByText('Enter your organization’s slug.')).toBeTruthy();
    expect(server.callsTo(SEARCH)).toHaveLength(searches);
  });

  it('an unknown slug is "not found"; a failed lookup "an error occurred"', async () => {
    const server = connectionsServer([]).on('POST', SEARCH, json({ organization: null }));
    const ui = await openFallback(server);
    submitSlug(ui, 'nobody');
    expect(await ui.findByText('Organization not found. Please try again.')).toBeTruthy();
    expect(server.callsTo(SEARCH).at(-1)!.body).toEqual({ organization_slug: 'nobody' });
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'Organization not found. Please try again.' }));

    server.on('POST', SEARCH, 'network-error');
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByText('An error occurred. Please try again.')).toBeTruthy();
  });

  it('an organization with one active connection starts SSO', async () => {
    const server = connectionsServer([]).on('POST', SEARCH, json({ organization: { ...ACME, sso_active_connections: [ENTRA] } }));
    const ui = await openFallback(server);
    submitSlug(ui, 'acme');
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate.mock.calls[0]![0]).toContain(`/v1/public/sso/start?public_token=${TOKEN}&connection_id=${ENTRA.connection_id}`);
  });

  it('otherwise the organization’s Main; back returns to the slug entry and forgets it', async () => {
    const acme = { ...ACME, sso_active_connections: [OKTA, ENTRA] };
    const server = connectionsServer([]).on('POST', SEARCH, json({ organization: acme }));
    const ui = await openFallback(server);
    submitSlug(ui, 'acme');
    expect(await ui.findByRole('button', { name: 'Continue with Acme Okta' })).toBeTruthy();
    // Still the Discovery flow: its title, not the organization's (spec section 2).
    expect(ui.getByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Continue with Acme Entra' })).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByLabelText('Organization slug')).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Try another login method' }));
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Continue with SSO' })).toBeTruthy();
  });
});
