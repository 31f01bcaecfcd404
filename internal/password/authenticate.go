package password

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// verified is what a correct password hands on: the credential it matched
// (with the organization and member, for a login to one) and the settling
// of its counted attempt, to write in the transaction the login makes.
type verified struct {
	org    *organization.Organization
	member *organization.Member
	cred   *credential
	settle ratelimit.SettleIn
}

// verify checks password for email under the lockout rules and, when it is
// correct, runs then with the credential it matched (see
// ratelimit.GuardThen: the attempt is settled as a success whatever then
// returns). eligible says whether the caller has a usable member for the
// email; when it is false, or there is no credential, a dummy hash is
// verified instead so the answer and its timing are those of a wrong
// password.
func (s *Service) verify(ctx context.Context, p *project.Project, ip, email, password string, eligible bool,
	then func(v verified) error) error {
	var cred *credential
	return s.d.Limiter.GuardThen(ctx, func() error {
		// The lookup runs either way so both cases do the same work.
		c, err := s.credential(ctx, s.d.DB.Read(), p.ID, email)
		switch {
		case err == nil && eligible:
			cred = c
		case err != nil && !errors.Is(err, store.ErrNotFound):
			return err
		}
		if cred == nil {
			if err := s.verifyDummy(ctx, password); err != nil {
				return err
			}
			return apierr.New(apierr.UnauthorizedCredentials)
		}
		start := s.d.Clock.Now()
		ok, err := s.verifyHash(ctx, cred.Hash, password)
		if err != nil {
			return wrap("stored hash of "+cred.ID, err)
		}
		if !ok {
			return s.wrongPassword(ctx, cred, password, s.d.Clock.Now().Sub(start))
		}
		return nil
	}, ratelimit.FailureOf(apierr.UnauthorizedCredentials),
		func(settle ratelimit.SettleIn) error { return then(verified{cred: cred, settle: settle}) },
		lockKeys(p.ID, email, ip)...)
}

// usable reports whether a member may log in with a password at all.
func usable(m *organization.Member) bool { return m != nil && m.Status != organization.StatusDeleted }

// verifyInOrg loads the organization and the member with email in it, then
// checks the password and runs then as verify does. Without a usable
// member verify still does the hash work, so the answer's timing does not
// reveal who is a member.
func (s *Service) verifyInOrg(ctx context.Context, p *project.Project, ip, orgID, email, password string,
	then func(v verified) error) error {
	org, err := s.d.Sessions.Organization(ctx, p.ID, orgID)
	if err != nil {
		return organization.NotFound(err, apierr.OrganizationNotFound)
	}
	member, err := s.d.Orgs.MemberByEmail(ctx, s.d.DB.Read(), org.OrganizationID, email)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.verify(ctx, p, ip, email, password, err == nil && usable(member), func(v verified) error {
		v.org, v.member = org, member
		return then(v)
	})
}

// refuseForced applies the rules that refuse a correct password: a forced
// reset, and a breach found since the password was set (which forces one
// from now on). Every use of a correct password goes through it, a login
// or a change with the current password alike: whoever holds a password
// that must be reset through the inbox may be an attacker.
func (s *Service) refuseForced(ctx context.Context, p *project.Project, cred *credential, password string) error {
	if cred.RequireReset {
		return apierr.New(apierr.ResetPassword)
	}
	if breached, _ := s.d.Breach.Breached(ctx, password); breached {
		if _, err := s.forceReset(ctx, s.d.DB, p.ID, cred.Email); err != nil {
			return err
		}
		return apierr.New(apierr.ResetPassword).WithMessage(
			"This password appears in a list of breached passwords, so it must be reset before it can be used.")
	}
	return nil
}

// afterVerify applies what follows a correct password at login:
// refuseForced's rules, then the hash upgrade. It returns the upgraded hash
// to store, or "" when none is due.
func (s *Service) afterVerify(ctx context.Context, p *project.Project, cred *credential, password string) (string, error) {
	if err := s.refuseForced(ctx, p, cred, password); err != nil {
		return "", err
	}
	if !pwhash.NeedsUpgrade(cred.Hash, s.d.Hashing) {
		return "", nil
	}
	return pwhash.Hash(ctx, password, s.d.Hashing)
}

// loginTx follows a correct password: afterVerify's rules first, then one
// transaction that confirms the password checked still stands
// (stillStands), stores an upgraded hash if one is due, settles the
// counted attempt, and runs the login's own writes.
//
// The rows are taken in the order every password write takes them
// (lockInOrder): the member's, the password's, then the attempt counters.
func (s *Service) loginTx(ctx context.Context, p *project.Project, v verified, password string, writes func(q store.Querier) error) error {
	upgraded, err := s.afterVerify(ctx, p, v.cred, password)
	if err != nil {
		return err
	}
	return s.d.DB.Tx(ctx, func(q store.Querier) error {
		if err := s.holdMember(ctx, q, v.member); err != nil {
			return err
		}
		if err := s.stillStands(ctx, q, p.ID, v.cred); err != nil {
			return err
		}
		if upgraded != "" {
			if err := s.replaceHash(ctx, q, v.cred.ID, v.cred.Hash, upgraded); err != nil {
				return err
			}
		}
		if err := v.settle(q); err != nil {
			return err
		}
		return writes(q)
	})
}

