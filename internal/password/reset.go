package password

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// StartParams is an email reset start (organization or discovery).
type StartParams struct {
	Project          *project.Project
	ClientIP         string
	OrganizationID   string // empty for discovery
	Email            string
	ResetRedirectURL string
	// LoginRedirectURL (organization) or DiscoveryRedirectURL (discovery)
	// is where the reset email's "log in without password" magic link
	// lands; empty means the project's default, and no link without one.
	LoginRedirectURL     string
	DiscoveryRedirectURL string
	ExpiryMinutes        int
	CodeChallenge        string
	Locale               locale.Tag // the email's language
}

// StartResult names the member a reset email went to, for the backend
// face; the SDK face answers the same empty response in every case.
type StartResult struct {
	Member *organization.Member // nil when the address is not a member
}

// checkStart validates what every reset start needs before it looks at
// membership, so that no error depends on who is a member. challengeField
// names the request's PKCE challenge, as the two starts name it
// differently.
func (s *Service) checkStart(ctx context.Context, a StartParams, emailKey, challengeField string) (email, target string, minutes int, err error) {
	if err = flowtoken.StartChallenge(challengeField, a.CodeChallenge, a.Project.PKCERequiredForPasswordResets); err != nil {
		return "", "", 0, err
	}
	if email, err = emailaddr.Normalize(a.Email); err != nil {
		return "", "", 0, err
	}
	if minutes, err = resetMinutes(a.ExpiryMinutes); err != nil {
		return "", "", 0, err
	}
	if err = s.d.Limiter.Allow(ctx, ResetSendPerIP, a.Project.ID+"|"+a.ClientIP); err != nil {
		return "", "", 0, err
	}
	if err = s.d.Limiter.Allow(ctx, ResetSendPerEmail, a.Project.ID+"|"+emailKey+"|"+email); err != nil {
		return "", "", 0, err
	}
	target, err = s.d.Projects.ResolveRedirect(ctx, a.Project.ID, project.RedirectResetPassword, a.ResetRedirectURL)
	return email, target, minutes, err
}

// loginTarget resolves where a reset email's "log in without password"
// link lands, as the API family does: a requested URL must be registered
// for its type (no_match_for_provided_magic_link_url otherwise); none requested
// means the project's default. A project with no such URL gets no link,
// rather than the API family's error, so resets keep working there.
func (s *Service) loginTarget(ctx context.Context, p *project.Project, t project.RedirectType, requested string) (string, error) {
	target, err := s.d.Projects.ResolveRedirect(ctx, p.ID, t, requested)
	if err != nil && requested == "" && apierr.Is(err, project.NoRedirectURLs(t)) {
		return "", nil
	}
	return target, err
}

// StartEmailReset handles b2b/passwords/email/reset/start. What is sent
// depends on the address; the response does not:
//   - a member with a password gets a reset link (multi_tenant_passwords);
//   - a member without one, or a stranger the organization's JIT policy
//     admits (who becomes a pending member, as with a magic-link signup),
//     gets a magic link that verifies the address and lands on the reset
//     form, where the fresh session sets the password;
//   - anyone else gets a notice that the address cannot sign in there.
//
// Nor does the work: after the send limits, every case is one write
// transaction (notify.SendOnce) that finds the member, stores what the
// email carries and queues it (resetSend.build), so a member with a
// password no longer costs three transactions where a refused stranger
// cost one, which the public token's holder could time.
func (s *Service) StartEmailReset(ctx context.Context, a StartParams) (*StartResult, error) {
	if strings.TrimSpace(a.OrganizationID) == "" {
		return nil, apierr.Invalid("organization_id", "organization_id is required.")
	}
	org, err := s.d.Orgs.Get(ctx, a.Project.ID, a.OrganizationID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	email, target, minutes, err := s.checkStart(ctx, a, org.OrganizationID, "code_challenge")
	if err != nil {
		return nil, err
	}
	loginTarget, err := s.loginTarget(ctx, a.Project, project.RedirectLogin, a.LoginRedirectURL)
	if err != nil {
		return nil, err
	}
	r := &resetSend{s: s, a: a, org: org, email: email, target: target, loginTarget: loginTarget, minutes: minutes}
	err = notify.SendOnce(ctx, s.d.DB, s.d.Mailer, func(q store.Querier) (notify.Email, error) { return r.build(ctx, q) },
		r.undo, nil)
	if err != nil {
		return nil, err
	}
	return &StartResult{Member: r.member}, nil
}

// resetSend is one organization reset start, checked; build writes, in
// the send's transaction, what its email carries.
type resetSend struct {
	s                          *Service
	a                          StartParams
	org                        *organization.Organization
	email, target, loginTarget string
	minutes                    int

	// Written by build.
	member          *organization.Member // nil for a notice
	resetID, linkID string               // stored tokens, for undo
}

// build finds the address's member inside q and returns the email for
// them: a reset link (and a login link) for a member with a password, a
// verifying magic link for a member without one or a stranger the
// organization admits (a new pending member), a notice for anyone else.
func (r *resetSend) build(ctx context.Context, q store.Querier) (notify.Email, error) {
	r.member, r.resetID, r.linkID = nil, "", "" // a retried transaction starts over
	s, a, org := r.s, r.a, r.org
	data := notify.LinkData{ProjectID: a.Project.ID, ProjectName: a.Project.Name, OrganizationName: org.OrganizationName,
		ExpiresIn: time.Duration(r.minutes) * time.Minute, Locale: a.Locale}
	member, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, r.email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return notify.Email{}, err
	}
	if err == nil && usable(member) {
		if _, err := s.credential(ctx, q, a.Project.ID, r.email); err == nil {
			return r.resetEmail(ctx, q, member, data)
		} else if !errors.Is(err, store.ErrNotFound) {
			return notify.Email{}, err
		}
	}

	// No password: verify the address with a magic link, creating a pending
	// member when the organization lets this address join.
	member, _, err = s.d.Orgs.MemberForEmailLoginIn(ctx, q, org, a.Project.Env, r.email)
	switch {
	case apierr.Is(err, apierr.OrganizationNotFound):
		// Deleted since it was read (the new member's insert found no
		// parent, which on PostgreSQL also ends q): answered as a request
		// a moment later is.
		return notify.Email{}, err
	case errors.As(err, new(*apierr.Error)):
		msg, err := notify.PasswordNoAccountEmail(r.email, notify.NoticeData{ProjectID: a.Project.ID, ProjectName: a.Project.Name,
			Locale: a.Locale})
		if err != nil {
			return notify.Email{}, notify.DeliveryError(err)
		}
		return msg, nil
	case err != nil:
		return notify.Email{}, err
	}
	token, id, err := s.d.MagicLinks.Issue(ctx, q, a.Project, org, member, a.CodeChallenge, r.minutes)
	if err != nil {
		return notify.Email{}, err
	}
	r.linkID = id
	if data.URL, err = resetLink(r.target, TokenTypeMagicLink, token); err != nil {
		return notify.Email{}, err
	}
	r.member = member
	return buildMail(r.email, data, notify.PasswordSetEmail)
}

