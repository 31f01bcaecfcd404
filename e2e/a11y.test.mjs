// Accessibility: axe-core finds no serious or critical problems on the main and passcode screens.
// axe is injected from node_modules (no extra wrapper package) and scans inside the open shadow root.
import assert from 'node:assert/strict';
import { useHarness, TEXT, AXE_PATH, uniqueEmail } from './harness.mjs';

const h = useHarness();

async function seriousViolations(page) {
  await page.addScriptTag({ path: AXE_PATH });
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target) }));
}

h.test('main and passcode screens have no serious or critical axe violations', async ({ page }) => {
  await h.createOrg({ name: 'Axe Labs', slug: 'axe-labs' });

  await page.goto(h.pageUrlWith({ slug: 'axe-labs', products: 'emailOtp' }));
  await page.getByText(TEXT.continueTo('Axe Labs')).waitFor();
  await page.locator('#email-input').waitFor();
  // The email field must have an accessible name (a label), not just a placeholder.
  await page.getByLabel(/email/i).first().waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Main screen');

  await page.locator('#email-input').fill(uniqueEmail('axe'));
  await page.getByRole('button', { name: TEXT.continueWithEmail }).click();
  await page.getByLabel(TEXT.otpLabel).first().waitFor();
  assert.deepEqual(await seriousViolations(page), [], 'Email OTP entry screen');
});
