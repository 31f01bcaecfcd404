/**
 * Client-side RBAC (api-reference 3.13): answered locally from the bootstrap's `rbac_policy`, the
 * organization's `custom_roles` and the session's `roles`, with the rule of spec section 6: a role
 * grants an action when one of its permissions names the resource and lists the action or `*`.
 * A policy that could not be loaded grants nothing.
 */

export interface RBACPermission {
  resource_id: string;
  actions: string[];
}

export interface RBACRole {
  role_id: string;
  description?: string;
  permissions: RBACPermission[];
}

export interface RBACPolicy {
  roles: RBACRole[];
  resources: { resource_id: string; description?: string; actions: string[] }[];
  scopes?: { scope: string; description?: string; permissions: RBACPermission[] }[];
}

/** `allPermissions()`: resource id → action → whether the session may perform it. */
export type PermissionsMap = Record<string, Record<string, boolean>>;

/** The policy in a bootstrap answer, or null when it is missing or malformed. */
export function parsePolicy(raw: unknown): RBACPolicy | null {
  const p = raw as RBACPolicy | null;
  return p && Array.isArray(p.roles) && Array.isArray(p.resources) ? p : null;
}

/** Whether `held` roles (project roles, then the organization's custom ones) permit the action. */
export function isAuthorized(
  policy: RBACPolicy | null,
  customRoles: RBACRole[] | undefined,
  held: string[],
  resourceId: string,
  action: string,
): boolean {
  if (!policy) return false;
  const roles = [...policy.roles, ...(customRoles ?? [])];
  return held.some((id) =>
    roles.some(
      (r) =>
        r.role_id === id &&
        r.permissions.some((p) => p.resource_id === resourceId && (p.actions.includes(action) || p.actions.includes('*'))),
    ),
  );
}

/** Every action of every resource of the policy, answered for `held`. */
export function allPermissions(policy: RBACPolicy | null, customRoles: RBACRole[] | undefined, held: string[]): PermissionsMap {
  const out: PermissionsMap = Object.create(null);
  for (const res of policy?.resources ?? []) {
    const perms: Record<string, boolean> = (out[res.resource_id] = {});
    for (const a of res.actions) perms[a] = isAuthorized(policy, customRoles, held, res.resource_id, a);
  }
  return out;
}

/**
 * The custom scopes among `scopes` whose permissions `held` lacks: the identity provider's consent
 * screen blocks granting them (spec section 6). Scopes the policy does not define are not custom
 * and are never lacking.
 */
export function scopesLacking(
  policy: RBACPolicy | null,
  customRoles: RBACRole[] | undefined,
  held: string[],
  scopes: string[],
): string[] {
  return scopes.filter((s) => {
    const def = policy?.scopes?.find((d) => d.scope === s);
    return !!def && !def.permissions.every((p) => p.actions.every((a) => isAuthorized(policy, customRoles, held, p.resource_id, a)));
  });
}
