package mfa

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/stepup"
	"github.com/latchkey/latchkey/internal/store"
)

// Who says who is calling and for which member.
type Who struct {
	Project *project.Project
	// OrganizationID and MemberID are the request's; empty on self routes,
	// where the session names the member.
	OrganizationID string
	MemberID       string
	// IST is an intermediate session token (mid-login).
	IST string
	// Session is a session token or JWT (a logged-in member).
	Session session.Credential
	// Backend is true on the backend face, where the project secret may
	// vouch for the member named by OrganizationID and MemberID.
	Backend bool
	// Vouched is true when the caller's session was already found to allow
	// acting on that member (organization.SessionCaller.ActOn: the member
	// themselves or an admin of the organization); like the secret, it
	// counts only for calls that do not authenticate a factor.
	Vouched bool
	// CustomClaims are the session's a factor check completes or steps up
	// to (session.ClaimsField; backend face only).
	CustomClaims map[string]any
}

// subject is the member an MFA call acts for and how they were proven.
type subject struct {
	org    *organization.Organization
	member *organization.Member
	ist    string // set when proven by an IST
	// istFactors are the factors the IST records (set with ist). An IST
	// is issued both after an accepted primary factor (mfa_required) and
	// after one the organization does not accept, or none at all
	// (primary_required), so naming a member does not by itself prove the
	// primary factor: resolve refuses such an IST (refuseUnprovenIST).
	istFactors []session.Factor
	sess       *session.SessionResponse // set when proven by a session
	claims     map[string]any           // Who.CustomClaims
}

// midLogin reports whether the caller holds only an IST (a login in
// progress), not a session.
func (s *subject) midLogin() bool { return s.ist != "" }

// stepUp refuses a takeover-sensitive change (enrolling or removing a
// factor, showing or rotating recovery codes) from a session whose newest
// factor is older than stepup.Window. A login in progress (IST) and the
// backend are not sessions; SDK routes acting for another member checked
// their caller's session with SessionCaller.StepUp.
func (s *Service) stepUp(sub *subject) error {
	if sub.sess == nil {
		return nil
	}
	return stepup.Require(s.d.Clock.Now(), sub.sess.MemberSession.FactorTimes()...)
}

// resolveForChange finds the subject of a takeover-sensitive change
// (removing a factor, showing or rotating recovery codes): a logged-in
// member whose session passes stepUp, or the backend. A login in progress
// (IST) never may: its one proven factor would change what guards it.
func (s *Service) resolveForChange(ctx context.Context, w Who) (*subject, error) {
	sub, err := s.resolve(ctx, w, true)
	if err != nil {
		return nil, err
	}
	if sub.midLogin() {
		return nil, apierr.New(apierr.UserUnauthenticated)
	}
	if err := s.stepUp(sub); err != nil {
		return nil, err
	}
	return sub, nil
}

