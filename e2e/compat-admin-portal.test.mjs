// Compatibility: the vendor's Admin Portal (@stytch/vanilla-js 6.3.0) administers SSO and SCIM against
// our real binary: SAML and OIDC connections (created, renamed, deleted), their IdP values (an OIDC
// connection's edited in its details screen), a SAML connection's certificates (one deleted), role
// assignments and external connections, the default connection, SCIM connections, their tokens and
// group roles. Every request the portal makes is recorded: none may be refused as unknown (404, 405)
// or answered with an error the portal did not ask for. A failure here is a wire-format bug in our
// server (admin-portal.mjs).
import assert from 'node:assert/strict';
import { h, newConnection, watchPage, adminOrg, openPortal, scimStatus, devSamlIdp, pemBody, sectionEdit, saveSection, samlConnectionOf, pickOption, pickMenuItem, tickInPanel } from './admin-portal.mjs';

h.test('admin portal SSO: list connections, create a SAML connection, rename it', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO');
  const orgId = org.organization_id;
  // One connection made by the backend, which the list must show.
  await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Existing Okta', identity_provider: 'okta' });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Existing Okta').waitFor();
  assert.ok(w.calls.includes('GET /sdk/v1/b2b/admin_portal_config 200'), w.calls.join('\n'));

  const connectionId = await newConnection(page, 'Portal SAML', 'SAML');
  // Its default attribute mapping is saved with the connection (the IdP's values come later).
  const configured = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await configured).status(), 200);
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Portal SAML').waitFor();

  // Rename it from its details screen.
  await page.getByText('Portal SAML').click();
  await page.getByText('Display Name', { exact: true }).waitFor();
  // Three sections have an Edit button; Details, with the display name, is the last.
  await page.getByRole('button', { name: 'Edit', exact: true }).last().click();
  const nameInput = page.getByRole('textbox').first();
  assert.equal(await nameInput.inputValue(), 'Portal SAML');
  await nameInput.fill('Portal SAML Renamed');
  const renamed = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await renamed).status(), 200);
  await page.getByRole('heading', { name: 'Portal SAML Renamed' }).waitFor();

  const { saml_connections: saml } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.deepEqual(saml.map((c) => c.display_name).sort(), ['Existing Okta', 'Portal SAML Renamed']);
  w.assertClean();
});

