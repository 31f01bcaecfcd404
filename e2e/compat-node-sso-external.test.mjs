// Compatibility: external SSO connections through the public `stytch` Node client (stytch@14.2.0, a
// client we did not write) on our real binary: sso.external.createConnection / updateConnection,
// their place in sso.getConnections and organizations.get, and sso.deleteConnection. Then one real
// browser login through an external connection: the widget on the target organization's page, the
// source organization's SAML identity provider (crewjam/saml, e2e/samlidp), and a session that lands
// in the target with the external connection's implicit role, never the source's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import Provider from 'oidc-provider';
import stytch from 'stytch';
import { useHarness, cookieValue, uniqueEmail, BIN, TEXT } from './harness.mjs';
import { startSamlIdp } from './samlidp.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const execFileP = promisify(execFile);
const h = useHarness();

// Custom roles, so that which connection granted a role is visible: the source's own implicit role
// must never reach a member who logged in through the external connection.
const POLICY = {
  resources: [{ resource_id: 'documents', description: 'Shared documents', actions: ['read', 'write'] }],
  roles: [
    { role_id: 'source-auditor', description: 'Source only', permissions: [{ resource_id: 'documents', actions: ['read'] }] },
    { role_id: 'partner-viewer', description: 'Partner, read', permissions: [{ resource_id: 'documents', actions: ['read'] }] },
    { role_id: 'partner-editor', description: 'Partner, write', permissions: [{ resource_id: 'documents', actions: ['*'] }] },
  ],
  scopes: [],
};

let idp = null;

before(async () => {
  idp = await startSamlIdp();
  await h.ready();
  const file = path.join(h.tmp, 'policy.json');
  await writeFile(file, JSON.stringify(POLICY));
  const args = ['project', 'rbac', 'set', '--project', h.project.project_id, '--file', file];
  try {
    await execFileP(BIN, args, { env: h.env, cwd: h.tmp, timeout: 20_000 });
  } catch (e) {
    throw new Error(`latchkey ${args.join(' ')}: ${e.message}\n${e.stderr}`);
  }
}, { timeout: 200_000 });

after(async () => {
  await idp?.stop();
  if (oidc) await new Promise((r) => (oidc.server.closeAllConnections(), oidc.server.close(() => r())));
});

// The OpenID provider (npm oidc-provider) for an OIDC source. Its one client is registered with the
// source connection's redirect URL, which is only known once that connection exists.
let oidc = null; // {issuer, server}
const people = new Map(); // account id -> claims

async function serveOidcProvider(client) {
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  oidc = { issuer: `http://127.0.0.1:${server.address().port}`, server };
  const provider = new Provider(oidc.issuer, {
    clients: [client],
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => people.get(id) ?? { sub: id } }),
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: true } },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
  });
  server.on('request', provider.callback());
}

