// Enterprise SSO in a real browser against identity providers nobody on this team wrote:
//   - SAML: crewjam/saml's IdentityProvider, run as the small program e2e/samlidp (built here with
//     the Go toolchain, started on loopback, stopped by pid). It reads Latchkey's service-provider
//     metadata, shows a sign-in page where the test types who logs in, and posts a signed response.
//   - OpenID Connect: the npm `oidc-provider` package (pinned in package.json) on loopback, with its
//     own login and consent pages.
// Covered: a SAML and an OIDC login with JIT provisioning, the SSO discovery screens (email, slug
// fallback, connection menu), MFA after SSO, and refusals seen from the browser (tampered
// signature, wrong audience, replayed assertion, forged state, PKCE mismatch, unregistered redirect
// URL, an OIDC callback delivered to another browser), each a catalogue error with no session. internal/sso's Go tests cover the same refusals
// (and an expired assertion) at the HTTP level.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import Provider from 'oidc-provider';
import { useHarness, TEXT, BIN, AXE_PATH, cookieValue, enterCode, uniqueEmail, waitUntil } from './harness.mjs';
import { startSamlIdp } from './samlidp.mjs';
import { totpNow } from './totp.mjs';

const execFileP = promisify(execFile);
const h = useHarness();

// Texts of the SSO screens (the widget's strings tables; the two fallback errors are the spec's).
const SSO = {
  continueWithSSO: 'Continue with SSO',
  emailTitle: 'Log in with single sign-on',
  continue: 'Continue',
  fallbackTitle: (email) => `We couldn’t find a single sign-on connection for ${email}`,
  slugLabel: 'Organization slug',
  notFound: 'Organization not found. Please try again.',
  menuTitle: 'Select a connection to continue',
  failedPage: 'Single sign-on failed',
};

// --- the SAML identity provider (crewjam/saml, e2e/samlidp) ---------------------------------------

let samlIdp = null; // {base, entity_id, sso_url, certificate, setAudience, stop}

/** Signs in at the IdP's sign-in page; its response form then posts itself to Latchkey's ACS. */
async function signInAtSamlIdp(page, { email, nameId = '', given = '', surname = '' }) {
  await page.waitForURL((u) => u.href.startsWith(samlIdp.sso_url));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('User ID').fill(nameId);
  await page.getByLabel('First name').fill(given);
  await page.getByLabel('Last name').fill(surname);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

// --- the OpenID provider (oidc-provider) -----------------------------------------------------------

const people = new Map(); // account id -> claims
let oidc = null; // {issuer, server}
const oidcClients = [];

/**
 * Serves oidc-provider with every client registered so far. Each connection's redirect URL is
 * known only once the connection exists, so a new client means a new Provider on the same server
 * (same issuer; oidc-provider's development keys, so the same JWKS).
 */
async function serveOidcProvider() {
  if (!oidc) {
    const server = http.createServer();
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    oidc = { issuer: `http://127.0.0.1:${server.address().port}`, server };
  }
  const provider = new Provider(oidc.issuer, {
    clients: oidcClients.map((c) => ({ ...c })),
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => people.get(id) ?? { sub: id } }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
  });
  oidc.server.removeAllListeners('request');
  oidc.server.on('request', provider.callback());
}

async function signInAtOidcProvider(page, accountId) {
  await page.locator('input[name=login]').waitFor();
  await page.locator('input[name=login]').fill(accountId);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.origin === h.pageOrigin || u.pathname.startsWith('/interaction/'));
  if (new URL(page.url()).pathname.startsWith('/interaction/')) await page.locator('button[type=submit]').click();
}

// --- Latchkey set-up ----------------------------------------------------------------------------------

async function latchkey(...args) {
  try {
    return await execFileP(BIN, args, { env: h.env, cwd: h.tmp, timeout: 20_000 });
  } catch (e) {
    throw new Error(`latchkey ${args.join(' ')}: ${e.message}\n${e.stderr}`);
  }
}

/** An active SAML connection of `org` to the crewjam IdP. */
async function samlConnection(org, displayName) {
  const id = encodeURIComponent(org.organization_id);
  let r = await h.api('POST', `/v1/b2b/sso/saml/${id}`, { display_name: displayName, identity_provider: 'okta' });
  const connectionId = r.connection.connection_id;
  r = await h.api('PUT', `/v1/b2b/sso/saml/${id}/connections/${encodeURIComponent(connectionId)}`, {
    idp_entity_id: samlIdp.entity_id,
    idp_sso_url: samlIdp.sso_url,
    x509_certificate: samlIdp.certificate,
    attribute_mapping: { email: 'mail', first_name: 'givenName', last_name: 'sn' },
  });
  assert.equal(r.connection.status, 'active');
  return r.connection;
}

