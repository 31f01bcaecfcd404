// Compatibility: the public `stytch` Node backend client (stytch@14.2.0, a client we did not write)
// administers SSO connections on our real binary and redeems an SSO login's token: sso.saml.*,
// sso.oidc.*, sso.getConnections, sso.deleteConnection and sso.authenticate. Every answer is checked
// against the client's declared response type. The identity providers are independent
// implementations on loopback: crewjam/saml (e2e/samlidp) and the npm oidc-provider.
// (oauth.authenticate is covered in compat-node-sdk.test.mjs.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSync } from 'node:crypto';
import http from 'node:http';
import Provider from 'oidc-provider';
import { useHarness, uniqueEmail } from './harness.mjs';
import { samlResponseFor, startSamlIdp } from './samlidp.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const h = useHarness({ browser: false });

let idp = null;
let oidc = null; // {issuer, server}

before(async () => {
  idp = await startSamlIdp();
  const server = http.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  oidc = { issuer: `http://127.0.0.1:${server.address().port}`, server };
  const provider = new Provider(oidc.issuer, {
    clients: [{ client_id: 'compat-oidc', client_secret: 'compat-secret', redirect_uris: ['http://localhost/unused'] }],
  });
  server.on('request', provider.callback());
}, { timeout: 200_000 });

after(async () => {
  await idp?.stop();
  if (oidc) await new Promise((r) => (oidc.server.closeAllConnections(), oidc.server.close(() => r())));
});

function newClient() {
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

let seq = 0;
async function newOrganization(client, name) {
  seq++;
  const { organization } = await client.organizations.create({
    organization_name: `${name} ${seq}`,
    organization_slug: `compat-sso-${seq}-${Date.now().toString(36)}`,
  });
  return organization;
}

test('node client: sso.saml administers a connection, and sso.authenticate redeems a real SAML login', async () => {
  const client = newClient();
  const org = await newOrganization(client, 'Saml Compat');
  const organization_id = org.organization_id;

  const created = await client.sso.saml.createConnection({ organization_id, display_name: 'Compat Okta', identity_provider: 'okta' });
  assertShape(created, 'B2BSSOSAMLCreateConnectionResponse');
  const connection_id = created.connection.connection_id;
  assert.equal(created.connection.status, 'pending');
  assert.equal(created.connection.display_name, 'Compat Okta');
  assert.ok(created.connection.acs_url.startsWith(h.base), created.connection.acs_url);
  assert.ok(created.connection.audience_uri.startsWith(h.base), created.connection.audience_uri);

  // The IdP's own metadata (crewjam's) completes the connection.
  const byURL = await client.sso.saml.updateByURL({ organization_id, connection_id, metadata_url: idp.metadata_url });
  assertShape(byURL, 'B2BSSOSAMLUpdateByURLResponse');
  assert.equal(byURL.connection.idp_entity_id, idp.entity_id);
  assert.equal(byURL.connection.idp_sso_url, idp.sso_url);
  assert.equal(byURL.connection.verification_certificates.length, 1);
  assert.equal(byURL.connection.status, 'active');

  const updated = await client.sso.saml.updateConnection({
    organization_id,
    connection_id,
    display_name: 'Compat Okta (prod)',
    attribute_mapping: { email: 'mail', first_name: 'givenName', last_name: 'sn' },
  });
  assertShape(updated, 'B2BSSOSAMLUpdateConnectionResponse');
  assert.equal(updated.connection.display_name, 'Compat Okta (prod)');
  assert.deepEqual(updated.connection.attribute_mapping, { email: 'mail', first_name: 'givenName', last_name: 'sn' });

  // An encryption key is accepted, listed by id, and removed again.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const withKey = await client.sso.saml.updateConnection({
    organization_id,
    connection_id,
    saml_encryption_private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
  });
  assertShape(withKey, 'B2BSSOSAMLUpdateConnectionResponse');
  const keys = withKey.connection.encryption_private_keys;
  assert.equal(keys.length, 1);
  assert.ok(!JSON.stringify(withKey).includes('PRIVATE KEY'), 'the private key is never returned');
  const removedKey = await client.sso.saml.deleteEncryptionPrivateKey({ organization_id, connection_id, private_key_id: keys[0].private_key_id });
  assertShape(removedKey, 'B2BSSOSAMLDeleteEncryptionPrivateKeyResponse');
  assert.equal(removedKey.private_key_id, keys[0].private_key_id);

  const listed = await client.sso.getConnections({ organization_id });
  assertShape(listed, 'B2BSSOGetConnectionsResponse');
  assert.deepEqual(listed.saml_connections.map((c) => c.connection_id), [connection_id]);
  assert.equal(listed.saml_connections[0].encryption_private_keys.length, 0);

  // A login through the IdP (without a browser) gives a token the client redeems: JIT makes the member.
  const email = uniqueEmail('node', 'compat-sso.test');
  const q = new URLSearchParams({ public_token: h.project.public_token, connection_id });
  // Node reaches the server as 127.0.0.1: the start first moves to the base URL's host (localhost),
  // where the callback is and so where a login is bound to its browser. A SAML login on an http base
  // URL is not bound (a cross-site post carries no cookie there), so no cookie is carried to the ACS.
  const moved = await fetch(`${h.apiBase}/v1/public/sso/start?${q}`, { redirect: 'manual' });
  assert.equal(moved.status, 302, await moved.text());
  assert.equal(moved.headers.get('location'), `${h.base}/v1/public/sso/start?${q}&latchkey_callback_host=1`);
  const start = await fetch(moved.headers.get('location').replace(h.base, h.apiBase), { redirect: 'manual' });
  assert.equal(start.status, 302, await start.text());
  assert.equal(start.headers.get('set-cookie'), null, 'a SAML login on http is not bound');
  const { acs, form } = await samlResponseFor(start.headers.get('location'), { email, nameId: `okta-${email}` });
  const posted = await fetch(acs.replace(h.base, h.apiBase), {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form,
  });
  assert.equal(posted.status, 302, await posted.text());
  const back = new URL(posted.headers.get('location'));
  assert.equal(back.searchParams.get('stytch_token_type'), 'sso');
  const sso_token = back.searchParams.get('token');

  const auth = await client.sso.authenticate({ sso_token, session_duration_minutes: 30 });
  assertShape(auth, 'B2BSSOAuthenticateResponse');
  assert.equal(auth.organization_id, organization_id);
  assert.equal(auth.member.email_address, email);
  assert.equal(auth.member.sso_registrations[0].connection_id, connection_id);
  assert.equal(auth.member_session.authentication_factors[0].delivery_method, 'sso_saml');
  assert.ok(auth.session_token && auth.session_jwt);

  // The token is single use: the client raises our catalogue error.
  await assert.rejects(client.sso.authenticate({ sso_token }), (e) => e.error_type === 'sso_token_not_found');
});