// resetEmail stores, inside q, a reset token for member (who has a
// password) and, when the project has a login URL, a "log in without
// password" link, and returns the email carrying them.
func (r *resetSend) resetEmail(ctx context.Context, q store.Querier, member *organization.Member, data notify.LinkData) (
	notify.Email, error) {
	s, a := r.s, r.a
	token, id, err := s.issueReset(ctx, q, a.Project, r.org.OrganizationID, member.MemberID, r.email, a.CodeChallenge, r.minutes)
	if err != nil {
		return notify.Email{}, err
	}
	r.resetID = id
	if data.URL, err = resetLink(r.target, TokenTypeReset, token); err != nil {
		return notify.Email{}, err
	}
	if r.loginTarget != "" {
		lt, lid, err := s.d.MagicLinks.Issue(ctx, q, a.Project, r.org, member, a.CodeChallenge, r.minutes)
		if err != nil {
			return notify.Email{}, err
		}
		r.linkID = lid
		if data.LoginURL, err = magiclink.Link(r.loginTarget, lt); err != nil {
			return notify.Email{}, err
		}
	}
	r.member = member
	return buildMail(r.email, data, notify.PasswordResetEmail)
}

// undo spends what build stored when a mailer that talks to a server
// failed after the commit: no live token nobody received.
func (r *resetSend) undo(ctx context.Context) {
	if r.resetID != "" {
		r.s.burnReset(ctx, r.resetID)
	}
	if r.linkID != "" {
		r.s.d.MagicLinks.Burn(ctx, r.linkID)
	}
}

// buildMail builds an email, answering a failure as a delivery's.
func buildMail(to string, d notify.LinkData, build func(string, notify.LinkData) (notify.Email, error)) (notify.Email, error) {
	msg, err := build(to, d)
	if err != nil {
		return notify.Email{}, notify.DeliveryError(err)
	}
	return msg, nil
}

