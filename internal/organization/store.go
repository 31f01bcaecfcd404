package organization

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Store reads and writes organizations and members.
type Store struct {
	db         *store.DB
	clock      clock.Clock
	decorators []memberDecorator    // see AddMemberDecorator
	rbac       RBAC                 // see UseRBAC
	implicit   []ImplicitRoleSource // see UseRBAC
	cached     CachedOrgs           // see UseCache
	holders    []AddressHolder      // see AddAddressHolder
	unproven   []UnprovenAccess     // see AddUnprovenAccess
	enders     []MemberAccessEnder  // see AddMemberAccessEnder
	deletion   []DeletionHook       // see AddDeletionHook
	removal    []RemovalHook        // see AddRemovalHook
	guards     []PurgeGuard         // see AddPurgeGuard
	audit      audit.InTx           // see UseAudit; nil records nothing
	// memberDeletion are told of member deletions (AddMemberDeletionHook).
	memberDeletion []MemberDeletionHook
	// connSessions ends sessions by SSO connection (UseConnectionSessions).
	connSessions ConnectionSessions
	// ssoConns answers whether a connection is the organization's
	// (UseSSOConnections).
	ssoConns SSOConnections
	// tenantMembers answers whether an organization has a member in an
	// OAuth tenant (UseOAuthTenantMembers).
	tenantMembers OAuthTenantMembers
	// memberTables are the tables the member loaders read, each once, in
	// the order registered; loaders counts the loaders that declared one
	// (see probe).
	memberTables []string
	loaders      int
}

// CachedOrgs answers organization reads from memory. The session service
// is one: its cache sees this process's writes on the next read and other
// processes' within a second (the change feed), the rule every cached
// answer of a session check follows.
type CachedOrgs interface {
	Organization(ctx context.Context, projectID, orgID string) (*Organization, error)
}

// UseCache has the login sends read their organization through c instead
// of the database: a send is the hottest write path, and the organization
// read was a tenth of its time. The composition root calls it once, before
// serving.
func (s *Store) UseCache(c CachedOrgs) { s.cached = c }

// NewStore returns an organization store.
func NewStore(db *store.DB, c clock.Clock) *Store {
	s := &Store{db: db, clock: c}
	s.addMemberTable(retiredTable) // withRetired
	return s
}

// DB exposes the database so flows can run their own transactions that
// include member writes.
func (s *Store) DB() *store.DB { return s.db }

// orgFields are the writable columns, in the order orgValues returns them.
// Create and Update are both generated from this one list, so adding a
// column cannot leave one of them behind.
var orgFields = []string{"organization_name", "organization_slug", "organization_external_id", "organization_logo_url",
	"trusted_metadata", "custom_roles", "sso_default_connection_id", "sso_jit_provisioning",
	"sso_jit_provisioning_allowed_connections", "email_jit_provisioning", "email_allowed_domains", "email_invites",
	"oauth_tenant_jit_provisioning", "allowed_oauth_tenants", "auth_methods", "allowed_auth_methods", "mfa_policy",
	"mfa_methods", "allowed_mfa_methods", "rbac_email_implicit_role_assignments",
	"first_party_connected_apps_allowed_type", "allowed_first_party_connected_apps",
	"third_party_connected_apps_allowed_type", "allowed_third_party_connected_apps", "claimed_email_domains",
	"organization_name_folded"}

func orgValues(o *Organization) []any {
	var external, defaultConn any // NULL when unset; unset external ids never collide in the unique index
	if o.OrganizationExternalID != "" {
		external = o.OrganizationExternalID
	}
	if o.SSODefaultConnectionID != nil {
		defaultConn = *o.SSODefaultConnectionID
	}
	return []any{o.OrganizationName, o.OrganizationSlug, external, o.OrganizationLogoURL,
		mustJSON(o.TrustedMetadata), mustJSON(o.CustomRoles), defaultConn, o.SSOJITProvisioning,
		mustJSON(o.SSOJITProvisioningAllowedConnections), o.EmailJITProvisioning, mustJSON(o.EmailAllowedDomains), o.EmailInvites,
		o.OAuthTenantJITProvisioning, mustJSON(o.AllowedOAuthTenants), o.AuthMethods, mustJSON(o.AllowedAuthMethods), o.MFAPolicy,
		o.MFAMethods, mustJSON(o.AllowedMFAMethods), mustJSON(o.RBACEmailImplicitRoleAssignments),
		o.FirstPartyConnectedAppsAllowedType, mustJSON(o.AllowedFirstPartyConnectedApps),
		o.ThirdPartyConnectedAppsAllowedType, mustJSON(o.AllowedThirdPartyConnectedApps), mustJSON(o.ClaimedEmailDomains),
		foldName(o.OrganizationName)}
}

