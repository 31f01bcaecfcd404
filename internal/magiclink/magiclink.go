// Package magiclink implements email magic links for organization login:
// login_or_signup sends a single-use link to the organization's login or
// signup redirect URL, and authenticate redeems it for a session.
//
// Security: tokens are 256-bit random, stored as SHA-256 hashes, expire,
// and are redeemed by one conditional UPDATE so two concurrent clicks cannot
// both win. With PKCE, the link is useless without the verifier held by the
// browser that asked for it.
package magiclink

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// TokenType is the stytch_token_type the link carries.
const TokenType = "multi_tenant_magic_links"

// Expiry bounds, in minutes.
const (
	DefaultExpiryMinutes = 60
	MinExpiryMinutes     = 5
	MaxExpiryMinutes     = 10080
)

// Rate limits: sends per recipient and per client address, and redeem
// attempts per client address (redeeming guesses tokens).
var (
	SendPerEmail = ratelimit.Rule{Name: "ml_send_email", Limit: 5, Window: 10 * time.Minute}
	SendPerIP    = ratelimit.Rule{Name: "ml_send_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
	RedeemPerIP  = ratelimit.Rule{Name: "ml_redeem_ip", Limit: 60, Window: 10 * time.Minute, OnSuccess: ratelimit.Release, PerClientAddress: true}
)

// Deps are the collaborators of the magic-link service.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Projects *project.Store
	Orgs     *organization.Store
	Sessions *session.Service
	Mailer   notify.Mailer
	Limiter  *ratelimit.Limiter
}

// Service sends and redeems magic links.
type Service struct{ d Deps }

// New returns a magic-link service.
func New(d Deps) *Service { return &Service{d: d} }

// SendParams is a login_or_signup request.
type SendParams struct {
	Project           *project.Project
	ClientIP          string
	Email             string
	OrganizationID    string
	LoginRedirectURL  string
	SignupRedirectURL string
	LoginExpiration   int
	SignupExpiration  int
	PKCECodeChallenge string
	Locale            locale.Tag // the email's language
}

// LoginOrSignup emails a login link to a member, or a signup link to a new
// member the organization's JIT policy admits.
//
// The send is one short transaction, as with email codes: the member
// (found or created), the per-member limit, the link, its queued email
// and, last, the per-address limit are written together or not at all (a refused send
// leaves no member, no link and no mail), and SMTP happens later, off the
// request path (notify.Queue). The challenge is required as
// project.EmailMagicLinkPKCERequired says for the caller in ctx.
func (s *Service) LoginOrSignup(ctx context.Context, p SendParams) (*organization.LoginSend, error) {
	if err := flowtoken.StartChallenge("pkce_code_challenge", p.PKCECodeChallenge,
		project.EmailMagicLinkPKCERequired(ctx, p.Project)); err != nil {
		return nil, err
	}
	var login, signup sendHalf
	var linkID string
	return s.d.Orgs.SendLogin(ctx, s.d.Mailer, organization.LoginSendLimits{Limiter: s.d.Limiter, PerAddress: SendPerIP,
		PerRecipient: SendPerEmail}, p.Project, p.OrganizationID, p.Email, p.ClientIP, p.Locale,
		// Both halves, whichever the member's status picks. On the SDK
		// face both need a URL (named or default) before the member is
		// looked up: a project with login URLs only would otherwise send
		// its active members links and refuse everyone else, telling any
		// holder of the public token who is a member. The backend face
		// holds the secret and may ask who is; it needs a default only
		// for the half it uses.
		func(ctx context.Context) (err error) {
			both := !project.CallerFrom(ctx).Backend
			if login, err = s.checkHalf(ctx, p.Project.ID, project.RedirectLogin, p.LoginRedirectURL,
				"login_expiration_minutes", p.LoginExpiration, both); err != nil {
				return err
			}
			signup, err = s.checkHalf(ctx, p.Project.ID, project.RedirectSignup, p.SignupRedirectURL,
				"signup_expiration_minutes", p.SignupExpiration, both)
			return err
		},
		func(q store.Querier, sent *organization.LoginSend) (notify.Email, error) {
			member, org := sent.Member, sent.Organization
			purpose, half := "login", login
			if member.Status != organization.StatusActive {
				purpose, half = "signup", signup
			}
			target, err := s.target(ctx, p.Project.ID, half)
			if err != nil {
				return notify.Email{}, err
			}
			token, id, err := s.insert(ctx, q, p.Project, org, member, purpose, p.PKCECodeChallenge, half.minutes)
			if err != nil {
				return notify.Email{}, err
			}
			linkID = id
			link, err := withToken(target, token)
			if err != nil {
				return notify.Email{}, err
			}
			build := notify.MagicLinkLoginEmail
			if purpose == "signup" {
				build = notify.MagicLinkSignupEmail
			}
			msg, err := build(member.EmailAddress, notify.LinkData{ProjectID: p.Project.ID, ProjectName: p.Project.Name, OrganizationName: org.OrganizationName,
				URL: link, ExpiresIn: time.Duration(half.minutes) * time.Minute, Locale: p.Locale})
			if err != nil {
				return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
			}
			return msg, nil
		},
		// A link nobody received must not stay redeemable.
		func(ctx context.Context, _ *organization.LoginSend) { s.burn(ctx, linkID) })
}

