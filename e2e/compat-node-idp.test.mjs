// Compatibility: the `stytch` Node client's connected-app, M2M and identity-provider calls against
// our real binary, each answer checked against the client's declared types. Tokens are verified by
// the client itself: idp.introspectTokenLocal and m2m.authenticateToken check signature, issuer,
// audience and typ against our JWKS, exactly as they would against the hosted service.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useHarness, uniqueEmail } from './harness.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const h = useHarness({ browser: false });

function newClient() {
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

test('connectedApp.clients: create, get, update, search, secret rotation, delete', async () => {
  const client = newClient();
  const created = await client.connectedApp.clients.create({
    client_type: 'third_party', client_name: 'Agent', client_description: 'An AI agent',
    redirect_urls: ['https://agent.example.test/cb'], post_logout_redirect_urls: ['https://agent.example.test/bye'],
    full_access_allowed: false, logo_url: 'https://agent.example.test/logo.png',
  });
  assertShape(created, 'ConnectedAppsClientsCreateResponse');
  assertShape(created.connected_app, 'ConnectedAppWithClientSecret');
  const id = created.connected_app.client_id;
  assert.ok(created.connected_app.client_secret);

  const got = await client.connectedApp.clients.get({ client_id: id });
  assertShape(got, 'ConnectedAppsClientsGetResponse');
  assertShape(got.connected_app, 'ConnectedApp');
  assert.equal(got.connected_app.client_secret, undefined);

  const updated = await client.connectedApp.clients.update({ client_id: id, client_name: 'Agent 2', access_token_expiry_minutes: 30 });
  assertShape(updated, 'ConnectedAppsClientsUpdateResponse');
  assert.equal(updated.connected_app.client_name, 'Agent 2');

  const pub = await client.connectedApp.clients.create({ client_type: 'first_party_public', redirect_urls: ['http://localhost:5173/cb'] });
  assert.equal(pub.connected_app.client_secret, undefined);

  const search = await client.connectedApp.clients.search({ limit: 1 });
  assertShape(search, 'ConnectedAppsClientsSearchResponse');
  assert.equal(search.results_metadata.total, 2);
  const page2 = await client.connectedApp.clients.search({ limit: 1, cursor: search.results_metadata.next_cursor });
  assert.notEqual(page2.connected_apps[0].client_id, search.connected_apps[0].client_id);

  const start = await client.connectedApp.clients.secrets.rotateStart({ client_id: id });
  assertShape(start, 'ConnectedAppsClientsSecretsRotateStartResponse');
  assertShape(start.connected_app, 'ConnectedAppWithNextClientSecret');
  const cancel = await client.connectedApp.clients.secrets.rotateCancel({ client_id: id });
  assertShape(cancel, 'ConnectedAppsClientsSecretsRotateCancelResponse');
  await client.connectedApp.clients.secrets.rotateStart({ client_id: id });
  const done = await client.connectedApp.clients.secrets.rotate({ client_id: id });
  assertShape(done, 'ConnectedAppsClientsSecretsRotateResponse');

  const del = await client.connectedApp.clients.delete({ client_id: id });
  assertShape(del, 'ConnectedAppsClientsDeleteResponse');
  await assert.rejects(client.connectedApp.clients.get({ client_id: id }), (e) => e.error_type === 'connected_app_not_found');
});

test('m2m: clients CRUD, search, rotation; token and local authenticateToken', async () => {
  const client = newClient();
  const created = await client.m2m.clients.create({ client_name: 'Reporter', scopes: ['read:reports', 'write:reports'], trusted_metadata: { team: 'bi' } });
  assertShape(created, 'M2MClientsCreateResponse');
  assertShape(created.m2m_client, 'M2MClientWithClientSecret');
  const { client_id: id, client_secret: secret } = created.m2m_client;

  assertShape(await client.m2m.clients.get({ client_id: id }), 'M2MClientsGetResponse');
  const updated = await client.m2m.clients.update({ client_id: id, client_description: 'Nightly reports' });
  assertShape(updated, 'M2MClientsUpdateResponse');
  const search = await client.m2m.clients.search({ query: { operator: 'AND', operands: [{ filter_name: 'scopes', filter_value: ['read:reports'] }] } });
  assertShape(search, 'M2MClientsSearchResponse');
  assert.deepEqual(search.m2m_clients.map((c) => c.client_id), [id]);

  const token = await client.m2m.token({ client_id: id, client_secret: secret, scopes: ['read:reports'] });
  assertShape(token, 'TokenResponse');
  const auth = await client.m2m.authenticateToken({ access_token: token.access_token, required_scopes: ['read:reports'] });
  assert.equal(auth.client_id, id);
  assert.deepEqual(auth.scopes, ['read:reports']);
  await assert.rejects(client.m2m.authenticateToken({ access_token: token.access_token, required_scopes: ['write:reports'] }));
  // The SDK copies status_code, request_id and error_uri from an OAuth2 error body onto its StytchError.
  await assert.rejects(client.m2m.token({ client_id: id, client_secret: 'wrong', scopes: ['read:reports'] }),
    (e) => e.error_type === 'invalid_client' && e.status_code === 400 && /^request-id-/.test(e.request_id) && e.error_url.endsWith('invalid_client'));
  await assert.rejects(client.m2m.token({ client_id: id, client_secret: secret, scopes: ['admin'] }), (e) => e.error_type === 'invalid_scope');

  const start = await client.m2m.clients.secrets.rotateStart({ client_id: id });
  assertShape(start, 'M2MClientsSecretsRotateStartResponse');
  const next = start.m2m_client.next_client_secret;
  // During the rotation both secrets work; afterwards only the new one.
  await client.m2m.token({ client_id: id, client_secret: next });
  assertShape(await client.m2m.clients.secrets.rotate({ client_id: id }), 'M2MClientsSecretsRotateResponse');
  await assert.rejects(client.m2m.token({ client_id: id, client_secret: secret }));
  await client.m2m.token({ client_id: id, client_secret: next });
  await client.m2m.clients.secrets.rotateStart({ client_id: id });
  assertShape(await client.m2m.clients.secrets.rotateCancel({ client_id: id }), 'M2MClientsSecretsRotateCancelResponse');

  assertShape(await client.m2m.clients.delete({ client_id: id }), 'M2MClientsDeleteResponse');
});

test('idp: backend authorize, token exchange, introspectTokenLocal and introspectTokenNetwork; member connected apps', async () => {
  const client = newClient();
  const { organization } = await client.organizations.create({ organization_name: 'IdP Compat', organization_slug: 'idp-compat' });
  const email = uniqueEmail('idp-compat');
  const { member } = await client.organizations.members.create({ organization_id: organization.organization_id, email_address: email });
  const app = (await client.connectedApp.clients.create({ client_type: 'first_party', client_name: 'Portal', redirect_urls: ['https://portal.example.test/cb'] })).connected_app;

  const req = { client_id: app.client_id, redirect_uri: 'https://portal.example.test/cb', response_type: 'code', scopes: ['openid', 'email'],
    organization_id: organization.organization_id, member_id: member.member_id };
  const start = await client.idp.oauth.authorizeStart(req);
  assert.equal(start.consent_required, false, 'first-party apps need no consent');
  const authz = await client.idp.oauth.authorize({ ...req, consent_granted: true, state: 's' });
  assert.ok(authz.authorization_code);
  const res = await fetch(`${h.apiBase}/v1/public/${h.project.project_id}/oauth2/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: authz.authorization_code, redirect_uri: req.redirect_uri,
      client_id: app.client_id, client_secret: app.client_secret }),
  });
  const tokens = await res.json();
  assert.equal(res.status, 200, JSON.stringify(tokens));

  const local = await client.idp.introspectTokenLocal(tokens.access_token);
  assert.equal(local.subject, member.member_id);
  assert.equal(local.scope, 'openid email');
  assert.equal(local.organization.organization_id, organization.organization_id);
  const network = await client.idp.introspectTokenNetwork({ token: tokens.access_token, client_id: app.client_id, client_secret: app.client_secret });
  assert.equal(network.subject, member.member_id);
  assert.equal(network.organization.slug, 'idp-compat');

  const apps = await client.organizations.members.getConnectedApps({ organization_id: organization.organization_id, member_id: member.member_id });
  assertShape(apps, 'B2BOrganizationsMembersGetConnectedAppsResponse');
  assertShape(apps.connected_apps[0], 'MemberConnectedApp');
  const orgApps = await client.organizations.connectedApps({ organization_id: organization.organization_id });
  assertShape(orgApps, 'B2BOrganizationsConnectedAppsResponse');
  const one = await client.organizations.getConnectedApp({ organization_id: organization.organization_id, connected_app_id: app.client_id });
  assertShape(one, 'B2BOrganizationsGetConnectedAppResponse');
  const revoked = await client.organizations.members.connectedApps.revoke({ organization_id: organization.organization_id,
    member_id: member.member_id, connected_app_id: app.client_id });
  assertShape(revoked, 'B2BOrganizationsMembersConnectedAppsRevokeResponse');
  await assert.rejects(client.idp.introspectTokenNetwork({ token: tokens.access_token, client_id: app.client_id, client_secret: app.client_secret }),
    (e) => e.code === 'token_invalid');
});

