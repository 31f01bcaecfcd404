// Compatibility: the Admin Portal of the public @stytch/vanilla-js 6.3.0 (its SSO, Member
// Management, Organization Settings and SCIM components; code we did not write) administers an
// organization against our real binary, logged in as a stytch_admin member. The IIFE builds are
// served unchanged from node_modules on the harness's page server (another origin than the API), and
// the internal `endpoints` option points the client at our server (api-reference 6.3 (a)). Every
// request the portal makes is recorded: none may be refused as unknown (404, 405) or answered with
// an error the portal did not ask for. A failure here is a wire-format bug in our server.
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useHarness, codeOf, uniqueEmail, waitUntil } from './harness.mjs';

const vendor = (p) => readFileSync(fileURLToPath(new URL(`./node_modules/@stytch/vanilla-js/dist/iife/${p}`, import.meta.url)), 'utf8');
const SDK_JS = vendor('b2b/index.js');
const PORTAL_JS = vendor('adminPortal/index.js');

/**
 * The customer's admin page. Both IIFEs assign the global `stytch`, so the client library's is kept
 * as `stytchB2B` before the portal's loads. ?component=sso|members|settings|scim mounts one
 * component; without it nothing is mounted (the test logs in first through the client).
 */
function adminPage(h, url) {
  const cfg = JSON.stringify({
    publicToken: h.project?.public_token ?? '',
    apiBase: h.base,
    component: url.searchParams.get('component') || '',
  }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Admin Portal</title></head>
<body>
<div id="portal"></div>
<script type="application/json" id="cfg">${cfg}</script>
<script src="/vendor/stytch-b2b.js"></script>
<script>window.stytchB2B = stytch;</script>
<script src="/vendor/stytch-admin-portal.js"></script>
<script>
(function () {
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  var client = new stytchB2B.StytchB2BClient(cfg.publicToken, {
    endpoints: { testAPIURL: cfg.apiBase, liveAPIURL: cfg.apiBase },
  });
  window.client = client;
  var mount = {
    sso: stytch.mountAdminPortalSSO,
    members: stytch.mountAdminPortalMemberManagement,
    settings: stytch.mountAdminPortalOrgSettings,
    scim: stytch.mountAdminPortalSCIM,
  }[cfg.component];
  if (mount) mount({ element: '#portal', client: client });
})();
</script>
</body>
</html>
`;
}

const h = useHarness({
  routes: {
    '/admin': adminPage,
    '/vendor/stytch-b2b.js': () => ({ type: 'text/javascript; charset=utf-8', body: SDK_JS }),
    '/vendor/stytch-admin-portal.js': () => ({ type: 'text/javascript; charset=utf-8', body: PORTAL_JS }),
    '/favicon.ico': () => ({ status: 204, type: 'image/x-icon', body: '' }),
  },
});

// The portal's CSS-in-JS library (emotion) warns about its own selectors in development builds; it
// says nothing about the server.
const VENDOR_NOISE = /^The pseudo class ":[a-z-]+" is potentially unsafe when doing server-side rendering/;

/**
 * Records every API call of the page ("METHOD /path status"). None of the tasks below leads the
 * portal to an error it asked for, so any status >= 400 betrays a route we do not serve (404, 405) or
 * an answer the portal cannot use; console errors and page errors count too.
 */
function watchPage(page) {
  const w = { calls: [], refused: [], errors: [] };
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (u.port !== String(h.port) || r.request().method() === 'OPTIONS') return;
    const call = `${r.request().method()} ${u.pathname}`;
    w.calls.push(`${call} ${r.status()}`);
    if (r.status() >= 400) w.refused.push(`${call} ${r.status()}`);
  });
  page.on('console', (m) => m.type() === 'error' && !VENDOR_NOISE.test(m.text()) && w.errors.push(m.text()));
  page.on('pageerror', (e) => w.errors.push(e.message));
  w.assertClean = () => {
    assert.deepEqual(w.refused, [], `every portal call was served and answered as the portal expects; calls:\n${w.calls.join('\n')}`);
    assert.deepEqual(w.errors, [], 'the portal logged no error');
  };
  return w;
}

/** Logs `email` into `orgId` through the vendor client on the admin page (emailed code). */
async function logIn(page, orgId, email) {
  await page.goto(`${h.pageOrigin}/admin`);
  await page.waitForFunction(() => !!window.client);
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await page.evaluate(([organization_id, email_address]) =>
    window.client.otps.email.loginOrSignup({ organization_id, email_address }), [orgId, email]);
  const code = codeOf(await h.waitForMail(email, { exclude: seen }));
  await page.evaluate(([organization_id, email_address, code]) =>
    window.client.otps.email.authenticate({ organization_id, email_address, code, session_duration_minutes: 60 }),
  [orgId, email, code]);
  await page.waitForFunction(() => !!window.client.session.getSync());
}

/** An organization with a stytch_admin member, logged in on `page`. */
async function adminOrg(page, name) {
  const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now().toString(36)}`;
  const org = await h.createOrg({ name, slug });
  const email = uniqueEmail('portal-admin');
  const r = await h.api('POST', `/v1/b2b/organizations/${org.organization_id}/members`, {
    email_address: email, name: 'Portal Admin', roles: ['stytch_admin'],
  });
  await logIn(page, org.organization_id, email);
  return { org, admin: r.member, email };
}

/** Opens the admin page with one portal component mounted, after the login. */
async function openPortal(page, component) {
  await page.goto(`${h.pageOrigin}/admin?component=${component}`);
}

h.test('admin portal SSO: list connections, create a SAML connection, rename it', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO');
  const orgId = org.organization_id;
  // One connection made by the backend, which the list must show.
  await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Existing Okta', identity_provider: 'okta' });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Existing Okta').waitFor();
  assert.ok(w.calls.includes('GET /sdk/v1/b2b/admin_portal_config 200'), w.calls.join('\n'));

  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill('Portal SAML');
  await page.getByText('Select', { exact: true }).click();
  await page.getByText('Custom SAML', { exact: true }).click();
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sso/saml') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await created).status(), 200);
  const connectionId = (await (await created).json()).data.connection.connection_id;
  await page.getByText('Configure Portal SAML').waitFor();
  // Its default attribute mapping is saved with the connection (the IdP's values come later).
  const configured = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await configured).status(), 200);
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Portal SAML').waitFor();

  // Rename it from its details screen.
  await page.getByText('Portal SAML').click();
  await page.getByText('Display Name', { exact: true }).waitFor();
  // Three sections have an Edit button; Details, with the display name, is the last.
  await page.getByRole('button', { name: 'Edit', exact: true }).last().click();
  const nameInput = page.getByRole('textbox').first();
  assert.equal(await nameInput.inputValue(), 'Portal SAML');
  await nameInput.fill('Portal SAML Renamed');
  const renamed = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await renamed).status(), 200);
  await page.getByRole('heading', { name: 'Portal SAML Renamed' }).waitFor();

  const { saml_connections: saml } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.deepEqual(saml.map((c) => c.display_name).sort(), ['Existing Okta', 'Portal SAML Renamed']);
  w.assertClean();
});

