/** Which sign-in methods appear on Main (spec section 2, "Which methods appear"). Pure functions. */
import type { AuthMethodPolicyName, Organization, SSOActiveConnection } from '../api/types';
import { B2BProducts, OAUTH_PROVIDERS, type B2BProduct, type OAuthProvider } from './config';
import { ssoLastUsed, type LastUsedMethod } from './lastUsed';

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

/** One button of a button group on Main. */
export type ButtonItem =
  | { kind: 'oauth'; provider: OAuthProvider; lastUsed: boolean }
  | { kind: 'sso'; connection: SSOActiveConnection; lastUsed: boolean }
  /** Discovery has no organization, hence no connections: one button starts SSO discovery. */
  | { kind: 'ssoDiscovery'; lastUsed: boolean };

/** Which entry of a form block was used last, if any. */
export type FormLastUsed = 'emailMagicLinks' | 'emailOtp' | 'passwords' | null;

/**
 * A block of the Main screen. The email form carries `password` when passwords are offered too
 * (the combined password and email form); `passwordForm` is passwords without an email method.
 */
export type MainBlock =
  | { kind: 'emailForm'; magicLink: boolean; otp: boolean; password: boolean; lastUsed: FormLastUsed }
  | { kind: 'passwordForm'; lastUsed: FormLastUsed }
  | { kind: 'buttons'; items: ButtonItem[] }
  | { kind: 'divider' };

export interface BlocksInput {
  /** Connections for SSO buttons: the organization's active ones, or 'discovery' without one. */
  sso: SSOActiveConnection[] | 'discovery';
  lastUsed: LastUsedMethod | null;
}

const isButtons = (b: MainBlock): b is Extract<MainBlock, { kind: 'buttons' }> => b.kind === 'buttons';

function itemIsLastUsed(item: ButtonItem, lastUsed: LastUsedMethod | null): boolean {
  if (!lastUsed) return false;
  switch (item.kind) {
    case 'oauth':
      return item.provider === lastUsed;
    case 'sso':
      return ssoLastUsed(item.connection.connection_id) === lastUsed;
    case 'ssoDiscovery':
      return lastUsed.startsWith('sso:');
    default: {
      const never: never = item;
      throw new Error(`unknown button ${JSON.stringify(never)}`);
    }
  }
}

/** Blocks in the order of their products' first appearance among the methods. */
function productBlocks(methods: EnabledMethod[], input: BlocksInput): MainBlock[] {
  const blocks: MainBlock[] = [];
  const hasEmail = methods.some((m) => m.product === 'emailMagicLinks' || m.product === 'emailOtp');
  let email: Extract<MainBlock, { kind: 'emailForm' }> | null = null;
  let oauth: Extract<MainBlock, { kind: 'buttons' }> | null = null;
  const emailBlock = () => {
    if (!email) {
      email = { kind: 'emailForm', magicLink: false, otp: false, password: false, lastUsed: null };
      blocks.push(email);
    }
    return email;
  };
  for (const m of methods) {
    switch (m.product) {
      case 'emailMagicLinks':
        emailBlock().magicLink = true;
        break;
      case 'emailOtp':
        emailBlock().otp = true;
        break;
      case 'passwords':
        // With an email method the two share one combined form, placed where the first of them is.
        if (hasEmail) emailBlock().password = true;
        else if (!blocks.some((b) => b.kind === 'passwordForm')) blocks.push({ kind: 'passwordForm', lastUsed: null });
        break;
      case 'oauth':
        if (!oauth) {
          oauth = { kind: 'buttons', items: [] };
          blocks.push(oauth);
        }
        if (!oauth.items.some((i) => i.kind === 'oauth' && i.provider === m.provider)) {
          oauth.items.push({ kind: 'oauth', provider: m.provider, lastUsed: false });
        }
        break;
      case 'sso': {
        const items: ButtonItem[] =
          input.sso === 'discovery'
            ? [{ kind: 'ssoDiscovery', lastUsed: false }]
            : input.sso.map((connection) => ({ kind: 'sso', connection, lastUsed: false }));
        // SSO shows only in discovery or when the organization has active connections.
        if (items.length > 0) blocks.push({ kind: 'buttons', items });
        break;
      }
      default: {
        const never: never = m;
        throw new Error(`unknown method ${JSON.stringify(never)}`);
      }
    }
  }
  return blocks;
}

/** Moves the block holding the last used method first, and that entry first within its block. */
function applyLastUsed(blocks: MainBlock[], lastUsed: LastUsedMethod | null): MainBlock[] {
  if (!lastUsed) return blocks;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    let marked: MainBlock | null = null;
    if (block.kind === 'buttons') {
      const index = block.items.findIndex((item) => itemIsLastUsed(item, lastUsed));
      if (index >= 0) {
        const item = { ...block.items[index]!, lastUsed: true };
        marked = { kind: 'buttons', items: [item, ...block.items.filter((_, j) => j !== index)] };
      }
    } else if (block.kind === 'emailForm') {
      const has =
        (lastUsed === 'emailMagicLinks' && block.magicLink) ||
        (lastUsed === 'emailOtp' && block.otp) ||
        (lastUsed === 'passwords' && block.password);
      if (has) marked = { ...block, lastUsed };
    } else if (block.kind === 'passwordForm' && lastUsed === 'passwords') {
      marked = { ...block, lastUsed };
    }
    if (marked) return [marked, ...blocks.filter((_, j) => j !== i)];
  }
  return blocks;
}

/** Joins adjacent button groups and puts an 'or' divider wherever buttons meet a form. */
function mergeAndDivide(blocks: MainBlock[]): MainBlock[] {
  const merged: MainBlock[] = [];
  for (const block of blocks) {
    const prev = merged[merged.length - 1];
    if (prev && isButtons(prev) && isButtons(block)) {
      merged[merged.length - 1] = { kind: 'buttons', items: [...prev.items, ...block.items] };
    } else {
      merged.push(block);
    }
  }
  const out: MainBlock[] = [];
  for (const block of merged) {
    const prev = out[out.length - 1];
    if (prev && isButtons(prev) !== isButtons(block)) out.push({ kind: 'divider' });
    out.push(block);
  }
  return out;
}

/**
 * Main's blocks (spec section 2): ordered by product, the last used method first, adjacent button
 * groups merged, and 'or' between buttons and forms.
 */
export function mainBlocks(methods: EnabledMethod[], input: BlocksInput): MainBlock[] {
  return mergeAndDivide(applyLastUsed(productBlocks(methods, input), input.lastUsed));
}
