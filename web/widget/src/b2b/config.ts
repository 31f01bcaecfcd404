/** The `config` mount option: products, flow type and per-method options (spec section 3). */
import type { MfaMethod } from './state/types';

export const B2BProducts = {
  emailMagicLinks: 'emailMagicLinks',
  emailOtp: 'emailOtp',
  passwords: 'passwords',
  oauth: 'oauth',
  sso: 'sso',
} as const;
export type B2BProduct = (typeof B2BProducts)[keyof typeof B2BProducts];

/** MFA methods as named in the UI config (policy names sms_otp and totp). */
export const B2BMFAProducts = {
  smsOtp: 'smsOtp',
  totp: 'totp',
} as const;
export type B2BMFAProduct = (typeof B2BMFAProducts)[keyof typeof B2BMFAProducts];

export const AuthFlowType = {
  Discovery: 'Discovery',
  Organization: 'Organization',
  PasswordReset: 'PasswordReset',
} as const;
export type AuthFlowType = (typeof AuthFlowType)[keyof typeof AuthFlowType];

export const OAUTH_PROVIDERS = ['google', 'microsoft', 'hubspot', 'slack', 'github'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

export interface OAuthProviderOption {
  type: OAuthProvider;
  one_tap?: boolean;
  customScopes?: string[];
  providerParams?: Record<string, string>;
  cancel_on_tap_outside?: boolean;
}

export interface LoginConfig {
  products: B2BProduct[];
  authFlowType?: AuthFlowType;
  sessionOptions?: { sessionDurationMinutes?: number };
  organizationSlug?: string;
  emailMagicLinksOptions?: {
    loginRedirectURL?: string;
    signupRedirectURL?: string;
    discoveryRedirectURL?: string;
    loginTemplateId?: string;
    signupTemplateId?: string;
    locale?: string;
  };
  emailOtpOptions?: { loginTemplateId?: string; signupTemplateId?: string; locale?: string };
  passwordOptions?: PasswordOptions;
  oauthOptions?: {
    providers: (OAuthProvider | OAuthProviderOption)[];
    loginRedirectURL?: string;
    signupRedirectURL?: string;
    discoveryRedirectURL?: string;
    customScopes?: string[];
    providerParams?: Record<string, string>;
  };
  ssoOptions?: { loginRedirectURL?: string; signupRedirectURL?: string; providerParams?: Record<string, string> };
  /** Discovery: log in at once when the email has exactly one active membership. */
  directLoginForSingleMembership?: DirectLoginOptions;
  /** Discovery: create an organization at once when the email has no organizations at all. */
  directCreateOrganizationForNoMembership?: boolean;
  /** Discovery: never offer to create an organization, whatever the project allows. */
  disableCreateOrganization?: boolean;
  /** The order of MFA methods offered for enrollment. */
  mfaProductOrder?: B2BMFAProduct[];
  /** The MFA methods offered for enrollment when the organization does not restrict them. */
  mfaProductInclude?: B2BMFAProduct[];
}

/** Password sign-in and reset (api-reference 3.3): where emailed reset links lead, and their emails. */
export interface PasswordOptions {
  /** The page that mounts the widget for a reset (links carry stytch_redirect_type=reset_password). */
  resetPasswordRedirectURL?: string;
  resetPasswordExpirationMinutes?: number;
  resetPasswordTemplateId?: string;
  verifyEmailTemplateId?: string;
  loginRedirectURL?: string;
  discoveryRedirectURL?: string;
  locale?: string;
}

export interface DirectLoginOptions {
  status: boolean;
  /** Log in directly even when invitations (or pending memberships) exist. */
  ignoreInvites?: boolean;
  /** Log in directly even when organizations could be joined by email domain or OAuth tenant. */
  ignoreJitProvisioning?: boolean;
}

/**
 * Products whose flows this build completes; the others are announced once in the console. Their
 * Main-screen entries still render (OAuth and SSO navigate to the server's start URLs).
 */
export const IMPLEMENTED_PRODUCTS: ReadonlySet<B2BProduct> = new Set([
  B2BProducts.emailMagicLinks,
  B2BProducts.emailOtp,
  B2BProducts.passwords,
  B2BProducts.oauth,
  B2BProducts.sso,
]);

/** Per-provider OAuth start options: scopes and extra `provider_*` query parameters. */
export interface OAuthStartOptions {
  customScopes: string[];
  providerParams: Record<string, string>;
}

export const DEFAULT_SESSION_DURATION_MINUTES = 60;

export interface NormalizedConfig {
  products: B2BProduct[];
  oauthProviders: OAuthProvider[];
  authFlowType: AuthFlowType;
  sessionDurationMinutes: number;
  organizationSlug: string | null;
  emailMagicLinksOptions: NonNullable<LoginConfig['emailMagicLinksOptions']>;
  emailOtpOptions: NonNullable<LoginConfig['emailOtpOptions']>;
  passwordOptions: PasswordOptions;
  oauthRedirects: {
    loginRedirectURL: string | undefined;
    signupRedirectURL: string | undefined;
    discoveryRedirectURL: string | undefined;
  };
  /** Start options per configured provider (provider entries override the shared ones). */
  oauthStart: Partial<Record<OAuthProvider, OAuthStartOptions>>;
  ssoOptions: {
    loginRedirectURL: string | undefined;
    signupRedirectURL: string | undefined;
    providerParams: Record<string, string>;
  };
  directLoginForSingleMembership: Required<DirectLoginOptions>;
  directCreateOrganizationForNoMembership: boolean;
  disableCreateOrganization: boolean;
  /** Configured products this build cannot complete yet. */
  unsupportedProducts: B2BProduct[];
  /** Google One Tap: on when the google provider entry says `one_tap: true` (api-reference 3.5). */
  oneTap: { enabled: boolean; cancelOnTapOutside: boolean; floatingOnly: boolean };
  /** MFA methods (policy names) in the configured order; the unmentioned ones follow. */
  mfaProductOrder: MfaMethod[];
  /** The configured MFA methods (policy names), or null when not configured. */
  mfaProductInclude: MfaMethod[] | null;
}

const MFA_PRODUCT_METHOD: Record<B2BMFAProduct, MfaMethod> = { smsOtp: 'sms_otp', totp: 'totp' };

/** Maps configured MFA product names to policy names, dropping unknown and repeated entries. */
function mfaMethods(v: unknown): MfaMethod[] | null {
  if (!Array.isArray(v)) return null;
  const out: MfaMethod[] = [];
  for (const p of v) {
    const m = typeof p === 'string' && Object.prototype.hasOwnProperty.call(MFA_PRODUCT_METHOD, p) ? MFA_PRODUCT_METHOD[p as B2BMFAProduct] : null;
    if (m && !out.includes(m)) out.push(m);
  }
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!v || typeof v !== 'object') return out;
  for (const [k, value] of Object.entries(v as Record<string, unknown>)) if (typeof value === 'string') out[k] = value;
  return out;
}

