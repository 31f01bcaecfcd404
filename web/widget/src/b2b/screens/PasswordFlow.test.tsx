import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getCookie, SESSION_COOKIE } from '../../session/cookies';
import { ACME, apiError, discovered, discoveryResponse, GLOBEX, json, loggedInResponse } from '../../test/fakeServer';
import { acmeServer, renderLogin, TOKEN } from '../../test/harness';

const SEARCH = '/b2b/organizations/members/search';
const AUTH = '/b2b/passwords/authenticate';
const DISCOVERY_AUTH = '/b2b/passwords/discovery/authenticate';
const RESET_START = '/b2b/passwords/email/reset/start';
const DISCOVERY_RESET_START = '/b2b/passwords/discovery/reset/start';
const SEND_LINK = '/b2b/magic_links/email/login_or_signup';
const LAST_USED = `stytch_sdk_state_${TOKEN}::b2b_last_used_method`;
const RESET_EMAIL = `stytch_sdk_state_${TOKEN}::reset-email-value`;
const MEMBER = { status: 'active', name: 'Ada', member_password_id: 'member-password-test-1' };

const passwordsOnly = (extra: Record<string, unknown> = {}) => ({
  config: {
    products: ['passwords' as const],
    organizationSlug: 'acme',
    sessionOptions: { sessionDurationMinutes: 30 },
    passwordOptions: { resetPasswordRedirectURL: 'https://app.test/reset', locale: 'en' },
    ...extra,
  },
});
const discoveryConfig = () => ({
  config: {
    products: ['emailMagicLinks' as const, 'passwords' as const],
    authFlowType: 'Discovery' as const,
    passwordOptions: { resetPasswordRedirectURL: 'https://app.test/reset' },
  },
});

async function typeEmail(ui: ReturnType<typeof renderLogin>, email: string, button = 'Continue') {
  fireEvent.change(await ui.findByLabelText('Email'), { target: { value: email } });
  fireEvent.click(ui.getByRole('button', { name: button }));
}

async function logIn(ui: ReturnType<typeof renderLogin>, password: string) {
  fireEvent.change(await ui.findByLabelText('Password'), { target: { value: password } });
  fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
}

describe('Password Email (organization)', () => {
  it('rejects a malformed email before any member lookup', async () => {
    const server = acmeServer();
    const ui = renderLogin(server, passwordsOnly());
    await typeEmail(ui, 'ada@acme');
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid email address'));
    expect(server.callsTo(SEARCH)).toHaveLength(0);
  });

  it('a member goes on to the password; logging in sets the session and remembers passwords', async () => {
    const server = acmeServer()
      .on('POST', SEARCH, json({ member: MEMBER }))
      .on('POST', AUTH, json(loggedInResponse()));
    const ui = renderLogin(server, passwordsOnly());
    await typeEmail(ui, ' ada@acme.test ');
    expect(await ui.findByRole('heading', { name: 'Log in with your password' })).toBeTruthy();
    expect(server.callsTo(SEARCH)[0]!.body).toEqual({ email_address: 'ada@acme.test', organization_id: ACME.organization_id });
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
    // Continue stays pressable (and in the Tab order) without a password, and says what is missing
    // on the password field instead of sending anything.
    const continueButton = ui.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;
    expect(continueButton.disabled).toBe(false);
    fireEvent.click(continueButton);
    const passwordField = ui.getByLabelText('Password');
    await waitFor(() => expect(passwordField.getAttribute('aria-invalid')).toBe('true'));
    const describedBy = (passwordField.getAttribute('aria-describedby') ?? '').split(' ');
    const message = ui.root.querySelector(`[id="${describedBy[0]}"]`);
    expect(message?.getAttribute('role')).toBe('alert');
    expect(message?.textContent).toBe('Enter your password.');
    expect(server.callsTo(AUTH)).toHaveLength(0);
    await logIn(ui, 'correct horse battery staple');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH)[0]!.body).toEqual({
      organization_id: ACME.organization_id,
      email_address: 'ada@acme.test',
      password: 'correct horse battery staple',
      session_duration_minutes: 30,
      locale: 'en',
    });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(localStorage.getItem(LAST_USED)).toBe('passwords');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_PASSWORD_AUTHENTICATE' }));
  });

  it('a newcomer the organization admits gets the verification link to the reset page', async () => {
    const open = { ...ACME, email_jit_provisioning: 'RESTRICTED', email_allowed_domains: ['acme.test'] };
    const server = acmeServer({}, open).on('POST', SEARCH, json({ member: null })).on('POST', SEND_LINK, json({}));
    const ui = renderLogin(server, passwordsOnly({ emailMagicLinksOptions: { loginTemplateId: 'tpl' } }));
    await typeEmail(ui, 'new@acme.test');
    expect(await ui.findByRole('heading', { name: 'Verify your email' })).toBeTruthy();
    expect(ui.getByText(/A login link was sent to new@acme\.test/)).toBeTruthy();
    expect(server.callsTo(SEND_LINK)[0]!.body).toEqual({
      email_address: 'new@acme.test',
      organization_id: ACME.organization_id,
      login_redirect_url: 'https://app.test/reset',
      signup_redirect_url: 'https://app.test/reset',
      login_template_id: 'tpl',
      locale: 'en',
    });
    // Stored before the send for the reset page (api-reference 3.3).
    expect(localStorage.getItem(RESET_EMAIL)).toBe('new@acme.test');
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });

  it('a newcomer the organization does not admit is told so, and nothing is sent', async () => {
    const server = acmeServer().on('POST', SEARCH, json({ member: null }));
    const ui = renderLogin(server, passwordsOnly());
    await typeEmail(ui, 'stranger@else.test');
    await waitFor(() =>
      expect(ui.getByRole('alert').textContent).toBe(
        'stranger@else.test does not have access to Acme. If you think this is a mistake, contact your admin.',
      ),
    );
    expect(server.callsTo(SEND_LINK)).toHaveLength(0);
    expect(ui.onError).toHaveBeenCalled();
  });

});

