import { fireEvent, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getCookie, SESSION_COOKIE } from '../../../session/cookies';
import { apiError, json, loggedInResponse } from '../../../test/fakeServer';
import { tick } from '../../../test/harness';
import { loginToMfa, MEMBER, mfaRequired, mfaServer, SMS_AUTH, SMS_SEND, typeCode } from '../../../test/mfaKit';

const INVALID = 'Phone number format is invalid. Ensure the phone number is in the E.164 format.';

async function openEnrollment(server = mfaServer(mfaRequired({ allowed: ['sms_otp'] }))) {
  const ui = await loginToMfa(server);
  await ui.findByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' });
  return ui;
}

async function enroll(ui: Awaited<ReturnType<typeof openEnrollment>>, phone: string) {
  fireEvent.change(ui.getByLabelText('Phone number'), { target: { value: phone } });
  fireEvent.click(ui.getByRole('button', { name: 'Send code' }));
}

describe('SMS OTP enrollment', () => {
  it('offers a country selector defaulting to the United States, with calling codes', async () => {
    const ui = await openEnrollment();
    const select = ui.getByLabelText('Country') as HTMLSelectElement;
    expect(select.value).toBe('US');
    expect(select.selectedOptions[0]!.textContent).toBe('United States (+1)');
    expect([...select.options].some((o) => o.textContent === 'United Kingdom (+44)')).toBe(true);
    expect(select.options.length).toBeGreaterThan(200);
  });

  it('texts a code to the parsed E.164 number with the IST, then shows entry with the formatted number', async () => {
    const ui = await openEnrollment();
    await enroll(ui, '(415) 555-2671');
    // The display form needs the phone library, a dynamic import that a busy machine can take a
    // few seconds to transform on its first use.
    const sent = await ui.findByText('A 6-digit passcode was sent to you at +1 415 555 2671.', {}, { timeout: 5000 });
    expect(sent).toBeTruthy();
    expect(ui.server.callsTo(SMS_SEND)[0]!.body).toEqual({ ...MEMBER, mfa_phone_number: '+14155552671' });
    expect(ui.getByText('Your code expires in 2:00.')).toBeTruthy();
    expect(ui.onEvent.mock.calls.map(([e]) => e.type)).toContain('B2B_SMS_OTP_SEND');
  });

  it('reads the number in the chosen country', async () => {
    const ui = await openEnrollment();
    fireEvent.change(ui.getByLabelText('Country'), { target: { value: 'GB' } });
    await enroll(ui, '020 7946 0958');
    await ui.findByRole('heading', { name: 'Enter passcode' });
    expect(ui.server.callsTo(SMS_SEND)[0]!.body).toMatchObject({ mfa_phone_number: '+442079460958' });
  });

  it('an invalid number is refused before any call; an empty one is required', async () => {
    const ui = await openEnrollment();
    fireEvent.click(ui.getByRole('button', { name: 'Send code' }));
    expect((await ui.findByText('Enter your phone number.')).getAttribute('role')).toBe('alert');
    await enroll(ui, '123');
    expect(await ui.findByText(INVALID)).toBeTruthy();
    expect(ui.server.callsTo(SMS_SEND)).toHaveLength(0);
    expect(ui.getByLabelText('Phone number').getAttribute('aria-invalid')).toBe('true');
  });

  it('while the number is sent, the fields hold (read-only, not disabled) and Send code keeps focus', async () => {
    let release: () => void = () => undefined;
    const server = mfaServer(mfaRequired({ allowed: ['sms_otp'] })).on(
      'POST',
      SMS_SEND,
      () => new Promise((r) => (release = () => r(apiError(400, 'duplicate_member_phone_number')))),
    );
    const ui = await openEnrollment(server);
    const select = ui.getByLabelText('Country') as HTMLSelectElement;
    const phone = ui.getByLabelText('Phone number') as HTMLInputElement;
    const send = ui.getByRole('button', { name: 'Send code' }) as HTMLButtonElement;
    fireEvent.change(phone, { target: { value: '4155552671' } });
    send.focus();
    fireEvent.click(send);
    await waitFor(() => expect(send.getAttribute('aria-disabled')).toBe('true'));
    expect(send.disabled).toBe(false);
    expect(phone.disabled).toBe(false);
    expect(phone.readOnly).toBe(true);
    expect(select.disabled).toBe(false);
    expect(select.getAttribute('aria-disabled')).toBe('true');
    // The selector cannot be read-only: a change while busy is ignored.
    fireEvent.change(select, { target: { value: 'GB' } });
    expect(select.value).toBe('US');
    fireEvent.click(send);
    expect(server.callsTo(SMS_SEND)).toHaveLength(1);
    const root = ui.root.getRootNode() as ShadowRoot;
    expect(root.activeElement).toBe(send);
    release();
    expect(await ui.findByText('A member with the specified phone number already exists for this organization.')).toBeTruthy();
    expect(send.getAttribute('aria-disabled')).toBeNull();
    expect(phone.readOnly).toBe(false);
    expect(root.activeElement).toBe(send);
  });

  it("the server's refusal shows its catalogue text", async () => {
    const server = mfaServer(mfaRequired({ allowed: ['sms_otp'] })).on(
      'POST',
      SMS_SEND,
      apiError(400, 'duplicate_member_phone_number'),
    );
    const ui = await openEnrollment(server);
    await enroll(ui, '4155552671');
    expect(await ui.findByText('A member with the specified phone number already exists for this organization.')).toBeTruthy();
    expect(ui.getByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' })).toBeTruthy();
  });

  it('counts down 2 minutes, resends to the same number ("Code sent" for 2 s), and logs in', async () => {
    const ui = await openEnrollment();
    await enroll(ui, '4155552671');
    await ui.findByText('Your code expires in 2:00.');
    tick(ui.clock, 61_000);
    expect(ui.getByText('Your code expires in 0:59.')).toBeTruthy();
    const announcement = ui.root.querySelector('[role="status"][aria-live="polite"]')!;
    expect(announcement.textContent).toBe('');
    tick(ui.clock, 59_000);
    expect(ui.getByText('Your code has expired. Request a new one.', { selector: '[aria-live="off"]' })).toBeTruthy();
    expect(announcement.textContent).toBe('Your code has expired. Request a new one.');
    fireEvent.click(ui.getByRole('button', { name: 'Resend code' }));
    expect(await ui.findByRole('button', { name: 'Code sent' })).toBeTruthy();
    expect(ui.getByText('Your code expires in 2:00.')).toBeTruthy();
    expect(announcement.textContent).toBe('');
    expect(ui.server.callsTo(SMS_SEND).map((c) => c.body)).toEqual([
      { ...MEMBER, mfa_phone_number: '+14155552671' },
      { ...MEMBER, mfa_phone_number: '+14155552671' },
    ]);
    tick(ui.clock, 1999);
    expect(ui.getByRole('button', { name: 'Code sent' })).toBeTruthy();
    tick(ui.clock, 1);
    expect(ui.getByRole('button', { name: 'Resend code' })).toBeTruthy();

    ui.server.on('POST', SMS_AUTH, apiError(404, 'otp_code_not_found'));
    typeCode(ui, '000000');
    await waitFor(() => expect(ui.getByText('Invalid passcode, please try again.')).toBeTruthy());
    ui.server.on('POST', SMS_AUTH, json(loggedInResponse()));
    typeCode(ui, '654321');
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    expect(ui.server.callsTo(SMS_AUTH).at(-1)!.body).toEqual({ ...MEMBER, code: '654321', session_duration_minutes: 45 });
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    expect(ui.onEvent.mock.calls.map(([e]) => e.type)).toEqual(
      expect.arrayContaining(['B2B_SMS_OTP_AUTHENTICATE', 'AUTHENTICATE_FLOW_COMPLETE']),
    );
  });

  it('back from entry returns to the enrollment with the number kept', async () => {
    const ui = await openEnrollment();
    fireEvent.change(ui.getByLabelText('Country'), { target: { value: 'GB' } });
    await enroll(ui, '020 7946 0958');
    await ui.findByRole('heading', { name: 'Enter passcode' });
    fireEvent.click(ui.getByRole('button', { name: 'Back' }));
    await ui.findByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' });
    expect((ui.getByLabelText('Country') as HTMLSelectElement).value).toBe('GB');
    expect((ui.getByLabelText('Phone number') as HTMLInputElement).value).toBe('+442079460958');
  });
});

describe('SMS OTP entry for an enrolled number', () => {
  it('a code the server already texted is not sent again; the expiry is 2 minutes', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired({ sms: true, defaultMethod: 'sms_otp', initiated: true })));
    // The display form needs the phone library, a dynamic import that a busy machine can take a
    // few seconds to transform on its first use.
    const sent = await ui.findByText('A 6-digit passcode was sent to you at +1 415 555 2671.', {}, { timeout: 5000 });
    expect(sent).toBeTruthy();
    expect(ui.getByText('Your code expires in 2:00.')).toBeTruthy();
    expect(ui.server.callsTo(SMS_SEND)).toHaveLength(0);
    expect(ui.queryByRole('button', { name: 'Use an authenticator app instead' })).toBeNull();
  });

  it('otherwise a code is sent to the enrolled number (no mfa_phone_number)', async () => {
    const ui = await loginToMfa(mfaServer(mfaRequired({ sms: true })));
    expect(await ui.findByText('Your code expires in 2:00.')).toBeTruthy();
    expect(ui.server.callsTo(SMS_SEND).map((c) => c.body)).toEqual([MEMBER]);
  });

  it('a failed send shows the error and the code as expired', async () => {
    const server = mfaServer(mfaRequired({ sms: true })).on('POST', SMS_SEND, apiError(400, 'unsubscribed_phone_number'));
    const ui = await loginToMfa(server);
    expect(
      await ui.findByText("Phone number is unsubscribed; resubscribe by texting 'START' before messages can be sent."),
    ).toBeTruthy();
    expect(ui.getByText('Your code has expired. Request a new one.')).toBeTruthy();
  });
});
