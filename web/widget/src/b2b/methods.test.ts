import { describe, expect, it } from 'vitest';
import type { Organization, SSOActiveConnection } from '../api/types';
import { ACME } from '../test/fakeServer';
import type { B2BProduct, OAuthProvider } from './config';
import { enabledMethods, expandProducts, mainBlocks, policyName, type BlocksInput, type MainBlock } from './methods';

const org = (overrides: Partial<Organization>) => ({ ...ACME, ...overrides }) as Organization;
const names = (ms: ReturnType<typeof enabledMethods>) => ms.map(policyName);

describe('enabledMethods', () => {
  it('returns configured products with oauth expanded to providers', () => {
    expect(expandProducts(['oauth', 'emailMagicLinks'], ['google', 'github'])).toEqual([
      { product: 'oauth', provider: 'google' },
      { product: 'oauth', provider: 'github' },
      { product: 'emailMagicLinks' },
    ]);
    const all = enabledMethods({ products: ['emailOtp', 'emailMagicLinks'], oauthProviders: [], organization: org({}), primaryAllowed: null });
    expect(names(all)).toEqual(['email_otp', 'magic_link']);
  });

  it('filters by a RESTRICTED organization', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['email_otp', 'google_oauth'] });
    const ms = enabledMethods({ products: ['emailMagicLinks', 'emailOtp', 'oauth'], oauthProviders: ['google', 'slack'], organization: o, primaryAllowed: null });
    expect(names(ms)).toEqual(['email_otp', 'google_oauth']);
  });

  it('offers all known methods allowed by a restricted organization when nothing configured matches', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['magic_link', 'sso'] });
    const ms = enabledMethods({ products: ['emailOtp'], oauthProviders: [], organization: o, primaryAllowed: null });
    expect(names(ms)).toEqual(['magic_link', 'sso']);
  });

  it('uses the primary-auth restriction over the organization and falls back to magic link', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['email_otp'] });
    expect(names(enabledMethods({ products: ['emailMagicLinks', 'emailOtp'], oauthProviders: [], organization: o, primaryAllowed: ['magic_link'] }))).toEqual(['magic_link']);
    expect(names(enabledMethods({ products: ['emailOtp'], oauthProviders: [], organization: o, primaryAllowed: ['sso'] }))).toEqual(['magic_link']);
  });

  it('ignores allowed_auth_methods when the organization allows all', () => {
    const o = org({ auth_methods: 'ALL_ALLOWED', allowed_auth_methods: ['sso'] });
    expect(names(enabledMethods({ products: ['emailMagicLinks'], oauthProviders: [], organization: o, primaryAllowed: null }))).toEqual(['magic_link']);
  });
});

describe('enabledMethods restrictions', () => {
  it('a primary restriction with nothing configured and nothing allowed offers nothing', () => {
    const ms = enabledMethods({ products: ['emailOtp'], oauthProviders: [], organization: org({}), primaryAllowed: [] });
    expect(ms).toEqual([]);
  });

  it('a restricted organization with nothing matching offers the known methods it allows, OAuth included', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: ['github_oauth', 'password'] });
    const ms = enabledMethods({ products: ['emailMagicLinks'], oauthProviders: [], organization: o, primaryAllowed: null });
    expect(names(ms)).toEqual(['password', 'github_oauth']);
  });

  it('with neither restriction nor match a restricted organization offers nothing', () => {
    const o = org({ auth_methods: 'RESTRICTED', allowed_auth_methods: [] });
    expect(enabledMethods({ products: ['emailMagicLinks'], oauthProviders: [], organization: o, primaryAllowed: null })).toEqual([]);
  });
});

const CONN_A: SSOActiveConnection = { connection_id: 'saml-connection-test-a', display_name: 'Okta', identity_provider: 'okta' };
const CONN_B: SSOActiveConnection = { connection_id: 'oidc-connection-test-b', display_name: 'Entra', identity_provider: 'microsoft-entra' };
const noSso: BlocksInput = { sso: [], lastUsed: null };
const methods = (products: B2BProduct[], providers: OAuthProvider[] = []) => expandProducts(products, providers);
const kinds = (blocks: MainBlock[]) => blocks.map((b) => b.kind);
const buttonNames = (block: MainBlock | undefined) =>
  block?.kind === 'buttons'
    ? block.items.map((i) => (i.kind === 'oauth' ? i.provider : i.kind === 'sso' ? i.connection.connection_id : 'sso-discovery'))
    : [];