// sendHalf is the login or the signup half of a login_or_signup request,
// checked: the link's lifetime and the redirect URL the request named
// (empty when it named none).
type sendHalf struct {
	redirect project.RedirectType
	url      string
	minutes  int
}

// checkHalf checks one half of a send: the lifetime (reported as field)
// and, when the request names one or withDefault is set, the redirect URL
// of type t (the default when none is named). Without withDefault a
// default URL is left to target, for the half the send uses: a project
// with no signup URL still sends its members login links (backend face).
func (s *Service) checkHalf(ctx context.Context, projectID string, t project.RedirectType, requested, field string,
	minutes int, withDefault bool) (sendHalf, error) {
	h := sendHalf{redirect: t}
	var err error
	if h.minutes, err = expiryMinutes(field, minutes); err != nil {
		return sendHalf{}, err
	}
	if requested != "" || withDefault {
		if h.url, err = s.d.Projects.ResolveRedirect(ctx, projectID, t, requested); err != nil {
			return sendHalf{}, err
		}
	}
	return h, nil
}

// target is where a link of h lands: the URL it named, or its type's
// default.
func (s *Service) target(ctx context.Context, projectID string, h sendHalf) (string, error) {
	if h.url != "" {
		return h.url, nil
	}
	return s.d.Projects.ResolveRedirect(ctx, projectID, h.redirect, "")
}

// expiryMinutes validates a requested link lifetime in minutes (0: the
// default), reporting a bad one as field.
func expiryMinutes(field string, requested int) (int, error) {
	if requested == 0 {
		return DefaultExpiryMinutes, nil
	}
	if requested < MinExpiryMinutes || requested > MaxExpiryMinutes {
		return 0, apierr.Invalid(field,
			fmt.Sprintf("Expiration must be between %d and %d minutes.", MinExpiryMinutes, MaxExpiryMinutes))
	}
	return requested, nil
}

func (s *Service) insert(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization, m *organization.Member,
	purpose, challenge string, minutes int) (token, id string, err error) {
	token, id = ids.Token(), ids.New("magic-link", p.Env)
	now := s.d.Clock.Now()
	// The link is sent to m's address and proves only that one: it
	// records it, and Authenticate refuses it once the member's address is
	// another.
	_, err = q.ExecContext(ctx, `INSERT INTO magic_links (magic_link_id, project_id, organization_id, member_id, token_hash,
		purpose, pkce_code_challenge, email_address, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
		id, p.ID, org.OrganizationID, m.MemberID, ids.Hash(token), purpose, challenge, m.EmailAddress,
		store.Millis(now), store.Millis(now.Add(time.Duration(minutes)*time.Minute)))
	if err != nil {
		return "", "", fmt.Errorf("magiclink: insert: %w", err)
	}
	return token, id, nil
}

func (s *Service) burn(ctx context.Context, id string) {
	// Best effort: if this fails too the link still expires on its own.
	_, _ = s.d.DB.ExecContext(ctx, `UPDATE magic_links SET used_at = $1 WHERE magic_link_id = $2 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), id)
}