h.test('admin portal Member Management: list members, invite one, change a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Members');
  const orgId = org.organization_id;
  const plainEmail = uniqueEmail('portal-plain');
  const plain = await h.createMember(orgId, plainEmail, 'Plain Member');
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('cell', { name: plainEmail, exact: true }).waitFor();

  // Invite a new member by email.
  const invitee = uniqueEmail('portal-invitee');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.getByPlaceholder('Enter name').fill('Invited Person');
  await page.getByPlaceholder('Enter email address').fill(invitee);
  const invited = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/magic_links/email/invite'));
  await page.getByRole('dialog').getByRole('button', { name: 'Invite', exact: true }).click();
  assert.equal((await invited).status(), 200);
  await page.getByText(`Invite sent to ${invitee}`).waitFor();
  await page.getByRole('cell', { name: invitee, exact: true }).waitFor();
  const mail = await h.waitForMail(invitee);
  assert.ok(mail.links.some((l) => l.includes('stytch_token_type=multi_tenant_magic_links')), JSON.stringify(mail.links));

  // Make the plain member an admin from their details screen.
  await page.getByRole('cell', { name: plainEmail, exact: true }).click();
  await page.getByRole('heading', { name: 'Plain Member' }).waitFor();
  // Details and Access each have an Edit button; Access is the second.
  await page.getByRole('button', { name: 'Edit', exact: true }).nth(1).click();
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  await page.getByRole('dialog').getByRole('combobox').click();
  await page.getByRole('option', { name: /^stytch_admin/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Add Role' }).click();
  const updated = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/${plain.member_id}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await updated).status(), 200);
  await page.getByRole('cell', { name: 'stytch_admin', exact: true }).waitFor();
  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(plain.member_id)}`);
  assert.deepEqual(member.roles.map((r) => r.role_id).sort(), ['stytch_admin', 'stytch_member']);
  w.assertClean();
});

h.test('admin portal Org Settings: view and rename the organization', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Settings');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await page.getByText(org.organization_slug, { exact: true }).waitFor();
  // admin_portal_config's mfa_controls_enabled shows the MFA controls.
  await page.getByText('Secondary authentication').waitFor();

  // Details, the first section, holds the name.
  await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
  const nameInput = page.getByRole('textbox').first();
  assert.equal(await nameInput.inputValue(), 'Portal Settings');
  await nameInput.fill('Portal Settings Renamed');
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await updated).status(), 200);
  await page.getByText('Portal Settings Renamed', { exact: true }).waitFor();
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${org.organization_id}`);
  assert.equal(organization.organization_name, 'Portal Settings Renamed');
  w.assertClean();
});

