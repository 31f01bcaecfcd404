import { act, fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createPkcePair } from '../../api/pkce';
import { getCookie, SESSION_COOKIE } from '../../session/cookies';
import { ACME, apiError, discovered, discoveryResponse, json, loggedInResponse } from '../../test/fakeServer';
import { acmeServer, renderLogin, tick, TOKEN } from '../../test/harness';

const STRENGTH = '/b2b/passwords/strength_check';
const EMAIL_RESET = '/b2b/passwords/email/reset';
const DISCOVERY_RESET = '/b2b/passwords/discovery/reset';
const SESSION_RESET = '/b2b/passwords/session/reset';
const ML_AUTH = '/b2b/magic_links/authenticate';
const ORG_SEARCH = '/b2b/organizations/search';
const PKCE_PASSWORDS = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:passwords`;
const PKCE_LINKS = `stytch_sdk_state_${TOKEN}::PKCE_VERIFIER:magic_links`;
const RESET_EMAIL = `stytch_sdk_state_${TOKEN}::reset-email-value`;

const organizationPage = () => ({ config: { products: ['passwords' as const], organizationSlug: 'acme', sessionOptions: { sessionDurationMinutes: 30 } } });

function zxcvbn(password: string, score: number, warning = '', suggestions: string[] = []) {
  return {
    request_id: 'r',
    status_code: 200,
    valid_password: score >= 3,
    score,
    breached_password: false,
    strength_policy: 'zxcvbn',
    zxcvbn_feedback: { warning, suggestions },
    luds_feedback: { has_lower_case: /[a-z]/.test(password), has_upper_case: false, has_digit: false, has_symbol: false, missing_complexity: 0, missing_characters: 0 },
  };
}

/** A strength endpoint that scores by length: 0-7 → 1, 8-11 → 2, 12-15 → 3, 16+ → 4. */
function scoreByLength(call: { body: unknown }) {
  const { password } = call.body as { password: string };
  const score = password.length >= 16 ? 4 : password.length >= 12 ? 3 : password.length >= 8 ? 2 : 1;
  return json(zxcvbn(password, score, score < 3 ? 'This is a very common password' : '', score < 3 ? ['Add another word or two.'] : []));
}

function openResetPage(query: string) {
  window.history.replaceState(null, '', `/reset?keep=1&stytch_redirect_type=reset_password${query}`);
}

/** Types into the new-password field and lets the 500 ms debounce elapse. */
async function typePassword(ui: ReturnType<typeof renderLogin>, value: string, wait = 500) {
  fireEvent.change(await ui.findByLabelText('New password'), { target: { value } });
  tick(ui.clock, wait);
}

const continueButton = (ui: ReturnType<typeof renderLogin>) => ui.getByRole('button', { name: 'Continue' }) as HTMLButtonElement;

describe('entry from the page address', () => {
  it('opens the reset form, removes the token (and only it) and looks up no organization', async () => {
    openResetPage('&stytch_token_type=multi_tenant_passwords&token=reset-token');
    const server = acmeServer();
    const ui = renderLogin(server, organizationPage());
    expect(await ui.findByRole('heading', { name: 'Create a new password' })).toBeTruthy();
    expect(window.location.pathname + window.location.search).toBe('/reset?keep=1');
    expect(server.callsTo(ORG_SEARCH)).toHaveLength(0);
    expect(ui.queryByRole('button', { name: 'Back' })).toBeNull();
    // No address is known here, so there is no username for password managers either.
    expect(ui.root.querySelector('input[autocomplete="username"]')).toBeNull();
  });

  it('gives password managers the remembered address as a hidden, unfocusable username', async () => {
    openResetPage('&stytch_token_type=multi_tenant_passwords&token=reset-token');
    localStorage.setItem(RESET_EMAIL, 'ada@acme.test');
    const ui = renderLogin(acmeServer(), organizationPage());
    await ui.findByRole('heading', { name: 'Create a new password' });
    const username = ui.root.querySelector<HTMLInputElement>('input[autocomplete="username"]')!;
    expect(username.value).toBe('ada@acme.test');
    expect(username.form).toBe((ui.getByLabelText('New password') as HTMLInputElement).form);
    expect(username.readOnly).toBe(true);
    expect(username.tabIndex).toBe(-1);
    expect(username.getAttribute('aria-hidden')).toBe('true');
    expect(username.className).toBe('lk-visually-hidden');
    // Out of the accessibility tree: the form's only textbox is the new password.
    expect(ui.queryAllByRole('textbox')).toHaveLength(0);
    expect(ui.getByLabelText('New password')).toBeTruthy();
  });

  it('an email reset token sets the password and logs in', async () => {
    openResetPage('&stytch_token_type=multi_tenant_passwords&token=reset-token');
    const pair = await createPkcePair();
    localStorage.setItem(PKCE_PASSWORDS, JSON.stringify(pair));
    localStorage.setItem(RESET_EMAIL, 'ada@acme.test');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength).on('POST', EMAIL_RESET, json(loggedInResponse()));
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    // The remembered address lets the server judge passwords made of it.
    expect(server.callsTo(STRENGTH)[0]!.body).toEqual({ password: 'correct horse battery staple', email_address: 'ada@acme.test' });
    fireEvent.click(continueButton(ui));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(server.callsTo(EMAIL_RESET)[0]!.body).toEqual({
      password_reset_token: 'reset-token',
      password: 'correct horse battery staple',
      session_duration_minutes: 30,
      code_verifier: pair.code_verifier,
    });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(localStorage.getItem(PKCE_PASSWORDS)).toBeNull();
    expect(localStorage.getItem(RESET_EMAIL)).toBeNull();
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_PASSWORD_RESET_BY_EMAIL' }));
  });

  it('a used or expired token is reported from the catalogue, on the form', async () => {
    openResetPage('&stytch_token_type=multi_tenant_passwords&token=used');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength).on('POST', EMAIL_RESET, apiError(401, 'unable_to_auth_magic_link'));
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.click(continueButton(ui));
    await waitFor(() =>
      expect(ui.getByText('The magic link could not be authenticated because it was either already used or expired. Please try again.')).toBeTruthy(),
    );
  });

  it('a discovery reset token sets the password and shows the organizations', async () => {
    openResetPage('&stytch_token_type=discovery&token=disc-token');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength).on('POST', DISCOVERY_RESET, json(discoveryResponse([discovered(ACME)])));
    const ui = renderLogin(server, { config: { products: ['passwords'], authFlowType: 'Discovery' } });
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.click(continueButton(ui));
    expect(await ui.findByRole('heading', { name: 'Select an organization to continue' })).toBeTruthy();
    expect(server.callsTo(DISCOVERY_RESET)[0]!.body).toEqual({ password_reset_token: 'disc-token', password: 'correct horse battery staple' });
    expect(ui.onEvent).toHaveBeenCalledWith(expect.objectContaining({ type: 'B2B_PASSWORD_DISCOVERY_RESET_BY_EMAIL' }));
  });

  it('a magic link is authenticated first ("Logging in..."), then the session sets the password', async () => {
    openResetPage('&stytch_token_type=multi_tenant_magic_links&token=ml-token');
    const links = await createPkcePair();
    localStorage.setItem(PKCE_LINKS, JSON.stringify(links));
    let release: () => void = () => undefined;
    const server = acmeServer()
      .on('POST', ML_AUTH, () => new Promise((r) => (release = () => r(json(loggedInResponse())))))
      .on('POST', STRENGTH, scoreByLength)
      .on('POST', SESSION_RESET, json(loggedInResponse({ session_token: 'session-token-2' })));
    const ui = renderLogin(server, organizationPage());
    expect(await ui.findByRole('heading', { name: 'Logging in...' })).toBeTruthy();
    // The heading shows at once; the call follows once the URL-token part is loaded.
    await waitFor(() => expect(server.callsTo(ML_AUTH)).toHaveLength(1));
    expect(server.callsTo(ML_AUTH)[0]!.body).toEqual({
      magic_links_token: 'ml-token',
      session_duration_minutes: 30,
      pkce_code_verifier: links.code_verifier,
    });
    act(() => release());
    expect(await ui.findByRole('heading', { name: 'Create a new password' })).toBeTruthy();
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.click(continueButton(ui));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    const reset = server.callsTo(SESSION_RESET)[0]!;
    expect(reset.body).toEqual({ password: 'correct horse battery staple' });
    // The session is the Basic-auth password of the reset.
    expect(atob(reset.headers.Authorization!.slice('Basic '.length))).toBe(`${TOKEN}:session-token-1`);
  });

  it('the magic link falls back to the magic-link verifier when the password one is refused for PKCE', async () => {
    openResetPage('&stytch_token_type=multi_tenant_magic_links&token=ml-token');
    const passwords = await createPkcePair();
    const links = await createPkcePair();
    localStorage.setItem(PKCE_PASSWORDS, JSON.stringify(passwords));
    localStorage.setItem(PKCE_LINKS, JSON.stringify(links));
    const server = acmeServer().on('POST', ML_AUTH, (call) =>
      (call.body as Record<string, string>).pkce_code_verifier === links.code_verifier
        ? json(loggedInResponse())
        : apiError(400, 'pkce_mismatch', 'The PKCE code verifier does not match.'),
    );
    const ui = renderLogin(server, organizationPage());
    expect(await ui.findByRole('heading', { name: 'Create a new password' })).toBeTruthy();
    expect(server.callsTo(ML_AUTH).map((c) => (c.body as Record<string, string>).pkce_code_verifier)).toEqual([
      passwords.code_verifier,
      links.code_verifier,
    ]);
  });

  // Spec section 7: magic links authenticate carries a locale; the reset page's is the password
  // one, else the magic links one (as for the verification link that led here).
  it.each([
    [{ passwordOptions: { locale: 'de' }, emailMagicLinksOptions: { locale: 'pt-br' } }, 'de'],
    [{ emailMagicLinksOptions: { locale: 'pt-br' } }, 'pt-br'],
  ])('the magic link to the reset page sends the configured locale (%j)', async (options, locale) => {
    openResetPage('&stytch_token_type=multi_tenant_magic_links&token=ml-token');
    const server = acmeServer().on('POST', ML_AUTH, json(loggedInResponse()));
    const page = organizationPage();
    const ui = renderLogin(server, { config: { ...page.config, ...options } });
    expect(await ui.findByRole('heading', { name: 'Create a new password' })).toBeTruthy();
    expect(server.callsTo(ML_AUTH)[0]!.body).toEqual({ magic_links_token: 'ml-token', session_duration_minutes: 30, locale });
  });

  it('a failed magic link is the EmailMagicLink error without back', async () => {
    openResetPage('&stytch_token_type=multi_tenant_magic_links&token=used');
    const ui = renderLogin(acmeServer().on('POST', ML_AUTH, apiError(401, 'unable_to_auth_magic_link')), organizationPage());
    expect(await ui.findByText(/login link may have expired/)).toBeTruthy();
    expect(ui.queryByRole('button')).toBeNull();
  });

  it('a page mounted with the PasswordReset flow and no token resets with the current session', async () => {
    window.history.replaceState(null, '', '/account/password');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength).on('POST', SESSION_RESET, apiError(401, 'user_unauthenticated'));
    const ui = renderLogin(server, { config: { products: ['passwords'], authFlowType: 'PasswordReset' } });
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.click(continueButton(ui));
    await waitFor(() => expect(ui.getByText('Must have an active session to call this method. Have you logged in yet?')).toBeTruthy());
    expect(server.callsTo(ORG_SEARCH)).toHaveLength(0);
  });
});

describe('strength meter', () => {
  it('checks 500 ms after the last keystroke, once', async () => {
    openResetPage('');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength);
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'cor', 200);
    await typePassword(ui, 'corr', 200);
    await typePassword(ui, 'correct', 499);
    expect(server.callsTo(STRENGTH)).toHaveLength(0);
    tick(ui.clock, 1);
    await waitFor(() => expect(server.callsTo(STRENGTH)).toHaveLength(1));
    expect((server.callsTo(STRENGTH)[0]!.body as { password: string }).password).toBe('correct');
  });

  it('zxcvbn: a weak password shows red segments with the warning and suggestions; Continue stays disabled', async () => {
    openResetPage('');
    const ui = renderLogin(acmeServer().on('POST', STRENGTH, scoreByLength), organizationPage());
    await typePassword(ui, 'password');
    expect(await ui.findByText('This is a very common password')).toBeTruthy();
    expect(ui.getByText('Add another word or two.')).toBeTruthy();
    expect(ui.getByText('Password strength: Fair')).toBeTruthy();
    expect(ui.root.querySelectorAll('.lk-meter__segment--weak')).toHaveLength(2);
    expect(continueButton(ui).disabled).toBe(true);
    // The input is described by the feedback, so screen readers hear it.
    expect(ui.getByLabelText('New password').getAttribute('aria-describedby')).toContain('password-strength');
  });

  it.each([
    ['short', 1, 'weak', 'Weak'],
    ['longer pw', 2, 'weak', 'Fair'],
    ['twelve chars', 3, 'strong', 'Good'],
    ['sixteen chars ok', 4, 'strong', 'Strong'],
  ])('zxcvbn: "%s" fills %i %s segment(s)', async (password, filled, tone, label) => {
    openResetPage('');
    const ui = renderLogin(acmeServer().on('POST', STRENGTH, scoreByLength), organizationPage());
    await typePassword(ui, password);
    expect(await ui.findByText(`Password strength: ${label}`)).toBeTruthy();
    expect(ui.root.querySelectorAll(`.lk-meter__segment--${tone}`)).toHaveLength(filled);
    expect(ui.root.querySelectorAll('.lk-meter__segment')).toHaveLength(4);
    expect(continueButton(ui).disabled).toBe(filled < 3);
  });

  it('Continue is disabled again as soon as the accepted password changes', async () => {
    openResetPage('');
    const ui = renderLogin(acmeServer().on('POST', STRENGTH, scoreByLength), organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.change(ui.getByLabelText('New password'), { target: { value: 'correct horse battery stapl' } });
    expect(continueButton(ui).disabled).toBe(true);
  });

  it('an answer that arrives after the password changed is ignored', async () => {
    openResetPage('');
    const pending: ((v: ReturnType<typeof json>) => void)[] = [];
    const server = acmeServer().on('POST', STRENGTH, () => new Promise((r) => pending.push(r)));
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(pending).toHaveLength(1));
    await typePassword(ui, 'abc');
    await waitFor(() => expect(pending).toHaveLength(2));
    act(() => pending[0]!(json(zxcvbn('correct horse battery staple', 4))));
    await act(async () => undefined);
    expect(continueButton(ui).disabled).toBe(true);
    act(() => pending[1]!(json(zxcvbn('abc', 0, 'Too short'))));
    expect(await ui.findByText('Too short')).toBeTruthy();
    expect(continueButton(ui).disabled).toBe(true);
  });

  it('LUDS: the length and complexity rules from the project, marked as the server judges them, and the breach warning', async () => {
    openResetPage('');
    const server = acmeServer({ password_config: { luds_complexity: 3, luds_minimum_count: 10 } }).on('POST', STRENGTH, (call) => {
      const { password } = call.body as { password: string };
      const breached = password === 'Password123!';
      const long = password.length >= 10;
      return json({
        ...zxcvbn(password, 2),
        strength_policy: 'luds',
        valid_password: long && !breached,
        breached_password: breached,
        luds_feedback: { has_lower_case: true, has_upper_case: long, has_digit: long, has_symbol: false, missing_complexity: long ? 0 : 2, missing_characters: long ? 0 : 10 - password.length },
      });
    });
    const ui = renderLogin(server, organizationPage());
    const length = await ui.findByText('Must be at least 10 characters long');
    const complexity = ui.getByText('Must contain 3 of the following: uppercase letter, lowercase letter, number, symbol');
    await typePassword(ui, 'short');
    await waitFor(() => expect(length.textContent).toContain('Requirement not met:'));
    expect(complexity.textContent).toContain('Requirement not met:');
    // Met and unmet differ by a visible mark, not only by colour (WCAG 1.4.1); screen readers get
    // the hidden text instead of the mark.
    const mark = (rule: HTMLElement) => rule.querySelector('[aria-hidden="true"]')?.textContent?.trim();
    expect(mark(length)).toBe('○');
    expect(ui.root.querySelector('.lk-rules')?.classList.contains('lk-rules--checks')).toBe(true);
    expect(continueButton(ui).disabled).toBe(true);
    // No zxcvbn bar under LUDS.
    expect(ui.root.querySelector('.lk-meter')).toBeNull();

    await typePassword(ui, 'Password123!');
    expect(await ui.findByText('This password appears in a list of breached passwords. Choose a different one.')).toBeTruthy();
    expect(length.textContent).toContain('Requirement met:');
    expect(mark(length)).toBe('✓');
    expect(mark(complexity)).toBe('✓');
    expect(continueButton(ui).disabled).toBe(true);

    await typePassword(ui, 'Longer1Password');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    expect(ui.queryByText(/breached passwords/)).toBeNull();
  });

  it('a failed check says so and keeps Continue disabled; clearing the field clears the meter', async () => {
    openResetPage('');
    const server = acmeServer().on('POST', STRENGTH, 'network-error');
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    expect(await ui.findByText('Your password could not be checked. Try again.')).toBeTruthy();
    expect(continueButton(ui).disabled).toBe(true);
    await typePassword(ui, '');
    await waitFor(() => expect(ui.queryByText(/could not be checked/)).toBeNull());
    expect(server.callsTo(STRENGTH)).toHaveLength(1);
  });

  it('a breached password refused at submit is shown from the catalogue', async () => {
    openResetPage('&stytch_token_type=multi_tenant_passwords&token=t');
    const server = acmeServer().on('POST', STRENGTH, scoreByLength).on('POST', EMAIL_RESET, apiError(400, 'breached_password'));
    const ui = renderLogin(server, organizationPage());
    await typePassword(ui, 'correct horse battery staple');
    await waitFor(() => expect(continueButton(ui).disabled).toBe(false));
    fireEvent.click(continueButton(ui));
    expect(await ui.findByText('Password appears in the list of breached passwords and must be reset.')).toBeTruthy();
  });
});
