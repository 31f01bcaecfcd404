// OAuth in a real browser against a provider nobody on this team wrote: the npm `oidc-provider`
// package (pinned in package.json), run on loopback, plays Google (OpenID Connect: discovery, JWKS,
// PKCE, nonce, claims from userinfo). The person signs in on oidc-provider's own login and consent
// pages. A second oidc-provider plays GitHub's OAuth 2.0 server (authorize and token, no OpenID
// Connect), beside a loopback server of GitHub's REST API (/user, /user/emails, /user/orgs) that
// answers for the access tokens that provider issued. Google One Tap gets an ID token signed with a
// key the Google provider publishes, handed to the widget by a stand-in of Google's GSI script.
// (Slack and HubSpot are covered in Go against loopback servers of their APIs.)
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { execFile } from 'node:child_process';
import { createSign, generateKeyPairSync } from 'node:crypto';
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
let github; // {issuer, close}
let githubAPI; // {url, close}

// The key the Google provider signs with, also used to sign One Tap ID tokens as Google would.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const googleJWK = { ...privateKey.export({ format: 'jwk' }), kid: 'e2e-google-key', use: 'sig', alg: 'RS256' };

/** Starts oidc-provider on a free loopback port with the Latchkey callback registered. */
async function startProvider(clients, extra = {}) {
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients,
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => people.get(id) ?? { sub: id } }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'hd'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
    ...extra,
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
  google = await startProvider([{ client_id: 'e2e-google', client_secret: 'google-secret', redirect_uris: [callback()] }],
    { jwks: { keys: [googleJWK] } });
  await latchkey('project', 'oauth', '--project', h.project.project_id, '--provider', 'google',
    '--client-id', 'e2e-google', '--client-secret', 'google-secret', '--issuer', google.issuer);
  github = await startProvider([{ client_id: 'e2e-github', client_secret: 'github-secret', redirect_uris: [callback()],
    token_endpoint_auth_method: 'client_secret_post' }], { scopes: ['openid', 'offline_access', 'read:user', 'user:email', 'read:org'] });
  githubAPI = await startGitHubAPI(github.provider);
  await latchkey('project', 'oauth', '--project', h.project.project_id, '--provider', 'github',
    '--client-id', 'e2e-github', '--client-secret', 'github-secret', '--authorize-url', `${github.issuer}/auth`,
    '--token-url', `${github.issuer}/token`, '--api-url', githubAPI.url);

}

after(async () => {
  await google?.close();
  await github?.close();
  await githubAPI?.close();
});

// GitHub people: account id -> {id, login, name, email, orgs: [{id, login}]}.
const githubPeople = new Map();

/**
 * GitHub's REST API for the access tokens the GitHub stand-in issued: the token is looked up in that
 * provider, as GitHub's API would, and an unknown token gets GitHub's 401.
 */
async function startGitHubAPI(provider) {
  const server = http.createServer(async (req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^(Bearer|token) /i, '');
    const at = token ? await provider.AccessToken.find(token) : undefined;
    const who = at && githubPeople.get(at.accountId);
    const send = (status, body) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (!who) return send(401, { message: 'Bad credentials' });
    switch (new URL(req.url, 'http://x').pathname) {
      case '/user':
        return send(200, { id: who.id, login: who.login, name: who.name, avatar_url: '' });
      case '/user/emails':
        return send(200, [{ email: who.email, primary: true, verified: true }]);
      case '/user/orgs':
        return send(200, who.orgs);
      default:
        return send(404, { message: 'Not Found' });
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** An ID token as Google would sign it for One Tap. */
function googleIDToken(claims) {
  const b64 = (v) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'RS256', kid: googleJWK.kid, typ: 'JWT' })}.${b64({ iss: google.issuer, aud: 'e2e-google',
    iat: now, exp: now + 300, email_verified: true, ...claims })}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url')}`;
}

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
  // Discovery offers an organization by a tenant only where it is vouched for there: this one
  // claims the Workspace's domain (its people log in by Google alone, so none proved an address).
  await h.createOrg({ name: 'Workspace Co', slug: 'workspace-co', jit: 'NOT_ALLOWED',
    extra: { oauth_tenant_jit_provisioning: 'RESTRICTED', allowed_oauth_tenants: { google: ['workspace.test'] },
      claimed_email_domains: ['workspace.test'] } });
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
  // Node reaches the server as 127.0.0.1: the start first moves to the base URL's host (localhost),
  // where the callback is and so where it binds the browser, and refuses there.
  res = await fetch(`${h.apiBase}/v1/b2b/public/oauth/google/start?${q}`, { redirect: 'manual' });
  assert.equal(res.status, 302);
  const moved = res.headers.get('location');
  assert.equal(moved, `${h.base}/v1/b2b/public/oauth/google/start?${q}&latchkey_callback_host=1`);
  res = await fetch(moved.replace(h.base, h.apiBase), { redirect: 'manual' });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error_type, 'no_match_for_provided_oauth_url');
});

