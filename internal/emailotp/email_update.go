package emailotp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Email-update codes are sent to a member's new address by
// start_email_update and checked by the ordinary authenticate call with
// that new address: no member has it yet, so Authenticate looks among the
// live email-update codes sent to it in the organization. A match changes
// the email of the member that code was issued for
// (session.CompleteEmailChange).

func emailUpdateCodes(s *Service) Codes {
	return Codes{Table: "email_update_otps", IDColumn: "email_update_otp_id", KeyColumn: "update_key", Clock: s.d.Clock, Box: s.d.Box}
}

// updateKey pins a code to one member and one address, so a code can only
// ever prove the address it was sent to.
func updateKey(memberID, email string) string { return memberID + "|" + email }

// IssueEmailUpdate stores, inside q, a code for member m of org that
// verifies the new address email for lifetime, and returns it. The
// caller delivers it to email and has already cancelled the member's
// earlier updates.
func (s *Service) IssueEmailUpdate(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, email string, lifetime time.Duration) (string, error) {
	return emailUpdateCodes(s).Issue(ctx, q, p.Env, p.ID, updateKey(m.MemberID, email), lifetime,
		map[string]any{"organization_id": org.OrganizationID, "member_id": m.MemberID, "email_address": email})
}

// EmailUpdatePending reports, inside q, whether a member of org other
// than memberID has a live email-update code for email
// (emailupdate.Service.Start refuses a second update to one address).
func (s *Service) EmailUpdatePending(ctx context.Context, q store.Querier, projectID, orgID, email, memberID string) (bool, error) {
	pending, err := pendingUpdates(ctx, q, projectID, orgID, email, store.Millis(s.d.Clock.Now()))
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(pending, func(u pendingUpdate) bool { return u.memberID != memberID }), nil
}

// CancelEmailUpdates spends, inside q, every live email-update code of a
// member: a member has at most one email update in flight.
func (s *Service) CancelEmailUpdates(ctx context.Context, q store.Querier, memberID string) error {
	_, err := q.ExecContext(ctx, `UPDATE email_update_otps SET used_at = $1 WHERE member_id = $2 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), memberID)
	if err != nil {
		return fmt.Errorf("emailotp: cancel email updates: %w", err)
	}
	return nil
}

// authenticateEmailUpdate checks code as an email-update code for the
// (normalised) address email in org, inside q. wrong reports a counted
// miss, which the caller commits before answering otp_code_not_found.
//
// Several members may each have an update to the address in flight:
// start_email_update refuses a second one (EmailUpdatePending), but two
// starts that race on PostgreSQL can both pass that check, and the
// caller is bound to none of them (the call needs no session). So the
// code is compared with every live one, each comparison counted on its
// code as a guess, and only the update whose code it is applies: another
// member's start neither voids a member's code nor lets it change that
// other member. There are few such codes: SendPerEmail bounds the starts
// per address in a code's lifetime.
func (s *Service) authenticateEmailUpdate(ctx context.Context, q store.Querier, p AuthParams, org *organization.Organization,
	email string, duration int) (resp *session.AuthResponse, wrong bool, err error) {
	now := store.Millis(s.d.Clock.Now())
	pending, err := pendingUpdates(ctx, q, p.Project.ID, org.OrganizationID, email, now)
	if err != nil {
		return nil, false, err
	}
	if len(pending) == 0 {
		return nil, false, apierr.New(apierr.OTPCodeNotFound)
	}
	// The members whose updates are pending are held before any code's row
	// is locked, in one order (organization.Store.HoldMemberToSpend): an
	// address change of one of them updates their row and then cancels
	// their codes, so the opposite order could deadlock with it.
	for _, memberID := range pendingMembers(pending) {
		if err := s.d.Orgs.HoldMemberToSpend(ctx, q, memberID); err != nil {
			return nil, false, err
		}
	}
	// On PostgreSQL a hold may have waited for another transaction: a code
	// found live before it may have expired since, and is compared and
	// spent only while live at the clock's time now (attempt, spend).
	now = store.Millis(s.d.Clock.Now())
	codes := emailUpdateCodes(s)
	var hits []pendingUpdate
	for _, u := range pending {
		matched, err := codes.attempt(ctx, q, u.id, p.Code, now)
		if err != nil {
			return nil, false, err
		}
		if matched {
			hits = append(hits, u)
		}
	}
	if len(hits) != 1 {
		// More than one is two members sent the same code (one chance in
		// a million a pair): nothing tells whose change the caller proves,
		// so none is made, and the codes, now known to whoever typed one,
		// are spent.
		for _, u := range hits {
			if _, err := codes.spend(ctx, q, u.id, now); err != nil {
				return nil, false, err
			}
		}
		return nil, true, nil
	}
	if spent, err := codes.spend(ctx, q, hits[0].id, now); err != nil || !spent {
		return nil, !spent, err
	}
	member, err := s.d.Orgs.Member(ctx, q, p.Project.ID, hits[0].memberID)
	if err != nil {
		return nil, false, organization.NotFound(err, apierr.OTPCodeNotFound)
	}
	resp, err = s.d.Sessions.CompleteEmailChange(ctx, q, session.EmailLogin{Project: p.Project, Organization: org, Member: member,
		FactorType: session.EmailOTPType, DurationMinutes: duration, IST: p.IntermediateSessionToken, From: p.from, CustomClaims: p.CustomClaims}, email)
	return resp, false, err
}

// pendingUpdate is a live email-update code: its id and the member whose
// update it would complete.
type pendingUpdate struct{ id, memberID string }

// pendingMembers are the distinct members of pending, sorted.
func pendingMembers(pending []pendingUpdate) []string {
	ids := make([]string, 0, len(pending))
	for _, u := range pending {
		ids = append(ids, u.memberID)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// pendingUpdates lists, inside q, the live email-update codes sent to
// email in org, in a fixed order.
func pendingUpdates(ctx context.Context, q store.Querier, projectID, orgID, email string, now int64) ([]pendingUpdate, error) {
	rows, err := q.QueryContext(ctx, `SELECT email_update_otp_id, member_id FROM email_update_otps WHERE project_id = $1
		AND organization_id = $2 AND email_address = $3 AND used_at IS NULL AND expires_at > $4 ORDER BY email_update_otp_id`,
		projectID, orgID, email, now)
	if err != nil {
		return nil, fmt.Errorf("emailotp: find email updates: %w", err)
	}
	defer rows.Close()
	var out []pendingUpdate
	for rows.Next() {
		var u pendingUpdate
		if err := rows.Scan(&u.id, &u.memberID); err != nil {
			return nil, fmt.Errorf("emailotp: find email updates: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("emailotp: find email updates: %w", err)
	}
	return out, nil
}

// ReleaseAddress spends, inside q, every live email code and email-update
// code of a member whose address changed or who was reactivated
// (organization.AddressHolder): login codes went to an address the member
// no longer has, or before the deletion, and an email update in flight
// was asked for by whoever held the address.
func (s *Service) ReleaseAddress(ctx context.Context, q store.Querier, r organization.Released) error {
	if _, err := q.ExecContext(ctx, `UPDATE email_otps SET used_at = $1 WHERE member_id = $2 AND project_id = $3 AND used_at IS NULL`,
		store.Millis(s.d.Clock.Now()), r.MemberID, r.ProjectID); err != nil {
		return fmt.Errorf("emailotp: spend codes of %s: %w", r.MemberID, err)
	}
	return s.CancelEmailUpdates(ctx, q, r.MemberID)
}
