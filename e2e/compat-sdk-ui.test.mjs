// Compatibility: the public @stytch/vanilla-js B2B UI (a client we did not write) logs people in
// against our real binary. A failure here is a wire-format bug in our server, not in the test.
//
// The SDK page is served by the harness's page server (another origin than the API), so every SDK
// call is a real cross-origin request with CORS, as on a customer's site. The IIFE build is served
// unchanged from node_modules; the internal `endpoints` option (api-reference 6.3 (a)) points it at
// our server instead of the vendor's hosts, so nothing leaves the machine.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { useHarness, TEXT, cookieValue, codeOf, uniqueEmail } from './harness.mjs';
import { shapeErrors } from './sdk-types.mjs';

const SDK_JS = readFileSync(
  fileURLToPath(new URL('./node_modules/@stytch/vanilla-js/dist/iife/b2b/index.js', import.meta.url)),
  'utf8',
);

// Texts of the vendor UI (6.3.0), verbatim.
const SDK_TEXT = {
  signUpOrLogIn: 'Sign up or log in',
  continueWithEmail: 'Continue with email',
  checkEmail: 'Check your email',
  selectOrg: 'Select an organization to continue',
  success: TEXT.loggedIn, // "You have successfully logged in." is the same sentence in both UIs
  enterCode: 'Enter passcode',
};

