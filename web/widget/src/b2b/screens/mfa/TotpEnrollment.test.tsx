import { act, fireEvent, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { getCookie, IST_COOKIE, SESSION_COOKIE } from '../../../session/cookies';
import { ACME, apiError, json, loggedInResponse, type Reply } from '../../../test/fakeServer';
import { tick } from '../../../test/harness';
import { chunkSecret } from './TOTPEnrollmentManualScreen';
import {
  IST,
  loginToMfa,
  MEMBER,
  mfaRequired,
  mfaServer,
  RECOVERY_CODES,
  TOTP_AUTH,
  TOTP_CREATE,
  totpCreated,
  typeCode,
  type LoginUI,
} from '../../../test/mfaKit';

function setClipboard(writeText: ((text: string) => Promise<void>) | undefined) {
  Object.defineProperty(navigator, 'clipboard', {
    value: writeText ? { writeText } : undefined,
    configurable: true,
  });
}

afterEach(() => setClipboard(undefined));

/** Only TOTP is allowed, so login goes straight to the QR code. */
async function openQr(server = mfaServer(mfaRequired({ allowed: ['totp'] }))) {
  const ui = await loginToMfa(server);
  await ui.findByRole('heading', { name: 'Scan the QR code to link your authenticator app' });
  await ui.findByRole('img', { name: 'QR code for your authenticator app' });
  return ui;
}

async function openRecoverySave(): Promise<LoginUI> {
  const ui = await openQr();
  fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
  await ui.findByRole('heading', { name: 'Enter verification code' });
  typeCode(ui, '123456');
  await ui.findByRole('heading', { name: 'Save your backup codes!' });
  return ui;
}

describe('TOTP enrollment', () => {
  it('creates a registration with the IST and shows its QR code', async () => {
    const ui = await openQr();
    expect(ui.server.callsTo(TOTP_CREATE)).toHaveLength(1);
    expect(ui.server.callsTo(TOTP_CREATE)[0]!.body).toEqual(MEMBER);
    expect((ui.getByRole('img') as HTMLImageElement).src).toBe(totpCreated().qr_code);
    expect(getCookie(IST_COOKIE)).toBe(IST);
    // No way back to the email screens: the emailed code is spent.
    expect(ui.queryByRole('button', { name: 'Back' })).toBeNull();
  });

  it('the secret is shown lower-cased in 4-character chunks, and show code toggles both ways', async () => {
    expect(chunkSecret('JBSWY3DPEHPK3PX')).toEqual(['jbsw', 'y3dp', 'ehpk', '3px']);
    const ui = await openQr();
    fireEvent.click(ui.getByRole('button', { name: 'Can’t scan the QR code? Show the setup key' }));
    await ui.findByRole('heading', { name: 'Enter the setup key in your authenticator app' });
    expect(ui.getByText('jbsw y3dp ehpk 3pxp jbsw y3dp ehpk 3pxp')).toBeTruthy();
    fireEvent.click(ui.getByRole('button', { name: 'Show the QR code instead' }));
    await ui.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(ui.server.callsTo(TOTP_CREATE)).toHaveLength(1);
  });

  it("copying the key reports \"Couldn't copy code to clipboard\" when the clipboard refuses", async () => {
    const ui = await openQr();
    fireEvent.click(ui.getByRole('button', { name: 'Can’t scan the QR code? Show the setup key' }));
    await ui.findByRole('heading', { name: 'Enter the setup key in your authenticator app' });
    setClipboard(() => Promise.reject(new Error('denied')));
    fireEvent.click(ui.getByRole('button', { name: 'Copy key' }));
    // The status region is always there, empty until the copy settles:
    // wait for its text, not for the region.
    await waitFor(() => expect(ui.getByRole('status').textContent).toBe("Couldn't copy code to clipboard"));
    const writeText = vi.fn(() => Promise.resolve());
    setClipboard(writeText);
    fireEvent.click(ui.getByRole('button', { name: 'Copy key' }));
    await waitFor(() => expect(ui.getByRole('status').textContent).toBe('Code copied to clipboard'));
    expect(writeText).toHaveBeenCalledWith(totpCreated().secret);
  });

  it('a failed create shows the error and can be retried', async () => {
    const server = mfaServer(mfaRequired({ allowed: ['totp'] })).on('POST', TOTP_CREATE, apiError(429, 'too_many_requests', 'Slow down.'));
    const ui = await loginToMfa(server);
    expect(await ui.findByText('Slow down.')).toBeTruthy();
    server.on('POST', TOTP_CREATE, json(totpCreated()));
    fireEvent.click(ui.getByRole('button', { name: 'Try again' }));
    await ui.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(server.callsTo(TOTP_CREATE)).toHaveLength(2);
  });

  // A live region is announced when its text changes, not when it arrives with its text (ErrorText).
  it("the create error's alert region is in the page before the failure, empty while creating and once enrolled", async () => {
    let answer: (r: Reply) => void = () => undefined;
    const server = mfaServer(mfaRequired({ allowed: ['totp'] })).on('POST', TOTP_CREATE, () => new Promise<Reply>((r) => (answer = r)));
    const ui = await loginToMfa(server);
    await waitFor(() => expect(ui.root.querySelector('p.lk-visually-hidden[aria-live]:not([role])')?.textContent).toBe('Preparing your authenticator app setup'));
    const region = ui.getByRole('alert');
    expect(region.textContent).toBe('');
    answer(apiError(429, 'too_many_requests', 'Slow down.'));
    await waitFor(() => expect(region.textContent).toBe('Slow down.'));
    expect(ui.getByRole('alert')).toBe(region);
    server.on('POST', TOTP_CREATE, json(totpCreated()));
    fireEvent.click(ui.getByRole('button', { name: 'Try again' }));
    await ui.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(ui.getByRole('alert')).toBe(region);
    expect(region.textContent).toBe('');
  });

  it('"Try again" keeps the keyboard focus in the widget: on the busy button, then on the heading', async () => {
    const server = mfaServer(mfaRequired({ allowed: ['totp'] })).on('POST', TOTP_CREATE, apiError(429, 'too_many_requests', 'Slow down.'));
    const ui = await loginToMfa(server);
    await ui.findByText('Slow down.');
    const focused = () => (ui.root.getRootNode() as ShadowRoot).activeElement;
    let answer: (r: Reply) => void = () => undefined;
    server.on('POST', TOTP_CREATE, () => new Promise<Reply>((r) => (answer = r)));
    const retry = ui.getByRole('button', { name: 'Try again' });
    retry.focus();
    fireEvent.click(retry);
    await waitFor(() => expect(server.callsTo(TOTP_CREATE)).toHaveLength(2));
    expect(focused()).toBe(retry);
    expect(retry.getAttribute('aria-busy')).toBe('true');
    // A press while the retry runs sends nothing.
    fireEvent.click(retry);
    answer(apiError(429, 'too_many_requests', 'Still too many.'));
    await ui.findByText('Still too many.');
    expect(focused()).toBe(retry);
    expect(server.callsTo(TOTP_CREATE)).toHaveLength(2);
    server.on('POST', TOTP_CREATE, json(totpCreated()));
    fireEvent.click(retry);
    await ui.findByRole('img', { name: 'QR code for your authenticator app' });
    expect(focused()).toBe(ui.getByRole('heading', { name: 'Scan the QR code to link your authenticator app' }));
  });

  it('a wrong code is refused; the right one logs in and shows the backup codes', async () => {
    const ui = await openQr();
    fireEvent.click(ui.getByRole('button', { name: 'Continue' }));
    await ui.findByRole('heading', { name: 'Enter verification code' });
    // Enrolling: no backup codes yet, and back returns to the QR code.
    expect(ui.queryByRole('button', { name: /backup code/ })).toBeNull();
    expect(ui.getByRole('button', { name: 'Back' })).toBeTruthy();
    ui.server.on('POST', TOTP_AUTH, apiError(404, 'otp_code_not_found'));
    typeCode(ui, '000000');
    await waitFor(() => expect(ui.getByRole('alert').textContent).toBe('Invalid passcode, please try again.'));
    expect((ui.getByLabelText('One-time passcode') as HTMLInputElement).value).toBe('');
    ui.server.on('POST', TOTP_AUTH, json(loggedInResponse()));
    typeCode(ui, '123456');
    await ui.findByRole('heading', { name: 'Save your backup codes!' });
    expect(ui.server.callsTo(TOTP_AUTH).at(-1)!.body).toEqual({ ...MEMBER, code: '123456', session_duration_minutes: 45 });
    for (const code of RECOVERY_CODES) expect(ui.getByText(code)).toBeTruthy();
    expect(getCookie(SESSION_COOKIE)).toBe('session-token-1');
    const types = ui.onEvent.mock.calls.map(([e]) => e.type);
    expect(types).toContain('B2B_TOTP_AUTHENTICATE');
    expect(types).not.toContain('AUTHENTICATE_FLOW_COMPLETE');
  });
});

describe('Recovery Code Save', () => {
  it("copy all reports \"Couldn't copy codes to clipboard\" without a clipboard, and success for 2 s", async () => {
    const ui = await openRecoverySave();
    fireEvent.click(ui.getByRole('button', { name: 'Copy all' }));
    // The status region is always there, empty until the copy settles:
    // wait for its text, not for the region.
    await waitFor(() => expect(ui.getByRole('status').textContent).toBe("Couldn't copy codes to clipboard"));
    const writeText = vi.fn(() => Promise.resolve());
    setClipboard(writeText);
    fireEvent.click(ui.getByRole('button', { name: 'Copy all' }));
    await waitFor(() => expect(ui.getByRole('status').textContent).toBe('Codes copied to clipboard'));
    expect(writeText).toHaveBeenCalledWith(RECOVERY_CODES.join('\n'));
    tick(ui.clock, 1999);
    expect(ui.getByRole('status').textContent).toBe('Codes copied to clipboard');
    tick(ui.clock, 1);
    expect(ui.getByRole('status').textContent).toBe('');
  });

  it('downloads the codes as {organization}-backup-codes.txt', async () => {
    const ui = await openRecoverySave();
    const blobs: Blob[] = [];
    const create = vi.fn((b: Blob) => {
      blobs.push(b);
      return 'blob:codes';
    });
    const revoke = vi.fn();
    Object.assign(URL, { createObjectURL: create, revokeObjectURL: revoke });
    const clicked: { download: string; href: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ download: this.download, href: this.href });
    });
    fireEvent.click(ui.getByRole('button', { name: 'Download .txt' }));
    expect(clicked).toEqual([{ download: `${ACME.organization_name}-backup-codes.txt`, href: 'blob:codes' }]);
    expect(await blobs[0]!.text()).toBe(`${RECOVERY_CODES.join('\n')}\n`);
    expect(document.querySelector('a[download]')).toBeNull();
    tick(ui.clock, 10_000);
    expect(revoke).toHaveBeenCalledWith('blob:codes');
  });

  it('Done finishes the login', async () => {
    const ui = await openRecoverySave();
    act(() => fireEvent.click(ui.getByRole('button', { name: 'Done' })));
    expect(await ui.findByRole('heading', { name: 'Success!' })).toBeTruthy();
    const types = ui.onEvent.mock.calls.map(([e]) => e.type);
    expect(types.filter((t) => t === 'AUTHENTICATE_FLOW_COMPLETE')).toHaveLength(1);
  });
});