// ReleaseAddress spends, inside q, every live link of a member whose
// address changed or who was reactivated after a deletion
// (organization.AddressHolder): login, signup and invite links were sent
// to an address the member no longer has, or before the deletion, and an
// email update in flight was asked for by whoever held the address.
func (s *Service) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	_, err := q.ExecContext(ctx, `UPDATE magic_links SET used_at = $1 WHERE member_id = $2 AND project_id = $3 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), r.MemberID, r.ProjectID)
	if err != nil {
		return fmt.Errorf("magiclink: spend links of %s: %w", r.MemberID, err)
	}
	return nil
}

// withToken appends the token parameters to a registered redirect URL,
// keeping its own query.
// Link is the emailed URL of a login link issued by Issue: target (a
// resolved login redirect URL) with the token parameters.
func Link(target, token string) (string, error) { return withToken(target, token) }

func withToken(target, token string) (string, error) {
	link, err := flowtoken.TokenLink(target, TokenType, token, nil)
	if err != nil {
		return "", fmt.Errorf("magiclink: redirect url: %w", err)
	}
	return link, nil
}

// AuthParams is an authenticate request.
type AuthParams struct {
	Project          *project.Project
	ClientIP         string
	Token            string
	DurationMinutes  *int
	PKCECodeVerifier string
	// IntermediateSessionToken carries factors proven earlier (after
	// primary_required, the allowed method completes the login).
	IntermediateSessionToken string
	// Session is the session the caller holds, if any: the link's factor
	// joins it (session.Held).
	Session session.Held
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// Authenticate redeems a magic-link token for a session. Redeeming an
// email-update link also changes the member's address and ends their other
// sessions (reset_sessions); so does a login link whose first proof of the
// address ends access that came in without one (session.AuthResponse.SessionsReset).
func (s *Service) Authenticate(ctx context.Context, p AuthParams) (*AuthResponse, error) {
	if p.Token == "" {
		return nil, apierr.Invalid("magic_links_token", "magic_links_token is required.")
	}
	duration, err := session.DurationMinutes(ctx, p.Project, p.DurationMinutes)
	if err != nil {
		return nil, err
	}
	from, err := s.d.Sessions.Held(ctx, p.Project, p.Session)
	if err != nil {
		return nil, err
	}
	attempt, err := s.d.Limiter.Reserve(ctx, ratelimit.For(RedeemPerIP, p.Project.ID+"|"+p.ClientIP))
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	var reset bool
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		l, err := s.redeem(ctx, q, p)
		if err != nil {
			return err
		}
		reset = l.purpose == PurposeEmailUpdate
		resp, err = s.complete(ctx, q, p, l, duration, from)
		return err
	})
	if err = attempt.Settle(ctx, err, ratelimit.LinkFailure); err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("magiclink: authenticate: %w", err)
	}
	return &AuthResponse{AuthResponse: resp, ResetSessions: reset || resp.SessionsReset()}, nil
}

// redeemed is a link spent by redeem, for complete.
type redeemed struct {
	orgID, memberID, purpose, sentTo string
}

// redeem spends the link of p.Token inside q. The link is read unlocked,
// its member's row held (organization.Store.HoldMemberToSpend) and only
// then the link spent, by a conditional UPDATE that keeps it single use.
func (s *Service) redeem(ctx context.Context, q store.Querier, p AuthParams) (*redeemed, error) {
	now := s.d.Clock.Now()
	var l redeemed
	var id, challenge string
	var expires int64
	var used *int64
	err := q.QueryRowContext(ctx, `SELECT magic_link_id, organization_id, member_id, pkce_code_challenge, expires_at, used_at,
		purpose, email_address FROM magic_links WHERE token_hash = $1 AND project_id = $2`, ids.Hash(p.Token), p.Project.ID).
		Scan(&id, &l.orgID, &l.memberID, &challenge, &expires, &used, &l.purpose, &l.sentTo)
	if err != nil {
		return nil, apierr.Wrap(apierr.UnableToAuthMagicLink, store.MapError(err))
	}
	if used != nil || !now.Before(store.Time(expires)) {
		return nil, apierr.New(apierr.UnableToAuthMagicLink)
	}
	// PKCE is checked before the token is spent, so someone who
	// intercepted the link cannot burn it for the real user either.
	if err := flowtoken.CheckPKCE(challenge, p.PKCECodeVerifier, "link"); err != nil {
		return nil, err
	}
	if err := s.d.Orgs.HoldMemberToSpend(ctx, q, l.memberID); err != nil {
		return nil, err
	}
	if err := s.spend(ctx, q, id); err != nil {
		return nil, err
	}
	return &l, nil
}

// spend spends the link id inside q, unless it was spent or has expired
// since it was read: redeem may have waited for the member's row in
// between, so the expiry is checked again, at the clock's time of the
// spend, by the spend itself.
func (s *Service) spend(ctx context.Context, q store.Querier, id string) error {
	res, err := q.ExecContext(ctx, `UPDATE magic_links SET used_at = $1 WHERE magic_link_id = $2 AND used_at IS NULL
		AND expires_at > $1`, store.Millis(s.d.Clock.Now()), id)
	if err != nil {
		return fmt.Errorf("magiclink: redeem: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return apierr.New(apierr.UnableToAuthMagicLink)
	}
	return nil
}

// complete logs in, inside q, the member of the link l that redeem spent;
// an email-update link changes the member's address first.
func (s *Service) complete(ctx context.Context, q store.Querier, p AuthParams, l *redeemed, duration int,
	from *session.SessionResponse) (*session.AuthResponse, error) {
	org, err := s.d.Orgs.Get(ctx, p.Project.ID, l.orgID)
	if err != nil {
		return nil, apierr.Wrap(apierr.UnableToAuthMagicLink, err)
	}
	member, err := s.d.Orgs.Member(ctx, q, p.Project.ID, l.memberID)
	if err != nil {
		return nil, apierr.Wrap(apierr.UnableToAuthMagicLink, err)
	}
	reset := l.purpose == PurposeEmailUpdate
	if l.purpose == purposeInvite && member.Status == organization.StatusActive {
		// An invite link is a week-long login credential whose purpose
		// ends when the invitee joins. Refused here, by the member's
		// status as it now is, rather than spent by whatever made the
		// member active: this one check covers every activation path,
		// today's (a code or link login, SSO, OAuth, SCIM, an admin) and
		// any added later, which a spend at each could miss. It reads as
		// a used link; the error rolls back the spend.
		return nil, apierr.New(apierr.UnableToAuthMagicLink)
	}
	if !reset && member.EmailAddress != l.sentTo {
		// Sent to an address the member no longer has (an admin
		// changed it, or the link predates recording it): redeeming it
		// would verify, and log in by email with, an address whose inbox
		// never saw it. It reads as a used link, as a reset link does;
		// the error rolls back the spend.
		return nil, apierr.New(apierr.UnableToAuthMagicLink)
	}
	login := session.EmailLogin{Project: p.Project, Organization: org, Member: member,
		FactorType: "magic_link", DurationMinutes: duration, IST: p.IntermediateSessionToken, From: from,
		CustomClaims: p.CustomClaims}
	if reset {
		return s.d.Sessions.CompleteEmailChange(ctx, q, login, l.sentTo)
	}
	return s.d.Sessions.CompleteEmail(ctx, q, login)
}