// Spec section 4: 'Use password' goes to Password Authenticate, whatever the email field holds;
// that screen asks for a valid email itself before anything is sent.
describe('"Use a password instead"', () => {
  /** The message the email field is described by (its error), and whether it is marked invalid. */
  function emailError(ui: ReturnType<typeof renderLogin>) {
    const input = ui.getByLabelText('Email');
    const describedBy = input.getAttribute('aria-describedby') ?? '';
    return { invalid: input.getAttribute('aria-invalid') === 'true', text: ui.root.querySelector(`[id="${describedBy}"]`)?.textContent };
  }

  const emailAndPasswords = { config: { products: ['emailOtp' as const, 'passwords' as const], organizationSlug: 'acme' } };

  it('with nothing typed opens Password Authenticate, which asks for the email before logging in', async () => {
    const server = acmeServer().on('POST', AUTH, json(loggedInResponse()));
    const ui = renderLogin(server, emailAndPasswords);
    fireEvent.click(await ui.findByRole('button', { name: 'Use a password instead' }));
    expect(await ui.findByRole('heading', { name: 'Log in with your password' })).toBeTruthy();
    expect(ui.queryByRole('heading', { name: 'Continue with a password' })).toBeNull();
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('');
    await logIn(ui, 'correct horse battery staple');
    await waitFor(() => expect(emailError(ui)).toEqual({ invalid: true, text: 'Invalid email address' }));
    expect(server.callsTo(AUTH)).toHaveLength(0);
    fireEvent.change(ui.getByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH)[0]!.body).toMatchObject({ organization_id: ACME.organization_id, email_address: 'ada@acme.test' });
    // No member lookup on the way: the password screen was reached directly.
    expect(server.callsTo(SEARCH)).toHaveLength(0);
  });

  it('with a malformed email opens Password Authenticate holding it, and refuses it there', async () => {
    const server = acmeServer();
    const ui = renderLogin(server, emailAndPasswords);
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme' } });
    fireEvent.click(ui.getByRole('button', { name: 'Use a password instead' }));
    expect(await ui.findByRole('heading', { name: 'Log in with your password' })).toBeTruthy();
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme');
    await logIn(ui, 'correct horse battery staple');
    await waitFor(() => expect(emailError(ui)).toEqual({ invalid: true, text: 'Invalid email address' }));
    expect(server.callsTo(AUTH)).toHaveLength(0);
    expect(server.callsTo(SEARCH)).toHaveLength(0);
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });
});

