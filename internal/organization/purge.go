package organization

import (
	"context"
	"fmt"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/store"
)

// A deleted member whose address was never verified cannot be restored as
// the person behind the address: nobody ever proved to hold it. The vendor
// Admin Portal says so when an admin revokes an invitation ("Resending an
// invite to this email will create a new Member record") or deactivates
// an unverified member ("you will not be able to reactivate the Member or
// restore their email"). members is unique on (organization_id,
// email_address), so such a record would hold the address forever; an
// admin's invite or creation of the address removes it instead (a hard
// delete: its sessions, links, factors and registrations go by the
// schema's ON DELETE CASCADE, and the change feed drops cached answers
// about it) and creates a new member, with a new member_id. A deleted
// member with a verified address is the person's, and is reactivated
// rather than replaced; an admin cannot reactivate an unverified one
// (reactivate). A login's JIT signup never removes one: the person
// logging in is told they are inactive (inactive_member), as before.

// PurgeGuard names a table, keyed by member_id, whose row for a deleted
// member keeps the record even though its address was never verified:
// something outside the organization's admins (SCIM's identity provider)
// still manages the member and may reactivate them. Reason completes the
// refusal "This member is deleted but ...".
type PurgeGuard struct {
	Table  string
	Reason string
}

// AddPurgeGuard registers guards. The composition root calls it once,
// before serving.
func (s *Store) AddPurgeGuard(g ...PurgeGuard) { s.guards = append(s.guards, g...) }

// UseAudit has member purges and completed email changes recorded in a. The composition root calls
// it once, before serving.
func (s *Store) UseAudit(a audit.InTx) { s.audit = a }

// memberForAdmin reads the member holding email in org for an admin's
// invite or creation of the address (doing names it in a refusal:
// "inviting", "creating"). A deleted member whose address was never
// verified, and whom no guard keeps, is removed first (purgeDeleted) and
// the address reads as free: store.ErrNotFound, with purged the removed
// member's id. Any other deleted member is refused (refuseDeleted).
func (s *Store) memberForAdmin(ctx context.Context, q store.Querier, org *Organization, email, doing string) (
	m *Member, purged string, err error) {
	m, err = s.MemberByEmail(ctx, q, org.OrganizationID, email)
	if err != nil || m.Status != StatusDeleted {
		return m, "", err
	}
	if !m.EmailAddressVerified {
		done, err := s.purgeDeleted(ctx, q, m)
		if err != nil {
			return nil, "", err
		}
		if done {
			return nil, m.MemberID, fmt.Errorf("organization: member %s purged: %w", m.MemberID, store.ErrNotFound)
		}
		// Reactivated, verified, provisioned or already replaced since the
		// read: answer for the address as it is now.
		if m, err = s.MemberByEmail(ctx, q, org.OrganizationID, email); err != nil || m.Status != StatusDeleted {
			return m, "", err
		}
	}
	return nil, "", s.refuseDeleted(ctx, q, m, doing)
}

