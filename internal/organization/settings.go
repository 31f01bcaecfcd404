package organization

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Settings are the writable fields of an organization; nil means "leave as
// is". The same struct decodes create and update requests.
type Settings struct {
	Name                 *string         `json:"organization_name"`
	Slug                 *string         `json:"organization_slug"`
	LogoURL              *string         `json:"organization_logo_url"`
	TrustedMetadata      *map[string]any `json:"trusted_metadata"`
	EmailJITProvisioning *string         `json:"email_jit_provisioning"`
	EmailAllowedDomains  *[]string       `json:"email_allowed_domains"`
	EmailInvites         *string         `json:"email_invites"`
	AuthMethods          *string         `json:"auth_methods"`
	AllowedAuthMethods   *[]string       `json:"allowed_auth_methods"`
	MFAPolicy            *string         `json:"mfa_policy"`
	MFAMethods           *string         `json:"mfa_methods"`
	AllowedMFAMethods    *[]string       `json:"allowed_mfa_methods"`
}

func (s Settings) apply(o *Organization, creating bool) error {
	if s.Name != nil {
		name := strings.TrimSpace(*s.Name)
		if name == "" {
			return apierr.Invalid("organization_name", "organization_name must not be empty.")
		}
		o.OrganizationName = name
	} else if creating {
		return apierr.Invalid("organization_name", "organization_name is required.")
	}
	if s.Slug != nil {
		slug := strings.TrimSpace(*s.Slug)
		if err := ValidateSlug(slug); err != nil {
			return err
		}
		o.OrganizationSlug = slug
	}
	if s.LogoURL != nil {
		if *s.LogoURL != "" {
			u, err := url.Parse(*s.LogoURL)
			if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return apierr.Invalid("organization_logo_url", "organization_logo_url must be an absolute http(s) URL.")
			}
		}
		o.OrganizationLogoURL = *s.LogoURL
	}
	if s.TrustedMetadata != nil {
		o.TrustedMetadata = *s.TrustedMetadata
		if o.TrustedMetadata == nil {
			o.TrustedMetadata = map[string]any{}
		}
	}
	if s.EmailAllowedDomains != nil {
		d, err := normalizeDomains(*s.EmailAllowedDomains)
		if err != nil {
			return err
		}
		o.EmailAllowedDomains = d
	}
	for _, p := range []struct {
		field string
		in    *string
		dst   *string
		ok    []string
	}{
		{"email_jit_provisioning", s.EmailJITProvisioning, &o.EmailJITProvisioning, []string{AllAllowed, Restricted, NotAllowed}},
		{"email_invites", s.EmailInvites, &o.EmailInvites, []string{AllAllowed, Restricted, NotAllowed}},
		{"auth_methods", s.AuthMethods, &o.AuthMethods, []string{AllAllowed, Restricted}},
		{"mfa_policy", s.MFAPolicy, &o.MFAPolicy, []string{"OPTIONAL", "REQUIRED_FOR_ALL"}},
		{"mfa_methods", s.MFAMethods, &o.MFAMethods, []string{AllAllowed, Restricted}},
	} {
		if p.in == nil {
			continue
		}
		if err := validatePolicy(p.field, *p.in, p.ok...); err != nil {
			return err
		}
		*p.dst = *p.in
	}
	if s.AllowedAuthMethods != nil {
		if err := checkNames("allowed_auth_methods", *s.AllowedAuthMethods, AuthMethods); err != nil {
			return err
		}
		o.AllowedAuthMethods = *s.AllowedAuthMethods
	}
	if s.AllowedMFAMethods != nil {
		if err := checkNames("allowed_mfa_methods", *s.AllowedMFAMethods, []string{"sms_otp", "totp"}); err != nil {
			return err
		}
		o.AllowedMFAMethods = *s.AllowedMFAMethods
	}
	if o.EmailJITProvisioning == Restricted && len(o.EmailAllowedDomains) == 0 {
		return apierr.Invalid("email_allowed_domains", "email_jit_provisioning RESTRICTED needs at least one email_allowed_domains entry.")
	}
	return nil
}

func checkNames(field string, got, known []string) error {
	for _, g := range got {
		if !slices.Contains(known, g) {
			return apierr.Invalid(field, fmt.Sprintf("%q is not one of %s.", g, strings.Join(known, ", ")))
		}
	}
	return nil
}