h.test('admin portal SCIM: create a connection and see its token', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM');
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Set up a SCIM connection to sync from an IdP.').waitFor();
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByText('Create SCIM Connection').waitFor();
  await page.getByText('Select', { exact: true }).click();
  await page.getByText('Okta', { exact: true }).click();
  await page.getByPlaceholder('Display name').fill('Portal Okta SCIM');
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  const res = await created;
  assert.equal(res.status(), 200);
  const { connection } = (await res.json()).data;
  assert.match(connection.bearer_token ?? '', /\S{20,}/);

  // The token is shown once, on the configure screen, and it is the one the SCIM service accepts.
  await page.getByText('Configure Portal Okta SCIM').waitFor();
  await page.getByText('Copy the SCIM Connection Settings to your IdP.').click();
  await page.getByText('HTTP Header Authorization: Bearer').waitFor();
  await page.getByText(connection.bearer_token, { exact: true }).waitFor();
  await page.getByText(connection.base_url, { exact: true }).first().waitFor();
  const spc = await fetch(`${h.apiBase}${new URL(connection.base_url).pathname}/ServiceProviderConfig`, {
    headers: { authorization: `Bearer ${connection.bearer_token}` }, signal: AbortSignal.timeout(5000),
  });
  assert.equal(spc.status, 200);
  await tickInPanel(page, page.getByRole('checkbox', { name: 'I have copied the above values to my IdP.' }));
  await page.getByRole('button', { name: 'Done' }).click();
  // Afterwards only the last four characters are shown (from GET b2b/scim's bearer_token_last_four).
  await page.getByText('Portal Okta SCIM', { exact: true }).waitFor();
  await page.getByText(new RegExp(`^\\*+${connection.bearer_token.slice(-4)}$`)).waitFor();
  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${org.organization_id}/connection`);
  assert.equal(stored.connection_id, connection.connection_id);
  assert.equal(stored.identity_provider, 'okta');
  w.assertClean();
});

h.test('admin portal SSO: set a connection as the default', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO Default');
  const orgId = org.organization_id;
  await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'First IdP', identity_provider: 'okta' });
  const { connection: second } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Second IdP', identity_provider: 'generic' });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  const row = page.getByRole('row').filter({ has: page.getByText('Second IdP', { exact: true }) });
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Set as default' }).click();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('dialog').getByRole('button', { name: 'Set as default' }).click();
  assert.equal((await updated).status(), 200);
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.sso_default_connection_id, second.connection_id);
  w.assertClean();
});

h.test('admin portal SCIM: rotate the token', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Rotation');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Rotating SCIM', identity_provider: 'okta' });
  const oldToken = connection.bearer_token;
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Token Rotation', { exact: true }).waitFor();

  const started = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim/rotate/start'));
  await page.getByRole('button', { name: 'Start token rotation' }).click();
  const res = await started;
  assert.equal(res.status(), 200);
  const newToken = (await res.json()).data.connection.next_bearer_token;
  assert.match(newToken ?? '', /\S{20,}/);
  const dialog = page.getByRole('dialog');
  await dialog.getByText(newToken, { exact: true }).waitFor();
  await dialog.getByText('I have copied the token to my IdP.').click();
  await dialog.getByRole('button', { name: 'Done' }).click();
  await dialog.waitFor({ state: 'detached' });
  // While the rotation is open, both tokens are accepted.
  assert.equal(await scimStatus(connection.base_url, oldToken), 200);
  assert.equal(await scimStatus(connection.base_url, newToken), 200);

  await page.getByRole('button', { name: 'Complete rotation' }).click();
  const completed = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/scim/rotate/complete'));
  await page.getByRole('dialog').getByRole('button', { name: 'Complete rotation' }).click();
  assert.equal((await completed).status(), 200);
  await page.getByRole('button', { name: 'Start token rotation' }).waitFor();
  assert.equal(await scimStatus(connection.base_url, oldToken), 401);
  assert.equal(await scimStatus(connection.base_url, newToken), 200);
  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.equal(stored.bearer_token_last_four, newToken.slice(-4));
  w.assertClean();
});

h.test('admin portal SSO: create an OIDC connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal OIDC');
  const orgId = org.organization_id;
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  const connectionId = await newConnection(page, 'Portal OIDC', 'OIDC');
  // The IdP's values: dev mode's built-in OpenID provider, whose discovery the server reads (its
  // issuer is under the server's base URL, which names localhost).
  await page.getByText('Enter the following from your IdP.').click();
  const issuer = `http://localhost:${h.port}/dev/oidc`;
  await page.getByPlaceholder('Enter Client ID').fill('dev-oidc-client');
  await page.getByPlaceholder('Enter Client Secret').fill('dev-oidc-secret');
  await page.getByPlaceholder('Enter Issuer').fill(issuer);
  const configured = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/oidc/${connectionId}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  assert.equal((await configured).status(), 200);
  assert.equal((await (await configured).json()).data.warning, '', 'the discovery document was read');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  // By its cell: the organization's first active connection is its default, and the portal then
  // writes a "Default" tag into the same text element, as soon as it has read the organization again.
  await page.getByRole('cell', { name: /^Portal OIDC/ }).waitFor();

  const { oidc_connections: oidc } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.equal(oidc.length, 1);
  assert.equal(oidc[0].connection_id, connectionId);
  assert.equal(oidc[0].display_name, 'Portal OIDC');
  assert.equal(oidc[0].client_id, 'dev-oidc-client');
  assert.equal(oidc[0].issuer, issuer);
  // The endpoints came from the issuer's discovery document; the secret is never sent back.
  assert.equal(oidc[0].token_url, `${issuer}/token`);
  assert.equal(oidc[0].client_secret, '');
  assert.equal(oidc[0].status, 'active');
  w.assertClean();
});

