// Compatibility: the vendor's Admin Portal (@stytch/vanilla-js 6.3.0) manages members and organization
// settings against our real binary: invites (resent, revoked, sent again after revoking), roles,
// sessions, deactivation and reactivation, password resets, MFA factor resets, the organization's
// name, MFA policy, allowed auth methods, onboarding (allowed email domains, SSO connections and
// OAuth accounts) and role assignments. Every request the portal makes is recorded: none may be
// refused as unknown (404, 405) or answered with an error the portal did not ask for. A failure here
// is a wire-format bug in our server (admin-portal.mjs).
import assert from 'node:assert/strict';
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { uniqueEmail, waitUntil } from './harness.mjs';
import { h, openMember, watchPage, adminOrg, openPortal, backendLogIn, sessionsOf, sectionEdit, saveSection, samlConnectionOf, pickMenuItem, passwordWorks } from './admin-portal.mjs';

h.test('admin portal Member Management: list members, invite one, change a role', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Members');
  const orgId = org.organization_id;
  const plainEmail = uniqueEmail('portal-plain');
  const plain = await h.createMember(orgId, plainEmail, 'Plain Member');
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('cell', { name: plainEmail, exact: true }).waitFor();

  // Invite a new member by email.
  const invitee = uniqueEmail('portal-invitee');
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.getByPlaceholder('Enter name').fill('Invited Person');
  await page.getByPlaceholder('Enter email address').fill(invitee);
  const invited = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/magic_links/email/invite'));
  await page.getByRole('dialog').getByRole('button', { name: 'Invite', exact: true }).click();
  assert.equal((await invited).status(), 200);
  await page.getByText(`Invite sent to ${invitee}`).waitFor();
  await page.getByRole('cell', { name: invitee, exact: true }).waitFor();
  const mail = await h.waitForMail(invitee);
  assert.ok(mail.links.some((l) => l.includes('stytch_token_type=multi_tenant_magic_links')), JSON.stringify(mail.links));

  // Make the plain member an admin from their details screen.
  await page.getByRole('cell', { name: plainEmail, exact: true }).click();
  await page.getByRole('heading', { name: 'Plain Member' }).waitFor();
  // Details and Access each have an Edit button; Access is the second.
  await page.getByRole('button', { name: 'Edit', exact: true }).nth(1).click();
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  await page.getByRole('dialog').getByRole('combobox').click();
  await page.getByRole('option', { name: /^stytch_admin/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Add Role' }).click();
  const updated = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/${plain.member_id}`) && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await updated).status(), 200);
  await page.getByRole('cell', { name: 'stytch_admin', exact: true }).waitFor();
  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(plain.member_id)}`);
  assert.deepEqual(member.roles.map((r) => r.role_id).sort(), ['stytch_admin', 'stytch_member']);
  w.assertClean();
});

h.test('admin portal Org Settings: view and rename the organization', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Settings');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await page.getByText(org.organization_slug, { exact: true }).waitFor();
  // admin_portal_config's mfa_controls_enabled shows the MFA controls.
  await page.getByText('Secondary authentication').waitFor();

  // Details, the first section, holds the name.
  await page.getByRole('button', { name: 'Edit', exact: true }).first().click();
  const nameInput = page.getByRole('textbox').first();
  assert.equal(await nameInput.inputValue(), 'Portal Settings');
  await nameInput.fill('Portal Settings Renamed');
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  assert.equal((await updated).status(), 200);
  await page.getByText('Portal Settings Renamed', { exact: true }).waitFor();
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${org.organization_id}`);
  assert.equal(organization.organization_name, 'Portal Settings Renamed');
  w.assertClean();
});

h.test('admin portal Member Management: revoke a member\'s sessions, deactivate the member', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Member Offboarding');
  const orgId = org.organization_id;
  const leaverEmail = uniqueEmail('portal-leaver');
  const leaver = await h.createMember(orgId, leaverEmail, 'Leaving Member');
  const token = await backendLogIn(orgId, leaverEmail);
  assert.equal((await sessionsOf(orgId, leaver.member_id)).length, 1);
  const w = watchPage(page);
  // Revoke all their sessions from their details screen.
  await openMember(page, leaverEmail, 'Leaving Member');
  await page.getByRole('button', { name: 'Revoke all sessions' }).click();
  const revoked = page.waitForResponse((r) => r.url().includes('/sdk/v1/b2b/sessions/revoke'));
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke all sessions' }).click();
  assert.equal((await revoked).status(), 200);
  await waitUntil(async () => (await sessionsOf(orgId, leaver.member_id)).length === 0, { what: 'sessions revoked' });
  await assert.rejects(h.authenticateSession(token), (e) => e.status === 404, 'the revoked session no longer authenticates');

  // Deactivate them from the list's row menu.
  await openPortal(page, 'members');
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: leaverEmail, exact: true }) });
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Deactivate' }).click();
  await page.getByRole('dialog').getByText('Deactivate Member?').waitFor();
  const deleted = page.waitForResponse((r) =>
    r.url().includes(`/sdk/v1/b2b/organizations/members/${leaver.member_id}`) && r.request().method() === 'DELETE');
  await page.getByRole('dialog').getByRole('button', { name: 'Deactivate Member' }).click();
  assert.equal((await deleted).status(), 200);
  // The list the portal asks for after the delete holds active and invited members only.
  await row.waitFor({ state: 'detached' });
  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(leaver.member_id)}`);
  assert.equal(member.status, 'deleted');
  w.assertClean();
});