h.test('GitHub login in the organization flow: a member joins by email JIT and the registration is kept', async ({ page, context }) => {
  await setup();
  await h.createOrg({ name: 'Hub Org', slug: 'hub-org', jit: 'RESTRICTED', domains: ['hub.test'] });
  const email = uniqueEmail('linus', 'hub.test');
  const accountId = `gh-${email}`;
  githubPeople.set(accountId, { id: 4242000 + githubPeople.size, login: 'linus', name: 'Linus', email,
    orgs: [{ id: 77, login: 'hub-org' }] });
  h.pageDefaults = { slug: 'hub-org', products: 'oauth', oauth: 'github' };

  await page.goto(h.pageUrlWith({ slug: 'hub-org', products: 'oauth', oauth: 'github' }));
  await page.getByRole('button', { name: TEXT.continueWith('GitHub') }).click();
  await signInAtProvider(page, accountId);
  await page.getByText(TEXT.loggedIn).waitFor();

  const s = await h.authenticateSession(await cookieValue(context, h.pageOrigin, 'stytch_session'));
  assert.equal(s.member.email_address, email);
  const factor = s.member_session.authentication_factors[0];
  assert.equal(factor.delivery_method, 'oauth_github');
  assert.equal(factor.github_oauth_factor.provider_subject, String(githubPeople.get(accountId).id));
  assert.deepEqual(factor.github_oauth_factor.provider_tenant_ids, ['77']);
  assert.equal(s.member.oauth_registrations[0].provider_type, 'github');
});

h.test('Google One Tap: the ID token from the prompt logs an existing member in', async ({ page, context }) => {
  await setup();
  const org = await h.createOrg({ name: 'Tap Org', slug: 'tap-org', jit: 'NOT_ALLOWED' });
  const email = uniqueEmail('grace', 'tap.test');
  await h.createMember(org.organization_id, email);
  const idToken = googleIDToken({ sub: `g-${email}`, email, name: 'Grace' });
  let clientId;
  await page.exposeFunction('gsiInitialized', (id) => { clientId = id; });
  // Google's GSI script, as far as the widget uses it: initialize, then prompt hands back a credential.
  await page.route('https://accounts.google.com/gsi/client', (route) => route.fulfill({ contentType: 'text/javascript',
    body: `window.google = { accounts: { id: {
      initialize: function (o) { window.__gsi = o; window.gsiInitialized(o.client_id); },
      prompt: function () { setTimeout(function () { window.__gsi.callback({ credential: ${JSON.stringify(idToken)} }); }, 50); },
    } } };` }));
  // The page the token lands on offers more than One Tap, so it is not "floating One Tap only" and
  // redeems the token.
  h.pageDefaults = { slug: 'tap-org', products: 'oauth,emailOtp', oauth: 'google', oneTap: 'true' };

  await page.goto(h.pageUrlWith({ slug: 'tap-org', products: 'oauth,emailOtp', oauth: 'google', oneTap: 'true' }));
  await page.getByText(TEXT.loggedIn).waitFor();
  assert.equal(clientId, 'e2e-google');
  const s = await h.authenticateSession(await cookieValue(context, h.pageOrigin, 'stytch_session'));
  assert.equal(s.member.email_address, email);
  assert.equal(s.member_session.authentication_factors[0].google_oauth_factor.provider_subject, `g-${email}`);
});
