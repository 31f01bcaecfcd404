import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getCookie, IST_COOKIE, SESSION_COOKIE, setCookie } from '../../session/cookies';
import { ACME, apiError, json, loggedInResponse } from '../../test/fakeServer';
import { acmeServer, renderLogin, tick } from '../../test/harness';

const SEND = '/b2b/otps/email/login_or_signup';
const AUTH = '/b2b/otps/email/authenticate';

async function openOtpEntry(server = acmeServer()) {
  server.on('POST', SEND, json({}));
  const ui = renderLogin(server, { config: { products: ['emailOtp'], organizationSlug: 'acme', sessionOptions: { sessionDurationMinutes: 45 } } });
  fireEvent.change(await ui.findByLabelText('Email'), { target: { value: 'ada@acme.test' } });
  fireEvent.click(ui.getByRole('button', { name: 'Continue with email' }));
  await ui.findByRole('heading', { name: 'Enter passcode' });
  return ui;
}

describe('Email OTP entry', () => {
  it('has an accessible numeric one-time-code field', async () => {
    const ui = await openOtpEntry();
    const input = ui.getByLabelText('One-time passcode') as HTMLInputElement;
    expect(input.getAttribute('inputmode')).toBe('numeric');
    expect(input.getAttribute('autocomplete')).toBe('one-time-code');
    // No maxlength: it would cut a pasted " 123456" before the separators are stripped.
    expect(input.hasAttribute('maxlength')).toBe(false);
    // Focus moved into the new screen.
    expect(ui.root.getRootNode() instanceof ShadowRoot && (ui.root.getRootNode() as ShadowRoot).activeElement).toBe(input);
  });

  it('keeps digits only and submits automatically at 6 digits, then logs in', async () => {
    const server = acmeServer().on('POST', AUTH, json(loggedInResponse()));
    setCookie(IST_COOKIE, 'ist-from-earlier', new Date(Date.now() + 60000));
    const ui = await openOtpEntry(server);
    const input = ui.getByLabelText('One-time passcode') as HTMLInputElement;
    fireEvent.change(input, { target: { value: '12a3' } });
    expect(input.value).toBe('123');
    expect(server.callsTo(AUTH)).toHaveLength(0);
    fireEvent.change(input, { target: { value: '123456' } });
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.getByText('You have successfully logged in.')).toBeTruthy();
    expect(server.callsTo(AUTH)).toHaveLength(1);
    expect(server.callsTo(AUTH)[0]!.body).toEqual({
      code: '123456',
      email_address: 'ada@acme.test',
      organization_id: ACME.organization_id,
      session_duration_minutes: 45,
      intermediate_session_token: 'ist-from-earlier',
    });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(ui.client.session.getSync()?.member.email_address).toBe('ada@acme.test');
    const types = ui.onEvent.mock.calls.map(([e]) => e.type);
    expect(types).toEqual(expect.arrayContaining(['B2B_OTP_EMAIL_AUTHENTICATE', 'AUTHENTICATE_FLOW_COMPLETE']));
  });

  it('shows the catalogue message for a wrong code and clears the field', async () => {
    const server = acmeServer().on('POST', AUTH, apiError(401, 'otp_code_not_found', 'raw server text'));
    const ui = await openOtpEntry(server);
    const input = ui.getByLabelText('One-time passcode') as HTMLInputElement;
    fireEvent.change(input, { target: { value: '000000' } });
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid passcode, please try again.'));
    expect((ui.getByLabelText('One-time passcode') as HTMLInputElement).value).toBe('');
    expect(getCookie(SESSION_COOKIE)).toBeNull();
  });

  it('while a code is checked the field is read-only and keeps focus; a wrong one leaves it focused', async () => {
    let release: () => void = () => undefined;
    const server = acmeServer().on('POST', AUTH, () => new Promise((r) => (release = () => r(apiError(401, 'otp_code_not_found')))));
    const ui = await openOtpEntry(server);
    const root = ui.root.getRootNode() as ShadowRoot;
    const input = ui.getByLabelText('One-time passcode') as HTMLInputElement;
    expect(root.activeElement).toBe(input);
    fireEvent.change(input, { target: { value: '000000' } });
    await waitFor(() => expect(input.readOnly).toBe(true));
    expect(input.disabled).toBe(false);
    expect(root.activeElement).toBe(input);
    release();
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid passcode, please try again.'));
    expect(input.readOnly).toBe(false);
    expect(input.value).toBe('');
    expect(root.activeElement).toBe(input);
  });

  it('counts down the 10-minute expiry and announces only the expiry', async () => {
    const ui = await openOtpEntry();
    expect(ui.getByText('Your code expires in 10:00.').getAttribute('aria-live')).toBe('off');
    const announcement = ui.getByRole('status');
    expect(announcement.getAttribute('aria-live')).toBe('polite');
    expect(announcement.textContent).toBe('');
    tick(ui.clock, 61_000);
    expect(ui.getByText('Your code expires in 8:59.')).toBeTruthy();
    expect(announcement.textContent).toBe('');
    tick(ui.clock, 9 * 60_000);
    expect(ui.getByText('Your code has expired. Request a new one.', { selector: '[aria-live="off"]' })).toBeTruthy();
    expect(announcement.textContent).toBe('Your code has expired. Request a new one.');
  });

  it('resend goes initial → sending → "Code sent" for 2 s → initial, renewing the expiry', async () => {
    let release: () => void = () => undefined;
    const ui = await openOtpEntry();
    tick(ui.clock, 5 * 60_000);
    ui.server.on('POST', SEND, () => new Promise((r) => (release = () => r(json({})))));
    const resend = ui.getByRole('button', { name: 'Resend code' }) as HTMLButtonElement;
    resend.focus();
    fireEvent.click(resend);
    // Held, not disabled: the pressed button keeps focus; a second press sends nothing.
    expect(await ui.findByRole('button', { name: 'Sending…' })).toBe(resend);
    expect(resend.disabled).toBe(false);
    expect(resend.getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(resend);
    expect((ui.root.getRootNode() as ShadowRoot).activeElement).toBe(resend);
    release();
    expect(await ui.findByRole('button', { name: 'Code sent' })).toBeTruthy();
    expect(ui.getByText('Your code expires in 10:00.')).toBeTruthy();
    tick(ui.clock, 1999);
    expect(ui.getByRole('button', { name: 'Code sent' }).getAttribute('aria-disabled')).toBe('true');
    fireEvent.click(resend);
    tick(ui.clock, 1);
    expect(ui.getByRole('button', { name: 'Resend code' }).getAttribute('aria-disabled')).toBeNull();
    expect(ui.server.callsTo(SEND)).toHaveLength(2);
    expect((ui.root.getRootNode() as ShadowRoot).activeElement).toBe(resend);
  });

  // Spec section 8: the catalogue text for a known error_type, else the server's error_message.
  it.each([
    ['user_lock_limit_reached', 'Too many failed authentication attempts. Please try again later.'],
    ['some_uncatalogued_type', 'raw server text'],
  ])('a failed resend (%s) shows why in the field\'s error region and the button returns', async (type, text) => {
    const ui = await openOtpEntry();
    ui.server.on('POST', SEND, apiError(429, type, 'raw server text'));
    fireEvent.click(ui.getByRole('button', { name: 'Resend code' }));
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe(text));
    const alert = ui.getByRole('alert');
    expect(alert.getAttribute('aria-live')).toBe('polite');
    expect(ui.getByLabelText('One-time passcode').getAttribute('aria-describedby')).toBe(alert.id);
    expect(ui.getByRole('button', { name: 'Resend code' }).getAttribute('aria-disabled')).toBeNull();
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: text, error_type: type }));
    // The next resend clears it.
    ui.server.on('POST', SEND, json({}));
    fireEvent.click(ui.getByRole('button', { name: 'Resend code' }));
    expect(await ui.findByRole('button', { name: 'Code sent' })).toBeTruthy();
    expect(ui.getByRole('alert').textContent).toBe('');
  });

  it.each([
    ['an error without error_message', { status: 500, json: { status_code: 500, error_type: 'internal_server_error' } }],
    ['a schema error without issues', { status: 400, json: { body: [] } }],
  ])('a failed resend with %s shows the strings table\'s text', async (_name, reply) => {
    const ui = await openOtpEntry();
    ui.server.on('POST', SEND, reply);
    fireEvent.click(ui.getByRole('button', { name: 'Resend code' }));
    const text = 'Something went wrong. Try again later or contact your admin for help.';
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe(text));
    expect(ui.onError).toHaveBeenCalledWith(expect.objectContaining({ message: text }));
  });
});
