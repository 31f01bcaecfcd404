// Compatibility: SCIM provisioning through the public `stytch` Node client (stytch@14.2.0, a client
// we did not write) and a SCIM 2.0 client flow against our real binary. The connection is managed
// with client.scim.connection.*, every answer checked against the client's declarations; then the
// SCIM service at the connection's base_url is driven with plain fetch the way Okta and Microsoft
// Entra call it, and what it did is read back through the Node client (organizations.members.get).
// Finally a provisioned member logs in through the widget with an emailed code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import stytch from 'stytch';
import { useHarness, cookieValue, enterCode, codeOf, uniqueEmail, BIN, TEXT } from './harness.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const execFileP = promisify(execFile);
const h = useHarness();

// A custom role for SCIM groups to grant, so its source is unmistakable.
const POLICY = {
  resources: [{ resource_id: 'documents', description: 'Shared documents', actions: ['read', 'write'] }],
  roles: [
    { role_id: 'engineering-editor', description: 'Engineering', permissions: [{ resource_id: 'documents', actions: ['*'] }] },
  ],
  scopes: [],
};

// Set once, by the first test that needs it. (Not a before() hook: in Node 20 a file's top-level
// hooks are not ordered after the harness's own, whose project this needs.)
let policySet = null;
function setPolicy() {
  policySet ??= (async () => {
    const file = path.join(h.tmp, 'policy.json');
    await writeFile(file, JSON.stringify(POLICY));
    const args = ['project', 'rbac', 'set', '--project', h.project.project_id, '--file', file];
    try {
      await execFileP(BIN, args, { env: h.env, cwd: h.tmp, timeout: 20_000 });
    } catch (e) {
      throw new Error(`latchkey ${args.join(' ')}: ${e.message}\n${e.stderr}`);
    }
  })();
  return policySet;
}