/** An active OIDC connection of `org` to oidc-provider. */
async function oidcConnection(org, displayName) {
  const id = encodeURIComponent(org.organization_id);
  let r = await h.api('POST', `/v1/b2b/sso/oidc/${id}`, { display_name: displayName, identity_provider: 'microsoft-entra' });
  const connection = r.connection;
  assert.equal(connection.status, 'pending');
  assert.ok(connection.redirect_url.startsWith(`${h.base}/`), connection.redirect_url);
  // The provider learns the connection's redirect URL, as an administrator registers it there.
  const client = { client_id: `e2e-${connection.connection_id}`, client_secret: 'oidc-secret', redirect_uris: [connection.redirect_url] };
  oidcClients.push(client);
  await serveOidcProvider();
  r = await h.api('PUT', `/v1/b2b/sso/oidc/${id}/connections/${encodeURIComponent(connection.connection_id)}`, {
    issuer: oidc.issuer,
    client_id: client.client_id,
    client_secret: client.client_secret,
  });
  assert.equal(r.connection.status, 'active');
  return r.connection;
}

before(async () => {
  samlIdp = await startSamlIdp();
  await h.ready();
  // The widget sends a PKCE challenge with every SSO start and the verifier with the token.
  await latchkey('project', 'update', '--project', h.project.project_id, '--pkce-sso', 'true');
}, { timeout: 200_000 });

after(async () => {
  await samlIdp?.stop();
  if (oidc) await new Promise((resolve) => (oidc.server.closeAllConnections(), oidc.server.close(resolve)));
});

// --- helpers --------------------------------------------------------------------------------------------

async function sessionOf(context) {
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  return h.authenticateSession(token);
}

async function assertNoSession(page, context) {
  assert.equal(await cookieValue(context, h.pageOrigin, 'stytch_session'), undefined);
  if (new URL(page.url()).origin === h.pageOrigin) assert.equal(await page.locator('#session').textContent(), 'no session');
}

/** The error page of a refused browser step names the catalogue error. */
async function assertFailedPage(page, errorType) {
  await page.getByRole('heading', { name: SSO.failedPage }).waitFor();
  assert.equal(await page.locator('[data-error-type]').getAttribute('data-error-type'), errorType);
}

const ssoPkceKey = () => `stytch_sdk_state_${h.project.public_token}::PKCE_VERIFIER:sso`;

async function assertAccessible(page, screen) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  const serious = result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target) }));
  assert.deepEqual(serious, [], `axe: ${screen}`);
}

// --- logins ----------------------------------------------------------------------------------------------

let samlOrg = null; // {org, connection} shared by the SAML tests

async function ensureSamlOrg() {
  if (samlOrg) return samlOrg;
  const org = await h.createOrg({ name: 'Saml Co', slug: 'saml-co', jit: 'NOT_ALLOWED' });
  samlOrg = { org, connection: await samlConnection(org, 'Saml Co Okta') };
  return samlOrg;
}

h.test('SAML login with JIT: the SSO button, the IdP, a new member with a registration, a session', async ({ page, context }) => {
  const { org, connection } = await ensureSamlOrg();
  const email = uniqueEmail('ada', 'saml-co.test');
  const nameId = `okta-${email}`;
  h.pageDefaults = { slug: 'saml-co', products: 'sso' };

  await page.goto(h.pageUrlWith({ slug: 'saml-co', products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Saml Co Okta') }).click();
  await signInAtSamlIdp(page, { email, nameId, given: 'Ada', surname: 'Lovelace' });
  await page.getByText(TEXT.loggedIn).waitFor();
  // The token left the address, and the PKCE pair its storage, once redeemed.
  assert.equal(new URL(page.url()).search, '');
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), ssoPkceKey()), null);
  const lastUsedKey = `stytch_sdk_state_${h.project.public_token}::b2b_last_used_method`;
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), lastUsedKey), `sso:${connection.connection_id}`);

  const s = await sessionOf(context);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.name, 'Ada Lovelace');
  assert.equal(s.member.sso_registrations.length, 1);
  assert.equal(s.member.sso_registrations[0].connection_id, connection.connection_id);
  assert.equal(s.member.sso_registrations[0].external_id, nameId);
  const factor = s.member_session.authentication_factors[0];
  assert.equal(factor.type, 'sso');
  assert.equal(factor.delivery_method, 'sso_saml');
});

