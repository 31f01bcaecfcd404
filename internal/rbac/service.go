package rbac

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"

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
}

// New returns the RBAC service.
func New(d Deps) *Service { return &Service{d: d} }

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
// otherwise nothing changes and the error names the organization.
func (s *Service) SetCustom(ctx context.Context, projectID string, custom Policy) (Policy, error) {
	clean, err := Validate(custom)
	if err != nil {
		return Policy{}, err
	}
	if err := s.d.DB.Tx(ctx, func(q store.Querier) error { return s.setCustomIn(ctx, q, projectID, clean) }); err != nil {
		return Policy{}, err
	}
	return clean, nil
}

// setCustomIn is SetCustom's transaction: the organizations' roles are
// read under the policy's lock (lockPolicy), which an organization's roles
// change takes before its own check.
func (s *Service) setCustomIn(ctx context.Context, q store.Querier, projectID string, clean Policy) error {
	text, err := json.Marshal(clean)
	if err != nil {
		return fmt.Errorf("rbac: encode policy: %w", err)
	}
	if err := s.lockPolicy(ctx, q, projectID); err != nil {
		return err
	}
	eff := Effective(clean)
	rows, err := q.QueryContext(ctx, `SELECT organization_id, custom_roles FROM organizations
		WHERE project_id = $1 AND custom_roles <> '[]'`, projectID)
	if err != nil {
		return fmt.Errorf("rbac: list organization roles: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var orgID, rolesText string
		var roles []Role
		if err := rows.Scan(&orgID, &rolesText); err != nil {
			return fmt.Errorf("rbac: scan organization roles: %w", err)
		}
		if err := json.Unmarshal([]byte(rolesText), &roles); err != nil {
			return fmt.Errorf("rbac: decode organization roles: %w", err)
		}
		if _, err := ValidateOrgRoles(roles, eff); err != nil {
			return fmt.Errorf("organization %s's custom roles would no longer be valid: %w", orgID, err)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("rbac: organization roles: %w", err)
	}
	rows.Close()
	_, err = q.ExecContext(ctx, `INSERT INTO rbac_policies (project_id, policy, updated_at) VALUES ($1, $2, $3)
		ON CONFLICT (project_id) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at`,
		projectID, string(text), store.Millis(s.d.Clock.Now()))
	if err != nil {
		return fmt.Errorf("rbac: store policy: %w", store.MapError(err))
	}
	return nil
}

// setOrgRolesIn validates an organization's custom roles against the
// project policy and stores them, inside q. The policy is read under its
// lock (lockPolicy), as SetCustom reads the organizations' roles: without
// it each could check against the other's old state and both commit,
// leaving an organization role that names something the policy no longer
// defines.
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

// CheckRoles refuses role ids that neither the project policy nor org's
// custom roles define (organization.RBAC): assignments must name real roles.
func (s *Service) CheckRoles(ctx context.Context, projectID string, org *organization.Organization, field string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	p, err := s.Policy(ctx, projectID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !p.HasRole(id, org.CustomRoles) {
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
