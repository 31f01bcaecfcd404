package organization

import (
	"context"

	"github.com/latchkey/latchkey/internal/store"
)

// DeletionHook is told, inside an organization's deletion transaction and
// before its row goes, that the organization is being deleted and who
// deletes it (by): a module whose rows in other organizations depend on it
// (SSO's external connections) removes them and refreshes those
// organizations' answers, which the database's cascades alone would leave
// stale; a module whose audited credentials the cascade ends (a SCIM
// connection's bearer token) records their end, naming by, as its own
// deletion route would. Either commits with the deletion or not at all: a
// failing hook fails the deletion.
type DeletionHook interface {
	BeforeOrganizationDelete(ctx context.Context, q store.Querier, projectID, orgID string, by Actor) error
}

// AddDeletionHook registers hooks. The composition root calls it once,
// before serving.
func (s *Store) AddDeletionHook(h ...DeletionHook) { s.deletion = append(s.deletion, h...) }

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