h.test('OIDC login with JIT against oidc-provider', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Oidc Co', slug: 'oidc-co', jit: 'NOT_ALLOWED' });
  const connection = await oidcConnection(org, 'Oidc Co Entra');
  const email = uniqueEmail('lin', 'oidc-co.test');
  const account = `oidc-${email}`;
  people.set(account, { sub: account, email, email_verified: true, name: 'Lin Chen', given_name: 'Lin', family_name: 'Chen' });
  h.pageDefaults = { slug: 'oidc-co', products: 'sso' };

  await page.goto(h.pageUrlWith({ slug: 'oidc-co', products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Oidc Co Entra') }).click();
  await signInAtOidcProvider(page, account);
  await page.getByText(TEXT.loggedIn).waitFor();

  const s = await sessionOf(context);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.sso_registrations[0].connection_id, connection.connection_id);
  assert.equal(s.member.sso_registrations[0].external_id, account);
  assert.equal(s.member_session.authentication_factors[0].delivery_method, 'sso_oidc');
});

h.test('refusals: an OIDC callback delivered to another browser (login CSRF) is refused, and spent', async ({ page, context, newContext }) => {
  const org = await h.createOrg({ name: 'Oidc Csrf', slug: 'oidc-csrf', jit: 'NOT_ALLOWED' });
  await oidcConnection(org, 'Oidc Csrf Entra');
  const email = uniqueEmail('mallory', 'oidc-csrf.test');
  const account = `oidc-${email}`;
  people.set(account, { sub: account, email, email_verified: true, name: 'Mallory' });
  h.pageDefaults = { slug: 'oidc-csrf', products: 'sso' };
  // The attacker logs in at the provider as himself and keeps the URL the provider sends him back to,
  // instead of opening it. A route sees only the first request of a redirect chain, so the provider's
  // answers to the form posts are followed by hand (with this context's cookies) up to that URL.
  let callback = null;
  await page.route((u) => u.origin === oidc.issuer && u.pathname.startsWith('/interaction/'), async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    let res = await route.fetch({ maxRedirects: 0 });
    for (let location = res.headers().location; location; location = res.headers().location) {
      const next = new URL(location, oidc.issuer);
      if (next.pathname.startsWith('/v1/b2b/sso/callback/')) {
        callback = next.toString();
        return route.fulfill({ status: 200, contentType: 'text/plain', body: 'kept' });
      }
      if (next.pathname.startsWith('/interaction/')) return route.fulfill({ status: 303, headers: { location: next.toString() } });
      res = await context.request.get(next.toString(), { maxRedirects: 0 });
    }
    return route.fulfill({ response: res });
  });
  await page.goto(h.pageUrlWith({ slug: 'oidc-csrf', products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Oidc Csrf Entra') }).click();
  await page.locator('input[name=login]').waitFor();
  const bound = (await context.cookies(`${h.base}/v1/b2b/sso/callback/`)).find((c) => c.name === 'latchkey_sso_state');
  assert.ok(bound && bound.httpOnly && bound.sameSite === 'Lax', 'the start binds the browser');
  const login = page.url();
  await page.locator('input[name=login]').fill(account);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.toString() !== login);
  if (!callback) await page.locator('button[type=submit]').click(); // the provider's consent
  await waitUntil(async () => callback, { what: 'the provider\'s redirect to the callback' });
  assert.ok(callback.startsWith(`${h.base}/v1/b2b/sso/callback/`) && new URL(callback).searchParams.get('code'), callback);

  // The victim's browser opens it: an error page, no token, no session.
  const victimContext = await newContext();
  const victim = await victimContext.newPage();
  await victim.goto(callback);
  await assertFailedPage(victim, 'unsolicited_oidc_response');
  await assertNoSession(victim, victimContext);
  // The refused state is spent: the attacker's own browser cannot finish it either.
  await page.goto(callback);
  await assertFailedPage(page, 'unsolicited_oidc_response');
  await assertNoSession(page, context);
});

// --- SSO discovery ---------------------------------------------------------------------------------------

h.test('SSO discovery: an email with no connection, the slug fallback, then SAML', async ({ page, context }) => {
  const { org } = await ensureSamlOrg();
  const email = uniqueEmail('grace', 'nowhere.test');
  h.pageDefaults = { flow: 'Discovery', products: 'emailOtp,sso' };

  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'emailOtp,sso' }));
  await page.getByRole('button', { name: SSO.continueWithSSO }).click();
  await page.getByRole('heading', { name: SSO.emailTitle }).waitFor();
  await assertAccessible(page, 'SSO Discovery Email');
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: SSO.continue }).click();

  await page.getByRole('heading', { name: SSO.fallbackTitle(email) }).waitFor();
  await assertAccessible(page, 'SSO Discovery Fallback');
  await page.getByLabel(SSO.slugLabel).fill('no-such-organization');
  await page.getByRole('button', { name: SSO.continue }).click();
  await page.getByRole('alert').filter({ hasText: SSO.notFound }).waitFor();

  // The organization has exactly one active connection: SSO starts at once.
  await page.getByLabel(SSO.slugLabel).fill('saml-co');
  await page.getByRole('button', { name: SSO.continue }).click();
  await signInAtSamlIdp(page, { email, given: 'Grace' });
  await page.getByText(TEXT.loggedIn).waitFor();
  const s = await sessionOf(context);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member.email_address, email);
});

