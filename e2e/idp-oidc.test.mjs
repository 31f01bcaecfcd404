// Latchkey as an OpenID provider, driven end to end by an independent, certified relying-party
// library (openid-client 6, pinned test-only) against the real binary, with the consent and logout
// screens of the real widget in Chromium. The relying party validates everything itself: discovery,
// the authorization response (state, iss), the ID token against our JWKS (signature, iss, aud,
// nonce, at_hash), and the token, userinfo, introspection and revocation answers.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import * as oidc from 'openid-client';
import { useHarness, BIN, TEXT, enterCode, codeOf, uniqueEmail } from './harness.mjs';
import { idpAuthorizePage, rpPage } from './idppages.mjs';

const execFileP = promisify(execFile);


const h = useHarness({ routes: { '/authorize': idpAuthorizePage('oidc-corp'), '/rp/cb': rpPage('RP callback'), '/rp/bye': rpPage('RP signed out') } });

const TEXTS = {
  noSession: 'No active session detected. Please log in to continue.',
  allow: 'Allow',
  deny: 'Deny',
  denied: 'Access to the application was denied.',
  logoutTitle: 'Log out?',
  yes: 'Yes',
};

let org;
let email;
let setUp = false;

/** Once per file: the authorization page, an organization and a member. */
async function setup() {
  if (setUp) return;
  await execFileP(BIN, ['project', 'update', '--project', h.project.project_id, '--idp-authorization-url', `${h.pageOrigin}/authorize`], { env: h.env, cwd: h.tmp });
  org = await h.createOrg({ name: 'OIDC Corp', slug: 'oidc-corp' });
  email = uniqueEmail('oidc');
  await h.createMember(org.organization_id, email, 'Ada Oidc');
  setUp = true;
}

/** Logs the member (by default the file's) in through the login widget on the customer's page. */
async function logIn(page, who = email) {
  await page.goto(h.pageUrlWith({ slug: 'oidc-corp', products: 'emailOtp' }));
  await enterEmailOTP(page, who);
  await page.getByText(TEXT.loggedIn).waitFor();
}

/** The email OTP login in the login widget already on the page. */
async function enterEmailOTP(page, who) {
  const seen = (await h.mailbox(who)).map((m) => m.id);
  await page.locator('#email-input').fill(who);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await enterCode(page, codeOf(await h.waitForMail(who, { exclude: seen })));
}

/** Another member of the organization: email codes are limited per address (5 sends in 10 minutes). */
async function otherMember(name) {
  const who = uniqueEmail('oidc');
  await h.createMember(org.organization_id, who, name);
  return who;
}

async function newClient(type, extra = {}) {
  const r = await h.api('POST', '/v1/connected_apps/clients', {
    client_type: type, client_name: `RP ${type}`, redirect_urls: [`${h.pageOrigin}/rp/cb`],
    post_logout_redirect_urls: [`${h.pageOrigin}/rp/bye`], ...extra,
  });
  return r.connected_app;
}

