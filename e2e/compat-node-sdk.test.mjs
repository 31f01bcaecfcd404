// Compatibility: the public `stytch` Node backend client (a client we did not write) against our real
// binary. A failure here is a wire-format bug in our server, not in the test.
//
// The client reaches the server through a small recording proxy on loopback, so a test can see
// which calls the client made and can cut the server off: that is how we prove that a session JWT
// is verified LOCALLY with our JWKS rather than by the client's fallback to the server.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import http from 'node:http';
import stytch from 'stytch';
import { useHarness, codeOf, uniqueEmail, BIN } from './harness.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

/**
 * Asserts that a response conforms to the client's declared response type. `known` lists the
 * declared fields we knowingly do not send (each with its reason at the call site).
 */
const h = useHarness({ browser: false });

/**
 * A loopback HTTP proxy in front of our server. It records "METHOD /path" of every request; while
 * `down` is true it drops connections instead, as an unreachable server would.
 */
class RecordingProxy {
  constructor() {
    this.seen = [];
    this.down = false;
    this.server = http.createServer((req, res) => {
      const path = new URL(req.url, 'http://x').pathname;
      if (this.down) {
        this.seen.push(`DROPPED ${req.method} ${path}`);
        req.socket.destroy();
        return;
      }
      this.seen.push(`${req.method} ${path}`);
      const up = http.request(
        `${h.apiBase}${req.url}`,
        { method: req.method, headers: { ...req.headers, host: new URL(h.apiBase).host } },
        (upRes) => {
          res.writeHead(upRes.statusCode, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', (e) => {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`proxy: ${e.message}`);
      });
      req.pipe(up);
    });
  }

  listen() {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${this.server.address().port}/`));
    });
  }

  close() {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const proxy = new RecordingProxy();
let proxyBase = '';
before(async () => {
  proxyBase = await proxy.listen();
});
after(() => proxy.close());

/** A fresh client (own JWKS cache) pointed at our server; custom_base_url must be https, env need not be. */
function newClient({ secret = h.project.secret, env = proxyBase } = {}) {
  return nodeClient({ project_id: h.project.project_id, secret, env });
}

/**
 * Logs a member in the way our widget does, over the SDK face (public token as Basic user and
 * password, {"data": ...} envelope), and returns the tokens it was issued.
 */
async function widgetLogin(organizationId, email) {
  const sdk = async (path, body) => {
    const auth = Buffer.from(`${h.project.public_token}:${h.project.public_token}`).toString('base64');
    const res = await fetch(`${h.apiBase}/sdk/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    assert.equal(res.status, 200, `POST /sdk/v1${path}: ${text}`);
    return JSON.parse(text).data;
  };
  await sdk('/b2b/otps/email/login_or_signup', { organization_id: organizationId, email_address: email });
  const code = codeOf(await h.waitForMail(email));
  const data = await sdk('/b2b/otps/email/authenticate', {
    organization_id: organizationId,
    email_address: email,
    code,
    session_duration_minutes: 60,
  });
  assert.ok(data.session_token && data.session_jwt, `no tokens in ${JSON.stringify(data)}`);
  return data;
}

let seq = 0;
/** An organization and an active member, both created through the Node client. */
async function orgWithMember(client, prefix) {
  seq++;
  const { organization } = await client.organizations.create({
    organization_name: `${prefix} ${seq}`,
    organization_slug: `${prefix.toLowerCase().replace(/\W+/g, '-')}-${seq}`,
  });
  const email = uniqueEmail(prefix.toLowerCase().replace(/\W+/g, '-'));
  const { member } = await client.organizations.members.create({
    organization_id: organization.organization_id,
    email_address: email,
    name: `${prefix} Member`,
  });
  return { organization, member, email };
}

test('node client: organizations and members are created, read and updated', async () => {
  const client = newClient();
  const created = await client.organizations.create({
    organization_name: 'Node Client Inc',
    organization_slug: 'node-client-inc',
    email_allowed_domains: ['nodeclient.test'],
    email_jit_provisioning: 'RESTRICTED',
    trusted_metadata: { tier: 'gold' },
  });
  assertShape(created, 'B2BOrganizationsCreateResponse');
  assert.equal(created.status_code, 200);
  assert.match(created.request_id, /^request-id-/);
  const org = created.organization;
  assert.match(org.organization_id, /^organization-test-/);
  assert.equal(org.organization_name, 'Node Client Inc');
  assert.equal(org.organization_slug, 'node-client-inc');
  assert.deepEqual(org.email_allowed_domains, ['nodeclient.test']);
  assert.equal(org.email_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(org.trusted_metadata, { tier: 'gold' });

  const got = await client.organizations.get({ organization_id: org.organization_id });
  assertShape(got, 'B2BOrganizationsGetResponse');
  assert.equal(got.organization.organization_slug, 'node-client-inc');

  const updated = await client.organizations.update({ organization_id: org.organization_id, organization_name: 'Node Client LLC' });
  assertShape(updated, 'B2BOrganizationsUpdateResponse');
  assert.equal(updated.organization.organization_name, 'Node Client LLC');
  assert.equal(updated.organization.organization_slug, 'node-client-inc', 'fields not sent are kept');

  const email = uniqueEmail('node-member', 'nodeclient.test');
  const mc = await client.organizations.members.create({
    organization_id: org.organization_id,
    email_address: email,
    name: 'Node Member',
    untrusted_metadata: { theme: 'dark' },
  });
  assertShape(mc, 'B2BOrganizationsMembersCreateResponse');
  assert.equal(mc.status_code, 200);
  assert.match(mc.member_id, /^member-test-/);
  assert.equal(mc.member.member_id, mc.member_id);
  assert.equal(mc.member.email_address, email);
  assert.equal(mc.member.name, 'Node Member');
  assert.equal(mc.member.status, 'active');
  assert.equal(mc.member.organization_id, org.organization_id);
  assert.deepEqual(mc.member.untrusted_metadata, { theme: 'dark' });
  assert.equal(mc.organization.organization_id, org.organization_id);

  const byId = await client.organizations.members.get({ organization_id: org.organization_id, member_id: mc.member_id });
  assertShape(byId, 'B2BOrganizationsMembersGetResponse');
  assert.equal(byId.member.email_address, email);
  const byEmail = await client.organizations.members.get({ organization_id: org.organization_id, email_address: email });
  assert.equal(byEmail.member.member_id, mc.member_id);
});

test('node client: authenticates a session token issued to the widget', async () => {
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'Session Check');
  const issued = await widgetLogin(organization.organization_id, email);

  const s = await client.sessions.authenticate({ session_token: issued.session_token });
  assertShape(s, 'B2BSessionsAuthenticateResponse');
  assert.equal(s.status_code, 200);
  assert.equal(s.member_session.member_session_id, issued.member_session.member_session_id);
  assert.equal(s.member_session.member_id, member.member_id);
  assert.equal(s.member_session.organization_id, organization.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.organization.organization_id, organization.organization_id);
  assert.equal(s.session_token, issued.session_token);
  assert.equal(typeof s.session_jwt, 'string');
  assert.ok(s.session_jwt.split('.').length === 3, 'a compact JWS');

  // After a revoke through the client, the token is dead and the client maps the error.
  assertShape(await client.sessions.revoke({ session_token: issued.session_token }), 'B2BSessionsRevokeResponse');
  await assert.rejects(client.sessions.authenticate({ session_token: issued.session_token }), (e) => {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    assert.equal(e.error_type, 'session_not_found');
    assert.equal(e.status_code, 404);
    return true;
  });
});

test('node client: verifies the session JWT locally with our JWKS, without calling the server', async () => {
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'Local JWT');
  const issued = await widgetLogin(organization.organization_id, email);
  const remote = (await client.sessions.authenticate({ session_token: issued.session_token })).member_session;
  // Our keys are bare RSA JWKs (RFC 7517): no X.509 chain, so no x5c / x5t#S256, and `use: sig`
  // instead of key_ops. The client's verifier (jose) needs none of them, as the local check shows.
  assertShape(await client.sessions.getJWKS({ project_id: h.project.project_id }), 'B2BSessionsGetJWKSResponse', [
    /\.keys\[\d+\]\.(x5c|x5tS256|key_ops): required by JWK but missing$/,
  ]);

  // First local verification: the client fetches our JWKS (and nothing else).
  proxy.seen.length = 0;
  const local = await client.sessions.authenticateJwtLocal({ session_jwt: issued.session_jwt });
  assertShape(local, 'MemberSession');
  assert.deepEqual(proxy.seen, [`GET /v1/b2b/sessions/jwks/${h.project.project_id}`]);
  // The claims map back onto the same session the server reports.
  assert.equal(local.member_session_id, remote.member_session_id);
  assert.equal(local.member_id, member.member_id);
  assert.equal(local.organization_id, organization.organization_id);
  assert.equal(local.organization_slug, organization.organization_slug);
  assert.deepEqual(local.roles, remote.roles);
  assert.deepEqual(local.authentication_factors, remote.authentication_factors);
  assert.equal(Date.parse(local.started_at), Date.parse(remote.started_at));
  assert.equal(Date.parse(local.expires_at), Date.parse(remote.expires_at));
  assert.deepEqual(local.custom_claims, {}, 'no stray claims leak into custom_claims');

  // With the server unreachable, authenticateJwt still succeeds: the local path was taken (its
  // fallback would have had to call POST /v1/b2b/sessions/authenticate).
  proxy.seen.length = 0;
  proxy.down = true;
  try {
    const viaJwt = await client.sessions.authenticateJwt({ session_jwt: issued.session_jwt });
    assert.equal(viaJwt.member_session.member_session_id, remote.member_session_id);
    assert.equal(viaJwt.session_jwt, issued.session_jwt);
    assert.deepEqual(proxy.seen, [], 'no request reached the server side');

    // The local check really verifies: a JWT with a forged payload fails locally, so the client
    // falls back to the (unreachable) server.
    const [head, body, sig] = issued.session_jwt.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    claims.sub = 'member-test-00000000-0000-4000-8000-000000000000';
    const forged = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    await assert.rejects(client.sessions.authenticateJwt({ session_jwt: forged }), (e) => {
      assert.ok(e instanceof stytch.RequestError, `expected the fallback's RequestError, got ${e}`);
      return true;
    });
    assert.deepEqual(proxy.seen, ['DROPPED POST /v1/b2b/sessions/authenticate']);
  } finally {
    proxy.down = false;
  }

  // Reachable again, the server rejects the forgery with our error type.
  const [head, body, sig] = issued.session_jwt.split('.');
  const forged = `${head}.${body.slice(0, -2)}AA.${sig}`;
  await assert.rejects(client.sessions.authenticateJwt({ session_jwt: forged }), (e) => {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    assert.equal(e.error_type, 'unable_to_parse_session_jwt');
    return true;
  });
});

