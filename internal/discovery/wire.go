package discovery

import (
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/session"
)

// SDK wire types of discovery answers: organizations and members in their
// SDK forms (organization/wire.go), only the fields @stytch/vanilla-js
// declares (internal/apptest/sdk_wire.json).

type sdkMembership struct {
	Type    string                  `json:"type"`
	Details map[string]any          `json:"details"`
	Member  *organization.SDKMember `json:"member"`
}

type sdkDiscovered struct {
	Organization        *organization.SDKOrganization `json:"organization"`
	Membership          sdkMembership                 `json:"membership"`
	MemberAuthenticated bool                          `json:"member_authenticated"`
	PrimaryRequired     *session.PrimaryRequired      `json:"primary_required"`
	MFARequired         *session.MFARequired          `json:"mfa_required"`
}

// sdkDiscovery is what every discovery answer carries.
type sdkDiscovery struct {
	httpapi.Common
	EmailAddress            string          `json:"email_address"`
	DiscoveredOrganizations []sdkDiscovered `json:"discovered_organizations"`
}

func (r *Response) sdk() sdkDiscovery {
	out := sdkDiscovery{EmailAddress: r.EmailAddress, DiscoveredOrganizations: make([]sdkDiscovered, 0, len(r.DiscoveredOrganizations))}
	for _, d := range r.DiscoveredOrganizations {
		out.DiscoveredOrganizations = append(out.DiscoveredOrganizations, sdkDiscovered{
			Organization:        d.Organization.SDK(),
			Membership:          sdkMembership{Type: d.Membership.Type, Details: d.Membership.Details, Member: d.Membership.Member.SDK()},
			MemberAuthenticated: d.MemberAuthenticated, PrimaryRequired: d.PrimaryRequired,
			MFARequired: session.SDKMFARequired(d.MFARequired)})
	}
	return out
}

type sdkWithIST struct {
	sdkDiscovery
	IntermediateSessionToken string `json:"intermediate_session_token"`
}

type sdkWithHint struct {
	sdkDiscovery
	OrganizationIDHint *string `json:"organization_id_hint"`
}

type sdkWithBoth struct {
	sdkWithIST
	OrganizationIDHint *string `json:"organization_id_hint"`
}

// SDKWire implements httpapi.SDKWirer. The default form is that of the
// discovery authenticate calls (magic link, code, OAuth, SSO):
// B2BDiscoveryAuthenticateResponse has the IST but no organization_id_hint.
func (r *Response) SDKWire() any { return &sdkWithIST{r.sdk(), r.IntermediateSessionToken} }

// WithISTAndHint answers the password discovery calls, whose SDK types
// declare both the IST and organization_id_hint.
func WithISTAndHint(r *Response) any { return withBoth{r} }

type withBoth struct{ *Response }

// SDKWire implements httpapi.SDKWirer.
func (w withBoth) SDKWire() any {
	return &sdkWithBoth{sdkWithIST: sdkWithIST{w.sdk(), w.IntermediateSessionToken}, OrganizationIDHint: w.OrganizationIDHint}
}

// listed answers discovery/organizations: B2BDiscoveryOrganizationsResponse
// has the hint but no IST (the caller already holds one, or a session).
type listed struct{ *Response }

// SDKWire implements httpapi.SDKWirer.
func (l listed) SDKWire() any { return &sdkWithHint{l.sdk(), l.OrganizationIDHint} }

// Backend wire types of discovery answers: each call's Node client type
// declares either the IST (the authenticate calls) or
// organization_id_hint (discovery/organizations), never both, while
// Response holds both. Organizations and members keep their full forms.
// They are methods of the wrappers, not of Response: answers that embed
// Response (oauth's DiscoveryResponse) add backend fields of their own.

type backendWithIST struct {
	httpapi.Common
	IntermediateSessionToken string                   `json:"intermediate_session_token"`
	EmailAddress             string                   `json:"email_address"`
	DiscoveredOrganizations  []DiscoveredOrganization `json:"discovered_organizations"`
}

type backendWithHint struct {
	httpapi.Common
	EmailAddress            string                   `json:"email_address"`
	DiscoveredOrganizations []DiscoveredOrganization `json:"discovered_organizations"`
	OrganizationIDHint      *string                  `json:"organization_id_hint"`
}

func (r *Response) backendWithIST() any {
	return &backendWithIST{IntermediateSessionToken: r.IntermediateSessionToken, EmailAddress: r.EmailAddress,
		DiscoveredOrganizations: r.DiscoveredOrganizations}
}

// authenticated answers the magic link and email code discovery
// authenticate calls: B2BMagicLinksDiscoveryAuthenticateResponse and
// B2BOTPEmailDiscoveryAuthenticateResponse have the IST, no hint.
type authenticated struct{ *Response }

// BackendWire implements httpapi.BackendWirer.
func (a authenticated) BackendWire() any { return a.backendWithIST() }

// BackendWire implements httpapi.BackendWirer: the Node client's password
// discovery types, unlike the SDK's, have no organization_id_hint.
func (w withBoth) BackendWire() any { return w.backendWithIST() }

// BackendWire implements httpapi.BackendWirer:
// B2BDiscoveryOrganizationsListResponse has the hint, no IST.
func (l listed) BackendWire() any {
	return &backendWithHint{EmailAddress: l.EmailAddress, DiscoveredOrganizations: l.DiscoveredOrganizations,
		OrganizationIDHint: l.OrganizationIDHint}
}