async function discover(app) {
  const issuer = new URL(`${h.base}/v1/public/${h.project.project_id}`);
  return oidc.discovery(issuer, app.client_id, app.client_secret ? { client_secret: app.client_secret } : undefined,
    app.client_secret ? oidc.ClientSecretBasic(app.client_secret) : oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** Runs the browser part of an authorization: the consent screen, then back to the RP. */
async function authorize(page, config, { scope = 'openid email profile offline_access', choose = TEXTS.allow, redirect } = {}) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirect ?? `${h.pageOrigin}/rp/cb`, scope, state, nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  await page.goto(url.href);
  if (choose) {
    await page.getByRole('button', { name: choose }).click();
    await page.waitForURL((u) => u.pathname === '/rp/cb');
  }
  return { verifier, state, nonce, callback: () => new URL(page.url()) };
}

async function rejects(promise, error) {
  await assert.rejects(promise, (e) => {
    assert.equal(e.error ?? e.cause?.error, error, `${e.name}: ${e.message}`);
    return true;
  });
}

h.test('discovery, code flow with PKCE and consent, ID token, userinfo, refresh rotation and reuse, introspection, revocation, end-session', async ({ page, context }) => {
  await setup();
  const app = await newClient('third_party', { logo_url: `${h.pageOrigin}/logo.png` });
  const config = await discover(app);
  const meta = config.serverMetadata();
  assert.equal(meta.issuer, `${h.base}/v1/public/${h.project.project_id}`);
  assert.equal(meta.authorization_endpoint, `${h.pageOrigin}/authorize`);
  assert.deepEqual(meta.code_challenge_methods_supported, ['S256']);

  // Without a session the authorization page says so.
  await authorize(page, config, { choose: null });
  await page.getByText(TEXTS.noSession).waitFor();

  await logIn(page);
  const a = await authorize(page, config, { choose: null });
  await page.getByRole('heading', { name: 'RP third_party wants to access your E2E account' }).waitFor();
  await page.getByRole('img', { name: 'RP third_party logo' }).waitFor({ state: 'attached' });
  for (const text of ['View your email address', 'Stay signed in and access your account while you are away']) {
    await page.getByText(text).waitFor();
  }
  await page.getByRole('button', { name: TEXTS.allow }).click();
  await page.waitForURL((u) => u.pathname === '/rp/cb');

  const tokens = await oidc.authorizationCodeGrant(config, a.callback(), {
    pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce, idTokenExpected: true,
  });
  const claims = tokens.claims();
  assert.equal(claims.iss, meta.issuer);
  assert.equal(claims.aud, app.client_id);
  assert.equal(claims.email, email);
  assert.ok(tokens.refresh_token, 'offline_access gives a refresh token');

  const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
  assert.equal(info.email, email);
  assert.equal(info.name, 'Ada Oidc');

  const live = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(live.active, true);
  assert.equal(live.client_id, app.client_id);
  assert.equal(live['https://stytch.com/organization'].organization_id, org.organization_id);

  // Refresh rotation, then the spent refresh token again: the whole family is revoked.
  const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token);
  assert.notEqual(rotated.refresh_token, tokens.refresh_token);
  await rejects(oidc.refreshTokenGrant(config, tokens.refresh_token), 'invalid_grant');
  await rejects(oidc.refreshTokenGrant(config, rotated.refresh_token), 'invalid_grant');
  assert.equal((await oidc.tokenIntrospection(config, rotated.access_token)).active, false);

  // Revocation of a fresh grant's refresh token ends its access token too. (Consent is on record now.)
  const b = await authorize(page, config, { choose: null });
  await page.waitForURL((u) => u.pathname === '/rp/cb');
  const again = await oidc.authorizationCodeGrant(config, b.callback(), { pkceCodeVerifier: b.verifier, expectedState: b.state, expectedNonce: b.nonce });
  await oidc.tokenRevocation(config, again.refresh_token);
  assert.equal((await oidc.tokenIntrospection(config, again.access_token)).active, false);

  // RP-initiated logout through the widget's Logout screen.
  const bye = oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: `${h.pageOrigin}/rp/bye`, id_token_hint: again.id_token, state: 'bye-1' });
  const session = await context.cookies(h.pageOrigin).then((cs) => cs.find((c) => c.name === 'stytch_session')?.value);
  assert.ok(session);
  await page.goto(bye.href);
  // The hint names the logged-in member, so the provider logs out without asking.
  await page.waitForURL((u) => u.pathname === '/rp/bye');
  assert.equal(new URL(page.url()).searchParams.get('state'), 'bye-1');
  await assert.rejects(h.authenticateSession(session), 'the session is over after logout');
});