// resolve finds the subject. trusted allows the backend's project secret
// alone; calls that authenticate a factor never pass it, because a second
// factor must complete a login (IST) or step up a session.
func (s *Service) resolve(ctx context.Context, w Who, trusted bool) (*subject, error) {
	var orgID, memberID string
	out := &subject{claims: w.CustomClaims}
	switch {
	case w.IST != "":
		in, err := s.d.Sessions.PeekIntermediate(ctx, w.Project, httpapi.ClientIPFrom(ctx), w.IST)
		if err != nil {
			return nil, err
		}
		if in.MemberID == "" {
			// A discovery IST knows only an email: exchanging it for an
			// organization comes first, and answers mfa_required if needed.
			return nil, apierr.New(apierr.IntermediateSessionNotFound).WithMessage(
				"This intermediate session is not for an organization member: exchange it for an organization first.")
		}
		orgID, memberID, out.ist, out.istFactors = in.OrganizationID, in.MemberID, w.IST, in.Factors
	case w.Session.Token != "" || w.Session.JWT != "":
		sr, err := s.d.Sessions.Check(ctx, w.Project, httpapi.ClientIPFrom(ctx), w.Session, nil)
		if err != nil {
			return nil, err
		}
		orgID, memberID, out.sess = sr.Organization.OrganizationID, sr.Member.MemberID, sr
		if !w.Backend {
			// The SDK caller's own session: the member acts. A session a
			// backend call names is only whom it acts on.
			httpapi.SetActingMember(ctx, orgID, memberID)
		}
	case trusted && (w.Backend || w.Vouched):
		if w.OrganizationID == "" || w.MemberID == "" {
			return nil, apierr.Invalid("member_id", "organization_id and member_id are required.")
		}
		orgID, memberID = w.OrganizationID, w.MemberID
	default:
		return nil, apierr.New(apierr.UserUnauthenticated).WithMessage(
			"Send the intermediate_session_token of the login in progress, or a session.")
	}
	if (w.OrganizationID != "" && w.OrganizationID != orgID) || (w.MemberID != "" && w.MemberID != memberID) {
		return nil, apierr.New(apierr.UnauthorizedAction).WithMessage(
			"The intermediate session or session belongs to another member or organization.")
	}
	org, err := s.d.Orgs.Get(ctx, w.Project.ID, orgID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	m, err := s.d.Orgs.Member(ctx, s.d.DB.Read(), w.Project.ID, memberID)
	if err == nil && m.OrganizationID != org.OrganizationID {
		err = fmt.Errorf("mfa: member %s is in another organization: %w", memberID, store.ErrNotFound)
	}
	if err != nil {
		return nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	out.org, out.member = org, m
	if err := refuseUnprovenIST(out); err != nil {
		return nil, err
	}
	return out, nil
}

// refuseUnprovenIST is the one rule every MFA call with an IST meets
// (sending, checking, recovering, enrolling): the IST's factors must
// satisfy the organization's primary auth policy, the check Complete makes
// before answering primary_required (session.PrimarySatisfied). An IST
// answered primary_required proves nothing the organization trusts: a
// sessions/exchange with no factor that carries over names the member of
// another organization with no factor at all, and an email code in a
// password-only organization proves only the mailbox. Such an IST must
// not text the member's phone (their send budget), nor spend their MFA
// failure budget and lock them out, nor enroll a factor: whoever holds it
// has not passed the first factor the lockout's reasoning assumes.
//
// The refusal is unauthorized_action, as for the other things a login in
// progress may not do: the IST itself is valid (intermediate_session_not_found
// would send the client back to the start as if it had expired), and the
// catalogue has no type of its own for "primary authentication first".
func refuseUnprovenIST(sub *subject) error {
	if !sub.midLogin() || session.PrimarySatisfied(sub.org, sub.member, sub.istFactors) {
		return nil
	}
	return apierr.New(apierr.UnauthorizedAction).WithMessage(
		"This login has not yet used an authentication method the organization accepts: complete primary authentication before multi-factor authentication.")
}

// requireActive refuses MFA changes for members who cannot log in.
func requireActive(m *organization.Member) error {
	if m.Status != organization.StatusActive {
		return apierr.New(apierr.ActionOnlyForActiveMembers)
	}
	return nil
}

// requireMethod refuses a method the organization does not allow member
// m (a break-glass member is exempt from a restricted list).
func requireMethod(org *organization.Organization, m *organization.Member, method string) error {
	if !org.AllowsMFAMethodFor(m, method) {
		return apierr.New(apierr.MFAMethodRestricted).WithDetails(map[string]any{"mfa_method": method})
	}
	return nil
}

// refuseISTEnrollment applies the enrolment rules of a login in progress
// (see the package comment): an IST may register the member's first MFA
// factor only once its factors satisfy the organization's primary auth
// policy, and never one next to a factor the member already has. Without
// the first rule an IST answered primary_required (say an email code in a
// password-only organization) would let whoever holds only the mailbox
// register their own app or phone, and then pass MFA as the member while
// the real member is asked for the attacker's factor. The first rule is
// refuseUnprovenIST, which resolve applies to every IST (every subject
// comes from resolve), so only the second is checked here.
func refuseISTEnrollment(sub *subject, m *organization.Member) error {
	if !sub.midLogin() {
		return nil
	}
	if len(m.EnrolledMFAMethods()) > 0 {
		return apierr.New(apierr.UnauthorizedAction).WithMessage(
			"This member already has multi-factor authentication set up: complete the login with it, then change it from a session.")
	}
	return nil
}

// reload reads the subject's member again inside q, locked until q ends
// (organization.MemberForUpdate), so the MFA fields written by this
// transaction start from the committed state and no concurrent change of
// them commits in between to be overwritten.
func (s *Service) reload(ctx context.Context, q store.Querier, p *project.Project, sub *subject) (*organization.Member, error) {
	m, err := s.d.Orgs.MemberForUpdate(ctx, q, p.ID, sub.member.MemberID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	return m, requireActive(m)
}

// finish ends a successful second-factor check inside q. Mid-login it
// redeems the IST and completes the login with the IST's factors before
// the new one; with a session it steps that session up
// (CompleteParams.From: a new session with the old one's factors and the
// new one, the old one ended).
func (s *Service) finish(ctx context.Context, q store.Querier, p *project.Project, sub *subject, m *organization.Member,
	f session.Factor, duration int) (*session.AuthResponse, error) {
	f.SequenceOrder = session.Secondary
	params := session.CompleteParams{Project: p, Organization: sub.org, Member: m, Factor: f, DurationMinutes: duration,
		CustomClaims: sub.claims}
	if !sub.midLogin() {
		params.From = sub.sess
		return s.d.Sessions.Complete(ctx, q, params)
	}
	in, err := s.d.Sessions.RedeemIntermediate(ctx, q, p, sub.ist)
	if err != nil {
		return nil, err
	}
	if in.MemberID != m.MemberID || in.OrganizationID != sub.org.OrganizationID {
		return nil, apierr.New(apierr.IntermediateSessionNotFound)
	}
	params.Prior = in.Factors
	return s.d.Sessions.Complete(ctx, q, params)
}

// publicErr keeps catalogued errors and wraps the rest with context.
func publicErr(err error, op string) error {
	if err == nil {
		return nil
	}
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("mfa: %s: %w", op, err)
}