async function newClient() {
  await setPolicy();
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

let seq = 0;
async function newOrganization(client, name, extra = {}) {
  seq++;
  const { organization } = await client.organizations.create({
    organization_name: `${name} ${seq}`,
    organization_slug: `scim-${seq}-${Date.now().toString(36)}`,
    ...extra,
  });
  return organization;
}

/**
 * One SCIM request as an identity provider sends it: the resource path goes after base_url's path,
 * base_url's own query (Entra's ?aadOptscim062020) is kept, and `query` is added to it. Answers
 * {status, type, body}.
 */
async function scim(baseUrl, token, method, resource, { body, query = {} } = {}) {
  const u = new URL(baseUrl);
  u.pathname += resource;
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  const headers = { authorization: `Bearer ${token}`, accept: 'application/scim+json' };
  if (body !== undefined) headers['content-type'] = 'application/scim+json';
  const res = await fetch(u, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : null };
}

/** A SCIM call that must succeed with `status`; answers the body. */
async function scimOk(baseUrl, token, method, resource, status, opts) {
  const r = await scim(baseUrl, token, method, resource, opts);
  assert.equal(r.status, status, `${method} ${resource}: ${JSON.stringify(r.body)}`);
  if (r.body !== null) assert.match(r.type, /^application\/scim\+json/);
  return r.body;
}

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** A 401 in SCIM's error shape (RFC 7644 3.12). */
async function assertRefused(baseUrl, token, what) {
  const r = await scim(baseUrl, token, 'GET', '/Users', { query: { count: '1' } });
  assert.equal(r.status, 401, `${what}: ${JSON.stringify(r.body)}`);
  assert.match(r.type, /^application\/scim\+json/);
  assert.deepEqual(r.body.schemas, [ERROR]);
  assert.equal(r.body.status, '401', 'status is a string in SCIM errors');
}

async function assertAccepted(baseUrl, token, what) {
  const r = await scim(baseUrl, token, 'GET', '/Users', { query: { count: '1' } });
  assert.equal(r.status, 200, `${what}: ${JSON.stringify(r.body)}`);
}

/** Okta's user: userName is the email, a primary work email, given and family names. */
function oktaUser(email, given, family) {
  return {
    schemas: [USER],
    userName: email,
    name: { givenName: given, familyName: family },
    emails: [{ primary: true, value: email, type: 'work' }],
    displayName: `${given} ${family}`,
    locale: 'en-US',
    externalId: `00u${Math.random().toString(36).slice(2, 12)}`,
    groups: [],
    active: true,
  };
}

test('node client: scim.connection creates, gets, updates, rotates, lists groups and deletes, as declared', async () => {
  const client = await newClient();
  const org = await newOrganization(client, 'Okta Co');
  const organization_id = org.organization_id;

  // No connection yet: the answer has none.
  const none = await client.scim.connection.get({ organization_id });
  assertShape(none, 'B2BSCIMConnectionGetResponse');
  assert.equal(none.connection, undefined);

  const created = await client.scim.connection.create({ organization_id, display_name: 'Okta SCIM', identity_provider: 'okta' });
  assertShape(created, 'B2BSCIMConnectionCreateResponse');
  const conn = created.connection;
  assertShape(conn, 'SCIMConnectionWithToken');
  assert.equal(conn.organization_id, organization_id);
  assert.equal(conn.display_name, 'Okta SCIM');
  assert.equal(conn.identity_provider, 'okta');
  assert.equal(conn.status, 'active');
  assert.equal(conn.base_url, `${h.base}/v1/b2b/scim/${conn.connection_id}`);
  assert.ok(conn.bearer_token.length >= 32, `a long bearer token: ${conn.bearer_token}`);
  assert.deepEqual(conn.scim_group_implicit_role_assignments, []);
  const expires = Date.parse(conn.bearer_token_expires_at);
  assert.ok(Math.abs(expires - Date.now() - 365 * 86400_000) < 2 * 86400_000, `a year from now: ${conn.bearer_token_expires_at}`);

  // A second connection for the same organization is refused.
  await assert.rejects(
    client.scim.connection.create({ organization_id, identity_provider: 'okta' }),
    (e) => e instanceof stytch.StytchError && e.error_type === 'active_scim_connection_exists',
  );

  const got = await client.scim.connection.get({ organization_id });
  assertShape(got, 'B2BSCIMConnectionGetResponse');
  assertShape(got.connection, 'SCIMConnection');
  assert.equal(got.connection.connection_id, conn.connection_id);
  assert.equal(got.connection.bearer_token, undefined, 'the token is shown once');
  assert.equal(got.connection.bearer_token_last_four, conn.bearer_token.slice(-4));
  assert.equal(got.connection.next_bearer_token_last_four, '');
  assert.equal(got.connection.base_url, conn.base_url);

  const orgGot = await client.organizations.get({ organization_id });
  assertShape(orgGot, 'B2BOrganizationsGetResponse');
  const { organization } = orgGot;
  assertShape(organization.scim_active_connection, 'ActiveSCIMConnection');
  assert.equal(organization.scim_active_connection.connection_id, conn.connection_id);
  assert.equal(organization.scim_active_connection.display_name, 'Okta SCIM');
  assert.equal(organization.scim_active_connection.bearer_token_last_four, conn.bearer_token.slice(-4));

  const updated = await client.scim.connection.update({ organization_id, connection_id: conn.connection_id, display_name: 'Okta Provisioning' });
  assertShape(updated, 'B2BSCIMConnectionUpdateResponse');
  assertShape(updated.connection, 'SCIMConnection');
  assert.equal(updated.connection.display_name, 'Okta Provisioning');
  assert.equal(updated.connection.identity_provider, 'okta', 'kept');
  assert.equal((await client.organizations.get({ organization_id })).organization.scim_active_connection.display_name, 'Okta Provisioning');

  // Groups come from the identity provider: none yet, and an assignment naming an unknown group
  // is refused.
  const empty = await client.scim.connection.getGroups({ organization_id, connection_id: conn.connection_id });
  assertShape(empty, 'B2BSCIMConnectionGetGroupsResponse');
  assert.deepEqual(empty.scim_groups, []);
  assert.ok(!empty.next_cursor);
  await assert.rejects(
    client.scim.connection.update({
      organization_id, connection_id: conn.connection_id,
      scim_group_implicit_role_assignments: [{ role_id: 'engineering-editor', group_id: 'scim-group-test-nope', group_name: '' }],
    }),
    (e) => e instanceof stytch.StytchError && e.error_type === 'scim_group_role_assignment_group_does_not_exist',
  );

  // Three groups pushed, then listed a page of two at a time.
  const names = ['Alpha', 'Bravo', 'Charlie'];
  const pushed = [];
  for (const displayName of names) {
    pushed.push(await scimOk(conn.base_url, conn.bearer_token, 'POST', '/Groups', 201, { body: { schemas: [GROUP], displayName, members: [] } }));
  }
  const page1 = await client.scim.connection.getGroups({ organization_id, connection_id: conn.connection_id, limit: 2 });
  assertShape(page1, 'B2BSCIMConnectionGetGroupsResponse');
  assert.equal(page1.scim_groups.length, 2);
  assert.ok(page1.next_cursor, 'a cursor to the next page');
  const page2 = await client.scim.connection.getGroups({ organization_id, connection_id: conn.connection_id, limit: 2, cursor: page1.next_cursor });
  assertShape(page2, 'B2BSCIMConnectionGetGroupsResponse');
  assert.equal(page2.scim_groups.length, 1);
  assert.ok(!page2.next_cursor, 'the last page');
  const listed = [...page1.scim_groups, ...page2.scim_groups];
  for (const g of listed) {
    assertShape(g, 'SCIMGroup');
    assert.equal(g.organization_id, organization_id);
    assert.equal(g.connection_id, conn.connection_id);
  }
  assert.deepEqual(listed.map((g) => g.group_name).sort(), names);
  assert.deepEqual(listed.map((g) => g.group_id).sort(), pushed.map((g) => g.id).sort());

  const bravo = listed.find((g) => g.group_name === 'Bravo');
  const assigned = await client.scim.connection.update({
    organization_id, connection_id: conn.connection_id,
    scim_group_implicit_role_assignments: [{ role_id: 'engineering-editor', group_id: bravo.group_id, group_name: 'Bravo' }],
  });
  assertShape(assigned, 'B2BSCIMConnectionUpdateResponse');
  assert.deepEqual(assigned.connection.scim_group_implicit_role_assignments, [
    { role_id: 'engineering-editor', group_id: bravo.group_id, group_name: 'Bravo' },
  ]);
  assert.equal(assigned.connection.display_name, 'Okta Provisioning', 'kept');

  // Rotation: start shows the next token once, with its expiry; get shows both last fours.
  const started = await client.scim.connection.rotateStart({ organization_id, connection_id: conn.connection_id });
  assertShape(started, 'B2BSCIMConnectionRotateStartResponse');
  assertShape(started.connection, 'SCIMConnectionWithNextToken');
  const next = started.connection.next_bearer_token;
  assert.ok(next.length >= 32 && next !== conn.bearer_token);
  assert.equal(started.connection.bearer_token_last_four, conn.bearer_token.slice(-4));
  assert.ok(started.connection.next_bearer_token_expires_at, 'the next token\'s expiry');
  assert.deepEqual(started.connection.scim_group_implicit_role_assignments, assigned.connection.scim_group_implicit_role_assignments);
  const during = (await client.scim.connection.get({ organization_id })).connection;
  assertShape(during, 'SCIMConnection');
  assert.equal(during.next_bearer_token, undefined, 'shown once');
  assert.equal(during.next_bearer_token_last_four, next.slice(-4));
  assert.equal(during.next_bearer_token_expires_at, started.connection.next_bearer_token_expires_at);

  const completed = await client.scim.connection.rotateComplete({ organization_id, connection_id: conn.connection_id });
  assertShape(completed, 'B2BSCIMConnectionRotateCompleteResponse');
  assertShape(completed.connection, 'SCIMConnection');
  assert.equal(completed.connection.bearer_token_last_four, next.slice(-4));
  assert.equal(completed.connection.next_bearer_token_last_four, '');
  assert.equal(completed.connection.bearer_token_expires_at, started.connection.next_bearer_token_expires_at);
  assert.ok(!completed.connection.next_bearer_token_expires_at);
  assert.equal((await client.organizations.get({ organization_id })).organization.scim_active_connection.bearer_token_last_four, next.slice(-4));

  const again = await client.scim.connection.rotateStart({ organization_id, connection_id: conn.connection_id });
  const cancelled = await client.scim.connection.rotateCancel({ organization_id, connection_id: conn.connection_id });
  assertShape(cancelled, 'B2BSCIMConnectionRotateCancelResponse');
  assertShape(cancelled.connection, 'SCIMConnection');
  assert.equal(cancelled.connection.bearer_token_last_four, next.slice(-4));
  assert.equal(cancelled.connection.next_bearer_token_last_four, '');
  assert.notEqual(again.connection.next_bearer_token.slice(-4), '', 'a second next token was issued');
  // Nothing to complete or cancel any more.
  await assert.rejects(
    client.scim.connection.rotateComplete({ organization_id, connection_id: conn.connection_id }),
    (e) => e instanceof stytch.StytchError && e.status_code >= 400 && e.status_code < 500,
  );

  const deleted = await client.scim.connection.delete({ organization_id, connection_id: conn.connection_id });
  assertShape(deleted, 'B2BSCIMConnectionDeleteResponse');
  assert.equal(deleted.connection_id, conn.connection_id);
  assert.equal((await client.scim.connection.get({ organization_id })).connection, undefined);
  const { organization: after } = await client.organizations.get({ organization_id });
  assert.ok(!after.scim_active_connection, `left: ${JSON.stringify(after.scim_active_connection)}`);
  // Its token is gone with it.
  await assertRefused(conn.base_url, next, 'a deleted connection\'s token');
});

/** The member as the Node client reads it, checked against its declaration. */
async function memberOf(client, organization_id, member_id) {
  const got = await client.organizations.members.get({ organization_id, member_id });
  assertShape(got, 'B2BOrganizationsMembersGetResponse');
  return got.member;
}

test('scim: Okta provisions, updates, deactivates and reactivates a member and pushes a group that grants a role', async () => {
  const client = await newClient();
  const org = await newOrganization(client, 'Okta Users Co');
  const organization_id = org.organization_id;
  const { connection: conn } = await client.scim.connection.create({ organization_id, display_name: 'Okta', identity_provider: 'okta' });
  const { base_url, bearer_token: token } = conn;

  // Okta's "Test connector configuration", then its lookup before every push: nobody yet.
  const spc = await scimOk(base_url, token, 'GET', '/ServiceProviderConfig', 200);
  assert.equal(spc.patch.supported, true);
  const email = uniqueEmail('ada', 'okta-co.test');
  const lookup = { filter: `userName eq "${email}"`, startIndex: '1', count: '100' };
  const none = await scimOk(base_url, token, 'GET', '/Users', 200, { query: lookup });
  assert.deepEqual(none.schemas, [LIST]);
  assert.equal(none.totalResults, 0);
  assert.deepEqual(none.Resources, []);

  const input = oktaUser(email, 'Ada', 'Lovelace');
  const created = await scimOk(base_url, token, 'POST', '/Users', 201, { body: input });
  const id = created.id;
  assert.ok(id, 'the user has an id');
  assert.deepEqual(created.schemas, [USER]);
  assert.equal(created.userName, email);
  assert.equal(created.externalId, input.externalId);
  assert.equal(created.active, true);
  assert.deepEqual(created.name, input.name);
  assert.deepEqual(created.emails, input.emails);
  assert.equal(created.meta.resourceType, 'User');
  assert.equal(created.meta.location, `${base_url}/Users/${id}`);
  assert.deepEqual(await scimOk(base_url, token, 'GET', `/Users/${id}`, 200), created);
  // The lookup finds them now, whatever the case Okta sends.
  const found = await scimOk(base_url, token, 'GET', '/Users', 200, { query: { ...lookup, filter: `userName eq "${email.toUpperCase()}"` } });
  assert.equal(found.totalResults, 1);
  assert.equal(found.Resources[0].id, id);
  // A second push of the same userName is a uniqueness conflict, in SCIM's shape.
  const dup = await scim(base_url, token, 'POST', '/Users', { body: input });
  assert.equal(dup.status, 409);
  assert.deepEqual(dup.body.schemas, [ERROR]);
  assert.equal(dup.body.status, '409');
  assert.equal(dup.body.scimType, 'uniqueness');

  // The user is a member, with their SCIM registration.
  let member = await memberOf(client, organization_id, id);
  assert.equal(member.member_id, id);
  assert.equal(member.email_address, email);
  assert.equal(member.name, 'Ada Lovelace');
  assert.equal(member.status, 'active');
  assertShape(member.scim_registration, 'SCIMRegistration');
  assert.equal(member.scim_registration.connection_id, conn.connection_id);
  assert.equal(member.scim_registration.external_id, input.externalId);
  assert.ok(member.scim_registration.registration_id);
  assert.equal(member.scim_registration.scim_attributes?.user_name, email);
  assert.deepEqual(member.roles.map((r) => r.role_id), ['stytch_member'], 'no group, no group role');

  // Okta's profile push is a PUT of the whole user.
  const renamed = await scimOk(base_url, token, 'PUT', `/Users/${id}`, 200, {
    body: { ...input, id, name: { givenName: 'Ada', familyName: 'King' }, displayName: 'Ada King' },
  });
  assert.equal(renamed.name.familyName, 'King');
  assert.equal((await memberOf(client, organization_id, id)).name, 'Ada King');

  // Push Groups: Okta creates the group with no members, then adds them by PATCH.
  const eng = await scimOk(base_url, token, 'POST', '/Groups', 201, { body: { schemas: [GROUP], displayName: 'Engineering', members: [] } });
  assert.deepEqual(eng.members, []);
  const other = await scimOk(base_url, token, 'POST', '/Groups', 201, {
    body: { schemas: [GROUP], displayName: 'Everyone', members: [{ value: id, display: email }] },
  });
  assert.deepEqual(other.members.map((m) => m.value), [id]);
  const { connection: mapped } = await client.scim.connection.update({
    organization_id, connection_id: conn.connection_id,
    scim_group_implicit_role_assignments: [{ role_id: 'engineering-editor', group_id: eng.id, group_name: 'Engineering' }],
  });
  assert.deepEqual(mapped.scim_group_implicit_role_assignments, [{ role_id: 'engineering-editor', group_id: eng.id, group_name: 'Engineering' }]);
  assert.ok(!(await memberOf(client, organization_id, id)).roles.some((r) => r.role_id === 'engineering-editor'), 'not in the group yet');

  const add = { schemas: [PATCH], Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: email }] }] };
  const withAda = await scimOk(base_url, token, 'PATCH', `/Groups/${eng.id}`, 200, { body: add });
  assert.deepEqual(withAda.members.map((m) => m.value), [id]);
  const user = await scimOk(base_url, token, 'GET', `/Users/${id}`, 200);
  assert.deepEqual(user.groups.map((g) => g.display).sort(), ['Engineering', 'Everyone']);

  member = await memberOf(client, organization_id, id);
  const attrs = member.scim_registration.scim_attributes;
  assert.deepEqual(attrs.groups.map((g) => g.display).sort(), ['Engineering', 'Everyone'], 'scim_attributes follow the groups');
  assert.equal(attrs.name.family_name, 'King');
  const granted = member.roles.find((r) => r.role_id === 'engineering-editor');
  assert.ok(granted, `roles: ${JSON.stringify(member.roles)}`);
  assertShape(granted, 'MemberRole');
  assert.deepEqual(granted.sources, [
    { type: 'scim_connection_group', details: { connection_id: conn.connection_id, group_id: eng.id } },
  ]);

  // Okta's member removal.
  const remove = { schemas: [PATCH], Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }] };
  assert.deepEqual((await scimOk(base_url, token, 'PATCH', `/Groups/${eng.id}`, 200, { body: remove })).members, []);
  assert.ok(!(await memberOf(client, organization_id, id)).roles.some((r) => r.role_id === 'engineering-editor'), 'the role went with the group');
  await scimOk(base_url, token, 'PATCH', `/Groups/${eng.id}`, 200, { body: add });
  assert.ok((await memberOf(client, organization_id, id)).roles.some((r) => r.role_id === 'engineering-editor'), 'and came back');

  // Okta's deactivation: a path-less replace of active.
  const off = await scimOk(base_url, token, 'PATCH', `/Users/${id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: false } }] },
  });
  assert.equal(off.active, false);
  assert.equal((await scimOk(base_url, token, 'GET', `/Users/${id}`, 200)).active, false);
  member = await memberOf(client, organization_id, id);
  assert.equal(member.status, 'deleted');
  assert.equal(member.scim_registration?.connection_id, conn.connection_id, 'the registration stays');
  assert.equal(member.scim_registration.scim_attributes.active, false);

  const on = await scimOk(base_url, token, 'PATCH', `/Users/${id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { active: true } }] },
  });
  assert.equal(on.active, true);
  member = await memberOf(client, organization_id, id);
  assert.equal(member.status, 'active');
  assert.equal(member.email_address, email);
  assert.equal(member.name, 'Ada King');
  assert.deepEqual(member.roles.find((r) => r.role_id === 'engineering-editor')?.sources, [
    { type: 'scim_connection_group', details: { connection_id: conn.connection_id, group_id: eng.id } },
  ], 'the group membership survived the deactivation');

  // Okta's group rename is a path-less replace repeating the id; the listing and the assignment
  // follow it.
  await scimOk(base_url, token, 'PATCH', `/Groups/${eng.id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'replace', value: { id: eng.id, displayName: 'Platform Engineering' } }] },
  });
  const { scim_groups } = await client.scim.connection.getGroups({ organization_id, connection_id: conn.connection_id });
  assert.deepEqual(scim_groups.map((g) => g.group_name).sort(), ['Everyone', 'Platform Engineering']);
  assert.deepEqual((await client.scim.connection.get({ organization_id })).connection.scim_group_implicit_role_assignments, [
    { role_id: 'engineering-editor', group_id: eng.id, group_name: 'Platform Engineering' },
  ]);

  // Deleting the group in Okta drops its assignment, and the member's role with it.
  await scimOk(base_url, token, 'DELETE', `/Groups/${eng.id}`, 204);
  assert.deepEqual((await client.scim.connection.get({ organization_id })).connection.scim_group_implicit_role_assignments, []);
  assert.deepEqual((await memberOf(client, organization_id, id)).roles.map((r) => r.role_id), ['stytch_member']);
});

test('scim: Microsoft Entra provisions through its ?aadOptscim062020 base URL, with string booleans', async () => {
  const client = await newClient();
  const org = await newOrganization(client, 'Entra Co');
  const organization_id = org.organization_id;
  const { connection: conn } = await client.scim.connection.create({ organization_id, display_name: 'Entra', identity_provider: 'microsoft-entra' });
  assert.equal(conn.base_url, `${h.base}/v1/b2b/scim/${conn.connection_id}?aadOptscim062020`);
  const { base_url, bearer_token: token } = conn;

  // Entra's "Test Connection": a filter on a random userName.
  const probe = await scimOk(base_url, token, 'GET', '/Users', 200, { query: { filter: `userName eq "${crypto.randomUUID()}"` } });
  assert.equal(probe.totalResults, 0);

  const upn = uniqueEmail('grace', 'entra-co.test');
  const mail = uniqueEmail('grace.hopper', 'entra-co.test');
  const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
  const created = await scimOk(base_url, token, 'POST', '/Users', 201, {
    body: {
      schemas: [USER, ENTERPRISE],
      externalId: 'grace',
      userName: upn,
      active: true,
      displayName: 'Grace Hopper',
      emails: [{ primary: true, type: 'work', value: mail }],
      name: { formatted: 'Grace Hopper', familyName: 'Hopper', givenName: 'Grace' },
      [ENTERPRISE]: { department: 'Navy', employeeNumber: '1906' },
    },
  });
  const id = created.id;
  assert.deepEqual(created.schemas, [USER, ENTERPRISE]);
  assert.equal(created[ENTERPRISE].department, 'Navy');
  let member = await memberOf(client, organization_id, id);
  assert.equal(member.email_address, mail, 'the primary email, not the userName');
  assert.equal(member.name, 'Grace Hopper');
  assert.equal(member.scim_registration.external_id, 'grace');

  // Entra's attribute update: a path into the work email.
  const mail2 = uniqueEmail('g.hopper', 'entra-co.test');
  await scimOk(base_url, token, 'PATCH', `/Users/${id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'emails[type eq "work"].value', value: mail2 }] },
  });
  assert.equal((await memberOf(client, organization_id, id)).email_address, mail2);

  // Entra's soft delete and restore: "False"/"True" strings.
  const off = await scimOk(base_url, token, 'PATCH', `/Users/${id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
  });
  assert.equal(off.active, false);
  assert.equal((await memberOf(client, organization_id, id)).status, 'deleted');
  const on = await scimOk(base_url, token, 'PATCH', `/Users/${id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'Replace', path: 'active', value: 'True' }] },
  });
  assert.equal(on.active, true);
  assert.equal((await memberOf(client, organization_id, id)).status, 'active');

  // Entra's group push: create, then an Add of members; reads exclude members.
  const group = await scimOk(base_url, token, 'POST', '/Groups', 201, {
    body: { schemas: [GROUP], externalId: 'navy-group', displayName: 'Navy', members: [] },
  });
  await scimOk(base_url, token, 'PATCH', `/Groups/${group.id}`, 200, {
    body: { schemas: [PATCH], Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }] },
  });
  const read = await scimOk(base_url, token, 'GET', `/Groups/${group.id}`, 200, { query: { excludedAttributes: 'members' } });
  assert.equal(read.displayName, 'Navy');
  assert.equal(read.members, undefined);
  const byName = await scimOk(base_url, token, 'GET', '/Groups', 200, { query: { filter: 'displayName eq "Navy"', excludedAttributes: 'members' } });
  assert.deepEqual(byName.Resources.map((g) => g.id), [group.id]);
  assert.deepEqual((await scimOk(base_url, token, 'GET', `/Users/${id}`, 200)).groups.map((g) => g.value), [group.id]);

  // Entra's hard delete: the member goes, and the user is forgotten.
  await scimOk(base_url, token, 'DELETE', `/Users/${id}`, 204);
  const gone = await scim(base_url, token, 'GET', `/Users/${id}`);
  assert.equal(gone.status, 404);
  assert.deepEqual(gone.body.schemas, [ERROR]);
  member = await memberOf(client, organization_id, id);
  assert.equal(member.status, 'deleted');
  assert.ok(!member.scim_registration, `registration left: ${JSON.stringify(member.scim_registration)}`);

  // The address can be provisioned again: the deleted member comes back, linked anew.
  const back = await scimOk(base_url, token, 'POST', '/Users', 201, {
    body: { schemas: [USER], externalId: 'grace', userName: upn, active: true, emails: [{ primary: true, type: 'work', value: mail2 }] },
  });
  member = await memberOf(client, organization_id, back.id);
  assert.equal(member.status, 'active');
  assert.equal(member.email_address, mail2);
  assert.equal(member.scim_registration?.connection_id, conn.connection_id);
});