// stillStands refuses, inside a login's transaction q, a login whose
// password was changed since verify checked it: the check reads the
// credential outside any transaction, and a reset (by email, session or
// the existing password), a forced reset or a deletion can commit while
// the hash is verified. A reset ends the address's sessions in its
// transaction (endOldPassword), so a session the login opened after it
// would outlive the reset in the hands of whoever knew the old password.
// The login answers what it would answer against the password as it now
// stands: a password replaced or deleted is a wrong one
// (unauthorized_credentials, as verify answers), a forced reset is
// reset_password (refuseForced).
//
// The row is held until q ends (heldCredential, after the member's row:
// lockInOrder), and every change of the password writes that row before
// it ends the address's sessions. So on PostgreSQL either the change
// wrote it first, and this read waits for its commit and sees it, or this
// login holds it first, and the change waits for the login's commit and
// then ends the session it opened. SQLite has one writer: the two
// transactions run one after the other.
func (s *Service) stillStands(ctx context.Context, q store.Querier, projectID string, checked *credential) error {
	cur, err := s.heldCredential(ctx, q, projectID, checked.Email)
	switch {
	case isNotFound(err):
		return apierr.New(apierr.UnauthorizedCredentials)
	case err != nil:
		return err
	case cur.ID != checked.ID || cur.Hash != checked.Hash:
		return apierr.New(apierr.UnauthorizedCredentials)
	case cur.RequireReset:
		return apierr.New(apierr.ResetPassword)
	}
	return nil
}

// holdMember takes m's row (nil: a discovery login, no member) before
// anything else a password write takes.
//
// lockInOrder: on PostgreSQL every transaction that writes an address's
// password takes its rows in one order: the member's row, then the
// password's, then the attempt counters (the address's lockout, which a
// password change lifts), then the sessions and logins in progress it
// ends. A reset by email holds the member first (HoldMemberToSpend) and
// lifts the lockout after storing the password; a login that settled its
// attempt first, or stored an upgraded hash before activating the member,
// took two of them the other way round and could deadlock with it,
// PostgreSQL aborting one after deadlock_timeout for store.Tx to rerun.
// SQLite (one writer) takes no lock.
func (s *Service) holdMember(ctx context.Context, q store.Querier, m *organization.Member) error {
	if m == nil {
		return nil
	}
	return s.d.Orgs.HoldMemberToSpend(ctx, q, m.MemberID)
}

// passwordFactor is the session factor of a password login.
func passwordFactor(m *organization.Member, delivery string) session.Factor {
	return session.Factor{DeliveryMethod: delivery, Type: "password",
		EmailFactor: &session.EmailFactor{EmailID: m.EmailID, EmailAddress: m.EmailAddress}}
}

// AuthParams is a passwords/authenticate request.
type AuthParams struct {
	Project         *project.Project
	ClientIP        string
	OrganizationID  string
	Email           string
	Password        string
	DurationMinutes *int
	// IntermediateSessionToken is the IST the client sent along, if any:
	// its factors (an earlier primary step of this member, or a discovery
	// proof of the address) carry over into the outcome.
	IntermediateSessionToken string
	// Session is the session the caller holds, if any: the password
	// factor joins it (session.Held).
	Session session.Held
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// Authenticate logs a member of an organization in with their password.
func (s *Service) Authenticate(ctx context.Context, a AuthParams) (*session.AuthResponse, error) {
	email, err := emailaddr.Normalize(a.Email)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.OrganizationID) == "" {
		return nil, apierr.Invalid("organization_id", "organization_id is required.")
	}
	if a.Password == "" {
		return nil, apierr.Invalid("password", "password is required.")
	}
	duration, err := session.DurationMinutes(ctx, a.Project, a.DurationMinutes)
	if err != nil {
		return nil, err
	}
	from, err := s.d.Sessions.Held(ctx, a.Project, a.Session)
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = s.verifyInOrg(ctx, a.Project, a.ClientIP, a.OrganizationID, email, a.Password, func(v verified) error {
		return s.loginTx(ctx, a.Project, v, a.Password, func(q store.Querier) error {
			ended, err := s.activate(ctx, q, v.member)
			if err != nil {
				return err
			}
			prior, err := s.d.Sessions.PriorFactors(ctx, q, a.Project, a.IntermediateSessionToken, v.org.OrganizationID,
				v.member.MemberID, v.member.EmailAddress)
			if err != nil {
				return err
			}
			resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: a.Project, Organization: v.org, Member: v.member,
				DurationMinutes: duration, Prior: prior, From: from, Factor: passwordFactor(v.member, "knowledge"),
				CustomClaims: a.CustomClaims, SessionsEnded: ended})
			return err
		})
	})
	if err != nil {
		return nil, wrap("authenticate", err)
	}
	return resp, nil
}

// activate records, in the login transaction, that the member proved the
// address: every password was set through the inbox (a reset link) or
// imported by the customer's backend for a verified address, so knowing it
// is proof enough for a pending or invited member to become active. It
// runs at every login, not only the first: a member verified by an SSO
// login alone has an address asserted, not proven to other organizations
// (organization.MarkEmailAsserted), and their password login proves it.
// ended is MarkEmailVerified's: the login passes it on as
// session.CompleteParams.SessionsEnded.
func (s *Service) activate(ctx context.Context, q store.Querier, m *organization.Member) (ended bool, err error) {
	return s.d.Orgs.MarkEmailVerified(ctx, q, m)
}

// wrap keeps public errors as they are and adds context to others.
func wrap(op string, err error) error {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("password: %s: %w", op, err)
}