test('node client: deleteVerificationCertificate removes a rotated-out certificate, never an active connection\'s last', async () => {
  const client = newClient();
  const org = await newOrganization(client, 'Saml Certs');
  const organization_id = org.organization_id;
  const { connection } = await client.sso.saml.createConnection({ organization_id, display_name: 'Certs' });
  const connection_id = connection.connection_id;
  const { connection: filled } = await client.sso.saml.updateByURL({ organization_id, connection_id, metadata_url: idp.metadata_url });
  const [cert] = filled.verification_certificates;
  assert.ok(cert.certificate_id);
  assert.equal(filled.status, 'active');
  // The certificate the metadata brought is the active connection's only one: without it nothing could
  // be verified, so its deletion is refused with the type the API family names.
  await assert.rejects(
    client.sso.saml.deleteVerificationCertificate({ organization_id, connection_id, certificate_id: cert.certificate_id }),
    (e) => e.status_code === 400 && e.error_type === 'cannot_delete_last_sso_verification_key',
  );
  // A rotation: the IdP's next certificate is added first (any other X.509 certificate will do: the
  // connection's own service-provider certificate is one at hand), then the old one goes.
  const { connection: both } = await client.sso.saml.updateConnection({
    organization_id, connection_id, x509_certificate: connection.signing_certificates[0].certificate,
  });
  assert.equal(both.verification_certificates.length, 2);
  const removed = await client.sso.saml.deleteVerificationCertificate({ organization_id, connection_id, certificate_id: cert.certificate_id });
  assertShape(removed, 'B2BSSOSAMLDeleteVerificationCertificateResponse');
  assert.equal(removed.certificate_id, cert.certificate_id);
  const { saml_connections } = await client.sso.getConnections({ organization_id });
  assert.deepEqual(saml_connections[0].verification_certificates.map((c) => c.certificate_id), [both.verification_certificates[1].certificate_id]);
  assert.equal(saml_connections[0].status, 'active');
});

test('node client: sso.oidc creates and configures a connection from the issuer, and sso.deleteConnection removes it', async () => {
  const client = newClient();
  const org = await newOrganization(client, 'Oidc Compat');
  const organization_id = org.organization_id;

  const created = await client.sso.oidc.createConnection({ organization_id, display_name: 'Compat Entra', identity_provider: 'microsoft-entra' });
  assertShape(created, 'B2BSSOOIDCCreateConnectionResponse');
  const connection_id = created.connection.connection_id;
  assert.equal(created.connection.status, 'pending');
  assert.ok(created.connection.redirect_url.startsWith(h.base), created.connection.redirect_url);

  const updated = await client.sso.oidc.updateConnection({
    organization_id,
    connection_id,
    issuer: oidc.issuer,
    client_id: 'compat-oidc',
    client_secret: 'compat-secret',
    custom_scopes: 'groups',
  });
  assertShape(updated, 'B2BSSOOIDCUpdateConnectionResponse');
  // The endpoints come from oidc-provider's discovery document.
  const discovery = await (await fetch(`${oidc.issuer}/.well-known/openid-configuration`)).json();
  assert.equal(updated.connection.issuer, oidc.issuer);
  assert.equal(updated.connection.authorization_url, discovery.authorization_endpoint);
  assert.equal(updated.connection.token_url, discovery.token_endpoint);
  assert.equal(updated.connection.userinfo_url, discovery.userinfo_endpoint);
  assert.equal(updated.connection.jwks_url, discovery.jwks_uri);
  assert.equal(updated.connection.client_secret, '', 'the secret is never returned');
  assert.equal(updated.connection.status, 'active');

  const listed = await client.sso.getConnections({ organization_id });
  assertShape(listed, 'B2BSSOGetConnectionsResponse');
  assert.deepEqual(listed.oidc_connections.map((c) => c.connection_id), [connection_id]);
  const { organization } = await client.organizations.get({ organization_id });
  assert.deepEqual(organization.sso_active_connections.map((c) => c.connection_id), [connection_id]);

  const deleted = await client.sso.deleteConnection({ organization_id, connection_id });
  assertShape(deleted, 'B2BSSODeleteConnectionResponse');
  assert.equal(deleted.connection_id, connection_id);
  assert.deepEqual((await client.sso.getConnections({ organization_id })).oidc_connections, []);
});
