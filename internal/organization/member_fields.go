package organization

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/phone"
	"github.com/latchkey/latchkey/internal/store"
)

// MemberFields are the member fields a create and an update both take
// beyond the basics: MFA enrollment, the MFA phone number and the external
// id (the Node client's create and update requests; the browser SDK's
// without external_id). nil means "leave as is". A create sets them by
// updating the member it has just inserted, in the same transaction, so
// both share UpdateMember's rules.
type MemberFields struct {
	MFAEnrolled    *bool   `json:"mfa_enrolled"`
	MFAPhoneNumber *string `json:"mfa_phone_number"`
	// ExternalID is the customer's own id for the member: unique within
	// the organization, "" for none. Like trusted_metadata it is the
	// backend's bookkeeping, which no member permission covers.
	ExternalID *string `json:"external_id"`
}

// set reports whether any field is given.
func (f MemberFields) set() bool {
	return f.MFAEnrolled != nil || f.MFAPhoneNumber != nil || f.ExternalID != nil
}

// maxExternalID and externalIDChar are the API family's rule for external
// ids, of members and organizations alike.
const maxExternalID = 128

func externalIDChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-|", r)
}

// checkExternalID refuses an external id (trimmed; "" clears it) that is
// longer than 128 characters or holds anything but letters, digits and
// . _ - |.
func checkExternalID(field, id string) error {
	if len(id) > maxExternalID || strings.IndexFunc(id, func(r rune) bool { return !externalIDChar(r) }) >= 0 {
		return apierr.Invalid(field, field+" must be at most 128 letters, digits and . _ - | characters.")
	}
	return nil
}

// fieldChanges says which groups of columns applyFields changed, for
// saveFields to write after the member's row.
type fieldChanges struct{ mfa, externalID bool }

// applyFields validates the update's MFA fields and external id and
// applies them to m, read locked in q (orgMemberForUpdate), without
// writing.
func (s *Store) applyFields(ctx context.Context, q store.Querier, org *Organization, m *Member, u MemberUpdate) (fieldChanges, error) {
	before := *m
	if u.MFAEnrolled != nil {
		m.MFAEnrolled = *u.MFAEnrolled
	}
	if u.MFAPhoneNumber != nil {
		if err := s.setMFAPhone(ctx, q, org, m, *u.MFAPhoneNumber); err != nil {
			return fieldChanges{}, err
		}
		if u.MFAPhoneVouched && !m.MFAPhoneNumberVerified {
			// Vouching makes the number a factor, so the organization
			// must allow SMS for m now, also for a number stored before
			// it restricted its MFA methods (setMFAPhone's same number).
			if !org.AllowsMFAMethodFor(m, MFAMethodSMS) {
				return fieldChanges{}, apierr.New(apierr.MFAMethodRestricted)
			}
			m.MFAPhoneNumberVerified = true
		}
	}
	if u.DefaultMFAMethod != nil {
		if err := setDefaultMFA(org, m, *u.DefaultMFAMethod); err != nil {
			return fieldChanges{}, err
		}
	}
	if u.ExternalID != nil {
		id := strings.TrimSpace(*u.ExternalID)
		if err := checkExternalID("external_id", id); err != nil {
			return fieldChanges{}, err
		}
		m.ExternalID = id
	}
	return fieldChanges{
		mfa: m.MFAEnrolled != before.MFAEnrolled || m.MFAPhoneNumber != before.MFAPhoneNumber ||
			m.MFAPhoneNumberVerified != before.MFAPhoneNumberVerified || m.DefaultMFAMethod != before.DefaultMFAMethod,
		externalID: m.ExternalID != before.ExternalID,
	}, nil
}

// setMFAPhone gives m the MFA phone number raw, unverified: it becomes a
// factor (EnrolledMFAMethods) only once the member proves it with an SMS
// code sent to it, as an enrollment does, so setting it grants nothing.
// The number is validated as SMS MFA validates it, the organization must
// allow SMS, and a number belongs to one member of an organization
// (duplicate_member_phone_number; the unique index decides a race). As in
// the API family a member has one number: replacing it takes deleting it
// first, which a session must step up for, so an update cannot swap a
// verified number for an unproven one. The same number again is no change.
func (s *Store) setMFAPhone(ctx context.Context, q store.Querier, org *Organization, m *Member, raw string) error {
	to, err := phone.Normalize(raw)
	if err != nil {
		return err
	}
	if to == m.MFAPhoneNumber {
		return nil
	}
	if !org.AllowsMFAMethodFor(m, MFAMethodSMS) {
		return apierr.New(apierr.MFAMethodRestricted)
	}
	if m.MFAPhoneNumber != "" {
		return apierr.Invalid("mfa_phone_number",
			"The member already has an MFA phone number: delete it (delete member MFA phone number) before setting another.")
	}
	holder, err := s.PhoneHolder(ctx, q, org.OrganizationID, to)
	switch {
	case err == nil && holder != m.MemberID:
		return apierr.New(apierr.DuplicateMemberPhoneNumber)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	m.MFAPhoneNumber, m.MFAPhoneNumberVerified = to, false
	return nil
}

// setDefaultMFA makes method (sms_otp or totp) the member's default MFA
// method. It must be a method the organization allows and one the member
// has a verified factor of: the MFA flows keep the default pointing at
// such a factor (or none), and a login offers the default first.
func setDefaultMFA(org *Organization, m *Member, method string) error {
	if method != MFAMethodSMS && method != MFAMethodTOTP {
		return apierr.New(apierr.InvalidMFADefaultMethod)
	}
	if method == m.DefaultMFAMethod {
		return nil
	}
	if !org.AllowsMFAMethodFor(m, method) {
		return apierr.New(apierr.MFAMethodRestricted)
	}
	if !slices.Contains(m.EnrolledMFAMethods(), method) {
		return apierr.New(apierr.DefaultMFAMemberMissingFactor)
	}
	m.DefaultMFAMethod = method
	return nil
}

// saveFields writes what applyFields changed, inside q.
func (s *Store) saveFields(ctx context.Context, q store.Querier, m *Member, c fieldChanges) error {
	if c.mfa {
		if err := s.SaveMFA(ctx, q, m); err != nil {
			return err
		}
	}
	if !c.externalID {
		return nil
	}
	_, err := q.ExecContext(ctx, `UPDATE members SET external_id = $1, updated_at = $2 WHERE member_id = $3`,
		m.ExternalID, store.Millis(s.clock.Now()), m.MemberID)
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return apierr.Wrap(apierr.DuplicateMemberExternalID, err)
	}
	if err != nil {
		return fmt.Errorf("organization: save external id: %w", err)
	}
	return nil
}

// changesGuarded reports whether u would change m's email address or one
// of its MFA settings, the changes stepUpForChanges guards. A value that
// does not validate counts as a change: the update refuses it later.
func (u MemberUpdate) changesGuarded(m *Member) bool {
	if u.EmailAddress != nil && !emailaddr.Equal(strings.TrimSpace(*u.EmailAddress), m.EmailAddress) {
		return true
	}
	if u.MFAEnrolled != nil && *u.MFAEnrolled != m.MFAEnrolled {
		return true
	}
	if u.MFAPhoneNumber != nil {
		if to, err := phone.Normalize(*u.MFAPhoneNumber); err != nil || to != m.MFAPhoneNumber {
			return true
		}
	}
	return u.DefaultMFAMethod != nil && *u.DefaultMFAMethod != m.DefaultMFAMethod
}
