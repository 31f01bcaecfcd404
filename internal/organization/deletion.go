package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// DeletionHook is told, inside an organization's deletion transaction and
// before its row goes, that the organization is being deleted: a module
// whose rows in other organizations depend on it (SSO's external
// connections) removes them and refreshes those organizations' answers,
// which the database's cascades alone would leave stale.
type DeletionHook interface {
	BeforeOrganizationDelete(ctx context.Context, q store.Querier, projectID, orgID string) error
}

// AddDeletionHook registers hooks. The composition root calls it once,
// before serving.
func (s *Store) AddDeletionHook(h ...DeletionHook) { s.deletion = append(s.deletion, h...) }

// DeletionAuditor is told, inside an organization's deletion transaction,
// after the deletion hooks and before the organization's row goes, who
// deletes it: a module whose audited credentials the deletion's cascade
// ends (a SCIM connection's bearer token) records their end there, as its
// own deletion route would, so the events commit with the deletion or not
// at all. A failing auditor fails the deletion.
type DeletionAuditor interface {
	AuditOrganizationDelete(ctx context.Context, q store.Querier, projectID, orgID string, by Actor) error
}

// AddDeletionAuditor registers auditors. The composition root calls it
// once, before serving.
func (s *Store) AddDeletionAuditor(a ...DeletionAuditor) {
	s.deletionAudit = append(s.deletionAudit, a...)
}

// MemberDeletionHook is told, inside a member's deletion transaction
// (DeleteMember) and after the member is marked deleted, that the member
// was deleted. The member's row stays (a deletion can be undone by a
// reactivation), so a module keeping something of the member that nothing
// else ends, such as the tokens a provider issued at the member's logins,
// ends it here: it is neither kept for a member who is gone nor handed
// out again after a reactivation. A failing hook fails the deletion.
type MemberDeletionHook interface {
	MemberDeleted(ctx context.Context, q store.Querier, m *Member) error
}

// AddMemberDeletionHook registers hooks. The composition root (or a
// module's constructor) calls it once, before serving.
func (s *Store) AddMemberDeletionHook(h ...MemberDeletionHook) {
	s.memberDeletion = append(s.memberDeletion, h...)
}

// memberDeleted runs the member deletion hooks inside q.
func (s *Store) memberDeleted(ctx context.Context, q store.Querier, m *Member) error {
	for _, h := range s.memberDeletion {
		if err := h.MemberDeleted(ctx, q, m); err != nil {
			return err
		}
	}
	return nil
}
