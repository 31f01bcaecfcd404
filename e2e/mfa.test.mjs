// Multi-factor authentication in a real browser against the real server: members of organizations
// that require MFA enroll an authenticator app (the test computes RFC 6238 codes from the secret the
// widget shows, as a phone app would), save and later spend a backup code, enroll a phone number
// (reading the texted code from the dev mailbox), and meet the method selection. Every MFA screen
// is scanned with axe on the way.
import assert from 'node:assert/strict';
import { useHarness, TEXT, AXE_PATH, cookieValue, enterCode, codeOf, uniqueEmail } from './harness.mjs';
import { stepAt, totp } from './totp.mjs';

const h = useHarness();

// Texts of the MFA screens (the widget's strings table).
const MFA = {
  selectionTitle: 'Set up multi-factor authentication',
  useApp: 'Use an authenticator app',
  textMe: 'Text me a code',
  qrTitle: 'Scan the QR code to link your authenticator app',
  qrAlt: 'QR code for your authenticator app',
  showKey: 'Can’t scan the QR code? Show the setup key',
  manualTitle: 'Enter the setup key in your authenticator app',
  continue: 'Continue',
  totpTitle: 'Enter verification code',
  saveTitle: 'Save your backup codes!',
  codesList: 'Backup codes',
  download: 'Download .txt',
  done: 'Done',
  useBackup: 'Can’t access your authenticator app? Use a backup code',
  backupTitle: 'Enter backup code',
  backupLabel: 'Backup code',
  badBackup: 'Invalid backup code, please try again.',
  smsTitle: 'Enter your phone number to set up multi-factor authentication',
  phoneLabel: 'Phone number',
  sendCode: 'Send code',
  sentTo: (n) => `A 6-digit passcode was sent to you at ${n}.`,
};

// --- RFC 6238 (TOTP: HMAC-SHA1, 30-second steps, 6 digits; totp.mjs) --------------------------------

// The RFC's own test vector (appendix B, SHA-1, T = 59 s), so a wrong implementation fails here.
// The secret is ASCII "12345678901234567890" in base32.
assert.equal(totp('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ', stepAt(59_000)), '287082');

// --- helpers -----------------------------------------------------------------------------------------

async function seriousViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

async function assertAccessible(page, screen) {
  assert.deepEqual(await seriousViolations(page), [], `axe: ${screen}`);
}

/** An organization whose members must all use MFA, optionally restricted to some methods. */
async function mfaOrg(name, slug, methods) {
  const org = await h.createOrg({ name, slug });
  const settings = { mfa_policy: 'REQUIRED_FOR_ALL' };
  if (methods) Object.assign(settings, { mfa_methods: 'RESTRICTED', allowed_mfa_methods: methods });
  const r = await h.api('PUT', `/v1/b2b/organizations/${encodeURIComponent(org.organization_id)}`, settings);
  assert.equal(r.organization.mfa_policy, 'REQUIRED_FOR_ALL');
  return org;
}

/** Logs in by emailed code; the widget then shows the first MFA screen. */
async function emailLogin(page, slug, email) {
  await page.goto(h.pageUrlWith({ slug, products: 'emailOtp' }));
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await enterCode(page, codeOf(await h.waitForMail(email, { exclude: seen })));
}

async function sessionOf(context) {
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  return h.authenticateSession(token);
}

const factors = (s) =>
  s.member_session.authentication_factors.map((f) => `${f.type}/${f.delivery_method}/${f.sequence_order}`);

// State shared by the TOTP tests, which run in order within this file.
const totpMember = { email: uniqueEmail('totp'), secret: '', lastStep: 0, codes: [] };

h.test('a member enrolls an authenticator app, saves the backup codes, and logs in again with it', async ({ page, context }) => {
  const org = await mfaOrg('Totp Works', 'totp-works', ['totp']);
  await h.createMember(org.organization_id, totpMember.email, 'Totp Member');

  await emailLogin(page, 'totp-works', totpMember.email);
  // Only the app is allowed, so enrollment starts at the QR code.
  await page.getByRole('heading', { name: MFA.qrTitle }).waitFor();
  await page.getByRole('img', { name: MFA.qrAlt }).waitFor();
  assert.equal(await page.locator('#session').textContent(), 'no session');
  await assertAccessible(page, 'TOTP Enrollment QR Code');

  await page.getByRole('button', { name: MFA.showKey }).click();
  await page.getByRole('heading', { name: MFA.manualTitle }).waitFor();
  const shown = (await page.locator('.lk-secret').textContent()).trim();
  assert.match(shown, /^([a-z2-7]{4} )*[a-z2-7]{1,4}$/, 'secret shown lower-cased in 4-character chunks');
  totpMember.secret = shown.replace(/ /g, '');
  await assertAccessible(page, 'TOTP Enrollment Manual');

  await page.getByRole('button', { name: MFA.continue }).click();
  await page.getByRole('heading', { name: MFA.totpTitle }).waitFor();
  await assertAccessible(page, 'TOTP Entry (enrolling)');
  totpMember.lastStep = stepAt(Date.now());
  await enterCode(page, totp(totpMember.secret, totpMember.lastStep));

  await page.getByRole('heading', { name: MFA.saveTitle }).waitFor();
  totpMember.codes = await page.getByRole('list', { name: MFA.codesList }).getByRole('listitem').allTextContents();
  assert.equal(totpMember.codes.length, 10);
  await assertAccessible(page, 'Recovery Code Save');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: MFA.download }).click()]);
  assert.equal(download.suggestedFilename(), 'Totp Works-backup-codes.txt');
  await page.getByRole('button', { name: MFA.done }).click();
  await page.getByText(TEXT.loggedIn).waitFor();

  const s = await sessionOf(context);
  assert.deepEqual(factors(s), ['email_otp/email/PRIMARY', 'totp/authenticator_app/SECONDARY']);

  // Log out, then log in again: the app is enrolled now, so the widget asks for its code.
  await page.evaluate(() => window.client.session.revoke());
  await page.locator('#session').filter({ hasText: 'no session' }).waitFor();
  await emailLogin(page, 'totp-works', totpMember.email);
  await page.getByRole('heading', { name: MFA.totpTitle }).waitFor();
  await assertAccessible(page, 'TOTP Entry');
  // A code is accepted once: use the next step if the clock is still in the enrollment's step
  // (the server accepts one step of skew).
  totpMember.lastStep = Math.max(stepAt(Date.now()), totpMember.lastStep + 1);
  await enterCode(page, totp(totpMember.secret, totpMember.lastStep));
  await page.getByText(TEXT.loggedIn).waitFor();
  assert.deepEqual(factors(await sessionOf(context)), ['email_otp/email/PRIMARY', 'totp/authenticator_app/SECONDARY']);
});