/** The customer page: the vendor UI mounted with a config chosen by query parameters. */
function sdkPage(h, url) {
  const q = url.searchParams;
  const cfg = JSON.stringify({
    publicToken: h.project?.public_token ?? '',
    apiBase: h.base,
    pageUrl: `${h.pageOrigin}/sdk`,
    flow: q.get('flow') || 'Discovery',
    slug: q.get('slug') || '',
    products: (q.get('products') || 'emailMagicLinks').split(','),
  }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Vendor SDK page</title></head>
<body>
<div id="root"></div>
<pre id="session">no session</pre>
<pre id="events"></pre>
<script type="application/json" id="cfg">${cfg}</script>
<script src="/vendor/stytch-b2b.js"></script>
<script>
(function () {
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  var client = new stytch.StytchB2BClient(cfg.publicToken, {
    endpoints: { testAPIURL: cfg.apiBase, liveAPIURL: cfg.apiBase },
  });
  window.client = client;
  var out = document.getElementById('session');
  client.session.onChange(function (s) {
    out.textContent = s ? JSON.stringify({ member_session_id: s.member_session_id, member_id: s.member_id,
      organization_id: s.organization_id }) : 'no session';
  });
  var events = document.getElementById('events');
  var config = {
    products: cfg.products.map(function (p) { return stytch.B2BProducts[p]; }),
    authFlowType: cfg.flow,
    sessionOptions: { sessionDurationMinutes: 60 },
    emailMagicLinksOptions: {
      discoveryRedirectURL: cfg.pageUrl, loginRedirectURL: cfg.pageUrl, signupRedirectURL: cfg.pageUrl,
    },
  };
  if (cfg.slug) config.organizationSlug = cfg.slug;
  var props = {
    elementId: '#root',
    client: client,
    config: config,
    callbacks: {
      onEvent: function (e) { events.textContent += e.type + '\\n'; },
      onError: function (e) { events.textContent += 'error ' + JSON.stringify(e) + '\\n'; },
    },
  };
  // 6.3.0 renders nothing on the first mount call (api-reference 6.4); the second one renders.
  stytch.mount(props);
  stytch.mount(props);
})();
</script>
</body>
</html>
`;
}

const h = useHarness({
  routes: {
    '/sdk': sdkPage,
    '/vendor/stytch-b2b.js': () => ({ type: 'text/javascript; charset=utf-8', body: SDK_JS }),
    '/favicon.ico': () => ({ status: 204, type: 'image/x-icon', body: '' }),
  },
  redirectPaths: ['/sdk'],
});

// The SDK face answers with a subset of the backend face's payloads: exactly the fields the browser
// SDK declares (internal/apptest/sdk_wire.json, generated from this package's .d.ts files), minus
// what Latchkey withholds from browsers. The Node client's declarations give those fields' types;
// a field they require is excused only when the browser SDK does not get it, and a field beyond
// the allowlist is an error.
const WIRE = JSON.parse(
  readFileSync(fileURLToPath(new URL('../internal/apptest/sdk_wire.json', import.meta.url)), 'utf8'),
).routes;

/** The allowlist node for a path like 'member.roles[0].role_id' under a route's fields (undefined: not allowed). */
function wireNode(fields, where) {
  let node = fields;
  for (const key of where.replace(/\[\d+\]/g, '').split('.').filter(Boolean)) {
    if (node === true) return true;
    if (!node || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Paths of `value` that the allowlist `shape` does not have. */
function extraFields(shape, value, at = '') {
  if (shape === true || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => extraFields(shape, v, `${at}[${i}]`));
  return Object.entries(value).flatMap(([k, v]) =>
    k in shape ? extraFields(shape[k], v, `${at}.${k}`) : [`${at}.${k}`.slice(1)],
  );
}

/** Node-client shape errors of an SDK answer, less the fields the browser never gets, plus extra fields. */
function sdkShapeErrors(route, data, type) {
  const fields = WIRE[route].fields;
  const typeErrs = shapeErrors(data, type).filter((e) => {
    const m = /^[^.]+\.(\S+): required by .* but missing$/.exec(e);
    return !m || wireNode(fields, m[1]) !== undefined;
  });
  return [...typeErrs, ...extraFields(fields, data).map((f) => `${f}: not in the SDK wire allowlist`)];
}

const SHAPES = {
  '/b2b/magic_links/discovery/authenticate': 'B2BMagicLinksDiscoveryAuthenticateResponse',
  '/b2b/discovery/intermediate_sessions/exchange': 'B2BDiscoveryIntermediateSessionsExchangeResponse',
  '/b2b/otps/email/authenticate': 'B2BOTPEmailAuthenticateResponse',
  '/b2b/sessions/authenticate': 'B2BSessionsAuthenticateResponse',
  '/b2b/sessions/revoke': 'B2BSessionsRevokeResponse',
};

/**
 * Watches a page for what would betray a wire-format mismatch that the UI tolerates silently: the
 * SDK logs (console.error) when it cannot map a response such as the bootstrap, any API answer
 * that is not 2xx, and any request to a host other than our two loopback servers.
 */
function watchPage(page) {
  const w = { foreign: [], errors: [], failed: [], api: [] };
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol !== 'data:' && u.hostname !== 'localhost') w.foreign.push(r.url());
  });
  page.on('console', (m) => m.type() === 'error' && w.errors.push(m.text()));
  page.on('pageerror', (e) => w.errors.push(e.message));
  const bodies = [];
  page.on('response', (r) => {
    const u = new URL(r.url());
    if (!u.pathname.startsWith('/sdk/v1/')) return;
    w.api.push(`${r.request().method()} ${u.pathname}`);
    if (r.status() >= 300 && r.request().method() !== 'OPTIONS') w.failed.push(`${r.status()} ${u.pathname}`);
    const type = r.status() === 200 && SHAPES[u.pathname.slice('/sdk/v1'.length)];
    const route = `${r.request().method()} ${u.pathname}`;
    if (type) bodies.push(r.json().then((b) => ({ type, route, data: b.data })));
  });
  w.assertClean = async () => {
    assert.deepEqual(w.foreign, [], 'no request left our loopback servers');
    assert.deepEqual(w.errors, [], 'the SDK logged no error');
    assert.deepEqual(w.failed, [], 'every SDK call succeeded');
    for (const { type, route, data } of await Promise.all(bodies)) {
      assert.deepEqual(sdkShapeErrors(route, data, type), [], `SDK-face data as the browser SDK declares ${type}`);
    }
  };
  return w;
}

/** The SDK's own view of its session, read in the page. */
function sdkSession(page) {
  return page.evaluate(() => {
    const s = window.client.session.getSync();
    return s && { member_session_id: s.member_session_id, expires_at: s.expires_at };
  });
}

/** Server-side proof that a browser session cookie is a live session of `email` in `org`. */
async function assertLiveSession(context, email, org) {
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  const jwt = await cookieValue(context, h.pageOrigin, 'stytch_session_jwt');
  assert.ok(token, 'stytch_session cookie is set');
  assert.ok(jwt, 'stytch_session_jwt cookie is set');
  const s = await h.authenticateSession(token);
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.match(s.member_session.member_session_id, /^member-session-test-/);
  const byJWT = await h.api('POST', '/v1/b2b/sessions/authenticate', { session_jwt: jwt });
  assert.equal(byJWT.member_session.member_session_id, s.member_session.member_session_id);
  return s;
}

h.test('vendor UI: discovery login by emailed link through to a logged-in session', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Vendor Discovery Co', slug: 'vendor-discovery' });
  const email = uniqueEmail('vendor-disc');
  const member = await h.createMember(org.organization_id, email, 'Vendor Discovery Member');
  const watch = watchPage(page);

  await page.goto(`${h.pageOrigin}/sdk`);
  await page.getByText(SDK_TEXT.signUpOrLogIn).waitFor();
  await page.getByRole('textbox').first().fill(email);
  await page.getByRole('button', { name: SDK_TEXT.continueWithEmail }).click();
  await page.getByText(SDK_TEXT.checkEmail).first().waitFor();

  const mail = await h.waitForMail(email);
  const link = mail.links.find((l) => l.includes('stytch_token_type=discovery'));
  assert.ok(link, `no discovery link in ${JSON.stringify(mail.links)}`);
  const u = new URL(link);
  assert.equal(`${u.origin}${u.pathname}`, `${h.pageOrigin}/sdk`, 'the link lands on the discovery redirect URL');

  await page.goto(link);
  // The discovered organization list, then the pick.
  await page.getByText(SDK_TEXT.selectOrg).waitFor();
  const orgButton = page.getByRole('button', { name: /Vendor Discovery Co/ });
  await orgButton.waitFor();
  assert.ok(await cookieValue(context, h.pageOrigin, 'stytch_intermediate_session_token'), 'IST cookie written');
  await orgButton.click();
  await page.getByText(SDK_TEXT.success).waitFor();

  const s = await assertLiveSession(context, email, org);
  assert.equal(s.member.member_id, member.member_id, 'the existing member logged in, none was created');
  assert.equal(await cookieValue(context, h.pageOrigin, 'stytch_intermediate_session_token'), undefined,
    'the IST cookie is gone once the session exists');
  await page.locator('#session').filter({ hasText: s.member_session.member_session_id }).waitFor();
  // The cookies expire with the session (the SDK takes member_session.expires_at from our answer).
  const cookie = (await context.cookies(h.pageOrigin)).find((c) => c.name === 'stytch_session');
  assert.ok(Math.abs(cookie.expires * 1000 - Date.parse(s.member_session.expires_at)) < 2000,
    `cookie expiry ${cookie.expires} vs session ${s.member_session.expires_at}`);
  // Discovery went through the calls of api-reference 6.5, in order.
  assert.deepEqual(watch.api.filter((c) => c.startsWith('POST') && !c.endsWith('/events')), [
    'POST /sdk/v1/b2b/magic_links/email/discovery/send',
    'POST /sdk/v1/b2b/magic_links/discovery/authenticate',
    'POST /sdk/v1/b2b/discovery/intermediate_sessions/exchange',
  ]);

  const sessionToken = await cookieValue(context, h.pageOrigin, 'stytch_session');
  // A reload: with a session cookie the SDK refreshes at startup (Basic public_token:session_token);
  // a 2xx without member_session would log the person out locally, an error type too.
  const refreshed = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sessions/authenticate'));
  await page.reload();
  assert.equal((await refreshed).status(), 200);
  await page.waitForFunction(() => window.client.session.getSync() !== null);
  assert.equal((await sdkSession(page)).member_session_id, s.member_session.member_session_id);

  // Logging out through the SDK ends the session on the server and clears the cookies.
  const revoked = await page.evaluate(async () => (await window.client.session.revoke()).status_code);
  assert.equal(revoked, 200);
  assert.equal(await cookieValue(context, h.pageOrigin, 'stytch_session'), undefined);
  await assert.rejects(h.authenticateSession(sessionToken), (e) => e.status === 404 && /session_not_found/.test(e.body));
  await watch.assertClean();
});

h.test('vendor UI: organization login by emailed code', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Vendor Code Co', slug: 'vendor-code' });
  const email = uniqueEmail('vendor-otp');
  const member = await h.createMember(org.organization_id, email, 'Vendor Code Member');
  const watch = watchPage(page);

  await page.goto(`${h.pageOrigin}/sdk?flow=Organization&slug=vendor-code&products=emailOtp`);
  await page.getByText(TEXT.continueTo('Vendor Code Co')).waitFor();
  await page.getByRole('textbox').first().fill(email);
  await page.getByRole('button', { name: SDK_TEXT.continueWithEmail }).click();

  const code = codeOf(await h.waitForMail(email));
  await page.getByText(SDK_TEXT.enterCode).waitFor();
  // One box per digit; typing into the first moves focus along, and the sixth digit submits.
  await page.locator('#root input').first().click();
  await page.keyboard.type(code, { delay: 30 });
  await page.getByText(SDK_TEXT.success).waitFor();

  const s = await assertLiveSession(context, email, org);
  assert.equal(s.member.member_id, member.member_id);
  await page.locator('#session').filter({ hasText: s.member_session.member_session_id }).waitFor();
  assert.deepEqual(watch.api.filter((c) => c.startsWith('POST') && !c.endsWith('/events')), [
    'POST /sdk/v1/b2b/organizations/search',
    'POST /sdk/v1/b2b/otps/email/login_or_signup',
    'POST /sdk/v1/b2b/otps/email/authenticate',
  ]);
  await watch.assertClean();
});