function oauthStartOptions(config: Partial<LoginConfig> | undefined): Partial<Record<OAuthProvider, OAuthStartOptions>> {
  const shared = config?.oauthOptions;
  const out: Partial<Record<OAuthProvider, OAuthStartOptions>> = {};
  for (const p of shared?.providers ?? []) {
    const entry = typeof p === 'string' ? { type: p } : p;
    if (!entry || !(OAUTH_PROVIDERS as readonly string[]).includes(entry.type as string) || out[entry.type]) continue;
    const scopes = stringList(entry.customScopes);
    out[entry.type] = {
      customScopes: scopes.length > 0 ? scopes : stringList(shared?.customScopes),
      providerParams: { ...stringMap(shared?.providerParams), ...stringMap(entry.providerParams) },
    };
  }
  return out;
}

/**
 * One Tap is on for a `{type:'google', one_tap:true}` entry. When it is the whole configuration (only
 * the oauth product, only that provider) the widget is "floating One Tap only": no form (api-reference 3.6).
 */
function oneTapOptions(config: Partial<LoginConfig> | undefined, products: B2BProduct[]): NormalizedConfig['oneTap'] {
  const entries = config?.oauthOptions?.providers ?? [];
  const google = entries.find((p): p is OAuthProviderOption => typeof p === 'object' && p?.type === 'google');
  const enabled = google?.one_tap === true;
  return {
    enabled,
    cancelOnTapOutside: google?.cancel_on_tap_outside !== false,
    floatingOnly: enabled && entries.length === 1 && products.length === 1 && products[0] === B2BProducts.oauth,
  };
}

