package adminportal

import "github.com/latchkey/latchkey/internal/httpapi"

// configResponse answers GET b2b/admin_portal_config: the fields the
// portal reads (api-reference 3.15; the browser SDK declares no type for
// it).
type configResponse struct {
	httpapi.Common
	SSO          ssoConfigWire          `json:"sso_config"`
	Organization organizationConfigWire `json:"organization_config"`
	SCIM         scimConfigWire         `json:"scim_config"`
}

type ssoConfigWire struct {
	SSOEnabled              bool `json:"sso_enabled"`
	CanCreateSAMLConnection bool `json:"can_create_saml_connection"`
	CanCreateOIDCConnection bool `json:"can_create_oidc_connection"`
}

type organizationConfigWire struct {
	MFAControlsEnabled bool `json:"mfa_controls_enabled"`
}

type scimConfigWire struct {
	SCIMEnabled bool `json:"scim_enabled"`
}

func wireOf(c Config) *configResponse {
	return &configResponse{
		SSO: ssoConfigWire{SSOEnabled: c.SSOEnabled, CanCreateSAMLConnection: c.CanCreateSAML,
			CanCreateOIDCConnection: c.CanCreateOIDC},
		Organization: organizationConfigWire{MFAControlsEnabled: c.MFAControlsEnabled},
		SCIM:         scimConfigWire{SCIMEnabled: c.SCIMEnabled},
	}
}
