package organization

import "github.com/latchkey/latchkey/internal/httpapi"

// LoginSend is who a login email (an email code or a magic link) went to:
// the member the address belongs to in the organization, or the one its
// JIT policy created for the send.
type LoginSend struct {
	Member        *Member
	MemberCreated bool
	Organization  *Organization
}

// LoginSendRequest holds the fields both login_or_signup sends take
// (otps/email and magic_links/email); a method embeds it and adds its own.
type LoginSendRequest struct {
	EmailAddress            string `json:"email_address"`
	OrganizationID          string `json:"organization_id"`
	LoginTemplateID         string `json:"login_template_id"`
	SignupTemplateID        string `json:"signup_template_id"`
	Locale                  string `json:"locale"`
	LoginExpirationMinutes  int    `json:"login_expiration_minutes"`
	SignupExpirationMinutes int    `json:"signup_expiration_minutes"`
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode
// calls it): custom email templates and languages other than English.
func (req LoginSendRequest) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("login_template_id", req.LoginTemplateID),
		httpapi.Set("signup_template_id", req.SignupTemplateID), httpapi.Locale("locale", req.Locale))
}

// LoginSendResponse answers both login_or_signup sends.
type LoginSendResponse struct {
	httpapi.Common
	MemberID      string        `json:"member_id"`
	MemberCreated bool          `json:"member_created"`
	Member        *Member       `json:"member"`
	Organization  *Organization `json:"organization"`
}

// SDKWire implements httpapi.SDKWirer: the SDK declares ResponseCommon for
// both login_or_signup sends, so a caller holding the public token learns
// nothing about whether the address belongs to a member.
func (r *LoginSendResponse) SDKWire() any { return &httpapi.Common{} }

// Response is the send's answer.
func (s *LoginSend) Response() *LoginSendResponse {
	return &LoginSendResponse{MemberID: s.Member.MemberID, MemberCreated: s.MemberCreated, Member: s.Member,
		Organization: s.Organization}
}
