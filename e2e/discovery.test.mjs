// Discovery: a person who does not know their organization proves their email (by link or code),
// sees the organizations it can enter, and ends up logged in to one of them: a new one they create,
// the only one they belong to, one of several, one that invited them, one their domain may join, or
// a restricted one that first asks for another login method.
//
// Every redirect lands on the bare registered URL, so the Discovery config lives in the page
// defaults (h.pageDefaults), not in the address: the page that sends and the page the link opens
// are configured alike.
import assert from 'node:assert/strict';
import { useHarness, TEXT, AXE_PATH, cookieValue, enterCode, codeOf, uniqueEmail } from './harness.mjs';

const LOGO_SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><rect width="16" height="16" fill="#36c"/></svg>';
const h = useHarness({ routes: { '/beta-logo.svg': () => ({ type: 'image/svg+xml', body: LOGO_SVG }) } });

const IST_COOKIE = 'stytch_intermediate_session_token';

/** A unique registrable-looking domain, so organizations named after it never collide. */
function uniqueDomain(prefix) {
  return `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}.test`;
}

/** The host page in the Discovery flow with `options` as its defaults; returns its bare URL. */
function discoveryPage(options = {}) {
  h.pageDefaults = { flow: 'Discovery', ...options };
  return h.pageUrl;
}

async function openDiscoveryMain(page, email, options) {
  await page.goto(discoveryPage(options));
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
}

/** Proves the email with a discovery code typed into the widget. */
async function discoverByCode(page, email, options = {}) {
  await openDiscoveryMain(page, email, { products: 'emailOtp', ...options });
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await enterCode(page, codeOf(await h.waitForMail(email)));
}

/** Proves the email with the discovery link, opened in the same browser. */
async function discoverByLink(page, email, options = {}) {
  await openDiscoveryMain(page, email, { products: 'emailMagicLinks', ...options });
  await page.getByRole('heading', { name: TEXT.checkEmail }).waitFor();
  const mail = await h.waitForMail(email);
  const link = mail.links.find((l) => l.includes('stytch_token_type=discovery'));
  assert.ok(link, `no discovery link in ${JSON.stringify(mail.links)}`);
  const u = new URL(link);
  assert.equal(`${u.origin}${u.pathname}`, h.pageUrl, 'the link lands on the discovery redirect URL');
  await page.goto(link);
}

/** The organization picker's entries (one button per organization). */
function orgList(page) {
  return page.getByRole('list', { name: TEXT.orgList }).getByRole('button');
}

/** An organization's entry; its accessible name is the organization name plus its label, if any. */
function orgEntry(page, name) {
  return orgList(page).filter({ hasText: name });
}

/** Waits for the success screen and returns the server's view of the session cookie. */
async function loggedIn(page, context) {
  await page.getByText(TEXT.loggedIn).waitFor();
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  assert.equal(await cookieValue(context, h.pageOrigin, IST_COOKIE), undefined, 'the IST cookie is gone');
  const s = await h.authenticateSession(token);
  await page.locator('#session').filter({ hasText: s.member_session.member_session_id }).waitFor();
  return s;
}

