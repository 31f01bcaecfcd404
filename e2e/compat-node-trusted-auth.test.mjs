// Compatibility: the `stytch` Node client's sessions.attest and sessions.migrate against our real
// binary, each answer checked against the client's declared types. The trusted issuer and the
// previous provider are local HTTP servers speaking their protocols (a JWKS document, an OpenID
// userinfo endpoint); the profile and the userinfo URL are set with the CLI, as an operator would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createSign, generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import { test, before, after } from 'node:test';
import { promisify } from 'node:util';
import { BIN, useHarness } from './harness.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const execFileP = promisify(execFile);
const h = useHarness({ browser: false });

function newClient() {
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

async function cli(...args) {
  const out = await execFileP(BIN, args, { env: h.env, cwd: h.tmp, timeout: 30_000 });
  return JSON.parse(out.stdout);
}

// The trusted issuer: an RSA key published as a JWKS; the previous provider: bearer tokens it knows.
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ISSUER = 'https://partner-idp.example.test';
const AUDIENCE = 'latchkey-e2e';
const previousSessions = new Map();
let outside;
let outsideBase = '';

before(async () => {
  outside = http.createServer((req, res) => {
    if (req.url === '/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'e2e-1', use: 'sig', alg: 'RS256' }] }));
      return;
    }
    if (req.url === '/userinfo') {
      const user = previousSessions.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      res.writeHead(user ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(user ?? { error: 'invalid_token' }));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve) => outside.listen(0, '127.0.0.1', resolve));
  outsideBase = `http://127.0.0.1:${outside.address().port}`;
});
after(() => new Promise((resolve) => outside.close(resolve)));

const b64url = (v) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');

function trustedToken(claims) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'RS256', typ: 'JWT', kid: 'e2e-1' });
  const body = b64url({ iss: ISSUER, aud: AUDIENCE, iat: now, nbf: now, exp: now + 300, jti: randomUUID(), ...claims });
  const signer = createSign('RSA-SHA256');
  signer.update(`${head}.${body}`);
  return `${head}.${body}.${signer.sign(privateKey).toString('base64url')}`;
}

test('sessions.attest: a trusted token becomes a session, once; JIT by the signed organization claim', async () => {
  const client = newClient();
  const profile = await cli('project', 'token-profile', 'create', '--project', h.project.project_id, '--issuer', ISSUER,
    '--audience', AUDIENCE, '--jwks-url', `${outsideBase}/jwks.json`, '--organization-id-claim', 'org', '--can-jit-provision');
  assert.match(profile.profile_id, /^trusted-auth-token-profile-test-/);

  const org = await h.createOrg({ name: 'Trusted Co', slug: 'trusted-co', jit: 'RESTRICTED', domains: ['trusted.test'] });
  const orgId = org.organization_id;
  const token = trustedToken({ email: 'kim@trusted.test', org: orgId });
  const resp = await client.sessions.attest({ profile_id: profile.profile_id, token, session_duration_minutes: 60 });
  assertShape(resp, 'B2BSessionsAttestResponse');
  assert.equal(resp.member.email_address, 'kim@trusted.test');
  assert.equal(resp.member.status, 'active');
  const [factor] = resp.member_session.authentication_factors;
  assertShape(factor, 'AuthenticationFactor');
  assert.equal(factor.type, 'trusted_auth_token');
  assert.equal(factor.delivery_method, 'trusted_token_exchange');
  assert.ok(factor.trusted_auth_token_factor.token_id);

  // The session is real: the client verifies its JWT locally against our JWKS.
  const local = await client.sessions.authenticateJwtLocal({ session_jwt: resp.session_jwt });
  assert.equal(local.member_session_id, resp.member_session.member_session_id);

  await assert.rejects(client.sessions.attest({ profile_id: profile.profile_id, token }),
    (e) => e.error_type === 'invalid_trusted_auth_token' && e.status_code === 401);
  await assert.rejects(client.sessions.attest({ profile_id: profile.profile_id, token: trustedToken({ email: 'kim@trusted.test', org: orgId, aud: 'elsewhere' }) }),
    (e) => e.error_type === 'invalid_trusted_auth_token');
  await assert.rejects(client.sessions.attest({ profile_id: 'trusted-auth-token-profile-test-unknown', token }),
    (e) => e.error_type === 'trusted_token_profile_not_found');
});

test('sessions.migrate: the previous provider names an existing member', async () => {
  const client = newClient();
  await cli('project', 'session-migration', '--project', h.project.project_id, '--userinfo-url', `${outsideBase}/userinfo`);
  const org = await h.createOrg({ name: 'Moving Co', slug: 'moving-co', jit: 'NOT_ALLOWED' });
  await h.createMember(org.organization_id, 'lee@moving.test');
  previousSessions.set('old-session-lee', { sub: 'auth0|lee', email: 'lee@moving.test', email_verified: true });
  previousSessions.set('old-session-new', { sub: 'auth0|new', email: 'new@moving.test', email_verified: true });

  const resp = await client.sessions.migrate({ session_token: 'old-session-lee', organization_id: org.organization_id,
    session_duration_minutes: 60 });
  assertShape(resp, 'B2BSessionsMigrateResponse');
  assert.equal(resp.member.email_address, 'lee@moving.test');
  assert.ok(resp.session_token);

  await assert.rejects(client.sessions.migrate({ session_token: 'old-session-new', organization_id: org.organization_id }),
    (e) => e.error_type === 'migrate_from_external_email_does_not_exist');
  await assert.rejects(client.sessions.migrate({ session_token: 'forged', organization_id: org.organization_id }),
    (e) => e.error_type === 'migrate_from_external_unexpected_response');
});
