package rbac

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// Routes is the module's route table (backend face; the browser SDK reads
// the policy from the bootstrap instead).
func (s *Service) Routes() []httpapi.Route {
	return []httpapi.Route{
		{Face: httpapi.Backend, Pattern: "GET /v1/b2b/rbac/policy", Handler: s.getPolicy},
		{Face: httpapi.Backend, Pattern: "GET /v1/b2b/rbac/organizations/{organization_id}", Handler: s.getOrgPolicy},
		httpapi.Route{Face: httpapi.Backend, Pattern: "PUT /v1/b2b/rbac/organizations/{organization_id}", Handler: s.setOrgPolicy}.LogsAdminChange("organization_roles_updated"),
	}
}

// PolicyResponse answers GET /v1/b2b/rbac/policy.
type PolicyResponse struct {
	httpapi.Common
	Policy *Policy `json:"policy"`
}

func (s *Service) getPolicy(r *http.Request) (any, error) {
	p, err := s.Policy(r.Context(), project.CallerFrom(r.Context()).Project.ID)
	if err != nil {
		return nil, err
	}
	return &PolicyResponse{Policy: p}, nil
}

// OrgPolicy is an organization's own roles (the Node client's OrgPolicy).
type OrgPolicy struct {
	Roles []Role `json:"roles"`
}

// OrgPolicyResponse answers the organization policy routes.
type OrgPolicyResponse struct {
	httpapi.Common
	OrgPolicy OrgPolicy `json:"org_policy"`
}

func (s *Service) org(r *http.Request) (*project.Project, *organization.Organization, error) {
	p := project.CallerFrom(r.Context()).Project
	o, err := s.d.Orgs.Get(r.Context(), p.ID, r.PathValue("organization_id"))
	if err != nil {
		return nil, nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	return p, o, nil
}

func (s *Service) getOrgPolicy(r *http.Request) (any, error) {
	_, o, err := s.org(r)
	if err != nil {
		return nil, err
	}
	return &OrgPolicyResponse{OrgPolicy: OrgPolicy{Roles: o.CustomRoles}}, nil
}

// setOrgPolicy replaces an organization's custom roles, validated against
// the project policy.
func (s *Service) setOrgPolicy(r *http.Request) (any, error) {
	var req struct {
		OrgPolicy *OrgPolicy `json:"org_policy"`
	}
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if req.OrgPolicy == nil {
		return nil, apierr.Invalid("org_policy", "org_policy is required.")
	}
	// The bounds and a first validation against the policy as read now run
	// before the transaction, so a request that is refused (or merely big)
	// never holds SQLite's one writer while it is checked. The transaction
	// checks again, under the policy lock, against the policy then current.
	if err := CheckOrgRolesBounds(req.OrgPolicy.Roles); err != nil {
		return nil, err
	}
	p, o, err := s.org(r)
	if err != nil {
		return nil, err
	}
	pol, err := s.Policy(r.Context(), p.ID)
	if err != nil {
		return nil, err
	}
	if _, err := ValidateOrgRoles(req.OrgPolicy.Roles, pol); err != nil {
		return nil, err
	}
	err = s.d.DB.Tx(r.Context(), func(q store.Querier) error {
		updated, err := s.setOrgRolesIn(r.Context(), q, p.ID, o.OrganizationID, req.OrgPolicy.Roles)
		o = updated
		return err
	})
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	return &OrgPolicyResponse{OrgPolicy: OrgPolicy{Roles: o.CustomRoles}}, nil
}