h.test('admin portal SCIM: create a connection and see its token', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM');
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Set up a SCIM connection to sync from an IdP.').waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByText('Create SCIM Connection').waitFor();
  await page.getByText('Select', { exact: true }).click();
  await page.getByText('Okta', { exact: true }).click();
  await page.getByPlaceholder('Display name').fill('Portal Okta SCIM');
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const res = await created;
  assert.equal(res.status(), 200);
  const { connection } = (await res.json()).data;
  assert.match(connection.bearer_token ?? '', /\S{20,}/);

  // The token is shown once, on the configure screen, and it is the one the SCIM service accepts.
  await page.getByText('Configure Portal Okta SCIM').waitFor();
  await page.getByText('Copy the SCIM Connection Settings to your IdP.').click();
  await page.getByText('HTTP Header Authorization: Bearer').waitFor();
  await page.getByText(connection.bearer_token, { exact: true }).waitFor();
  await page.getByText(connection.base_url, { exact: true }).first().waitFor();
  const spc = await fetch(`${h.apiBase}${new URL(connection.base_url).pathname}/ServiceProviderConfig`, {
    headers: { authorization: `Bearer ${connection.bearer_token}` }, signal: AbortSignal.timeout(5000),
  });
  assert.equal(spc.status, 200);
  await page.getByText('I have copied the above values to my IdP.').click();
  await page.getByRole('button', { name: 'Done' }).click();
  // Afterwards only the last four characters are shown (from GET b2b/scim's bearer_token_last_four).
  await page.getByText('Portal Okta SCIM', { exact: true }).waitFor();
  await page.getByText(new RegExp(`^\\*+${connection.bearer_token.slice(-4)}$`)).waitFor();
  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${org.organization_id}/connection`);
  assert.equal(stored.connection_id, connection.connection_id);
  assert.equal(stored.identity_provider, 'okta');
  w.assertClean();
});

/** Logs `email` into `orgId` through the backend API (emailed code); returns the session token. */
async function backendLogIn(orgId, email) {
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await h.api('POST', '/v1/b2b/otps/email/login_or_signup', { organization_id: orgId, email_address: email });
  const code = codeOf(await h.waitForMail(email, { exclude: seen }));
  const r = await h.api('POST', '/v1/b2b/otps/email/authenticate', {
    organization_id: orgId, email_address: email, code, session_duration_minutes: 60,
  });
  return r.session_token;
}

/** The member's live sessions, as the backend lists them. */
async function sessionsOf(orgId, memberId) {
  const q = new URLSearchParams({ organization_id: orgId, member_id: memberId });
  return (await h.api('GET', `/v1/b2b/sessions?${q}`)).member_sessions;
}

h.test('admin portal Member Management: revoke a member\'s sessions, deactivate the member', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Member Offboarding');
  const orgId = org.organization_id;
  const leaverEmail = uniqueEmail('portal-leaver');
  const leaver = await h.createMember(orgId, leaverEmail, 'Leaving Member');
  const token = await backendLogIn(orgId, leaverEmail);
  assert.equal((await sessionsOf(orgId, leaver.member_id)).length, 1);
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();

  // Revoke all their sessions from their details screen.
  await page.getByRole('cell', { name: leaverEmail, exact: true }).click();
  await page.getByRole('heading', { name: 'Leaving Member' }).waitFor();
  await page.getByRole('button', { name: 'Revoke all sessions' }).click();
  const revoked = page.waitForResponse((r) => r.url().includes('/sdk/v1/b2b/sessions/revoke'));
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke all sessions' }).click();
  assert.equal((await revoked).status(), 200);
  await waitUntil(async () => (await sessionsOf(orgId, leaver.member_id)).length === 0, { what: 'sessions revoked' });
  await assert.rejects(h.authenticateSession(token), (e) => e.status === 404, 'the revoked session no longer authenticates');

  // Deactivate them from the list's row menu.
  await openPortal(page, 'members');
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: leaverEmail, exact: true }) });
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Deactivate' }).click();
  await page.getByRole('dialog').getByText('Deactivate Member?').waitFor();
  const deleted = page.waitForResponse((r) =>
    r.url().includes(`/sdk/v1/b2b/organizations/members/${leaver.member_id}`) && r.request().method() === 'DELETE');
  await page.getByRole('dialog').getByRole('button', { name: 'Deactivate Member' }).click();
  assert.equal((await deleted).status(), 200);
  // The list the portal asks for after the delete holds active and invited members only.
  await row.waitFor({ state: 'detached' });
  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(leaver.member_id)}`);
  assert.equal(member.status, 'deleted');
  w.assertClean();
});

