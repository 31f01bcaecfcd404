// The identity provider's trustedAuthTokenParams in Chromium against the real binary: the operator's
// authorization page hands the widget a JWT its own login signed; the widget ends any session,
// attests a new one (b2b/sessions/attest on the SDK face) and goes on with the authorization, so a
// member who never logged in to Latchkey reaches the consent screen and the app gets its code.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash, createSign, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import { before, after } from 'node:test';
import { promisify } from 'node:util';
import { useHarness, BIN, uniqueEmail } from './harness.mjs';

const execFileP = promisify(execFile);
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ISSUER = 'https://customer-login.example.test';
const AUDIENCE = 'latchkey-idp-e2e';
const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

let profileID = '';
let orgID = '';
let email = '';
let tokensIssued = 0;

/** What the operator's own login would sign for the member it knows. */
function trustedToken() {
  tokensIssued++;
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'RS256', typ: 'JWT', kid: 'op-1' });
  const body = b64url({ iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + 120, jti: randomUUID(), email, org: orgID });
  const signer = createSign('RSA-SHA256');
  signer.update(`${head}.${body}`);
  return `${head}.${body}.${signer.sign(privateKey).toString('base64url')}`;
}

// The operator's authorization page: a fresh trusted token on every load.
const idpPage = (h) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize</title></head>
<body><main><h1>Authorize</h1><div id="root"></div></main>
<script src="${h.apiBase}/widget/latchkey.js"></script>
<script>
  window.client = new Latchkey.B2BClient(${JSON.stringify(h.project.public_token)});
  client.mountIdentityProvider({ elementId: '#root',
    trustedAuthTokenParams: { trustedAuthToken: ${JSON.stringify(trustedToken())}, tokenProfileID: ${JSON.stringify(profileID)} } });
</script></body></html>`;
const rpPage = () => '<!doctype html><html lang="en"><head><title>RP</title></head><body><main><h1>RP callback</h1></main></body></html>';

const h = useHarness({ routes: { '/authorize': idpPage, '/rp/cb': rpPage } });

let jwks;
before(async () => {
  jwks = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'op-1', use: 'sig', alg: 'RS256' }] }));
  });
  await new Promise((resolve) => jwks.listen(0, '127.0.0.1', resolve));
});
after(() => new Promise((resolve) => jwks.close(resolve)));

h.test('trustedAuthTokenParams: attest, then consent and the code, without a prior login', async ({ page }) => {
  const run = (...args) => execFileP(BIN, args, { env: h.env, cwd: h.tmp });
  await run('project', 'update', '--project', h.project.project_id, '--idp-authorization-url', `${h.pageOrigin}/authorize`);
  const created = await run('project', 'token-profile', 'create', '--project', h.project.project_id, '--issuer', ISSUER,
    '--audience', AUDIENCE, '--jwks-url', `http://127.0.0.1:${jwks.address().port}/jwks.json`, '--organization-id-claim', 'org');
  profileID = JSON.parse(created.stdout).profile_id;
  const org = await h.createOrg({ name: 'Trusted Corp', slug: 'trusted-corp' });
  orgID = org.organization_id;
  email = uniqueEmail('trusted');
  const member = await h.createMember(orgID, email, 'Tess Trusted');
  const app = (await h.api('POST', '/v1/connected_apps/clients', { client_type: 'third_party', client_name: 'Partner Agent',
    redirect_urls: [`${h.pageOrigin}/rp/cb`] })).connected_app;

  const verifier = randomBytes(32).toString('base64url');
  const q = new URLSearchParams({ client_id: app.client_id, redirect_uri: `${h.pageOrigin}/rp/cb`, response_type: 'code',
    scope: 'openid email', state: 'st-trusted', nonce: 'n-trusted',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256' });
  const attests = [];
  page.on('response', (r) => r.url().endsWith('/b2b/sessions/attest') && attests.push(r.status()));
  await page.goto(`${h.pageOrigin}/authorize?${q}`);
  await page.getByRole('heading', { name: 'Partner Agent wants to access your E2E account' }).waitFor();
  assert.deepEqual(attests, [200]);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.pathname === '/rp/cb');
  const back = new URL(page.url()).searchParams;
  assert.equal(back.get('state'), 'st-trusted');
  assert.ok(back.get('code'));

  // The code belongs to the member the trusted token named.
  const tok = await fetch(`${h.apiBase}/v1/public/${h.project.project_id}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.get('code'), redirect_uri: `${h.pageOrigin}/rp/cb`, code_verifier: verifier }),
  });
  assert.equal(tok.status, 200);
  const idToken = (await tok.json()).id_token;
  const claims = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString());
  assert.equal(claims.sub, member.member_id);
  assert.equal(claims.email, email);
  assert.equal(tokensIssued, 1);
});
