// The harness, admin page and helpers of the Admin Portal compatibility tests
// (compat-admin-portal*.test.mjs): the Admin Portal of the public @stytch/vanilla-js 6.3.0 (its SSO,
// Member Management, Organization Settings and SCIM components; code we did not write) administers an
// organization against our real binary, logged in as a stytch_admin member. The IIFE builds are
// served unchanged from node_modules on the harness's page server (another origin than the API), and
// the internal `endpoints` option points the client at our server (api-reference 6.3 (a)). Every
// request the portal makes is recorded: none may be refused as unknown (404, 405) or answered with
// an error the portal did not ask for. A failure here is a wire-format bug in our server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useHarness, codeOf, uniqueEmail } from './harness.mjs';

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

export const h = useHarness({
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
export function watchPage(page) {
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
export async function logIn(page, orgId, email) {
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
export async function adminOrg(page, name) {
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
export async function openPortal(page, component) {
  await page.goto(`${h.pageOrigin}/admin?component=${component}`);
}

/** Opens Member Management and the details screen of the member `email`, titled `name`. */
export async function openMember(page, email, name) {
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('cell', { name: email, exact: true }).click();
  await page.getByRole('heading', { name }).waitFor();
}

/** Logs `email` into `orgId` through the backend API (emailed code); returns the session token. */
export async function backendLogIn(orgId, email) {
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await h.api('POST', '/v1/b2b/otps/email/login_or_signup', { organization_id: orgId, email_address: email });
  const code = codeOf(await h.waitForMail(email, { exclude: seen }));
  const r = await h.api('POST', '/v1/b2b/otps/email/authenticate', {
    organization_id: orgId, email_address: email, code, session_duration_minutes: 60,
  });
  return r.session_token;
}

/** The member's live sessions, as the backend lists them. */
export async function sessionsOf(orgId, memberId) {
  const q = new URLSearchParams({ organization_id: orgId, member_id: memberId });
  return (await h.api('GET', `/v1/b2b/sessions?${q}`)).member_sessions;
}

/** The status the SCIM service answers for `bearer` on the connection at `baseUrl`. */
export async function scimStatus(baseUrl, bearer) {
  const r = await fetch(`${h.apiBase}${new URL(baseUrl).pathname}/ServiceProviderConfig`, {
    headers: { authorization: `Bearer ${bearer}` }, signal: AbortSignal.timeout(5000),
  });
  return r.status;
}

/**
 * Dev mode's built-in SAML identity provider (on the server's own base URL, which names localhost):
 * its metadata URL, entity id, sign-on URL and signing certificate (PEM, read from its metadata).
 */
export async function devSamlIdp() {
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
export const pemBody = (pem) => pem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');

/** The Edit button of the settings section titled `title` (each section has its own). */
export function sectionEdit(page, title) {
  return page.getByRole('heading', { name: title, exact: true }).locator('xpath=..')
    .getByRole('button', { name: 'Edit', exact: true });
}

/** Saves the section being edited: its Save button, then the confirmation dialog's. */
export async function saveSection(page) {
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Save changes' }).click();
}

/** The SAML connection `connectionId` of the organization, as the backend returns it. */
export async function samlConnectionOf(orgId, connectionId) {
  const { saml_connections: saml } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  const c = saml.find((x) => x.connection_id === connectionId);
  assert.ok(c, `connection ${connectionId} among ${JSON.stringify(saml)}`);
  return c;
}

/**
 * Picks `name` in the list a combobox opened: an Autocomplete lists options, the portal's Select
 * lists menu items.
 */
export async function pickOption(page, combobox, name, role = 'option') {
  await combobox.click();
  await page.getByRole(role, { name: new RegExp(`^${name}`) }).click();
}

/**
 * Ticks the portal's `checkbox` inside an accordion panel `opened` by a click. It waits for the panel
 * to finish opening (MUI's Collapse marks that state), then ticks the box, and once more if the first
 * click did not hold: one CI run saw the vendor's controlled Preact checkbox stay unticked after a
 * click that Playwright reported done. A box that never ticks still fails the test.
 */
export async function tickInPanel(page, checkbox) {
  await page.locator('.MuiCollapse-entered').filter({ has: checkbox }).waitFor();
  try {
    await checkbox.check({ timeout: 5000 });
  } catch {
    await checkbox.check();
  }
}

/** Picks `name` in the portal's Select `combobox`. */
export const pickMenuItem = (page, combobox, name) => pickOption(page, combobox, name, 'menuitem');

/** Whether the backend logs `email` in with `password` (false: refused). */
export async function passwordWorks(orgId, email, password) {
  try {
    await h.api('POST', '/v1/b2b/passwords/authenticate', { organization_id: orgId, email_address: email, password });
    return true;
  } catch (e) {
    if (e.status >= 400 && e.status < 500) return false;
    throw e;
  }
}

/**
 * Creates a Custom SAML or OIDC connection named `name` from the SSO screen's list (kind 'SAML' or
 * 'OIDC') and returns its id, once the portal shows the connection's configuration page.
 */
export async function newConnection(page, name, kind) {
  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill(name);
  await page.getByText('Select', { exact: true }).click();
  await page.getByText(`Custom ${kind}`, { exact: true }).click();
  const path = `/sdk/v1/b2b/sso/${kind.toLowerCase()}`;
  const created = page.waitForResponse((r) => r.url().endsWith(path) && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await created).status(), 200);
  const connectionId = (await (await created).json()).data.connection.connection_id;
  await page.getByText(`Configure ${name}`).waitFor();
  return connectionId;
}