function passwordOptions(o: PasswordOptions | undefined): PasswordOptions {
  const minutes = o?.resetPasswordExpirationMinutes;
  const out: PasswordOptions = {};
  for (const key of ['resetPasswordRedirectURL', 'resetPasswordTemplateId', 'verifyEmailTemplateId', 'loginRedirectURL', 'discoveryRedirectURL', 'locale'] as const) {
    const v = str(o?.[key]);
    if (v) out[key] = v;
  }
  if (typeof minutes === 'number' && Number.isInteger(minutes) && minutes > 0) out.resetPasswordExpirationMinutes = minutes;
  return out;
}

const KNOWN_PRODUCTS = new Set<string>(Object.values(B2BProducts));
const KNOWN_FLOWS = new Set<string>(Object.values(AuthFlowType));

/** Validates the integrator's config (plain JS callers get no type checking) and applies defaults. */
export function normalizeConfig(config: Partial<LoginConfig> | undefined): NormalizedConfig {
  const raw = Array.isArray(config?.products) ? config.products : [];
  const products = raw.filter((p): p is B2BProduct => KNOWN_PRODUCTS.has(p));
  const providers = (config?.oauthOptions?.providers ?? [])
    .map((p) => (typeof p === 'string' ? p : p?.type))
    .filter((p): p is OAuthProvider => (OAUTH_PROVIDERS as readonly string[]).includes(p as string));
  const flow = config?.authFlowType;
  const minutes = config?.sessionOptions?.sessionDurationMinutes;
  const slug = config?.organizationSlug;
  const direct = config?.directLoginForSingleMembership;
  return {
    products: [...new Set(products)],
    oauthProviders: [...new Set(providers)],
    authFlowType: flow && KNOWN_FLOWS.has(flow) ? flow : AuthFlowType.Organization,
    sessionDurationMinutes:
      typeof minutes === 'number' && Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_SESSION_DURATION_MINUTES,
    organizationSlug: typeof slug === 'string' && slug.trim() !== '' ? slug.trim() : null,
    emailMagicLinksOptions: config?.emailMagicLinksOptions ?? {},
    emailOtpOptions: config?.emailOtpOptions ?? {},
    passwordOptions: passwordOptions(config?.passwordOptions),
    oauthRedirects: {
      loginRedirectURL: str(config?.oauthOptions?.loginRedirectURL),
      signupRedirectURL: str(config?.oauthOptions?.signupRedirectURL),
      discoveryRedirectURL: str(config?.oauthOptions?.discoveryRedirectURL),
    },
    oauthStart: oauthStartOptions(config),
    ssoOptions: {
      loginRedirectURL: str(config?.ssoOptions?.loginRedirectURL),
      signupRedirectURL: str(config?.ssoOptions?.signupRedirectURL),
      providerParams: stringMap(config?.ssoOptions?.providerParams),
    },
    directLoginForSingleMembership: {
      status: direct?.status === true,
      ignoreInvites: direct?.ignoreInvites === true,
      ignoreJitProvisioning: direct?.ignoreJitProvisioning === true,
    },
    directCreateOrganizationForNoMembership: config?.directCreateOrganizationForNoMembership === true,
    disableCreateOrganization: config?.disableCreateOrganization === true,
    unsupportedProducts: products.filter((p) => !IMPLEMENTED_PRODUCTS.has(p)),
    oneTap: oneTapOptions(config, products),
    mfaProductOrder: mfaMethods(config?.mfaProductOrder) ?? [],
    mfaProductInclude: mfaMethods(config?.mfaProductInclude),
  };
}
