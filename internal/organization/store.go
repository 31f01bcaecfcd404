package organization

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// Store reads and writes organizations and members.
type Store struct {
	db    *store.DB
	clock clock.Clock
}

// NewStore returns an organization store.
func NewStore(db *store.DB, c clock.Clock) *Store { return &Store{db: db, clock: c} }

// DB exposes the database so flows can run their own transactions that
// include member writes.
func (s *Store) DB() *store.DB { return s.db }

const orgColumns = `organization_id, project_id, organization_name, organization_slug, organization_logo_url,
	trusted_metadata, email_jit_provisioning, email_allowed_domains, email_invites, auth_methods,
	allowed_auth_methods, mfa_policy, mfa_methods, allowed_mfa_methods, created_at, updated_at`

func scanOrg(row interface{ Scan(...any) error }) (*Organization, error) {
	var o Organization
	var trusted, domains, allowedAuth, allowedMFA string
	var created, updated int64
	if err := row.Scan(&o.OrganizationID, &o.projectID, &o.OrganizationName, &o.OrganizationSlug, &o.OrganizationLogoURL,
		&trusted, &o.EmailJITProvisioning, &domains, &o.EmailInvites, &o.AuthMethods,
		&allowedAuth, &o.MFAPolicy, &o.MFAMethods, &allowedMFA, &created, &updated); err != nil {
		return nil, store.MapError(err)
	}
	// A list of pairs, not a map keyed by column value: equal values (three
	// "[]" columns) would collapse into one key and leave the other fields
	// nil, which the wire shows as null instead of [].
	for _, c := range []struct {
		col string
		dst any
	}{{trusted, &o.TrustedMetadata}, {domains, &o.EmailAllowedDomains},
		{allowedAuth, &o.AllowedAuthMethods}, {allowedMFA, &o.AllowedMFAMethods}} {
		if err := json.Unmarshal([]byte(c.col), c.dst); err != nil {
			return nil, fmt.Errorf("decode column: %w", err)
		}
	}
	o.CreatedAt, o.UpdatedAt = store.Time(created), store.Time(updated)
	o.SSOJITProvisioning = AllAllowed
	o.SSOJITProvisioningAllowedConnections = []string{}
	o.SSOActiveConnections = []SSOActiveConnection{}
	o.OAuthTenantJITProvisioning = NotAllowed
	o.AllowedOAuthTenants = map[string][]string{}
	o.RBACEmailImplicitRoleAssignments = []any{}
	o.ClaimedEmailDomains = []string{}
	if o.EmailJITProvisioning == Restricted {
		// Latchkey's claim rule (ClaimingDomain): a RESTRICTED organization
		// claims its allowed domains, so the wire reports exactly those.
		o.ClaimedEmailDomains = o.EmailAllowedDomains
	}
	o.FirstPartyConnectedAppsAllowedType = AllAllowed
	o.AllowedFirstPartyConnectedApps = []string{}
	o.ThirdPartyConnectedAppsAllowedType = AllAllowed
	o.AllowedThirdPartyConnectedApps = []string{}
	o.CustomRoles = []any{}
	return &o, nil
}

// Get loads an organization of the project. Other projects' organizations
// are indistinguishable from missing ones.
func (s *Store) Get(ctx context.Context, projectID, orgID string) (*Organization, error) {
	o, err := scanOrg(s.db.Read().QueryRowContext(ctx, `SELECT `+orgColumns+` FROM organizations
		WHERE organization_id = $1 AND project_id = $2`, orgID, projectID))
	if err != nil {
		return nil, fmt.Errorf("organization: get %s: %w", orgID, err)
	}
	return o, nil
}

// BySlug loads an organization of the project by slug.
func (s *Store) BySlug(ctx context.Context, projectID, slug string) (*Organization, error) {
	o, err := scanOrg(s.db.Read().QueryRowContext(ctx, `SELECT `+orgColumns+` FROM organizations
		WHERE project_id = $1 AND organization_slug = $2`, projectID, slug))
	if err != nil {
		return nil, fmt.Errorf("organization: by slug: %w", err)
	}
	return o, nil
}