h.test('SSO discovery: an email domain with two connections shows the menu; one connection starts at once', async ({ page, context, newContext }) => {
  const org = await h.createOrg({ name: 'Two Ways', slug: 'two-ways', jit: 'NOT_ALLOWED', domains: ['two-ways.test'] });
  // A member with a proven address at the domain vouches for it (the anti-phishing rule).
  await h.createVerifiedMember(org.organization_id, uniqueEmail('vouch', 'two-ways.test'));
  await samlConnection(org, 'Two Ways Okta');
  await oidcConnection(org, 'Two Ways Entra');
  const email = uniqueEmail('kim', 'two-ways.test');
  const account = `oidc-${email}`;
  people.set(account, { sub: account, email, email_verified: true, name: 'Kim' });
  h.pageDefaults = { flow: 'Discovery', products: 'sso' };

  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'sso' }));
  await page.getByRole('button', { name: SSO.continueWithSSO }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: SSO.continue }).click();
  await page.getByRole('heading', { name: SSO.menuTitle }).waitFor();
  await assertAccessible(page, 'SSO Discovery Menu');
  assert.equal(await page.getByRole('button', { name: TEXT.continueWith('Two Ways Okta') }).count(), 1);
  await page.getByRole('button', { name: TEXT.continueWith('Two Ways Entra') }).click();
  await signInAtOidcProvider(page, account);
  await page.getByText(TEXT.loggedIn).waitFor();
  const s = await sessionOf(context);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member_session.authentication_factors[0].delivery_method, 'sso_oidc');

  // A member of Saml Co, whose only organization has one connection, skips the menu: SSO starts.
  const { org: samlCo, connection } = await ensureSamlOrg();
  const member = uniqueEmail('sam', 'elsewhere.test');
  await h.createMember(samlCo.organization_id, member);
  const other = await (await newContext()).newPage();
  await other.goto(h.pageUrlWith({ flow: 'Discovery', products: 'sso' }));
  await other.getByRole('button', { name: SSO.continueWithSSO }).click();
  await other.getByLabel('Email').fill(member);
  const started = other.waitForRequest((r) => r.url().includes('/v1/public/sso/start'));
  await other.getByRole('button', { name: SSO.continue }).click();
  assert.equal(new URL((await started).url()).searchParams.get('connection_id'), connection.connection_id);
  await signInAtSamlIdp(other, { email: member });
  await other.getByText(TEXT.loggedIn).waitFor();
});

// --- MFA after SSO ---------------------------------------------------------------------------------------