h.test('admin portal Org Settings: require MFA for all members', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal MFA Policy');
  assert.equal(org.mfa_policy, 'OPTIONAL');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  // Three sections have an Edit button (Details, Authentication settings, Automatic Role
  // assignments); the MFA policy is in Authentication settings, the second.
  await page.getByRole('button', { name: 'Edit', exact: true }).nth(1).click();
  await page.getByRole('checkbox', { name: 'Enable Require MFA for all users' }).check();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await page.getByRole('button', { name: 'Save changes' }).click();
  const res = await updated;
  assert.equal(res.status(), 200);
  assert.equal(JSON.parse(res.request().postData()).mfa_policy, 'REQUIRED_FOR_ALL');
  // Back in the read-only view, the switch offers to turn the policy off.
  await page.getByRole('checkbox', { name: 'Disable Require MFA for all users' }).waitFor({ state: 'attached' });
  const { organization } = await h.api('GET', `/v1/b2b/organizations/${org.organization_id}`);
  assert.equal(organization.mfa_policy, 'REQUIRED_FOR_ALL');
  w.assertClean();
});

h.test('admin portal Org Settings: assign a role by email domain and to an SSO connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Org Roles');
  const orgId = org.organization_id;
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'Org Roles IdP', identity_provider: 'generic' });
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await page.getByText('No role assignments.').waitFor();

  await sectionEdit(page, 'Automatic Role assignments').click();
  // By email domain.
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  let dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(0), 'stytch_admin');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(1), 'Email');
  await dialog.getByLabel('Domain').fill('portal-roles.test');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  // To everyone who logs in through the SSO connection.
  await page.getByRole('button', { name: 'Add Role assignment' }).click();
  dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(0), 'stytch_admin');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(1), 'SSO');
  await pickMenuItem(page, dialog.getByRole('combobox').nth(2), 'Org Roles IdP');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });

  const orgUpdated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  const ssoUpdated = page.waitForResponse((r) => r.url().endsWith(`/sdk/v1/b2b/sso/saml/${connection.connection_id}`) && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await orgUpdated).status(), 200);
  assert.equal((await ssoUpdated).status(), 200);
  await page.getByRole('button', { name: 'Add Role assignment' }).waitFor({ state: 'detached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.deepEqual(organization.rbac_email_implicit_role_assignments.map(({ domain, role_id }) => ({ domain, role_id })),
    [{ domain: 'portal-roles.test', role_id: 'stytch_admin' }]);
  const stored = await samlConnectionOf(orgId, connection.connection_id);
  assert.deepEqual(stored.saml_connection_implicit_role_assignments.map((a) => a.role_id), ['stytch_admin']);
  assert.deepEqual(stored.saml_group_implicit_role_assignments, []);
  w.assertClean();
});

