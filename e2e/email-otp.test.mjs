// Email one-time passcodes: an existing member logs in by typing the emailed code, and a wrong
// code is rejected without burning the right one.
import assert from 'node:assert/strict';
import { useHarness, TEXT, cookieValue, enterCode, codeOf, wrongCode, uniqueEmail } from './harness.mjs';

const h = useHarness();

async function requestCode(page, slug, email) {
  await page.goto(h.pageUrlWith({ slug, products: 'emailOtp' }));
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  // With a single product the code is sent straight away, no method selection.
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  return codeOf(await h.waitForMail(email));
}

h.test('an existing member logs in with an emailed code', async ({ page, context }) => {
  const org = await h.createOrg({ name: 'Code Works', slug: 'code-works' });
  const email = uniqueEmail('existing');
  const member = await h.createMember(org.organization_id, email, 'Existing Member');

  await page.goto(h.pageUrlWith({ slug: 'code-works', products: 'emailOtp' }));
  await page.getByText(TEXT.continueTo('Code Works')).waitFor();
  // Only the code product is offered, so there is no magic-link choice on screen.
  assert.equal(await page.getByRole('button', { name: TEXT.emailMeALink }).count(), 0);
  const code = await requestCode(page, 'code-works', email);

  await enterCode(page, code); // no click: the widget submits at the sixth digit
  await page.getByText(TEXT.loggedIn).waitFor();

  // The session belongs to the member created through the backend API, not to a new one.
  await page.locator('#session').filter({ hasText: member.member_id }).waitFor();
  const token = await cookieValue(context, h.pageOrigin, 'stytch_session');
  assert.ok(token, 'stytch_session cookie is set');
  const s = await h.authenticateSession(token);
  assert.equal(s.member.member_id, member.member_id);
  assert.equal(s.organization.organization_id, org.organization_id);
});

h.test('a wrong code shows an error and the right code still works', async ({ page }) => {
  const org = await h.createOrg({ name: 'Typo Town', slug: 'typo-town' });
  const email = uniqueEmail('typo');
  const member = await h.createMember(org.organization_id, email, 'Typo Member');

  const code = await requestCode(page, 'typo-town', email);
  await enterCode(page, wrongCode(code));
  await page.getByText(TEXT.wrongCode).waitFor();
  assert.equal(await page.getByText(TEXT.loggedIn).count(), 0);
  // The field was read-only, not disabled, while the code was checked, so it kept the focus
  // (Chrome sends a disabled field's focus to <body>) and the next try can be typed at once.
  const field = page.getByLabel(TEXT.otpLabel).first();
  assert.equal(await field.evaluate((el) => el.getRootNode().activeElement === el), true, 'the code field keeps focus');
  assert.equal(await field.inputValue(), '', 'the wrong code is cleared');

  await enterCode(page, code);
  await page.getByText(TEXT.loggedIn).waitFor();
  await page.locator('#session').filter({ hasText: member.member_id }).waitFor();
});
