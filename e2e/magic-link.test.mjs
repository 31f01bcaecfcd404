// A new person joins an organization that allows just-in-time provisioning by clicking the link
// emailed to them, and that link works exactly once.
import assert from 'node:assert/strict';
import { useHarness, TEXT, cookieValue, uniqueEmail } from './harness.mjs';

const h = useHarness();

h.test('a new member joins an open organization by emailed link; the link is single use', async ({ page, context, newContext }) => {
  const org = await h.createOrg({ name: 'Links Inc', slug: 'links-inc', jit: 'ALL_ALLOWED' });
  h.defaultSlug = 'links-inc'; // the link lands on the bare registered URL
  const email = uniqueEmail('newcomer');

  await page.goto(h.pageUrlWith({ slug: 'links-inc' }));
  await page.getByText(TEXT.continueTo('Links Inc')).waitFor();
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByRole('button', { name: TEXT.emailMeALink }).click();

  const mail = await h.waitForMail(email);
  const link = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(link, `no magic link in ${JSON.stringify(mail.links)}`);
  const u = new URL(link);
  // The link goes back to the page the project registered, not to the API server.
  assert.equal(`${u.origin}${u.pathname}`, h.pageUrl);
  assert.ok(u.searchParams.get('token'), 'link has a token');

  await page.goto(link);
  await page.getByText(TEXT.loggedIn).waitFor();

  // The session cookie lives on the customer's page origin, where the widget runs.
  const sessionToken = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(sessionToken, 'stytch_session cookie is set on the page origin');
  // The one-time token must not linger in the address bar (history, screenshots, referrers).
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('token'), null, { timeout: 5000 });
  assert.ok(!page.url().includes('token='), `token still in ${page.url()}`);
  await page.locator('#session').filter({ hasText: 'member-session-' }).waitFor();

  // Server side: the cookie is a live session of a member created just now for that email.
  const s = await h.authenticateSession(sessionToken);
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.match(s.member_session.member_session_id, /^member-session-/);

  // Replaying the same link (here from a clean browser, as anyone who got hold of it would) fails.
  const other = await newContext();
  const again = await other.newPage();
  await again.goto(link);
  await again.getByText(TEXT.errorTitle).waitFor();
  assert.equal(await again.getByText(TEXT.loggedIn).count(), 0);
  assert.equal(await cookieValue(other, h.pageOrigin, 'stytch_session'), undefined);
});
