/**
 * The discovery flow's effects (spec section 4, "Discovery"): what happens once an email is
 * verified without an organization, and when an organization is chosen or created.
 */
import { APIError } from '../api/errors';
import { discoveryIntermediateSessionExchange, discoveryOrganizationCreate } from '../api/operations';
import type { AuthenticateResponseWithMFA, DiscoveryAuthenticateResponse } from '../api/types';
import { canCreateOrganization, directLoginTarget, selectionFor } from './discovery';
import { EventType } from './events';
import type { FlowCore } from './flowCore';
import type { Redirects } from './redirects';
import { ErrorType } from './state/types';

/** What the sign-in flows need of discovery; the controller loads the part behind it. */
export type DiscoveryEntry = Pick<DiscoveryFlow, 'authenticated'>;

const CLAIMED_DOMAIN = 'action_not_allowed_email_domain_is_claimed';

export class DiscoveryFlow {
  constructor(
    private readonly core: FlowCore,
    private readonly redirects: Redirects,
  ) {}

  /**
   * After a discovery authenticate: the intermediate session is kept (cookie), the list is shown,
   * and the configured shortcuts run (direct creation, direct login).
   */
  async authenticated(resp: DiscoveryAuthenticateResponse, event: EventType): Promise<void> {
    const { backend, store, getConfig, emit } = this.core.deps;
    backend.session.applyDiscoveryResponse(resp);
    const organizations = Array.isArray(resp.discovered_organizations) ? resp.discovered_organizations : [];
    store.dispatch({ type: 'discoveryAuthenticated', email: resp.email_address, organizations });
    emit.event(event, resp);
    const config = getConfig();
    if (organizations.length === 0) {
      if (config.directCreateOrganizationForNoMembership && canCreateOrganization(await backend.bootstrap(), config)) {
        await this.createOrganization();
      }
      return;
    }
    const target = directLoginTarget(organizations, config.directLoginForSingleMembership);
    if (target) await this.selectOrganization(target.organization.organization_id);
  }

  /** Spec section 4, "Selecting an organization". */
  async selectOrganization(organizationId: string): Promise<void> {
    const { store, getConfig, backend } = this.core.deps;
    const discovered = store
      .getState()
      .formState.discoveryState.discoveredOrganizations.find((d) => d.organization.organization_id === organizationId);
    if (!discovered) return;
    const selection = selectionFor(discovered);
    switch (selection.kind) {
      case 'sso': {
        const result = await this.redirects.startSso(selection.connectionId);
        if (!result.ok) this.core.fail(null, ErrorType.Default, true);
        return;
      }
      case 'restrictedMain':
      case 'authPolicyError':
        store.dispatch({ type: 'discoveryPrimaryRequired', discovered });
        if (selection.kind === 'authPolicyError') {
          this.core.fail(null, ErrorType.CannotJoinOrgDueToAuthPolicy, true);
        }
        return;
      case 'exchange':
        await this.finish(EventType.B2BDiscoveryIntermediateSessionExchange, () =>
          discoveryIntermediateSessionExchange(backend.http, {
            organization_id: organizationId,
            session_duration_minutes: getConfig().sessionDurationMinutes,
            intermediate_session_token: this.core.intermediateSessionToken(),
          }),
        );
        return;
      default: {
        const never: never = selection;
        throw new Error(`unknown selection ${JSON.stringify(never)}`);
      }
    }
  }

  /** Creates an organization for the verified email; the server names it and makes the creator an admin. */
  async createOrganization(): Promise<void> {
    const { backend, getConfig } = this.core.deps;
    await this.finish(EventType.B2BDiscoveryOrganizationsCreate, () =>
      discoveryOrganizationCreate(backend.http, {
        session_duration_minutes: getConfig().sessionDurationMinutes,
        intermediate_session_token: this.core.intermediateSessionToken(),
      }),
    );
  }

  /** Runs a create or exchange call behind the "Logging in..." view and completes the login. */
  private async finish(event: EventType, call: () => Promise<AuthenticateResponseWithMFA>): Promise<void> {
    const { backend, store, emit } = this.core.deps;
    store.dispatch({ type: 'discoveryPending', active: true });
    let resp: AuthenticateResponseWithMFA;
    try {
      resp = await call();
    } catch (err) {
      // A domain claimed by another organization has its own screen; both allow going back.
      const claimed = err instanceof APIError && err.error_type === CLAIMED_DOMAIN;
      this.core.fail(err, claimed ? ErrorType.OrganizationDiscoveryClaimedDomain : ErrorType.Default, true);
      return;
    }
    backend.session.applyAuthResponse(resp);
    emit.event(event, resp);
    this.core.completePrimary(resp);
  }
}