// Create inserts o (validated by the caller through Settings.apply).
func (s *Store) Create(ctx context.Context, projectID string, env ids.Env, set Settings) (*Organization, error) {
	o := &Organization{OrganizationID: ids.New("organization", env), projectID: projectID,
		EmailJITProvisioning: NotAllowed, EmailInvites: AllAllowed, AuthMethods: AllAllowed,
		MFAPolicy: "OPTIONAL", MFAMethods: AllAllowed, TrustedMetadata: map[string]any{},
		EmailAllowedDomains: []string{}, AllowedAuthMethods: []string{}, AllowedMFAMethods: []string{}}
	if set.Slug == nil && set.Name != nil {
		derived := SlugFromName(*set.Name)
		set.Slug = &derived
	}
	if err := set.apply(o, true); err != nil {
		return nil, err
	}
	now := s.clock.Now()
	_, err := s.db.ExecContext(ctx, `INSERT INTO organizations (`+orgColumns+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)`,
		o.OrganizationID, projectID, o.OrganizationName, o.OrganizationSlug, o.OrganizationLogoURL,
		mustJSON(o.TrustedMetadata), o.EmailJITProvisioning, mustJSON(o.EmailAllowedDomains), o.EmailInvites, o.AuthMethods,
		mustJSON(o.AllowedAuthMethods), o.MFAPolicy, o.MFAMethods, mustJSON(o.AllowedMFAMethods), store.Millis(now), store.Millis(now))
	if errors.Is(err, store.ErrConflict) {
		return nil, apierr.Wrap(apierr.OrganizationSlugUsed, err)
	}
	if err != nil {
		return nil, fmt.Errorf("organization: create: %w", err)
	}
	return s.Get(ctx, projectID, o.OrganizationID)
}

// Update applies set to the organization.
func (s *Store) Update(ctx context.Context, projectID, orgID string, set Settings) (*Organization, error) {
	o, err := s.Get(ctx, projectID, orgID)
	if err != nil {
		return nil, err
	}
	if err := set.apply(o, false); err != nil {
		return nil, err
	}
	_, err = s.db.ExecContext(ctx, `UPDATE organizations SET organization_name = $1, organization_slug = $2,
		organization_logo_url = $3, trusted_metadata = $4, email_jit_provisioning = $5, email_allowed_domains = $6,
		email_invites = $7, auth_methods = $8, allowed_auth_methods = $9, mfa_policy = $10, mfa_methods = $11,
		allowed_mfa_methods = $12, updated_at = $13 WHERE organization_id = $14 AND project_id = $15`,
		o.OrganizationName, o.OrganizationSlug, o.OrganizationLogoURL, mustJSON(o.TrustedMetadata), o.EmailJITProvisioning,
		mustJSON(o.EmailAllowedDomains), o.EmailInvites, o.AuthMethods, mustJSON(o.AllowedAuthMethods), o.MFAPolicy,
		o.MFAMethods, mustJSON(o.AllowedMFAMethods), store.Millis(s.clock.Now()), orgID, projectID)
	if errors.Is(err, store.ErrConflict) {
		return nil, apierr.Wrap(apierr.OrganizationSlugUsed, err)
	}
	if err != nil {
		return nil, fmt.Errorf("organization: update: %w", err)
	}
	return s.Get(ctx, projectID, orgID)
}

// Delete removes the organization with its members and sessions.
func (s *Store) Delete(ctx context.Context, projectID, orgID string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM organizations WHERE organization_id = $1 AND project_id = $2`, orgID, projectID)
	if err != nil {
		return fmt.Errorf("organization: delete: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("organization: delete %s: %w", orgID, store.ErrNotFound)
	}
	return nil
}