// ResetParams is a reset by token (email or discovery).
type ResetParams struct {
	Project         *project.Project
	ClientIP        string
	Token           string
	Password        string
	CodeVerifier    string
	DurationMinutes *int
	// IntermediateSessionToken, on an organization reset, carries the
	// factors of an IST the client sent along (see AuthParams).
	IntermediateSessionToken string
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// prepareReset runs the checks of a token reset that spend nothing: the
// rate limit, the token and its PKCE binding, and the new password's
// strength. A weak password leaves the link usable for a better one.
func (s *Service) prepareReset(ctx context.Context, a ResetParams, discovery bool) (*resetToken, string, error) {
	attempt, err := s.d.Limiter.Reserve(ctx, ratelimit.For(ResetRedeemPerIP, a.Project.ID+"|"+a.ClientIP))
	if err != nil {
		return nil, "", err
	}
	t, err := s.lookupReset(ctx, a.Project, a.Token, a.CodeVerifier, discovery)
	if err = attempt.Settle(ctx, err, ratelimit.LinkFailure); err != nil {
		return nil, "", err
	}
	if err := s.requireStrong(ctx, a.Project, "password", a.Password, t.Email); err != nil {
		return nil, "", err
	}
	hash, err := pwhash.Hash(ctx, a.Password, s.d.Hashing)
	if err != nil {
		return nil, "", err
	}
	return t, hash, nil
}

// changePassword stores a new hash for the address inside q and ends what
// the old password could still do (endOldPassword).
func (s *Service) changePassword(ctx context.Context, q store.Querier, p *project.Project, email, hash, keep string) error {
	if err := s.setHash(ctx, q, p, email, hash); err != nil {
		return err
	}
	return s.endOldPassword(ctx, q, p, email, keep)
}

// endOldPassword ends, inside q, what the address's previous password could
// still do once a new one is stored: other reset links, other sessions of
// the address's members (keep names a session to spare, "" for none) and
// the address's logins in progress (ISTs, see session.EndForEmail).
func (s *Service) endOldPassword(ctx context.Context, q store.Querier, p *project.Project, email, keep string) error {
	if err := s.retireResets(ctx, q, p.ID, email); err != nil {
		return err
	}
	// Whoever sets the password proved the address (inbox link, fresh
	// session or the old password): the address's password lockouts end.
	// Its MFA lockout (about the same address) runs its course: a guesser
	// of codes already holds the password, and changing it must not buy
	// them a fresh budget of guesses.
	if err := s.d.Limiter.Unlock(ctx, q, EmailIPLockout, ratelimit.EmailSubject(p.ID, email)); err != nil {
		return err
	}
	return s.d.Sessions.EndForEmail(ctx, q, p.ID, email, keep)
}

// spender runs the transaction that spends a reset token (store.DB.Tx).
// It is the database but in the tests that let another redemption of the
// same token in between lookupReset's read and consumeReset's write: that
// gap lasts the new password's hash, and concurrent requests rarely meet
// in it because the limiter's reservation orders them.
type spender interface {
	Tx(ctx context.Context, fn func(q store.Querier) error) error
}

// ResetByEmail handles b2b/passwords/email/reset: it spends the token, sets
// the password and logs the member in.
func (s *Service) ResetByEmail(ctx context.Context, a ResetParams) (*session.AuthResponse, error) {
	return s.resetByEmail(ctx, s.d.DB, a)
}

// resetByEmail is ResetByEmail with its spend's transaction run by db.
func (s *Service) resetByEmail(ctx context.Context, db spender, a ResetParams) (*session.AuthResponse, error) {
	duration, err := session.DurationMinutes(ctx, a.Project, a.DurationMinutes)
	if err != nil {
		return nil, err
	}
	t, hash, err := s.prepareReset(ctx, a, false)
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = db.Tx(ctx, func(q store.Querier) error {
		// The member's row is held before the token's is spent
		// (organization.Store.HoldMemberToSpend): an address change
		// updates the member's row and then spends their reset tokens
		// (ReleaseAddress), so the opposite order could deadlock with one.
		if err := s.d.Orgs.HoldMemberToSpend(ctx, q, t.MemberID); err != nil {
			return err
		}
		if err := s.consumeReset(ctx, q, t.ID); err != nil {
			return err
		}
		member, err := s.d.Orgs.Member(ctx, q, a.Project.ID, t.MemberID)
		if err != nil || !usable(member) || member.EmailAddress != t.Email {
			// The member was deleted or changed address since the email.
			return apierr.Wrap(apierr.UnableToAuthMagicLink, err)
		}
		org, err := s.d.Orgs.Get(ctx, a.Project.ID, t.OrganizationID)
		if err != nil {
			return apierr.Wrap(apierr.UnableToAuthMagicLink, err)
		}
		// The client's IST is the reset's own login in progress: its
		// factors carry, so they are read (and it spent) before the
		// change spends the address's other ISTs.
		prior, err := s.d.Sessions.PriorFactors(ctx, q, a.Project, a.IntermediateSessionToken, org.OrganizationID,
			member.MemberID, member.EmailAddress)
		if err != nil {
			return err
		}
		if err := s.changePassword(ctx, q, a.Project, t.Email, hash, ""); err != nil {
			return err
		}
		if member, err = s.d.Orgs.Member(ctx, q, a.Project.ID, member.MemberID); err != nil {
			return err
		}
		ended, err := s.activate(ctx, q, member)
		if err != nil {
			return err
		}
		resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: a.Project, Organization: org, Member: member,
			DurationMinutes: duration, MethodID: member.EmailID, Prior: prior, Factor: passwordFactor(member, "email"),
			CustomClaims: a.CustomClaims, SessionsEnded: ended})
		return err
	})
	if err != nil {
		return nil, wrap("reset by email", err)
	}
	return resp, nil
}