h.test('admin portal SSO: enter a SAML connection\'s IdP values by hand (sign-on URL, entity id, certificate)', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SAML Manual');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Manual IdP', identity_provider: 'generic' });
  assert.equal(connection.status, 'pending');
  const idp = await devSamlIdp();
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Manual IdP', { exact: true }).click();
  await page.getByRole('heading', { name: 'Manual IdP' }).waitFor();

  await sectionEdit(page, 'Details').click();
  await page.getByRole('button', { name: 'Configure manually' }).click();
  await page.getByPlaceholder('Enter IdP Sign-on URL').fill(idp.ssoUrl);
  await page.getByPlaceholder('Enter IdP Entity ID').fill(idp.entityId);
  // The attribute mapping has an "Add new" button too; the certificates' is in their own list item.
  await page.locator('dt', { hasText: 'x509 Certificate (PEM Format)' }).locator('xpath=following-sibling::dd[1]')
    .getByRole('button', { name: 'Add new' }).click();
  const addCert = page.getByRole('dialog');
  await addCert.getByPlaceholder('Enter certificate').fill(idp.certificate);
  await addCert.getByRole('button', { name: 'Ok' }).click();
  await addCert.waitFor({ state: 'detached' });
  await page.getByText('Pending', { exact: true }).first().waitFor();
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  const sent = JSON.parse(res.request().postData());
  assert.equal(sent.idp_sso_url, idp.ssoUrl);
  assert.equal(sent.idp_entity_id, idp.entityId);
  // Back in the read-only view: the values and the certificate's issuer (from our answer).
  await page.getByText(idp.ssoUrl, { exact: true }).waitFor();
  await page.getByText('Latchkey dev SAML IdP', { exact: false }).first().waitFor();
  await page.getByRole('button', { name: 'Test connection' }).waitFor();

  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.equal(stored.idp_sso_url, idp.ssoUrl);
  assert.equal(stored.idp_entity_id, idp.entityId);
  assert.equal(stored.verification_certificates.length, 1);
  assert.equal(pemBody(stored.verification_certificates[0].certificate), idp.certificateBase64);
  assert.equal(stored.status, 'active');
  w.assertClean();
});

