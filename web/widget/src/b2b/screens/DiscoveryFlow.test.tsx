import { cleanup, fireEvent, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { LoginOptions } from '../LoginApp';
import { getCookie, IST_COOKIE, SESSION_COOKIE } from '../../session/cookies';
import { ACME, apiError, discovered, discoveryResponse, GLOBEX, json, loggedInResponse, type FakeServer } from '../../test/fakeServer';
import { acmeServer, renderLogin, TOKEN } from '../../test/harness';

const ML_SEND = '/b2b/magic_links/email/discovery/send';
const ML_AUTH = '/b2b/magic_links/discovery/authenticate';
const OTP_SEND = '/b2b/otps/email/discovery/send';
const OTP_AUTH = '/b2b/otps/email/discovery/authenticate';
const CREATE = '/b2b/discovery/organizations/create';
const EXCHANGE = '/b2b/discovery/intermediate_sessions/exchange';
const INITECH = { ...ACME, organization_id: 'organization-test-initech', organization_name: 'initech' };

const discoveryConfig = (extra: Partial<LoginOptions['config']> = {}): Partial<LoginOptions> => ({
  config: {
    products: ['emailMagicLinks', 'emailOtp'],
    authFlowType: 'Discovery',
    sessionOptions: { sessionDurationMinutes: 30 },
    emailMagicLinksOptions: { discoveryRedirectURL: 'https://app.test/discover', locale: 'en' },
    ...extra,
  },
});

/** Opens the widget on a discovery magic link that finds `organizations`. */
function arriveByLink(organizations: unknown[], extra: Partial<LoginOptions['config']> = {}, bootstrap: Record<string, unknown> = {}, server?: FakeServer) {
  window.history.replaceState(null, '', '/login?stytch_token_type=discovery&token=dml-token');
  const s = (server ?? acmeServer(bootstrap)).on('POST', ML_AUTH, json(discoveryResponse(organizations)));
  return renderLogin(s, discoveryConfig(extra));
}

describe('Discovery Main', () => {
  it('sends a discovery magic link with the discovery redirect URL', async () => {
    const server = acmeServer().on('POST', ML_SEND, json({}));
    const ui = renderLogin(server, discoveryConfig({ products: ['emailMagicLinks'] }));
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    fireEvent.change(ui.getByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    expect(await ui.findByRole('heading', { name: 'Check your email' })).toBeTruthy();
    expect(server.callsTo(ML_SEND)[0]!.body).toEqual({
      email_address: 'ada@acme.test',
      discovery_redirect_url: 'https://app.test/discover',
      locale: 'en',
    });
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'B2B_MAGIC_LINK_EMAIL_DISCOVERY_SEND', data: { email_address: 'ada@acme.test' } });
    expect(localStorage.getItem(`stytch_sdk_state_${TOKEN}::b2b_last_used_method`)).toBe('emailMagicLinks');
  });

  it('with both email products goes through method selection, then a discovery code lists organizations', async () => {
    const server = acmeServer()
      .on('POST', OTP_SEND, json({}))
      .on('POST', OTP_AUTH, json(discoveryResponse([discovered(ACME), discovered(GLOBEX, 'invited_member')])));
    const ui = renderLogin(server, discoveryConfig());
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    fireEvent.click(await ui.findByRole('button', { name: 'Email me a code' }));
    expect(await ui.findByRole('heading', { name: 'Enter passcode' })).toBeTruthy();
    expect(server.callsTo(OTP_SEND)[0]!.body).toEqual({ email_address: 'ada@acme.test', locale: undefined });
    fireEvent.change(ui.getByLabelText('One-time passcode'), { target: { value: '123456' } });
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(server.callsTo(OTP_AUTH)[0]!.body).toEqual({ code: '123456', email_address: 'ada@acme.test' });
    expect(getCookie(IST_COOKIE)).toBe('ist-discovery');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_OTP_EMAIL_DISCOVERY_AUTHENTICATE' }));
    // The code was used: there is no way back to it.
    expect(ui.queryByRole('button', { name: 'Back' })).toBeNull();
  });

  it('a wrong discovery code stays on the entry screen with the catalogue message', async () => {
    const server = acmeServer().on('POST', OTP_SEND, json({})).on('POST', OTP_AUTH, apiError(401, 'otp_code_not_found'));
    const ui = renderLogin(server, discoveryConfig({ products: ['emailOtp'] }));
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
    fireEvent.change(await ui.findByLabelText('One-time passcode'), { target: { value: '000000' } });
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid passcode, please try again.'));
  });
});