test('node client: session_custom_claims are stored, signed into the JWT and read back locally', async () => {
  const client = newClient();
  const { organization, email } = await orgWithMember(client, 'Custom Claims');
  const issued = await widgetLogin(organization.organization_id, email);
  // Reserved registered claims are ignored; the rest are the session's.
  const set = await client.sessions.authenticate({
    session_token: issued.session_token,
    session_custom_claims: { plan: 'pro', seats: 5, iss: 'ignored' },
  });
  assert.deepEqual(set.member_session.custom_claims, { plan: 'pro', seats: 5 });

  // The local check (the JWKS only) reads them from the JWT's top-level claims.
  proxy.seen.length = 0;
  const local = await client.sessions.authenticateJwt({ session_jwt: set.session_jwt });
  assert.ok(!proxy.seen.includes('POST /v1/b2b/sessions/authenticate'), `the local path was not taken: ${proxy.seen}`);
  assert.deepEqual(local.member_session.custom_claims, { plan: 'pro', seats: 5 });

  // A null deletes a key; a later check without the field still shows the rest.
  await client.sessions.authenticate({ session_token: issued.session_token, session_custom_claims: { seats: null } });
  const later = await client.sessions.authenticate({ session_token: issued.session_token });
  assert.deepEqual(later.member_session.custom_claims, { plan: 'pro' });

  await assert.rejects(
    client.sessions.authenticate({ session_token: issued.session_token, session_custom_claims: { 'https://stytch.com/session': {} } }),
    (e) => {
      assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
      assert.equal(e.error_type, 'stytch_claims_in_custom_claims');
      assert.equal(e.status_code, 400);
      return true;
    },
  );
});

