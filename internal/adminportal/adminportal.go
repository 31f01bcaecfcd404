// Package adminportal serves what the vendor's embeddable Admin Portal
// (the SSO, Organization Settings, Member Management and SCIM components
// of @stytch/vanilla-js) asks before it shows a screen:
// GET /sdk/v1/b2b/admin_portal_config, a summary of which of those
// features the logged-in member's project offers and whether the member
// may create SSO connections. Everything the portal then does goes
// through the SSO, organization, member and SCIM routes of their own
// packages, which authorize every call on their own; this summary only
// decides what the portal shows, never what the server allows.
package adminportal

import (
	"context"
	"fmt"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/sso"
)

// Deps are the services the module uses.
type Deps struct {
	Orgs *organization.Store
	// Members resolves the SDK caller's session.
	Members organization.Sessions
}

// Service answers the Admin Portal's configuration call.
type Service struct{ d Deps }

// New returns the service.
func New(d Deps) *Service { return &Service{d: d} }

// Routes is the module's route table. The route is open whatever products
// the project enables: the answer says which are on.
func (s *Service) Routes() []httpapi.Route {
	return []httpapi.Route{httpapi.SDKRoute("GET /sdk/v1/b2b/admin_portal_config", s.get)}
}

// Config is what the portal may offer the caller.
type Config struct {
	// SSOEnabled: the project offers SSO logins (its "sso" product), so
	// connections are worth managing; otherwise the portal's SSO screen
	// says SSO is not supported.
	SSOEnabled bool
	// CanCreateSAML and CanCreateOIDC: SSO is enabled and the caller's
	// roles permit stytch.sso:create. Latchkey sets no plan limit on
	// connections, so the two differ from each other in nothing.
	CanCreateSAML, CanCreateOIDC bool
	// MFAControlsEnabled: organizations may set their MFA policy and
	// methods. Latchkey has no product switch for MFA; every project has it.
	MFAControlsEnabled bool
	// SCIMEnabled: organizations may have a SCIM connection. Latchkey has
	// no product switch for SCIM; every project has it.
	SCIMEnabled bool
}

// For is the configuration for caller c. Whether c may read SSO or SCIM
// connections is not part of it: the portal asks the RBAC policy itself
// and then tells the member they lack the permission, which is more
// useful than calling the feature unsupported.
func For(ctx context.Context, c *organization.SessionCaller) (Config, error) {
	cfg := Config{SSOEnabled: c.Project.HasProduct(sso.Product), MFAControlsEnabled: true, SCIMEnabled: true}
	if cfg.SSOEnabled {
		create, err := permits(ctx, c, organization.ResourceSSO, organization.ActionSSOCreate)
		if err != nil {
			return Config{}, err
		}
		cfg.CanCreateSAML, cfg.CanCreateOIDC = create, create
	}
	return cfg, nil
}

// permits reports whether c's roles permit action on resource; a refusal
// is an answer, any other failure an error.
func permits(ctx context.Context, c *organization.SessionCaller, resource, action string) (bool, error) {
	err := c.Authorize(ctx, resource, action)
	switch {
	case err == nil:
		return true, nil
	case apierr.Is(err, apierr.UnauthorizedAction):
		return false, nil
	default:
		return false, fmt.Errorf("adminportal: authorize %s:%s: %w", resource, action, err)
	}
}

// get handles GET b2b/admin_portal_config for any logged-in member.
func (s *Service) get(r *http.Request) (any, error) {
	c, err := organization.CallerFromSession(r, s.d.Orgs, s.d.Members)
	if err != nil {
		return nil, err
	}
	cfg, err := For(r.Context(), c)
	if err != nil {
		return nil, err
	}
	return wireOf(cfg), nil
}
