package session

import (
	"context"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// PrimaryRequired tells the client which primary methods the organization
// accepts when the one used does not satisfy its policy.
type PrimaryRequired struct {
	AllowedAuthMethods []string `json:"allowed_auth_methods"`
}

// MFARequired is the wire object of mfa_required.
type MFARequired struct {
	MemberOptions          *MFAMemberOptions `json:"member_options"`
	SecondaryAuthInitiated *string           `json:"secondary_auth_initiated"`
}

// MFAMemberOptions describes what the member has enrolled.
type MFAMemberOptions struct {
	MFAPhoneNumber     string `json:"mfa_phone_number"`
	TOTPRegistrationID string `json:"totp_registration_id"`
}

// MFAPolicy decides whether a member must present a second factor before
// getting a session. It runs inside the login transaction q, so it may
// start an SMS atomically with the login.
type MFAPolicy interface {
	Required(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
		m *organization.Member, factors []Factor) (*MFARequired, error)
}

// SetMFAPolicy installs the MFA policy (wiring time only; nil disables MFA).
func (s *Service) SetMFAPolicy(p MFAPolicy) { s.mfa = p }

// Sequence orders of factors.
const (
	Primary   = "PRIMARY"
	Secondary = "SECONDARY"
)

// AuthMethod maps a primary factor to its name in an organization's
// allowed_auth_methods ("" for factors that are not primary methods).
func AuthMethod(f Factor) string {
	switch {
	case f.Type == "magic_link":
		return "magic_link"
	case f.Type == EmailOTPType:
		return "email_otp"
	case f.Type == "password", f.Type == "sso":
		return f.Type
	case f.Type == "oauth" && strings.HasPrefix(f.DeliveryMethod, "oauth_"):
		return strings.TrimPrefix(f.DeliveryMethod, "oauth_") + "_oauth"
	case strings.HasSuffix(f.Type, "_oauth"):
		return f.Type
	}
	return ""
}

// AddressMethods are the primary methods whose login verifies the address
// as it happens, in the API family's list: email magic links, email codes,
// Google and Microsoft OAuth. They are what primary_required offers to
// someone whose factors did not verify it (VerifiesAddress) where that is
// needed.
var AddressMethods = []string{"magic_link", "email_otp", "google_oauth", "microsoft_oauth"}

// RequirePrimary answers a step that brings no factor the organization
// can accept: an IST naming the member, with p.Prior as its factors (none
// is fine), and primary_required. With only, primary_required lists those
// of the methods the organization accepts (PrimaryRequiredOf).
func (s *Service) RequirePrimary(ctx context.Context, q store.Querier, p CompleteParams, only ...string) (*AuthResponse, error) {
	return s.intermediateResponse(ctx, q, p, p.Prior, PrimaryRequiredOf(p.Organization, only...), nil)
}

// PrimaryRequiredOf is primary_required for org: its allowed_auth_methods
// or, with only, those of only that it accepts (AllowsAuthMethod; an
// organization that restricts nothing accepts them all).
func PrimaryRequiredOf(org *organization.Organization, only ...string) *PrimaryRequired {
	if len(only) == 0 {
		return primaryRequired(org)
	}
	out := []string{}
	for _, m := range only {
		if org.AllowsAuthMethod(m) {
			out = append(out, m)
		}
	}
	return &PrimaryRequired{AllowedAuthMethods: out}
}

// primaryRequired lists the organization's accepted primary methods.
func primaryRequired(org *organization.Organization) *PrimaryRequired {
	return &PrimaryRequired{AllowedAuthMethods: slices.Clone(org.AllowedAuthMethods)}
}

// primarySatisfied reports whether some primary factor is one the
// organization's auth policy accepts from member m (a break-glass member
// is exempt from a restricted list: organization.AllowsAuthMethodFor).
func primarySatisfied(org *organization.Organization, m *organization.Member, factors []Factor) bool {
	for _, f := range factors {
		if f.SequenceOrder == Primary && org.AllowsAuthMethodFor(m, AuthMethod(f)) {
			return true
		}
	}
	return false
}

// PrimarySatisfied reports whether some primary factor in factors is one
// the organization's auth policy accepts from member m. It is the check
// Complete makes before answering primary_required, exported so that
// other packages (MFA enrolment through an IST) apply exactly the same
// rule.
func PrimarySatisfied(org *organization.Organization, m *organization.Member, factors []Factor) bool {
	return primarySatisfied(org, m, factors)
}

func hasSecondary(factors []Factor) bool {
	return slices.ContainsFunc(factors, func(f Factor) bool { return f.SequenceOrder == Secondary })
}

// MFAPreviewer is an MFAPolicy that can also describe, without side
// effects, what a login would require (for answers such as discovered
// organizations, which must not send an SMS).
type MFAPreviewer interface {
	Preview(org *organization.Organization, m *organization.Member) *MFARequired
}

// PreviewMFA says whether logging member m in to org would ask for a
// second factor; nil when not, or when no previewing policy is installed.
// For someone not yet a member pass a zero Member.
func (s *Service) PreviewMFA(org *organization.Organization, m *organization.Member) *MFARequired {
	if pv, ok := s.mfa.(MFAPreviewer); ok {
		return pv.Preview(org, m)
	}
	return nil
}
