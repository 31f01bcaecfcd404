import { describe, expect, it } from 'vitest';
import { BOOTSTRAP } from '../test/fakeServer';
import { DEFAULT_BOOTSTRAP, mapBootstrap } from './bootstrap';

describe('mapBootstrap', () => {
  it('maps raw fields', () => {
    const b = mapBootstrap({ ...BOOTSTRAP, disable_sdk_watermark: false, slug_pattern: 'https://{{slug}}.x.io', pkce_required_for_email_magic_links: true });
    expect(b).toMatchObject({
      displayWatermark: true,
      projectName: 'Latchkey Demo',
      emailDomains: ['latchkey.test'],
      slugPattern: 'https://{{slug}}.x.io',
      pkceRequiredForEmailMagicLinks: true,
      captchaSettings: { enabled: false },
      vertical: 'B2B',
    });
  });

  it('shows the watermark only when disable_sdk_watermark is exactly false', () => {
    expect(mapBootstrap({ ...BOOTSTRAP, disable_sdk_watermark: true }).displayWatermark).toBe(false);
    expect(mapBootstrap({ ...BOOTSTRAP, disable_sdk_watermark: undefined }).displayWatermark).toBe(false);
  });

  it('rejects payloads the reference declares invalid, so defaults apply', () => {
    const { password_config: _omit, ...withoutPasswordConfig } = BOOTSTRAP;
    expect(() => mapBootstrap(withoutPasswordConfig)).toThrow(/password_config/);
    expect(() => mapBootstrap({ ...BOOTSTRAP, email_domains: 'x' })).toThrow(/email_domains/);
    expect(DEFAULT_BOOTSTRAP).toMatchObject({ displayWatermark: false, slugPattern: null, pkceRequiredForEmailMagicLinks: false });
  });
});