// purgeDeleted removes m's row if it still qualifies (deleted, address
// unverified, kept by no guard), inside q, and reports whether it did; the
// removal hooks then learn of m's address. The condition is in the DELETE
// itself, so a reactivation, a login verifying the address or a
// provisioning committed since m was read leaves the row.
//
// On PostgreSQL the row is locked FOR UPDATE first, in a statement of its
// own: that lock waits for a transaction that inserted a row referencing
// the member (a SCIM registration: its foreign key check holds FOR KEY
// SHARE, which LockRow's FOR NO KEY UPDATE does not wait for), and the
// DELETE that follows then sees that row. Without it the DELETE would test
// its NOT EXISTS against a snapshot taken before that commit and then
// cascade the new registration away. SQLite has one writer: the read is
// already current.
func (s *Store) purgeDeleted(ctx context.Context, q store.Querier, m *Member) (bool, error) {
	if s.db.Dialect() == store.Postgres {
		if _, err := q.ExecContext(ctx, `SELECT 1 FROM members WHERE member_id = $1 FOR UPDATE`, m.MemberID); err != nil {
			return false, fmt.Errorf("organization: lock member %s: %w", m.MemberID, store.MapError(err))
		}
	}
	query := `DELETE FROM members WHERE member_id = $1 AND project_id = $2 AND status = $3 AND email_address_verified = $4`
	for _, g := range s.guards {
		query += ` AND NOT EXISTS (SELECT 1 FROM ` + g.Table + ` g WHERE g.member_id = members.member_id)`
	}
	res, err := q.ExecContext(ctx, query, m.MemberID, m.projectID, StatusDeleted, false)
	if err != nil {
		return false, fmt.Errorf("organization: purge member %s: %w", m.MemberID, store.MapError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("organization: purge member %s: %w", m.MemberID, err)
	}
	if n != 1 {
		return false, nil
	}
	// The row was perhaps its address's last in the project: what the
	// address kept goes before a member is created in its place.
	if err := s.membersRemoved(ctx, q, m.projectID, []string{m.EmailAddress}); err != nil {
		return false, fmt.Errorf("organization: purge member %s: %w", m.MemberID, err)
	}
	return true, nil
}

// refuseDeleted is the answer to an admin inviting or creating the address
// of m, a deleted member who stays: inactive_member, saying why.
func (s *Store) refuseDeleted(ctx context.Context, q store.Querier, m *Member, doing string) error {
	if !m.EmailAddressVerified {
		reason, err := s.guardReason(ctx, q, m)
		if err != nil {
			return err
		}
		if reason != "" {
			// Not "reactivate instead": an admin cannot reactivate an
			// unverified member (reactivate), so that would send them in
			// a circle.
			return apierr.New(apierr.InactiveMember).WithMessage(
				"This member is deleted but " + reason + "; " + doing + " the address again is refused while they are.")
		}
	}
	return apierr.New(apierr.InactiveMember).WithMessage("This member is deleted; reactivate the member instead of " + doing + " them.")
}

// guardReason is the Reason of the first guard keeping m, or "" when none
// does.
func (s *Store) guardReason(ctx context.Context, q store.Querier, m *Member) (string, error) {
	for _, g := range s.guards {
		var kept bool
		if err := q.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM `+g.Table+` WHERE member_id = $1)`, m.MemberID).Scan(&kept); err != nil {
			return "", fmt.Errorf("organization: purge guard %s: %w", g.Table, err)
		}
		if kept {
			return g.Reason, nil
		}
	}
	return "", nil
}

// reactivate makes org's deleted member memberID active again for an admin
// (the reactivate routes of both faces), inside the write transaction q.
// The other side of the purge: a member whose address was never verified
// is refused (email_unverified_for_reactivation, as the vendor documents
// the endpoint) and stays deleted; an invite or creation of the address
// replaces them instead. The row is locked before it is read, so the test
// and the status change are about the same row: a purge waits, or has
// already removed it (member_not_found). The identity provider's own
// reactivation (SCIM) goes through SetMemberStatus without the rule; a
// member it keeps gets a message saying so, since inviting them is refused
// too.
func (s *Store) reactivate(ctx context.Context, q store.Querier, org *Organization, memberID string) (*Member, error) {
	if err := s.lockMemberForUpdate(ctx, q, memberID); err != nil {
		return nil, err
	}
	m, err := s.OrgMember(ctx, q, org, memberID)
	if err != nil {
		return nil, err
	}
	if m.Status == StatusDeleted && !m.EmailAddressVerified {
		reason, err := s.guardReason(ctx, q, m)
		if err != nil {
			return nil, err
		}
		if reason != "" {
			return nil, apierr.New(apierr.EmailUnverifiedForReactivation).WithMessage(
				"This member's email address was never verified, so the member cannot be reactivated here; they are " + reason + ".")
		}
		return nil, apierr.New(apierr.EmailUnverifiedForReactivation)
	}
	return s.SetMemberStatus(ctx, q, org, memberID, StatusActive, []string{StatusDeleted},
		apierr.New(apierr.NoDeletedMemberFoundForReactivation))
}

// recordPurge files, in q, the end of the purged member, replaced by m:
// the row is gone, so this event is what remains of the old member_id.
func (s *Store) recordPurge(ctx context.Context, q store.Querier, org *Organization, purged string, m *Member) error {
	if s.audit == nil {
		return nil
	}
	ip, ua := httpapi.Client(ctx)
	return s.audit.RecordIn(ctx, q, audit.Event{ProjectID: org.projectID, Type: audit.MemberPurged,
		OrganizationID: org.OrganizationID, MemberID: purged, IP: ip, UserAgent: ua, RequestID: httpapi.RequestID(ctx),
		Details: map[string]any{"replaced_by": m.MemberID}})
}
