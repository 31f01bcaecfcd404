package magiclink

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// DefaultInviteExpiryMinutes is an invitation's lifetime: a week, because
// invitations wait in inboxes much longer than login links.
const DefaultInviteExpiryMinutes = 7 * 24 * 60

// purposeInvite marks an invitation's link.
const purposeInvite = "invite"

// InviteParams is an invite request. Inviter is the member the email
// names as inviting (none when nil). Caller is who acts: when it acts for
// a member, re-inviting an existing member changes only what that member
// may change by a member update (organization.Invitation); nil acts with
// the project secret's rights.
type InviteParams struct {
	Project *project.Project
	// ClientIP, when set, also limits sends per client address. The SDK
	// face sets it; the backend face is the customer's server, which may
	// invite a whole company at once and is limited per recipient only.
	ClientIP          string
	OrganizationID    string
	Email             string
	Name              string
	TrustedMetadata   map[string]any
	UntrustedMetadata map[string]any
	RedirectURL       string
	ExpirationMinutes int
	Roles             *[]string
	Inviter           *organization.Member
	Caller            *organization.SessionCaller
	Locale            locale.Tag // the email's language
}

// Invite creates or refreshes an invited member and emails them a link to
// the project's invite redirect URL. Redeeming the link (Authenticate)
// verifies the email, which makes the invited member active.
func (s *Service) Invite(ctx context.Context, p InviteParams) (*organization.Member, *organization.Organization, error) {
	email, err := emailaddr.Normalize(p.Email)
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(p.OrganizationID) == "" {
		return nil, nil, apierr.Invalid("organization_id", "organization_id is required.")
	}
	minutes := DefaultInviteExpiryMinutes
	if p.ExpirationMinutes != 0 {
		if minutes, err = expiryMinutes("invite_expiration_minutes", p.ExpirationMinutes); err != nil {
			return nil, nil, err
		}
	}
	if p.ClientIP != "" {
		if err := s.d.Limiter.Allow(ctx, SendPerIP, p.Project.ID+"|"+p.ClientIP); err != nil {
			return nil, nil, err
		}
	}
	if err := s.d.Limiter.Allow(ctx, SendPerEmail, p.OrganizationID+"|"+email); err != nil {
		return nil, nil, err
	}
	org, err := s.d.Orgs.Get(ctx, p.Project.ID, p.OrganizationID)
	if err != nil {
		return nil, nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	target, err := s.d.Projects.ResolveRedirect(ctx, p.Project.ID, project.RedirectInvite, p.RedirectURL)
	if err != nil {
		return nil, nil, err
	}
	// A re-invite spends the member's earlier links, so it must not be
	// left standing when the new link's email is not sent (the cap of
	// the SDK face, a queue that cannot write): the invitee would hold no
	// working link. The spend goes with the send (notify.SendOnce): in
	// the transaction of a mailer that only writes to the database, so a
	// refusal rolls it back with everything else, or after a send to a
	// server (SMTP), which must not run while the writer is held.
	var member *organization.Member
	var linkID string
	err = notify.SendOnce(ctx, s.d.DB, s.d.Mailer,
		func(q store.Querier) (notify.Email, error) {
			var err error
			member, err = s.d.Orgs.InviteMember(ctx, q, org, p.Project.Env, organization.Invitation{Email: email, Name: p.Name,
				TrustedMetadata: p.TrustedMetadata, UntrustedMetadata: p.UntrustedMetadata, Roles: p.Roles, Caller: p.Caller})
			if err != nil {
				return notify.Email{}, err
			}
			var token string
			if token, linkID, err = s.insert(ctx, q, p.Project, org, member, purposeInvite, "", minutes); err != nil {
				return notify.Email{}, err
			}
			return inviteEmail(p, org, member, target, token, minutes)
		},
		// Unsent, the member stays invited (inviting again resends),
		// with the links they already hold; the unsent one must not
		// stay redeemable.
		func(ctx context.Context) { s.burn(ctx, linkID) },
		// Sent: only now may the earlier links stop working, so the link
		// of the newest invitation is the only one that works, with the
		// lifetime that invitation gave it (an earlier week-long link must
		// not outlive a re-invite that asked for five minutes). Should
		// this fail after an SMTP send, the caller hears it: inviting
		// again spends them. In the transaction, InviteMember holds the
		// member's row by now, so a redemption of an old link (which holds
		// it too) either ended before or finds its link spent.
		func(q store.Querier) error { return s.spendPurpose(ctx, q, member.MemberID, purposeInvite, linkID) })
	if err != nil {
		return nil, nil, err
	}
	return member, org, nil
}

// inviteEmail is the invitation email carrying token's link to target.
func inviteEmail(p InviteParams, org *organization.Organization, member *organization.Member, target, token string,
	minutes int) (notify.Email, error) {
	link, err := withToken(target, token)
	if err != nil {
		return notify.Email{}, err
	}
	data := notify.InviteData{LinkData: notify.LinkData{ProjectID: p.Project.ID, ProjectName: p.Project.Name,
		OrganizationName: org.OrganizationName, URL: link, ExpiresIn: time.Duration(minutes) * time.Minute, Locale: p.Locale}}
	if p.Inviter != nil {
		data.InviterName, data.InviterEmail = p.Inviter.Name, p.Inviter.EmailAddress
	}
	msg, err := notify.MagicLinkInviteEmail(member.EmailAddress, data)
	if err != nil {
		return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
	}
	return msg, nil
}

type inviteRequest struct {
	OrganizationID          string         `json:"organization_id"`
	EmailAddress            string         `json:"email_address"`
	InviteRedirectURL       string         `json:"invite_redirect_url"`
	InvitedByMemberID       string         `json:"invited_by_member_id"`
	Name                    string         `json:"name"`
	TrustedMetadata         map[string]any `json:"trusted_metadata"`
	UntrustedMetadata       map[string]any `json:"untrusted_metadata"`
	InviteTemplateID        string         `json:"invite_template_id"`
	Locale                  string         `json:"locale"`
	InviteExpirationMinutes int            `json:"invite_expiration_minutes"`
	Roles                   *[]string      `json:"roles"`
}

// Unsupported refuses the fields this server cannot honour (httpapi.Decode calls it).
func (req inviteRequest) Unsupported() error {
	return httpapi.RefuseUnsupported(httpapi.Set("invite_template_id", req.InviteTemplateID), httpapi.Locale("locale", req.Locale))
}

// BackendInvite handles POST /v1/b2b/magic_links/email/invite.
func (h Handlers) BackendInvite(r *http.Request) (any, error) {
	var req inviteRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	ctx := r.Context()
	if err := httpapi.Required("organization_id", strings.TrimSpace(req.OrganizationID)); err != nil {
		return nil, err
	}
	c, err := organization.BackendCaller(r, h.Service.d.Orgs, h.Sessions, req.OrganizationID)
	if err != nil {
		return nil, err
	}
	if err := authorizeInvite(ctx, c, req); err != nil {
		return nil, err
	}
	p := c.Project
	// Acting for a member, the invitation is theirs (authorizeInvite
	// refused any other inviter).
	inviter := c.Member
	if c.Member == nil && req.InvitedByMemberID != "" {
		m, err := h.Service.d.Orgs.Member(ctx, h.Service.d.DB.Read(), p.ID, req.InvitedByMemberID)
		if err != nil || m.OrganizationID != req.OrganizationID {
			return nil, apierr.Wrap(apierr.MemberNotFound, err).WithDetails(map[string]any{"field": "invited_by_member_id"})
		}
		inviter = m
	}
	m, o, err := h.Service.Invite(ctx, InviteParams{Project: p, OrganizationID: req.OrganizationID,
		Email: req.EmailAddress, Name: req.Name, TrustedMetadata: req.TrustedMetadata, UntrustedMetadata: req.UntrustedMetadata,
		RedirectURL: req.InviteRedirectURL, ExpirationMinutes: req.InviteExpirationMinutes, Roles: req.Roles,
		Inviter: inviter, Caller: c, Locale: httpapi.LocaleTag(req.Locale)})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// SDKInvite handles SDK POST /b2b/magic_links/email/invite: a logged-in
// admin invites someone to their own organization (the organization comes
// from the session, never from the request). Trusted metadata is the
// customer backend's to write, so the SDK face cannot set it; the inviter
// is always the session's member, so invited_by_member_id is ignored.
func (h Handlers) SDKInvite(r *http.Request) (any, error) {
	var req inviteRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	c, err := organization.CallerFromSession(r, h.Service.d.Orgs, h.Sessions)
	if err != nil {
		return nil, err
	}
	req.TrustedMetadata = nil // written by the customer's backend only
	req.InvitedByMemberID = ""
	if err := authorizeInvite(r.Context(), c, req); err != nil {
		return nil, err
	}
	m, o, err := h.Service.Invite(r.Context(), InviteParams{Project: c.Project, ClientIP: httpapi.ClientIP(r),
		OrganizationID: c.Organization.OrganizationID, Email: req.EmailAddress, Name: req.Name,
		UntrustedMetadata: req.UntrustedMetadata, RedirectURL: req.InviteRedirectURL,
		ExpirationMinutes: req.InviteExpirationMinutes, Roles: req.Roles, Inviter: c.Member, Caller: c,
		Locale: httpapi.LocaleTag(req.Locale)})
	if err != nil {
		return nil, err
	}
	return &organization.MemberResponse{MemberID: m.MemberID, Member: m, Organization: o}, nil
}

// authorizeInvite authorizes an invitation: inviting creates a member, and
// naming their roles assigns roles. Trusted metadata is the customer
// backend's alone, which no member permission covers. Acting for a member,
// the invitation is that member's: the email names its inviter, and
// naming anyone else (an admin, say) would have the customer's own mail
// vouch for an invitation they never sent. What a re-invite may change
// about an existing member is checked where it is found
// (organization.Invitation.Caller).
func authorizeInvite(ctx context.Context, c *organization.SessionCaller, req inviteRequest) error {
	if c.Member != nil && req.TrustedMetadata != nil {
		return apierr.New(apierr.UnauthorizedAction).WithMessage(
			"trusted_metadata cannot be set when acting for a member session; send the call without the member session header.")
	}
	if c.Member != nil && req.InvitedByMemberID != "" && req.InvitedByMemberID != c.Member.MemberID {
		return apierr.New(apierr.UnauthorizedAction).WithMessage(
			"invited_by_member_id must be the acting member's own member_id (or absent) when acting for a member session; " +
				"send the call without the member session header to name another inviter.")
	}
	if err := c.Authorize(ctx, organization.ResourceMember, organization.ActionCreate); err != nil {
		return err
	}
	if req.Roles != nil {
		return c.Authorize(ctx, organization.ResourceMember, organization.ActionRoles)
	}
	return nil
}