h.test('admin portal Org Settings: require MFA for all members', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal MFA Policy');
  assert.equal(org.mfa_policy, 'OPTIONAL');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  // Three sections have an Edit button (Details, Authentication settings, Automatic Role
  // assignments); the MFA policy is in Authentication settings, the second.
  await page.getByRole('button', { name: 'Edit', exact: true }).nth(1).click();
  await page.getByRole('checkbox', { name: 'Enable Require MFA for all users' }).check();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  const res = await updated;
  assert.equal(res.status(), 200);
  assert.equal(JSON.parse(res.request().postData()).mfa_policy, 'REQUIRED_FOR_ALL');
  // Back in the read-only view, the switch offers to turn the policy off.
  await page.getByRole('checkbox', { name: 'Disable Require MFA for all users' }).waitFor({ state: 'attached' });
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${org.organization_id}`);
  assert.equal(organization.mfa_policy, 'REQUIRED_FOR_ALL');
  w.assertClean();
});

h.test('admin portal SSO: set a connection as the default', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO Default');
  const orgId = org.organization_id;
  await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'First IdP', identity_provider: 'okta' });
  const { connection: second } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Second IdP', identity_provider: 'generic' });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  const row = page.getByRole('row').filter({ has: page.getByText('Second IdP', { exact: true }) });
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Set as default' }).click();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('dialog').getByRole('button', { name: 'Set as default' }).click();
  assert.equal((await updated).status(), 200);
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.sso_default_connection_id, second.connection_id);
  w.assertClean();
});

/** The status the SCIM service answers for `bearer` on the connection at `baseUrl`. */
async function scimStatus(baseUrl, bearer) {
  const r = await fetch(`${h.apiBase}${new URL(baseUrl).pathname}/ServiceProviderConfig`, {
    headers: { authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(5000),
  });
  return r.status;
}

h.test('admin portal SCIM: rotate the token', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Rotation');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Rotating SCIM', identity_provider: 'okta' });
  const oldToken = connection.bearer_token;
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Token Rotation', { exact: true }).waitFor();

  const started = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim/rotate/start'));
  await page.getByRole('button', { name: 'Start token rotation' }).click();
  const res = await started;
  assert.equal(res.status(), 200);
  const newToken = (await res.json()).data.connection.next_bearer_token;
  assert.match(newToken ?? '', /\S{20,}/);
  const dialog = page.getByRole('dialog');
  await dialog.getByText(newToken, { exact: true }).waitFor();
  await dialog.getByText('I have copied the token to my IdP.').click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  // While the rotation is open, both tokens are accepted.
  assert.equal(await scimStatus(connection.base_url, oldToken), 200);
  assert.equal(await scimStatus(connection.base_url, newToken), 200);

  await page.getByRole('button', { name: 'Complete rotation' }).click();
  const completed = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim/rotate/complete'));
  await page.getByRole('dialog').getByRole('button', { name: 'Complete rotation' }).click();
  assert.equal((await completed).status(), 200);
  await page.getByRole('button', { name: 'Start token rotation' }).waitFor();
  assert.equal(await scimStatus(connection.base_url, oldToken), 401);
  assert.equal(await scimStatus(connection.base_url, newToken), 200);
  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.equal(stored.bearer_token_last_four, newToken.slice(-4));
  w.assertClean();
});

h.test('admin portal SSO: create an OIDC connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal OIDC');
  const orgId = org.organization_id;
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill('Portal OIDC');
  await page.getByText('Select', { exact: true }).click();
  await page.getByText('Custom OIDC', { exact: true }).click();
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sso/oidc') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await created).status(), 200);
  const connectionId = (await (await created).json()).data.connection.connection_id;
  await page.getByText('Configure Portal OIDC').waitFor();
  // The IdP's values: dev mode's built-in OpenID provider, whose discovery the server reads (its
  // issuer is under the server's base URL, which names localhost).
  await page.getByText('Enter the following from your IdP.').click();
  const issuer = `http://localhost:${h.port}/dev/oidc`;
  await page.getByPlaceholder('Enter Client ID').fill('dev-oidc-client');
  await page.getByPlaceholder('Enter Client Secret').fill('dev-oidc-secret');
  await page.getByPlaceholder('Enter Issuer').fill(issuer);
  const configured = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/oidc/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await configured).status(), 200);
  assert.equal((await (await configured).json()).data.warning, '', 'the discovery document was read');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Portal OIDC', { exact: true }).waitFor();

  const { oidc_connections: oidc } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.equal(oidc.length, 1);
  assert.equal(oidc[0].connection_id, connectionId);
  assert.equal(oidc[0].display_name, 'Portal OIDC');
  assert.equal(oidc[0].client_id, 'dev-oidc-client');
  assert.equal(oidc[0].issuer, issuer);
  // The endpoints came from the issuer's discovery document; the secret is never sent back.
  assert.equal(oidc[0].token_url, `${issuer}/token`);
  assert.equal(oidc[0].client_secret, '');
  assert.equal(oidc[0].status, 'active');
  w.assertClean();
});

/**
 * Dev mode's built-in SAML identity provider (on the server's own base URL, which names localhost):
 * its metadata URL, entity id, sign-on URL and signing certificate (PEM, read from its metadata).
 */
async function devSamlIdp() {
  const metadataUrl = `${h.base}/dev/saml/metadata`;
  const res = await fetch(`${h.apiBase}/dev/saml/metadata`, { signal: AbortSignal.timeout(5000) });
  assert.equal(res.status, 200);
  const xml = await res.text();
  const b64 = /<(?:ds:)?X509Certificate[^>]*>([^<]+)</.exec(xml)?.[1].replace(/\s+/g, '');
  assert.ok(b64, `a certificate in the dev IdP's metadata:\n${xml}`);
  const lines = b64.match(/.{1,64}/g).join('\n');
  return {
    metadataUrl, entityId: metadataUrl, ssoUrl: `${h.base}/dev/saml/sso`,
    certificate: `-----BEGIN CERTIFICATE-----\n${lines}\n-----END CERTIFICATE-----\n`, certificateBase64: b64,
  };
}

