package mfa

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// The factor changes (audit.FactorChange) EndUnprovenFactors records, the
// names the factor deletion routes record (routes.go).
const (
	TOTPDeleted  = "totp_deleted"
	PhoneDeleted = "phone_deleted"
)

// EndUnprovenFactors is an organization.MemberAccessEnder: it removes,
// inside q, every MFA factor of the member: the TOTP registrations (the
// verified one and any pending) with their recovery codes, and the MFA
// phone number with its verification and its live SMS codes. The default
// method is cleared with them; mfa_enrolled is left as it was (it asks
// for a second factor, it is not one), so a member or an organization
// that requires MFA asks the owner to enrol one of their own.
//
// It runs only when a first proof of the member's address ended access
// let in without that proof (organization.UnprovenAccess: an OAuth
// account admitted by its tenant with an address its provider did not
// verify). All factors go, not only those enrolled since such access
// began, because the proof shows that the unproven registrations were not
// the owner's, and while one of them was open its holder was the member
// and could enrol any factor (a first factor from a login in progress, or
// any from a session): which were enrolled through them cannot be told
// apart. Left in place, the owner's next login would stop at mfa_required
// asking for the holder's authenticator app (a lockout only an admin can
// lift), or text its codes to the holder's phone. Each removal is recorded
// in the audit log as the deletion routes record it (TOTPDeleted,
// PhoneDeleted), with the reason the OAuth module gives for the
// registrations it removes.
func (s *Service) EndUnprovenFactors(ctx context.Context, q store.Querier, projectID, memberID string) error {
	m, err := s.d.Orgs.MemberForUpdate(ctx, q, projectID, memberID)
	if err != nil {
		return fmt.Errorf("mfa: end unproven factors: %w", err)
	}
	codes, err := q.ExecContext(ctx, `DELETE FROM recovery_codes WHERE member_id = $1`, memberID)
	if err != nil {
		return fmt.Errorf("mfa: end unproven factors: recovery codes: %w", err)
	}
	nCodes, err := codes.RowsAffected()
	if err != nil {
		return fmt.Errorf("mfa: end unproven factors: recovery codes: %w", err)
	}
	regs, err := q.ExecContext(ctx, `DELETE FROM totp_registrations WHERE member_id = $1`, memberID)
	if err != nil {
		return fmt.Errorf("mfa: end unproven factors: totp: %w", err)
	}
	nRegs, err := regs.RowsAffected()
	if err != nil {
		return fmt.Errorf("mfa: end unproven factors: totp: %w", err)
	}
	s.smsCodes.Retire(ctx, q, projectID, memberID)

	type removal struct {
		method  string
		details map[string]any
	}
	var removed []removal
	if nRegs > 0 || m.TOTPRegistrationID != "" {
		// totp_registration_id is the verified registration's ("" when
		// only enrolments in progress were removed).
		removed = append(removed, removal{TOTPDeleted, map[string]any{"totp_registration_id": m.TOTPRegistrationID,
			"registrations": nRegs, "recovery_codes": nCodes}})
	}
	if m.MFAPhoneNumber != "" {
		removed = append(removed, removal{PhoneDeleted, map[string]any{"mfa_phone_number_verified": m.MFAPhoneNumberVerified}})
	}
	if len(removed) == 0 {
		return nil
	}
	m.TOTPRegistrationID, m.MFAPhoneNumber, m.MFAPhoneNumberVerified = "", "", false
	fixDefault(m)
	if err := s.d.Orgs.SaveMFA(ctx, q, m); err != nil {
		return fmt.Errorf("mfa: end unproven factors: %w", err)
	}
	if s.d.Audit == nil {
		return nil
	}
	for _, r := range removed {
		r.details["reason"] = "email_verified_without_provider"
		if err := s.d.Audit.RecordIn(ctx, q, audit.Event{ProjectID: projectID, Type: audit.FactorChange, Method: r.method,
			OrganizationID: m.OrganizationID, MemberID: memberID, RequestID: httpapi.RequestID(ctx), Details: r.details}); err != nil {
			return err
		}
	}
	return nil
}
