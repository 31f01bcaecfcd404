// Package emailotp implements email one-time passcodes for organization
// login: a 6-digit code valid for 10 minutes, single use, locked after
// repeated wrong guesses.
//
// Security: codes are stored as tags under the encryption key (see Codes)
// and compared in constant time. Only the newest code of a member is live (sending a new one
// retires the old), each code allows MaxAttempts wrong guesses, and guesses
// are also rate-limited per member and per client address, so the 10^6 code
// space cannot be searched. A wrong email, an unknown member, an expired
// code and a wrong code all answer otp_code_not_found, so the endpoint does
// not reveal who is a member.
package emailotp

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Constants of the spec: 6 digits, 10 minutes.
const (
	CodeLength    = 6
	DefaultExpiry = 10 * time.Minute
	MaxAttempts   = 5
)

// Rate limits for sends and guesses.
var (
	SendPerEmail  = ratelimit.Rule{Name: "otp_send_email", Limit: 5, Window: 10 * time.Minute}
	SendPerIP     = ratelimit.Rule{Name: "otp_send_ip", Limit: 50, Window: 10 * time.Minute, PerClientAddress: true}
	CheckPerEmail = ratelimit.Rule{Name: "otp_check_email", Limit: 15, Window: 10 * time.Minute}
	CheckPerIP    = ratelimit.Rule{Name: "otp_check_ip", Limit: 100, Window: 10 * time.Minute, PerClientAddress: true}
)

var codePattern = regexp.MustCompile(`^[0-9]{6}$`)

// Deps are the collaborators of the email OTP service.
type Deps struct {
	DB       *store.DB
	Clock    clock.Clock
	Orgs     *organization.Store
	Sessions *session.Service
	Mailer   notify.Mailer
	Limiter  *ratelimit.Limiter
	Box      *secretbox.Box // tags the codes (Codes.Box)
}

// Service sends and checks email codes.
type Service struct {
	d     Deps
	codes Codes
}

// New returns an email OTP service.
func New(d Deps) *Service {
	return &Service{d: d, codes: Codes{Table: "email_otps", IDColumn: "email_otp_id", KeyColumn: "member_id", Clock: d.Clock, Box: d.Box}}
}

// SendParams is a login_or_signup request.
type SendParams struct {
	Project        *project.Project
	ClientIP       string
	Email          string
	OrganizationID string
	ExpiryMinutes  int
	// SignupExpiryMinutes is the code's lifetime for a member who has not
	// yet proven the address (new, pending or invited), as with links.
	SignupExpiryMinutes int
	Locale              locale.Tag // the email's language
}

// LoginOrSignup emails a fresh code to a member, or to a new member the
// organization's JIT policy admits.
//
// The send is one short transaction: the member (found or created), the
// per-member limit, the code, its queued email and, last, the per-address
// limit are written together or not at all, and SMTP happens later, off the
// request path (notify.Queue).
func (s *Service) LoginOrSignup(ctx context.Context, p SendParams) (*organization.LoginSend, error) {
	var loginExpiry, signupExpiry time.Duration
	return s.d.Orgs.SendLogin(ctx, s.d.Mailer, organization.LoginSendLimits{Limiter: s.d.Limiter, PerAddress: SendPerIP,
		PerRecipient: SendPerEmail}, p.Project, p.OrganizationID, p.Email, p.ClientIP, p.Locale,
		// Both lifetimes, whichever the member's status picks.
		func(context.Context) (err error) {
			if loginExpiry, err = codeExpiry("login_expiration_minutes", p.ExpiryMinutes); err != nil {
				return err
			}
			signupExpiry, err = codeExpiry("signup_expiration_minutes", p.SignupExpiryMinutes)
			return err
		},
		func(q store.Querier, sent *organization.LoginSend) (notify.Email, error) {
			member, org := sent.Member, sent.Organization
			expiry := loginExpiry
			if member.Status != organization.StatusActive {
				expiry = signupExpiry
			}
			// The code proves only the address it is sent to: it records
			// it, and check refuses it once the member's address is another.
			code, err := s.codes.Issue(ctx, q, p.Project.Env, p.Project.ID, member.MemberID, expiry,
				map[string]any{"organization_id": org.OrganizationID, "email_address": member.EmailAddress})
			if err != nil {
				return notify.Email{}, err
			}
			msg, err := notify.EmailOTPEmail(member.EmailAddress, notify.CodeData{ProjectID: p.Project.ID, ProjectName: p.Project.Name,
				OrganizationName: org.OrganizationName, Code: code, ExpiresIn: expiry, Locale: p.Locale})
			if err != nil {
				return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
			}
			return msg, nil
		},
		// A failed delivery spends the code.
		func(ctx context.Context, sent *organization.LoginSend) {
			s.codes.Retire(ctx, s.d.DB, p.Project.ID, sent.Member.MemberID)
		})
}