describe('discovery link on load', () => {
  it('authenticates the token, keeps the intermediate session and lists organizations with labels and logos', async () => {
    const orgs = [
      discovered(ACME, 'active_member'),
      discovered(GLOBEX, 'invited_member'),
      discovered(INITECH, 'eligible_to_join_by_email_domain'),
      discovered({ ...INITECH, organization_id: 'organization-test-p', organization_name: 'Pending Co' }, 'pending_member'),
    ];
    const ui = arriveByLink(orgs);
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(ui.server.callsTo(ML_AUTH)[0]!.body).toEqual({ discovery_magic_links_token: 'dml-token' });
    expect(window.location.search).toBe('');
    expect(getCookie(IST_COOKIE)).toBe('ist-discovery');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_MAGIC_LINK_DISCOVERY_AUTHENTICATE' }));

    const items = within(ui.getByRole('list', { name: 'Your organizations' })).getAllByRole('button');
    // Active members get an arrow, invitations 'Accept Invite', the others 'Join'.
    expect(items.map((b) => b.getAttribute('aria-label') ?? b.textContent)).toEqual([
      'A Acme ',
      ' Globex Accept Invite',
      'I initech Join',
      'P Pending Co Join',
    ]);
    expect(ui.getByRole('button', { name: 'Acme' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Globex Accept Invite' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'initech Join' })).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Pending Co Join' })).toBeTruthy();
    // A logo when there is one, else the first letter (uppercased), both decorative.
    const logo = items[1]!.querySelector('img')!;
    expect(logo.getAttribute('src')).toBe('https://cdn.test/globex.png');
    expect(logo.getAttribute('alt')).toBe('');
    expect(items[2]!.querySelector('.lk-org__logo--letter')?.textContent).toBe('I');
    // Creation is off by default in the bootstrap.
    expect(ui.queryByRole('button', { name: 'Create an organization' })).toBeNull();
  });

  // Spec section 4: only the multi_tenant_magic_links type gets the link error; discovery is Default.
  it('an expired discovery link shows the default error without back', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=discovery&token=used');
    const ui = renderLogin(acmeServer().on('POST', ML_AUTH, apiError(401, 'unable_to_auth_magic_link')), discoveryConfig());
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.queryByText(/login link may have expired/)).toBeNull();
    expect(ui.queryByRole('button')).toBeNull();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'unable_to_auth_magic_link' }));
  });

  it('a discovery link refused by an ad blocker shows the AdBlockerDetected screen', async () => {
    window.history.replaceState(null, '', '/?stytch_token_type=discovery&token=t');
    const ui = renderLogin(acmeServer().on('POST', ML_AUTH, apiError(400, 'ad_blocker_detected')), discoveryConfig());
    expect(await ui.findByText(/ad blocker is preventing you/)).toBeTruthy();
  });

  it('sends the stored PKCE verifier', async () => {
    const key = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:magic_links`;
    localStorage.setItem(key, JSON.stringify({ code_verifier: 'v1', code_challenge: 'c1' }));
    const ui = arriveByLink([discovered(ACME)]);
    await ui.findByRole('heading', { name: 'Select an organization to continue' });
    expect(ui.server.callsTo(ML_AUTH)[0]!.body).toEqual({ discovery_magic_links_token: 'dml-token', pkce_code_verifier: 'v1' });
    expect(localStorage.getItem(key)).toBeNull();
  });

  it('a login link from a discovery password-reset email redeems with the reset PKCE pair and clears both email pairs', async () => {
    const resetKey = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:passwords`;
    const linksKey = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:magic_links`;
    localStorage.setItem(resetKey, JSON.stringify({ code_verifier: 'reset-v', code_challenge: 'c1' }));
    localStorage.setItem(linksKey, JSON.stringify({ code_verifier: 'links-v', code_challenge: 'c2' }));
    const server = acmeServer().on('POST', ML_AUTH, (call) =>
      (call.body as Record<string, string>).pkce_code_verifier === 'reset-v'
        ? json(discoveryResponse([discovered(ACME)]))
        : apiError(400, 'pkce_mismatch', 'This link needs the PKCE code verifier of the browser that started it.'),
    );
    window.history.replaceState(null, '', '/login?stytch_token_type=discovery&token=dml-token');
    const ui = renderLogin(server, discoveryConfig());
    await ui.findByRole('heading', { name: 'Select an organization to continue' });
    expect(server.callsTo(ML_AUTH)[0]!.body).toEqual({ discovery_magic_links_token: 'dml-token', pkce_code_verifier: 'reset-v' });
    expect(localStorage.getItem(resetKey)).toBeNull();
    expect(localStorage.getItem(linksKey)).toBeNull();
  });
});

describe('no organizations', () => {
  it('offers to create one when the project allows it, and creation logs in', async () => {
    const ui = arriveByLink([], {}, { create_organization_enabled: true });
    expect(await ui.findByRole('heading', { name: 'Create an organization to get started' })).toBeTruthy();
    ui.server.on('POST', CREATE, json(loggedInResponse()));
    fireEvent.click(ui.getByRole('button', { name: 'Create an organization' }));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.server.callsTo(CREATE)[0]!.body).toEqual({ session_duration_minutes: 30, intermediate_session_token: 'ist-discovery' });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(getCookie(IST_COOKIE)).toBeNull();
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_DISCOVERY_ORGANIZATIONS_CREATE' }));
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'AUTHENTICATE_FLOW_COMPLETE', data: {} });
  });

  it('says the email belongs to no organization when creation is disabled by the project or the config', async () => {
    for (const [extra, bootstrap] of [
      [{}, {}],
      [{ disableCreateOrganization: true }, { create_organization_enabled: true }],
    ] as const) {
      const ui = arriveByLink([], extra, bootstrap);
      expect(await ui.findByRole('heading', { name: 'ada@acme.test does not belong to any organizations.' })).toBeTruthy();
      expect(ui.queryByRole('button', { name: 'Create an organization' })).toBeNull();
      fireEvent.click(ui.getByRole('button', { name: 'Try a different email address' }));
      expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
      expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
      cleanup();
    }
  });

  it('creates directly with directCreateOrganizationForNoMembership', async () => {
    const server = acmeServer({ create_organization_enabled: true }).on('POST', CREATE, json(loggedInResponse()));
    const ui = arriveByLink([], { directCreateOrganizationForNoMembership: true }, {}, server);
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(CREATE)).toHaveLength(1);
  });

  it('does not create directly when creation is not allowed', async () => {
    const ui = arriveByLink([], { directCreateOrganizationForNoMembership: true });
    expect(await ui.findByRole('heading', { name: 'ada@acme.test does not belong to any organizations.' })).toBeTruthy();
    expect(ui.server.callsTo(CREATE)).toHaveLength(0);
  });

  it('a claimed domain on create shows its error screen with back', async () => {
    const ui = arriveByLink([], {}, { create_organization_enabled: true });
    ui.server.on('POST', CREATE, apiError(403, 'action_not_allowed_email_domain_is_claimed'));
    fireEvent.click(await ui.findByRole('button', { name: 'Create an organization' }));
    expect(await ui.findByText(/email domain is claimed by an organization/)).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: 'action_not_allowed_email_domain_is_claimed' }));
    fireEvent.click(ui.getByRole('button', { name: 'Go back' }));
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
  });
});

describe('the organization list', () => {
  it('offers creation below the list when allowed', async () => {
    const ui = arriveByLink([discovered(ACME)], {}, { create_organization_enabled: true });
    expect(await ui.findByRole('button', { name: 'Create an organization' })).toBeTruthy();
    expect(ui.getByText('or')).toBeTruthy();
  });

  it('selecting an organization exchanges the intermediate session and logs in', async () => {
    const ui = arriveByLink([discovered(ACME), discovered(GLOBEX, 'invited_member')]);
    ui.server.on('POST', EXCHANGE, json(loggedInResponse({ organization: GLOBEX })));
    fireEvent.click(await ui.findByRole('button', { name: 'Globex Accept Invite' }));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.server.callsTo(EXCHANGE)[0]!.body).toEqual({
      organization_id: GLOBEX.organization_id,
      session_duration_minutes: 30,
      intermediate_session_token: 'ist-discovery',
    });
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_DISCOVERY_INTERMEDIATE_SESSION_EXCHANGE' }));
  });

  it('shows "Logging in..." while the exchange runs', async () => {
    let release: () => void = () => undefined;
    const ui = arriveByLink([discovered(ACME)]);
    ui.server.on('POST', EXCHANGE, () => new Promise((r) => (release = () => r(json(loggedInResponse())))));
    fireEvent.click(await ui.findByRole('button', { name: 'Acme' }));
    const heading = await ui.findByRole('heading', { name: 'Logging in...' });
    // The heading takes the focus and is read from there; the status region does not say it again.
    expect(ui.host.shadowRoot!.activeElement).toBe(heading);
    expect(ui.root.querySelector('p.lk-visually-hidden[aria-live]:not([role])')?.textContent).toBe('');
    release();
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
  });

  it('a claimed domain on exchange shows its error screen with back', async () => {
    const ui = arriveByLink([discovered(INITECH, 'eligible_to_join_by_email_domain')]);
    ui.server.on('POST', EXCHANGE, apiError(403, 'action_not_allowed_email_domain_is_claimed'));
    fireEvent.click(await ui.findByRole('button', { name: 'initech Join' }));
    expect(await ui.findByText(/email domain is claimed by an organization/)).toBeTruthy();
    expect(ui.getByRole('button', { name: 'Go back' })).toBeTruthy();
  });

  it('other exchange errors show the default error screen', async () => {
    const ui = arriveByLink([discovered(ACME)]);
    ui.server.on('POST', EXCHANGE, apiError(404, 'intermediate_session_not_found', 'Intermediate session not found.'));
    fireEvent.click(await ui.findByRole('button', { name: 'Acme' }));
    expect(await ui.findByText('Something went wrong. Try again later or contact your admin for help.')).toBeTruthy();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: 'Intermediate session not found.' }));
  });

  it('primary_required shows the organization Main restricted, with the email known, and back to the list', async () => {
    const restricted = discovered(GLOBEX, 'active_member', { primary_required: { allowed_auth_methods: ['email_otp'] } });
    const ui = arriveByLink([discovered(ACME), restricted]);
    ui.server.on('POST', '/b2b/otps/email/login_or_signup', json({}));
    fireEvent.click(await ui.findByRole('button', { name: 'Globex' }));
    // Still the Discovery flow (spec sections 2 and 4): its title, with the organization's logo.
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    expect(ui.queryByRole('heading', { name: 'Continue to Globex' })).toBeNull();
    expect(ui.getByRole('img', { name: 'Globex logo' }).getAttribute('src')).toBe('https://cdn.test/globex.png');
    expect(ui.queryByLabelText('Email')).toBeNull();
    expect(ui.queryByRole('button', { name: 'Email me a link' })).toBeNull();
    expect(ui.server.callsTo(EXCHANGE)).toHaveLength(0);
    fireEvent.click(ui.getByRole('button', { name: 'Email me a code' }));
    expect(await ui.findByRole('heading', { name: 'Enter passcode' })).toBeTruthy();
    expect(ui.server.callsTo('/b2b/otps/email/login_or_signup')[0]!.body).toEqual({
      organization_id: GLOBEX.organization_id,
      email_address: 'ada@acme.test',
    });
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    fireEvent.click(await ui.findByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
  });

  it('primary_required with only SSO and a default connection starts SSO at once', async () => {
    const org = { ...GLOBEX, sso_default_connection_id: 'saml-connection-test-g' };
    const ui = arriveByLink([discovered(org, 'active_member', { primary_required: { allowed_auth_methods: ['sso'] } })], {
      ssoOptions: { loginRedirectURL: 'https://app.test/sso' },
    });
    fireEvent.click(await ui.findByRole('button', { name: 'Globex' }));
    await waitFor(() => expect(ui.navigate).toHaveBeenCalledTimes(1));
    expect(ui.navigate).toHaveBeenCalledWith(
      `http://localhost:3000/v1/public/sso/start?public_token=${TOKEN}&connection_id=saml-connection-test-g&login_redirect_url=https%3A%2F%2Fapp.test%2Fsso`,
    );
    expect(localStorage.getItem(`stytch_sdk_state_${TOKEN}::b2b_last_used_method`)).toBe('sso:saml-connection-test-g');
  });

  it('primary_required with no allowed method shows the auth-policy error with back', async () => {
    const ui = arriveByLink([discovered(GLOBEX, 'active_member', { primary_required: { allowed_auth_methods: [] } })]);
    fireEvent.click(await ui.findByRole('button', { name: 'Globex' }));
    expect(await ui.findByText(/authentication policy of Globex does not allow you/)).toBeTruthy();
    expect(ui.onError).toHaveBeenCalled();
    fireEvent.click(ui.getByRole('button', { name: 'Go back' }));
    expect(await ui.findByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
  });
});

