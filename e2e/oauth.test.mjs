// OAuth in a real browser against a provider nobody on this team wrote: the npm `oidc-provider`
// package (pinned in package.json), run on loopback, plays Google (OpenID Connect: discovery, JWKS,
// PKCE, nonce, claims from userinfo). The person signs in on oidc-provider's own login and consent
// pages. (GitHub, Slack and HubSpot are covered in Go against loopback servers of their APIs.)
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import Provider from 'oidc-provider';
import { useHarness, TEXT, BIN, cookieValue, uniqueEmail } from './harness.mjs';

const execFileP = promisify(execFile);
const h = useHarness();

// People at the provider: account id -> claims. `hd` makes a Google Workspace account.
const people = new Map();
const person = (id, claims) => (people.set(id, { sub: id, email_verified: true, ...claims }), id);

let google; // {issuer, close}

/** Starts oidc-provider on a free loopback port with the Latchkey callback registered. */
async function startProvider(clients) {
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients,
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => people.get(id) ?? { sub: id } }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'hd'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
  });
  server.on('request', provider.callback());
  return { issuer, provider, server, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

async function latchkey(...args) {
  try {
    return await execFileP(BIN, args, { env: h.env, cwd: h.tmp, timeout: 20_000 });
  } catch (e) {
    throw new Error(`latchkey ${args.join(' ')}: ${e.message}\n${e.stderr}`);
  }
}

const callback = () => `${h.base}/v1/b2b/public/oauth/callback`;

async function setup() {
  if (google) return;
  google = await startProvider([{ client_id: 'e2e-google', client_secret: 'google-secret', redirect_uris: [callback()] }]);
  await latchkey('project', 'oauth', '--project', h.project.project_id, '--provider', 'google',
    '--client-id', 'e2e-google', '--client-secret', 'google-secret', '--issuer', google.issuer);

}

after(async () => {
  await google?.close();
});

/** Signs in at oidc-provider's own pages (login, then consent when asked). */
async function signInAtProvider(page, accountId) {
  await page.locator('input[name=login]').waitFor();
  await page.locator('input[name=login]').fill(accountId);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.origin === h.pageOrigin || u.pathname.startsWith('/interaction/'));
  if (new URL(page.url()).pathname.startsWith('/interaction/')) await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.origin === h.pageOrigin);
}

h.test('Google login in the organization flow: an existing member, a single-use token, a session', async ({ page, context }) => {
  await setup();
  const org = await h.createOrg({ name: 'Goog Org', slug: 'goog-org', jit: 'NOT_ALLOWED' });
  const email = uniqueEmail('ada', 'goog.test');
  await h.createMember(org.organization_id, email);
  const id = person(`g-${email}`, { email, name: 'Ada' });
  h.pageDefaults = { slug: 'goog-org', products: 'oauth', oauth: 'google' };

  await page.goto(h.pageUrlWith({ slug: 'goog-org', products: 'oauth', oauth: 'google' }));
  await page.getByRole('button', { name: TEXT.continueWith('Google') }).click();
  await signInAtProvider(page, id);
  await page.getByText(TEXT.loggedIn).waitFor();
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('token'), null, { timeout: 5000 });

  const s = await h.authenticateSession(await cookieValue(context, h.pageOrigin, 'stytch_session'));
  assert.equal(s.member.email_address, email);
  const factor = s.member_session.authentication_factors[0];
  assert.equal(factor.delivery_method, 'oauth_google');
  assert.equal(factor.google_oauth_factor.provider_subject, id);
  assert.equal(s.member.oauth_registrations[0].provider_type, 'google');
});

h.test('discovery OAuth: a Google Workspace account finds the organization its domain may join', async ({ page, context }) => {
  await setup();
  await h.createOrg({ name: 'Workspace Co', slug: 'workspace-co', jit: 'NOT_ALLOWED',
    extra: { oauth_tenant_jit_provisioning: 'RESTRICTED', allowed_oauth_tenants: { google: ['workspace.test'] } } });
  const email = uniqueEmail('wanda', 'contractor.test');
  const id = person(`g-${email}`, { email, name: 'Wanda', hd: 'workspace.test' });
  h.pageDefaults = { flow: 'Discovery', products: 'oauth', oauth: 'google' };

  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'oauth', oauth: 'google' }));
  await page.getByRole('button', { name: TEXT.continueWith('Google') }).click();
  await signInAtProvider(page, id);
  await page.getByText('Workspace Co').waitFor();
  await page.getByRole('button', { name: new RegExp(TEXT.join) }).first().click();
  await page.getByText(TEXT.loggedIn).waitFor();
  const s = await h.authenticateSession(await cookieValue(context, h.pageOrigin, 'stytch_session'));
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_slug, 'workspace-co');
});

h.test('refusals: a forged state and an unregistered redirect URL get catalogue errors and no session', async () => {
  await setup();
  const org = await h.createOrg({ name: 'Refusals', slug: 'refusals', jit: 'ALL_ALLOWED' });
  let res = await fetch(`${h.apiBase}/v1/b2b/public/oauth/callback?code=x&state=forged`, { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error_type, 'oauth_flow_callback_error');
  const q = new URLSearchParams({ public_token: h.project.public_token, organization_id: org.organization_id,
    login_redirect_url: 'https://evil.test/steal' });
  res = await fetch(`${h.apiBase}/v1/b2b/public/oauth/google/start?${q}`, { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error_type, 'redirect_url_not_registered');
});