h.test('the Logout screen asks first and No keeps the session', async ({ page, context }) => {
  await setup();
  const app = await newClient('third_party');
  const config = await discover(app);
  await logIn(page);
  // No id_token_hint: the provider cannot tell who is asking, so the member confirms.
  const bye = oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: `${h.pageOrigin}/rp/bye`, client_id: app.client_id });
  await page.goto(bye.href);
  await page.getByRole('heading', { name: TEXTS.logoutTitle }).waitFor();
  await page.getByRole('button', { name: 'No' }).click();
  await page.getByText('You have not been logged out. You may close this page.').waitFor();
  const session = await context.cookies(h.pageOrigin).then((cs) => cs.find((c) => c.name === 'stytch_session')?.value);
  assert.ok((await h.authenticateSession(session)).member_session);
});

h.test("end-session by POST without a post_logout_redirect_uri: the member confirms and ends on the provider's logged-out page", async ({ page, context }) => {
  await setup();
  const app = await newClient('third_party');
  const config = await discover(app);
  await logIn(page, await otherMember('Ada Post'));
  const session = await context.cookies(h.pageOrigin).then((cs) => cs.find((c) => c.name === 'stytch_session')?.value);
  // The relying party posts a form (RP-Initiated Logout 2: GET and POST), naming only itself.
  await page.goto(`${h.pageOrigin}/rp/bye`);
  await page.evaluate(({ action, clientID }) => {
    const form = Object.assign(document.createElement('form'), { method: 'POST', action });
    form.append(Object.assign(document.createElement('input'), { type: 'hidden', name: 'client_id', value: clientID }));
    document.body.append(form);
    form.submit();
  }, { action: config.serverMetadata().end_session_endpoint, clientID: app.client_id });
  await page.getByRole('heading', { name: TEXTS.logoutTitle }).waitFor();
  // end_session named the provider's own page as the post_logout_redirect_uri, so the widget runs its
  // usual Logout flow and leaves for it.
  const loggedOut = `${config.serverMetadata().issuer}/oauth2/logged_out`;
  assert.equal(new URL(page.url()).searchParams.get('post_logout_redirect_uri'), loggedOut);
  await page.getByRole('button', { name: TEXTS.yes }).click();
  await page.waitForURL((u) => u.href === loggedOut);
  await page.getByText('You have been logged out. You may close this page.').waitFor();
  assert.equal(await page.locator('script').count(), 0, 'the logged-out page runs no script');
  await assert.rejects(h.authenticateSession(session), 'the session is over after logout');
});

h.test('max_age: a session older than it logs in again on the authorization page, and the authorization goes on', async ({ page }) => {
  await setup();
  const app = await newClient('first_party');
  const config = await discover(app);
  const who = await otherMember('Ada Again');
  await logIn(page, who);
  // Older than max_age (3 s) by the time the authorization starts.
  await new Promise((resolve) => setTimeout(resolve, 4000));
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: `${h.pageOrigin}/rp/cb`, scope: 'openid email', state, max_age: '3',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256',
  });
  await page.goto(url.href);
  // The preflight error (the server's error_message), and below it the way to log in again.
  await page.getByText('The member must log in again before authorizing this app.').waitFor();
  await page.getByRole('button', { name: 'Log in again' }).click();
  await page.getByText(TEXTS.noSession).waitFor();
  const before = Math.floor(Date.now() / 1000);
  // The page's login; the first-party app needs no consent, so the code goes back at once.
  await enterEmailOTP(page, who);
  await page.waitForURL((u) => u.pathname === '/rp/cb');
  const tokens = await oidc.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: verifier, expectedState: state });
  assert.ok(tokens.claims().auth_time >= before - 1, `auth_time ${tokens.claims().auth_time} is the new login (after ${before})`);
});