test('node client: organization login by emailed link and by emailed code', async () => {
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'Backend Login');

  const before = (await h.mailbox(email)).map((m) => m.id);
  const sent = await client.magicLinks.email.loginOrSignup({ organization_id: organization.organization_id, email_address: email });
  assertShape(sent, 'B2BMagicLinksEmailLoginOrSignupResponse');
  assert.equal(sent.member_id, member.member_id);
  const mail = await h.waitForMail(email, { exclude: before });
  const link = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(link, `no login link in ${JSON.stringify(mail.links)}`);
  const byLink = await client.magicLinks.authenticate({
    magic_links_token: new URL(link).searchParams.get('token'),
    session_duration_minutes: 30,
  });
  assertShape(byLink, 'B2BMagicLinksAuthenticateResponse');
  assert.equal(byLink.organization_id, organization.organization_id);
  assert.equal(byLink.member_session.member_id, member.member_id);
  assert.equal(byLink.reset_sessions, false);

  const before2 = (await h.mailbox(email)).map((m) => m.id);
  assertShape(
    await client.otps.email.loginOrSignup({ organization_id: organization.organization_id, email_address: email }),
    'B2BOTPEmailLoginOrSignupResponse',
  );
  const code = codeOf(await h.waitForMail(email, { exclude: before2 }));
  const byCode = await client.otps.email.authenticate({
    organization_id: organization.organization_id,
    email_address: email,
    code,
    session_duration_minutes: 30,
  });
  assertShape(byCode, 'B2BOTPEmailAuthenticateResponse');
  assert.equal(byCode.organization_id, organization.organization_id);
  assert.equal(byCode.member_session.member_id, member.member_id);
  assert.notEqual(byCode.member_session.member_session_id, byLink.member_session.member_session_id);
});