test('scim: a bearer token rotation, end to end on the SCIM service', async () => {
  const client = await newClient();
  const org = await newOrganization(client, 'Rotation Co');
  const organization_id = org.organization_id;
  const { connection: conn } = await client.scim.connection.create({ organization_id, identity_provider: 'okta' });
  const { base_url, connection_id } = conn;
  const first = conn.bearer_token;
  await assertAccepted(base_url, first, 'the first token');
  await assertRefused(base_url, `${first}x`, 'a wrong token');
  await assertRefused(base_url, '', 'no token');

  const { connection: started } = await client.scim.connection.rotateStart({ organization_id, connection_id });
  const second = started.next_bearer_token;
  await assertAccepted(base_url, first, 'the old token during the rotation');
  await assertAccepted(base_url, second, 'the new token during the rotation');

  await client.scim.connection.rotateComplete({ organization_id, connection_id });
  await assertRefused(base_url, first, 'the old token after rotateComplete');
  await assertAccepted(base_url, second, 'the new token after rotateComplete');

  const { connection: again } = await client.scim.connection.rotateStart({ organization_id, connection_id });
  const third = again.next_bearer_token;
  await assertAccepted(base_url, third, 'the next token before the cancel');
  await client.scim.connection.rotateCancel({ organization_id, connection_id });
  await assertRefused(base_url, third, 'the next token after rotateCancel');
  await assertAccepted(base_url, second, 'the current token after rotateCancel');
  assert.equal((await client.scim.connection.get({ organization_id })).connection.bearer_token_last_four, second.slice(-4));
});