h.test('admin portal Member Management: reactivate a deactivated member', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Member Return');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-returner');
  const returner = await h.createMember(orgId, email, 'Returning Member');
  // Only a member whose email was verified can be reactivated: a login verifies it.
  await backendLogIn(orgId, email);
  await h.api('DELETE', `/v1/b2b/organizations/${orgId}/members/${returner.member_id}`);
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();

  // The list holds active and invited members until the status filter asks for deactivated ones too.
  await page.getByRole('columnheader', { name: /Status/ }).getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Deactivated' }).click();
  await page.keyboard.press('Escape');
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: email, exact: true }) });
  await row.getByRole('cell', { name: 'Deactivated', exact: true }).waitFor();
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Reactivate' }).click();
  await page.getByRole('dialog').getByText('Reactivate Member?').waitFor();
  const reactivated = page.waitForResponse((r) => r.url().includes(`/sdk/v1/b2b/organizations/members/${returner.member_id}/reactivate`));
  await page.getByRole('dialog').getByRole('button', { name: 'Reactivate', exact: true }).click();
  assert.equal((await reactivated).status(), 200);
  await row.getByRole('cell', { name: 'Active', exact: true }).waitFor();

  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(returner.member_id)}`);
  assert.equal(member.status, 'active');
  assert.equal(member.email_address, email);
  // They can log in again.
  assert.ok(await backendLogIn(orgId, email));
  w.assertClean();
});

h.test('admin portal Org Settings: restrict the allowed primary and secondary auth methods', async ({ page }) => {
  const { org, email } = await adminOrg(page, 'Portal Auth Methods');
  const orgId = org.organization_id;
  assert.equal(org.auth_methods, 'ALL_ALLOWED');
  assert.equal(org.mfa_methods, 'ALL_ALLOWED');
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await sectionEdit(page, 'Authentication settings').click();
  // Off with "all allowed": each method gets a checkbox, none ticked.
  await page.getByRole('checkbox', { name: 'Disable Allow all primary auth methods' }).uncheck();
  await page.getByRole('checkbox', { name: 'Email OTP' }).check();
  await page.getByRole('checkbox', { name: 'Single Sign-On' }).check();
  await page.getByRole('checkbox', { name: 'Disable Allow all secondary auth methods' }).uncheck();
  await page.getByRole('checkbox', { name: 'TOTP' }).check();
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  const res = await updated;
  assert.equal(res.status(), 200);
  const sent = JSON.parse(res.request().postData());
  assert.equal(sent.auth_methods, 'RESTRICTED');
  assert.equal(sent.mfa_methods, 'RESTRICTED');
  // Back in the read-only view, the switches offer to allow everything again.
  await page.getByRole('checkbox', { name: 'Enable Allow all primary auth methods' }).waitFor({ state: 'attached' });
  await page.getByRole('checkbox', { name: 'Enable Allow all secondary auth methods' }).waitFor({ state: 'attached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.auth_methods, 'RESTRICTED');
  assert.deepEqual(organization.allowed_auth_methods.slice().sort(), ['email_otp', 'sso']);
  assert.equal(organization.mfa_methods, 'RESTRICTED');
  assert.deepEqual(organization.allowed_mfa_methods, ['totp']);
  // The restriction holds: an emailed link no longer logs the member in (it asks for an allowed
  // primary method), an emailed code still does.
  const seen = (await h.mailbox(email)).map((m) => m.id);
  await h.api('POST', '/v1/b2b/magic_links/email/login_or_signup', { organization_id: orgId, email_address: email });
  const link = (await h.waitForMail(email, { exclude: seen })).links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  const byLink = await h.api('POST', '/v1/b2b/magic_links/authenticate', {
    magic_links_token: new URL(link).searchParams.get('token'), session_duration_minutes: 60,
  });
  assert.equal(byLink.member_authenticated, false);
  assert.equal(byLink.session_token, '');
  assert.deepEqual(byLink.primary_required.allowed_auth_methods.slice().sort(), ['email_otp', 'sso']);
  assert.ok(await backendLogIn(orgId, email));
  w.assertClean();
});

h.test('admin portal Org Settings: onboarding by allowed email domain and by chosen SSO connection', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Onboarding');
  const orgId = org.organization_id;
  await h.api('PUT', `/v1/b2b/organizations/${orgId}`, { email_jit_provisioning: 'NOT_ALLOWED' });
  const { connection } = await h.api('POST', `/v1/b2b/sso/saml/${orgId}`, { display_name: 'JIT IdP', identity_provider: 'generic' });
  const domain = `onboard-${Date.now().toString(36)}.test`;
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await sectionEdit(page, 'User onboarding').click();
  // Invites only to the allowed domains, and members of those domains join by themselves.
  await page.getByRole('radio', { name: 'Users from allowed email domains' }).check();
  await page.getByRole('checkbox', { name: 'Email domains' }).check();
  await page.getByRole('button', { name: 'Add domain' }).click();
  let dialog = page.getByRole('dialog');
  await dialog.getByPlaceholder('Enter domain').fill(domain);
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  // SSO logins join only through the chosen connection.
  await page.getByRole('radio', { name: 'Allowed SSO connections' }).check();
  await page.getByRole('button', { name: 'Select connection' }).click();
  dialog = page.getByRole('dialog');
  await pickMenuItem(page, dialog.getByRole('combobox'), 'JIT IdP');
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
  const updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  assert.equal((await updated).status(), 200);
  await page.getByText(domain, { exact: true }).waitFor();
  await page.getByRole('button', { name: 'Add domain' }).waitFor({ state: 'detached' });

  const { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.email_invites, 'RESTRICTED');
  assert.equal(organization.email_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.email_allowed_domains, [domain]);
  assert.equal(organization.sso_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.sso_jit_provisioning_allowed_connections, [connection.connection_id]);
  // The restriction holds: an invitation outside the domain is refused, one inside is sent.
  await assert.rejects(
    h.api('POST', '/v1/b2b/magic_links/email/invite', { organization_id: orgId, email_address: uniqueEmail('outsider') }),
    (e) => e.status === 403 || e.status === 400,
  );
  const insider = uniqueEmail('insider', domain);
  const invited = await h.api('POST', '/v1/b2b/magic_links/email/invite', { organization_id: orgId, email_address: insider });
  assert.equal(invited.member.status, 'invited');
  w.assertClean();
});

h.test('admin portal Member Management: reset a member\'s password and email them a reset link', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Password Reset');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-pw');
  const password = 'correct horse battery staple 42';
  // A member with a password, brought in through the backend's migrate (a PBKDF2 hash).
  const salt = randomBytes(16);
  const { member: pwMember } = await h.api('POST', '/v1/b2b/passwords/migrate', {
    email_address: email, organization_id: orgId, name: 'Password Member', hash_type: 'pbkdf_2',
    hash: pbkdf2Sync(password, salt, 1000, 32, 'sha256').toString('base64'),
    pbkdf_2_config: { salt: salt.toString('base64'), iteration_amount: 1000, key_length: 32, algorithm: 'sha256' },
  });
  assert.ok(pwMember.member_password_id);
  assert.equal(await passwordWorks(orgId, email, password), true);
  const seen = (await h.mailbox(email)).map((m) => m.id);
  const w = watchPage(page);
  await openMember(page, email, 'Password Member');

  await page.getByRole('button', { name: 'Reset password' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Ask Member to reset their password?').waitFor();
  await dialog.getByRole('checkbox', { name: 'Trigger password reset email' }).check();
  const deleted = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/passwords/${pwMember.member_password_id}`) && r.request().method() === 'DELETE');
  const started = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/passwords/email/reset/start'));
  await dialog.getByRole('button', { name: 'Reset password' }).click();
  assert.equal((await deleted).status(), 200);
  assert.equal((await started).status(), 200);
  await dialog.waitFor({ state: 'detached' });

  const { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(pwMember.member_id)}`);
  assert.equal(member.member_password_id, '');
  assert.equal(await passwordWorks(orgId, email, password), false);
  // The portal deletes the password before it asks for the reset, so the member has none by then:
  // the email verifies the address with a login link that goes on to setting a password, on the
  // project's default redirect URL.
  const mail = await h.waitForMail(email, { exclude: seen });
  const found = mail.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links'));
  assert.ok(found, JSON.stringify(mail.links));
  const link = new URL(found);
  assert.equal(`${link.origin}${link.pathname}`, h.pageUrl);
  assert.equal(link.searchParams.get('stytch_redirect_type'), 'reset_password');
  w.assertClean();
});

h.test('admin portal Member Management: resend an invitation, then revoke it', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal Invites');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-pending-invite');
  const { member: invitee } = await h.api('POST', '/v1/b2b/magic_links/email/invite', { organization_id: orgId, email_address: email });
  assert.equal(invitee.status, 'invited');
  const first = await h.waitForMail(email);
  const w = watchPage(page);
  await openPortal(page, 'members');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  const row = page.getByRole('row').filter({ has: page.getByRole('cell', { name: email, exact: true }) });
  await row.getByRole('cell', { name: 'Invited', exact: true }).waitFor();

  // Resending emails a new invitation to the same member.
  await row.getByRole('button', { name: 'actions' }).click();
  const resent = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/magic_links/email/invite'));
  await page.getByRole('menuitem', { name: 'Resend invite email' }).click();
  assert.equal((await resent).status(), 200);
  await page.getByText(`Invite sent to ${email}`).waitFor();
  const second = await h.waitForMail(email, { exclude: [first.id] });
  assert.ok(second.links.some((l) => l.includes('stytch_token_type=multi_tenant_magic_links')), JSON.stringify(second.links));
  let { member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(invitee.member_id)}`);
  assert.equal(member.status, 'invited');

  // Revoking deletes the invited member.
  await row.getByRole('button', { name: 'actions' }).click();
  await page.getByRole('menuitem', { name: 'Revoke invite' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByText('Revoke invite?').waitFor();
  const revoked = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/${invitee.member_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Revoke invite' }).click();
  assert.equal((await revoked).status(), 200);
  await dialog.waitFor({ state: 'detached' });
  ({ member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(invitee.member_id)}`));
  assert.equal(member.status, 'deleted');
  // The revoked invitation's link no longer logs anyone in.
  const link = new URL(second.links.find((l) => l.includes('stytch_token_type=multi_tenant_magic_links')));
  await assert.rejects(h.api('POST', '/v1/b2b/magic_links/authenticate', {
    magic_links_token: link.searchParams.get('token'), session_duration_minutes: 60,
  }), (e) => e.status >= 400 && e.status < 500);

  // Resending an invite to the address creates a new Member record, as the revoke dialog says.
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.getByPlaceholder('Enter name').fill('Invited Again');
  await page.getByPlaceholder('Enter email address').fill(email);
  const reinvited = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/magic_links/email/invite'));
  await page.getByRole('dialog').getByRole('button', { name: 'Invite', exact: true }).click();
  assert.equal((await reinvited).status(), 200);
  await page.getByText(`Invite sent to ${email}`).waitFor();
  ({ member } = await h.api('GET', `/v1/b2b/organizations/${orgId}/member?email_address=${encodeURIComponent(email)}`));
  assert.notEqual(member.member_id, invitee.member_id);
  assert.equal(member.status, 'invited');
  assert.equal(member.name, 'Invited Again');
  await assert.rejects(h.api('GET', `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(invitee.member_id)}`),
    (e) => e.status === 404);
  w.assertClean();
});

h.test('admin portal Member Management: reset a member\'s SMS OTP and TOTP enrollments', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal MFA Reset');
  const orgId = org.organization_id;
  const email = uniqueEmail('portal-mfa');
  const enrolled = await h.createMember(orgId, email, 'MFA Member');
  // Both factors set up through the backend: a phone number and an imported authenticator secret.
  await h.api('PUT', `/v1/b2b/organizations/${orgId}/members/${enrolled.member_id}`, { mfa_phone_number: '+12025550123' });
  await h.api('POST', '/v1/b2b/totp/migrate', { organization_id: orgId, member_id: enrolled.member_id, secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' });
  const memberUrl = `/v1/b2b/organizations/${orgId}/member?member_id=${encodeURIComponent(enrolled.member_id)}`;
  let { member } = await h.api('GET', memberUrl);
  assert.equal(member.mfa_phone_number, '+12025550123');
  assert.notEqual(member.totp_registration_id, '');
  const w = watchPage(page);
  await openMember(page, email, 'MFA Member');

  await page.getByRole('button', { name: 'Reset TOTP' }).click();
  let dialog = page.getByRole('dialog');
  await dialog.getByText('Reset Member’s TOTP enrollment').waitFor();
  const totpDeleted = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/totp/${enrolled.member_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Reset TOTP' }).click();
  assert.equal((await totpDeleted).status(), 200);
  await dialog.waitFor({ state: 'detached' });
  // The member's answer no longer names a registration, so the portal drops the button.
  await page.getByRole('button', { name: 'Reset TOTP' }).waitFor({ state: 'detached' });

  await page.getByRole('button', { name: 'Reset SMS OTP' }).click();
  dialog = page.getByRole('dialog');
  const phoneDeleted = page.waitForResponse((r) =>
    r.url().endsWith(`/sdk/v1/b2b/organizations/members/mfa_phone_numbers/${enrolled.member_id}`) && r.request().method() === 'DELETE');
  await dialog.getByRole('button', { name: 'Reset SMS OTP' }).click();
  assert.equal((await phoneDeleted).status(), 200);
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Reset SMS OTP' }).waitFor({ state: 'detached' });

  ({ member } = await h.api('GET', memberUrl));
  assert.equal(member.mfa_phone_number, '');
  assert.equal(member.totp_registration_id, '');
  w.assertClean();
});

h.test('admin portal Org Settings: JIT by allowed OAuth accounts (tenants), added and removed', async ({ page }) => {
  const { org } = await adminOrg(page, 'Portal OAuth Tenants');
  const orgId = org.organization_id;
  assert.equal(org.oauth_tenant_jit_provisioning, 'NOT_ALLOWED');
  assert.deepEqual(org.allowed_oauth_tenants, {});
  const w = watchPage(page);
  await openPortal(page, 'settings');
  await page.getByRole('heading', { name: 'Authentication & Access Settings' }).waitFor();
  await sectionEdit(page, 'User onboarding').click();
  // The admin has no linked OAuth account, so the dialog asks for a provider and an account id.
  await page.getByRole('checkbox', { name: 'OAuth accounts' }).check();
  const addAccount = async (provider, id) => {
    await page.getByRole('button', { name: 'Add account' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Add allowed OAuth account').waitFor();
    await pickMenuItem(page, dialog.getByRole('combobox'), provider);
    await dialog.getByPlaceholder('Enter account ID').fill(id);
    await dialog.getByRole('button', { name: 'Save', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: id, exact: true }).waitFor();
  };
  await addAccount('GitHub', '4242');
  await addAccount('Slack', 'T0PORTAL');
  let updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  let res = await updated;
  assert.equal(res.status(), 200);
  let sent = JSON.parse(res.request().postData());
  assert.equal(sent.oauth_tenant_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(sent.allowed_oauth_tenants, { github: ['4242'], slack: ['T0PORTAL'] });
  // Back in the read-only view, the accounts from our answer.
  await page.getByRole('button', { name: 'Add account' }).waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: 'T0PORTAL', exact: true }).waitFor();
  let { organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`);
  assert.equal(organization.oauth_tenant_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.allowed_oauth_tenants, { github: ['4242'], slack: ['T0PORTAL'] });

  // Removing the Slack workspace sends its provider with an empty list: the provider goes away.
  await sectionEdit(page, 'User onboarding').click();
  const slackRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'T0PORTAL', exact: true }) });
  await slackRow.getByRole('button', { name: 'Delete', exact: true }).click();
  await slackRow.waitFor({ state: 'detached' });
  updated = page.waitForResponse((r) => r.url().endsWith('/sdk/v1/b2b/organizations/me') && r.request().method() === 'PUT');
  await saveSection(page);
  res = await updated;
  assert.equal(res.status(), 200);
  sent = JSON.parse(res.request().postData());
  assert.deepEqual(sent.allowed_oauth_tenants, { github: ['4242'], slack: [] });
  await page.getByRole('button', { name: 'Add account' }).waitFor({ state: 'detached' });
  await page.getByRole('cell', { name: '4242', exact: true }).waitFor();
  await page.getByRole('cell', { name: 'T0PORTAL', exact: true }).waitFor({ state: 'detached' });
  ({ organization } = await h.api('GET', `/v1/b2b/organizations/${orgId}`));
  assert.equal(organization.oauth_tenant_jit_provisioning, 'RESTRICTED');
  assert.deepEqual(organization.allowed_oauth_tenants, { github: ['4242'] });
  w.assertClean();
});