test('node client: oauth.authenticate redeems the token of an OAuth login', async () => {
  // The provider here is the dev server's built-in mock Google (what is tested is the Node client
  // against our API; interop with an independent provider is e2e/oauth.test.mjs).
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  await promisify(execFile)(BIN, ['project', 'oauth', '--project', h.project.project_id, '--provider', 'google',
    '--client-id', 'dev-google-client', '--client-secret', 'dev-google-secret', '--issuer', `${h.base}/dev/oauth/google`],
    { env: h.env, cwd: h.tmp, timeout: 20_000 });
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'OAuth Login');
  const local = (u) => u.replace(h.base, h.apiBase);
  // A browser's part, cookies included: the start binds the state to the browser with a cookie that
  // the callback must see (oauth_state_mismatch otherwise).
  let binding = '';
  const hop = async (url, init = {}) => {
    const headers = binding && url.includes('/v1/b2b/public/oauth/callback') ? { cookie: binding } : {};
    const res = await fetch(local(url), { redirect: 'manual', ...init, headers });
    assert.equal(res.status, 302, `${url}: ${res.status} ${await res.text()}`);
    const set = res.headers.getSetCookie().find((c) => c.startsWith('latchkey_oauth_state='));
    if (set) binding = set.split(';')[0];
    return res.headers.get('location');
  };
  const start = new URLSearchParams({ public_token: h.project.public_token, organization_id: organization.organization_id });
  // Started on 127.0.0.1, the start first moves to the base URL's host (localhost), where the
  // provider sends the browser back and so where the cookie must be set.
  const moved = await hop(`${h.apiBase}/v1/b2b/public/oauth/google/start?${start}`);
  assert.ok(moved.startsWith(`${h.base}/v1/b2b/public/oauth/google/start?`), moved);
  const page = new URL(await hop(moved));
  assert.ok(binding, 'the start set the state binding cookie');
  const form = new URLSearchParams(page.searchParams);
  form.set('email', email);
  form.set('name', 'OAuth Member');
  const cb = await hop(`${page.origin}${page.pathname}`, { method: 'POST', body: form });
  const back = new URL(await hop(cb));
  assert.equal(back.searchParams.get('stytch_token_type'), 'oauth');
  const res = await client.oauth.authenticate({ oauth_token: back.searchParams.get('token'), session_duration_minutes: 30 });
  assertShape(res, 'B2BOAuthAuthenticateResponse');
  assert.equal(res.member_id, member.member_id);
  assert.equal(res.provider_type, 'google');
  assert.ok(res.provider_values.id_token);
  assert.equal(res.member_session.authentication_factors[0].delivery_method, 'oauth_google');
});

