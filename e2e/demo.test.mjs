// The dev demo page at / is what a developer sees after `make run`: two seeded organizations, a
// session panel and a link to the dev mailbox. A person logs in to Acme with an emailed code.
import assert from 'node:assert/strict';
import { useHarness, TEXT, enterCode, codeOf, uniqueEmail } from './harness.mjs';

const h = useHarness();

h.test('the demo page lets a person log in to Acme with an emailed code', async ({ page, context }) => {
  await page.goto(`${h.base}/`);
  const acme = page.locator('#login-acme');
  const globex = page.locator('#login-globex');
  await acme.getByText(TEXT.continueTo('Acme Corp')).waitFor();
  await globex.getByText(TEXT.continueTo('Globex')).waitFor();
  const mailboxLink = page.locator('a[href$="/dev/mailbox"]').first();
  await mailboxLink.waitFor();

  const email = uniqueEmail('visitor'); // Acme accepts any domain
  await acme.locator('#email-input').fill(email);
  await acme.getByRole('button', { name: TEXT.continueWithEmail }).click();
  // The demo may offer both email methods (then a choice screen) or codes only.
  const choice = acme.getByRole('button', { name: TEXT.emailMeACode });
  const codeInput = acme.getByLabel(TEXT.otpLabel).first();
  await choice.or(codeInput).first().waitFor();
  if (await choice.isVisible()) await choice.click();
  await codeInput.waitFor();

  const mail = await h.waitForMail(email);
  const code = codeOf(mail);

  // The developer can read the message on the dev mailbox page the demo links to.
  const mailboxPage = await context.newPage();
  await mailboxPage.goto(new URL(await mailboxLink.getAttribute('href'), `${h.base}/`).toString());
  await mailboxPage.getByText(email).first().waitFor();
  await mailboxPage.close();

  await enterCode(acme, code);
  await acme.getByText(TEXT.loggedIn).waitFor();
  // The session panel now shows who is logged in (their email or the member session id).
  const who = new RegExp(`${email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}|member-session-`);
  await page.locator('#session').filter({ hasText: who }).waitFor();
  // The Globex widget is untouched by the Acme login.
  assert.equal(await globex.getByText(TEXT.loggedIn).count(), 0);
});