describe('Password Authenticate', () => {
  async function atPasswordScreen(server = acmeServer()) {
    server.on('POST', SEARCH, json({ member: MEMBER }));
    const ui = renderLogin(server, passwordsOnly());
    await typeEmail(ui, 'ada@acme.test');
    await ui.findByLabelText('Password');
    return ui;
  }

  it('the toggle shows and hides the password', async () => {
    const ui = await atPasswordScreen();
    const input = ui.getByLabelText('Password') as HTMLInputElement;
    expect(input.type).toBe('password');
    expect(input.getAttribute('autocomplete')).toBe('current-password');
    fireEvent.click(ui.getByRole('button', { name: 'Show password' }));
    expect(input.type).toBe('text');
    fireEvent.click(ui.getByRole('button', { name: 'Hide password' }));
    expect(input.type).toBe('password');
  });

  it.each([
    ['unauthorized_credentials', 'Unauthorized credentials.'],
    ['user_lock_limit_reached', 'Too many failed authentication attempts. Please try again later.'],
    ['reset_password', 'Password must be reset.'],
    ['breached_password', 'Password appears in the list of breached passwords and must be reset.'],
  ])('shows %s from the error catalogue under the password', async (type, text) => {
    const ui = await atPasswordScreen(acmeServer().on('POST', AUTH, apiError(400, type)));
    await logIn(ui, 'whatever');
    await waitFor(() => expect(ui.getByText(text)).toBeTruthy());
    expect((ui.getByLabelText('Password') as HTMLInputElement).getAttribute('aria-invalid')).toBe('true');
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ error_type: type, message: text }));
  });

  it('a changed email is checked again before the login', async () => {
    const server = acmeServer();
    const ui = await atPasswordScreen(server);
    fireEvent.change(ui.getByLabelText('Email'), { target: { value: 'nope' } });
    await logIn(ui, 'pw');
    await waitFor(() => expect(ui.getByText('Invalid email address')).toBeTruthy());
    expect(server.callsTo(AUTH)).toHaveLength(0);
  });

  it('primary_required returns to Main restricted, with the email known', async () => {
    const response = loggedInResponse({
      member_session: null,
      intermediate_session_token: 'ist-1',
      member_authenticated: false,
      primary_required: { allowed_auth_methods: ['email_otp'] },
    });
    const ui = await atPasswordScreen(acmeServer().on('POST', AUTH, json(response)));
    await logIn(ui, 'pw');
    expect(await ui.findByRole('heading', { name: 'Continue to Acme' })).toBeTruthy();
  });
});

