package emailotp

import (
	"context"
	"errors"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Email-update codes are sent to a member's new address by
// start_email_update and checked by the ordinary authenticate call with
// that new address: no member has it yet, so Authenticate looks for a live
// email-update code for it in the organization. A match changes the
// member's email (session.CompleteEmailChange).

func emailUpdateCodes(s *Service) Codes {
	return Codes{Table: "email_update_otps", IDColumn: "email_update_otp_id", KeyColumn: "update_key", Clock: s.d.Clock}
}

// updateKey pins a code to one member and one address, so a code can only
// ever prove the address it was sent to.
func updateKey(memberID, email string) string { return memberID + "|" + email }

// IssueEmailUpdate stores, inside q, a code for member m of org that
// verifies the new address email, and returns it. The caller delivers it
// to email and has already cancelled the member's earlier updates.
func (s *Service) IssueEmailUpdate(ctx context.Context, q store.Querier, p *project.Project, org *organization.Organization,
	m *organization.Member, email string) (string, error) {
	return emailUpdateCodes(s).Issue(ctx, q, p.Env, p.ID, updateKey(m.MemberID, email), DefaultExpiry,
		map[string]any{"organization_id": org.OrganizationID, "member_id": m.MemberID, "email_address": email})
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
func (s *Service) authenticateEmailUpdate(ctx context.Context, q store.Querier, p AuthParams, org *organization.Organization,
	email string, duration int) (resp *session.AuthResponse, wrong bool, err error) {
	var memberID string
	err = q.QueryRowContext(ctx, `SELECT member_id FROM email_update_otps WHERE project_id = $1 AND organization_id = $2
		AND email_address = $3 AND used_at IS NULL AND expires_at > $4 ORDER BY created_at DESC LIMIT 1`,
		p.Project.ID, org.OrganizationID, email, store.Millis(s.d.Clock.Now())).Scan(&memberID)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		return nil, false, apierr.New(apierr.OTPCodeNotFound)
	}
	if err != nil {
		return nil, false, fmt.Errorf("emailotp: find email update: %w", err)
	}
	matched, err := emailUpdateCodes(s).Check(ctx, q, p.Project.ID, updateKey(memberID, email), p.Code)
	if err != nil || !matched {
		return nil, !matched, err
	}
	member, err := s.d.Orgs.Member(ctx, q, p.Project.ID, memberID)
	if err != nil {
		return nil, false, organization.NotFound(err, apierr.OTPCodeNotFound)
	}
	resp, err = s.d.Sessions.CompleteEmailChange(ctx, q, session.EmailLogin{Project: p.Project, Organization: org, Member: member,
		FactorType: "otp", DurationMinutes: duration, IST: p.IntermediateSessionToken, From: p.from}, email)
	return resp, false, err
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
