/** Project bootstrap data (api-reference section 2): mapping, defaults and caching. */

export interface BootstrapData {
  displayWatermark: boolean;
  projectName: string | null;
  cnameDomain: string | null;
  emailDomains: string[];
  captchaSettings: { enabled: false } | { enabled: true; siteKey: string };
  pkceRequiredForEmailMagicLinks: boolean;
  pkceRequiredForPasswordResets: boolean;
  pkceRequiredForOAuth: boolean;
  pkceRequiredForSso: boolean;
  slugPattern: string | null;
  createOrganizationEnabled: boolean;
  passwordConfig: { luds_complexity: number; luds_minimum_count: number } | null;
  dfpProtectedAuthEnabled: boolean;
  dfpProtectedAuthMode: 'OBSERVATION' | 'DECISIONING';
  rbacPolicy: unknown;
  vertical: 'B2B' | 'CONSUMER' | null;
}

/**
 * Used when the bootstrap call fails. The watermark stays hidden and every PKCE flag is off, as in
 * the reference; `emailDomains` is empty rather than naming a vendor's domain.
 */
export const DEFAULT_BOOTSTRAP: BootstrapData = Object.freeze({
  displayWatermark: false,
  projectName: null,
  cnameDomain: null,
  emailDomains: [],
  captchaSettings: { enabled: false },
  pkceRequiredForEmailMagicLinks: false,
  pkceRequiredForPasswordResets: false,
  pkceRequiredForOAuth: false,
  pkceRequiredForSso: false,
  slugPattern: null,
  createOrganizationEnabled: false,
  passwordConfig: null,
  dfpProtectedAuthEnabled: false,
  dfpProtectedAuthMode: 'OBSERVATION',
  rbacPolicy: null,
  vertical: null,
}) as BootstrapData;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** Maps the raw payload; throws on a shape the reference declares invalid so defaults apply. */
export function mapBootstrap(raw: Record<string, unknown>): BootstrapData {
  if (!('password_config' in raw)) throw new Error('bootstrap: password_config missing');
  if (!Array.isArray(raw.email_domains)) throw new Error('bootstrap: email_domains is not an array');
  const captcha = raw.captcha_settings as { enabled?: unknown; siteKey?: unknown } | undefined;
  if (!captcha || typeof captcha !== 'object') throw new Error('bootstrap: captcha_settings missing');
  const pc = raw.password_config as BootstrapData['passwordConfig'];
  return {
    displayWatermark: raw.disable_sdk_watermark === false,
    projectName: str(raw.project_name),
    cnameDomain: str(raw.cname_domain),
    emailDomains: (raw.email_domains as unknown[]).filter((d): d is string => typeof d === 'string'),
    captchaSettings:
      captcha.enabled === true && typeof captcha.siteKey === 'string'
        ? { enabled: true, siteKey: captcha.siteKey }
        : { enabled: false },
    pkceRequiredForEmailMagicLinks: raw.pkce_required_for_email_magic_links === true,
    pkceRequiredForPasswordResets: raw.pkce_required_for_password_resets === true,
    pkceRequiredForOAuth: raw.pkce_required_for_oauth === true,
    pkceRequiredForSso: raw.pkce_required_for_sso === true,
    slugPattern: str(raw.slug_pattern),
    createOrganizationEnabled: raw.create_organization_enabled === true,
    passwordConfig: pc && typeof pc === 'object' ? pc : null,
    dfpProtectedAuthEnabled: raw.dfp_protected_auth_enabled === true,
    dfpProtectedAuthMode: raw.dfp_protected_auth_mode === 'DECISIONING' ? 'DECISIONING' : 'OBSERVATION',
    rbacPolicy: raw.rbac_policy ?? null,
    vertical: raw.vertical === 'B2B' || raw.vertical === 'CONSUMER' ? raw.vertical : null,
  };
}
