// Accessibility: axe-core finds no serious or critical problems on every screen a member can reach
// (main, email code and link, discovery, passwords, MFA, SSO discovery, errors, the identity
// provider's consent and logout), and the keyboard checks axe cannot make: Enter on password login
// without a password, and the focus after logging in on the authorization page. axe is injected
// from node_modules (no extra wrapper package) and scans inside the open shadow roots. Screens are
// reached in a few long walks so the file stays fast.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import * as oidc from 'openid-client';
import { useHarness, TEXT, AXE_PATH, BIN, codeOf, enterCode, uniqueEmail } from './harness.mjs';
import { idpAuthorizePage, rpPage } from './idppages.mjs';
import { totpNow } from './totp.mjs';

const execFileP = promisify(execFile);

/** A page that mounts the login with password options (the reset page among them). */
function passwordPage(h, url, flow) {
  const slug = url.searchParams.get('slug');
  const config = {
    products: (url.searchParams.get('products') || 'passwords').split(','),
    authFlowType: flow,
    sessionOptions: { sessionDurationMinutes: 60 },
    emailMagicLinksOptions: { loginRedirectURL: `${h.pageOrigin}/pw`, signupRedirectURL: `${h.pageOrigin}/pw`, discoveryRedirectURL: `${h.pageOrigin}/pw` },
    passwordOptions: { resetPasswordRedirectURL: `${h.pageOrigin}/pw-reset` },
    ...(slug ? { organizationSlug: slug } : {}),
  };
  const data = JSON.stringify({ token: h.project?.public_token ?? '', config }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Passwords</title></head>
<body><main><h1>Passwords</h1><div id="root"></div></main>
<script type="application/json" id="cfg">${data}</script><script src="${h.apiBase}/widget/latchkey.js"></script>
<script>var cfg = JSON.parse(document.getElementById('cfg').textContent);
window.client = new Latchkey.B2BClient(cfg.token); client.mountLogin({ elementId: '#root', config: cfg.config });</script>
</body></html>`;
}

const h = useHarness({
  routes: {
    '/pw': (h, u) => passwordPage(h, u, 'Organization'),
    '/pw-reset': (h, u) => passwordPage(h, u, 'PasswordReset'),
    '/authorize': idpAuthorizePage('axe-idp'),
    '/rp/cb': rpPage('RP callback'),
    '/rp/bye': rpPage('RP signed out'),
  },
  redirectPaths: ['/pw', '/pw-reset'],
});

async function seriousViolations(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

async function axeClean(page, screen) {
  assert.deepEqual(await seriousViolations(page), [], screen);
}

/** The focused element through shadow roots, as tag#id "text". */
function focused(page) {
  return page.evaluate(() => {
    let a = document.activeElement;
    while (a?.shadowRoot?.activeElement) a = a.shadowRoot.activeElement;
    return a ? `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''} "${(a.getAttribute('aria-label') || a.textContent || '').trim()}"` : 'none';
  });
}

/** Types the emailed code into the passcode field of the screen the email was just submitted on. */
async function typeEmailedCode(page, email, seen) {
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await enterCode(page, codeOf(await h.waitForMail(email, { exclude: seen })));
}

/** Submits an email on the page's email form and enters the code it receives. */
async function emailCodeLogin(page, email) {
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await page.locator('#email-input').fill(email);
  await page.locator('#email-input').press('Enter');
  await typeEmailedCode(page, email, seen);
}

h.test('email screens and the error screen', async ({ page }) => {
  await h.createOrg({ name: 'Axe Labs', slug: 'axe-labs' });

  await page.goto(h.pageUrlWith({ slug: 'axe-labs', products: 'emailOtp' }));
  await page.getByText(TEXT.continueTo('Axe Labs')).waitFor();
  await page.locator('#email-input').waitFor();
  // The email field must have an accessible name (a label), not just a placeholder.
  await page.getByLabel(/email/i).first().waitFor();
  await axeClean(page, 'Main');
  await page.locator('#email-input').fill(uniqueEmail('axe'));
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await axeClean(page, 'Email OTP entry');

  await page.goto(h.pageUrlWith({ slug: 'axe-labs', products: 'emailMagicLinks,emailOtp' }));
  await page.locator('#email-input').fill(uniqueEmail('axe'));
  await page.locator('#email-input').press('Enter');
  await page.getByRole('button', { name: TEXT.emailMeALink }).click();
  await page.getByText(TEXT.checkEmail).waitFor();
  await axeClean(page, 'Email confirmation (link sent)');

  await page.goto(h.pageUrlWith({ slug: 'no-such-org', products: 'emailOtp' }));
  await page.getByText(TEXT.errorTitle).waitFor();
  await axeClean(page, 'Error');
});

h.test('discovery: organization list, create, none; SSO discovery email and fallback', async ({ page }) => {
  const domain = `axe-${Date.now().toString(36)}.test`;
  const member = `m@${domain}`;
  const a = await h.createOrg({ name: 'Alpha Co', slug: `alpha-${Date.now()}` });
  await h.createMember(a.organization_id, member);
  const discovery = (extra = {}) => h.pageUrlWith({ flow: 'Discovery', products: 'emailOtp', ...extra });

  await page.goto(discovery());
  await emailCodeLogin(page, member);
  await page.getByRole('heading', { name: TEXT.selectOrg }).waitFor();
  await axeClean(page, 'Discovery organization list');

  await page.context().clearCookies();
  await page.goto(discovery());
  await emailCodeLogin(page, uniqueEmail('new', `fresh-${domain}`));
  await page.getByRole('heading', { name: TEXT.createOrgTitle }).waitFor();
  await axeClean(page, 'Discovery create organization');

  await page.context().clearCookies();
  const nobody = uniqueEmail('none', `none-${domain}`);
  await page.goto(discovery({ disableCreate: 'true' }));
  await emailCodeLogin(page, nobody);
  await page.getByRole('heading', { name: TEXT.noOrgsTitle(nobody) }).waitFor();
  await axeClean(page, 'Discovery no organizations');

  await page.context().clearCookies();
  await page.goto(discovery({ products: 'emailOtp,sso' }));
  await page.getByRole('button', { name: 'Continue with SSO' }).click();
  await page.locator('#email-input').waitFor();
  await axeClean(page, 'SSO discovery email');
  await page.locator('#email-input').fill(uniqueEmail('grace', 'nowhere.test'));
  await page.locator('#email-input').press('Enter');
  await page.locator('#organization-slug-input').waitFor();
  await axeClean(page, 'SSO discovery fallback');
});

h.test('passwords: Enter without a password says so; login, forgot, reset with feedback', async ({ page }) => {
  const org = await h.createOrg({ name: 'Pw Axe', slug: 'pw-axe' });
  const member = uniqueEmail('pw');
  await h.createMember(org.organization_id, member);
  await page.goto(`${h.pageOrigin}/pw?slug=pw-axe&products=emailOtp,passwords`);
  await page.locator('#email-input').fill(member);
  await page.getByRole('button', { name: 'Use a password instead' }).click();
  await page.getByRole('heading', { name: 'Log in with your password' }).waitFor();
  await axeClean(page, 'Password authenticate');

  // Enter in the email field with no password: the field says what is missing (a disabled Continue
  // used to block the submission silently), and Continue stays in the Tab order.
  const sent = [];
  page.on('request', (r) => r.url().includes('/b2b/passwords/authenticate') && sent.push(r.url()));
  await page.locator('#email-input').press('Enter');
  await page.getByText('Enter your password.').waitFor({ timeout: 5000 });
  assert.equal(await page.locator('#password-input').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(sent, []);
  const continueButton = page.getByRole('button', { name: 'Continue', exact: true });
  assert.equal(await continueButton.isDisabled(), false);
  await page.locator('#password-input').focus();
  await page.keyboard.press('Tab'); // the show/hide toggle
  await page.keyboard.press('Tab');
  assert.match(await focused(page), /^button "Continue"$/);
  await axeClean(page, 'Password authenticate with error');

  await page.getByRole('button', { name: 'Sign up or reset password' }).click();
  await page.getByRole('heading', { name: 'Sign up or reset your password' }).waitFor();
  await axeClean(page, 'Password forgot');
  await page.getByRole('button', { name: 'Continue', exact: true }).click();
  await page.getByRole('heading', { name: TEXT.checkEmail }).waitFor();
  await axeClean(page, 'Password set new confirmation');

  await page.goto(`${h.pageOrigin}/pw-reset`);
  await page.getByRole('heading', { name: 'Create a new password' }).waitFor();
  const checked = page.waitForResponse((r) => r.url().endsWith('/b2b/passwords/strength_check'));
  await page.getByLabel('New password').fill('password1');
  await checked;
  await page.getByText(/^Password strength:/).waitFor();
  await axeClean(page, 'Password reset with feedback');
});

async function mfaOrg(name, slug, methods) {
  const org = await h.createOrg({ name, slug });
  const settings = { mfa_policy: 'REQUIRED_FOR_ALL' };
  if (methods) Object.assign(settings, { mfa_methods: 'RESTRICTED', allowed_mfa_methods: methods });
  await h.api('PUT', `/v1/b2b/organizations/${encodeURIComponent(org.organization_id)}`, settings);
  return org;
}

h.test('MFA: method choice, authenticator app, backup codes, SMS', async ({ page }) => {
  const both = await mfaOrg('Axe Both', 'axe-both');
  const email = uniqueEmail('mfa');
  await h.createMember(both.organization_id, email);
  await page.goto(h.pageUrlWith({ slug: 'axe-both', products: 'emailOtp' }));
  await emailCodeLogin(page, email);
  await page.getByRole('heading', { name: 'Set up multi-factor authentication' }).waitFor();
  await axeClean(page, 'MFA method choice');
  await page.getByRole('button', { name: 'Use an authenticator app' }).click();
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await axeClean(page, 'TOTP QR code');
  await page.getByRole('button', { name: 'Can’t scan the QR code? Show the setup key' }).click();
  const secret = (await page.locator('code.lk-secret').innerText()).replace(/ /g, '');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Enter verification code' }).waitFor();
  await axeClean(page, 'TOTP code entry');
  await page.keyboard.type(totpNow(secret));
  await page.getByRole('heading', { name: 'Save your backup codes!' }).waitFor();
  await axeClean(page, 'Recovery codes');

  await page.context().clearCookies();
  const sms = await mfaOrg('Axe Sms', 'axe-sms', ['sms_otp']);
  const other = uniqueEmail('sms');
  await h.createMember(sms.organization_id, other);
  await page.goto(h.pageUrlWith({ slug: 'axe-sms', products: 'emailOtp' }));
  await emailCodeLogin(page, other);
  await page.getByRole('heading', { name: 'Enter your phone number to set up multi-factor authentication' }).waitFor();
  // The screen opens on its first field, the country, not past it.
  await page.waitForFunction(() => document.querySelector('stytch-b2b-ui')?.shadowRoot?.activeElement?.tagName === 'SELECT');
  await axeClean(page, 'SMS phone');
  await page.locator('#phone-input').fill('(415) 555-2671');
  await page.locator('#phone-input').press('Enter');
  await page.getByText('Your code expires in').waitFor();
  await axeClean(page, 'SMS code entry');
});

h.test('identity provider: focus goes to consent after logging in on the page; consent, logout, error', async ({ page }) => {
  await execFileP(BIN, ['project', 'update', '--project', h.project.project_id, '--idp-authorization-url', `${h.pageOrigin}/authorize`], { env: h.env, cwd: h.tmp });
  const org = await h.createOrg({ name: 'Axe Idp', slug: 'axe-idp' });
  const email = uniqueEmail('idp');
  await h.createMember(org.organization_id, email);
  const { connected_app: app } = await h.api('POST', '/v1/connected_apps/clients', {
    client_type: 'third_party', client_name: 'Axe RP', redirect_urls: [`${h.pageOrigin}/rp/cb`],
    post_logout_redirect_urls: [`${h.pageOrigin}/rp/bye`],
  });
  const config = await oidc.discovery(new URL(`${h.base}/v1/public/${h.project.project_id}`), app.client_id, { client_secret: app.client_secret },
    oidc.ClientSecretBasic(app.client_secret), { execute: [oidc.allowInsecureRequests] });
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${h.pageOrigin}/rp/cb`, scope: 'openid email profile', state: 's', nonce: 'n',
    code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()), code_challenge_method: 'S256',
  });
  await page.goto(url.href);
  await page.getByText('No active session detected. Please log in to continue.').waitFor();
  await axeClean(page, 'IdP without a session, with the login');

  await emailCodeLogin(page, email);
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  // The consent's heading has the focus the login widget held (its "Success!" heading), so the
  // keyboard and a screen reader are taken to the new question.
  await page.waitForFunction(() => document.querySelector('stytch-b2b-identity-provider')?.shadowRoot?.activeElement?.hasAttribute('data-lk-heading'));
  await axeClean(page, 'IdP consent');

  const bye = oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: `${h.pageOrigin}/rp/bye`, client_id: app.client_id });
  await page.goto(bye.href);
  await page.getByRole('heading', { name: 'Log out?' }).waitFor();
  await axeClean(page, 'IdP logout');

  await page.goto(`${h.pageOrigin}/authorize?client_id=x`);
  await page.getByText(/Required parameter is missing/).waitFor();
  await axeClean(page, 'IdP error');
});
