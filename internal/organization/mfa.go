package organization

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/store"
)

// MFA policy values and method names (as organizations name them).
const (
	MFAOptional       = "OPTIONAL"
	MFARequiredForAll = "REQUIRED_FOR_ALL"
	MFAMethodSMS      = "sms_otp"
	MFAMethodTOTP     = "totp"
)

// AllowsMFAMethod reports whether the organization's MFA method policy
// accepts the method (MFAMethodSMS or MFAMethodTOTP).
func (o *Organization) AllowsMFAMethod(method string) bool {
	return o.MFAMethods != Restricted || slices.Contains(o.AllowedMFAMethods, method)
}

// AllowsMFAMethodFor is AllowsMFAMethod for member m: a break-glass member
// is exempt from a RESTRICTED list, as from a restricted auth_methods
// (AllowsAuthMethodFor). The exemption is from the list of methods only;
// mfa_policy still decides whether a second factor is asked for.
func (o *Organization) AllowsMFAMethodFor(m *Member, method string) bool {
	return (m != nil && m.IsBreakglass) || o.AllowsMFAMethod(method)
}

// EnrolledMFAMethods lists the methods the member has a verified factor
// for, SMS first.
func (m *Member) EnrolledMFAMethods() []string {
	var out []string
	if m.MFAPhoneNumberVerified && m.MFAPhoneNumber != "" {
		out = append(out, MFAMethodSMS)
	}
	if m.TOTPRegistrationID != "" {
		out = append(out, MFAMethodTOTP)
	}
	return out
}

// SaveMFA writes the member's MFA fields (phone, verification, enrollment,
// default method, TOTP registration) inside the caller's transaction. A
// verified phone number already held by another member of the
// organization is duplicate_member_phone_number. Every MFA field is
// written from m: read it with MemberForUpdate in the same transaction, or
// a concurrent change of another of them (a factor's removal) is undone.
func (s *Store) SaveMFA(ctx context.Context, q store.Querier, m *Member) error {
	if m.MFAPhoneNumber == "" {
		m.MFAPhoneNumberVerified = false
	}
	now := s.clock.Now()
	_, err := q.ExecContext(ctx, `UPDATE members SET mfa_phone_number = $1, mfa_phone_number_verified = $2, mfa_enrolled = $3,
		default_mfa_method = $4, totp_registration_id = $5, updated_at = $6 WHERE member_id = $7`,
		m.MFAPhoneNumber, m.MFAPhoneNumberVerified, m.MFAEnrolled, m.DefaultMFAMethod, m.TOTPRegistrationID,
		store.Millis(now), m.MemberID)
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return apierr.Wrap(apierr.DuplicateMemberPhoneNumber, err)
	}
	if err != nil {
		return fmt.Errorf("organization: save mfa: %w", err)
	}
	m.UpdatedAt = store.Time(store.Millis(now))
	return nil
}

// PhoneHolder returns the id of the member of the organization whose MFA
// phone number is phone, or store.ErrNotFound.
func (s *Store) PhoneHolder(ctx context.Context, q store.Querier, orgID, phone string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT member_id FROM members WHERE organization_id = $1 AND mfa_phone_number = $2`,
		orgID, phone).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("organization: phone holder: %w", store.MapError(err))
	}
	return id, nil
}
