// Compatibility: the Admin Portal of the public @stytch/vanilla-js 6.3.0 (its SSO, Member
// Management, Organization Settings and SCIM components; code we did not write) administers an
// organization against our real binary, logged in as a stytch_admin member. The IIFE builds are
// served unchanged from node_modules on the harness's page server (another origin than the API), and
// the internal `endpoints` option points the client at our server (api-reference 6.3 (a)). Every
// request the portal makes is recorded: none may be refused as unknown (404, 405) or answered with
// an error the portal did not ask for. A failure here is a wire-format bug in our server.
import assert from 'node:assert/strict';
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
