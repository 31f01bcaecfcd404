// Compatibility: organization and member aliases on the backend face, through the public `stytch` Node
// client (stytch@14.2.0, a client we did not write). Its request types say organization_id may also
// be the organization's slug or organization_external_id, and member_id the member's external_id; the
// client puts them in the path or query as given. README "The API" states our rule: the reference is
// resolved within the project, answers carry the real ids, and a reference that names nothing is
// refused exactly as an unknown id is.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import stytch from 'stytch';
import { useHarness, uniqueEmail } from './harness.mjs';
import { assertShape, nodeClient } from './node-client.mjs';

const h = useHarness({ browser: false });

function newClient() {
  return nodeClient({ project_id: h.project.project_id, secret: h.project.secret, env: `${h.apiBase}/` });
}

let seq = 0;
/** An organization with a slug and an external id, and a member with an external id. */
async function aliasedOrgWithMember(client) {
  seq++;
  const tag = `${seq}-${Date.now().toString(36)}`;
  const { organization } = await client.organizations.create({
    organization_name: `Alias Co ${seq}`,
    organization_slug: `alias-co-${tag}`,
    organization_external_id: `crm-org-${tag}`,
  });
  assert.equal(organization.organization_external_id, `crm-org-${tag}`);
  const { member } = await client.organizations.members.create({
    organization_id: organization.organization_id,
    email_address: uniqueEmail('alias', 'alias-co.test'),
    name: 'Alias Member',
    external_id: `crm-member-${tag}`,
  });
  assert.equal(member.external_id, `crm-member-${tag}`);
  return { organization, member };
}

/** Runs a call expected to fail and returns the StytchError's comparable parts. */
async function refusal(call) {
  try {
    await call();
  } catch (e) {
    assert.ok(e instanceof stytch.StytchError, `not a StytchError: ${e}`);
    return { status_code: e.status_code, error_type: e.error_type, error_message: e.error_message };
  }
  assert.fail('the call succeeded');
}

test('node client: organizations.get by slug and by external id answers with the real ids', async () => {
  const client = newClient();
  const { organization } = await aliasedOrgWithMember(client);

  for (const alias of [organization.organization_slug, organization.organization_external_id]) {
    const got = await client.organizations.get({ organization_id: alias });
    assertShape(got, 'B2BOrganizationsGetResponse');
    assert.equal(got.organization.organization_id, organization.organization_id, `get(${alias})`);
    assert.equal(got.organization.organization_slug, organization.organization_slug);
    assert.equal(got.organization.organization_external_id, organization.organization_external_id);
  }
});

test('node client: members.get and members.update by organization alias and member external id', async () => {
  const client = newClient();
  const { organization, member } = await aliasedOrgWithMember(client);

  // members.get: the organization in the path (slug), the member's external id in the query.
  const got = await client.organizations.members.get({ organization_id: organization.organization_slug, member_id: member.external_id });
  assertShape(got, 'B2BOrganizationsMembersGetResponse');
  assert.equal(got.member_id, member.member_id);
  assert.equal(got.member.member_id, member.member_id);
  assert.equal(got.member.organization_id, organization.organization_id);
  assert.equal(got.organization.organization_id, organization.organization_id);

  // members.update: both in the path, as external ids.
  const updated = await client.organizations.members.update({
    organization_id: organization.organization_external_id,
    member_id: member.external_id,
    name: 'Renamed By Alias',
  });
  assertShape(updated, 'B2BOrganizationsMembersUpdateResponse');
  assert.equal(updated.member_id, member.member_id);
  assert.equal(updated.member.member_id, member.member_id);
  assert.equal(updated.member.name, 'Renamed By Alias');
  assert.equal(updated.member.external_id, member.external_id, 'the external id is kept');
  assert.equal(updated.organization.organization_id, organization.organization_id);

  // The change landed on the member the ids name.
  const byId = await client.organizations.members.get({ organization_id: organization.organization_id, member_id: member.member_id });
  assert.equal(byId.member.name, 'Renamed By Alias');
});

