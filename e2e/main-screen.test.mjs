// The complete Main screen: OAuth buttons rendered from the config that leave for the exact start
// URL of the reference, the 'or' divider between buttons and the email form, and the last used
// method moved first and labelled, remembered per project.
//
// The OAuth flow itself is not served yet, so the browser's navigation to the start URL is
// intercepted (page.route) and answered by the test; what is checked is where the widget sends
// the person, not what the provider does.
import assert from 'node:assert/strict';
import { useHarness, TEXT, enterCode, codeOf, uniqueEmail } from './harness.mjs';

const h = useHarness();

const PROVIDER_NAMES = { google: 'Google', microsoft: 'Microsoft', hubspot: 'HubSpot', slack: 'Slack', github: 'GitHub' };

/**
 * Answers the browser's navigation to any OAuth start URL with a stand-in page. Resolves, once the
 * route is in place, to {url}: a promise of the first such URL (wrapped, or await would wait for it).
 */
async function interceptOAuthStart(page) {
  let resolve;
  const url = new Promise((r) => (resolve = r));
  await page.route(
    (u) => u.pathname.startsWith('/v1/b2b/public/oauth/'),
    (route) => {
      const req = route.request();
      if (req.isNavigationRequest()) resolve(req.url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<p>OAuth start intercepted</p>' });
    },
  );
  return { url };
}

/** The start URL per api-reference 3.5, parameters in its order; PKCE only when the project asks. */
async function expectedStartURL(page, project, provider, params) {
  const q = new URLSearchParams({ public_token: project.public_token });
  const boot = await fetch(`${h.apiBase}/sdk/v1/projects/bootstrap/${project.public_token}`).then((r) => r.json());
  for (let [k, v] of params) {
    if (k === 'pkce_code_challenge') {
      if (!boot.data.pkce_required_for_oauth) continue;
      const key = `stytch_sdk_state_${project.public_token}::PKCE_VERIFIER:oauth`;
      v = JSON.parse(await page.evaluate((k) => localStorage.getItem(k), key)).code_challenge;
    }
    q.set(k, v);
  }
  const path = params.discovery ? `${provider}/discovery/start` : `${provider}/start`;
  return `${h.base}/v1/b2b/public/oauth/${path}?${q}`;
}

/** Asserts that the locators are shown top to bottom in the given order. */
async function assertTopToBottom(locators, what) {
  const ys = [];
  for (const l of locators) ys.push((await l.boundingBox()).y);
  assert.deepEqual([...ys].sort((a, b) => a - b), ys, `${what}: positions ${ys.join(', ')}`);
}

function oauthButton(page, provider) {
  return page.getByRole('button', { name: TEXT.continueWith(PROVIDER_NAMES[provider]), exact: true });
}

function divider(page) {
  return page.getByRole('separator').filter({ hasText: TEXT.or });
}

/** The 'Last used' tag attached to a control (it wraps the control and its tag together). */
function lastUsedTagOf(page, control) {
  return page.locator('.lk-last-used').filter({ has: control }).getByText(TEXT.lastUsed, { exact: true });
}

h.test('organization Main: OAuth buttons for the configured providers, the divider, and the exact start URL', async ({ page }) => {
  const org = await h.createOrg({ name: 'Button Co', slug: 'button-co' });
  await page.goto(h.pageUrlWith({ slug: 'button-co', products: 'oauth,emailMagicLinks', oauth: 'google,microsoft,github' }));
  await page.getByRole('heading', { name: TEXT.continueTo('Button Co') }).waitFor();

  // One button per configured provider, in the configured order, and no others.
  const buttons = ['google', 'microsoft', 'github'].map((p) => oauthButton(page, p));
  for (const b of buttons) await b.waitFor();
  for (const p of ['hubspot', 'slack']) assert.equal(await oauthButton(page, p).count(), 0, `${p} is not configured`);
  // Buttons (first product), then 'or', then the email form.
  assert.equal(await divider(page).count(), 1);
  await assertTopToBottom([...buttons, divider(page), page.locator('#email-input')], 'buttons, or, email form');
  assert.equal(await page.getByText(TEXT.lastUsed).count(), 0, 'nothing used yet');

  const started = (await interceptOAuthStart(page)).url;
  await buttons[1].click();
  const url = await started;
  assert.equal(
    url,
    await expectedStartURL(page, h.project, 'microsoft', [
      ['organization_id', org.organization_id],
      ['pkce_code_challenge'],
      ['login_redirect_url', h.pageUrl],
      ['signup_redirect_url', h.pageUrl],
    ]),
  );
  await page.getByText('OAuth start intercepted').waitFor();
});

h.test('discovery Main: the email form, the divider, then the buttons, starting at the discovery start URL', async ({ page }) => {
  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'emailOtp,oauth', oauth: 'google,slack' }));
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  const google = oauthButton(page, 'google');
  const slack = oauthButton(page, 'slack');
  await assertTopToBottom([page.locator('#email-input'), divider(page), google, slack], 'email form, or, buttons');

  const started = (await interceptOAuthStart(page)).url;
  await slack.click();
  const params = [['pkce_code_challenge'], ['discovery_redirect_url', h.pageUrl]];
  params.discovery = true;
  assert.equal(await started, await expectedStartURL(page, h.project, 'slack', params));
});

