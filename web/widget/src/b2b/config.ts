/** The `config` mount option: products, flow type and per-method options (spec section 3). */

export const B2BProducts = {
  emailMagicLinks: 'emailMagicLinks',
  emailOtp: 'emailOtp',
  passwords: 'passwords',
  oauth: 'oauth',
  sso: 'sso',
} as const;
export type B2BProduct = (typeof B2BProducts)[keyof typeof B2BProducts];

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
  oauthOptions?: { providers: (OAuthProvider | OAuthProviderOption)[] };
}

/** Products this build can render; the others are announced once in the console and skipped. */
export const IMPLEMENTED_PRODUCTS: ReadonlySet<B2BProduct> = new Set([B2BProducts.emailMagicLinks, B2BProducts.emailOtp]);

export const DEFAULT_SESSION_DURATION_MINUTES = 60;

export interface NormalizedConfig {
  products: B2BProduct[];
  oauthProviders: OAuthProvider[];
  authFlowType: AuthFlowType;
  sessionDurationMinutes: number;
  organizationSlug: string | null;
  emailMagicLinksOptions: NonNullable<LoginConfig['emailMagicLinksOptions']>;
  emailOtpOptions: NonNullable<LoginConfig['emailOtpOptions']>;
  /** Configured products this build cannot render yet. */
  unsupportedProducts: B2BProduct[];
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
  return {
    products: [...new Set(products)],
    oauthProviders: [...new Set(providers)],
    authFlowType: flow && KNOWN_FLOWS.has(flow) ? flow : AuthFlowType.Organization,
    sessionDurationMinutes:
      typeof minutes === 'number' && Number.isFinite(minutes) && minutes > 0 ? minutes : DEFAULT_SESSION_DURATION_MINUTES,
    organizationSlug: typeof slug === 'string' && slug.trim() !== '' ? slug.trim() : null,
    emailMagicLinksOptions: config?.emailMagicLinksOptions ?? {},
    emailOtpOptions: config?.emailOtpOptions ?? {},
    unsupportedProducts: products.filter((p) => !IMPLEMENTED_PRODUCTS.has(p)),
  };
}