var orgColumns = "organization_id, project_id, " + strings.Join(orgFields, ", ") + ", created_at, updated_at"

// orgSelect is what organization reads select: the writable columns plus
// sso_active_connections and scim_active_connection, which only the SSO
// and SCIM modules write (each keeps the summary of the organization's
// active connections there).
var orgSelect = orgColumns + ", sso_active_connections, scim_active_connection"

func scanOrg(row interface{ Scan(...any) error }) (*Organization, error) {
	var o Organization
	var external, defaultConn sql.NullString
	var trusted, roles, ssoConns, domains, tenants, allowedAuth, allowedMFA, implicit, firstApps, thirdApps, claimed, active, scim string
	var folded sql.NullString // for searches only (foldName)
	var created, updated int64
	if err := row.Scan(&o.OrganizationID, &o.projectID, &o.OrganizationName, &o.OrganizationSlug, &external,
		&o.OrganizationLogoURL, &trusted, &roles, &defaultConn, &o.SSOJITProvisioning, &ssoConns,
		&o.EmailJITProvisioning, &domains, &o.EmailInvites, &o.OAuthTenantJITProvisioning, &tenants, &o.AuthMethods,
		&allowedAuth, &o.MFAPolicy, &o.MFAMethods, &allowedMFA, &implicit, &o.FirstPartyConnectedAppsAllowedType,
		&firstApps, &o.ThirdPartyConnectedAppsAllowedType, &thirdApps, &claimed, &folded, &created, &updated, &active, &scim); err != nil {
		return nil, store.MapError(err)
	}
	// A list of pairs, not a map keyed by column value: equal values (several
	// "[]" columns) would collapse into one key and leave fields nil.
	for _, c := range []struct {
		text string
		dst  any
	}{{trusted, &o.TrustedMetadata}, {roles, &o.CustomRoles}, {ssoConns, &o.SSOJITProvisioningAllowedConnections},
		{domains, &o.EmailAllowedDomains}, {tenants, &o.AllowedOAuthTenants}, {allowedAuth, &o.AllowedAuthMethods},
		{allowedMFA, &o.AllowedMFAMethods}, {implicit, &o.RBACEmailImplicitRoleAssignments},
		{firstApps, &o.AllowedFirstPartyConnectedApps}, {thirdApps, &o.AllowedThirdPartyConnectedApps},
		{claimed, &o.ClaimedEmailDomains}, {active, &o.SSOActiveConnections}} {
		if err := json.Unmarshal([]byte(c.text), c.dst); err != nil {
			return nil, fmt.Errorf("decode column: %w", err)
		}
	}
	o.OrganizationExternalID = external.String
	if defaultConn.Valid {
		o.SSODefaultConnectionID = &defaultConn.String
	}
	o.CreatedAt, o.UpdatedAt = store.Time(created), store.Time(updated)
	if o.SSOActiveConnections == nil {
		o.SSOActiveConnections = []SSOActiveConnection{}
	}
	if scim != "" {
		if err := json.Unmarshal([]byte(scim), &o.SCIMActiveConnection); err != nil {
			return nil, fmt.Errorf("decode scim_active_connection: %w", err)
		}
	}
	return &o, nil
}

// Get loads an organization of the project. Other projects' organizations
// are indistinguishable from missing ones.
func (s *Store) Get(ctx context.Context, projectID, orgID string) (*Organization, error) {
	return s.GetIn(ctx, s.db.Read(), projectID, orgID)
}

// GetIn is Get inside the caller's transaction (or on any querier).
func (s *Store) GetIn(ctx context.Context, q store.Querier, projectID, orgID string) (*Organization, error) {
	o, err := scanOrg(q.QueryRowContext(ctx, `SELECT `+orgSelect+` FROM organizations
		WHERE organization_id = $1 AND project_id = $2`, orgID, projectID))
	if err != nil {
		return nil, fmt.Errorf("organization: get %s: %w", orgID, err)
	}
	return o, nil
}

// BySlug loads an organization of the project by slug.
func (s *Store) BySlug(ctx context.Context, projectID, slug string) (*Organization, error) {
	o, err := scanOrg(s.db.Read().QueryRowContext(ctx, `SELECT `+orgSelect+` FROM organizations
		WHERE project_id = $1 AND organization_slug = $2`, projectID, slug))
	if err != nil {
		return nil, fmt.Errorf("organization: by slug: %w", err)
	}
	return o, nil
}

