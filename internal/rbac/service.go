package rbac

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Migrations is the module's own schema (recorded as "rbac/NNNN").
func Migrations() store.Source {
	return store.Embedded("rbac", migrations)
}

// Deps are the collaborators of the RBAC service.
type Deps struct {
	DB    *store.DB
	Clock clock.Clock
	Orgs  *organization.Store
}

// Service loads policies and answers authorization questions.
type Service struct {
	d Deps
	// referrers find the assignments of roles (UseRoleReferrers).
	referrers []organization.RoleReferrer
	// scopeHolders forget custom scopes the policy removes (UseScopeHolders).
	scopeHolders []ScopeHolder
}

// ScopeHolder stores what was granted under a project's custom scopes
// (the identity provider's consent on record). A policy change that
// removes scopes calls DropScopes inside its transaction, under the
// policy lock: consent given to a scope that left the policy must not be
// honoured if a scope of that name is defined again later, perhaps
// mapped to other permissions; the member is asked again.
type ScopeHolder interface {
	DropScopes(ctx context.Context, q store.Querier, projectID string, scopes []string) error
}

// UseScopeHolders registers what holds grants of custom scopes. The
// composition root calls it once, before serving.
func (s *Service) UseScopeHolders(h ...ScopeHolder) {
	s.scopeHolders = append(s.scopeHolders, h...)
}

// New returns the RBAC service.
func New(d Deps) *Service { return &Service{d: d} }

// UseRoleReferrers registers what stores role assignments, in the order a
// change that removes roles locks their rows: organizations, then SSO
// connections, then members (the order every other write takes). The
// composition root calls it once, before serving.
func (s *Service) UseRoleReferrers(r ...organization.RoleReferrer) {
	s.referrers = append(s.referrers, r...)
}

// Custom returns the stored custom part of a project's policy (empty when
// none was set).
func (s *Service) Custom(ctx context.Context, projectID string) (Policy, error) {
	return s.custom(ctx, s.d.DB.Read(), projectID)
}

func (s *Service) custom(ctx context.Context, q store.Querier, projectID string) (Policy, error) {
	var text string
	err := q.QueryRowContext(ctx, `SELECT policy FROM rbac_policies WHERE project_id = $1`, projectID).Scan(&text)
	if errors.Is(store.MapError(err), store.ErrNotFound) {
		return Policy{Roles: []Role{}, Resources: []Resource{}, Scopes: []Scope{}}, nil
	}
	if err != nil {
		return Policy{}, fmt.Errorf("rbac: load policy: %w", err)
	}
	var p Policy
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		return Policy{}, fmt.Errorf("rbac: decode policy: %w", err)
	}
	return p, nil
}

// Policy returns a project's effective policy: built-in merged with custom.
func (s *Service) Policy(ctx context.Context, projectID string) (*Policy, error) {
	c, err := s.Custom(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return Effective(c), nil
}

// SetCustom validates and stores the custom part of a project's policy,
// replacing the previous one in a single transaction. The organizations'
// custom roles must still make sense under the new policy (their resources
// and actions exist, their ids do not collide with a project role);
// otherwise nothing changes and the error names the organization. A role
// the new policy removes must not be assigned anywhere (RoleReferrer):
// otherwise nothing changes and the error is a *RolesInUseError listing
// the assignments. The built-in roles are never removed (Effective).
// Custom scopes it removes leave every consent given to them
// (ScopeHolder), in the same transaction.
//
// also runs last in the same transaction (the CLI files its audit event
// there), with the policy replaced and the assignments removed.
func (s *Service) SetCustom(ctx context.Context, projectID string, custom Policy, also ...Also) (Policy, error) {
	clean, _, err := s.setCustom(ctx, projectID, custom, false, also)
	return clean, err
}

// Also is work a caller joins to a policy change, run in its transaction
// with the custom policy it replaced and the assignments it removed: if it
// fails, nothing changes.
type Also func(q store.Querier, old Policy, dropped []organization.RoleRef) error

// SetCustomDropping is SetCustom that removes the assignments of the roles
// the new policy removes, in the same transaction, and returns them.
func (s *Service) SetCustomDropping(ctx context.Context, projectID string, custom Policy, also ...Also) (Policy, []organization.RoleRef, error) {
	return s.setCustom(ctx, projectID, custom, true, also)
}

func (s *Service) setCustom(ctx context.Context, projectID string, custom Policy, drop bool, also []Also) (Policy, []organization.RoleRef, error) {
	clean, err := Validate(custom)
	if err != nil {
		return Policy{}, nil, err
	}
	var refs []organization.RoleRef
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		var err error
		refs, err = s.setCustomIn(ctx, q, projectID, clean, drop, also...)
		return err
	})
	if err != nil {
		return Policy{}, nil, err
	}
	return clean, refs, nil
}