h.test('the same member logs in with a backup code, which then no longer works', async ({ page, context, newContext }) => {
  assert.ok(totpMember.codes.length > 0, 'the enrollment test ran first');
  await emailLogin(page, 'totp-works', totpMember.email);
  await page.getByRole('button', { name: MFA.useBackup }).click();
  await page.getByRole('heading', { name: MFA.backupTitle }).waitFor();
  await assertAccessible(page, 'Recovery Code Entry');
  await page.getByLabel(MFA.backupLabel).fill(totpMember.codes[0]);
  await page.getByRole('button', { name: MFA.continue }).click();
  await page.getByText(TEXT.loggedIn).waitFor();
  assert.deepEqual(factors(await sessionOf(context)), ['email_otp/email/PRIMARY', 'recovery_codes/recovery_code/SECONDARY']);

  const other = await (await newContext()).newPage();
  await emailLogin(other, 'totp-works', totpMember.email);
  await other.getByRole('button', { name: MFA.useBackup }).click();
  await other.getByLabel(MFA.backupLabel).fill(totpMember.codes[0]);
  await other.getByRole('button', { name: MFA.continue }).click();
  await other.getByText(MFA.badBackup).waitFor();
});

h.test('another member enrolls a phone number and logs in with the texted code', async ({ page, context }) => {
  const org = await mfaOrg('Sms Works', 'sms-works', ['sms_otp']);
  const email = uniqueEmail('sms');
  await h.createMember(org.organization_id, email, 'Sms Member');
  const phone = '+14155552671';

  await emailLogin(page, 'sms-works', email);
  await page.getByRole('heading', { name: MFA.smsTitle }).waitFor();
  assert.equal(await page.getByLabel('Country').inputValue(), 'US');
  await assertAccessible(page, 'SMS OTP Enrollment');
  const seen = (await h.mailbox(phone)).map((m) => m.id);
  await page.getByLabel(MFA.phoneLabel).fill('(415) 555-2671');
  await page.getByRole('button', { name: MFA.sendCode }).click();

  // The display form comes from the phone library, loaded on demand next to the widget script.
  await page.getByText(MFA.sentTo('+1 415 555 2671')).waitFor();
  await page.getByText('Your code expires in').waitFor();
  await assertAccessible(page, 'SMS OTP Entry');
  const sms = await h.waitForMail(phone, { exclude: seen });
  assert.equal(sms.channel, 'sms');
  await enterCode(page, codeOf(sms));
  await page.getByText(TEXT.loggedIn).waitFor();

  const s = await sessionOf(context);
  assert.deepEqual(factors(s), ['email_otp/email/PRIMARY', 'otp/sms/SECONDARY']);
  assert.equal(s.member.mfa_phone_number, phone);
  assert.equal(s.member.mfa_phone_number_verified, true);
});

h.test('the method selection appears when both methods are allowed', async ({ page }) => {
  const org = await mfaOrg('Both Ways', 'both-ways');
  const email = uniqueEmail('both');
  await h.createMember(org.organization_id, email, 'Both Member');

  await emailLogin(page, 'both-ways', email);
  await page.getByRole('heading', { name: MFA.selectionTitle }).waitFor();
  assert.equal(await page.getByRole('button', { name: MFA.useApp }).count(), 1);
  assert.equal(await page.getByRole('button', { name: MFA.textMe }).count(), 1);
  await assertAccessible(page, 'MFA Enrollment Selection');

  await page.getByRole('button', { name: MFA.textMe }).click();
  await page.getByRole('heading', { name: MFA.smsTitle }).waitFor();
  await page.getByRole('button', { name: 'Back' }).click();
  await page.getByRole('button', { name: MFA.useApp }).click();
  await page.getByRole('img', { name: MFA.qrAlt }).waitFor();
});
