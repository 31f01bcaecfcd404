// Passwords in the browser: a newcomer signs up by verifying the address and creating a strong
// password, logs in with it, is held back by the strength meter on a weak or breached one, resets a
// forgotten password from the emailed link, and uses a password in discovery. axe checks the screens.
//
// The pages are this file's own (routes below): /pw is a login page with passwords configured, and
// /pw-reset, the passwordOptions.resetPasswordRedirectURL, mounts the widget in the PasswordReset
// flow. The breach check talks to a local server speaking the k-anonymity range protocol, so the
// binary never leaves loopback and one "breached" password is known.
import assert from 'node:assert/strict';
import { createHash, pbkdf2Sync, randomBytes } from 'node:crypto';
import http from 'node:http';
import { after } from 'node:test';
import { useHarness, TEXT, AXE_PATH, cookieValue, uniqueEmail } from './harness.mjs';

// Texts of the password screens (web/widget/src/strings/en.ts; quoted ones verbatim from the spec).
const PW = {
  useInstead: 'Use a password instead',
  signUpOrReset: 'Sign up or reset password',
  continue: 'Continue',
  password: 'Password',
  newPassword: 'New password',
  show: 'Show password',
  hide: 'Hide password',
  loginTitle: 'Log in with your password',
  forgotTitle: 'Sign up or reset your password',
  resetTitle: 'Create a new password',
  verifyTitle: 'Verify your email',
  checkEmail: 'Check your email',
  invalidEmail: 'Invalid email address',
  badCredentials: 'Unauthorized credentials.',
  selectOrg: 'Select an organization to continue',
  orgList: 'Your organizations',
};

const STRONG = 'violet tugboat quarry lantern 58';
const WEAK = 'password1';
// Strong by zxcvbn's measure, but the local breach API lists it: it must never be accepted.
const BREACHED = 'Grandiose-Walrus-Ledger-2031';