// setCustomIn is SetCustom's transaction: the organizations' roles and the
// assignments are read under the policy's lock (lockPolicy), which an
// organization's roles change and every assignment of a role take before
// their own check.
func (s *Service) setCustomIn(ctx context.Context, q store.Querier, projectID string, clean Policy, drop bool, also ...Also) ([]organization.RoleRef, error) {
	text, err := json.Marshal(clean)
	if err != nil {
		return nil, fmt.Errorf("rbac: encode policy: %w", err)
	}
	if err := s.lockPolicy(ctx, q, projectID); err != nil {
		return nil, err
	}
	old, err := s.custom(ctx, q, projectID)
	if err != nil {
		return nil, err
	}
	eff := Effective(clean)
	rows, err := q.QueryContext(ctx, `SELECT organization_id, custom_roles FROM organizations
		WHERE project_id = $1 AND custom_roles <> '[]'`, projectID)
	if err != nil {
		return nil, fmt.Errorf("rbac: list organization roles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var orgID, rolesText string
		var roles []Role
		if err := rows.Scan(&orgID, &rolesText); err != nil {
			return nil, fmt.Errorf("rbac: scan organization roles: %w", err)
		}
		if err := json.Unmarshal([]byte(rolesText), &roles); err != nil {
			return nil, fmt.Errorf("rbac: decode organization roles: %w", err)
		}
		if _, err := ValidateOrgRoles(roles, eff); err != nil {
			return nil, fmt.Errorf("organization %s's custom roles would no longer be valid: %w", orgID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("rbac: organization roles: %w", err)
	}
	rows.Close()
	// An organization's custom role cannot share a removed role's id (the
	// check above), so a removed project role is gone everywhere.
	removed := removedRoles(Effective(old).Roles, eff.Roles)
	refs, err := s.assignments(ctx, q, projectID, "", func(_, id string) bool { return slices.Contains(removed, id) }, drop)
	if err != nil {
		return nil, err
	}
	if len(refs) > 0 && !drop {
		return nil, &RolesInUseError{Refs: refs}
	}
	if gone := removedScopes(old.Scopes, clean.Scopes); len(gone) > 0 {
		for _, h := range s.scopeHolders {
			if err := h.DropScopes(ctx, q, projectID, gone); err != nil {
				return nil, err
			}
		}
	}
	_, err = q.ExecContext(ctx, `INSERT INTO rbac_policies (project_id, policy, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (project_id) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at`,
		projectID, string(text), store.Millis(s.d.Clock.Now()))
	if err != nil {
		return nil, fmt.Errorf("rbac: store policy: %w", store.MapError(err))
	}
	for _, f := range also {
		if err := f(q, old, refs); err != nil {
			return nil, err
		}
	}
	return refs, nil
}

// assignments asks every referrer for the assignments of the roles gone
// reports (and with drop removes them), in the referrers' lock order.
// Nothing is asked when no role goes.
func (s *Service) assignments(ctx context.Context, q store.Querier, projectID, orgID string, gone func(orgID, roleID string) bool, drop bool) ([]organization.RoleRef, error) {
	var out []organization.RoleRef
	for _, r := range s.referrers {
		refs, err := r.RoleRefs(ctx, q, projectID, orgID, gone, drop)
		if err != nil {
			return nil, err
		}
		out = append(out, refs...)
	}
	return out, nil
}

// removedRoles are the ids among before that after lacks.
func removedRoles(before, after []Role) []string {
	var out []string
	for _, r := range before {
		if !slices.ContainsFunc(after, func(a Role) bool { return a.RoleID == r.RoleID }) {
			out = append(out, r.RoleID)
		}
	}
	return out
}

// removedScopes are the names of the scopes among before that after lacks.
func removedScopes(before, after []Scope) []string {
	var out []string
	for _, b := range before {
		if !slices.ContainsFunc(after, func(a Scope) bool { return a.Scope == b.Scope }) {
			out = append(out, b.Scope)
		}
	}
	return out
}

// setOrgRolesIn validates an organization's custom roles against the
// project policy and stores them, inside q. The policy is read under its
// lock (lockPolicy), as SetCustom reads the organizations' roles: without
// it each could check against the other's old state and both commit,
// leaving an organization role that names something the policy no longer
// defines. A role the change removes must not be assigned in the
// organization (invalid_request listing where), as for the policy.
func (s *Service) setOrgRolesIn(ctx context.Context, q store.Querier, projectID, orgID string, roles []Role) (*organization.Organization, error) {
	if err := s.lockPolicy(ctx, q, projectID); err != nil {
		return nil, err
	}
	custom, err := s.custom(ctx, q, projectID)
	if err != nil {
		return nil, err
	}
	clean, err := ValidateOrgRoles(roles, Effective(custom))
	if err != nil {
		return nil, err
	}
	// Read under the policy lock, which every change of these roles holds.
	before, err := s.d.Orgs.GetIn(ctx, q, projectID, orgID)
	if err != nil {
		return nil, err
	}
	removed := removedRoles(before.CustomRoles, clean)
	refs, err := s.assignments(ctx, q, projectID, orgID, func(_, id string) bool { return slices.Contains(removed, id) }, false)
	if err != nil {
		return nil, err
	}
	if len(refs) > 0 {
		return nil, apierr.Invalid("org_policy", (&RolesInUseError{Refs: refs}).summary()+
			" Remove these assignments before removing the role.")
	}
	return s.d.Orgs.UpdateIn(ctx, q, projectID, orgID, organization.Settings{CustomRoles: &clean})
}

// lockPolicy is the lock that a change of the project's policy and a
// change of an organization's custom roles both take before checking one
// against the other: the project's row (the policy's own may not exist
// yet). It comes before any organization's row (UpdateIn locks that), the
// order every path takes.
func (s *Service) lockPolicy(ctx context.Context, q store.Querier, projectID string) error {
	return s.d.DB.LockRow(ctx, q, "projects", "project_id", projectID)
}

// HoldPolicy returns the project's effective policy read in q under the
// policy lock taken shared (store.DB.ShareRow), for a write that must
// commit only under the policy it checked: the identity provider's
// consent and code (idp submit). A policy change (setCustomIn, which
// takes the lock exclusively before anything else) has either committed,
// and this reads it, or waits until q ends, and its reads (the consents
// DropScopes prunes) then see what q wrote. Holders do not wait for each
// other. Take it first in q, before any member's or organization's row,
// the order lockPolicy's holders take.
func (s *Service) HoldPolicy(ctx context.Context, q store.Querier, projectID string) (*Policy, error) {
	if err := s.d.DB.ShareRow(ctx, q, "projects", "project_id", projectID); err != nil {
		return nil, err
	}
	c, err := s.custom(ctx, q, projectID)
	if err != nil {
		return nil, err
	}
	return Effective(c), nil
}

// LockPolicy is lockPolicy for the writes that assign roles
// (organization.RBAC): they take it before checking a role, so a change
// removing the role either sees their assignment or is seen by their check.
func (s *Service) LockPolicy(ctx context.Context, q store.Querier, projectID string) error {
	return s.lockPolicy(ctx, q, projectID)
}

// Check applies the matching rule for roles held in org and returns the
// roles that grant the permission. A refusal is unauthorized_action; a
// policy that cannot be loaded refuses too (no permissions are assumed),
// with the cause kept for the log.
func (s *Service) Check(ctx context.Context, projectID string, org *organization.Organization, held []string, resource, action string) ([]string, error) {
	p, err := s.Policy(ctx, projectID)
	if err != nil {
		return nil, apierr.Wrap(apierr.UnauthorizedAction, err)
	}
	granting := p.Granting(held, org.CustomRoles, resource, action)
	if len(granting) == 0 {
		return nil, apierr.New(apierr.UnauthorizedAction).WithDetails(map[string]any{"resource_id": resource, "action": action})
	}
	return granting, nil
}

// CheckRoles refuses role ids that neither the project policy, read in q,
// nor custom (the organization's custom roles) define
// (organization.RBAC): assignments must name real roles. The caller holds
// LockPolicy in q, so the policy read is the one the write commits under.
func (s *Service) CheckRoles(ctx context.Context, q store.Querier, projectID string, custom []Role, field string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	c, err := s.custom(ctx, q, projectID)
	if err != nil {
		return err
	}
	p := Effective(c)
	for _, id := range ids {
		if !p.HasRole(id, custom) {
			return invalid(field, "Role %q is not defined in this project's RBAC policy or the organization's custom roles.", id)
		}
	}
	return nil
}

// Authorize is Check without the verdict (organization.RBAC).
func (s *Service) Authorize(ctx context.Context, p *project.Project, org *organization.Organization, held []string, resource, action string) error {
	_, err := s.Check(ctx, p.ID, org, held, resource, action)
	return err
}

// BootstrapPolicy is the effective policy for the SDK bootstrap
// (project.PolicySource).
func (s *Service) BootstrapPolicy(ctx context.Context, projectID string) (any, error) {
	return s.Policy(ctx, projectID)
}
