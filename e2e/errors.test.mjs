// What a person sees when they cannot log in: a domain the organization does not allow, a page
// that mounts the widget on a missing element, and an organization that does not exist.
import assert from 'node:assert/strict';
import { useHarness, TEXT, uniqueEmail } from './harness.mjs';

const h = useHarness();

h.test('an email outside a restricted organization\'s domains is refused', async ({ page }) => {
  const org = await h.createOrg({
    name: 'Walled Garden',
    slug: 'walled-garden',
    jit: 'RESTRICTED',
    domains: ['walled.test'],
  });
  const email = uniqueEmail('outsider', 'elsewhere.test');

  // One product, so submitting the email sends at once (no method selection in between).
  await page.goto(h.pageUrlWith({ slug: 'walled-garden', products: 'emailMagicLinks' }));
  await page.getByText(TEXT.continueTo('Walled Garden')).waitFor();
  await page.locator('#email-input').fill(email);
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByText(TEXT.jitDenied(email, 'Walled Garden')).waitFor();

  // Nothing was sent and nobody was provisioned.
  assert.deepEqual(await h.mailbox(email), []);
  await assert.rejects(
    h.api('GET', `/v1/b2b/organizations/${org.organization_id}/member?email_address=${encodeURIComponent(email)}`),
    (e) => e.status === 404,
  );
});

h.test('mounting on a missing selector throws the documented message', async ({ page }) => {
  await h.createOrg({ name: 'Mount Co', slug: 'mount-co' });
  await page.goto(h.pageUrlWith({ slug: 'mount-co', mount: 'none' }));
  await page.waitForFunction(() => typeof window.client?.mountLogin === 'function');
  const message = await page.evaluate(() => {
    try {
      window.client.mountLogin({ elementId: '#nope', config: window.e2eConfig });
    } catch (e) {
      return e.message;
    }
    return 'mountLogin did not throw';
  });
  assert.equal(message, TEXT.missingSelector('#nope'));
  assert.equal(await page.locator('stytch-b2b-ui').count(), 0, 'no widget was created anywhere');
});

h.test('an unknown or missing organization slug shows the Organization error, without a way back', async ({ page }) => {
  for (const slug of ['no-such-org', '']) {
    await page.goto(h.pageUrlWith({ slug }));
    await page.getByText(TEXT.errorTitle).waitFor();
    await page.getByText(TEXT.orgNotFound).waitFor();
    assert.equal(await page.getByRole('button', { name: TEXT.goBack }).count(), 0, `no back for slug "${slug}"`);
    assert.equal(await page.locator('#email-input').count(), 0, 'no email form for an unknown organization');
  }
});