// codeExpiry validates a requested code lifetime in minutes (0: the
// default).
func codeExpiry(field string, minutes int) (time.Duration, error) {
	if minutes == 0 {
		return DefaultExpiry, nil
	}
	if minutes < 2 || minutes > 15 {
		return 0, apierr.Invalid(field, "Expiration must be between 2 and 15 minutes.")
	}
	return time.Duration(minutes) * time.Minute, nil
}

// AuthParams is an authenticate request.
type AuthParams struct {
	Project         *project.Project
	ClientIP        string
	Code            string
	Email           string
	OrganizationID  string
	DurationMinutes *int
	// IntermediateSessionToken carries factors proven earlier.
	IntermediateSessionToken string
	// Session is the session the caller holds, if any: the code's factor
	// joins it (session.Held).
	Session session.Held
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any

	from *session.SessionResponse // Session, checked
}

// Authenticate checks a code and returns a session.
func (s *Service) Authenticate(ctx context.Context, p AuthParams) (*session.AuthResponse, error) {
	if !codePattern.MatchString(p.Code) {
		return nil, apierr.New(apierr.InvalidCode)
	}
	email, err := emailaddr.Normalize(p.Email)
	if err != nil {
		return nil, err
	}
	duration, err := session.DurationMinutes(ctx, p.Project, p.DurationMinutes)
	if err != nil {
		return nil, err
	}
	org, err := s.d.Sessions.Organization(ctx, p.Project.ID, p.OrganizationID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	if p.from, err = s.d.Sessions.Held(ctx, p.Project, p.Session); err != nil {
		return nil, err
	}
	// One write transaction counts the guess, checks and spends the code
	// and creates the session (ratelimit.GuardIn).
	var resp *session.AuthResponse
	err = s.d.Limiter.GuardIn(ctx, func(q store.Querier) (err error) {
		resp, err = s.check(ctx, q, p, org, email, duration)
		return err
	}, ratelimit.FailureOf(apierr.OTPCodeNotFound),
		ratelimit.For(CheckPerIP, p.Project.ID+"|"+p.ClientIP), ratelimit.For(CheckPerEmail, p.OrganizationID+"|"+email))
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, fmt.Errorf("emailotp: authenticate: %w", err)
	}
	return resp, nil
}

// check checks the code inside q (where Authenticate counted the guess)
// and logs in. A wrong code is otp_code_not_found, and q then commits the
// attempt counted on the code.
func (s *Service) check(ctx context.Context, q store.Querier, p AuthParams, org *organization.Organization, email string,
	duration int) (*session.AuthResponse, error) {
	member, err := s.spendLogin(ctx, q, p, org, email)
	if errors.Is(err, store.ErrNotFound) {
		// Nobody has this address yet: it may be a member's new one.
		resp, wrong, err := s.authenticateEmailUpdate(ctx, q, p, org, email, duration)
		if wrong && err == nil {
			return nil, apierr.New(apierr.OTPCodeNotFound)
		}
		return resp, err
	}
	if err != nil {
		return nil, err
	}
	return s.completeLogin(ctx, q, p, org, member, duration)
}

// spendLogin checks, inside q, p.Code as the login code of the member of
// org at email and spends it on a match (otp_code_not_found on a miss,
// store.ErrNotFound when no member has the address). The member's row is
// held before the code's row is locked (organization.Store.HoldMemberToSpend):
// an address change updates the member's row and then spends the
// member's codes, so the opposite order could deadlock with one.
func (s *Service) spendLogin(ctx context.Context, q store.Querier, p AuthParams, org *organization.Organization,
	email string) (*organization.Member, error) {
	member, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email)
	if err != nil {
		return nil, err
	}
	if err := s.d.Orgs.HoldMemberToSpend(ctx, q, member.MemberID); err != nil {
		return nil, err
	}
	matched, err := s.codes.CheckSentTo(ctx, q, p.Project.ID, member.MemberID, member.EmailAddress, p.Code)
	if err != nil {
		return nil, err
	}
	if !matched {
		return nil, apierr.New(apierr.OTPCodeNotFound)
	}
	return member, nil
}

// completeLogin logs in, inside q, the member whose code spendLogin spent.
func (s *Service) completeLogin(ctx context.Context, q store.Querier, p AuthParams, org *organization.Organization,
	member *organization.Member, duration int) (*session.AuthResponse, error) {
	return s.d.Sessions.CompleteEmail(ctx, q, session.EmailLogin{Project: p.Project, Organization: org, Member: member,
		FactorType: session.EmailOTPType, DurationMinutes: duration, IST: p.IntermediateSessionToken, From: p.from,
		CustomClaims: p.CustomClaims})
}
