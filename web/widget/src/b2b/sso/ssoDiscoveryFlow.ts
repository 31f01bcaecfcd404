/**
 * SSO discovery's effects (spec section 4, api-reference 3.6): the connections found for an email
 * (none leads to the slug fallback, one starts SSO, several to the menu), and the organization a
 * slug names. Loaded with the SSO discovery screens.
 */
import { APIError } from '../../api/errors';
import { searchOrganization } from '../../api/operations';
import { ssoDiscoverConnections } from '../../api/sso';
import type { SSOActiveConnection } from '../../api/types';
import { en } from '../../strings/en';
import type { ActionResult, FlowCore } from '../flowCore';
import { isValidEmail } from '../email';
import { errorMessage, errorPayload } from '../errorMessages';
import { EventType } from '../events';
import type { Redirects } from '../redirects';
import type { SsoDiscoveryTranslate } from './strings';

/**
 * The screens pass their translator (`st`, the SSO discovery strings with the integrator's
 * overrides) for the messages a failure shows.
 */
export class SsoDiscoveryFlow {
  constructor(
    private readonly core: FlowCore,
    private readonly redirects: Redirects,
  ) {}

  /** SSO Discovery Email: finds the email's connections and moves on by their number. */
  async discover(rawEmail: string): Promise<ActionResult> {
    const { backend, store, emit, getTranslate } = this.core.deps;
    const t = getTranslate();
    const email = rawEmail.trim();
    if (!isValidEmail(email)) return { ok: false, message: t('email.invalid') };
    let connections: SSOActiveConnection[];
    try {
      const resp = await ssoDiscoverConnections(backend.http, email);
      connections = Array.isArray(resp.connections) ? resp.connections : [];
      emit.event(EventType.B2BSSODiscoverConnections, resp);
    } catch (err) {
      // Spec section 8: an error the catalogue does not name shows the default text.
      const known = err instanceof APIError && `error.api.${err.error_type}` in en;
      return this.fail(err, known ? errorMessage(err, t, { email }) : t('error.screen.Default'));
    }
    store.dispatch({ type: 'ssoDiscoveryConnectionsFound', email, connections });
    const only = connections.length === 1 ? connections[0] : undefined;
    return only ? this.redirects.startSso(only.connection_id) : { ok: true };
  }

  /**
   * SSO Discovery Fallback: the organization a slug names. With exactly one active connection SSO
   * starts; otherwise that organization's Main offers its methods (api-reference 3.6).
   */
  async submitSlug(rawSlug: string, st: SsoDiscoveryTranslate): Promise<ActionResult> {
    const { backend, store, emit } = this.core.deps;
    const slug = rawSlug.trim();
    if (!slug) return { ok: false, message: st('ssoDiscovery.fallback.slugRequired') };
    let organization;
    try {
      ({ organization } = await searchOrganization(backend.http, { organization_slug: slug }));
    } catch (err) {
      return this.fail(err, st('ssoDiscovery.fallback.error'));
    }
    if (!organization) return this.fail(null, st('ssoDiscovery.fallback.notFound'));
    emit.event(EventType.B2BOrganizationsGetBySlug, { organization });
    const connections = organization.sso_active_connections ?? [];
    const only = connections.length === 1 ? connections[0] : undefined;
    if (only) return this.redirects.startSso(only.connection_id);
    store.dispatch({ type: 'ssoDiscoveryOrganizationFound', organization });
    return { ok: true };
  }

  private fail(err: unknown, message: string): ActionResult {
    this.core.deps.emit.error(errorPayload(err, message));
    return { ok: false, message };
  }
}