function newClient() {
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

let seq = 0;
async function newOrganization(client, name, extra = {}) {
  seq++;
  const { organization } = await client.organizations.create({
    organization_name: `${name} ${seq}`,
    organization_slug: `ext-${seq}-${Date.now().toString(36)}`,
    ...extra,
  });
  return organization;
}

/** A source organization with an active SAML connection to the crewjam IdP (implicit role source-auditor). */
async function sourceWithSaml(client) {
  const org = await newOrganization(client, 'Source Co');
  const { connection } = await client.sso.saml.createConnection({ organization_id: org.organization_id, display_name: 'Source Okta' });
  const { connection: active } = await client.sso.saml.updateConnection({
    organization_id: org.organization_id,
    connection_id: connection.connection_id,
    idp_entity_id: idp.entity_id,
    idp_sso_url: idp.sso_url,
    x509_certificate: idp.certificate,
    attribute_mapping: { email: 'mail', first_name: 'givenName', last_name: 'sn' },
    saml_connection_implicit_role_assignments: [{ role_id: 'source-auditor' }],
  });
  assert.equal(active.status, 'active');
  return { org, connection: active };
}

test('node client: sso.external creates, lists, updates and deletes a connection to another organization\'s SAML connection', async () => {
  const client = newClient();
  const source = await sourceWithSaml(client);
  const target = await newOrganization(client, 'Partner Co');
  const organization_id = target.organization_id;

  const created = await client.sso.external.createConnection({
    organization_id,
    external_organization_id: source.org.organization_id,
    external_connection_id: source.connection.connection_id,
    display_name: 'Partner via Source',
    connection_implicit_role_assignments: [{ role_id: 'partner-viewer' }],
  });
  assertShape(created, 'B2BSSOExternalCreateConnectionResponse');
  const ext = created.connection;
  assert.match(ext.connection_id, /^external-connection-test-/);
  assert.equal(ext.organization_id, organization_id);
  assert.equal(ext.external_organization_id, source.org.organization_id);
  assert.equal(ext.external_connection_id, source.connection.connection_id);
  assert.equal(ext.display_name, 'Partner via Source');
  assert.equal(ext.status, 'active', 'active while its source is');
  assert.deepEqual(ext.external_connection_implicit_role_assignments, [{ role_id: 'partner-viewer' }]);
  assert.deepEqual(ext.external_group_implicit_role_assignments, []);

  // Listed under the target's external_connections, with the fields the Connection type declares.
  const listed = await client.sso.getConnections({ organization_id });
  assertShape(listed, 'B2BSSOGetConnectionsResponse');
  assert.deepEqual(listed.saml_connections, []);
  assert.deepEqual(listed.oidc_connections, []);
  assert.deepEqual(listed.external_connections, [ext]);
  // ...and not under the source's.
  const sourceListed = await client.sso.getConnections({ organization_id: source.org.organization_id });
  assert.deepEqual(sourceListed.external_connections, []);
  assert.deepEqual(sourceListed.saml_connections.map((c) => c.connection_id), [source.connection.connection_id]);

  const updated = await client.sso.external.updateConnection({
    organization_id,
    connection_id: ext.connection_id,
    display_name: 'Partner SSO',
    external_connection_implicit_role_assignments: [{ role_id: 'partner-editor' }],
  });
  assertShape(updated, 'B2BSSOExternalUpdateConnectionResponse');
  assert.equal(updated.connection.connection_id, ext.connection_id);
  assert.equal(updated.connection.display_name, 'Partner SSO');
  assert.deepEqual(updated.connection.external_connection_implicit_role_assignments, [{ role_id: 'partner-editor' }]);
  assert.equal(updated.connection.external_connection_id, source.connection.connection_id, 'the source is kept');
  assert.deepEqual((await client.sso.getConnections({ organization_id })).external_connections, [updated.connection]);

  // The source is active, so the target offers the external connection (and it is the default, as
  // the target's first active connection).
  const { organization } = await client.organizations.get({ organization_id });
  assert.deepEqual(organization.sso_active_connections, [
    { connection_id: ext.connection_id, display_name: 'Partner SSO', identity_provider: source.connection.identity_provider },
  ]);
  assert.equal(organization.sso_default_connection_id, ext.connection_id);

  // Refusals arrive as the client's StytchError: the target's own organization as source, an
  // organization not in the project, and unknown roles.
  const refused = (call, error_type) => assert.rejects(call, (e) => e instanceof stytch.StytchError && e.error_type === error_type);
  await refused(
    client.sso.external.createConnection({
      organization_id: source.org.organization_id, external_organization_id: source.org.organization_id, external_connection_id: source.connection.connection_id,
    }),
    'external_organization_id_same_as_organization_id',
  );
  await refused(
    client.sso.external.createConnection({
      organization_id, external_organization_id: 'organization-test-00000000-0000-4000-8000-000000000000', external_connection_id: source.connection.connection_id,
    }),
    'organization_not_found',
  );
  await refused(
    client.sso.external.updateConnection({
      organization_id, connection_id: ext.connection_id, external_connection_implicit_role_assignments: [{ role_id: 'no-such-role' }],
    }),
    'invalid_request',
  );

  const deleted = await client.sso.deleteConnection({ organization_id, connection_id: ext.connection_id });
  assertShape(deleted, 'B2BSSODeleteConnectionResponse');
  assert.equal(deleted.connection_id, ext.connection_id);
  assert.deepEqual((await client.sso.getConnections({ organization_id })).external_connections, []);
  const { organization: emptied } = await client.organizations.get({ organization_id });
  assert.deepEqual(emptied.sso_active_connections, []);
  assert.ok(!emptied.sso_default_connection_id, `default left: ${emptied.sso_default_connection_id}`);
  // The source is untouched.
  const { saml_connections } = await client.sso.getConnections({ organization_id: source.org.organization_id });
  assert.equal(saml_connections[0].status, 'active');
});

test('node client: an external connection follows its source to pending and back', async () => {
  const client = newClient();
  const source = await sourceWithSaml(client);
  const target = await newOrganization(client, 'Follower Co');
  const organization_id = target.organization_id;
  const { connection: ext } = await client.sso.external.createConnection({
    organization_id, external_organization_id: source.org.organization_id, external_connection_id: source.connection.connection_id,
  });
  assert.equal(ext.display_name, 'Source Okta', 'display_name defaults to the source\'s');

  // Without an SSO URL the source is pending (an active connection keeps its last certificate, so its
  // administrator takes it out of service this way): so is the external connection, and the target no
  // longer offers it.
  const { connection: pending } = await client.sso.saml.updateConnection({
    organization_id: source.org.organization_id, connection_id: source.connection.connection_id, idp_sso_url: '',
  });
  assert.equal(pending.status, 'pending');
  assert.equal((await client.sso.getConnections({ organization_id })).external_connections[0].status, 'pending');
  assert.deepEqual((await client.organizations.get({ organization_id })).organization.sso_active_connections, []);

  await client.sso.saml.updateConnection({
    organization_id: source.org.organization_id, connection_id: source.connection.connection_id, idp_sso_url: idp.sso_url,
  });
  assert.equal((await client.sso.getConnections({ organization_id })).external_connections[0].status, 'active');
  assert.deepEqual(
    (await client.organizations.get({ organization_id })).organization.sso_active_connections.map((c) => c.connection_id),
    [ext.connection_id],
  );
});

test('node client: the external connection routes take the organization\'s slug and external id, and answer with ids', async () => {
  const client = newClient();
  const source = await sourceWithSaml(client);
  const target = await newOrganization(client, 'Alias Partner', { organization_external_id: `crm-${Date.now().toString(36)}` });

  const { connection: ext } = await client.sso.external.createConnection({
    organization_id: target.organization_slug,
    external_organization_id: source.org.organization_id,
    external_connection_id: source.connection.connection_id,
  });
  assert.equal(ext.organization_id, target.organization_id);
  const { connection: updated } = await client.sso.external.updateConnection({
    organization_id: target.organization_external_id, connection_id: ext.connection_id, display_name: 'By Alias',
  });
  assert.equal(updated.organization_id, target.organization_id);
  assert.equal(updated.display_name, 'By Alias');
  const listed = await client.sso.getConnections({ organization_id: target.organization_slug });
  assert.deepEqual(listed.external_connections, [updated]);
  const deleted = await client.sso.deleteConnection({ organization_id: target.organization_external_id, connection_id: ext.connection_id });
  assert.equal(deleted.connection_id, ext.connection_id);
  assert.deepEqual((await client.sso.getConnections({ organization_id: target.organization_id })).external_connections, []);
});

h.test('browser: a SAML login through an external connection lands in the target with the external connection\'s role', async ({ page, context }) => {
  const client = newClient();
  const source = await sourceWithSaml(client);
  const target = await newOrganization(client, 'Partner Login Co', { sso_jit_provisioning: 'ALL_ALLOWED' });
  const { connection: ext } = await client.sso.external.createConnection({
    organization_id: target.organization_id,
    external_organization_id: source.org.organization_id,
    external_connection_id: source.connection.connection_id,
    display_name: 'Partner SSO',
    connection_implicit_role_assignments: [{ role_id: 'partner-editor' }],
  });
  const email = uniqueEmail('partner', 'partner.test');
  const nameId = `okta-${email}`;
  h.pageDefaults = { slug: target.organization_slug, products: 'sso' };

  await page.goto(h.pageUrlWith({ slug: target.organization_slug, products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Partner SSO') }).click();
  // The source's identity provider, reached through the source's flow.
  await page.waitForURL((u) => u.href.startsWith(idp.sso_url));
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('User ID').fill(nameId);
  await page.getByLabel('First name').fill('Pat');
  await page.getByLabel('Last name').fill('Partner');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(TEXT.loggedIn).waitFor();

  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await client.sessions.authenticate({ session_token: token });
  assert.equal(s.organization.organization_id, target.organization_id);
  assert.equal(s.member.organization_id, target.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.name, 'Pat Partner');
  assert.deepEqual(s.member.sso_registrations.map((r) => [r.connection_id, r.external_id]), [[ext.connection_id, nameId]]);
  const factor = s.member_session.authentication_factors[0];
  assert.equal(factor.delivery_method, 'sso_saml');
  assert.equal(factor.saml_sso_factor?.provider_id, ext.connection_id);

  // The external connection's role, granted by it; the source's role nowhere.
  const partner = s.member.roles.find((r) => r.role_id === 'partner-editor');
  assert.ok(partner, `roles: ${JSON.stringify(s.member.roles)}`);
  assert.deepEqual(partner.sources, [{ type: 'sso_connection', details: { connection_id: ext.connection_id } }]);
  assert.ok(s.member_session.roles.includes('partner-editor'), `session roles: ${s.member_session.roles}`);
  assert.ok(!s.member.roles.some((r) => r.role_id === 'source-auditor'), 'the source\'s implicit role is not granted');
  assert.ok(!s.member_session.roles.includes('source-auditor'));

  // Member search's member_roles filter finds the member through the same source member.roles reports.
  const found = await client.organizations.members.search({
    organization_ids: [target.organization_id],
    query: { operator: 'AND', operands: [{ filter_name: 'member_roles', filter_value: ['partner-editor'] }] },
  });
  assert.deepEqual(found.members.map((m) => m.member_id), [s.member.member_id]);
  const none = await client.organizations.members.search({
    organization_ids: [target.organization_id],
    query: { operator: 'AND', operands: [{ filter_name: 'member_roles', filter_value: ['source-auditor'] }] },
  });
  assert.deepEqual(none.members, []);

  // Nobody was provisioned in the source organization.
  await assert.rejects(
    client.organizations.members.get({ organization_id: source.org.organization_id, email_address: email }),
    (e) => e.error_type === 'member_not_found',
  );
});

h.test('browser: SSO discovery by email offers the external connection and logs in to the target', async ({ page, context }) => {
  const client = newClient();
  const source = await sourceWithSaml(client);
  const domain = `partner-${Date.now().toString(36)}.test`;
  const target = await newOrganization(client, 'Discovered Partner', { email_allowed_domains: [domain], sso_jit_provisioning: 'ALL_ALLOWED' });
  // A member with a proven address at the domain vouches for it (the anti-phishing rule).
  await h.createVerifiedMember(target.organization_id, uniqueEmail('vouch', domain));
  const { connection: ext } = await client.sso.external.createConnection({
    organization_id: target.organization_id,
    external_organization_id: source.org.organization_id,
    external_connection_id: source.connection.connection_id,
    display_name: 'Discovered SSO',
  });
  const email = uniqueEmail('disc', domain);
  h.pageDefaults = { flow: 'Discovery', products: 'emailOtp,sso' };

  await page.goto(h.pageUrlWith({ flow: 'Discovery', products: 'emailOtp,sso' }));
  await page.getByRole('button', { name: 'Continue with SSO' }).click();
  await page.getByRole('heading', { name: 'Log in with single sign-on' }).waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Continue' }).click();
  // The email's domain has exactly one connection, the external one: SSO starts at once.
  await page.waitForURL((u) => u.href.startsWith(idp.sso_url));
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText(TEXT.loggedIn).waitFor();

  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await client.sessions.authenticate({ session_token: token });
  assert.equal(s.organization.organization_id, target.organization_id);
  assert.equal(s.member.email_address, email);
  assert.deepEqual(s.member.sso_registrations.map((r) => r.connection_id), [ext.connection_id]);
});

h.test('browser: an OIDC login through an external connection lands in the target; OIDC sources take no implicit roles', async ({ page, context }) => {
  const client = newClient();
  const sourceOrg = await newOrganization(client, 'Oidc Source');
  const { connection: pending } = await client.sso.oidc.createConnection({ organization_id: sourceOrg.organization_id, display_name: 'Source Entra' });
  await serveOidcProvider({ client_id: 'ext-oidc', client_secret: 'ext-secret', redirect_uris: [pending.redirect_url] });
  const { connection: source } = await client.sso.oidc.updateConnection({
    organization_id: sourceOrg.organization_id, connection_id: pending.connection_id,
    issuer: oidc.issuer, client_id: 'ext-oidc', client_secret: 'ext-secret',
  });
  assert.equal(source.status, 'active');
  const target = await newOrganization(client, 'Oidc Partner', { sso_jit_provisioning: 'ALL_ALLOWED' });
  const base = { organization_id: target.organization_id, external_organization_id: sourceOrg.organization_id, external_connection_id: source.connection_id };

  // As the client's own documentation says: no implicit roles through an OIDC connection.
  await assert.rejects(
    client.sso.external.createConnection({ ...base, connection_implicit_role_assignments: [{ role_id: 'partner-editor' }] }),
    (e) => e instanceof stytch.StytchError && e.error_type === 'invalid_request',
  );
  const { connection: ext } = await client.sso.external.createConnection({ ...base, display_name: 'Partner Entra' });

  const email = uniqueEmail('oidc-partner', 'partner.test');
  const account = `acct-${email}`;
  people.set(account, { sub: account, email, email_verified: true, name: 'Olu Partner' });
  h.pageDefaults = { slug: target.organization_slug, products: 'sso' };
  await page.goto(h.pageUrlWith({ slug: target.organization_slug, products: 'sso' }));
  await page.getByRole('button', { name: TEXT.continueWith('Partner Entra') }).click();
  // oidc-provider's own login and consent pages.
  await page.locator('input[name=login]').fill(account);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  await page.waitForURL((u) => u.origin === h.pageOrigin || u.pathname.startsWith('/interaction/'));
  if (new URL(page.url()).pathname.startsWith('/interaction/')) await page.locator('button[type=submit]').click();
  await page.getByText(TEXT.loggedIn).waitFor();

  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await client.sessions.authenticate({ session_token: token });
  assert.equal(s.organization.organization_id, target.organization_id);
  assert.equal(s.member.email_address, email);
  assert.equal(s.member.name, 'Olu Partner');
  assert.deepEqual(s.member.sso_registrations.map((r) => [r.connection_id, r.external_id]), [[ext.connection_id, account]]);
  const factor = s.member_session.authentication_factors[0];
  assert.equal(factor.delivery_method, 'sso_oidc');
  assert.equal(factor.oidc_sso_factor?.provider_id, ext.connection_id);
  assert.deepEqual(s.member_session.roles, ['stytch_member']);
});