h.test('admin portal SSO: configure a new SAML connection from the IdP\'s metadata URL', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SAML Metadata');
  const orgId = org.organization_id;
  const idp = await devSamlIdp();
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  const connectionId = await newConnection(page, 'Metadata SAML', 'SAML');
  await page.getByText('Enter the following from your IdP.').click();
  await page.getByPlaceholder('Enter Metadata URL').fill(idp.metadataUrl);
  const byUrl = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connectionId}/url`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Create' }).click();
  const res = await byUrl;
  assert.equal(res.status(), 200);
  assert.equal(JSON.parse(res.request().postData()).metadata_url, idp.metadataUrl);
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  // By its cell: the organization's first active connection is its default, and the portal then
  // writes a "Default" tag into the same text element, as soon as it has read the organization again.
  await page.getByRole('cell', { name: /^Metadata SAML/ }).waitFor();

  // The server read the metadata: the sign-on URL, the entity id and the signing certificate.
  const stored = await samlConnectionOf(orgId, connectionId);
  assert.equal(stored.idp_entity_id, idp.entityId);
  assert.equal(stored.idp_sso_url, idp.ssoUrl);
  assert.deepEqual(stored.verification_certificates.map((c) => pemBody(c.certificate)), [idp.certificateBase64]);
  assert.equal(stored.status, 'active');
  w.assertClean();
});

h.test('admin portal SSO: a SAML connection\'s role assignments (connection roles and group roles)', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Roles IdP', identity_provider: 'generic' });
  // Group roles need the attribute the IdP sends groups in.
  await h.api('PUT', `/v1/b2b/sso/saml/${orgId}/connections/${connection.connection_id}`, {
    attribute_mapping: { email: 'NameID', groups: 'groups' },
  });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByText('Roles IdP', { exact: true }).click();
  await page.getByRole('heading', { name: 'Roles IdP' }).waitFor();

  await sectionEdit(page, 'Role assignments').click();
  // The first combobox is the connection roles'; "Add group roles" adds a group name and its roles.
  await pickOption(page, page.getByRole('combobox').first(), 'stytch_admin');
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Add group roles' }).click();
  await page.getByLabel('Group name').fill('engineering');
  await pickOption(page, page.getByLabel('Group Role'), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  assert.deepEqual(JSON.parse(res.request().postData()).saml_connection_implicit_role_assignments, [{ role_id: 'stytch_admin' }]);
  // The read-only view shows the group from our answer.
  await page.getByRole('cell', { name: 'engineering', exact: true }).waitFor();

  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.deepEqual(stored.saml_connection_implicit_role_assignments.map((a) => a.role_id), ['stytch_admin']);
  assert.deepEqual(stored.saml_group_implicit_role_assignments.map(({ group, role_id }) => ({ group, role_id })),
    [{ group: 'engineering', role_id: 'stytch_admin' }]);
  w.assertClean();
});

h.test('admin portal SCIM: delete the connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Delete');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Doomed SCIM', identity_provider: 'okta' });
  assert.equal(await scimStatus(connection.base_url, connection.bearer_token), 200);
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Doomed SCIM', { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Delete Connection' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Delete SCIM connection?').waitFor();
  const deleted = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/scim/${connection.connection_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Delete connection' }).click();
  assert.equal((await deleted).status(), 200);
  // Back to the empty state, which offers a new connection.
  await page.getByText('Set up a SCIM connection to sync from an IdP.').waitFor();

  const after = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.equal(after.connection ?? null, null, JSON.stringify(after));
  assert.equal(await scimStatus(connection.base_url, connection.bearer_token), 401);
  w.assertClean();
});

h.test('admin portal SCIM: give a SCIM group a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SCIM Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/scim/${orgId}/connection`, { display_name: 'Roles SCIM', identity_provider: 'okta' });
  // The identity provider pushes a group (the portal offers only groups it knows).
  const pushed = await fetch(`${h.apiBase}${new URL(connection.base_url).pathname}/Groups`, {
    method: 'POST',
    headers: { authorization: `Bearer ${connection.bearer_token}`, 'content-type': 'application/scim+json' },
    body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'Admins Group', members: [] }),
    signal: AbortSignal.timeout(5000),
  });
  assert.equal(pushed.status, 201);
  const group = await pushed.json();
  const w = watchPage(page);
  await openPortal(page, 'scim');
  await page.getByText('Roles SCIM', { exact: true }).waitFor();
  await sectionEdit(page, 'Role Assignments').click();
  await page.getByRole('button', { name: 'Add group roles' }).click();
  await pickMenuItem(page, page.getByRole('combobox').first(), 'Admins Group');
  await pickOption(page, page.getByLabel('Group Role'), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/scim/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByText('Admins Group', { exact: true }).waitFor();

  const { connection: stored } = await h.api('GET', `/v1/b2b/scim/${orgId}/connection`);
  assert.deepEqual(stored.scim_group_implicit_role_assignments.map(({ group_id, role_id }) => ({ group_id, role_id })),
    [{ group_id: group.id, role_id: 'stytch_admin' }]);
  w.assertClean();
});

h.test('admin portal SSO: add an external connection to another organization\'s SAML connection, give it a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal External');
  const orgId = org.organization_id;
  // The source: another organization of the project with an active SAML connection.
  const idp = await devSamlIdp();
  const source = await h.createOrg({ name: 'Portal Source', slug: `portal-source-${Date.now().toString(36)}` });
  const { connection: pending } = await h.api('POST', `/v1/b2b/sso/saml/${source.organization_id}`, { display_name: 'Source IdP', identity_provider: 'generic' });
  const { connection: sourceConn } = await h.api('PUT', `/v1/b2b/sso/saml/${source.organization_id}/connections/${pending.connection_id}`, {
    idp_entity_id: idp.entityId, idp_sso_url: idp.ssoUrl, x509_certificate: idp.certificate, attribute_mapping: { email: 'NameID' },
  });
  assert.equal(sourceConn.status, 'active');
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByRole('button', { name: 'New connection' }).click();
  await page.getByText('New SSO Connection').waitFor();
  await page.getByPlaceholder('Text').fill('Partner SSO');
  await page.getByRole('button', { name: 'Add an external connection' }).click();
  await page.getByLabel('Source Organization ID').fill(source.organization_id);
  await page.getByLabel('Source Connection ID').fill(sourceConn.connection_id);
  const created = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/sso/external') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create' }).click();
  const res = await created;
  assert.equal(res.status(), 200);
  const connectionId = (await res.json()).data.connection.connection_id;
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();

  // Its details show the source, and its connection roles can be set.
  await page.getByText('Partner SSO', { exact: true }).click();
  await page.getByRole('heading', { name: 'Partner SSO' }).waitFor();
  await page.getByText(source.organization_id, { exact: true }).waitFor();
  await sectionEdit(page, 'Role assignments').click();
  await pickOption(page, page.getByRole('combobox').first(), 'stytch_admin');
  await page.keyboard.press('Escape');
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/external/${connectionId}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor({ state: 'detached' });

  const { external_connections: ext } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.equal(ext.length, 1);
  assert.equal(ext[0].connection_id, connectionId);
  assert.equal(ext[0].display_name, 'Partner SSO');
  assert.equal(ext[0].external_organization_id, source.organization_id);
  assert.equal(ext[0].external_connection_id, sourceConn.connection_id);
  assert.equal(ext[0].status, 'active');
  assert.deepEqual(ext[0].external_connection_implicit_role_assignments, [{ role_id: 'stytch_admin' }]);
  w.assertClean();
});