describe('mainBlocks', () => {
  it('merges magic link and email OTP into one email form', () => {
    expect(mainBlocks([{ product: 'emailOtp' }, { product: 'emailMagicLinks' }], noSso)).toEqual([
      { kind: 'emailForm', magicLink: true, otp: true, password: false, lastUsed: null },
    ]);
    expect(mainBlocks([{ product: 'emailOtp' }], noSso)).toEqual([
      { kind: 'emailForm', magicLink: false, otp: true, password: false, lastUsed: null },
    ]);
  });

  it('orders blocks by product and puts "or" between buttons and forms', () => {
    const blocks = mainBlocks(methods(['oauth', 'emailMagicLinks'], ['google', 'github']), noSso);
    expect(kinds(blocks)).toEqual(['buttons', 'divider', 'emailForm']);
    expect(buttonNames(blocks[0])).toEqual(['google', 'github']);
    expect(kinds(mainBlocks(methods(['emailOtp', 'oauth'], ['slack']), noSso))).toEqual(['emailForm', 'divider', 'buttons']);
  });

  it('merges adjacent OAuth and SSO groups into one', () => {
    const blocks = mainBlocks(methods(['oauth', 'sso', 'emailOtp'], ['google']), { sso: [CONN_A, CONN_B], lastUsed: null });
    expect(kinds(blocks)).toEqual(['buttons', 'divider', 'emailForm']);
    expect(buttonNames(blocks[0])).toEqual(['google', CONN_A.connection_id, CONN_B.connection_id]);
  });

  it('keeps separated button groups apart, each divided from the form', () => {
    const blocks = mainBlocks(methods(['oauth', 'emailOtp', 'sso'], ['google']), { sso: [CONN_A], lastUsed: null });
    expect(kinds(blocks)).toEqual(['buttons', 'divider', 'emailForm', 'divider', 'buttons']);
  });

  it('shows SSO only with active connections, or as one discovery button', () => {
    expect(mainBlocks(methods(['sso', 'emailOtp']), noSso)).toEqual([
      { kind: 'emailForm', magicLink: false, otp: true, password: false, lastUsed: null },
    ]);
    const discovery = mainBlocks(methods(['sso']), { sso: 'discovery', lastUsed: null });
    expect(discovery).toEqual([{ kind: 'buttons', items: [{ kind: 'ssoDiscovery', lastUsed: false }] }]);
  });

  it('combines passwords with the email form where the first of them is; alone it is a password block', () => {
    const combined = mainBlocks(methods(['passwords', 'oauth', 'emailMagicLinks'], ['google']), noSso);
    expect(kinds(combined)).toEqual(['emailForm', 'divider', 'buttons']);
    expect(combined[0]).toMatchObject({ kind: 'emailForm', magicLink: true, password: true });
    expect(mainBlocks(methods(['oauth', 'passwords'], ['github']), noSso)).toEqual([
      { kind: 'buttons', items: [{ kind: 'oauth', provider: 'github', lastUsed: false }] },
      { kind: 'divider' },
      { kind: 'passwordForm', lastUsed: null },
    ]);
  });

  it('moves the last used OAuth provider first, with its group, and marks it', () => {
    const blocks = mainBlocks(methods(['emailOtp', 'oauth'], ['google', 'microsoft', 'github']), { sso: [], lastUsed: 'github' });
    expect(kinds(blocks)).toEqual(['buttons', 'divider', 'emailForm']);
    expect(buttonNames(blocks[0])).toEqual(['github', 'google', 'microsoft']);
    expect(blocks[0]).toMatchObject({ items: [{ lastUsed: true }, { lastUsed: false }, { lastUsed: false }] });
  });

  it('marks the last used SSO connection', () => {
    const blocks = mainBlocks(methods(['oauth', 'sso'], ['google']), { sso: [CONN_A, CONN_B], lastUsed: `sso:${CONN_B.connection_id}` });
    // The SSO group moves before the OAuth group, then the two merge.
    expect(kinds(blocks)).toEqual(['buttons']);
    expect(buttonNames(blocks[0])).toEqual([CONN_B.connection_id, CONN_A.connection_id, 'google']);
    const discovery = mainBlocks(methods(['sso']), { sso: 'discovery', lastUsed: 'sso:anything' });
    expect(discovery[0]).toEqual({ kind: 'buttons', items: [{ kind: 'ssoDiscovery', lastUsed: true }] });
  });

  it('moves the email form first when an email method or passwords was used last', () => {
    const blocks = mainBlocks(methods(['oauth', 'emailMagicLinks', 'emailOtp', 'passwords'], ['google']), { sso: [], lastUsed: 'emailOtp' });
    expect(kinds(blocks)).toEqual(['emailForm', 'divider', 'buttons']);
    expect(blocks[0]).toMatchObject({ lastUsed: 'emailOtp' });
    const pw = mainBlocks(methods(['oauth', 'emailMagicLinks', 'passwords'], ['google']), { sso: [], lastUsed: 'passwords' });
    expect(pw[0]).toMatchObject({ kind: 'emailForm', lastUsed: 'passwords' });
    const alone = mainBlocks(methods(['oauth', 'passwords'], ['google']), { sso: [], lastUsed: 'passwords' });
    expect(alone[0]).toEqual({ kind: 'passwordForm', lastUsed: 'passwords' });
  });

  it('ignores a last used method that is not offered', () => {
    const input = methods(['emailMagicLinks', 'oauth'], ['google']);
    expect(mainBlocks(input, { sso: [], lastUsed: 'slack' })).toEqual(mainBlocks(input, noSso));
    expect(mainBlocks(input, { sso: [], lastUsed: 'emailOtp' })).toEqual(mainBlocks(input, noSso));
    expect(mainBlocks(input, { sso: [], lastUsed: 'passwords' })).toEqual(mainBlocks(input, noSso));
  });
});