test('node client: discovery by emailed code, organization list, exchange and switch', async () => {
  const client = newClient();
  const { organization: first, member, email } = await orgWithMember(client, 'Discovery One');
  const { organization: second } = await client.organizations.create({
    organization_name: 'Discovery Two',
    organization_slug: `discovery-two-${seq}`,
  });
  await client.organizations.members.create({ organization_id: second.organization_id, email_address: email });

  assertShape(await client.otps.email.discovery.send({ email_address: email }), 'B2BOTPEmailDiscoverySendResponse');
  const code = codeOf(await h.waitForMail(email));
  const found = await client.otps.email.discovery.authenticate({ email_address: email, code });
  assertShape(found, 'B2BOTPEmailDiscoveryAuthenticateResponse');
  assert.equal(found.email_address, email);
  const ids = found.discovered_organizations.map((d) => d.organization.organization_id).sort();
  assert.deepEqual(ids, [first.organization_id, second.organization_id].sort());
  for (const d of found.discovered_organizations) assert.equal(d.membership.type, 'active_member');

  const listed = await client.discovery.organizations.list({ intermediate_session_token: found.intermediate_session_token });
  assertShape(listed, 'B2BDiscoveryOrganizationsListResponse');
  assert.equal(listed.discovered_organizations.length, 2);

  const ex = await client.discovery.intermediateSessions.exchange({
    intermediate_session_token: found.intermediate_session_token,
    organization_id: first.organization_id,
    session_duration_minutes: 30,
  });
  assertShape(ex, 'B2BDiscoveryIntermediateSessionsExchangeResponse');
  assert.equal(ex.member_authenticated, true);
  assert.equal(ex.member_id, member.member_id);
  assert.equal(ex.intermediate_session_token, '');

  // Switching organization with the session (sessions.exchange).
  const sw = await client.sessions.exchange({
    organization_id: second.organization_id,
    session_token: ex.session_token,
    session_duration_minutes: 30,
  });
  assertShape(sw, 'B2BSessionsExchangeResponse');
  assert.equal(sw.organization.organization_id, second.organization_id);
  assert.equal(sw.member_session.organization_id, second.organization_id);
});

test('node client: member email change, retired addresses, password and TOTP deletion', async () => {
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'Email Change');
  const org = organization.organization_id;
  const first = await widgetLogin(org, email);
  const oldEmailId = first.member_session.authentication_factors[0].email_factor.email_id;

  const newEmail = uniqueEmail('email-change-new');
  const started = await client.organizations.members.startEmailUpdate({
    organization_id: org,
    member_id: member.member_id,
    email_address: newEmail,
    delivery_method: 'EMAIL_MAGIC_LINK',
  });
  assertShape(started, 'B2BOrganizationsMembersStartEmailUpdateResponse');
  assert.equal(started.member.email_address, email, 'nothing changes before the new address is proven');
  const mail = await h.waitForMail(newEmail);
  const link = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(link, `no link in ${JSON.stringify(mail.links)}`);
  const redeemed = await client.magicLinks.authenticate({
    magic_links_token: new URL(link).searchParams.get('token'),
    session_duration_minutes: 30,
  });
  assertShape(redeemed, 'B2BMagicLinksAuthenticateResponse');
  assert.equal(redeemed.reset_sessions, true);
  assert.equal(redeemed.member.email_address, newEmail);
  assert.deepEqual(redeemed.member.retired_email_addresses, [{ email_id: oldEmailId, email_address: email }]);
  await assert.rejects(client.sessions.authenticate({ session_token: first.session_token }), (e) => {
    assert.equal(e.error_type, 'session_not_found');
    return true;
  });

  const unlinked = await client.organizations.members.unlinkRetiredEmail({
    organization_id: org,
    member_id: member.member_id,
    email_id: oldEmailId,
  });
  assertShape(unlinked, 'B2BOrganizationsMembersUnlinkRetiredEmailResponse');
  assert.equal(unlinked.organization_id, org);
  assert.deepEqual(unlinked.member.retired_email_addresses, []);

  // A known bcrypt vector ("U*U") imported for the new address, then deleted.
  await client.passwords.migrate({
    organization_id: org,
    email_address: newEmail,
    hash_type: 'bcrypt',
    hash: '$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW',
  });
  const withPassword = await client.organizations.members.get({ organization_id: org, member_id: member.member_id });
  assert.ok(withPassword.member.member_password_id, 'the import gave the member a password');
  const deleted = await client.organizations.members.deletePassword({
    organization_id: org,
    member_password_id: withPassword.member.member_password_id,
  });
  assertShape(deleted, 'B2BOrganizationsMembersDeletePasswordResponse');
  assert.equal(deleted.member_id, member.member_id);
  assert.equal(deleted.member.member_password_id, '');

  const noTotp = await client.organizations.members.deleteTOTP({ organization_id: org, member_id: member.member_id });
  assertShape(noTotp, 'B2BOrganizationsMembersDeleteTOTPResponse');
  assert.equal(noTotp.member.totp_registration_id, '');
});