h.test('admin portal SSO: delete a connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SSO Delete');
  const orgId = org.organization_id;
  const { connection: kept } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Kept IdP', identity_provider: 'okta' });
  const { connection: doomed } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Doomed IdP', identity_provider: 'generic' });
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  const row = page.getByRole('row').filter({ has: page.getByText('Doomed IdP', { exact: true }) });
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Delete Doomed IdP?').waitFor();
  const deleted = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/${doomed.connection_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  assert.equal((await deleted).status(), 200);
  await dialog.waitFor({ state: 'detached' });
  await page.getByText('Doomed IdP', { exact: true }).waitFor({ state: 'detached' });
  await page.getByText('Kept IdP', { exact: true }).waitFor();

  const { saml_connections: saml } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.deepEqual(saml.map((c) => c.connection_id), [kept.connection_id]);
  w.assertClean();
});

h.test('admin portal SSO: delete one of a SAML connection\'s two certificates', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal SAML Certs');
  const orgId = org.organization_id;
  const idp = await devSamlIdp();
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Rotating IdP', identity_provider: 'generic' });
  const connUrl = `/v1/b2b/sso/saml/${orgId}/connections/${connection.connection_id}`;
  await h.api('PUT', connUrl, { idp_entity_id: idp.entityId, idp_sso_url: idp.ssoUrl, x509_certificate: idp.certificate });
  // The IdP's next certificate, added beside the current one (the portal lets a certificate go only
  // while another remains). Any other X.509 certificate will do: the connection's own service-provider
  // certificate is one at hand, with another issuer.
  const next = connection.signing_certificates[0];
  const { connection: both } = await h.api('PUT', connUrl, { x509_certificate: next.certificate });
  assert.equal(both.verification_certificates.length, 2);
  const [old, kept] = both.verification_certificates;
  assert.equal(pemBody(old.certificate), idp.certificateBase64);
  assert.notEqual(old.issuer, kept.issuer);
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  // An organization's first active connection is its default: the cell carries a "Default" tag.
  await page.getByRole('cell', { name: /^Rotating IdP/ }).click();
  await page.getByRole('heading', { name: 'Rotating IdP' }).waitFor();

  await sectionEdit(page, 'Details').click();
  const oldRow = page.getByRole('row').filter({ hasText: old.issuer });
  const keptRow = page.getByRole('row').filter({ hasText: kept.issuer });
  await oldRow.getByRole('button', { name: 'Delete', exact: true }).click();
  await oldRow.waitFor({ state: 'detached' });
  // The last certificate cannot be deleted: its row offers no Delete any more.
  await keptRow.getByRole('button', { name: 'Delete', exact: true }).waitFor({ state: 'detached' });
  const deleted = page.waitForResponse((r) => r.request().method() === 'DELETE' &&
    r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}/verification_certificates/${old.certificate_id}`));
  await saveSection(page);
  assert.equal((await deleted).status(), 200);
  // Back in the read-only view, the remaining certificate is listed from our answer.
  await page.getByRole('button', { name: 'Save', exact: true }).waitFor({ state: 'detached' });
  await keptRow.getByRole('button', { name: 'View', exact: true }).waitFor();
  await oldRow.waitFor({ state: 'detached' });

  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.deepEqual(stored.verification_certificates.map((c) => c.certificate_id), [kept.certificate_id]);
  assert.equal(pemBody(stored.verification_certificates[0].certificate), pemBody(next.certificate));
  assert.equal(stored.status, 'active');
  w.assertClean();
});

h.test('admin portal SSO: edit an OIDC connection\'s values in its details screen (client, issuer, endpoints)', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal OIDC Details');
  const orgId = org.organization_id;
  // An active connection, its endpoints read from dev mode's OpenID provider's discovery document.
  const { connection } = await h.api('POST', `/v1/b2b/sso/oidc/${orgId}`, { display_name: 'Moving OIDC', identity_provider: 'generic' });
  const devIssuer = `http://localhost:${h.port}/dev/oidc`;
  const { connection: before } = await h.api('PUT', `/v1/b2b/sso/oidc/${orgId}/connections/${connection.connection_id}`, {
    client_id: 'old-client', client_secret: 'old-secret', issuer: devIssuer,
  });
  assert.equal(before.status, 'active');
  assert.equal(before.token_url, `${devIssuer}/token`);
  const w = watchPage(page);
  await openPortal(page, 'sso');
  await page.getByRole('heading', { name: 'SSO Connections' }).waitFor();
  await page.getByRole('cell', { name: /^Moving OIDC/ }).click();
  await page.getByRole('heading', { name: 'Moving OIDC' }).waitFor();
  await page.getByText(devIssuer, { exact: true }).waitFor();

  // The organization moves to another tenant of its IdP: new client, secret, issuer and endpoints,
  // entered by hand (the issuer is not reachable from here, so nothing is discovered).
  const issuer = 'https://login.portal-oidc.test/tenant-b';
  const endpoints = {
    authorization_url: `${issuer}/oauth2/authorize`, token_url: `${issuer}/oauth2/token`,
    userinfo_url: `${issuer}/oauth2/userinfo`, jwks_url: `${issuer}/oauth2/keys`,
  };
  await sectionEdit(page, 'Details').click();
  const clientId = page.getByPlaceholder('Enter Client ID');
  assert.equal(await clientId.inputValue(), 'old-client');
  await clientId.fill('tenant-b-client');
  await page.getByPlaceholder('Enter Client Secret').fill('tenant-b-secret');
  await page.getByPlaceholder('URL', { exact: true }).fill(issuer);
  await page.getByRole('button', { name: 'Configure manually' }).click();
  // The endpoint fields start from the stored (discovered) values.
  const tokenUrl = page.getByPlaceholder('Enter Token URL');
  assert.equal(await tokenUrl.inputValue(), `${devIssuer}/token`);
  await page.getByPlaceholder('Enter Authorization URL').fill(endpoints.authorization_url);
  await tokenUrl.fill(endpoints.token_url);
  await page.getByPlaceholder('Enter User info URL').fill(endpoints.userinfo_url);
  await page.getByPlaceholder('Enter JWKS URL').fill(endpoints.jwks_url);
  const updated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/oidc/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  assert.deepEqual(JSON.parse(res.request().postData()), {
    connection_id: connection.connection_id, client_id: 'tenant-b-client', client_secret: 'tenant-b-secret', issuer, ...endpoints,
  });
  assert.equal((await res.json()).data.warning, '', 'every endpoint was given: no discovery was tried');
  // Back in the read-only view, with the values from our answer.
  await page.getByText(issuer, { exact: true }).waitFor();
  await page.getByText('tenant-b-client', { exact: true }).waitFor();

  const { oidc_connections: oidc } = await h.api('GET', `/v1/b2b/sso/${orgId}`);
  assert.equal(oidc.length, 1);
  const stored = oidc[0];
  assert.equal(stored.connection_id, connection.connection_id);
  assert.equal(stored.client_id, 'tenant-b-client');
  assert.equal(stored.issuer, issuer);
  assert.deepEqual(
    { authorization_url: stored.authorization_url, token_url: stored.token_url, userinfo_url: stored.userinfo_url, jwks_url: stored.jwks_url },
    endpoints);
  // The secret is stored but never sent back.
  assert.equal(stored.client_secret, '');
  assert.equal(stored.status, 'active');
  w.assertClean();
});