/** The body of a PEM certificate, without armour or whitespace, to compare certificates. */
const pemBody = (pem) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

/** The Edit button of the settings section titled `title` (each section has its own). */
function sectionEdit(page, title) {
  return page.getByRole('heading', { name: title, exact: true }).locator('xpath=..')
    .getByRole('button', { name: 'Edit', exact: true });
}

/** Saves the section being edited: its Save button, then the confirmation dialog's. */
async function saveSection(page) {
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Save changes' }).click();
}

/** The SAML connection `connectionId` of the organization, as the backend returns it. */
async function samlConnectionOf(orgId, connectionId) {
  const { saml_connections: saml } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  const c = saml.find((x) => x.connection_id === connectionId);
  assert.ok(c, `connection ${connectionId} among ${JSON.stringify(saml)}`);
  return c;
}

h.test('admin portal SSO: enter a SAML connection\'s IdP values by hand (sign-on URL, entity id, certificate)', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SAML Manual');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Manual IdP', identity_provider: 'generic' });
  assert.equal(connection.status, 'pending');
  const idp = await devSamlIdp();
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Manual IdP', { exact: true }).click();
  await page.getByRole('heading', { name: 'Manual IdP' }).waitFor();

  await sectionEdit(page, 'Details').click();
  await page.getByRole('button', { name: 'Configure manually' }).click();
  await page.getByPlaceholder('Enter IdP Sign-on URL').fill(idp.ssoUrl);
  await page.getByPlaceholder('Enter IdP Entity ID').fill(idp.entityId);
  // The attribute mapping has an "Add new" button too; the certificates' is in their own list item.
  await page.locator('dt', { hasText: 'x509 Certificate (PEM Format)' }).locator('xpath=following-sibling::dd[1]')
    .getByRole('button', { name: 'Add new' }).click();
  const addCert = page.getByRole('dialog');
  await addCert.getByPlaceholder('Enter certificate').fill(idp.certificate);
  await addCert.getByRole('button', { name: 'Ok' }).click();
  await addCert.waitFor({ state: 'detached' });
  await page.getByText('Pending', { exact: true }).first().waitFor();
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  const sent = JSON.parse(res.request().postData());
  assert.equal(sent.idp_sso_url, idp.ssoUrl);
  assert.equal(sent.idp_entity_id, idp.entityId);
  // Back in the read-only view: the values and the certificate's issuer (from our answer).
  await page.getByText(idp.ssoUrl, { exact: true }).waitFor();
  await page.getByText('Latchkey dev SAML IdP', { exact: false }).first().waitFor();
  await page.getByRole('button', { name: 'Test connection' }).waitFor();

  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.equal(stored.idp_sso_url, idp.ssoUrl);
  assert.equal(stored.idp_entity_id, idp.entityId);
  assert.equal(stored.verification_certificates.length, 1);
  assert.equal(pemBody(stored.verification_certificates[0].certificate), idp.certificateBase64);
  assert.equal(stored.status, 'active');
  w.assertClean();
});

