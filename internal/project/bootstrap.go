package project

import (
	"context"
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
)

// CaptchaSettings is the SDK's captcha block; captcha is off in Latchkey
// (no third-party script), but the field must be present.
type CaptchaSettings struct {
	Enabled bool `json:"enabled"`
}

// PolicySource supplies a project's RBAC policy for the bootstrap (the
// rbac service); any JSON-marshalable value of api-reference 2's shape.
type PolicySource interface {
	BootstrapPolicy(ctx context.Context, projectID string) (any, error)
}

// Bootstrap is every field of api-reference section 2. Fields the SDK
// requires to be present (captcha_settings, password_config,
// email_domains) are always written, even when null or empty.
type Bootstrap struct {
	httpapi.Common
	ProjectName                    string          `json:"project_name"`
	DisableSDKWatermark            bool            `json:"disable_sdk_watermark"`
	CNAMEDomain                    *string         `json:"cname_domain"`
	EmailDomains                   []string        `json:"email_domains"`
	CaptchaSettings                CaptchaSettings `json:"captcha_settings"`
	PKCERequiredForEmailMagicLinks bool            `json:"pkce_required_for_email_magic_links"`
	PKCERequiredForPasswordResets  bool            `json:"pkce_required_for_password_resets"`
	PKCERequiredForOAuth           bool            `json:"pkce_required_for_oauth"`
	PKCERequiredForSSO             bool            `json:"pkce_required_for_sso"`
	SlugPattern                    *string         `json:"slug_pattern"`
	CreateOrganizationEnabled      bool            `json:"create_organization_enabled"`
	PasswordConfig                 *PasswordConfig `json:"password_config"`
	DFPProtectedAuthEnabled        bool            `json:"dfp_protected_auth_enabled"`
	DFPProtectedAuthMode           string          `json:"dfp_protected_auth_mode"`
	RBACPolicy                     any             `json:"rbac_policy"`
	SIWERequiredForCryptoWallets   bool            `json:"siwe_required_for_crypto_wallets"`
	Vertical                       string          `json:"vertical"`
}

// PasswordConfig is the LUDS policy the widget shows beside new-password
// inputs; null when the project uses zxcvbn.
type PasswordConfig struct {
	LUDSComplexity   int `json:"luds_complexity"`
	LUDSMinimumCount int `json:"luds_minimum_count"`
}

// BootstrapHandler serves GET /sdk/v1/projects/bootstrap/{public_token}.
// emailDomain is the sender domain shown in "open your inbox" hints. A
// policy that cannot be loaded is served as null, which the SDK reads as
// "no permissions" (spec 6), rather than failing the whole bootstrap.
func BootstrapHandler(r *Resolver, emailDomain string, policies PolicySource) httpapi.HandlerFunc {
	return func(req *http.Request) (any, error) {
		p, err := r.ByPublicToken(req.Context(), req.PathValue("public_token"))
		if err != nil {
			return nil, publicTokenError(err)
		}
		b := &Bootstrap{
			ProjectName:                    p.Name,
			DisableSDKWatermark:            p.DisableSDKWatermark,
			EmailDomains:                   []string{},
			PKCERequiredForEmailMagicLinks: p.PKCERequiredForEmailMagicLinks,
			PKCERequiredForPasswordResets:  p.PKCERequiredForPasswordResets,
			PKCERequiredForSSO:             p.PKCERequiredForSSO,
			PKCERequiredForOAuth:           p.PKCERequiredForOAuth,
			CreateOrganizationEnabled:      p.CreateOrganizationEnabled,
			DFPProtectedAuthMode:           "OBSERVATION",
			Vertical:                       "B2B",
		}
		if emailDomain != "" {
			b.EmailDomains = []string{emailDomain}
		}
		if pol, err := policies.BootstrapPolicy(req.Context(), p.ID); err == nil {
			b.RBACPolicy = pol
		}
		if p.PasswordStrengthPolicy == PolicyLUDS {
			b.PasswordConfig = &PasswordConfig{LUDSComplexity: p.LUDSMinPasswordComplexity, LUDSMinimumCount: p.LUDSMinPasswordLength}
		}
		if p.SlugPattern != "" {
			sp := p.SlugPattern
			b.SlugPattern = &sp
		}
		return b, nil
	}
}
