package password

import (
	"context"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/stepup"
	"github.com/latchkey/latchkey/internal/store"
)

// SessionResetParams is a b2b/passwords/session/reset request.
type SessionResetParams struct {
	Project         *project.Project
	ClientIP        string
	Session         session.Credential
	OrganizationID  string // backend face: must be the session's organization
	Password        string
	DurationMinutes *int
}

// ResetBySession sets the password of a logged-in member whose session was
// authenticated within the last SessionResetWindow, and ends the address's
// other sessions. This is how a member without a password sets one after
// verifying the address by magic link. A session that proved the address
// only by its password may replace that password while it stands, not
// once it was deleted or its reset forced.
func (s *Service) ResetBySession(ctx context.Context, a SessionResetParams) (*session.AuthResponse, error) {
	if err := checkInput("password", a.Password); err != nil {
		return nil, err
	}
	if err := s.d.Limiter.Allow(ctx, SetPerIP, a.Project.ID+"|"+a.ClientIP); err != nil {
		return nil, err
	}
	sr, err := s.d.Sessions.Authenticate(ctx, a.Project, a.Session, a.DurationMinutes)
	if err != nil {
		return nil, err
	}
	if a.OrganizationID != "" && a.OrganizationID != sr.MemberSession.OrganizationID {
		return nil, apierr.New(apierr.SessionNotFound).WithMessage("The session does not belong to this organization.")
	}
	if !stepup.Fresh(s.d.Clock.Now(), sr.MemberSession.FactorTimes()...) {
		return nil, apierr.New(apierr.SessionTooOldToResetPassword)
	}
	email := sr.Member.EmailAddress
	if !session.AnyProvesAddress(sr.MemberSession.AuthenticationFactors, email) {
		return nil, apierr.New(apierr.UnauthorizedAction).WithMessage("A password is shared by every organization of the email " +
			"address, so setting one from a session needs a login by email link, email code or the current password. " +
			"Reset it by email instead.")
	}
	if err := s.requireStrong(ctx, a.Project, "password", a.Password, email); err != nil {
		return nil, err
	}
	hash, err := pwhash.Hash(ctx, a.Password, s.d.Hashing)
	if err != nil {
		return nil, err
	}
	keep := sr.MemberSession.MemberSessionID
	inbox := slices.ContainsFunc(sr.MemberSession.AuthenticationFactors, func(f session.Factor) bool { return f.ProvesInbox(email) })
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The session was checked from memory, which on a replica may be
		// a second behind a revocation made on another: the database says
		// whether it still stands before it sets the address's password.
		if err := s.d.Sessions.ConfirmHeld(ctx, q, a.Project.ID, keep); err != nil {
			return err
		}
		if inbox {
			return s.changePassword(ctx, q, a.Project, email, hash, keep)
		}
		// The session's only proof of the address is a login with its
		// password, which proves something only while that password
		// stands: one deleted, or flagged for a reset (by the backend, or
		// after a breach found at login), may be an attacker's, and only
		// the inbox may replace it.
		replaced, err := s.replaceUsable(ctx, q, a.Project.ID, email, "", hash)
		if err != nil {
			return err
		}
		if !replaced {
			return apierr.New(apierr.ResetPassword)
		}
		return s.endOldPassword(ctx, q, a.Project, email, keep)
	})
	if err != nil {
		return nil, wrap("reset by session", err)
	}
	member, err := s.d.Orgs.Member(ctx, s.d.DB.Read(), a.Project.ID, sr.MemberID)
	if err != nil {
		return nil, wrap("reset by session", err)
	}
	sr.Member = member // now with its member_password_id
	return &session.AuthResponse{SessionResponse: *sr, OrganizationID: sr.MemberSession.OrganizationID, MemberAuthenticated: true}, nil
}

// ExistingResetParams is a b2b/passwords/existing_password/reset request.
type ExistingResetParams struct {
	Project          *project.Project
	ClientIP         string
	OrganizationID   string
	Email            string
	ExistingPassword string
	NewPassword      string
	DurationMinutes  *int
	// CustomClaims are the new session's (session.ClaimsField).
	CustomClaims map[string]any
}

// ResetExisting changes a password given the current one. It is refused
// as a login with it would be (refuseForced): a password that must be
// reset (flagged by the customer, or breached, which this call finds as a
// login does and forces) may be known to an attacker, so only the inbox
// can replace it.
func (s *Service) ResetExisting(ctx context.Context, a ExistingResetParams) (*session.AuthResponse, error) {
	email, err := emailaddr.Normalize(a.Email)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.OrganizationID) == "" {
		return nil, apierr.Invalid("organization_id", "organization_id is required.")
	}
	if a.ExistingPassword == "" {
		return nil, apierr.Invalid("existing_password", "existing_password is required.")
	}
	if err := checkInput("new_password", a.NewPassword); err != nil {
		return nil, err
	}
	duration, err := session.DurationMinutes(ctx, a.Project, a.DurationMinutes)
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = s.verifyInOrg(ctx, a.Project, a.ClientIP, a.OrganizationID, email, a.ExistingPassword, func(v verified) error {
		if err := s.refuseForced(ctx, a.Project, v.cred, a.ExistingPassword); err != nil {
			return err
		}
		if a.NewPassword == a.ExistingPassword {
			return apierr.New(apierr.ResetToExistingPassword)
		}
		if err := s.requireStrong(ctx, a.Project, "new_password", a.NewPassword, email); err != nil {
			return err
		}
		hash, err := pwhash.Hash(ctx, a.NewPassword, s.d.Hashing)
		if err != nil {
			return err
		}
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			// The member's row, the password's, then the counters
			// (holdMember's lockInOrder): the change lifts the address's
			// lockout, and settling after it ends the same.
			if err := s.holdMember(ctx, q, v.member); err != nil {
				return err
			}
			// The password was checked, and its forced reset read, before
			// this transaction: it replaces the one it matched only if that
			// one still stands (replaceUsable). A reset through the inbox,
			// a forced reset or a deletion committed since then is not
			// undone by whoever knew the old password; they are refused
			// as a session reset after a forced reset is.
			replaced, err := s.replaceUsable(ctx, q, a.Project.ID, email, v.cred.Hash, hash)
			if err != nil {
				return err
			}
			if !replaced {
				return apierr.New(apierr.ResetPassword)
			}
			if err := s.endOldPassword(ctx, q, a.Project, email, ""); err != nil {
				return err
			}
			if err := v.settle(q); err != nil {
				return err
			}
			ended, err := s.activate(ctx, q, v.member)
			if err != nil {
				return err
			}
			// Reload so the response carries the member's password id.
			member, err := s.d.Orgs.Member(ctx, q, a.Project.ID, v.member.MemberID)
			if err != nil {
				return err
			}
			resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: a.Project, Organization: v.org, Member: member,
				DurationMinutes: duration, Factor: passwordFactor(member, "knowledge"), CustomClaims: a.CustomClaims,
				SessionsEnded: ended})
			return err
		})
	})
	if err != nil {
		return nil, wrap("reset existing password", err)
	}
	return resp, nil
}