h.test('admin portal SSO: configure a new SAML connection from the IdP\'s metadata URL', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SAML Metadata');
  const orgId = org.organization_id;
  const idp = await devSamlIdp();
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill('Metadata SAML');
  await page.getByText('Select', { exact: true }).click();
  await page.getByText('Custom SAML', { exact: true }).click();
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sso/saml') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await created).status(), 200);
  const connectionId = (await (await created).json()).data.connection.connection_id;
  await page.getByText('Configure Metadata SAML').waitFor();
  await page.getByText('Enter the following from your IdP.').click();
  await page.getByPlaceholder('Enter Metadata URL').fill(idp.metadataUrl);
  const byUrl = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}/url`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  const res = await byUrl;
  assert.equal(res.status(), 200);
  assert.equal(JSON.parse(res.request().postData()).metadata_url, idp.metadataUrl);
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Metadata SAML', { exact: true }).waitFor();

  // The server read the metadata: the sign-on URL, the entity id and the signing certificate.
  const stored = await samlConnectionOf(orgId, connectionId);
  assert.equal(stored.idp_entity_id, idp.entityId);
  assert.equal(stored.idp_sso_url, idp.ssoUrl);
  assert.deepEqual(stored.verification_certificates.map((c) => pemBody(c.certificate)), [idp.certificateBase64]);
  assert.equal(stored.status, 'active');
  w.assertClean();
});

/**
 * Picks `name` in the list a combobox opened: an Autocomplete lists options, the portal's Select
 * lists menu items.
 */
async function pickOption(page, combobox, name, role = 'option') {
  await combobox.click();
  await page.getByRole(role, { name: new RegExp(`^${name}`) }).click();
}

/** Picks `name` in the portal's Select `combobox`. */
const pickMenuItem = (page, combobox, name) => pickOption(page, combobox, name, 'menuitem');

h.test('admin portal SSO: a SAML connection\'s role assignments (connection roles and group roles)', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Roles IdP', identity_provider: 'generic' });
  // Group roles need the attribute the IdP sends groups in.
  await h.api('PUT', `/v1/b2b/sso/saml/${orgId}/connections/${connection.connection_id}`, {
    attribute_mapping: { email: 'NameID', groups: 'groups' },
  });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Roles IdP', { exact: true }).click();
  await page.getByRole('heading', { name: 'Roles IdP' }).waitFor();

  await sectionEdit(page, 'Role assignments').click();
  // The first combobox is the connection roles'; "Add group roles" adds a group name and its roles.
  await pickOption(page, page.getByRole('combobox').first(), 'stytch_admin');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Add group roles' }).click();
  await page.getByLabel('Group name').fill('engineering');
  await pickOption(page, page.getByLabel('Group Role'), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  assert.deepEqual(JSON.parse(res.request().postData()).saml_connection_implicit_role_assignments, [{ role_id: 'stytch_admin' }]);
  // The read-only view shows the group from our answer.
  await page.getByRole('cell', { name: 'engineering', exact: true }).waitFor();

  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.deepEqual(stored.saml_connection_implicit_role_assignments.map((a) => a.role_id), ['stytch_admin']);
  assert.deepEqual(stored.saml_group_implicit_role_assignments.map(({ group, role_id }) => ({ group, role_id })),
    [{ group: 'engineering', role_id: 'stytch_admin' }]);
  w.assertClean();
});

h.test('admin portal Org Settings: assign a role by email domain and to an SSO connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Org Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Org Roles IdP', identity_provider: 'generic' });
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await page.getByText('No role assignments.').waitFor();

  await sectionEdit(page, 'Automatic Role assignments').click();
  // By email domain.
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  let dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(0), 'stytch_admin');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(1), 'Email');
  await dialog.getByLabel('Domain').fill('portal-roles.test');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  // To everyone who logs in through the SSO connection.
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(0), 'stytch_admin');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(1), 'SSO');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(2), 'Org Roles IdP');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });

  const orgUpdated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  const ssoUpdated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await orgUpdated).status(), 200);
  assert.equal((await ssoUpdated).status(), 200);
  await page.getByRole('button', { name: 'Add Role assignment' }).waitFor({ state: 'detached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.deepEqual(organization.rbac_email_implicit_role_assignments.map(({ domain, role_id }) => ({ domain, role_id })),
    [{ domain: 'portal-roles.test', role_id: 'stytch_admin' }]);
  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.deepEqual(stored.saml_connection_implicit_role_assignments.map((a) => a.role_id), ['stytch_admin']);
  assert.deepEqual(stored.saml_group_implicit_role_assignments, []);
  w.assertClean();
});

h.test('admin portal Member Management: reactivate a deactivated member', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Member Return');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-returner');
  const returner = await h.createMember(orgId, email, 'Returning Member');
  // Only a member whose email was verified can be reactivated: a login verifies it.
  await backendLogIn(orgId, email);
  await h.api('DELETE', `/v1/b2b/organizations/${orgId}/members/${returner.member_id}`);
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();

  // The list holds active and invited members until the status filter asks for deactivated ones too.
  await page.getByRole('columnheader', { name: /Status/ }).getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Deactivated' }).click();
  await page.keyboard.press('Escape');
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: email, exact: true }) });
  await row.getByRole('cell', { name: 'Deactivated', exact: true }).waitFor();
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Reactivate' }).click();
  await page.getByRole('dialog').getByText('Reactivate Member?').waitFor();
  const reactivated = page.waitForResponse((r) => r.url().includes(`/sdk/v1/b2b/organizations/members/${returner.member_id}/reactivate`));
  await page.getByRole('dialog').getByRole('button', { name: 'Reactivate', exact: true }).click();
  assert.equal((await reactivated).status(), 200);
  await row.getByRole('cell', { name: 'Active', exact: true }).waitFor();

  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(returner.member_id)}`);
  assert.equal(member.status, 'active');
  assert.equal(member.email_address, email);
  // They can log in again.
  assert.ok(await backendLogIn(orgId, email));
  w.assertClean();
});

h.test('admin portal SCIM: delete the connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Delete');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Doomed SCIM', identity_provider: 'okta' });
  assert.equal(await scimStatus(connection.base_url, connection.bearer_token), 200);
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Doomed SCIM', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete Connection' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Delete SCIM connection?').waitFor();
  const deleted = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/scim/${connection.connection_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Delete connection' }).click();
  assert.equal((await deleted).status(), 200);
  // Back to the empty state, which offers a new connection.
  await page.getByText('Set up a SCIM connection to sync from an IdP.').waitFor();

  const after = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.equal(after.connection ?? null, null, JSON.stringify(after));
  assert.equal(await scimStatus(connection.base_url, connection.bearer_token), 401);
  w.assertClean();
});

