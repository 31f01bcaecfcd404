package session

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
)

// Authorizer applies the RBAC matching rule (the rbac service): the roles
// among held that permit action on resource in org, or unauthorized_action
// (which withVerdict answers as session_authorization_error).
type Authorizer interface {
	Check(ctx context.Context, projectID string, org *organization.Organization, held []string, resource, action string) ([]string, error)
}

// AuthorizationCheck is the optional check of sessions/authenticate: may
// this session perform action on resource in organization_id?
type AuthorizationCheck struct {
	OrganizationID string `json:"organization_id"`
	ResourceID     string `json:"resource_id"`
	Action         string `json:"action"`
}

// Verdict answers a passed check: authorized is always true (a refusal is
// an error), with the session roles that granted it.
type Verdict struct {
	Authorized    bool     `json:"authorized"`
	GrantingRoles []string `json:"granting_roles"`
}

// VerdictResponse is a session answer with the verdict of its check.
type VerdictResponse struct {
	*SessionResponse
	Verdict *Verdict `json:"verdict,omitempty"`
}

// authorizing returns the change that runs check, if any, against the
// session being authenticated, and the verdict it passes with once the
// check has run (nil without a check). Authenticate runs it with the
// roles it has just computed and before it writes anything the request
// asks for (an extension, custom claims), so a refused check changes
// nothing.
func (h Handlers) authorizing(p *project.Project, c change, check *AuthorizationCheck) (change, *Verdict) {
	if check == nil {
		return c, nil
	}
	v := &Verdict{}
	c.authorize = func(ctx context.Context, org *organization.Organization, roles []string) error {
		granting, err := h.verdict(ctx, p, org, roles, check)
		v.Authorized, v.GrantingRoles = err == nil, granting
		return err
	}
	return c, v
}

// verdict runs an authorization check for a session of org holding roles.
// The organization must be the session's own
// (session_authorization_tenancy_error otherwise, before any permission is
// looked at), and the roles are the session's, computed afresh by
// Authenticate, so a role taken away is gone from the very next check. The
// refusals carry the SDKs' own types for this check
// (session_authorization_error and ..._tenancy_error); the same RBAC
// refusal on any other route stays unauthorized_action. It returns the
// roles that granted the action.
func (h Handlers) verdict(ctx context.Context, p *project.Project, org *organization.Organization, roles []string,
	check *AuthorizationCheck) ([]string, error) {
	for _, f := range []struct{ name, v string }{{"organization_id", check.OrganizationID},
		{"resource_id", check.ResourceID}, {"action", check.Action}} {
		if err := httpapi.Required("authorization_check."+f.name, f.v); err != nil {
			return nil, err
		}
	}
	if own := org.OrganizationID; check.OrganizationID != own {
		// Both ids are the caller's to know: the session's organization
		// is in the answer it would otherwise get.
		return nil, apierr.New(apierr.SessionAuthorizationTenancyError).WithMessage(fmt.Sprintf(
			"The session belongs to organization %s, but the authorization check names organization %s.", own, check.OrganizationID))
	}
	granting, err := h.Authz.Check(ctx, p.ID, org, roles, check.ResourceID, check.Action)
	if apierr.Is(err, apierr.UnauthorizedAction) {
		return nil, apierr.Wrap(apierr.SessionAuthorizationError, err).WithDetails(apierr.From(err).Details)
	}
	if err != nil {
		return nil, err
	}
	return granting, nil
}

// ssoConnections lists the SSO connections the session's factors came
// from: roles granted through a SAML connection count only for sessions
// authenticated by it (organization.Member.SessionRoles).
func ssoConnections(factors []Factor) []string {
	var out []string
	for _, f := range factors {
		if id := f.ssoConnectionID(); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// ssoConnectionID is the SSO connection a factor was proven with: the
// provider_id of its SAML or OIDC factor ("" for other factors).
func (f Factor) ssoConnectionID() string {
	for _, sf := range []*SSOFactor{f.SAMLSSOFactor, f.OIDCSSOFactor} {
		if sf != nil {
			return sf.ProviderID
		}
	}
	return ""
}
