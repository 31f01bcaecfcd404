/** Discovery decisions (spec section 4, "Discovery"; api-reference 3.0). Pure functions. */
import type { BootstrapData } from '../api/bootstrap';
import type { AuthMethodPolicyName, DiscoveredOrganization } from '../api/types';
import type { DirectLoginOptions, NormalizedConfig } from './config';

/** The label of an organization's button in the list; active members get none (an arrow). */
export type MembershipLabel = 'join' | 'acceptInvite' | null;

export function membershipLabel(type: string): MembershipLabel {
  switch (type) {
    case 'invited_member':
      return 'acceptInvite';
    case 'pending_member':
    case 'eligible_to_join_by_email_domain':
    case 'eligible_to_join_by_oauth_tenant':
      return 'join';
    default:
      return null;
  }
}

const INVITE_TYPES = new Set(['invited_member', 'pending_member']);
const JIT_TYPES = new Set(['eligible_to_join_by_email_domain', 'eligible_to_join_by_oauth_tenant']);

/**
 * The organization to log in to directly: exactly one active membership, and no invitation or
 * pending membership (unless ignoreInvites) and no organization joinable by domain or tenant
 * (unless ignoreJitProvisioning) that the person might rather choose.
 */
export function directLoginTarget(
  organizations: DiscoveredOrganization[],
  options: Required<DirectLoginOptions>,
): DiscoveredOrganization | null {
  if (!options.status) return null;
  const active = organizations.filter((o) => o.membership.type === 'active_member');
  if (active.length !== 1) return null;
  if (!options.ignoreInvites && organizations.some((o) => INVITE_TYPES.has(o.membership.type))) return null;
  if (!options.ignoreJitProvisioning && organizations.some((o) => JIT_TYPES.has(o.membership.type))) return null;
  return active[0]!;
}

/** Creating an organization needs the project's permission and no opt-out in the config. */
export function canCreateOrganization(bootstrap: Pick<BootstrapData, 'createOrganizationEnabled'>, config: Pick<NormalizedConfig, 'disableCreateOrganization'>): boolean {
  return bootstrap.createOrganizationEnabled && !config.disableCreateOrganization;
}

/** What selecting a discovered organization does. */
export type Selection =
  | { kind: 'sso'; connectionId: string }
  | { kind: 'restrictedMain'; allowedAuthMethods: AuthMethodPolicyName[] }
  | { kind: 'authPolicyError' }
  | { kind: 'exchange' };

/**
 * Without primary_required the intermediate session is exchanged. With it: straight to SSO when
 * SSO is the only method and the organization has a default connection; otherwise Main restricted
 * to the allowed methods, or the auth-policy error when none is allowed.
 */
export function selectionFor(discovered: DiscoveredOrganization): Selection {
  const required = discovered.primary_required;
  if (!required) return { kind: 'exchange' };
  const allowed = required.allowed_auth_methods ?? [];
  const connection = discovered.organization.sso_default_connection_id;
  if (allowed.length === 1 && allowed[0] === 'sso' && connection) return { kind: 'sso', connectionId: connection };
  if (allowed.length === 0) return { kind: 'authPolicyError' };
  return { kind: 'restrictedMain', allowedAuthMethods: allowed };
}
