package devmode

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/sso"
)

// Display names of the demo SSO connections (EnsureSAML/EnsureOIDC find
// them by name at the next start).
const (
	DemoSAMLConnection = "Initech SAML (dev IdP)"
	DemoOIDCConnection = "Initech OIDC (dev IdP)"
)

// SeedSSO points the SSO demo organizations' connections at the dev
// identity providers: an active SAML connection verified by the dev SAML
// IdP's certificate and an active OIDC connection to the dev OpenID
// provider. It runs at every dev start, since the providers' keys and the
// base URL are new each time.
func SeedSSO(ctx context.Context, svc *sso.Service, orgs *organization.Store, projectID string,
	samlIdP *SAMLIdP, oidcIdP *OIDCIdP) error {
	for _, d := range DemoOrgs {
		if !d.SSO {
			continue
		}
		o, err := orgs.BySlug(ctx, projectID, d.Slug)
		if err != nil {
			return fmt.Errorf("devmode: seed sso %s: %w", d.Slug, err)
		}
		if _, err := svc.EnsureSAML(ctx, projectID, o.OrganizationID, sso.SAMLSettings{DisplayName: DemoSAMLConnection,
			IdentityProvider: "generic", IdPEntityID: samlIdP.EntityID(), IdPSSOURL: samlIdP.SSOURL(),
			Certificate: samlIdP.CertificatePEM(), AttributeMapping: SAMLAttributeMapping(),
			// The IdP's admins group makes a member an admin (issue 10).
			GroupRoles: []sso.GroupRoleAssignment{{RoleID: organization.AdminRole, Group: "admins"}}}); err != nil {
			return fmt.Errorf("devmode: seed saml connection: %w", err)
		}
		iss := oidcIdP.Issuer()
		if _, err := svc.EnsureOIDC(ctx, projectID, o.OrganizationID, sso.OIDCSettings{DisplayName: DemoOIDCConnection,
			IdentityProvider: "generic", Issuer: iss, ClientID: DevOIDCClientID, ClientSecret: DevOIDCClientSecret,
			AuthorizationURL: iss + "/authorize", TokenURL: iss + "/token", UserinfoURL: iss + "/userinfo",
			JWKSURL: iss + "/jwks"}); err != nil {
			return fmt.Errorf("devmode: seed oidc connection: %w", err)
		}
	}
	return nil
}
