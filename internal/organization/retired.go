package organization

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/store"
)

// RetiredEmail is one of a member's former addresses: the address a
// verified email change replaced, with the id it had while it was the
// member's. It stays reserved for that member in the organization, so no
// other member can take over an address whose mail may still reach the
// person, until it is unlinked.
type RetiredEmail struct {
	EmailID      string `json:"email_id"`
	EmailAddress string `json:"email_address"`
}

// withRetired fills the retired addresses of members loaded through q, in
// one query for the lot.
func (s *Store) withRetired(ctx context.Context, q store.Querier, ms ...*Member) error {
	if len(ms) == 0 {
		return nil
	}
	byID := make(map[string]*Member, len(ms))
	args := make([]any, 0, len(ms))
	for _, m := range ms {
		byID[m.MemberID] = m
		args = append(args, m.MemberID)
	}
	rows, err := q.QueryContext(ctx, `SELECT member_id, email_id, email_address FROM member_retired_emails
		WHERE member_id IN (`+store.Placeholders(1, len(args))+`) ORDER BY created_at, email_id`, args...)
	if err != nil {
		return fmt.Errorf("organization: retired emails: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var memberID string
		var r RetiredEmail
		if err := rows.Scan(&memberID, &r.EmailID, &r.EmailAddress); err != nil {
			return fmt.Errorf("organization: retired emails: %w", err)
		}
		if m := byID[memberID]; m != nil {
			m.RetiredEmailAddresses = append(m.RetiredEmailAddresses, r)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("organization: retired emails: %w", err)
	}
	return nil
}

// refuseRetired answers duplicate_member_email when email is a retired
// address of a member of the organization other than self ("" for a new
// member).
func (s *Store) refuseRetired(ctx context.Context, q store.Querier, orgID, email, self string) error {
	var holder string
	err := q.QueryRowContext(ctx, `SELECT member_id FROM member_retired_emails WHERE organization_id = $1 AND email_address = $2`,
		orgID, email).Scan(&holder)
	switch err = store.MapError(err); {
	case errors.Is(err, store.ErrNotFound) || (err == nil && holder == self):
		return nil
	case err != nil:
		return fmt.Errorf("organization: retired email holder: %w", err)
	}
	return apierr.New(apierr.DuplicateMemberEmail).WithMessage(
		"Another member of this organization used this email address before; unlink it from that member first.")
}

// IsRetiredIn reports whether the (normalised) address email is a retired
// address of a member of organization orgID: reserved for that member, so
// the organization cannot admit it as a new member (refuseRetired). Read on
// the table's (organization_id, email_address) key.
func (s *Store) IsRetiredIn(ctx context.Context, q store.Querier, orgID, email string) (bool, error) {
	var one int
	err := store.MapError(q.QueryRowContext(ctx, `SELECT 1 FROM member_retired_emails WHERE organization_id = $1
		AND email_address = $2`, orgID, email).Scan(&one))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("organization: retired address in %s: %w", orgID, err)
	}
	return true, nil
}

// unretire takes email off the member's retired list (it is becoming the
// member's address again) and returns the id it had, or "".
func (s *Store) unretire(ctx context.Context, q store.Querier, memberID, email string) (string, error) {
	var id string
	err := store.MapError(q.QueryRowContext(ctx, `SELECT email_id FROM member_retired_emails WHERE member_id = $1 AND email_address = $2`,
		memberID, email).Scan(&id))
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("organization: unretire: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM member_retired_emails WHERE email_id = $1`, id); err != nil {
		return "", fmt.Errorf("organization: unretire: %w", err)
	}
	return id, nil
}

// CheckNewEmail decides whether member m of org may change to the
// (normalised) address email: it must not be the member's address already
// nor belong (now or as a retired address) to another member, and where
// the organization restricts email JIT or invites to its allowed domains,
// its domain must be one of them. Both the start of an email update and
// its completion ask, since the organization may change in between.
func (s *Store) CheckNewEmail(ctx context.Context, q store.Querier, org *Organization, m *Member, email string) error {
	if email == m.EmailAddress {
		return apierr.Invalid("email_address", "This is already the member's email address.")
	}
	other, err := s.MemberByEmail(ctx, q, org.OrganizationID, email)
	switch {
	case err == nil && other.MemberID != m.MemberID:
		return apierr.New(apierr.DuplicateMemberEmail)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return err
	}
	if err := s.refuseRetired(ctx, q, org.OrganizationID, email, m.MemberID); err != nil {
		return err
	}
	domain := emailaddr.Domain(email)
	if org.EmailJITProvisioning == Restricted && !slices.Contains(org.EmailAllowedDomains, domain) {
		return apierr.New(apierr.InvalidEmailForJITProvisioning).WithMessage(
			"This organization only admits email addresses of its allowed domains.")
	}
	if org.EmailInvites == Restricted && !slices.Contains(org.EmailAllowedDomains, domain) {
		return apierr.New(apierr.InvalidEmailForInvites).WithMessage(
			"This organization only admits email addresses of its allowed domains.")
	}
	return nil
}

// ChangeEmail completes a verified email change inside the caller's
// transaction: the member's address becomes email (verified, since its
// owner just proved it), the old address joins the retired ones, and what
// the old address held ends (AddressHolder: secrets emailed to it, the
// member's sessions; RemovalHook: what the address keeps while it has a
// member, when it has none left). Only active members change address. It returns the
// member as it now is. The member is read locked (orgMemberForUpdate): the
// address retired and released is the one the change replaces, not one a
// concurrent change replaced already. The change is recorded in the audit
// log in q (EmailUpdated), so a refusal later in the caller's transaction
// takes the event back with it.
func (s *Store) ChangeEmail(ctx context.Context, q store.Querier, org *Organization, env ids.Env, memberID, email string) (*Member, error) {
	m, err := s.orgMemberForUpdate(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	if m.Status != StatusActive {
		return nil, apierr.New(apierr.InactiveMember)
	}
	if err := s.CheckNewEmail(ctx, q, org, m, email); err != nil {
		return nil, err
	}
	newID, err := s.unretire(ctx, q, m.MemberID, email)
	if err != nil {
		return nil, err
	}
	if newID == "" {
		newID = ids.New("email", env)
	}
	now := store.Millis(s.clock.Now())
	if err := s.retire(ctx, q, org, m.MemberID, m.EmailID, m.EmailAddress); err != nil {
		return nil, err
	}
	_, err = q.ExecContext(ctx, `UPDATE members SET email_address = $1, email_id = $2, email_address_verified = $3,
		email_address_proven = $3, updated_at = $4 WHERE member_id = $5`, email, newID, true, now, m.MemberID)
	if errors.Is(store.MapError(err), store.ErrConflict) {
		return nil, apierr.Wrap(apierr.DuplicateMemberEmail, err)
	}
	if err != nil {
		return nil, fmt.Errorf("organization: change email: %w", err)
	}
	if err := s.addressLeft(ctx, q, Released{ProjectID: org.projectID, MemberID: m.MemberID, Email: m.EmailAddress}); err != nil {
		return nil, err
	}
	if err := s.recordEmailChange(ctx, q, org, m, email); err != nil {
		return nil, err
	}
	return s.Member(ctx, q, org.projectID, m.MemberID)
}

// retire adds a member's former address, with the id it had, to their
// retired ones, inside q.
func (s *Store) retire(ctx context.Context, q store.Querier, org *Organization, memberID, emailID, email string) error {
	if _, err := q.ExecContext(ctx, `INSERT INTO member_retired_emails (email_id, project_id, organization_id, member_id,
		email_address, created_at) VALUES ($1,$2,$3,$4,$5,$6)`, emailID, org.projectID, org.OrganizationID, memberID,
		email, store.Millis(s.clock.Now())); err != nil {
		return fmt.Errorf("organization: retire email: %w", store.MapError(err))
	}
	return nil
}

// UnlinkRetired removes one retired address of a member of org, named by
// its email_id, its address, or both (then they must be the same entry).
func (s *Store) UnlinkRetired(ctx context.Context, org *Organization, memberID, emailID, rawEmail string) (*Member, error) {
	var email string
	if rawEmail != "" {
		var err error
		if email, err = emailaddr.Normalize(rawEmail); err != nil {
			return nil, err
		}
	}
	if emailID == "" && email == "" {
		return nil, apierr.Invalid("email_id", "Either email_id or email_address is required.")
	}
	var m *Member
	err := s.db.Tx(ctx, func(q store.Querier) error {
		var err error
		if m, err = s.OrgMember(ctx, q, org, memberID); err != nil {
			return err
		}
		i := slices.IndexFunc(m.RetiredEmailAddresses, func(r RetiredEmail) bool {
			return (emailID == "" || r.EmailID == emailID) && (email == "" || r.EmailAddress == email)
		})
		if i < 0 {
			return apierr.New(apierr.EmailNotFound).WithMessage("The member has no such retired email address.")
		}
		if _, err := q.ExecContext(ctx, `DELETE FROM member_retired_emails WHERE email_id = $1 AND member_id = $2`,
			m.RetiredEmailAddresses[i].EmailID, m.MemberID); err != nil {
			return fmt.Errorf("organization: unlink retired email: %w", err)
		}
		m, err = s.Member(ctx, q, org.projectID, m.MemberID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// A member's new address is checked against the retired ones (refuseRetired)
// before the member is written with it, and, where the write relies on the
// address's unique index rather than a lookup of its holder (a creation,
// UpdateMember), again after. On PostgreSQL an address change of another
// member away from the address may have been in flight at the first check:
// that change retires the address and moves its member off it in one
// transaction, and the write waited on the address's unique index for that
// transaction and then found the address free. The check before the write
// could not see the retired row then; a statement after it, with its own
// snapshot (read committed), does.
//
// refuseRetiredAfterInsert is that second check for a creation: it asks
// refuseRetired again once member id has been inserted with email, and takes
// the row out again when the address is retired. The row is deleted rather
// than left to the rollback because a caller may go on in its transaction
// after the refusal (a login send answers a retired address with a notice,
// SendLogin). SQLite has one writer, so there the second check finds what the
// first did.
func (s *Store) refuseRetiredAfterInsert(ctx context.Context, q store.Querier, org *Organization, id, email string) error {
	refused := s.refuseRetired(ctx, q, org.OrganizationID, email, "")
	if refused == nil || !apierr.Is(refused, apierr.DuplicateMemberEmail) {
		return refused
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM members WHERE member_id = $1`, id); err != nil {
		return fmt.Errorf("organization: undo member insert: %w", err)
	}
	return refused
}