h.test('browser: a member provisioned by SCIM logs in with an emailed code and holds the group\'s role', async ({ page, context }) => {
  const client = await newClient();
  const org = await newOrganization(client, 'Provisioned Login Co');
  const organization_id = org.organization_id;
  const { connection: conn } = await client.scim.connection.create({ organization_id, identity_provider: 'okta' });
  const email = uniqueEmail('lin', 'okta-co.test');
  const user = await scimOk(conn.base_url, conn.bearer_token, 'POST', '/Users', 201, { body: oktaUser(email, 'Lin', 'Okta') });
  const group = await scimOk(conn.base_url, conn.bearer_token, 'POST', '/Groups', 201, {
    body: { schemas: [GROUP], displayName: 'Editors', members: [{ value: user.id }] },
  });
  await client.scim.connection.update({
    organization_id, connection_id: conn.connection_id,
    scim_group_implicit_role_assignments: [{ role_id: 'engineering-editor', group_id: group.id, group_name: 'Editors' }],
  });

  await page.goto(h.pageUrlWith({ slug: org.organization_slug, products: 'emailOtp' }));
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  await enterCode(page, codeOf(await h.waitForMail(email)));
  await page.getByText(TEXT.loggedIn).waitFor();

  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await client.sessions.authenticate({ session_token: token });
  assert.equal(s.member.member_id, user.id, 'the provisioned member, not a new one');
  assert.equal(s.organization.organization_id, organization_id);
  assert.ok(s.member_session.roles.includes('engineering-editor'), `SCIM group roles count in every session: ${s.member_session.roles}`);
  assert.equal(s.member.scim_registration?.connection_id, conn.connection_id);
});
