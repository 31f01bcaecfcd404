package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// LoginSend is who a login email (an email code or a magic link) went to:
// the member the address belongs to in the organization, or the one its
// JIT policy created for the send.
type LoginSend struct {
	Member        *Member
	MemberCreated bool
	Organization  *Organization
}

// LoginSendIn finds the member a login email to email goes to, or creates
// one as org's JIT policy admits (MemberForEmailLoginIn), and counts the
// send against the recipient's limit perRecipient, all in the send's
// transaction q.
func (s *Store) LoginSendIn(ctx context.Context, q store.Querier, org *Organization, env ids.Env, email string,
	l *ratelimit.Limiter, perRecipient ratelimit.Rule) (*LoginSend, error) {
	m, created, err := s.MemberForEmailLoginIn(ctx, q, org, env, email)
	if err != nil {
		return nil, err
	}
	if err := l.AllowIn(ctx, q, perRecipient, org.OrganizationID+"|"+m.EmailAddress); err != nil {
		return nil, err
	}
	return &LoginSend{Member: m, MemberCreated: created, Organization: org}, nil
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
