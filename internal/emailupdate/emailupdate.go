// Package emailupdate implements start_email_update: a member's email
// address changes only once its owner proves the new one. Starting sends a
// single-use magic link (to a registered login redirect URL, token type
// multi_tenant_magic_links, purpose email_update) or a 6-digit code to the
// NEW address. Redeeming it through the ordinary magic_links/authenticate
// or otps/email/authenticate (with the new address) changes the member's
// address, retires the old one and ends the member's other sessions
// (session.CompleteEmailChange); nothing changes before that.
//
// Security: the secrets are the magic-link and email-code ones (hashed,
// single use, codes locked after repeated misses), and live five minutes
// (Lifetime); a member has at most one update in flight, starting another
// cancels the previous link or code; an address has at most one member's
// update in flight, another member's start is refused while it lives
// (and should two racing starts both pass, their updates stay apart: a
// link or code completes only the update it was issued for); sends are
// rate-limited per member, per new address and, from browsers, per client
// address. The new address must not belong to another member of the
// organization (duplicate_member_email), current or retired, and must be
// of an allowed domain where the organization restricts email JIT or
// invites to its domains.
package emailupdate

import (
	"context"
	"errors"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// Delivery methods of start_email_update.
const (
	DeliveryMagicLink = "EMAIL_MAGIC_LINK"
	DeliveryOTP       = "EMAIL_OTP"
)

// Lifetime is how long an email update's link or code works: the five
// minutes the API family documents for start_email_update, much shorter
// than a login link's hour, since an update in flight is a pending claim
// on an address that no other member of the organization may start one
// to (Start).
const Lifetime = 5 * time.Minute

// Rate limits for starting email updates: per member (the one changing
// address), per new address within the project, and per client address.
var (
	SendPerMember = ratelimit.Rule{Name: "email_update_member", Limit: 5, Window: 10 * time.Minute}
	SendPerEmail  = ratelimit.Rule{Name: "email_update_email", Limit: 5, Window: 10 * time.Minute}
	SendPerIP     = ratelimit.Rule{Name: "email_update_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
)

// Deps are the collaborators of the email-update service.
type Deps struct {
	DB         *store.DB
	Projects   *project.Store
	Orgs       *organization.Store
	MagicLinks *magiclink.Service
	EmailOTP   *emailotp.Service
	Mailer     notify.Mailer
	Limiter    *ratelimit.Limiter
}

// Service starts email updates.
type Service struct{ d Deps }

// New returns an email-update service.
func New(d Deps) *Service { return &Service{d: d} }

// StartParams is a start_email_update request for member MemberID of
// Organization, already authorized by the caller.
type StartParams struct {
	Project *project.Project
	// ClientIP, when set (SDK face), also limits sends per client address.
	ClientIP       string
	Organization   *organization.Organization
	MemberID       string
	Email          string
	RedirectURL    string
	DeliveryMethod string
	// Caller is the member of the session the request came with (nil
	// with the project secret alone), as that session was checked.
	Caller *organization.Member
	Locale locale.Tag // the email's language
}

// DeliveryMethod validates a requested delivery method ("" is the link).
func DeliveryMethod(requested string) (string, error) {
	switch requested {
	case "", DeliveryMagicLink:
		return DeliveryMagicLink, nil
	case DeliveryOTP:
		return DeliveryOTP, nil
	}
	return "", apierr.Invalid("delivery_method", "delivery_method must be EMAIL_MAGIC_LINK or EMAIL_OTP.")
}

// Start checks the new address and emails it a link or code. It returns
// the member, still with the old address.
func (s *Service) Start(ctx context.Context, p StartParams) (*organization.Member, error) {
	method, err := DeliveryMethod(p.DeliveryMethod)
	if err != nil {
		return nil, err
	}
	email, err := emailaddr.Normalize(p.Email)
	if err != nil {
		return nil, err
	}
	org := p.Organization
	var target string
	if method == DeliveryMagicLink {
		if target, err = s.d.Projects.ResolveRedirect(ctx, p.Project.ID, project.RedirectLogin, p.RedirectURL); err != nil {
			return nil, err
		}
	}
	// The limits count before the address is checked, so a refused start
	// uses up the allowance too: otherwise duplicate_member_email would
	// tell any member, without limit, which addresses are other members'
	// (and, once a limit ran out, still tell them apart from
	// too_many_requests).
	if p.ClientIP != "" {
		if err := s.d.Limiter.Allow(ctx, SendPerIP, p.Project.ID+"|"+p.ClientIP); err != nil {
			return nil, err
		}
	}
	if err := s.d.Limiter.Allow(ctx, SendPerMember, p.Project.ID+"|"+p.MemberID); err != nil {
		return nil, err
	}
	// Per project and address, as discovery's and password resets' sends
	// count: keyed per organization, anyone able to create organizations
	// got a fresh allowance to mail one address from each of them.
	if err := s.d.Limiter.Allow(ctx, SendPerEmail, p.Project.ID+"|"+email); err != nil {
		return nil, err
	}
	var m *organization.Member
	var secret string
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		if err := s.hold(ctx, q, p); err != nil {
			return err
		}
		var err error
		if m, err = s.check(ctx, q, org, p.MemberID, email); err != nil {
			return err
		}
		if err := s.cancel(ctx, q, m.MemberID); err != nil {
			return err
		}
		if method == DeliveryOTP {
			secret, err = s.d.EmailOTP.IssueEmailUpdate(ctx, q, p.Project, org, m, email, Lifetime)
		} else {
			secret, _, err = s.d.MagicLinks.IssueEmailUpdate(ctx, q, p.Project, org, m, email, int(Lifetime/time.Minute))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.deliver(ctx, p.Project, org, method, email, target, secret, p.Locale); err != nil {
		// A secret nobody received must not stay redeemable. Best effort:
		// if this fails too, the secret still expires on its own.
		_ = s.d.DB.Tx(ctx, func(q store.Querier) error { return s.cancel(ctx, q, m.MemberID) })
		return nil, notify.DeliveryError(err)
	}
	return m, nil
}

// hold locks the member's row inside q until the secret commits
// (organization.LockMember): an admin's address change, which cancels the
// member's update in flight (organization.AddressHolder), then either
// waits and cancels this one too, or is seen here. A member changing their
// own address must still be at the one their session was checked with:
// the change ended that session, and its holder must not be left a secret
// that moves the member away from the address the admin set.
func (s *Service) hold(ctx context.Context, q store.Querier, p StartParams) error {
	email, _, err := s.d.Orgs.LockMember(ctx, q, p.Project.ID, p.MemberID)
	if errors.Is(err, store.ErrNotFound) {
		return nil // check answers member_not_found
	}
	if err != nil {
		return err
	}
	if p.Caller != nil && p.Caller.MemberID == p.MemberID && p.Caller.EmailAddress != email {
		return apierr.New(apierr.MemberNotFound).WithMessage(
			"The member's email address changed while this request was in progress.")
	}
	return nil
}

// check loads the member through q and decides whether it may change to
// email: active members whose current address is verified only (as the
// API family documents the self-serve update), organization.CheckNewEmail,
// and no other member's update to email in flight. The update moves a
// proven address to a new one; a member who never proved the address
// they have is changed by an admin's update instead.
func (s *Service) check(ctx context.Context, q store.Querier, org *organization.Organization, memberID, email string) (*organization.Member, error) {
	m, err := s.d.Orgs.OrgMember(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	if m.Status != organization.StatusActive {
		return nil, apierr.New(apierr.EmailUpdatesOnlyForActiveMembers)
	}
	if !m.EmailAddressVerified {
		return nil, apierr.New(apierr.MemberHasNoVerifiedEmail)
	}
	if err := s.d.Orgs.CheckNewEmail(ctx, q, org, m, email); err != nil {
		return nil, err
	}
	return m, s.refuseClaimed(ctx, q, org, m.MemberID, email)
}

// refuseClaimed refuses an update to email while another member of org
// has one in flight (a live link or code): the API family lets only one
// member update to an address at a time. The address is as good as
// taken for those minutes (Lifetime), so the refusal is the taken
// address's, duplicate_member_email; the limits counted before it (Start)
// keep it from telling anyone, without limit, which addresses others are
// moving to. The member's own update to email is no obstacle: starting
// again replaces it.
//
// It is checked, like CheckNewEmail, inside the start's transaction. Two
// starts racing on PostgreSQL can both pass; the secrets then stay apart
// (each completes only its own member's update, emailotp's
// authenticateEmailUpdate), and the address's unique index lets only one
// change complete.
func (s *Service) refuseClaimed(ctx context.Context, q store.Querier, org *organization.Organization, memberID, email string) error {
	for _, pending := range []func(context.Context, store.Querier, string, string, string, string) (bool, error){
		s.d.MagicLinks.EmailUpdatePending, s.d.EmailOTP.EmailUpdatePending} {
		found, err := pending(ctx, q, org.ProjectID(), org.OrganizationID, email, memberID)
		if err != nil {
			return err
		}
		if found {
			return apierr.New(apierr.DuplicateMemberEmail).WithMessage(
				"Another member of the organization is updating their email address to this one; try again once that update completes or expires.")
		}
	}
	return nil
}

// cancel ends the member's email update in flight, whichever its kind.
func (s *Service) cancel(ctx context.Context, q store.Querier, memberID string) error {
	if err := s.d.MagicLinks.CancelEmailUpdates(ctx, q, memberID); err != nil {
		return err
	}
	return s.d.EmailOTP.CancelEmailUpdates(ctx, q, memberID)
}

func (s *Service) deliver(ctx context.Context, p *project.Project, org *organization.Organization, method, to, target, secret string,
	loc locale.Tag) error {
	var msg notify.Email
	var err error
	if method == DeliveryOTP {
		msg, err = notify.EmailUpdateCodeEmail(to, notify.CodeData{ProjectID: p.ID, ProjectName: p.Name, OrganizationName: org.OrganizationName,
			Code: secret, ExpiresIn: Lifetime, Locale: loc})
	} else {
		var link string
		if link, err = magiclink.EmailUpdateLink(target, secret); err != nil {
			return err
		}
		msg, err = notify.EmailUpdateLinkEmail(to, notify.LinkData{ProjectID: p.ID, ProjectName: p.Name, OrganizationName: org.OrganizationName,
			URL: link, ExpiresIn: Lifetime, Locale: loc})
	}
	if err != nil {
		return err
	}
	return s.d.Mailer.Send(ctx, msg)
}