describe('directLoginForSingleMembership', () => {
  const direct = (opts: Record<string, boolean>) => ({ directLoginForSingleMembership: { status: true, ...opts } });

  it('logs in directly with a single active membership', async () => {
    const server = acmeServer().on('POST', EXCHANGE, json(loggedInResponse()));
    const ui = arriveByLink([discovered(ACME), discovered(INITECH, 'eligible_to_join_by_email_domain')], direct({ ignoreJitProvisioning: true }), {}, server);
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect((server.callsTo(EXCHANGE)[0]!.body as Record<string, string>).organization_id).toBe(ACME.organization_id);
  });

  it('shows the list when an invitation is pending, unless invites are ignored', async () => {
    const orgs = [discovered(ACME), discovered(GLOBEX, 'invited_member')];
    const ui = arriveByLink(orgs, direct({}));
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(ui.server.callsTo(EXCHANGE)).toHaveLength(0);
    cleanup();

    const server = acmeServer().on('POST', EXCHANGE, json(loggedInResponse()));
    const direct2 = arriveByLink(orgs, direct({ ignoreInvites: true }), {}, server);
    expect(await direct2.findByRole('heading', { name: 'Success!' })).toBeTruthy();
  });

  it('shows the list when an organization can be joined by domain, unless JIT is ignored', async () => {
    const ui = arriveByLink([discovered(ACME), discovered(INITECH, 'eligible_to_join_by_email_domain')], direct({ ignoreInvites: true }));
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(ui.server.callsTo(EXCHANGE)).toHaveLength(0);
  });

  it('follows the selection rules: a restricted single membership goes to Main', async () => {
    const only = discovered(ACME, 'active_member', { primary_required: { allowed_auth_methods: ['magic_link'] } });
    const ui = arriveByLink([only], direct({}));
    expect(await ui.findByRole('button', { name: 'Email me a link' })).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Sign up or log in' })).toBeTruthy();
    expect(ui.server.callsTo(EXCHANGE)).toHaveLength(0);
  });
});