describe('Password Forgot Form', () => {
  async function atForgot(server: ReturnType<typeof acmeServer>, options = passwordsOnly()) {
    server.on('POST', SEARCH, (call) =>
      json({ member: (call.body as { email_address: string }).email_address === 'ada@acme.test' ? MEMBER : null }),
    );
    const ui = renderLogin(server, options);
    await typeEmail(ui, 'ada@acme.test');
    fireEvent.click(await ui.findByRole('button', { name: 'Sign up or reset password' }));
    expect(await ui.findByRole('heading', { name: 'Sign up or reset your password' })).toBeTruthy();
    return ui;
  }

  it('a member gets a reset link; the confirmation can send it again', async () => {
    const server = acmeServer().on('POST', RESET_START, json({}));
    const ui = await atForgot(
      server,
      passwordsOnly({
        passwordOptions: {
          resetPasswordRedirectURL: 'https://app.test/reset',
          loginRedirectURL: 'https://app.test/login',
          resetPasswordExpirationMinutes: 15,
          resetPasswordTemplateId: 'reset-tpl',
        },
      }),
    );
    expect((ui.getByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByRole('heading', { name: 'Check your email' })).toBeTruthy();
    expect(ui.getByText('A link to create a new password was sent to ada@acme.test.')).toBeTruthy();
    expect(server.callsTo(RESET_START)[0]!.body).toEqual({
      email_address: 'ada@acme.test',
      organization_id: ACME.organization_id,
      reset_password_redirect_url: 'https://app.test/reset',
      reset_password_expiration_minutes: 15,
      reset_password_template_id: 'reset-tpl',
      login_redirect_url: 'https://app.test/login',
    });
    expect(ui.onEvent).toHaveBeenCalledWith({ type: 'B2B_PASSWORD_RESET_BY_EMAIL_START', data: { email_address: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Resend email' }));
    expect(await ui.findByRole('button', { name: 'Email sent' })).toBeTruthy();
    expect(server.callsTo(RESET_START)).toHaveLength(2);
  });

  it('with PKCE required the reset start carries the challenge of the stored passwords pair', async () => {
    const server = acmeServer({ pkce_required_for_password_resets: true }).on('POST', RESET_START, json({}));
    const ui = await atForgot(server);
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    await ui.findByRole('heading', { name: 'Check your email' });
    const stored = JSON.parse(localStorage.getItem(`stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:passwords`)!);
    expect((server.callsTo(RESET_START)[0]!.body as Record<string, string>).code_challenge).toBe(stored.code_challenge);
  });

  it('someone who is not a member follows the verification path instead', async () => {
    const open = { ...ACME, email_jit_provisioning: 'ALL_ALLOWED' };
    const server = acmeServer({}, open).on('POST', SEND_LINK, json({}));
    const ui = await atForgot(server);
    fireEvent.change(ui.getByLabelText('Email'), { target: { value: 'new@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    expect(await ui.findByRole('heading', { name: 'Verify your email' })).toBeTruthy();
    expect(server.callsTo(RESET_START)).toHaveLength(0);
  });

  it('a send failure shows under the field', async () => {
    const server = acmeServer().on('POST', RESET_START, apiError(429, 'too_many_requests', 'Too many requests.'));
    const ui = await atForgot(server);
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Too many requests.'));
  });
});

describe('discovery', () => {
  it('password login lists the email’s organizations', async () => {
    const server = acmeServer().on('POST', DISCOVERY_AUTH, json(discoveryResponse([discovered(ACME), discovered(GLOBEX)])));
    const ui = renderLogin(server, discoveryConfig());
    fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
    fireEvent.click(ui.getByRole('button', { name: 'Use a password instead' }));
    await logIn(ui, 'correct horse battery staple');
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(server.callsTo(DISCOVERY_AUTH)[0]!.body).toEqual({ email_address: 'ada@acme.test', password: 'correct horse battery staple' });
    expect(server.callsTo(SEARCH)).toHaveLength(0);
    expect(localStorage.getItem(LAST_USED)).toBe('passwords');
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_PASSWORD_DISCOVERY_AUTHENTICATE' }));
  });

  it('the email step needs no lookup, and the forgot form sends a discovery reset link', async () => {
    const server = acmeServer().on('POST', DISCOVERY_RESET_START, json({}));
    const ui = renderLogin(server, { config: { ...discoveryConfig().config, products: ['passwords'] } });
    await typeEmail(ui, 'ada@acme.test');
    fireEvent.click(await ui.findByRole('button', { name: 'Sign up or reset password' }));
    fireEvent.click(await ui.findByRole('button', { name: 'Continue' }));
    expect(await ui.findByRole('heading', { name: 'Check your email' })).toBeTruthy();
    expect(server.callsTo(DISCOVERY_RESET_START)[0]!.body).toEqual({
      email_address: 'ada@acme.test',
      reset_password_redirect_url: 'https://app.test/reset',
    });
    expect(server.callsTo(SEARCH)).toHaveLength(0);
  });
});

describe('after another method is required', () => {
  it('a discovered organization that requires a password offers it with the known email, and the login carries the IST', async () => {
    const required = discovered(ACME, 'active_member', { primary_required: { allowed_auth_methods: ['password'] } });
    const server = acmeServer()
      .on('POST', '/b2b/magic_links/email/discovery/send', json({}))
      .on('POST', '/b2b/magic_links/discovery/authenticate', json(discoveryResponse([required], 'ist-discovery')))
      .on('POST', AUTH, json(loggedInResponse()));
    window.history.replaceState(null, '', '/?stytch_token_type=discovery&token=d');
    const ui = renderLogin(server, { config: { products: ['emailMagicLinks', 'passwords'], authFlowType: 'Discovery' } });
    fireEvent.click(await ui.findByRole('button', { name: /Acme/ }));
    fireEvent.click(await ui.findByRole('button', { name: 'Use a password instead' }));
    expect((await ui.findByLabelText('Email') as HTMLInputElement).value).toBe('ada@acme.test');
    await logIn(ui, 'correct horse battery staple');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(AUTH)[0]!.body).toMatchObject({
      organization_id: ACME.organization_id,
      email_address: 'ada@acme.test',
      intermediate_session_token: 'ist-discovery',
    });
    expect(server.callsTo(SEARCH)).toHaveLength(0);
  });
});