test('node client: a member external id is looked up only in the organization the request names', async () => {
  const client = newClient();
  const a = await aliasedOrgWithMember(client);
  const b = await aliasedOrgWithMember(client);
  // b's member's external id, asked of organization a: a has no such member.
  const crossed = await refusal(() =>
    client.organizations.members.get({ organization_id: a.organization.organization_slug, member_id: b.member.external_id }),
  );
  assert.equal(crossed.error_type, 'member_not_found');
});

test('node client: an unknown alias is refused as an unknown id is', async () => {
  const client = newClient();
  const { organization } = await aliasedOrgWithMember(client);

  const unknownOrgId = await refusal(() =>
    client.organizations.get({ organization_id: 'organization-test-00000000-0000-4000-8000-000000000000' }),
  );
  assert.equal(unknownOrgId.error_type, 'organization_not_found');
  for (const alias of ['no-such-slug', 'no-such-external-id']) {
    assert.deepEqual(await refusal(() => client.organizations.get({ organization_id: alias })), unknownOrgId, alias);
  }

  const unknownMemberId = await refusal(() =>
    client.organizations.members.get({
      organization_id: organization.organization_id,
      member_id: 'member-test-00000000-0000-4000-8000-000000000000',
    }),
  );
  assert.equal(unknownMemberId.error_type, 'member_not_found');
  assert.deepEqual(
    await refusal(() => client.organizations.members.get({ organization_id: organization.organization_slug, member_id: 'no-such-member' })),
    unknownMemberId,
  );
  assert.deepEqual(
    await refusal(() =>
      client.organizations.members.update({ organization_id: organization.organization_external_id, member_id: 'no-such-member', name: 'x' }),
    ),
    unknownMemberId,
  );
  // An unknown organization alias on a member route is the organization's refusal, not the member's.
  assert.deepEqual(
    await refusal(() => client.organizations.members.update({ organization_id: 'no-such-org', member_id: 'no-such-member', name: 'x' })),
    unknownOrgId,
  );
});

test('node client: slugs and external ids are one namespace, so neither can take the other\'s name', async () => {
  // A slug may be chosen in the browser (discovery's create); the external id is the backend's own. Were they
  // apart, a stranger's slug equal to a customer's external id would take over every call by that external id.
  const client = newClient();
  const tag = `clash-${Date.now().toString(36)}`;
  const { organization: bySlug } = await client.organizations.create({ organization_name: 'Slug Owner', organization_slug: tag });
  assert.equal(
    (
      await refusal(() =>
        client.organizations.create({ organization_name: 'External Owner', organization_slug: `${tag}-other`, organization_external_id: tag }),
      )
    ).error_type,
    'organization_external_id_already_used',
  );
  const { organization: byExternal } = await client.organizations.create({
    organization_name: 'External Owner',
    organization_slug: `${tag}-other`,
    organization_external_id: `${tag}-crm`,
  });
  assert.equal(
    (await refusal(() => client.organizations.create({ organization_name: 'Slug Taker', organization_slug: `${tag}-crm` }))).error_type,
    'organization_slug_already_used',
  );
  assert.equal((await client.organizations.get({ organization_id: tag })).organization.organization_id, bySlug.organization_id);
  assert.equal((await client.organizations.get({ organization_id: `${tag}-crm` })).organization.organization_id, byExternal.organization_id);
});

test('node client: an external id spelled like an id is taken as that id, not looked up', async () => {
  const client = newClient();
  const { organization } = await aliasedOrgWithMember(client);
  const idLike = 'member-test-00000000-0000-4000-8000-0000000000aa';
  const { member } = await client.organizations.members.create({
    organization_id: organization.organization_id,
    email_address: uniqueEmail('idlike', 'alias-co.test'),
    external_id: idLike,
  });
  assert.equal(member.external_id, idLike);
  assert.equal(
    (await refusal(() => client.organizations.members.get({ organization_id: organization.organization_slug, member_id: idLike }))).error_type,
    'member_not_found',
  );
});