/** A local stand-in for the breach API: GET /range/{5 hex} answers SUFFIX:COUNT lines, padded. */
async function startBreachServer(breached) {
  const hashes = breached.map((p) => createHash('sha1').update(p).digest('hex').toUpperCase());
  const server = http.createServer((req, res) => {
    const m = /^\/range\/([0-9A-F]{5})$/i.exec(req.url ?? '');
    if (req.method !== 'GET' || !m) {
      res.writeHead(404).end();
      return;
    }
    const prefix = m[1].toUpperCase();
    const lines = hashes.filter((h) => h.startsWith(prefix)).map((h) => `${h.slice(5)}:42`);
    // Padding entries (count 0) as the real API adds them; they never count as breaches.
    lines.push(`${'0'.repeat(35)}:0`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(lines.join('\r\n'));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const breach = await startBreachServer([BREACHED]);
after(() => new Promise((resolve) => breach.close(resolve)));
// Read by the harness when it starts the binary (its env is this process's env plus its own).
process.env.LATCHKEY_BREACH_API_URL = `http://127.0.0.1:${breach.address().port}`;

/** This file's host pages: the same origin and script as the harness's /login, own config. */
function page(h, url, { reset }) {
  const q = url.searchParams;
  const flow = reset ? 'PasswordReset' : q.get('flow') || 'Organization';
  const config = {
    products: (q.get('products') || 'passwords').split(','),
    authFlowType: flow,
    sessionOptions: { sessionDurationMinutes: 60 },
    emailMagicLinksOptions: {
      loginRedirectURL: `${h.pageOrigin}/pw`,
      signupRedirectURL: `${h.pageOrigin}/pw`,
      discoveryRedirectURL: `${h.pageOrigin}/pw`,
    },
    passwordOptions: { resetPasswordRedirectURL: `${h.pageOrigin}/pw-reset` },
  };
  if (flow === 'Organization' && q.get('slug')) config.organizationSlug = q.get('slug');
  const data = JSON.stringify({ token: h.project?.public_token ?? '', config }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Password e2e</title></head>
<body>
<main>
<h1>Password e2e</h1>
<div id="root"></div>
<pre id="session">no session</pre>
</main>
<script type="application/json" id="cfg">${data}</script>
<script src="${h.base}/widget/latchkey.js"></script>
<script>
(function () {
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.client = new Latchkey.B2BClient(cfg.token);
  client.session.onChange(function (s) {
    var ms = s && (s.member_session || s);
    document.getElementById('session').textContent = ms ? ms.member_session_id : 'no session';
  });
  client.mountLogin({ elementId: '#root', config: cfg.config });
})();
</script>
</body>
</html>
`;
}

const h = useHarness({
  routes: { '/pw': (h, url) => page(h, url, { reset: false }), '/pw-reset': (h, url) => page(h, url, { reset: true }) },
  redirectPaths: ['/pw', '/pw-reset'],
});

const pwUrl = (params) => `${h.pageOrigin}/pw?${new URLSearchParams(params)}`;

/** Gives `email` a password in the organization through the backend's migrate (a PBKDF2 hash). */
async function memberWithPassword(organizationId, email, password) {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64');
  const r = await h.api('POST', '/v1/b2b/passwords/migrate', {
    email_address: email,
    organization_id: organizationId,
    hash_type: 'pbkdf_2',
    hash,
    pbkdf_2_config: { salt: salt.toString('base64'), iteration_amount: 1000, key_length: 32, algorithm: 'sha256' },
    name: 'Password Member',
  });
  return r.member;
}

/** The backend's verdict on a password login (true: a session; false: rejected). */
async function passwordWorks(organizationId, email, password) {
  try {
    await h.api('POST', '/v1/b2b/passwords/authenticate', { organization_id: organizationId, email_address: email, password });
    return true;
  } catch (e) {
    if (e.status >= 400 && e.status < 500) return false;
    throw e;
  }
}

/** The newest link of `type` in the mail sent to `email` after `seen`, and where it leads. */
async function mailedLink(email, type, seen = []) {
  const mail = await h.waitForMail(email, { exclude: seen });
  const link = mail.links.find((l) => l.includes(`stytch_token_type=${type}`));
  assert.ok(link, `no ${type} link in ${JSON.stringify(mail.links)}`);
  return { link, url: new URL(link), mail };
}

/** Types a new password and waits until the server's verdict has arrived (debounced 500 ms). */
async function typeNewPassword(page, password) {
  const checked = page.waitForResponse((r) => r.url().endsWith('/b2b/passwords/strength_check') && r.request().postDataJSON()?.password === password);
  await page.getByLabel(PW.newPassword).fill(password);
  await checked;
}

/** Waits for success and returns the server's view of the session cookie. */
async function loggedIn(page, context) {
  await page.getByText(TEXT.loggedIn).waitFor();
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await h.authenticateSession(token);
  await page.locator('#session').filter({ hasText: s.member_session.member_session_id }).waitFor();
  return s;
}

/** A newcomer signs up in `org` (slug) by verifying the address, then creating `password`. */
async function signUp(page, context, slug, email, password) {
  await page.goto(pwUrl({ slug }));
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.verifyTitle }).waitFor();
  const { link, url } = await mailedLink(email, 'multi_tenant_magic_links');
  assert.equal(`${url.origin}${url.pathname}`, `${h.pageOrigin}/pw-reset`, 'the link opens the reset page');
  await page.goto(link);
  await page.getByRole('heading', { name: PW.resetTitle }).waitFor();
  assert.ok(!new URL(page.url()).searchParams.has('token'), `token still in ${page.url()}`);
  await typeNewPassword(page, password);
  await page.getByRole('button', { name: PW.continue }).click();
  return loggedIn(page, context);
}

h.test('a newcomer signs up with a strong password', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Pw Signup', slug: 'pw-signup', jit: 'ALL_ALLOWED' });
  const email = uniqueEmail('signup');
  await page.goto(pwUrl({ slug: 'pw-signup' }));
  await page.getByText(TEXT.continueTo('Pw Signup')).waitFor();
  // The address is checked before any lookup.
  await page.locator('#email-input').fill('not-an-email');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByText(PW.invalidEmail).waitFor();

  const s = await signUp(page, context, 'pw-signup', email, STRONG);
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.ok(s.member.member_password_id, 'the member now has a password');
  assert.equal(await passwordWorks(org.organization_id, email, STRONG), true);
});

h.test('a member logs in with the password; a wrong one is refused', async ({ page, context, newContext }) => {
  const org = await h.createOrg({ name: 'Pw Login', slug: 'pw-login', jit: 'ALL_ALLOWED' });
  const email = uniqueEmail('login');
  await signUp(page, context, 'pw-login', email, STRONG);

  // A fresh browser: nothing remembered but the password.
  const other = await newContext();
  const p = await other.newPage();
  await p.goto(pwUrl({ slug: 'pw-login' }));
  await p.locator('#email-input').fill(email);
  await p.getByRole('button', { name: PW.continue }).click();
  await p.getByRole('heading', { name: PW.loginTitle }).waitFor();
  const field = p.getByLabel(PW.password, { exact: true });
  await field.fill('not the password at all');
  await p.getByRole('button', { name: PW.continue }).click();
  await p.getByText(PW.badCredentials).waitFor();
  assert.equal(await cookieValue(other, h.pageOrigin, 'stytch_session'), undefined);

  await field.fill(STRONG);
  // The toggle shows what was typed, and hides it again.
  await p.getByRole('button', { name: PW.show }).click();
  assert.equal(await field.getAttribute('type'), 'text');
  await p.getByRole('button', { name: PW.hide }).click();
  assert.equal(await field.getAttribute('type'), 'password');
  await p.getByRole('button', { name: PW.continue }).click();
  const s = await loggedIn(p, other);
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.ok(s.member_session.authentication_factors.some((f) => f.type === 'password'), 'the session has a password factor');
});

h.test('a weak or breached password gets the meter’s feedback and Continue stays disabled', async ({ page }) => {
  await page.goto(`${h.pageOrigin}/pw-reset`);
  await page.getByRole('heading', { name: PW.resetTitle }).waitFor();
  const go = page.getByRole('button', { name: PW.continue });
  assert.equal(await go.isDisabled(), true, 'disabled before anything is typed');

  await typeNewPassword(page, WEAK);
  await page.getByText(/^Password strength: (Weak|Fair)$/).waitFor();
  const feedback = page.locator('#password-strength');
  // zxcvbn's own words about the weakness, under a red bar.
  assert.match(await feedback.innerText(), /common|guess|Add another word/i);
  assert.ok((await page.locator('.lk-meter__segment--weak').count()) >= 1, 'red segments');
  assert.equal(await page.locator('.lk-meter__segment--strong').count(), 0);
  assert.equal(await go.isDisabled(), true);

  await typeNewPassword(page, BREACHED);
  await feedback.getByText('This password has appeared in a data breach.').waitFor();
  assert.equal(await go.isDisabled(), true, 'a breached password is never valid');

  await typeNewPassword(page, STRONG);
  await page.getByText('Password strength: Strong').waitFor();
  assert.equal(await page.locator('.lk-meter__segment--strong').count(), 4);
  assert.equal(await go.isEnabled(), true, 'a strong password enables Continue');
});

h.test('a forgotten password is reset from the emailed link', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Pw Forgot', slug: 'pw-forgot', jit: 'NOT_ALLOWED' });
  const email = uniqueEmail('forgot');
  const old = 'amber kettle orchard zephyr 17';
  await memberWithPassword(org.organization_id, email, old);

  await page.goto(pwUrl({ slug: 'pw-forgot' }));
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.loginTitle }).waitFor();
  await page.getByRole('button', { name: PW.signUpOrReset }).click();
  await page.getByRole('heading', { name: PW.forgotTitle }).waitFor();
  assert.equal(await page.locator('#email-input').inputValue(), email, 'the email is carried over');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.checkEmail }).waitFor();

  const { link, url } = await mailedLink(email, 'multi_tenant_passwords');
  assert.equal(url.searchParams.get('stytch_redirect_type'), 'reset_password');
  assert.equal(`${url.origin}${url.pathname}`, `${h.pageOrigin}/pw-reset`);
  await page.goto(link);
  await page.getByRole('heading', { name: PW.resetTitle }).waitFor();
  assert.ok(!new URL(page.url()).searchParams.has('token'), `token still in ${page.url()}`);
  await typeNewPassword(page, STRONG);
  await page.getByRole('button', { name: PW.continue }).click();
  const s = await loggedIn(page, context);
  assert.equal(s.member.email_address, email);

  assert.equal(await passwordWorks(org.organization_id, email, STRONG), true, 'the new password works');
  assert.equal(await passwordWorks(org.organization_id, email, old), false, 'the old one does not');

  // The link was single use.
  await page.goto(link);
  await page.getByRole('heading', { name: PW.resetTitle }).waitFor();
  await typeNewPassword(page, 'another very long fresh passphrase 9');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByText(/already used or expired/).waitFor();
});

h.test('discovery: log in with a password and choose the organization; reset by discovery link', async ({ page, context, newContext }) => {
  const a = await h.createOrg({ name: 'Pw Disc Alpha', slug: 'pw-disc-alpha', jit: 'NOT_ALLOWED' });
  const b = await h.createOrg({ name: 'Pw Disc Beta', slug: 'pw-disc-beta', jit: 'NOT_ALLOWED' });
  const email = uniqueEmail('disc');
  const first = 'cobalt meadow thimble parade 44';
  await memberWithPassword(a.organization_id, email, first);
  await h.createMember(b.organization_id, email, 'Password Member');

  await page.goto(pwUrl({ flow: 'Discovery', products: 'emailMagicLinks,passwords' }));
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: PW.useInstead }).click();
  await page.getByRole('heading', { name: PW.loginTitle }).waitFor();
  await page.getByLabel(PW.password, { exact: true }).fill(first);
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.selectOrg }).waitFor();
  const list = page.getByRole('list', { name: PW.orgList }).getByRole('button');
  assert.equal(await list.count(), 2);
  await list.filter({ hasText: 'Pw Disc Beta' }).click();
  const s = await loggedIn(page, context);
  assert.equal(s.organization.organization_id, b.organization_id);

  // Forgot, in discovery: the link resets the address's password and lists its organizations.
  const other = await newContext();
  const p = await other.newPage();
  await p.goto(pwUrl({ flow: 'Discovery', products: 'passwords' }));
  await p.locator('#email-input').fill(email);
  await p.getByRole('button', { name: PW.continue }).click();
  await p.getByRole('button', { name: PW.signUpOrReset }).click();
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await p.getByRole('button', { name: PW.continue }).click();
  await p.getByRole('heading', { name: PW.checkEmail }).waitFor();
  const { link } = await mailedLink(email, 'discovery', seen);
  await p.goto(link);
  await p.getByRole('heading', { name: PW.resetTitle }).waitFor();
  await typeNewPassword(p, STRONG);
  await p.getByRole('button', { name: PW.continue }).click();
  await p.getByRole('heading', { name: PW.selectOrg }).waitFor();
  await p.getByRole('list', { name: PW.orgList }).getByRole('button').filter({ hasText: 'Pw Disc Alpha' }).click();
  const s2 = await loggedIn(p, other);
  assert.equal(s2.organization.organization_id, a.organization_id);
  assert.equal(await passwordWorks(a.organization_id, email, STRONG), true);
});

/** axe-core's serious and critical findings (it scans inside the widget's open shadow root). */
async function seriousViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

h.test('the password screens have no serious or critical axe violations', async ({ page }) => {
  const org = await h.createOrg({ name: 'Pw Axe', slug: 'pw-axe', jit: 'ALL_ALLOWED' });
  const member = uniqueEmail('axe-member');
  await h.createMember(org.organization_id, member);

  // 'Use password' with nothing typed goes straight to Password Authenticate (spec section 4),
  // which asks for the email itself before anything is sent.
  await page.goto(pwUrl({ slug: 'pw-axe', products: 'emailOtp,passwords' }));
  await page.getByText(TEXT.continueTo('Pw Axe')).waitFor();
  await page.getByRole('button', { name: PW.useInstead }).click();
  await page.getByRole('heading', { name: PW.loginTitle }).waitFor();
  assert.equal(await page.locator('#email-input').inputValue(), '');
  await page.getByLabel(PW.password, { exact: true }).fill('any password at all');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByText(PW.invalidEmail).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Authenticate with an email error');

  // Main's password form (passwords alone) is the email step: a malformed address, then a newcomer.
  await page.goto(pwUrl({ slug: 'pw-axe', products: 'passwords' }));
  await page.getByText(TEXT.continueTo('Pw Axe')).waitFor();
  await page.locator('#email-input').fill(member);
  assert.deepEqual(await seriousViolations(page), [], 'Main with the password form');

  await page.locator('#email-input').fill('bad');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByText(PW.invalidEmail).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Main with the password form and an error');

  await page.locator('#email-input').fill(uniqueEmail('axe-new'));
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.verifyTitle }).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Reset Verify Confirmation');

  // Password Authenticate with an error, the forgot form and its confirmation.
  await page.goto(pwUrl({ slug: 'pw-axe', products: 'emailOtp,passwords' }));
  await page.locator('#email-input').fill(member);
  await page.getByRole('button', { name: PW.useInstead }).click();
  await page.getByRole('heading', { name: PW.loginTitle }).waitFor();
  await page.getByLabel(PW.password, { exact: true }).fill('wrong password here');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByText(PW.badCredentials).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Authenticate');
  await page.getByRole('button', { name: PW.signUpOrReset }).click();
  await page.getByRole('heading', { name: PW.forgotTitle }).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Forgot Form');
  await page.getByRole('button', { name: PW.continue }).click();
  await page.getByRole('heading', { name: PW.checkEmail }).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Set New Confirmation');

  // The reset form with the meter's feedback.
  await page.goto(`${h.pageOrigin}/pw-reset`);
  await page.getByRole('heading', { name: PW.resetTitle }).waitFor();
  await typeNewPassword(page, WEAK);
  await page.getByText(/^Password strength:/).waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Password Reset Form');
});