h.test('restricted Main after discovery: only the allowed provider, started for the organization with the known email', async ({ page }) => {
  const org = await h.createOrg({
    name: 'Google Shop',
    slug: 'google-shop',
    jit: 'NOT_ALLOWED',
    extra: { auth_methods: 'RESTRICTED', allowed_auth_methods: ['google_oauth', 'magic_link'] },
  });
  const email = uniqueEmail('shopper');
  await h.createMember(org.organization_id, email, 'Shopper');

  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'emailOtp,oauth', oauth: 'google,microsoft' }));
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await enterCode(page, codeOf(await h.waitForMail(email)));
  await page.getByRole('list', { name: TEXT.orgList }).getByRole('button', { name: /Google Shop/ }).click();

  // Of the configured methods (code, Google, Microsoft) the organization accepts only Google here.
  // The flow is still Discovery (spec sections 2 and 4), so Main keeps discovery's title.
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  assert.equal(await page.getByRole('heading', { name: TEXT.continueTo('Google Shop') }).count(), 0);
  const google = oauthButton(page, 'google');
  await google.waitFor();
  assert.equal(await oauthButton(page, 'microsoft').count(), 0);
  assert.equal(await page.getByRole('button', { name: TEXT.emailMeACode }).count(), 0);
  assert.equal(await page.locator('#email-input').count(), 0);
  assert.equal(await divider(page).count(), 0, 'no divider without a form');

  const started = (await interceptOAuthStart(page)).url;
  await google.click();
  assert.equal(
    await started,
    await expectedStartURL(page, h.project, 'google', [
      ['organization_id', org.organization_id],
      ['provider_login_hint', email],
      ['pkce_code_challenge'],
      ['login_redirect_url', h.pageUrl],
      ['signup_redirect_url', h.pageUrl],
    ]),
  );
});

h.test("'Last used' moves the method of the last login to the top, per project", async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Recall Co', slug: 'recall-co' });
  const email = uniqueEmail('recall');
  const member = await h.createMember(org.organization_id, email, 'Recall Member');
  const url = h.pageUrlWith({ slug: 'recall-co', products: 'oauth,emailOtp', oauth: 'google' });
  const google = oauthButton(page, 'google');
  const continueWithEmail = page.getByRole('button', { name: TEXT.continueWithEmail });

  await page.goto(url);
  await page.getByRole('heading', { name: TEXT.continueTo('Recall Co') }).waitFor();
  await assertTopToBottom([google, divider(page), page.locator('#email-input')], 'first visit: configured order');
  assert.equal(await page.getByText(TEXT.lastUsed).count(), 0);

  // A login by emailed code.
  await page.locator('#email-input').fill(email);
  await continueWithEmail.click();
  await enterCode(page, codeOf(await h.waitForMail(email)));
  await page.getByText(TEXT.loggedIn).waitFor();
  await page.locator('#session').filter({ hasText: member.member_id }).waitFor();

  // Logged out (cookies gone) and back: the email form comes first, tagged 'Last used'.
  await context.clearCookies();
  await page.goto(url);
  await page.getByRole('heading', { name: TEXT.continueTo('Recall Co') }).waitFor();
  await lastUsedTagOf(page, continueWithEmail).waitFor();
  assert.equal(await page.getByText(TEXT.lastUsed).count(), 1);
  await assertTopToBottom([page.locator('#email-input'), divider(page), google], 'after the login: email form first');
  // The tag describes the button (its name stays the method's).
  const describedBy = await continueWithEmail.getAttribute('aria-describedby');
  assert.ok(describedBy, 'the button is described by the tag');
  assert.equal(await page.locator(`[id="${describedBy}"]`).textContent(), TEXT.lastUsed);
  const key = `stytch_sdk_state_${h.project.public_token}::b2b_last_used_method`;
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), 'emailOtp');

  // Another project on the same site has its own memory: nothing used there yet.
  const other = await h.createProject();
  await h.apiAs(other, 'POST', '/v1/b2b/organizations', { organization_name: 'Elsewhere Inc', organization_slug: 'recall-co' });
  const otherUrl = h.pageUrlWith({ slug: 'recall-co', products: 'oauth,emailOtp', oauth: 'google', publicToken: other.public_token });
  await page.goto(otherUrl);
  await page.getByRole('heading', { name: TEXT.continueTo('Elsewhere Inc') }).waitFor();
  await google.waitFor();
  assert.equal(await page.getByText(TEXT.lastUsed).count(), 0, 'the other project remembers nothing');
  await assertTopToBottom([google, divider(page), page.locator('#email-input')], 'other project: configured order');

  // Starting Google there is remembered there, and only there.
  const started = (await interceptOAuthStart(page)).url;
  await google.click();
  await started;
  await page.goto(otherUrl);
  await lastUsedTagOf(page, google).waitFor();
  await page.goto(url);
  await lastUsedTagOf(page, continueWithEmail).waitFor();
  assert.equal(await lastUsedTagOf(page, google).count(), 0);
});