test('node client: errors arrive as StytchError with our error_type', async () => {
  const client = newClient();
  await assert.rejects(
    client.organizations.get({ organization_id: 'organization-test-00000000-0000-4000-8000-000000000000' }),
    (e) => {
      assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
      assert.equal(e.status_code, 404);
      assert.equal(e.error_type, 'organization_not_found');
      assert.equal(typeof e.error_message, 'string');
      assert.ok(e.error_message.length > 0);
      assert.match(e.request_id, /^request-id-/);
      return true;
    },
  );

  const wrongSecret = newClient({ secret: 'secret-test-not-the-right-one' });
  await assert.rejects(wrongSecret.organizations.get({ organization_id: 'organization-test-x' }), (e) => {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    assert.equal(e.status_code, 401);
    assert.equal(e.error_type, 'invalid_secret_authentication');
    return true;
  });
});

test('node client: RBAC policy, organization policy and authorization checks (remote and local)', async () => {
  const client = newClient();
  const { organization, email } = await orgWithMember(client, 'RBAC Check');
  const orgId = organization.organization_id;
  const adminEmail = uniqueEmail('rbac-admin');
  const { member: admin } = await client.organizations.members.create({
    organization_id: orgId,
    email_address: adminEmail,
    roles: ['stytch_admin'],
  });
  assert.equal(admin.is_admin, true);
  assert.deepEqual(admin.roles.find((r) => r.role_id === 'stytch_admin').sources.map((s) => s.type), ['direct_assignment']);

  const policy = await client.rbac.policy();
  assertShape(policy, 'B2BRBACPolicyResponse');
  assert.deepEqual(policy.policy.roles.map((r) => r.role_id).slice(0, 2), ['stytch_member', 'stytch_admin']);
  for (const id of ['stytch.organization', 'stytch.member', 'stytch.sso', 'stytch.self']) {
    assert.ok(policy.policy.resources.some((r) => r.resource_id === id), `built-in resource ${id}`);
  }
  const orgPolicy = await client.rbac.organizations.getOrgPolicy({ organization_id: orgId });
  assertShape(orgPolicy, 'B2BRBACOrganizationsGetOrgPolicyResponse');
  assert.deepEqual(orgPolicy.org_policy.roles, []);

  const check = { organization_id: orgId, resource_id: 'stytch.member', action: 'delete' };
  const adminLogin = await widgetLogin(orgId, adminEmail);
  const memberLogin = await widgetLogin(orgId, email);
  const ok = await client.sessions.authenticate({ session_token: adminLogin.session_token, authorization_check: check });
  assertShape(ok, 'B2BSessionsAuthenticateResponse');
  assert.deepEqual(ok.verdict, { authorized: true, granting_roles: ['stytch_admin'] });
  await assert.rejects(client.sessions.authenticate({ session_token: memberLogin.session_token, authorization_check: check }), (e) => {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    assert.equal(e.status_code, 403);
    assert.equal(e.error_type, 'session_authorization_error');
    return true;
  });
  const other = await orgWithMember(client, 'RBAC Other');
  await assert.rejects(
    client.sessions.authenticate({
      session_token: adminLogin.session_token,
      authorization_check: { ...check, organization_id: other.organization.organization_id },
    }),
    (e) => e instanceof stytch.StytchError && e.error_type === 'session_authorization_tenancy_error' && e.status_code === 403,
  );

  // authenticateJwt checks locally (rbac.policy, getOrgPolicy and the JWT's roles) or, when it
  // falls back to the server, remotely: either way the admin passes and the member is refused
  // (a local refusal also falls back to the server, whose type is session_authorization_error).
  const local = await client.sessions.authenticateJwt({ session_jwt: adminLogin.session_jwt, authorization_check: check });
  assert.equal(local.member_session.member_id, admin.member_id);
  await assert.rejects(
    client.sessions.authenticateJwt({ session_jwt: memberLogin.session_jwt, authorization_check: check }),
    (e) => e.error_type === 'session_authorization_error' || /permission/.test(String(e.message)),
  );
});

