// RBAC from a real page: a member whose roles lack stytch.member:delete cannot delete another member
// of their organization, while an admin can. Latchkey's widget has no administration screens, so
// the page drives the public @stytch/vanilla-js B2B headless client (a client we did not write):
// it logs in by emailed code and calls organization.members.delete, exactly what a customer's admin
// page would do. The server's answer decides; the SDK's local rbac.isAuthorized (answered from our
// bootstrap policy and the session's roles) must agree with it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useHarness, codeOf, uniqueEmail } from './harness.mjs';

const SDK_JS = readFileSync(
  fileURLToPath(new URL('./node_modules/@stytch/vanilla-js/dist/iife/b2b/index.headless.js', import.meta.url)),
  'utf8',
);

/** A customer's admin page: the vendor headless client pointed at our server, nothing mounted. */
function adminPage(h) {
  const cfg = JSON.stringify({ publicToken: h.project?.public_token ?? '', apiBase: h.base }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Members admin</title></head>
<body>
<main><h1>Members</h1></main>
<script type="application/json" id="cfg">${cfg}</script>
<script src="/vendor/stytch-b2b-headless.js"></script>
<script>
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  window.client = new stytch.StytchB2BHeadlessClient(cfg.publicToken, {
    endpoints: { testAPIURL: cfg.apiBase, liveAPIURL: cfg.apiBase },
  });
</script>
</body>
</html>
`;
}

const h = useHarness({
  routes: {
    '/admin': adminPage,
    '/vendor/stytch-b2b-headless.js': () => ({ type: 'text/javascript; charset=utf-8', body: SDK_JS }),
    '/favicon.ico': () => ({ status: 204, type: 'image/x-icon', body: '' }),
  },
});

/** Opens the admin page in a fresh context and logs `email` into `orgId` through the vendor client. */
async function loggedInPage(page, orgId, email) {
  await page.goto(`${h.pageOrigin}/admin`);
  await page.waitForFunction(() => !!window.client);
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await page.evaluate(
    ([organization_id, email_address]) => window.client.otps.email.loginOrSignup({ organization_id, email_address }),
    [orgId, email],
  );
  const code = codeOf(await h.waitForMail(email, { exclude: seen }));
  const auth = await page.evaluate(
    ([organization_id, email_address, code]) =>
      window.client.otps.email.authenticate({ organization_id, email_address, code, session_duration_minutes: 60 }),
    [orgId, email, code],
  );
  assert.equal(auth.member.email_address, email);
  // The SDK keeps the session for its later calls (cookies on the page's origin).
  await page.waitForFunction(() => !!window.client.session.getSync());
}

/** Deletes a member from the page; resolves to {ok} or {error_type, status_code} as the SDK reports them. */
function deleteFromPage(page, memberId) {
  return page.evaluate(async (id) => {
    try {
      const r = await window.client.organization.members.delete(id);
      return { ok: true, member_id: r.member_id };
    } catch (e) {
      return { ok: false, error_type: e.error_type, status_code: e.status_code, message: String(e.message) };
    }
  }, memberId);
}

/** The SDK's own local verdict on stytch.member:delete. */
function mayDelete(page) {
  return page.evaluate(() => window.client.rbac.isAuthorized('stytch.member', 'delete'));
}

async function memberStatus(orgId, memberId) {
  const r = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(memberId)}`);
  return r.member.status;
}

h.test('rbac: a member without stytch.member:delete cannot delete another member; an admin can', async ({ page, newContext }) => {
  const org = await h.createOrg({ name: 'RBAC Delete', slug: `rbac-delete-${Date.now()}` });
  const orgId = org.organization_id;
  const plainEmail = uniqueEmail('rbac-plain');
  const adminEmail = uniqueEmail('rbac-admin');
  await h.createMember(orgId, plainEmail, 'Plain Member');
  await h.api('POST', `/v1/b2b/organizations/${orgId}/members`, {
    email_address: adminEmail,
    name: 'Admin Member',
    roles: ['stytch_admin'],
  });
  const victim = await h.createMember(orgId, uniqueEmail('rbac-victim'), 'Victim');

  // The plain member: the SDK says no, and the server refuses when asked anyway.
  await loggedInPage(page, orgId, plainEmail);
  assert.equal(await mayDelete(page), false, 'isAuthorized(stytch.member, delete) for stytch_member');
  const refused = await deleteFromPage(page, victim.member_id);
  assert.equal(refused.ok, false, `the delete went through: ${JSON.stringify(refused)}`);
  assert.equal(refused.error_type, 'unauthorized_action', JSON.stringify(refused));
  assert.equal(refused.status_code, 403);
  assert.equal(await memberStatus(orgId, victim.member_id), 'active', 'the victim is untouched');
  // The refusal did not cost the member their own session.
  assert.ok(await page.evaluate(() => !!window.client.session.getSync()), 'still logged in after the refusal');

  // The admin, in another browser context, may and does.
  const adminContext = await newContext();
  const adminPage = await adminContext.newPage();
  await loggedInPage(adminPage, orgId, adminEmail);
  assert.equal(await mayDelete(adminPage), true, 'isAuthorized(stytch.member, delete) for stytch_admin');
  const done = await deleteFromPage(adminPage, victim.member_id);
  assert.deepEqual(done, { ok: true, member_id: victim.member_id });
  assert.equal(await memberStatus(orgId, victim.member_id), 'deleted');
});