h.test('MFA after SSO: a SAML login in an organization that requires MFA enrolls an authenticator app', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Mfa Sso', slug: 'mfa-sso', jit: 'NOT_ALLOWED' });
  await h.api('PUT', `/v1/b2b/organizations/${encodeURIComponent(org.organization_id)}`, {
    mfa_policy: 'REQUIRED_FOR_ALL', mfa_methods: 'RESTRICTED', allowed_mfa_methods: ['totp'],
  });
  await samlConnection(org, 'Mfa Sso Okta');
  const email = uniqueEmail('mia', 'mfa-sso.test');
  h.pageDefaults = { slug: 'mfa-sso', products: 'sso' };

  await page.goto(h.pageUrlWith({ slug: 'mfa-sso', products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Mfa Sso Okta') }).click();
  await signInAtSamlIdp(page, { email });
  await page.getByRole('heading', { name: 'Scan the QR code to link your authenticator app' }).waitFor();
  await assertNoSession(page, context);
  await page.getByRole('button', { name: 'Can’t scan the QR code? Show the setup key' }).click();
  const secret = (await page.locator('.lk-secret').textContent()).replace(/\s/g, '');
  await page.getByRole('button', { name: 'Continue' }).click();
  await enterCode(page, totpNow(secret));
  await page.getByRole('heading', { name: 'Save your backup codes!' }).waitFor();
  await page.getByRole('button', { name: 'Done' }).click();
  await page.getByText(TEXT.loggedIn).waitFor();

  const s = await sessionOf(context);
  assert.equal(s.member.email_address, email);
  assert.deepEqual(
    s.member_session.authentication_factors.map((f) => `${f.type}/${f.delivery_method}`),
    ['sso/sso_saml', 'totp/authenticator_app'],
  );
});

// --- refusals seen from the browser ------------------------------------------------------------------------

/** Starts a SAML login from the widget and stops the IdP's response on its way to the ACS. */
async function interceptAcs(page, edit) {
  await page.route(/\/v1\/b2b\/sso\/callback\//, async (route) => {
    const form = new URLSearchParams(route.request().postData() ?? '');
    edit(form);
    await route.continue({ postData: form.toString() });
  });
}

async function startSamlLogin(page, email) {
  h.pageDefaults = { slug: 'saml-co', products: 'sso' };
  await page.goto(h.pageUrlWith({ slug: 'saml-co', products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Saml Co Okta') }).click();
  await signInAtSamlIdp(page, { email });
}

h.test('refusals: tampered signature, forged RelayState and wrong audience end on an error page with no session', async ({ page, context }) => {
  await ensureSamlOrg();
  const email = uniqueEmail('eve', 'saml-co.test');

  await interceptAcs(page, (form) => {
    const xml = Buffer.from(form.get('SAMLResponse'), 'base64').toString('utf8');
    const tampered = xml.replace(email, `x${email}`);
    assert.notEqual(tampered, xml, 'the assertion names the email');
    form.set('SAMLResponse', Buffer.from(tampered).toString('base64'));
  });
  await startSamlLogin(page, email);
  await assertFailedPage(page, 'invalid_signature_saml_response');
  await assertNoSession(page, context);
  await page.unroute(/\/v1\/b2b\/sso\/callback\//);

  await interceptAcs(page, (form) => form.set('RelayState', 'a-state-latchkey-never-issued'));
  await startSamlLogin(page, email);
  await assertFailedPage(page, 'unsolicited_saml_response');
  await assertNoSession(page, context);
  await page.unroute(/\/v1\/b2b\/sso\/callback\//);

  await samlIdp.setAudience('https://another-service-provider.test/metadata');
  try {
    await startSamlLogin(page, email);
    await assertFailedPage(page, 'invalid_audience_saml_response');
  } finally {
    await samlIdp.setAudience('');
  }
  await assertNoSession(page, context);
});

h.test('refusals: a replayed assertion, and a token redeemed with the wrong PKCE verifier', async ({ page, context }) => {
  await ensureSamlOrg();
  const email = uniqueEmail('mallory', 'saml-co.test');
  let acsPost = null;
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/v1/b2b/sso/callback/')) acsPost = { url: r.url(), body: r.postData() };
  });
  // The widget's verifier is swapped for another before the token comes back: the server refuses it.
  await page.route(/\/sdk\/v1\/b2b\/sso\/authenticate$/, async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    const body = JSON.parse(route.request().postData());
    assert.ok(body.pkce_code_verifier, 'the widget sends its verifier');
    await route.continue({ postData: JSON.stringify({ ...body, pkce_code_verifier: `${body.pkce_code_verifier}0` }) });
  });
  await startSamlLogin(page, email);
  await page.getByRole('heading', { name: TEXT.errorTitle }).waitFor();
  await assertNoSession(page, context);

  // The same assertion posted again is refused, from the browser as from anywhere.
  assert.ok(acsPost, 'the IdP posted to the ACS');
  const res = await fetch(acsPost.url.replace(h.base, h.apiBase), {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: acsPost.body,
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('x-latchkey-error-type'), 'duplicate_saml_response');
  assert.equal(res.headers.get('location'), null);
});

h.test('refusals: an unregistered redirect URL never reaches the IdP', async ({ page, context }) => {
  const { connection } = await ensureSamlOrg();
  // A well-formed start in every other respect (the project requires PKCE).
  const q = new URLSearchParams({ public_token: h.project.public_token, connection_id: connection.connection_id,
    pkce_code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', login_redirect_url: 'https://evil.test/steal' });
  await page.goto(`${h.base}/v1/public/sso/start?${q}`);
  await assertFailedPage(page, 'no_match_for_provided_sso_url');
  assert.ok(!page.url().startsWith(samlIdp.base));
  await assertNoSession(page, context);
});
