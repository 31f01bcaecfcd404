package organization_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// deletions records what DeleteMember tells a MemberDeletionHook: the
// member's id and status as the hook reads them inside q. fail makes its
// next call fail.
type deletions struct {
	mu   sync.Mutex
	got  []string
	fail bool
}

func (d *deletions) MemberDeleted(ctx context.Context, q store.Querier, m *organization.Member) error {
	var status string
	if err := q.QueryRowContext(ctx, `SELECT status FROM members WHERE member_id = $1`, m.MemberID).Scan(&status); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail {
		d.fail = false
		return errors.New("deletions: refused")
	}
	d.got = append(d.got, m.MemberID+" "+status)
	return nil
}

// A member's deletion is told to every MemberDeletionHook inside the
// deletion's transaction, after the member is marked deleted: when a hook
// fails, the deletion fails and the member stays as they were.
func TestMemberDeletionIsAnnounced(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		d := &deletions{fail: true}
		e.App.Orgs.AddMemberDeletionHook(d)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ada@acme.test")
		r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+memberID, nil)
		if r.Status != http.StatusInternalServerError {
			t.Fatalf("deletion with a failing hook: %s", r.Raw)
		}
		if s := e.MemberByID(org, memberID)["status"]; s == organization.StatusDeleted {
			t.Fatal("the member was deleted although a hook failed")
		}
		e.DeleteMember(org, memberID)
		if len(d.got) != 1 || d.got[0] != memberID+" "+organization.StatusDeleted {
			t.Fatalf("announced %v, want once %s deleted", d.got, memberID)
		}
	})
}