/** axe-core's serious and critical findings on the page (it scans the open shadow root). */
async function seriousViolations(page) {
  await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

async function getMember(orgId, memberId) {
  return (await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(memberId)}`)).member;
}

async function invite(orgId, email, name) {
  const r = await h.api('POST', '/v1/b2b/magic_links/email/invite', {
    organization_id: orgId,
    email_address: email,
    name,
  });
  assert.equal(r.member.status, 'invited');
  return r.member;
}

h.test('no organizations: the person creates one and is its first, admin member', async ({ page, context }) => {
  const domain = uniqueDomain('nova');
  const email = `founder@${domain}`;
  await discoverByLink(page, email);

  await page.getByRole('heading', { name: TEXT.createOrgTitle }).waitFor();
  await page.getByText(TEXT.createOrgBody(email)).waitFor();
  assert.ok(await cookieValue(context, h.pageOrigin, IST_COOKIE), 'the verified email waits in an IST cookie');
  await page.getByRole('button', { name: TEXT.createOrg }).click();

  const s = await loggedIn(page, context);
  const label = domain.split('.')[0];
  assert.equal(s.organization.organization_name, label[0].toUpperCase() + label.slice(1), 'named after the domain');
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.status, 'active');
  assert.equal(s.member.email_address_verified, true);
  assert.ok(
    s.member.roles.some((r) => r.role_id === 'stytch_admin'),
    `the creator is an admin: ${JSON.stringify(s.member.roles)}`,
  );
  const factors = s.member_session.authentication_factors;
  assert.equal(factors.length, 1);
  assert.equal(factors[0].delivery_method, 'email');
  // The organization exists on the server with this person as its only member.
  const members = await h.api('POST', '/v1/b2b/organizations/members/search', {
    organization_ids: [s.organization.organization_id],
  });
  assert.deepEqual(members.members.map((m) => m.email_address), [email]);
});

h.test('no organizations and creation disabled: the person is told, and can start over; direct creation skips the screen', async ({ page, context }) => {
  const email = uniqueEmail('nobody', uniqueDomain('none'));
  await discoverByCode(page, email, { disableCreate: 'true' });
  await page.getByRole('heading', { name: TEXT.noOrgsTitle(email) }).waitFor();
  assert.equal(await page.getByRole('button', { name: TEXT.createOrg }).count(), 0, 'no way to create one');
  await page.getByRole('button', { name: TEXT.tryDifferentEmail }).click();
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  // The previous address stays in the field, ready to be corrected.
  assert.equal(await page.locator('#email-input').inputValue(), email);

  // With directCreateOrganizationForNoMembership the organization is created without a click.
  const domain = uniqueDomain('direct');
  const founder = `founder@${domain}`;
  await discoverByCode(page, founder, { directCreate: 'true' });
  const s = await loggedIn(page, context);
  assert.equal(s.member.email_address, founder);
  assert.equal(s.organization.organization_slug, domain.split('.')[0]);
});

h.test('one active membership logs in directly; an invitation elsewhere shows the list instead', async ({ page, context }) => {
  const domain = uniqueDomain('solo');
  const org = await h.createOrg({ name: 'Solo Works', slug: domain.split('.')[0], jit: 'NOT_ALLOWED' });
  const email = `member@${domain}`;
  const member = await h.createMember(org.organization_id, email, 'Solo Member');

  const exchanges = [];
  page.on('response', (r) => r.url().endsWith('/b2b/discovery/intermediate_sessions/exchange') && exchanges.push(r.status()));
  await discoverByLink(page, email, { directLogin: 'on' });
  const s = await loggedIn(page, context);
  assert.deepEqual(exchanges, [200], 'the widget entered the organization by itself');
  assert.equal(s.member.member_id, member.member_id, 'the existing member, none was created');
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(await orgList(page).count(), 0);

  // The same shortcut with a pending invitation: the person chooses (spec: the invite exception).
  const other = await h.createOrg({ name: 'Inviting Co', slug: uniqueDomain('inviting').split('.')[0], jit: 'NOT_ALLOWED' });
  const email2 = `second@${domain}`;
  const member2 = await h.createMember(org.organization_id, email2, 'Second Member');
  await invite(other.organization_id, email2, 'Second Invitee');
  await context.clearCookies();
  await discoverByCode(page, email2, { directLogin: 'on' });
  await page.getByRole('heading', { name: TEXT.selectOrg }).waitFor();
  await orgEntry(page, 'Inviting Co').filter({ hasText: TEXT.acceptInvite }).waitFor();
  assert.equal(await orgList(page).count(), 2);
  await orgEntry(page, 'Solo Works').click();
  const s2 = await loggedIn(page, context);
  assert.equal(s2.member.member_id, member2.member_id);
});

h.test('several organizations: all are listed with their labels and the chosen one gets the session', async ({ page, context }) => {
  const domain = uniqueDomain('multi');
  const email = `both@${domain}`;
  const alpha = await h.createOrg({ name: 'Alpha Labs', slug: `alpha-${domain.split('.')[0]}`, jit: 'NOT_ALLOWED' });
  const beta = await h.createOrg({
    name: 'Beta Ventures',
    slug: `beta-${domain.split('.')[0]}`,
    jit: 'NOT_ALLOWED',
    extra: { organization_logo_url: `${h.pageOrigin}/beta-logo.svg` },
  });
  const gamma = await h.createOrg({ name: 'Gamma Guild', slug: `gamma-${domain.split('.')[0]}`, jit: 'NOT_ALLOWED' });
  await h.createMember(alpha.organization_id, email, 'Both Member');
  const inBeta = await h.createMember(beta.organization_id, email, 'Both Member');
  await h.api('POST', `/v1/b2b/organizations/${gamma.organization_id}/members`, {
    email_address: email,
    create_member_as_pending: true,
  });

  // Direct login does not apply to two active memberships.
  await discoverByCode(page, email, { directLogin: 'on' });
  await page.getByRole('heading', { name: TEXT.selectOrg }).waitFor();
  assert.deepEqual((await orgList(page).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).sort(), [
    'A Alpha Labs',
    'Beta Ventures',
    'G Gamma Guild Join',
  ]);
  // Active memberships carry no 'Join' or 'Accept Invite' label (a pending one reads 'Join'); the
  // logo is shown when there is one, else the initial.
  assert.equal(await orgList(page).filter({ hasText: TEXT.join }).count(), 1);
  assert.equal(await orgList(page).filter({ hasText: TEXT.acceptInvite }).count(), 0);
  assert.equal(await orgEntry(page, 'Beta Ventures').locator('img').getAttribute('src'), `${h.pageOrigin}/beta-logo.svg`);
  assert.ok(await cookieValue(context, h.pageOrigin, IST_COOKIE), 'IST cookie while choosing');
  assert.deepEqual(await seriousViolations(page), [], 'the organization list is accessible');

  await orgEntry(page, 'Beta Ventures').click();
  const s = await loggedIn(page, context);
  assert.equal(s.organization.organization_id, beta.organization_id);
  assert.equal(s.member.member_id, inBeta.member_id);
});

h.test('an invited member opens the invite email and is logged in as an active member', async ({ page, context }) => {
  const domain = uniqueDomain('invite');
  const org = await h.createOrg({ name: 'Guest List', slug: domain.split('.')[0], jit: 'NOT_ALLOWED' });
  const email = `guest@${domain}`;
  const invited = await invite(org.organization_id, email, 'Invited Guest');

  const mail = await h.waitForMail(email);
  const link = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(link, `no invite link in ${JSON.stringify(mail.links)}`);
  const u = new URL(link);
  assert.equal(`${u.origin}${u.pathname}`, h.pageUrl, 'the invite lands on the registered page');

  discoveryPage({ products: 'emailMagicLinks,emailOtp' });
  await page.goto(link);
  const s = await loggedIn(page, context);
  assert.equal(s.member.member_id, invited.member_id, 'the invited member, not a new one');
  assert.equal(s.organization.organization_id, org.organization_id);
  const after = await getMember(org.organization_id, invited.member_id);
  assert.equal(after.status, 'active');
  assert.equal(after.email_address_verified, true);
});

h.test('an invited member accepts the invite from the discovery list', async ({ page, context }) => {
  const domain = uniqueDomain('accept');
  const org = await h.createOrg({ name: 'Open Invitation', slug: domain.split('.')[0], jit: 'NOT_ALLOWED' });
  const email = `guest@${domain}`;
  const invited = await invite(org.organization_id, email, 'Listed Guest');

  await discoverByCode(page, email);
  const entry = orgEntry(page, 'Open Invitation');
  await entry.filter({ hasText: TEXT.acceptInvite }).waitFor();
  assert.equal(await getMember(org.organization_id, invited.member_id).then((m) => m.status), 'invited');
  await entry.click();

  const s = await loggedIn(page, context);
  assert.equal(s.member.member_id, invited.member_id);
  assert.equal((await getMember(org.organization_id, invited.member_id)).status, 'active');
});

h.test('an organization that admits the email domain can be joined from the list', async ({ page, context }) => {
  const domain = uniqueDomain('corp');
  const org = await h.createOrg({ name: 'Domain Corp', slug: domain.split('.')[0], jit: 'RESTRICTED', domains: [domain] });
  // A colleague with a proven address at the domain vouches for it (the anti-phishing rule).
  await h.createVerifiedMember(org.organization_id, `colleague@${domain}`);
  // Open to everyone, but never listed to strangers: only memberships and domains are discovered.
  await h.createOrg({ name: 'Open To All', slug: uniqueDomain('open').split('.')[0], jit: 'ALL_ALLOWED' });
  const email = `newhire@${domain}`;

  await discoverByLink(page, email);
  await page.getByRole('heading', { name: TEXT.selectOrg }).waitFor();
  assert.deepEqual((await orgList(page).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()), ['D Domain Corp Join']);
  await orgEntry(page, 'Domain Corp').getByText(TEXT.join).waitFor();
  await assert.rejects(
    h.api('GET', `/v1/b2b/organizations/${org.organization_id}/member?email_address=${encodeURIComponent(email)}`),
    (e) => e.status === 404,
    'nobody is provisioned before the choice',
  );
  await orgEntry(page, 'Domain Corp').click();

  const s = await loggedIn(page, context);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.status, 'active');
  assert.equal(s.member.email_address_verified, true);
});

h.test('a restricted organization sends the member back to Main with its allowed method, which completes the login', async ({ page, context }) => {
  const domain = uniqueDomain('strict');
  const org = await h.createOrg({
    name: 'Strict Co',
    slug: domain.split('.')[0],
    jit: 'NOT_ALLOWED',
    extra: { auth_methods: 'RESTRICTED', allowed_auth_methods: ['magic_link'] },
  });
  const email = `member@${domain}`;
  const member = await h.createMember(org.organization_id, email, 'Strict Member');

  // Both email methods: the email is proven by code, which Strict Co does not accept.
  await openDiscoveryMain(page, email, { products: 'emailMagicLinks,emailOtp' });
  await page.getByRole('button', { name: TEXT.emailMeACode }).click();
  await enterCode(page, codeOf(await h.waitForMail(email)));
  await orgEntry(page, 'Strict Co').click();

  // Main again, now for Strict Co, with the known email and only the link it allows. The flow is
  // still Discovery (spec sections 2 and 4), so the title is discovery's, not the organization's.
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  assert.equal(await page.getByRole('heading', { name: TEXT.continueTo('Strict Co') }).count(), 0);
  const sendLink = page.getByRole('button', { name: TEXT.emailMeALink });
  await sendLink.waitFor();
  assert.equal(await page.getByRole('button', { name: TEXT.emailMeACode }).count(), 0, 'the code is not offered');
  assert.equal(await page.locator('#email-input').count(), 0, 'the email is known, not asked again');
  assert.equal(await cookieValue(context, h.pageOrigin, 'stytch_session'), undefined, 'not logged in yet');
  assert.ok(await cookieValue(context, h.pageOrigin, IST_COOKIE), 'the proven code waits in the IST');

  const before = (await h.mailbox(email)).map((m) => m.id);
  await sendLink.click();
  await page.getByRole('heading', { name: TEXT.checkEmail }).waitFor();
  const mail = await h.waitForMail(email, { exclude: before });
  const link = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(link, `no login link in ${JSON.stringify(mail.links)}`);
  await page.goto(link);

  const s = await loggedIn(page, context);
  assert.equal(s.member.member_id, member.member_id);
  assert.equal(s.organization.organization_id, org.organization_id);
  // Both proofs count: the code from discovery and the link the organization requires.
  const factors = s.member_session.authentication_factors.map((f) => f.delivery_method).sort();
  assert.deepEqual(factors, ['email', 'email'].sort(), JSON.stringify(s.member_session.authentication_factors));
  assert.deepEqual(
    s.member_session.authentication_factors.map((f) => f.type).sort(),
    ['email_otp', 'magic_link'],
    JSON.stringify(s.member_session.authentication_factors),
  );
});

h.test('a restricted organization allowing no configured method falls back to the magic link', async ({ page, context }) => {
  const domain = uniqueDomain('linkonly');
  const org = await h.createOrg({
    name: 'Link Only',
    slug: domain.split('.')[0],
    jit: 'NOT_ALLOWED',
    extra: { auth_methods: 'RESTRICTED', allowed_auth_methods: ['magic_link'] },
  });
  const email = `member@${domain}`;
  const member = await h.createMember(org.organization_id, email, 'Link Only Member');

  // Only codes are configured, and Link Only does not accept them.
  await discoverByCode(page, email, { products: 'emailOtp' });
  await orgEntry(page, 'Link Only').click();
  await page.getByRole('heading', { name: TEXT.signUpOrLogIn }).waitFor();
  const sendLink = page.getByRole('button', { name: TEXT.emailMeALink });
  await sendLink.waitFor();
  assert.equal(await page.getByRole('button', { name: TEXT.emailMeACode }).count(), 0);

  const before = (await h.mailbox(email)).map((m) => m.id);
  await sendLink.click();
  await page.getByRole('heading', { name: TEXT.checkEmail }).waitFor();
  const mail = await h.waitForMail(email, { exclude: before });
  await page.goto(mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links')));
  const s = await loggedIn(page, context);
  assert.equal(s.member.member_id, member.member_id);
  assert.equal(s.member_session.authentication_factors.length, 2);
});