h.test('admin portal Org Settings: restrict the allowed primary and secondary auth methods', async ({ page }) => {
  const { org, email } = await adminOrg(page, 'Portal Auth Methods');
  const orgId = org.organization_id;
  assert.equal(org.auth_methods, 'ALL_ALLOWED');
  assert.equal(org.mfa_methods, 'ALL_ALLOWED');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await sectionEdit(page, 'Authentication settings').click();
  // Off with "all allowed": each method gets a checkbox, none ticked.
  await page.getByRole('checkbox', { name: 'Disable Allow all primary auth methods' }).uncheck();
  await page.getByRole('checkbox', { name: 'Email OTP' }).check();
  await page.getByRole('checkbox', { name: 'Single Sign-On' }).check();
  await page.getByRole('checkbox', { name: 'Disable Allow all secondary auth methods' }).uncheck();
  await page.getByRole('checkbox', { name: 'TOTP' }).check();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  const sent = JSON.parse(res.request().postData());
  assert.equal(sent.auth_methods, 'RESTRICTED');
  assert.equal(sent.mfa_methods, 'RESTRICTED');
  // Back in the read-only view, the switches offer to allow everything again.
  await page.getByRole('checkbox', { name: 'Enable Allow all primary auth methods' }).waitFor({ state: 'attached' });
  await page.getByRole('checkbox', { name: 'Enable Allow all secondary auth methods' }).waitFor({ state: 'attached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.auth_methods, 'RESTRICTED');
  assert.deepEqual(organization.allowed_auth_methods.slice().sort(), ['email_otp', 'sso']);
  assert.equal(organization.mfa_methods, 'RESTRICTED');
  assert.deepEqual(organization.allowed_mfa_methods, ['totp']);
  // The restriction holds: an emailed link no longer logs the member in (it asks for an allowed
  // primary method), an emailed code still does.
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await h.api('POST', '/v1/b2b/magic_links/email/login_or_signup', { organization_id: orgId, email_address: email });
  const link = (await h.waitForMail(email, { exclude: seen })).links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  const byLink = await h.api('POST', '/v1/b2b/magic_links/authenticate', {
    magic_links_token: new URL(link).searchParams.get('token'), session_duration_minutes: 60,
  });
  assert.equal(byLink.member_authenticated, false);
  assert.equal(byLink.session_token, '');
  assert.deepEqual(byLink.primary_required.allowed_auth_methods.slice().sort(), ['email_otp', 'sso']);
  assert.ok(await backendLogIn(orgId, email));
  w.assertClean();
});

h.test('admin portal Org Settings: onboarding by allowed email domain and by chosen SSO connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Onboarding');
  const orgId = org.organization_id;
  await h.api('PUT', `/v1/b2b/organizations/${orgId}`, { email_jit_provisioning: 'NOT_ALLOWED' });
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'JIT IdP', identity_provider: 'generic' });
  const domain = `onboard-${Date.now().toString(36)}.test`;
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await sectionEdit(page, 'User onboarding').click();
  // Invites only to the allowed domains, and members of those domains join by themselves.
  await page.getByRole('radio', { name: 'Users from allowed email domains' }).check();
  await page.getByRole('checkbox', { name: 'Email domains' }).check();
  await page.getByRole('button', { name: 'Add domain' }).click();
  let dialog = page.getByRole('dialog');
  await dialog.getByPlaceholder('Enter domain').fill(domain);
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  // SSO logins join only through the chosen connection.
  await page.getByRole('radio', { name: 'Allowed SSO connections' }).check();
  await page.getByRole('button', { name: 'Select connection' }).click();
  dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox'), 'JIT IdP');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByText(domain, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Add domain' }).waitFor({ state: 'detached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.email_invites, 'RESTRICTED');
  assert.equal(organization.email_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.email_allowed_domains, [domain]);
  assert.equal(organization.sso_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.sso_jit_provisioning_allowed_connections, [connection.connection_id]);
  // The restriction holds: an invitation outside the domain is refused, one inside is sent.
  await assert.rejects(
    h.api('POST', '/v1/b2b/magic_links/email/invite', { organization_id: orgId, email_address: uniqueEmail('outsider') }),
    (e) => e.status === 403 || e.status === 400,
  );
  const insider = uniqueEmail('insider', domain);
  const invited = await h.api('POST', '/v1/b2b/magic_links/email/invite', { organization_id: orgId, email_address: insider });
  assert.equal(invited.member.status, 'invited');
  w.assertClean();
});

/** Whether the backend logs `email` in with `password` (false: refused). */
async function passwordWorks(orgId, email, password) {
  try {
    await h.api('POST', '/v1/b2b/passwords/authenticate', { organization_id: orgId, email_address: email, password });
    return true;
  } catch (e) {
    if (e.status >= 400 && e.status < 500) return false;
    throw e;
  }
}

