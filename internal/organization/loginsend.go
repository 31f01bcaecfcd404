package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// LoginSend is who a login email (an email code or a magic link) went to:
// the member the address belongs to in the organization, or the one its
// JIT policy created for the send. Member is nil when the address is a
// deleted member's or a retired one and the SDK face sent it a notice
// instead (formerMemberNotice).
type LoginSend struct {
	Member        *Member
	MemberCreated bool
	Organization  *Organization
}

// LoginSendLimits are the two limits of a login_or_signup send: per client
// address (every send from one address) and per recipient.
type LoginSendLimits struct {
	Limiter      *ratelimit.Limiter
	PerAddress   ratelimit.Rule
	PerRecipient ratelimit.Rule
}

// SendLogin is a login_or_signup send (an email code or a magic link) of
// proj to rawEmail in orgID, from clientIP, in loc's language. It finds
// the organization and normalizes the address, and has check validate the
// rest of the request (a refusal of either still counts against the
// client address); then, in the send's one transaction
// (notify.SendCounted), it finds the member the
// email goes to or creates one as the organization's JIT policy admits
// (MemberForEmailLoginIn), counts the recipient's limit, and has build
// write what the email carries and return it. undo spends that when
// delivery fails.
//
// check runs before the member is looked up, and must check every field
// the request names, both the login and the signup ones, and on the SDK
// face every default either half would need: build may use only one half,
// chosen by whether the address is an active member's, and a refusal that
// depended on that would tell the SDK face, whose answer is otherwise the
// same for both (LoginSendResponse.SDKWire), who is one.
func (s *Store) SendLogin(ctx context.Context, m notify.Mailer, l LoginSendLimits, proj *project.Project,
	orgID, rawEmail, clientIP string, loc locale.Tag, check func(ctx context.Context) error,
	build func(q store.Querier, sent *LoginSend) (notify.Email, error),
	undo func(ctx context.Context, sent *LoginSend)) (*LoginSend, error) {
	addressKey := proj.ID + "|" + clientIP
	org, email, err := s.EmailLoginTarget(ctx, proj.ID, orgID, rawEmail)
	if err == nil {
		err = check(ctx)
	}
	if err != nil {
		return nil, l.Limiter.CountRefused(ctx, l.PerAddress, addressKey, err)
	}
	var sent *LoginSend
	err = notify.SendCounted(ctx, s.db, m, notify.AddressLimit{Limiter: l.Limiter, Rule: l.PerAddress, Key: addressKey},
		func(q store.Querier) (notify.Email, error) {
			sent = nil // a retried transaction starts over
			member, created, err := s.MemberForEmailLoginIn(ctx, q, org, proj.Env, email)
			if formerAddress(err) && !project.CallerFrom(ctx).Backend {
				sent = &LoginSend{Organization: org}
				return formerMemberNotice(ctx, q, l, proj, org, email, loc)
			}
			if err != nil {
				return notify.Email{}, err
			}
			if err := l.Limiter.AllowIn(ctx, q, l.PerRecipient, org.OrganizationID+"|"+member.EmailAddress); err != nil {
				return notify.Email{}, err
			}
			sent = &LoginSend{Member: member, MemberCreated: created, Organization: org}
			return build(q, sent)
		},
		func(ctx context.Context) {
			if sent != nil && sent.Member != nil {
				undo(ctx, sent)
			}
		})
	if err != nil {
		return nil, err
	}
	return sent, nil
}

// formerAddress reports whether a login send's member lookup
// (MemberForEmailLoginIn) refused the address for having been a member's:
// a deleted member's (inactive_member), or one a member of the
// organization had before an address change, which stays reserved for
// them (duplicate_member_email, refuseRetired: the lookup's insert skips
// an address a member holds now, so nothing else answers that type).
func formerAddress(err error) bool {
	return apierr.Is(err, apierr.InactiveMember) || apierr.Is(err, apierr.DuplicateMemberEmail)
}

// formerMemberNotice is a send, on the SDK face, to an address that is a
// deleted member of org or another member's retired address
// (formerAddress). No login can follow, but the answer must be the
// one a stranger gets, or any holder of the public token could tell who
// used to be a member: the refusal of org's email JIT policy where it
// admits no such stranger, and otherwise success. The address is then
// sent a notice instead of a code or link, under the limits a real send
// counts (the per-recipient one here, the client address's after it), so
// its owner learns why nothing arrived. The backend face, which holds the
// secret, keeps inactive_member and duplicate_member_email.
func formerMemberNotice(ctx context.Context, q store.Querier, l LoginSendLimits, proj *project.Project, org *Organization,
	email string, loc locale.Tag) (notify.Email, error) {
	if err := org.CheckEmailJIT(email); err != nil {
		return notify.Email{}, err
	}
	if err := l.Limiter.AllowIn(ctx, q, l.PerRecipient, org.OrganizationID+"|"+email); err != nil {
		return notify.Email{}, err
	}
	msg, err := notify.LoginNoAccessEmail(email, notify.NoticeData{ProjectID: proj.ID, ProjectName: proj.Name, Locale: loc})
	if err != nil {
		return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
	}
	return msg, nil
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
// calls it): custom email templates and languages it does not write.
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
	r := &LoginSendResponse{MemberCreated: s.MemberCreated, Member: s.Member, Organization: s.Organization}
	if s.Member != nil {
		r.MemberID = s.Member.MemberID
	}
	return r
}