h.test('refusals: wrong redirect URI, public client without the PKCE verifier, a code used twice, Deny', async ({ page }) => {
  await setup();
  await logIn(page);
  const app = await newClient('third_party');
  const config = await discover(app);

  // A redirect URI that is not registered exactly: the page says so and nothing goes back.
  await authorize(page, config, { choose: null, redirect: `${h.pageOrigin}/rp/cb/` });
  await page.getByText('The redirect URI does not exactly match a URL registered for this connected app.').waitFor();

  // Deny: access_denied reaches the client.
  const d = await authorize(page, config, { choose: TEXTS.deny });
  await rejects(oidc.authorizationCodeGrant(config, d.callback(), { pkceCodeVerifier: d.verifier, expectedState: d.state }), 'access_denied');

  // A code used twice: the second exchange fails and revokes what the first produced.
  const c = await authorize(page, config);
  const firstUse = await oidc.authorizationCodeGrant(config, c.callback(), { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
  await rejects(oidc.authorizationCodeGrant(config, c.callback(), { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce }), 'invalid_grant');
  assert.equal((await oidc.tokenIntrospection(config, firstUse.access_token)).active, false);

  // A public client must prove possession of the PKCE verifier.
  const pub = await newClient('third_party_public');
  const pubConfig = await discover(pub);
  const p = await authorize(page, pubConfig);
  const code = p.callback().searchParams.get('code');
  const res = await fetch(pubConfig.serverMetadata().token_endpoint, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: `${h.pageOrigin}/rp/cb`, client_id: pub.client_id }),
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, 'invalid_grant');
  const ok = await oidc.authorizationCodeGrant(pubConfig, p.callback(), { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce });
  assert.ok(ok.id_token);
});

h.test('custom scopes of the RBAC policy: listed and blocked without the permission, granted with it, carried in the access token', async ({ page }) => {
  await setup();
  const policyFile = path.join(h.tmp, 'policy.json');
  await writeFile(policyFile, JSON.stringify({
    resources: [{ resource_id: 'documents', description: 'Documents', actions: ['read'] }],
    roles: [{ role_id: 'reader', description: 'Reads documents', permissions: [{ resource_id: 'documents', actions: ['read'] }] }],
    scopes: [{ scope: 'read:docs', description: 'Read your documents', permissions: [{ resource_id: 'documents', actions: ['read'] }] }],
  }));
  await execFileP(BIN, ['project', 'rbac', 'set', '--project', h.project.project_id, '--file', policyFile], { env: h.env, cwd: h.tmp });
  const app = await newClient('third_party');
  const config = await discover(app);
  assert.ok(config.serverMetadata().scopes_supported.includes('read:docs'), 'discovery lists the custom scope');

  // Without the permission: the scope is listed as one the member cannot grant, and Allow is off.
  await logIn(page);
  await authorize(page, config, { scope: 'openid read:docs', choose: null });
  const blocked = page.getByRole('alert', { name: 'You do not have permission to grant:' });
  await blocked.getByText('Read your documents').waitFor();
  assert.equal(await page.getByRole('button', { name: TEXTS.allow }).isDisabled(), true, 'Allow is disabled');

  // With a role that holds it (roles are recomputed on every session check): granted, and in the token.
  const { member } = await h.api('GET', `/v1/b2b/organizations/${org.organization_id}/member?email_address=${encodeURIComponent(email)}`);
  await h.api('PUT', `/v1/b2b/organizations/${org.organization_id}/members/${member.member_id}`, { roles: ['reader'] });
  const a = await authorize(page, config, { scope: 'openid read:docs' });
  const tokens = await oidc.authorizationCodeGrant(config, a.callback(), {
    pkceCodeVerifier: a.verifier, expectedState: a.state, expectedNonce: a.nonce, idTokenExpected: true,
  });
  assert.deepEqual(tokens.scope.split(' ').sort(), ['openid', 'read:docs']);
  const live = await oidc.tokenIntrospection(config, tokens.access_token);
  assert.equal(live.active, true);
  assert.ok(live.scope.split(' ').includes('read:docs'), `introspected scope: ${live.scope}`);
  await h.api('PUT', `/v1/b2b/organizations/${org.organization_id}/members/${member.member_id}`, { roles: [] });
});