h.test('admin portal Member Management: reset a member\'s password and email them a reset link', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Password Reset');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-pw');
  const password = 'correct horse battery staple 42';
  // A member with a password, brought in through the backend's migrate (a PBKDF2 hash).
  const salt = randomBytes(16);
  const { member: pwMember } = await h.api('POST', '/v1/b2b/passwords/migrate', {
    email_address: email, organization_id: orgId, name: 'Password Member', hash_type: 'pbkdf_2',
    hash: pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64'),
    pbkdf_2_config: { salt: salt.toString('base64'), iteration_amount: 1000, key_length: 32, algorithm: 'sha256' },
  });
  assert.ok(pwMember.member_password_id);
  assert.equal(await passwordWorks(orgId, email, password), true);
  const seen = (await h.mailbox(email)).map((m) => m.id);
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('cell', { name: email, exact: true }).click();
  await page.getByRole('heading', { name: 'Password Member' }).waitFor();

  await page.getByRole('button', { name: 'Reset password' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Ask Member to reset their password?').waitFor();
  await dialog.getByRole('checkbox', { name: 'Trigger password reset email' }).check();
  const deleted = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/passwords/${pwMember.member_password_id}`) && r.request().method() === 'DELETE');
  const started = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/passwords/email/reset/start'));
  await dialog.getByRole('button', { name: 'Reset password' }).click();
  assert.equal((await deleted).status(), 200);
  assert.equal((await started).status(), 200);
  await dialog.waitFor({ state: 'detached' });

  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(pwMember.member_id)}`);
  assert.equal(member.member_password_id, '');
  assert.equal(await passwordWorks(orgId, email, password), false);
  // The portal deletes the password before it asks for the reset, so the member has none by then:
  // the email verifies the address with a login link that goes on to setting a password, on the
  // project's default redirect URL.
  const mail = await h.waitForMail(email, { exclude: seen });
  const found = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(found, JSON.stringify(mail.links));
  const link = new URL(found);
  assert.equal(`${link.origin}${link.pathname}`, h.pageUrl);
  assert.equal(link.searchParams.get('stytch_redirect_type'), 'reset_password');
  w.assertClean();
});

h.test('admin portal SCIM: give a SCIM group a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Roles SCIM', identity_provider: 'okta' });
  // The identity provider pushes a group (the portal offers only groups it knows).
  const pushed = await fetch(`${h.apiBase}${new URL(connection.base_url).pathname}/Groups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${connection.bearer_token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Admins Group', members: [] }),
    signal: AbortSignal.timeout(5000),
  });
  assert.equal(pushed.status, 201);
  const group = await pushed.json();
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Roles SCIM', { exact: true }).waitFor();
  await sectionEdit(page, 'Role Assignments').click();
  await page.getByRole('button', { name: 'Add group roles' }).click();
  await pickMenuItem(page, page.getByRole('combobox').first(), 'Admins Group');
  await pickOption(page, page.getByLabel('Group Role'), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/scim/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByText('Admins Group', { exact: true }).waitFor();

  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.deepEqual(stored.scim_group_implicit_role_assignments.map(({ group_id, role_id }) => ({ group_id, role_id })),
    [{ group_id: group.id, role_id: 'stytch_admin' }]);
  w.assertClean();
});

h.test('admin portal SSO: add an external connection to another organization\'s SAML connection, give it a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal External');
  const orgId = org.organization_id;
  // The source: another organization of the project with an active SAML connection.
  const idp = await devSamlIdp();
  const source = await h.createOrg({ name: 'Portal Source', slug: `portal-source-${Date.now().toString(36)}` });
  const { connection: pending } = await h.api('POST', `/v1/b2b/sso/saml/${source.organization_id}`, { display_name: 'Source IdP', identity_provider: 'generic' });
  const { connection: sourceConn } = await h.api('PUT', `/v1/b2b/sso/saml/${source.organization_id}/connections/${pending.connection_id}`, {
    idp_entity_id: idp.entityId, idp_sso_url: idp.ssoUrl, x509_certificate: idp.certificate, attribute_mapping: { email: 'NameID' },
  });
  assert.equal(sourceConn.status, 'active');
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill('Partner SSO');
  await page.getByRole('button', { name: 'Add an external connection' }).click();
  await page.getByLabel('Source Organization ID').fill(source.organization_id);
  await page.getByLabel('Source Connection ID').fill(sourceConn.connection_id);
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sso/external') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  const res = await created;
  assert.equal(res.status(), 200);
  const connectionId = (await res.json()).data.connection.connection_id;
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();

  // Its details show the source, and its connection roles can be set.
  await page.getByText('Partner SSO', { exact: true }).click();
  await page.getByRole('heading', { name: 'Partner SSO' }).waitFor();
  await page.getByText(source.organization_id, { exact: true }).waitFor();
  await sectionEdit(page, 'Role assignments').click();
  await pickOption(page, page.getByRole('combobox').first(), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/external/${connectionId}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor({ state: 'detached' });

  const { external_connections: ext } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.equal(ext.length, 1);
  assert.equal(ext[0].connection_id, connectionId);
  assert.equal(ext[0].display_name, 'Partner SSO');
  assert.equal(ext[0].external_organization_id, source.organization_id);
  assert.equal(ext[0].external_connection_id, sourceConn.connection_id);
  assert.equal(ext[0].status, 'active');
  assert.deepEqual(ext[0].external_connection_implicit_role_assignments, [{ role_id: 'stytch_admin' }]);
  w.assertClean();
});