// newOrganization is an organization with the defaults of a create request
// that sets nothing else.
func newOrganization(projectID string, env ids.Env) *Organization {
	return &Organization{OrganizationID: ids.New("organization", env), projectID: projectID,
		TrustedMetadata: map[string]any{}, CustomRoles: []CustomRole{},
		SSOJITProvisioning: AllAllowed, SSOJITProvisioningAllowedConnections: []string{},
		EmailJITProvisioning: NotAllowed, EmailAllowedDomains: []string{}, EmailInvites: AllAllowed,
		OAuthTenantJITProvisioning: NotAllowed, AllowedOAuthTenants: map[string][]string{},
		AuthMethods: AllAllowed, AllowedAuthMethods: []string{}, MFAPolicy: MFAOptional, MFAMethods: AllAllowed,
		AllowedMFAMethods: []string{}, RBACEmailImplicitRoleAssignments: []RoleAssignment{},
		FirstPartyConnectedAppsAllowedType: AllAllowed, AllowedFirstPartyConnectedApps: []string{},
		ThirdPartyConnectedAppsAllowedType: AllAllowed, AllowedThirdPartyConnectedApps: []string{}, ClaimedEmailDomains: []string{}}
}

// Create inserts a new organization of the project from set.
func (s *Store) Create(ctx context.Context, projectID string, env ids.Env, set Settings) (*Organization, error) {
	if err := set.checkSizes(); err != nil {
		return nil, err
	}
	var o *Organization
	err := s.db.Tx(ctx, func(q store.Querier) error {
		var err error
		o, err = s.CreateIn(ctx, q, projectID, env, set)
		return err
	})
	return o, err
}

// CreateIn is Create inside the caller's transaction, so a flow can create
// an organization and its first (admin) member atomically.
func (s *Store) CreateIn(ctx context.Context, q store.Querier, projectID string, env ids.Env, set Settings) (*Organization, error) {
	o := newOrganization(projectID, env)
	if set.Slug == nil && set.Name != nil {
		derived := SlugFromName(*set.Name)
		set.Slug = &derived
	}
	if err := set.apply(o, true); err != nil {
		return nil, err
	}
	if err := s.checkDefaultConnection(ctx, q, o, set, true); err != nil {
		return nil, err
	}
	if err := s.checkAssignedRoles(ctx, q, o, set); err != nil {
		return nil, err
	}
	now := store.Millis(s.clock.Now())
	args := append([]any{o.OrganizationID, projectID}, orgValues(o)...)
	args = append(args, now, now)
	_, err := q.ExecContext(ctx, `INSERT INTO organizations (`+orgColumns+`) VALUES (`+store.Placeholders(1, len(args))+`)`, args...)
	if err != nil {
		return nil, conflictError(fmt.Errorf("organization: create: %w", store.MapError(err)))
	}
	if err := s.writeAliases(ctx, q, o, nil); err != nil {
		return nil, err
	}
	if len(o.ClaimedEmailDomains) > 0 {
		if err := s.writeClaims(ctx, q, o); err != nil {
			return nil, err
		}
	}
	return s.GetIn(ctx, q, projectID, o.OrganizationID)
}

// Update applies set to the organization in a transaction of its own
// (UpdateIn).
func (s *Store) Update(ctx context.Context, projectID, orgID string, set Settings) (*Organization, error) {
	if err := set.checkSizes(); err != nil {
		return nil, err
	}
	var o *Organization
	err := s.db.Tx(ctx, func(q store.Querier) error {
		var err error
		o, err = s.UpdateIn(ctx, q, projectID, orgID, set)
		return err
	})
	if err != nil {
		return nil, err
	}
	return o, nil
}

