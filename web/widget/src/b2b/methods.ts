/** Which sign-in methods appear on Main (spec section 2, "Which methods appear"). Pure functions. */
import type { AuthMethodPolicyName, Organization } from '../api/types';
import { B2BProducts, OAUTH_PROVIDERS, type B2BProduct, type OAuthProvider } from './config';

export type EnabledMethod =
  | { product: 'emailMagicLinks' }
  | { product: 'emailOtp' }
  | { product: 'passwords' }
  | { product: 'sso' }
  | { product: 'oauth'; provider: OAuthProvider };

export function policyName(method: EnabledMethod): AuthMethodPolicyName {
  switch (method.product) {
    case 'emailMagicLinks':
      return 'magic_link';
    case 'emailOtp':
      return 'email_otp';
    case 'passwords':
      return 'password';
    case 'sso':
      return 'sso';
    case 'oauth':
      return `${method.provider}_oauth`;
    default: {
      const never: never = method;
      throw new Error(`unknown method ${JSON.stringify(never)}`);
    }
  }
}

/** The configured products, with oauth expanded to one entry per configured provider. */
export function expandProducts(products: B2BProduct[], providers: OAuthProvider[]): EnabledMethod[] {
  const out: EnabledMethod[] = [];
  for (const product of products) {
    if (product === B2BProducts.oauth) {
      for (const provider of providers) out.push({ product: 'oauth', provider });
    } else {
      out.push({ product });
    }
  }
  return out;
}

const ALL_KNOWN: EnabledMethod[] = expandProducts(
  [B2BProducts.emailMagicLinks, B2BProducts.emailOtp, B2BProducts.passwords, B2BProducts.sso, B2BProducts.oauth],
  [...OAUTH_PROVIDERS],
);

export interface MethodsInput {
  products: B2BProduct[];
  oauthProviders: OAuthProvider[];
  organization: Organization | null;
  /** `primary_required.allowed_auth_methods` after a partial login, otherwise null. */
  primaryAllowed: AuthMethodPolicyName[] | null;
}

/**
 * The methods to offer. The primary-authentication restriction (computed by the server for this
 * member) takes precedence over the organization's own restriction.
 */
export function enabledMethods(input: MethodsInput): EnabledMethod[] {
  const configured = expandProducts(input.products, input.oauthProviders);
  const org = input.organization;
  const orgRestriction = org && org.auth_methods === 'RESTRICTED' ? (org.allowed_auth_methods ?? []) : null;
  const restriction = input.primaryAllowed ?? orgRestriction;
  if (!restriction) return configured;
  const allowed = new Set<string>(restriction);
  const filtered = configured.filter((m) => allowed.has(policyName(m)));
  if (filtered.length > 0) return filtered;
  if (input.primaryAllowed && input.primaryAllowed.length > 0) return [{ product: 'emailMagicLinks' }];
  if (orgRestriction) return ALL_KNOWN.filter((m) => allowed.has(policyName(m)));
  return [];
}

/** A block of the Main screen. Button blocks (OAuth, SSO) join this union with their slice. */
export type MainBlock = { kind: 'emailForm'; magicLink: boolean; otp: boolean };

/**
 * Orders Main's blocks by the position of each product among the enabled methods. Magic link and
 * email OTP share one email form. Methods whose blocks this build lacks are left out.
 */
export function mainBlocks(methods: EnabledMethod[]): MainBlock[] {
  const blocks: MainBlock[] = [];
  let email: Extract<MainBlock, { kind: 'emailForm' }> | null = null;
  for (const m of methods) {
    if (m.product === 'emailMagicLinks' || m.product === 'emailOtp') {
      if (!email) {
        email = { kind: 'emailForm', magicLink: false, otp: false };
        blocks.push(email);
      }
      if (m.product === 'emailMagicLinks') email.magicLink = true;
      else email.otp = true;
    }
  }
  return blocks;
}