test('node client: method_options.authorization acts with the permissions of the member session', async () => {
  const client = newClient();
  const { organization, member, email } = await orgWithMember(client, 'Acting For');
  const orgId = organization.organization_id;
  const adminEmail = uniqueEmail('acting-admin');
  await client.organizations.members.create({ organization_id: orgId, email_address: adminEmail, roles: ['stytch_admin'] });
  const victimEmail = uniqueEmail('acting-victim');
  const { member: victim } = await client.organizations.members.create({ organization_id: orgId, email_address: victimEmail });
  // Only a member whose email was verified can be reactivated below: a login verifies it.
  await widgetLogin(orgId, victimEmail);
  const plain = await widgetLogin(orgId, email);
  const admin = await widgetLogin(orgId, adminEmail);
  const refused = (e) => {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    assert.equal(e.status_code, 403);
    assert.equal(e.error_type, 'unauthorized_action');
    return true;
  };

  // A plain member (session token) may not rename the organization or delete another member...
  const asPlain = { authorization: { session_token: plain.session_token } };
  await assert.rejects(client.organizations.update({ organization_id: orgId, organization_name: 'Renamed' }, asPlain), refused);
  await assert.rejects(client.organizations.members.delete({ organization_id: orgId, member_id: victim.member_id }, asPlain), refused);
  // ...but may rename themselves (stytch.self).
  const self = await client.organizations.members.update(
    { organization_id: orgId, member_id: member.member_id, name: 'Self Renamed' },
    asPlain,
  );
  assertShape(self, 'B2BOrganizationsMembersUpdateResponse');
  assert.equal(self.member.name, 'Self Renamed');

  // An admin (session JWT) may do both.
  const asAdmin = { authorization: { session_jwt: admin.session_jwt } };
  const renamed = await client.organizations.update({ organization_id: orgId, organization_name: 'Renamed' }, asAdmin);
  assert.equal(renamed.organization.organization_name, 'Renamed');
  const deleted = await client.organizations.members.delete({ organization_id: orgId, member_id: victim.member_id }, asAdmin);
  assert.equal(deleted.member_id, victim.member_id);
  const reactivated = await client.organizations.members.reactivate(
    { organization_id: orgId, member_id: victim.member_id },
    asAdmin,
  );
  assert.equal(reactivated.member.status, 'active');

  // Sessions: a plain member may not end another member's sessions, but may end their own.
  await assert.rejects(client.sessions.revoke({ member_id: victim.member_id }, asPlain), refused);
  await client.sessions.revoke({ session_token: plain.session_token }, asPlain);
  await assert.rejects(client.sessions.authenticate({ session_token: plain.session_token }), (e) => e.error_type === 'session_not_found');

  // The admin's session does not reach another organization.
  const other = await orgWithMember(client, 'Acting Other');
  await assert.rejects(
    client.organizations.update({ organization_id: other.organization.organization_id, organization_name: 'X' }, asAdmin),
    (e) => e instanceof stytch.StytchError && e.error_type === 'tenancy_mismatch' && e.status_code === 403,
  );
  // Without authorization the secret keeps its full rights.
  await client.organizations.members.delete({ organization_id: orgId, member_id: victim.member_id });
});

test('node client: debug.whoami and project.metrics describe the project of the secret', async () => {
  const client = newClient();
  const who = await client.debug.whoami();
  assert.equal(who.project_id, h.project.project_id);
  assert.equal(typeof who.name, 'string');
  assert.ok(who.name.length > 0, 'the project has a name');
  const before = await client.project.metrics();
  const count = (r, type) => r.metrics.find((m) => m.metric_type === type)?.count;
  assert.equal(before.project_id, h.project.project_id);
  await orgWithMember(client, 'Metrics');
  const after = await client.project.metrics();
  assert.equal(count(after, 'ORGANIZATION_COUNT'), count(before, 'ORGANIZATION_COUNT') + 1);
  assert.equal(count(after, 'MEMBER_COUNT'), count(before, 'MEMBER_COUNT') + 1);
  assert.equal(typeof count(after, 'M2M_CLIENT_COUNT'), 'number');
});
