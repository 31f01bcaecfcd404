// Compatibility: the public @stytch/vanilla-js 6.3.0 B2B UI (a client we did not write) logs a member
// in by SSO against our real binary and a SAML identity provider we did not write either (crewjam/saml,
// e2e/samlidp). The vendor UI builds the start URL itself (with its PKCE challenge), and redeems the
// `sso` token from the page address with its verifier; in discovery it finds the connection by the
// email with our b2b/sso/discovery/connections. A failure here is a wire-format bug in our server. (compat-sdk-ui.test.mjs covers the vendor UI's email, discovery and MFA flows.)
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { useHarness, TEXT, BIN, cookieValue, uniqueEmail } from './harness.mjs';
import { startSamlIdp } from './samlidp.mjs';

const execFileP = promisify(execFile);

const SDK_JS = readFileSync(
  fileURLToPath(new URL('./node_modules/@stytch/vanilla-js/dist/iife/b2b/index.js', import.meta.url)),
  'utf8',
);

/** The customer page: the vendor UI with SSO, in the organization flow for the slug in the address, or discovery. */
function sdkPage(h, url) {
  const cfg = JSON.stringify({
    publicToken: h.project?.public_token ?? '',
    apiBase: h.base,
    pageUrl: `${h.pageOrigin}/sdk`,
    slug: url.searchParams.get('slug') || 'vendor-sso',
    flow: url.searchParams.get('flow') || 'Organization',
  }).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Vendor SDK page</title></head>
<body>
<div id="root"></div>
<pre id="events"></pre>
<script type="application/json" id="cfg">${cfg}</script>
<script src="/vendor/stytch-b2b.js"></script>
<script>
(function () {
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  var client = new stytch.StytchB2BClient(cfg.publicToken, {
    endpoints: { testAPIURL: cfg.apiBase, liveAPIURL: cfg.apiBase },
  });
  var events = document.getElementById('events');
  var props = {
    elementId: '#root',
    client: client,
    config: {
      products: [stytch.B2BProducts.sso],
      authFlowType: cfg.flow,
      organizationSlug: cfg.flow === 'Organization' ? cfg.slug : undefined,
      sessionOptions: { sessionDurationMinutes: 60 },
      ssoOptions: { loginRedirectURL: cfg.pageUrl, signupRedirectURL: cfg.pageUrl },
    },
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

let idp = null;

/** An organization with an active SAML connection to the crewjam IdP. */
async function samlOrg(name, slug, domains = []) {
  const org = await h.createOrg({ name, slug, jit: 'NOT_ALLOWED', domains });
  const id = encodeURIComponent(org.organization_id);
  let r = await h.api('POST', `/v1/b2b/sso/saml/${id}`, { display_name: `${name} Okta`, identity_provider: 'okta' });
  const connectionId = r.connection.connection_id;
  r = await h.api('PUT', `/v1/b2b/sso/saml/${id}/connections/${encodeURIComponent(connectionId)}`, {
    idp_entity_id: idp.entity_id, idp_sso_url: idp.sso_url, x509_certificate: idp.certificate,
    attribute_mapping: { email: 'mail', first_name: 'givenName', last_name: 'sn' },
  });
  assert.equal(r.connection.status, 'active');
  return { org, connectionId };
}

async function signInAtIdp(page, email, given = '') {
  await page.waitForURL((u) => u.href.startsWith(idp.sso_url));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('First name').fill(given);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

before(async () => {
  idp = await startSamlIdp();
  await h.ready();
  await execFileP(BIN, ['project', 'update', '--project', h.project.project_id, '--pkce-sso', 'true'],
    { env: h.env, cwd: h.tmp, timeout: 20_000 });
}, { timeout: 200_000 });

after(async () => {
  await idp?.stop();
});

h.test('vendor UI: SAML login with JIT through the organization\'s SSO button', async ({ page, context }) => {
  const { connectionId } = await samlOrg('Vendor Sso', 'vendor-sso');
  const email = uniqueEmail('vera', 'vendor-sso.test');

  await page.goto(`${h.pageOrigin}/sdk?slug=vendor-sso`);
  const start = page.waitForRequest((req) => req.url().includes('/v1/public/sso/start'));
  await page.getByRole('button', { name: 'Continue with Vendor Sso Okta' }).click();
  const q = new URL((await start).url()).searchParams;
  assert.equal(q.get('connection_id'), connectionId);
  assert.equal(q.get('public_token'), h.project.public_token);
  assert.match(q.get('pkce_code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/, 'the vendor UI sends its PKCE challenge');

  // Listening before the sign-in: its click can run the whole way back (the
  // IdP's post, our callback, the page, the vendor UI's authenticate) before
  // the next statement would start listening.
  const authenticate = page.waitForRequest((req) => req.url().endsWith('/sdk/v1/b2b/sso/authenticate') && req.method() === 'POST');
  await signInAtIdp(page, email, 'Vera');
  await page.getByText(TEXT.loggedIn).waitFor();
  const body = JSON.parse((await authenticate).postData());
  assert.ok(body.sso_token && body.pkce_code_verifier, `the vendor UI's authenticate body: ${JSON.stringify(Object.keys(body))}`);
  assert.match(await page.locator('#events').textContent(), /B2B_SSO_AUTHENTICATE/);

  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'the vendor UI stored the session');
  const s = await h.authenticateSession(token);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.sso_registrations[0].connection_id, connectionId);
  assert.equal(s.member_session.authentication_factors[0].delivery_method, 'sso_saml');
});

h.test('vendor UI: SSO discovery finds the connection by the email domain and logs in', async ({ page, context }) => {
  const { org, connectionId } = await samlOrg('Vendor Disco', 'vendor-disco', ['vendor-disco.test']);
  // A member with a proven address at the domain vouches for it (the anti-phishing rule).
  await h.createVerifiedMember(org.organization_id, uniqueEmail('vouch', 'vendor-disco.test'));
  const email = uniqueEmail('dora', 'vendor-disco.test');

  await page.goto(`${h.pageOrigin}/sdk?flow=Discovery`);
  // The vendor UI's own texts (6.3.0).
  await page.getByRole('button', { name: 'Use single sign-on' }).click();
  await page.getByText('Enter your email to continue').waitFor();
  const found = page.waitForResponse((res) => res.url().includes('/sdk/v1/b2b/sso/discovery/connections'));
  const start = page.waitForRequest((req) => req.url().includes('/v1/public/sso/start'));
  await page.locator('input[type=email]').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  assert.equal((await found).status(), 200);
  // One connection: the vendor UI starts SSO at once, with it.
  assert.equal(new URL((await start).url()).searchParams.get('connection_id'), connectionId);
  await signInAtIdp(page, email, 'Dora');
  await page.getByText(TEXT.loggedIn).waitFor();
  const s = await h.authenticateSession(await cookieValue(context, h.pageOrigin, 'stytch_session'));
  assert.equal(s.organization.organization_id, org.organization_id);
  assert.equal(s.member.email_address, email);
});