// UpdateIn applies set to the organization inside q, for a caller that
// checked set in the same transaction (the rbac module's custom roles,
// against a policy it locked). Every setting is written back from the
// organization as read, so the read locks the row (store.DB.LockRow): a
// concurrent update's settings are not undone.
func (s *Store) UpdateIn(ctx context.Context, q store.Querier, projectID, orgID string, set Settings) (*Organization, error) {
	// The policy lock before the organization's row when the update
	// assigns roles: the order a policy change takes (LockRoles).
	if err := s.LockRoles(ctx, q, projectID, set.assignedRoleIDs()); err != nil {
		return nil, err
	}
	// An organization that is not there is GetIn's to answer
	// (organization_not_found).
	if err := s.db.LockRow(ctx, q, "organizations", "organization_id", orgID); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	o, err := s.GetIn(ctx, q, projectID, orgID)
	if err != nil {
		return nil, err
	}
	names, oldName := aliasesOf(o), o.OrganizationName
	if err := set.apply(o, false); err != nil {
		return nil, err
	}
	if err := s.checkDefaultConnection(ctx, q, o, set, false); err != nil {
		return nil, err
	}
	if err := s.checkAssignedRoles(ctx, q, o, set); err != nil {
		return nil, err
	}
	assign := make([]string, len(orgFields))
	for i, f := range orgFields {
		assign[i] = fmt.Sprintf("%s = $%d", f, i+1)
	}
	n := len(orgFields)
	args := append(orgValues(o), store.Millis(s.clock.Now()), orgID, projectID)
	_, err = q.ExecContext(ctx, `UPDATE organizations SET `+strings.Join(assign, ", ")+
		fmt.Sprintf(`, updated_at = $%d WHERE organization_id = $%d AND project_id = $%d`, n+1, n+2, n+3), args...)
	if err != nil {
		return nil, conflictError(fmt.Errorf("organization: update: %w", store.MapError(err)))
	}
	// A rename that keeps the folded key ("Acme" to "ACME") looks to store
	// migration 0112's trigger like an older release's rename, which
	// writes the name alone, and the trigger cleared the key: set it again
	// (the statement names only the key, so the trigger does not fire).
	if o.OrganizationName != oldName && foldName(o.OrganizationName) == foldName(oldName) {
		if _, err := q.ExecContext(ctx, `UPDATE organizations SET organization_name_folded = $1 WHERE organization_id = $2`,
			foldName(o.OrganizationName), orgID); err != nil {
			return nil, fmt.Errorf("organization: update: fold name: %w", err)
		}
	}
	if !slices.Equal(names, aliasesOf(o)) {
		if err := s.writeAliases(ctx, q, o, names); err != nil {
			return nil, err
		}
	}
	if set.ClaimedEmailDomains != nil {
		if err := s.writeClaims(ctx, q, o); err != nil {
			return nil, err
		}
	}
	return s.GetIn(ctx, q, projectID, orgID)
}

// checkAssignedRoles refuses email role assignments naming roles the
// project policy and the organization's custom roles do not define. It
// reads the policy inside q, under the policy lock (UpdateIn took it
// before the organization's row), so a policy change cannot remove an
// assigned role between the check and the write. o was read under its
// row's lock, so its custom roles are current.
func (s *Store) checkAssignedRoles(ctx context.Context, q store.Querier, o *Organization, set Settings) error {
	if set.RBACEmailImplicitRoleAssignments == nil {
		return nil
	}
	ids := make([]string, 0, len(o.RBACEmailImplicitRoleAssignments))
	for _, a := range o.RBACEmailImplicitRoleAssignments {
		ids = append(ids, a.RoleID)
	}
	return s.checkRolesIn(ctx, q, o.projectID, o.CustomRoles, "rbac_email_implicit_role_assignments", ids)
}

// assignedRoleIDs are the role ids set assigns (its email assignments).
func (set Settings) assignedRoleIDs() []string {
	if set.RBACEmailImplicitRoleAssignments == nil {
		return nil
	}
	var ids []string
	for _, a := range *set.RBACEmailImplicitRoleAssignments {
		ids = append(ids, strings.TrimSpace(a.RoleID))
	}
	return ids
}

// conflictError names which unique rule a write broke: the external id's
// index or else the slug's (the only two unique keys of organizations; a
// slug or external id another organization has in the other column is
// refused by writeAliases).
func conflictError(err error) error {
	if !errors.Is(err, store.ErrConflict) {
		return err
	}
	if strings.Contains(err.Error(), "external_id") {
		return apierr.Wrap(apierr.OrganizationExternalIDUsed, err)
	}
	return apierr.Wrap(apierr.OrganizationSlugUsed, err)
}

// Delete removes the organization with its members and sessions; by is
// who deletes it. The organization's row is locked first, then the
// deletion hooks run (they lock other organizations' rows after it, in the
// order every SSO change takes, and record what the deletion ends), then
// the row goes with everything that cascades from it, and last the removal
// hooks learn which addresses its members held (orgAddresses).
func (s *Store) Delete(ctx context.Context, projectID, orgID string, by Actor) error {
	return s.db.Tx(ctx, func(q store.Querier) error {
		if err := s.db.LockRow(ctx, q, "organizations", "organization_id", orgID); err != nil {
			return err
		}
		for _, h := range s.deletion {
			if err := h.BeforeOrganizationDelete(ctx, q, projectID, orgID, by); err != nil {
				return fmt.Errorf("organization: delete %s: %w", orgID, err)
			}
		}
		emails, err := s.orgAddresses(ctx, q, orgID)
		if err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, `DELETE FROM organizations WHERE organization_id = $1 AND project_id = $2`, orgID, projectID)
		if err != nil {
			return fmt.Errorf("organization: delete: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("organization: delete %s: %w", orgID, store.ErrNotFound)
		}
		if err := s.membersRemoved(ctx, q, projectID, emails); err != nil {
			return fmt.Errorf("organization: delete %s: %w", orgID, err)
		}
		return nil
	})
}
